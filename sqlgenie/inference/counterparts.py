"""Counterparts: refusals for a question part that nothing in the example or its adapted SQL
answers, or an example part the question does not ask for (issue 13, helper matchs).

The verification (:mod:`.verify`, :mod:`.precision`, :mod:`.sides`, :mod:`.groups`) pairs
values and compares roles; some differences between a question and its example still pass
because each word alone looks harmless. Rules here are read off the two questions, the
example's SQL, the adapted SQL and the catalog (no word list from a test set); each was
designed on the fresh templated splits of seeds 3 and 4 and measured rule by rule
(docs/benchmarks.md, "After matchs"):

* :func:`kind_mismatch` - **the kind of answer**. A yes/no query (``COUNT(*) > 0``) for a
  question that starts with a wh-word ("When is 511 offered next semester?" from "419 is
  offered next semester?"); "what was X's first publication" answered with the year of
  "when was X's first publication"; "who published papers in X" answered with the papers
  of "what papers are published in X" (the papers named again in the question); the
  example's who / where / when gone with no wh-word left ("419 is offered next semester?"
  from "250 is offered when in next semester?"); "how long / how far ..." answered with
  no number or time. (A bare phrase against who / where / when is
  :func:`.verify.compare_roles`'s; the deeper path has its own check.)
* :func:`unrealized_grouping` - "for each X" / "per X" that the example lacks, with no
  GROUP BY in the adapted SQL.
* :func:`table_stems` - a word naming a table by its stem, said by one question only
  ("papers *citing* X" adapted to "semantic parsing papers in acl" still reads ``cite``;
  "papers *cited* by X and Y" answered without ``cite``).
* :func:`unasked_ranking` - the SQL ranks (ORDER BY ... LIMIT, or by an aggregate) and only
  the example says a ranking word ("Who is the *usual* teacher of X" for "Who teaches X";
  "*popular* datasets" for "datasets for knn").
* :func:`order_direction` - the question asks for the latest (earliest) and the SQL keeps
  the first rows of an ascending (descending) order.
* :func:`number_roles` - one number of the question put into two different columns ("before
  0" had also filled ``stops = 0``; "on 11 11" day and month).
* :func:`companion_constants` - a string constant that went with a value the question
  replaced (``state_code = 'DC'`` kept for BOSTON; the example's second city).
* :func:`moved_values` and :func:`.verify.direction_swaps` (also for identical wordings
  here) - values that changed places ("cheapest flights from BALTIMORE to DALLAS" from
  "... from DALLAS to BALTIMORE" keeps DALLAS as the origin).
* :func:`added_constants` - a word the question adds that the bank ties to a constant on a
  column the SQL does not read (the mirror of :func:`.sides.dropped_constants`).

Tried and not kept (switched off): :func:`unmatched_head`, an answer noun with no counterpart
(the question asks for a thing, "what *topics* does X publish in", that the example does not
say, no member of the candidate's group says and no table, column or column synonym of the
SQL names): it lost as many right answers as it removed wrong ones, on synonyms the catalog
lacks ("which *professor*" for the instructor, "what *conference*" for the venue);
:func:`dropped_head`, the example's answer noun the
question lacks ("What was the *topic* of best paper" for "best paper in X"): it also fires
on words the answer phrase picks up that are no nouns ("the *meaning* of fare code",
"*some* of the courses").

Every refusal is a sentence; :data:`REASON_CODES` gives its ``reason_code``.
"""

from __future__ import annotations

import re
from typing import Any, Iterator, Sequence

from sqlglot import exp

from sqlgenie.inference.refusals import code_of, refuse_first

__all__ = [
    "REASON_CODES",
    "added_constants",
    "check_candidate",
    "companion_constants",
    "dropped_head",
    "example_constants",
    "findings",
    "kind_mismatch",
    "moved_values",
    "number_roles",
    "order_direction",
    "reason_code",
    "table_stems",
    "unasked_ranking",
    "unmatched_head",
    "unrealized_grouping",
]

#: reason_code of each refusal of this module, by a phrase of its sentence.
REASON_CODES = {
    "which the examples tie to a condition on": "added condition",
    "ranks and keeps only the first": "unasked ranking",
    "the example's query orders": "order direction",
    "goes into two different columns": "number roles",
    "which went with": "companion constant",
    "nothing in your question names": "answer noun",
    "the values changed places": "value direction",
    "still reads": "table word",
    "does not read": "table word",
    "follows \u201c": "value direction",
    "ask for different kinds of answer": "answer kind",
    "one answer per": "grouping",
    "nothing in the example's query names": "answer noun",
}

#: switches (benchmarks turn one rule off at a time)
KIND = True
GROUPING = True
HEAD = False  # tried, not kept: as many right answers lost as wrong removed (synonyms the catalog lacks)
ADDED = True  # a word the question adds that the bank ties to a constant the SQL lacks
RANKING = True  # a top-k ranking no word of the question asks for
DIRECTION = True  # newest/oldest words against the ORDER BY direction
NUMBER_ROLES = True  # one number of the question put into two different columns
COMPANIONS = True  # a constant that went with a value the question replaced
SWAPS = True  # from/to swaps in identical wordings
DROPPED_HEAD = False  # tried, not kept: the example's answer noun the question lacks (see module doc)
STEMS = True  # a word naming a table by its stem ("citing" -> cite) said by one question only

_TEMPORAL = frozenset("year years date dates time times day days month months semester semesters term terms "
                      "quarter hour hours week weeks".split())


def reason_code(reason: str) -> str | None:
    return code_of(reason, REASON_CODES)


_WH_FIRST = frozenset("what which who whom whose where when how".split())
_REQUESTS = frozenset("list show tell give name find display return".split())  # "do you have a list of teachers"
_FILLER_NOUNS = frozenset("one ones kind kinds type types sort sorts else thing things i'd i'm i've".split())


def _first(words: Sequence[str]) -> str:
    return words[0] if words else ""


def _only_predicates(tree: exp.Expression) -> bool:
    """The outer projection answers yes or no (``COUNT(*) > 0``, ``COUNT(*) = 0``)."""
    from sqlgenie.inference.precision import answer_items

    answer = answer_items(tree)
    return answer is not None and all(isinstance(e, exp.Predicate) for e in answer[0])


def _numeric_answer(tree: exp.Expression, catalog: Any) -> bool | None:
    """The outer projection holds an aggregate, arithmetic, a numeric or temporal column
    (None: nothing to check)."""
    from sqlgenie.inference.precision import _column_info, answer_items, computes

    answer = answer_items(tree)
    if answer is None:
        return None
    items, tables = answer
    for e in items:
        if computes(e):
            return True
        for col in e.find_all(exp.Column):
            info = _column_info(col, tables, catalog)
            if info is None or info.family in ("numeric", "temporal"):
                return True
    return False


def _temporal_answer(tree: exp.Expression, catalog: Any) -> bool:
    """Every column of the outer projection is a time (a year, a date), aggregates aside."""
    from sqlgenie.inference.precision import _column_info, _temporal_name, answer_items

    answer = answer_items(tree)
    if answer is None:
        return False
    items, tables = answer
    cols = [c for e in items if e.find(exp.AggFunc) is None for c in e.find_all(exp.Column)]
    if not cols:
        return False
    for col in cols:
        info = _column_info(col, tables, catalog)
        if not ((info is not None and info.family == "temporal") or _temporal_name(col.name)):
            return False
    return True


def _projects_table_of(tree: exp.Expression, word: str, catalog: Any) -> bool:
    """The outer projection returns rows of the table ``word`` names (``papers`` -> paper:
    its key or one of its columns)."""
    from sqlgenie.inference.sides import _projected_entities, _word_table

    if catalog is None:
        return False
    schemas = {t.db.lower() for t in tree.find_all(exp.Table) if t.db}
    names = [t.name.lower() for t in catalog.tables if not schemas or t.schema.lower() in schemas]
    table = _word_table(word, names)
    shown = _projected_entities(tree, names) if table else None
    return bool(shown) and table in shown


def kind_mismatch(tree: exp.Expression, example: Any, new: Any, catalog: Any = None) -> list[str]:
    """See module doc. ``example`` / ``new``: :class:`sqlgenie.inference.verify.Roles`."""
    from sqlgenie.inference.verify import lemma

    first_new, first_ex = _first(new.words), _first(example.words)
    # a query that answers yes or no, for a question that starts with a wh-word
    if first_new in _WH_FIRST and first_ex not in _WH_FIRST and _only_predicates(tree):
        return [f"the two questions ask for different kinds of answer: yours asks {first_new}, "
                "the example's query answers yes or no"]
    # "when was X's first publication" (a year) for "what was X's first publication" (a paper)
    if first_ex == "when" and first_new in ("what", "which") and not (
            len(new.words) > 1 and new.words[1] in _TEMPORAL or new.heads[:1] and new.heads[0] in _TEMPORAL
    ) and _temporal_answer(tree, catalog):  # "what is the release date" asks for a time too
        return ["the two questions ask for different kinds of answer: yours asks what, the example when "
                "and its query answers with a time"]
    # "who published papers in X" from "what papers are published in X": a person, not the things
    if first_new == "who" and first_ex in ("what", "which") and example.heads and \
            example.heads[0] in {lemma(w) for w in new.words} and _projects_table_of(tree, example.heads[0], catalog):
        return [f"the two questions ask for different kinds of answer: yours asks who, the example what "
                f"{example.heads[0]}s and its query returns them"]
    # "419 is offered next semester ?" from "250 is offered when in next semester ?": the example's
    # who / where / when is gone and the question asks nothing else
    said = [w for w in example.words if w in ("who", "whom", "where", "when")]  # not "whose": "cities whose ..."
    if said and not any(w in _WH_FIRST or w == "<count>" or w in _REQUESTS for w in new.words):
        return [f"the two questions ask for different kinds of answer: the example asks {said[0]}, "
                "yours asks no wh-question"]
    # "how long / how far / how small ...": a measure
    if first_new == "how" and len(new.words) > 1 and new.words[1] not in ("many", "much", "about") and \
            new.words[1] != "<count>" and "how" not in example.words and _numeric_answer(tree, catalog) is False:
        return [f"the two questions ask for different kinds of answer: yours asks how {new.words[1]}, "
                "the example's query answers with no number or time"]
    return []


def _grouping_words(roles: Any) -> set[str]:
    """Targets of "each / per X" (not "by X": "papers by X" names an author; not "every X":
    "does every class have exams" quantifies)."""
    words = roles.words
    out = set()
    from sqlgenie.inference.verify import _is_content, lemma

    for k, w in enumerate(words):
        if w not in ("each", "per"):
            continue
        j = k + 1
        while j < len(words) and words[j] in ("the", "a", "an", "single"):
            j += 1
        if j < len(words) and _is_content(words[j]) and not words[j].endswith("'s"):
            out.add(lemma(words[j]))  # not "each professional's name": a possessive distributes
    return out


def unrealized_grouping(tree: exp.Expression, example: Any, new: Any) -> list[str]:
    """See module doc."""
    added = _grouping_words(new) - _grouping_words(example) - {lemma_ for lemma_ in example.grouped}
    if not added:
        return []
    if any(sel.args.get("group") is not None for sel in tree.find_all(exp.Select)):
        return []
    shown = ", ".join(sorted(added))
    return [f"your question asks for one answer per {shown}; the example's query does not group"]


def _sql_words(tree: exp.Expression, catalog: Any) -> set[str]:
    from sqlgenie.inference.adapt import sql_vocabulary
    from sqlgenie.inference.verify import lemma

    used, _ = sql_vocabulary(tree, catalog)
    return used | {lemma(w) for w in used}


def unmatched_head(tree: exp.Expression, example_masked: str, example: Any, new: Any, catalog: Any,
                   group: Any = None) -> list[str]:
    """See module doc."""
    from sqlgenie.inference.adapt import word_in
    from sqlgenie.inference.verify import lemma, tokens

    if not new.items or not new.heads or new.count or new.kind in ("who", "where", "when"):
        return []
    if _first(new.words) == "how":
        return []  # "how long ...": an answer type (kind_mismatch), not a noun
    item = [w for w in new.items[0] if len(w) > 2 and not w.endswith(("ing", "ed", "ly")) and w not in _TEMPORAL
            and w not in _FILLER_NOUNS]
    if not item or new.heads[0] not in item:
        return []
    ex_words = {lemma(w) for w in tokens(example_masked)} | set(example.heads)
    sql_words = _sql_words(tree, catalog)
    for w in item:
        if w in ex_words or (group is not None and group.word_added_ok(w)) or word_in(w, sql_words):
            return []
    head = new.heads[0]
    return [f"your question asks for {' '.join(item)}; nothing in the example's query names {head}"]


# time only: "youngest" / "oldest" name an age, whose order runs the other way ("youngest" = ORDER BY age ASC)
_NEW_WORDS = frozenset("latest recent recently last lately".split())
_OLD_WORDS = frozenset("earliest first initially".split())
_RANK_WORDS = frozenset("""most least top bottom first last best worst highest lowest largest smallest biggest
greatest fewest maximum minimum max min rank ranked ranking order ordered sort sorted popular usually usual
frequent frequently often common commonly main primary""".split())


def added_constants(tree: exp.Expression, example_masked: str, new_masked: str, constants: Any,
                    group: Any = None) -> list[str]:
    """A word the question adds that the bank ties (>= 80%, >= 3 uses; :class:`.sides.ConstantWords`)
    to a constant on a column, while the adapted SQL does not read that column at all
    ("*upper-level* STRATEGY classes" answered by "STRATEGY classes": no ``category``
    condition). The mirror of :func:`.sides.dropped_constants`."""
    from sqlgenie.inference.adapt import _STOP
    from sqlgenie.inference.sides import _LazyConstants, _same_stem
    from sqlgenie.inference.verify import _MASK, lemma, tokens

    words = constants.get() if isinstance(constants, _LazyConstants) else constants
    if words is None:
        return []
    ex_raw = {w for w in tokens(example_masked) if w != _MASK and w[0].isalpha()}
    ex_lemmas = {lemma(w) for w in ex_raw}
    added = sorted(w for w in {w for w in tokens(new_masked) if w != _MASK and w[0].isalpha()} - ex_raw
                   if lemma(w) not in ex_lemmas and not any(_same_stem(w, v) for v in ex_raw) and len(w) > 3
                   and w not in _STOP)  # "where", "which": query words, never a condition's word
    if not added:
        return []
    read = {c.name.lower() for c in tree.find_all(exp.Column)}
    for w in added:
        if group is not None and group.word_added_ok(w):
            continue
        cols = {c for c in words.columns(w) if not _calendar(c)}
        if cols and not (cols & read):
            return [f"your question says \u201c{w}\u201d, which the examples tie to a condition on "
                    f"{', '.join(sorted(cols))}; this example's query has none"]
    return []


def _calendar(column: str) -> bool:
    """A calendar part (``year``, ``month_number``): a default date, not a word's condition."""
    from sqlgenie.inference.precision import _temporal_name

    return _temporal_name(column)


def _ranks_top(tree: exp.Expression) -> bool:
    """The outer query keeps the first rows of an order (ORDER BY ... LIMIT) or orders by
    an aggregate (``ORDER BY COUNT(*) DESC``: the most frequent first)."""
    from sqlgenie.inference.precision import _outer

    sel = _outer(tree)
    if sel is None or sel.args.get("order") is None:
        return False
    return sel.args.get("limit") is not None or any(
        k.find(exp.AggFunc) is not None for k in sel.args["order"].expressions)


def unasked_ranking(tree: exp.Expression, example_masked: str, new_masked: str, group: Any = None) -> list[str]:
    """The adapted SQL keeps only the top rows of a ranking (ORDER BY ... LIMIT), the
    question has no word that ranks (superlative, top/first/last, order, most ...), and the
    example has words the question lacks ("Who is the *usual* teacher of X" answering "Who
    teaches X" with the 5 most frequent teachers)."""
    from sqlgenie.inference.verify import tokens

    if not _ranks_top(tree):
        return []
    new = tokens(new_masked)
    if any(w in _RANK_WORDS or w in _NEW_WORDS or w in _OLD_WORDS or (len(w) > 5 and w.endswith("est"))
           for w in new):
        return []
    ex = set(tokens(example_masked))
    if any(w.endswith("ly") and len(w) > 4 and w not in ex for w in new):
        return []  # an adverb the question adds may say the ranking ("typically cited" for "commonly cited")
    if any(w.isdigit() for w in new):
        return []
    removed = sorted(w for w in ex - set(new) if w in _RANK_WORDS or w in _NEW_WORDS or w in _OLD_WORDS
                     or (len(w) > 5 and w.endswith("est")))
    if not removed:
        return []
    if group is not None and group.removed_ok(set(removed)):
        return []
    return [f"the example says {', '.join(removed)}: its query ranks and keeps only the first rows, "
            "which your question does not ask for"]


def order_direction(tree: exp.Expression, new_masked: str) -> list[str]:
    """The question asks for the newest / most recent (or the earliest / first) and the
    adapted SQL orders the only key ascending (descending) and keeps the first rows: the
    answer would be the other end."""
    from sqlgenie.inference.precision import _outer
    from sqlgenie.inference.verify import tokens

    sel = _outer(tree)
    if sel is None or sel.args.get("order") is None or sel.args.get("limit") is None:
        return []
    keys = sel.args["order"].expressions
    if len(keys) != 1:
        return []
    desc = bool(keys[0].args.get("desc"))
    words = set(tokens(new_masked))
    new, old = bool(words & _NEW_WORDS), bool(words & _OLD_WORDS)
    if new == old or words & {"long", "since", "ago", "until"}:
        return []
    if new and not desc:
        return ["your question asks for the latest, but the example's query orders ascending and keeps the first"]
    if old and desc:
        return ["your question asks for the earliest, but the example's query orders descending and keeps the first"]
    return []


def number_roles(adapted: Any, new_spans: Sequence[Any]) -> list[str]:
    """One number of the question replaced constants of two different columns (the
    example's "before 0" also filled ``stops = 0``; "on 11 11" put one value in day and
    month): the example's number played two roles, the question's plays one."""
    from sqlgenie.inference.adapt import Span

    numbers = {Span.of(s).text for s in new_spans if Span.of(s).cls == "number"}
    cols: dict[str, set[str]] = {}
    for sub in getattr(adapted, "substitutions", ()) or ():
        if sub.question_text in numbers and sub.column:
            cols.setdefault(sub.question_text, set()).add(sub.column.rsplit(".", 1)[-1].lower())
    for text, names in cols.items():
        if len(names) > 1:
            return [f"your number {text} goes into two different columns ({', '.join(sorted(names))}) "
                    "where the example's value played two roles"]
    return []


_COMPANION_CACHE: dict[tuple, tuple[list, list]] = {}


def example_constants(example_sql: str, example_spans: Sequence[Any], catalog: Any) -> tuple[list, list]:
    """(bound: (span text, alias, column) of each text value of the example's question;
    free: (column, text, alias, in a list of alternatives) of each string constant no value
    produced), cached per example (bank SQL repeats)."""
    from sqlgenie.inference.adapt import _column_operand, _context, example_alignment, norm_text
    from sqlgenie.inference.sides import _spans_key

    key = (id(catalog), example_sql, _spans_key(example_spans))
    if key in _COMPANION_CACHE:
        return _COMPANION_CACHE[key]
    try:
        slots, alignment = example_alignment(example_sql, example_spans, catalog)  # read once (read only)
        spans = alignment.spans
    except Exception:
        return [], []

    def alias(slot: Any) -> str | None:
        context, anchor = _context(slot.node)
        col = _column_operand(anchor) if context == "compare" and anchor is not None else None
        return (col.table or None) if col is not None else None

    def alternative(slot: Any) -> bool:  # one of a list of spellings of a value (x = 'SP' OR x = 'SS', IN)
        node = slot.node
        if isinstance(node.parent, exp.In):
            return True
        while node.parent is not None and not isinstance(node.parent, exp.Select):
            node = node.parent
            if isinstance(node, exp.Or):
                return True
        return False

    bound_slots = {b.slot for b in alignment.bindings}
    bound = [(norm_text(spans[b.span].text), alias(slots[b.slot]), slots[b.slot].column)
             for b in alignment.bindings if spans[b.span].cls == "text"]
    free = [(slots[i].column, slots[i].text, alias(slots[i]), alternative(slots[i])) for i in range(len(slots))
            if i not in bound_slots and slots[i].is_string and slots[i].context == "compare"]
    if len(_COMPANION_CACHE) > 20000:
        _COMPANION_CACHE.clear()
    _COMPANION_CACHE[key] = (bound, free)
    return bound, free


def companion_constants(adapted: Any, example_sql: str, example_spans: Sequence[Any], catalog: Any,
                        new_masked: str = "") -> list[str]:
    """A string constant of the example's SQL that no value of its question produced, on the
    same table alias or the same column as a value the question replaced (``city_name =
    'WASHINGTON' AND state_code = 'DC'`` adapted to BOSTON keeps 'DC'; a second city the
    example's query adds to BALTIMORE): it went with the replaced value. A constant in a list
    of alternatives (``semester = 'SP' OR semester = 'SS'``) on the value's own alias is one
    of its spellings; a code (3 letters or fewer) on the same column of another alias may be
    one too. A constant the question itself says ("on monday") is accounted for."""
    from sqlgenie.inference.adapt import norm_text
    from sqlgenie.inference.verify import tokens

    replaced = {norm_text(old) for old, new in getattr(adapted, "pairs", []) or [] if norm_text(old) != norm_text(new)}
    if not replaced:
        return []
    bound, free = example_constants(example_sql, example_spans, catalog)
    hits = [(a, c) for text, a, c in bound if text in replaced]
    tables = {a for a, _ in hits} - {None}
    columns = {c for _, c in hits} - {None}
    said = " " + " ".join(tokens(new_masked)) + " "
    found = [f"{column or 'a column'} = '{text}'" for column, text, a, alt in free
             if ((a in tables and not alt) or (column in columns and a not in tables and len(text) > 3))
             and f" {' '.join(tokens(text))} " not in said]
    if not found:
        return []
    return [f"the example's query keeps {', '.join(found)}, which went with the value your question replaced"]

def dropped_head(example_masked: str, new_masked: str, example: Any, new: Any, group: Any = None) -> list[str]:
    """The example asks for a thing the question does not say ("What was the *topic* of best
    paper in X" for "best paper in Y") while the question's own answer noun plays another
    part in the example ("of best *paper*"): the example's query answers its own noun."""
    from sqlgenie.inference.verify import lemma, tokens

    if len(example.heads) != 1 or len(new.heads) != 1 or example.count or new.count:
        return []
    h_ex, h_new = example.heads[0], new.heads[0]
    if h_ex == h_new or len(h_ex) < 3 or h_ex in _FILLER_NOUNS or h_ex in _TEMPORAL:
        return []
    ex_words = {lemma(w) for w in tokens(example_masked)}
    new_words = {lemma(w) for w in tokens(new_masked)}
    if h_new not in ex_words or h_ex in new_words:
        return []
    if group is not None and group.removed_ok({h_ex}):
        return []
    return [f"the example asks for the {h_ex} of a {h_new}, your question for the {h_new}: "
            f"nothing in your question names {h_ex}"]


def _stem(word: str) -> str:
    """A crude stem that ties a verb or a noun to a table name: ``citing``, ``cited``,
    ``cites``, ``citation`` -> ``cit``; ``writes``, ``written`` -> ``writ``."""
    w = word.lower()
    for suffix in ("ations", "ation", "ings", "ing", "ed", "es", "s", "e"):
        if w.endswith(suffix) and len(w) - len(suffix) >= 3:
            return w[:-len(suffix)]
    return w


def table_stems(tree: exp.Expression, example_masked: str, new_masked: str, catalog: Any,
                group: Any = None) -> list[str]:
    """A word whose stem is a table's name (``citing`` -> ``cite``) said by one question only:
    the example says it and the adapted SQL still reads that table ("papers *citing* X"
    adapted to "semantic parsing papers in acl"), or the question says it and the SQL does
    not read the table ("papers *cited* by X and Y" answered with papers they wrote)."""
    from sqlgenie.inference.adapt import _singular
    from sqlgenie.inference.verify import _MASK, lemma, tokens

    if catalog is None:
        return []
    schemas = {t.db.lower() for t in tree.find_all(exp.Table) if t.db}
    tables = {t.name.lower() for t in catalog.tables if not schemas or t.schema.lower() in schemas}
    single = {t for t in tables if "_" not in t and len(t) >= 4}  # one-word table names only
    by_stem = {_stem(t): t for t in single}
    read = {t.name.lower() for t in tree.find_all(exp.Table)}

    def named(masked: str) -> dict[str, str]:
        """table -> the word naming it by its stem ("" for the table's own noun, "papers":
        the schema-word checks' business, never reported here)."""
        out: dict[str, str] = {}
        for w in tokens(masked):
            if w != _MASK and w[0].isalpha() and _stem(w) in by_stem:
                table = by_stem[_stem(w)]
                own = lemma(w) in (table, _singular(table))
                out[table] = out.get(table) or ("" if own else w)
        return out

    ex, new = named(example_masked), named(new_masked)
    for table, word in sorted(ex.items()):
        if not word:
            continue
        if table not in new and table in read and not (group is not None and group.removed_ok({word})):
            return [f"the example says \u201c{word}\u201d and its query still reads {table}; "
                    "your question does not say it"]
    for table, word in sorted(new.items()):
        if word and table not in ex and table not in read and not (group is not None and group.word_added_ok(word)):
            return [f"your question says \u201c{word}\u201d, but the example's query does not read {table}"]
    return []


def moved_values(example_masked: str, example_spans: Sequence[Any], new_masked: str, new_spans: Sequence[Any],
                 pairs: Sequence[tuple[str, str]]) -> list[str]:
    """Identical wordings pair their values by position; a value the two questions share
    that was paired out of place ("arriving in ATLANTA from BALTIMORE" adapted from "arriving
    in BALTIMORE from BOSTON" keeps BALTIMORE where the example had it) changes its role."""
    from sqlgenie.inference.adapt import Span, norm_text

    if example_masked.strip().lower() != new_masked.strip().lower() or len(example_spans) != len(new_spans):
        return []
    ex = [norm_text(Span.of(x).text) for x in example_spans]
    new = [norm_text(Span.of(x).text) for x in new_spans]
    if len(set(ex)) != len(ex) or len(set(new)) != len(new):
        return []
    if re.search(r"\[mask\]\s*,?\s*(?:or|and|,)\s*\[mask\]", new_masked.lower()):
        return []  # "from JFK or LGA": a list, whose order says nothing
    for old, fresh in pairs:
        a, b = norm_text(old), norm_text(fresh)
        if a in ex and b in new and ex.index(a) != new.index(b):
            return [f"your question words it as the example does, but its value {fresh!r} stands where the "
                    f"example has {Span.of(example_spans[new.index(b)]).text!r}: the values changed places"]
    return []


def findings(adapted: Any, example_sql: str, example_masked: str, example_spans: Sequence[Any],
             new_masked: str, new_spans: Sequence[Any], *, catalog: Any = None, schema_word: Any = None,
             group: Any = None, constants: Any = None) -> Iterator[tuple[str, list[str]]]:
    """(rule, reasons) of every switched-on rule, lazily, in the order they are tried."""
    from sqlgenie.inference.adapt import Span
    from sqlgenie.inference.verify import _roles, direction_swaps

    tree = adapted.tree
    if NUMBER_ROLES:
        yield "number roles", number_roles(adapted, new_spans)
    if COMPANIONS:
        yield "companion constant", companion_constants(adapted, example_sql, example_spans, catalog, new_masked)
    if SWAPS:
        if len(example_spans) == len(new_spans):
            yield "value direction", direction_swaps(example_masked, example_spans, new_masked, new_spans,
                                                     adapted.pairs)
        yield "value direction", moved_values(example_masked, example_spans, new_masked, new_spans, adapted.pairs)
    if DIRECTION:
        yield "order direction", order_direction(tree, new_masked)
    if example_masked.strip().lower() == new_masked.strip().lower():
        return  # the same wording: what follows compares words
    ex_roles = _roles(example_masked, tuple(Span.of(s).cls for s in example_spans), schema_word)
    new_roles = _roles(new_masked, tuple(Span.of(s).cls for s in new_spans), schema_word)
    if KIND:
        yield "answer kind", kind_mismatch(tree, ex_roles, new_roles, catalog)
    if GROUPING:
        yield "grouping", unrealized_grouping(tree, ex_roles, new_roles)
    if HEAD:
        yield "answer noun", unmatched_head(tree, example_masked, ex_roles, new_roles, catalog, group)
    if DROPPED_HEAD:
        yield "dropped answer noun", dropped_head(example_masked, new_masked, ex_roles, new_roles, group)
    if STEMS:
        yield "table word", table_stems(tree, example_masked, new_masked, catalog, group)
    if RANKING:
        yield "unasked ranking", unasked_ranking(tree, example_masked, new_masked, group)
    if ADDED and constants is not None:
        yield "added condition", added_constants(tree, example_masked, new_masked, constants, group)


def check_candidate(adapted: Any, example_sql: str, example_masked: str, example_spans: Sequence[Any],
                    new_masked: str, new_spans: Sequence[Any], *, catalog: Any = None, schema_word: Any = None,
                    group: Any = None, constants: Any = None) -> Any:
    """Run this module's refusals on one verified adaptation (changed in place like
    :func:`sqlgenie.inference.precision.check_candidate`): the first rule that finds a
    reason refuses it. Returns ``adapted``."""
    return refuse_first(adapted, findings(adapted, example_sql, example_masked, example_spans, new_masked, new_spans,
                                          catalog=catalog, schema_word=schema_word, group=group, constants=constants))
