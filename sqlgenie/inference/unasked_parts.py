"""Unasked parts: refusals for what the example's words ask and the question does not, when the
adapted SQL still does it (issue 13, helper matchu).

:mod:`.counterparts` mostly looks from the question to the SQL (a part of the question that
nothing answers). The wrong answers left on the fresh templated splits of seeds 5 and 6 were
often the mirror case: the example's question says something the asked question does not, and
the example's SQL, adapted, still does it. Each rule here reads the two masked questions (closed
classes of English words, never a word list from a test set) and the adapted SQL's AST:

* :func:`dropped_negation` - the adapted SQL compares with a negation (``<>``, ``NOT IN``,
  ``NOT LIKE``, ``NOT EXISTS``) that the example's question says ("papers of X *outside of*
  PVLDB"; "is X *only* offered in the Fall", "are upper-level classes *all* 12 credits", which
  the SQL checks as no counterexample) and the question does not ("papers of X in EMNLP"
  answered with ``venuename <> 'EMNLP'``).
* :func:`dropped_grouping` - the example asks for one answer per something ("how many papers X
  published *each year*"), the question does not and does not name that thing, and the adapted
  SQL still groups: "how many papers has X published" answered with one count per year.
* :func:`dropped_column_words` - the example names a column by two or more words of its name
  ("the cheapest *round trip* fare" -> ``fare.round_trip_cost``), the column has a sibling in its
  table that shares the rest of its name (``one_direction_cost``: the words chose among them),
  the question says none of those words and the adapted SQL still reads that column ("the
  cheapest fare" answered with the cheapest round trip).
* :func:`moved_neighbours` - two values side by side in the example ("from ONTARIO CALIFORNIA
  to ORLANDO": a city and its state) whose counterparts are apart in the question, while two
  other values of the question stand side by side ("from WASHINGTON to TAMPA FLORIDA"): the
  adapted SQL would keep the example's tie (Florida as WASHINGTON's state).
* :func:`extra_answer_entity` - the two answer heads name two different tables ("in what
  *journals* does X publish" from "in what *venues* does Y publish") and the adapted SQL returns
  both, the example's thing included, which the question never names (the mirror of
  :func:`.sides.answer_entity_mismatch`, which refuses when the question's thing is missing).
* :func:`dropped_measure` - the example asks "how far / how long ..." and its query answers with a
  number, the question asks for a thing ("show me the ground transportation at the X airport" from
  "how long does the ground transportation take from the X airport") and no word of it names a
  projected column ("distance" would name ``miles_distant``).
* :func:`other_place` - the two questions ask different wh-places: where against when, who
  against where ("Where does X publish?" answered with the years of "When did X publish?").
  (:func:`.verify.compare_roles` refuses who / where / when against a bare phrase only.)

Every refusal is a sentence; :data:`REASON_CODES` gives its ``reason_code``.
"""

from __future__ import annotations

from typing import Any, Iterator, Sequence

from sqlglot import exp

from sqlgenie.inference.refusals import code_of, refuse_first

__all__ = [
    "REASON_CODES",
    "check_candidate",
    "dropped_grouping",
    "dropped_measure",
    "dropped_negation",
    "extra_answer_entity",
    "findings",
    "moved_neighbours",
    "other_place",
    "reason_code",
]

#: reason_code of each refusal of this module, by a phrase of its sentence.
REASON_CODES = {
    "would still exclude it": "dropped negation",
    "its query groups by it": "dropped grouping",
    "ask about different things:": "answer kind",
    "which its query reads as": "dropped column words",
    "stand side by side": "value direction",
    "which your question does not ask for": "answer entity",
    "its query answers with a measure": "answer kind",
}

#: switches (benchmarks turn one rule off at a time)
NEGATION = True
GROUPING = True
PLACE = True
COLUMN_WORDS = True
NEIGHBOURS = True
ENTITY = True
MEASURE = True

#: Words that turn a comparison into its negation in SQL (closed classes of English): negations ("not",
#: "outside", "besides", "other") and restrictions or universals that a query checks through the
#: absence of a counterexample ("is X *only* offered in the Fall": no offering ``<> 'Fall'``; "are
#: upper-level classes *all* 12 credits": ``COUNT(*) = 0`` of ``credits <> 12``).
_NEGATIONS = frozenset("not no never none nor neither outside except excluding exclude excludes besides "
                       "without other others aside apart lack lacks lacking missing unlike".split())
#: ... and the universals, which count only for a yes/no query ("list *all* round trip fares" is no check)
_UNIVERSALS = frozenset("only all every always".split())
_PLACES = {"who": "who", "whom": "who", "where": "where", "when": "when"}  # not "whose": "cities whose ..."


def reason_code(reason: str) -> str | None:
    return code_of(reason, REASON_CODES)


def _negating(words: Sequence[str], yes_no: bool = False) -> list[str]:
    return [w for w in words if w in _NEGATIONS or w.endswith("n't") or (yes_no and w in _UNIVERSALS)]


def _negated_comparisons(tree: exp.Expression) -> list[exp.Expression]:
    """``a <> 'x'``, ``NOT a IN (...)``, ``NOT a LIKE ...``, ``NOT EXISTS (...)`` anywhere (not ``IS NOT NULL``)."""
    out: list[exp.Expression] = list(tree.find_all(exp.NEQ))
    for node in tree.find_all(exp.Not):
        inner = node.this.unnest() if isinstance(node.this, exp.Paren) else node.this
        if isinstance(inner, (exp.In, exp.Like, exp.ILike, exp.EQ, exp.Exists)):  # not IS NULL: no exclusion
            out.append(node)
    return out


def dropped_negation(tree: exp.Expression, example_words: Sequence[str], new_words: Sequence[str]) -> list[str]:
    """See module doc."""
    from sqlgenie.inference.counterparts import _only_predicates

    yes_no = _only_predicates(tree)
    said = _negating(example_words, yes_no)
    if not said or _negating(new_words, yes_no) or not _negated_comparisons(tree):
        return []
    return [f"the example says \u201c{said[0]}\u201d and its query excludes what follows; your question does "
            "not say that, but the adapted query would still exclude it"]


def dropped_grouping(tree: exp.Expression, example: Any, new: Any) -> list[str]:
    """See module doc. ``example`` / ``new``: :class:`sqlgenie.inference.verify.Roles`."""
    from sqlgenie.inference.counterparts import _grouping_words
    from sqlgenie.inference.verify import lemma

    if _grouping_words(new) or new.grouped:
        return []  # the question groups too (perhaps by another word: the verification compares those)
    said = {lemma(w) for w in new.words} | set(new.words)
    dropped = {w for w in _grouping_words(example) if w not in said}
    if not dropped:
        return []
    if not any(sel.args.get("group") is not None for sel in tree.find_all(exp.Select)):
        return []
    shown = ", ".join(sorted(dropped))
    return [f"the example asks for a result for every {shown} and its query groups by it; your question does not ask "
            "for that"]


def _sibling_columns(tree: exp.Expression, catalog: Any) -> dict[str, set[str]]:
    """Column name -> names of the other columns of its table, for the tables the SQL reads."""
    out: dict[str, set[str]] = {}
    if catalog is None:
        return out
    for t in tree.find_all(exp.Table):
        info = catalog.table(t.name, t.db or None) if t.db else catalog.table(t.name)
        if info is None:
            continue
        names = {c.name.lower() for c in info.columns}
        for n in names:
            out.setdefault(n, set()).update(names - {n})
    return out


def dropped_column_words(tree: exp.Expression, example_words: Sequence[str], new_words: Sequence[str],
                         catalog: Any, group: Any = None) -> list[str]:
    """See module doc."""
    from sqlgenie.inference.verify import lemma

    siblings = _sibling_columns(tree, catalog)
    said_new = set(new_words) | {lemma(w) for w in new_words}
    ex = list(example_words)
    pairs = set(zip(ex, ex[1:]))
    for col in sorted({c.name.lower() for c in tree.find_all(exp.Column)}):
        parts = col.split("_")
        if len(parts) < 3 or col not in siblings:
            continue
        for k in range(len(parts) - 1):
            a, b = parts[k], parts[k + 1]
            if (a, b) not in pairs or len(a) < 3 or len(b) < 3:
                continue
            rest = parts[:k] + parts[k + 2:]
            if not any(o.split("_")[-len(rest):] == rest and o != col for o in siblings[col] if rest):
                continue  # no sibling the words chose against
            if a in said_new or b in said_new or lemma(a) in said_new or lemma(b) in said_new:
                continue
            if group is not None and group.removed_ok({a, b}):
                continue
            return [f"the example says \u201c{a} {b}\u201d, which its query reads as {col}; your question does "
                    "not say it"]
    return []


def _adjacent(masked: str) -> set[int]:
    """k such that value k and value k + 1 of a masked question stand side by side (text values only:
    "on 4 8" is a date, "CLEVELAND 1700" two roles)."""
    import re

    gaps = re.split(r"\[MASK\]", masked)[1:-1]  # the text between consecutive masks
    return {k for k, gap in enumerate(gaps) if not gap.strip()}


def moved_neighbours(example_masked: str, example_spans: Sequence[Any], new_masked: str, new_spans: Sequence[Any],
                     pairs: Sequence[tuple[str, str]]) -> list[str]:
    """See module doc."""
    from sqlgenie.inference.adapt import Span, norm_text

    ex = [norm_text(Span.of(x).text) for x in example_spans]
    new = [norm_text(Span.of(x).text) for x in new_spans]
    if len(set(ex)) != len(ex) or len(set(new)) != len(new):
        return []
    where = {norm_text(a): norm_text(b) for a, b in pairs}
    back = {b: a for a, b in where.items()}
    def texts(spans: Sequence[Any], adj: set[int]) -> set[int]:  # a city and its state, not "on 4 8"
        return {k for k in adj if Span.of(spans[k]).cls == "text" and Span.of(spans[k + 1]).cls == "text"}

    ex_adj = texts(example_spans, _adjacent(example_masked))
    new_adj = texts(new_spans, _adjacent(new_masked))
    if not ex_adj or not new_adj or len(ex) != example_masked.count("[MASK]") or \
            len(new) != new_masked.count("[MASK]"):
        return []

    def kept(adj: set[int], vals: list[str], other: list[str], other_adj: set[int], m: dict) -> list[int]:
        out = []
        for k in adj:
            a, b = m.get(vals[k]), m.get(vals[k + 1])
            if a is None or b is None or a not in other or b not in other:
                return []  # a value without its counterpart: nothing to compare
            i, j = other.index(a), other.index(b)
            if not (j == i + 1 and i in other_adj):
                out.append(k)
        return out

    split = kept(ex_adj, ex, new, new_adj, where)
    joined = kept(new_adj, new, ex, ex_adj, back)
    if not split or not joined:
        return []
    k, m = split[0], joined[0]
    return [f"the example's values {Span.of(example_spans[k]).text!r} and {Span.of(example_spans[k + 1]).text!r} "
            f"stand side by side and its query ties them; in your question {Span.of(new_spans[m]).text!r} and "
            f"{Span.of(new_spans[m + 1]).text!r} do"]


def extra_answer_entity(tree: exp.Expression, example_masked: str, new_masked: str, example: Any, new: Any,
                        catalog: Any) -> list[str]:
    """See module doc. ``example`` / ``new``: :class:`sqlgenie.inference.verify.Roles`."""
    from sqlgenie.inference.sides import _word_table, answer_tables
    from sqlgenie.inference.verify import tokens

    if catalog is None or not example.heads or not new.heads or example.count or new.count:
        return []
    a, b = example.heads[0], new.heads[0]
    if a == b:
        return []
    found = answer_tables(tree, example_masked, new_masked, a, b, catalog)
    if found is None:
        return []
    ta, tb, shown, names = found
    if not shown or ta not in shown or tb not in shown:
        return []
    if any(_word_table(w, names) == ta for w in tokens(new_masked)):
        return []  # the question names the example's thing too
    return [f"the example asks for {a} and its query returns {ta} rows next to the {tb} rows you ask for, "
            "which your question does not ask for"]


_NOT_MEASURES = frozenset("many much do does did can could is are was were will would should shall may might "
                          "about come to".split())


def dropped_measure(tree: exp.Expression, example_words: Sequence[str], new: Any, catalog: Any) -> list[str]:
    """See module doc. ``new``: :class:`sqlgenie.inference.verify.Roles`."""
    from sqlgenie.inference.counterparts import _numeric_answer
    from sqlgenie.inference.precision import answer_items

    ex = list(example_words)
    asked = next((ex[k + 1] for k in range(len(ex) - 1) if ex[k] == "how" and ex[k + 1] not in _NOT_MEASURES
                  and ex[k + 1].isalpha()), None)
    if asked is None or "how" in new.words or asked in new.words or not new.heads:
        return []
    if _numeric_answer(tree, catalog) is not True:
        return []
    answer = answer_items(tree)
    if answer is None:
        return []
    parts = {p for e in answer[0] for c in e.find_all(exp.Column) for p in c.name.lower().split("_") if len(p) > 2}
    if any(len(w) > 3 and any(w[:5] == p[:5] for p in parts) for w in new.words):
        return []  # "what is the distance": a word of the question names the projected column
    return [f"the example asks how {asked} and its query answers with a measure; your question asks for "
            f"{new.heads[0]}, not how {asked}"]


def _places(words: Sequence[str]) -> set[str]:
    return {_PLACES[w] for w in words if w in _PLACES}


def other_place(example: Any, new: Any) -> list[str]:
    """See module doc. Refused only when the two questions share no wh-place: "Who taught X when Y
    took it?" and "When Y took X, who taught it?" both say who and when (one is a conjunction)."""
    a, b = _places(example.words), _places(new.words)
    if not a or not b or a & b:
        return []
    return [f"the two questions ask about different things: yours asks {'/'.join(sorted(b))}, "
            f"the example {'/'.join(sorted(a))}"]


def findings(adapted: Any, example_masked: str, example_spans: Sequence[Any], new_masked: str,
             new_spans: Sequence[Any], *, schema_word: Any = None, catalog: Any = None,
             group: Any = None) -> Iterator[tuple[str, list[str]]]:
    """(rule, reasons) of every switched-on rule, lazily, in the order they are tried."""
    from sqlgenie.inference.adapt import Span
    from sqlgenie.inference.verify import _roles

    if example_masked.strip().lower() == new_masked.strip().lower():
        return  # the same wording: nothing the example says that the question does not
    tree = adapted.tree
    ex_roles = _roles(example_masked, tuple(Span.of(s).cls for s in example_spans), schema_word)
    new_roles = _roles(new_masked, tuple(Span.of(s).cls for s in new_spans), schema_word)
    if NEGATION:
        yield "dropped negation", dropped_negation(tree, ex_roles.words, new_roles.words)
    if GROUPING:
        yield "dropped grouping", dropped_grouping(tree, ex_roles, new_roles)
    if PLACE:
        yield "answer kind", other_place(ex_roles, new_roles)
    if NEIGHBOURS and getattr(adapted, "pairs", None):
        yield "value direction", moved_neighbours(example_masked, example_spans, new_masked, new_spans, adapted.pairs)
    if ENTITY:
        yield "answer entity", extra_answer_entity(tree, example_masked, new_masked, ex_roles, new_roles, catalog)
    if MEASURE:
        yield "answer kind", dropped_measure(tree, ex_roles.words, new_roles, catalog)
    if COLUMN_WORDS:
        yield "dropped column words", dropped_column_words(tree, ex_roles.words, new_roles.words, catalog, group)


def check_candidate(adapted: Any, example_masked: str, example_spans: Sequence[Any], new_masked: str,
                    new_spans: Sequence[Any], *, schema_word: Any = None, catalog: Any = None,
                    group: Any = None) -> Any:
    """Run this module's refusals on one verified adaptation (changed in place, like
    :func:`sqlgenie.inference.counterparts.check_candidate`): the first rule that finds a
    reason refuses it. Returns ``adapted``."""
    return refuse_first(adapted, findings(adapted, example_masked, example_spans, new_masked, new_spans,
                                          schema_word=schema_word, catalog=catalog, group=group))
