"""Which side of a join a value sits on, and what the answer is about (issue 13, helper
matchq): refusals for adapted examples that put the question's value or its answer on
another side of the same query.

The verification (:mod:`.verify`) pairs each value of the question with a value of the
example and checks the two questions' wording; it cannot see that a value lands on the
wrong *side* of a directed join. "airlines from WASHINGTON DC to COLUMBUS" adapted from
"airlines from BOSTON to WASHINGTON DC" keeps ``state_code = 'DC'`` on the destination
city, because 'DC' is the same value in both questions; "flights from DENVER to BOSTON
with a stopover in PHILADELPHIA" adapted from "... from PHILADELPHIA ... with a stop in
DALLAS" keeps PHILADELPHIA as the origin and makes DENVER the stop. Rules, each learned
from the bank in scope or read off the catalog, never a word list:

* :class:`ValueSides` / :func:`side_mismatch` - **the side a word puts a value on**. The
  *side* of a value in a query is the first join edge, walking from the table the value
  is compared on through equi-joins of same-named columns (``city_code = city_code``), whose
  two columns are named differently: ``airport_service.airport_code > flight.from_airport``.
  A word right before a value (articles and other values skipped: "from WASHINGTON DC"
  puts "from" before "DC") or right after it is a *side word* when at least 80% (and 3)
  of the verified bank questions with that word there have the value on one side. A
  candidate is refused when the question's word is not the example's, it marks a side
  this value is not on, and the value sits on another side of the same edge (the same
  near column led to another column, ``from_airport`` against ``stop_airport``, or another
  column of the same far table, ``citedpaperid`` against ``citingpaperid``); a value on
  no directed edge, or a word with no consistent side, never refuses.
* :func:`answer_entity_mismatch` - **the entity the question asks for**, relative to the
  example: the head nouns of the two answers (:func:`.verify.question_roles`) name two
  different tables of the catalog ("papers where X is an author" against "author who
  wrote papers with Y"), and the query projects the example's entity (its table or its
  key) but not the question's.
* :func:`how_much_mismatch` - "how much ..." asks for an amount: the outer projection
  must hold an aggregate, arithmetic, a numeric, temporal or key column (a key names the
  priced row: ATIS answers "how much is flight X" with ``fare_id``), not only text.

Every refusal is a sentence; :data:`REASON_CODES` gives its ``reason_code``. Measured
in docs/benchmarks.md ("After matchq").
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import Any, Sequence

from sqlglot import exp

from sqlgenie.inference.adapt import Span, _singular, norm_text, unbound_slots
from sqlgenie.inference.refusals import code_of

__all__ = [
    "REASON_CODES",
    "ValueSides",
    "answer_entity_mismatch",
    "check_candidate",
    "how_much_mismatch",
    "reason_code",
    "side_mismatch",
    "value_sides",
]

#: reason_code of each refusal of this module, by a phrase of its sentence.
REASON_CODES = {
    "which in the examples puts": "value side",
    "your question is about": "answer entity",
    "your question asks how much": "answer type",
    "which other examples turn into a condition": "dropped condition",
}

#: switches (benchmarks turn one rule off at a time)
SIDES = True
ENTITY = True
HOW_MUCH = True
DROPPED = True
#: An example that names no answer against a question that does: the query must return the question's
#: thing (issue 13, helper atis12: "what flights ... with a meal" answered with ``food_service`` columns
#: from "in flight meal X to Y saturday"). Off: no check without two answer heads.
HEADLESS = True
NEXT_WORD = False  # the word right after a value: tried, not kept ("X on AC" learned as the destination)


def reason_code(reason: str) -> str | None:
    return code_of(reason, REASON_CODES)


# --------------------------------------------------------------------------- value sides

_ARTICLES = frozenset({"the", "a", "an"})
_MASK = "#"


def value_features(masked: str, n: int) -> list[frozenset[str]] | None:
    """Per value (``[MASK]``) of ``masked``: ``prev:<word>`` (the word before it, articles
    and other values skipped) and ``next:<word>`` (the word after it, other values
    skipped); None when the masks do not line up with ``n`` spans."""
    from sqlgenie.inference.verify import tokens

    words = tokens(masked)
    masks = [k for k, w in enumerate(words) if w == _MASK]
    if len(masks) != n:
        return None
    out = []
    for k in masks:
        feats = set()
        j = k - 1
        while j >= 0 and (words[j] == _MASK or words[j] in _ARTICLES):
            j -= 1
        if j >= 0 and words[j][0].isalpha():
            feats.add("prev:" + words[j])
        j = k + 1
        while j < len(words) and words[j] == _MASK:
            j += 1
        if NEXT_WORD and j < len(words) and words[j][0].isalpha():
            feats.add("next:" + words[j])
        out.append(frozenset(feats))
    return out


def _scope(node: exp.Expression) -> exp.Select | None:
    return node.find_ancestor(exp.Select)


def slot_sides(node: exp.Expression, per_select: dict | None = None) -> frozenset[str]:
    """The side(s) of the value literal ``node`` in its query (see module doc):
    ``near.column>far.column`` of the first differently named equi-join edges reached
    from the table the literal is compared on. ``per_select``: the tables and join edges of each SELECT already
    read for other literals of the same tree (perf18; the tree must not change in between)."""
    anchor = node.parent
    while anchor is not None and not isinstance(anchor, (exp.Predicate, exp.Select)):
        anchor = anchor.parent
    if anchor is None or isinstance(anchor, exp.Select):
        return frozenset()
    col = next((c for c in anchor.find_all(exp.Column)), None)
    select = _scope(node)
    if col is None or select is None:
        return frozenset()
    held = None if per_select is None else per_select.get(id(select))
    if held is None:
        held = _tables_and_edges(select)
        if per_select is not None:
            per_select[id(select)] = held
    tables, edges = held
    if not tables:
        return frozenset()
    start = col.table.lower() if col.table else (next(iter(tables)) if len(tables) == 1 else "")
    if start not in tables:
        return frozenset()
    seen, frontier, sides = {start}, [start], set()
    for _ in range(4):
        nxt = []
        for alias in frontier:
            for near, other, far in edges.get(alias, ()):
                if other in seen:
                    continue
                if near != far:
                    sides.add(f"{tables[alias]}.{near}>{tables[other]}.{far}")
                else:
                    seen.add(other)
                    nxt.append(other)
        if sides or not nxt:
            break
        frontier = nxt
    return frozenset(sides)


def _tables_and_edges(select: exp.Select) -> tuple[dict[str, str], dict[str, list[tuple[str, str, str]]]]:
    """The tables of ``select`` (alias -> name) and its equi-join edges between columns of two of them."""
    tables = {t.alias_or_name.lower(): t.name.lower() for t in select.find_all(exp.Table) if _scope(t) is select}
    edges: dict[str, list[tuple[str, str, str]]] = {}
    if not tables:
        return tables, edges
    for eq in select.find_all(exp.EQ):
        if _scope(eq) is not select:
            continue
        a, b = eq.this, eq.expression
        if not (isinstance(a, exp.Column) and isinstance(b, exp.Column) and a.table and b.table):
            continue
        ta, tb = a.table.lower(), b.table.lower()
        if ta not in tables or tb not in tables or ta == tb:
            continue
        edges.setdefault(ta, []).append((a.name.lower(), tb, b.name.lower()))
        edges.setdefault(tb, []).append((b.name.lower(), ta, a.name.lower()))
    return tables, edges


def _near(side: str) -> str:
    return side.split(">", 1)[0]


def _far(side: str) -> str:
    return side.split(">", 1)[1]


_SIDES_CACHE: dict[tuple, tuple[frozenset[str], ...] | None] = {}


def _example_sides(sql: str, spans_key: tuple, catalog: Any) -> tuple[frozenset[str], ...] | None:
    """Per span of an example, the sides of the literals it produced (cached: bank SQL repeats)."""
    key = (id(catalog), sql, spans_key)
    if key in _SIDES_CACHE:
        return _SIDES_CACHE[key]
    from sqlgenie.inference.adapt import example_alignment

    try:
        spans = [Span(*s) for s in spans_key]
        slots, alignment = example_alignment(sql, spans, catalog)  # read once per text and catalog (read only)
    except Exception:
        out = None
    else:
        found_all = []
        per_select: dict = {}  # one read-only tree: each SELECT's tables and edges read once
        for i in range(len(spans)):
            found: set[str] = set()
            for b in alignment.of_span(i):
                found |= slot_sides(slots[b.slot].node, per_select)
            found_all.append(frozenset(found))
        out = tuple(found_all)
    if len(_SIDES_CACHE) > 20000:
        _SIDES_CACHE.clear()
    _SIDES_CACHE[key] = out
    return out


def _spans_key(spans: Sequence[Any]) -> tuple:
    out = []
    for s in spans:
        sp = Span.of(s)
        out.append((sp.start, sp.end, sp.text, sp.kind, sp.source))
    return tuple(out)


@dataclass
class _FeatureStats:
    uses: int
    sides: Counter


class ValueSides:
    """Per word feature (``prev:from``), the sides of the values it goes with in the
    verified bank (see module doc); looked up on demand (a regex on the stored masked
    questions, at most :attr:`SAMPLE` rows per feature) and cached until the bank changes."""

    MIN_USES = 3
    MIN_SHARE = 0.8
    SAMPLE = 40

    def __init__(self, store: Any, allowed: Any, catalog: Any, stamp: Any = None) -> None:
        self.store, self.allowed, self.catalog, self.stamp = store, allowed, catalog, stamp
        self.cache: dict[str, _FeatureStats] = {}

    def stats(self, feature: str) -> _FeatureStats:
        if feature in self.cache:
            return self.cache[feature]
        where, word = feature.split(":", 1)
        w = re.escape(word)
        pattern = (r"\m" + w + r"\s+((the|a|an)\s+)?\[MASK\]") if where == "prev" else (r"\[MASK\]\s+" + w + r"\M")
        from sqlgenie.inference.verify import verified_rows
        rows = verified_rows(self.store, self.allowed, "masked_question, mask_spans, sql", "masked_question ~* %s",
                             [pattern], self.SAMPLE)
        uses, sides = 0, Counter()
        for masked, spans, sql in rows:
            spans = spans or []
            feats = value_features(masked, len(spans))
            if feats is None:
                continue
            per_span = _example_sides(sql, _spans_key(spans), self.catalog)
            if per_span is None or len(per_span) != len(feats):
                continue
            for f, found in zip(feats, per_span):
                if feature in f:
                    uses += 1
                    for s in found:
                        sides[s] += 1
        self.cache[feature] = _FeatureStats(uses, sides)
        return self.cache[feature]

    def marks(self, feature: str) -> frozenset[str]:
        """The sides ``feature`` consistently marks (empty when none)."""
        st = self.stats(feature)
        if st.uses < self.MIN_USES:
            return frozenset()
        return frozenset(s for s, c in st.sides.items() if c >= self.MIN_SHARE * st.uses)


class _LazySides:
    def __init__(self, retriever: Any, catalog: Any) -> None:
        self.retriever, self.catalog = retriever, catalog
        self._model: ValueSides | None = None
        self._resolved = False

    def marks(self, feature: str) -> frozenset[str]:
        if not self._resolved:
            self._model, self._resolved = _value_sides(self.retriever, self.catalog), True
        return self._model.marks(feature) if self._model is not None else frozenset()


def value_sides(retriever: Any, catalog: Any) -> Any:
    """The side words of the retriever's scope, looked up lazily (see :class:`ValueSides`)."""
    return _LazySides(retriever, catalog)


def _value_sides(retriever: Any, catalog: Any) -> ValueSides | None:
    from sqlgenie.inference.verify import cached_per_bank

    store = getattr(retriever, "store", None)
    if store is None:
        return None
    allowed = getattr(retriever, "allowed", None)
    return cached_per_bank(retriever, "_matchq_sides", lambda stamp: ValueSides(store, allowed, catalog, stamp))


def _index_of(text: str, spans: Sequence[Any], used: set[int]) -> int | None:
    key = norm_text(text)
    for i, s in enumerate(spans):
        if i not in used and norm_text(Span.of(s).text) == key:
            return i
    return None


def _alternatives(a: str, b: str) -> bool:
    """Two sides of one choice: the same near column led to another column
    (``from_airport`` / ``stop_airport``), or another column of the same far table
    (``citedpaperid`` / ``citingpaperid``)."""
    return a != b and (_near(a) == _near(b) or _far(a).split(".")[0] == _far(b).split(".")[0])


def _column_words(side: str) -> str:
    return _far(side).replace("_", " ")


def side_mismatch(example_sql: str, example_masked: str, example_spans: Sequence[Any], new_masked: str,
                  new_spans: Sequence[Any], pairs: Sequence[tuple[str, str]], model: Any,
                  catalog: Any = None) -> list[str]:
    """See module doc: a word before / after a question's value that the bank ties to
    another side of the same join edge than the one the example's SQL puts the value on."""
    if model is None or not pairs:
        return []
    ex_feats = value_features(example_masked, len(example_spans))
    new_feats = value_features(new_masked, len(new_spans))
    if ex_feats is None or new_feats is None:
        return []
    per_span = _example_sides(example_sql, _spans_key(example_spans), catalog)
    if per_span is None:
        return []
    used_ex: set[int] = set()
    used_new: set[int] = set()
    for ex_text, new_text in pairs:
        i = _index_of(ex_text, example_spans, used_ex)
        j = _index_of(new_text, new_spans, used_new)
        if i is None or j is None:
            continue
        used_ex.add(i)
        used_new.add(j)
        here = per_span[i]
        if not here:
            continue
        for feature in sorted(new_feats[j] - ex_feats[i]):
            marked = model.marks(feature)
            if not marked or marked & here:
                continue
            other = [s for s in here if any(_alternatives(s, m) for m in marked)]
            if not other:
                continue
            where, word = feature.split(":", 1)
            m = sorted(marked)[0]
            pos = "before" if where == "prev" else "after"
            return [f"your question has \u201c{word}\u201d {pos} {new_text!r}, which in the examples puts a value "
                    f"at {_column_words(m)}, but this example's query puts {new_text!r} at "
                    f"{_column_words(sorted(other)[0])}"]
    return []


# --------------------------------------------------------------------------- answer entity


def _table_words(name: str) -> set[str]:
    """The words that name a table: its whole name, singular ("papers" -> paper); a part
    of a longer name ("names" in car_names) names a column more often than the table."""
    return {_singular(name.lower())}


def _word_table(word: str, tables: Sequence[str]) -> str | None:
    """The one table (of ``tables``) whose name says ``word`` ("papers" -> paper)."""
    w = _singular(word.lower())
    hits = [t for t in tables if w in _table_words(t)]
    return hits[0] if len(hits) == 1 else None


def _projected_entities(tree: exp.Expression, tables: Sequence[str]) -> set[str] | None:
    """Tables the outer projection returns rows of: each projected column's table and
    the table its key names (``writes.paperid`` -> writes, paper)."""
    from sqlgenie.inference.precision import _outer

    sel = _outer(tree)
    if sel is None or not sel.expressions:
        return None
    alias = {t.alias_or_name.lower(): t.name.lower() for t in sel.find_all(exp.Table) if _scope(t) is sel}
    out: set[str] = set()
    for e in sel.expressions:
        if isinstance(e, exp.Star) or e.find(exp.Star) is not None:
            return None
        for col in e.find_all(exp.Column):
            if col.table and col.table.lower() in alias:
                out.add(alias[col.table.lower()])
            elif len(set(alias.values())) == 1:
                out |= set(alias.values())
            else:
                return None
            name = col.name.lower()
            for t in tables:
                if name in (t + "id", t + "_id", t + "_code"):
                    out.add(t)
    return out


def answer_tables(tree: exp.Expression, example_masked: str, new_masked: str, a: str, b: str,
                  catalog: Any) -> tuple[str, str, set[str], list[str]] | None:
    """The tables the two answer heads ``a`` (example) and ``b`` (asked) name, the entities the
    query projects and the schema's table names; ``None`` when the heads are not both nouns of
    their answer phrase or do not name two different tables. Shared by :func:`answer_entity_mismatch`
    and :func:`sqlgenie.inference.unasked_parts.extra_answer_entity`."""
    from sqlgenie.inference.verify import tokens

    for head, masked in ((a, example_masked), (b, new_masked)):  # a noun as written ("papers"), not a verb's
        words = tokens(masked)  # lemma ("written" -> write), before the question's first value (the answer
        first = words.index(_MASK) if _MASK in words else len(words)  # phrase; "airlines serving X airport")
        if not any(_singular(t) == head for t in words[:first]):
            return None
    schemas = {t.db.lower() for t in tree.find_all(exp.Table) if t.db}
    names = [t.name.lower() for t in catalog.tables if not schemas or t.schema.lower() in schemas]
    ta, tb = _word_table(a, names), _word_table(b, names)
    if ta is None or tb is None or ta == tb:
        return None
    return ta, tb, _projected_entities(tree, names), names


def answer_entity_mismatch(tree: exp.Expression, example_masked: str, new_masked: str, ex_classes: Sequence[str],
                           new_classes: Sequence[str], schema_word: Any, catalog: Any) -> list[str]:
    """See module doc."""
    from sqlgenie.inference.verify import _roles

    if catalog is None:
        return []
    ex_roles = _roles(example_masked, tuple(ex_classes), schema_word)
    new_roles = _roles(new_masked, tuple(new_classes), schema_word)
    if HEADLESS and not ex_roles.heads and new_roles.heads and not ex_roles.count and not new_roles.count:
        return headless_mismatch(tree, new_masked, new_roles.heads[0], catalog)
    if not ex_roles.heads or not new_roles.heads or ex_roles.count or new_roles.count:
        return []
    a, b = ex_roles.heads[0], new_roles.heads[0]
    if a == b:
        return []
    found = answer_tables(tree, example_masked, new_masked, a, b, catalog)
    if found is None:
        return []
    ta, tb, shown, _ = found
    if not shown or ta not in shown or tb in shown:
        return []
    return [f"your question is about {b} ({tb} rows), but the example asks for {a} and its query returns "
            f"{ta} rows, not {tb}"]


def headless_mismatch(tree: exp.Expression, new_masked: str, b: str, catalog: Any) -> list[str]:
    """The example names no answer ("in flight meal BOSTON to DENVER saturday") and the question does
    ("what flights ..."): refused when the question's head names a table whose rows the query does not
    return while it returns another table's (``food_service`` columns for "what flights")."""
    from sqlgenie.inference.verify import tokens

    words = tokens(new_masked)
    first = words.index(_MASK) if _MASK in words else len(words)
    if not any(_singular(t) == b for t in words[:first]):
        return []  # a noun of the answer phrase, as written
    if _asks_another_thing(words, b):
        return []
    schemas = {t.db.lower() for t in tree.find_all(exp.Table) if t.db}
    names = [t.name.lower() for t in catalog.tables if not schemas or t.schema.lower() in schemas]
    tb = _word_table(b, names)
    shown = _projected_entities(tree, names)
    if tb is None or not shown or tb in shown:
        return []
    return [f"your question is about {b} ({tb} rows), but the example names no answer and its query returns "
            f"{', '.join(sorted(shown))} rows, not {tb}"]


#: wh-words whose answer is a time, a place, a person, a manner: no head noun's rows ("next semester when is
#: 430 offered ?" asks for times, not semesters)
_WH_NOT_HEAD = frozenset({"when", "where", "who", "whom", "whose", "how", "why"})
#: words that may stand between "what" / "which" and the answer phrase ("what are the flights ...")
_WH_LINKS = frozenset({"is", "are", "was", "were", "do", "does", "did", "can", "could", "will", "would", "has",
                       "have", "had", "the", "a", "an", "all", "my", "your", "there"})


def _asks_another_thing(words: Sequence[str], head: str) -> bool:
    """The question's answer is not its head noun: a wh-word that asks for no rows of a table, or a "what X" /
    "which X" with another noun X ("what *time* next semester is 311 offered ?"). A head read from a fronted
    modifier ("next semester") is no thing the question asks for."""
    if _WH_NOT_HEAD & set(words):
        return True
    at = next((i for i, w in enumerate(words) if _singular(w) == head), len(words))
    for i, w in enumerate(words[:at]):  # before the head: "... flights which serve a meal" is a relative clause
        if w in ("what", "which") and i + 1 < len(words):
            nxt = words[i + 1]
            if nxt not in _WH_LINKS and nxt != _MASK and _singular(nxt) != head:
                return True
    return False


# --------------------------------------------------------------------------- how much

_HOW_MUCH = re.compile(r"^\s*(?:(?:and|so|then|please|also|now|ok|okay)\s+)?how\s+much\b", re.I)


def how_much_mismatch(tree: exp.Expression, question: str, catalog: Any = None) -> list[str]:
    """See module doc."""
    if not _HOW_MUCH.search(question or ""):
        return []
    from sqlgenie.inference.precision import _column_info, _is_key, answer_items, computes

    answer = answer_items(tree)
    if answer is None:
        return []
    items, tables = answer
    for e in items:
        if computes(e):
            return []
        for col in e.find_all(exp.Column):
            info = _column_info(col, tables, catalog)
            if info is None or info.family in ("numeric", "temporal", "other") or _is_key(col.name):
                return []
    shown = ", ".join(e.sql(dialect="postgres") for e in items[:3])
    return [f"your question asks how much, but the example's query answers with {shown}, not an amount"]


# --------------------------------------------------------------------------- dropped words


def unbound_columns(sql: str | exp.Expression, spans: Sequence[Any], catalog: Any = None) -> frozenset[str]:
    """Columns the SQL compares (WHERE / ON / LIKE, not HAVING) with a constant that no
    value of its question produced: keys (``student_id = 1``), calendar parts (``year =
    2016``) and strings (``semester = 'FA'``) included."""
    out = set()
    for slot in unbound_slots(sql, spans, catalog) or []:
        if slot.context not in ("compare", "like") or slot.node.find_ancestor(exp.Having) is not None:
            continue
        name = (slot.column or "").rsplit(".", 1)[-1].strip('"').lower()
        if name:
            out.add(name)
    return frozenset(out)


class ConstantWords:
    """Per word, the columns the verified bank's SQL compares with a constant no value
    of the question produced, in at least :attr:`MIN_SHARE` (and :attr:`MIN_USES`) of the
    questions using the word ("'ve" / "already" -> ``student_id``); :meth:`share` gives
    the share for one column. Looked up on demand, cached until the bank changes."""

    MIN_USES = 3
    MIN_SHARE = 0.8
    LICENSE_SHARE = 0.5  # a word of the question this often tied to the column licenses it
    SAMPLE = 40

    def __init__(self, store: Any, allowed: Any, catalog: Any, stamp: Any = None) -> None:
        self.store, self.allowed, self.catalog, self.stamp = store, allowed, catalog, stamp
        self.cache: dict[str, tuple[int, Counter]] = {}
        self._cols: dict[str, frozenset[str]] = {}

    def stats(self, word: str) -> tuple[int, Counter]:
        if word in self.cache:
            return self.cache[word]
        from sqlgenie.inference.verify import verified_rows
        rows = verified_rows(self.store, self.allowed, "sql, mask_spans", "masked_question ~* %s",
                             [r"\m" + re.escape(word) + r"\M"], self.SAMPLE)
        counts: Counter = Counter()
        for sql, spans in rows:
            if sql not in self._cols:
                self._cols[sql] = unbound_columns(sql, spans or [], self.catalog)
            for c in self._cols[sql]:
                counts[c] += 1
        self.cache[word] = (len(rows), counts)
        return self.cache[word]

    def columns(self, word: str, share: float | None = None) -> frozenset[str]:
        uses, counts = self.stats(word)
        if uses < self.MIN_USES:
            return frozenset()
        need = (self.MIN_SHARE if share is None else share) * uses
        return frozenset(c for c, n in counts.items() if n >= need)


class _LazyConstants:
    def __init__(self, retriever: Any, catalog: Any) -> None:
        self.retriever, self.catalog = retriever, catalog
        self._model: ConstantWords | None = None
        self._resolved = False

    def get(self) -> ConstantWords | None:
        if not self._resolved:
            from sqlgenie.inference.verify import cached_per_bank

            store = getattr(self.retriever, "store", None)
            if store is not None:
                allowed = getattr(self.retriever, "allowed", None)
                self._model = cached_per_bank(self.retriever, "_matchq_constants",
                                              lambda stamp: ConstantWords(store, allowed, self.catalog, stamp))
            self._resolved = True
        return self._model


def constant_words(retriever: Any, catalog: Any) -> Any:
    """The :class:`ConstantWords` of the retriever's scope, resolved on first use."""
    return _LazyConstants(retriever, catalog)


def _words(masked: str) -> set[str]:
    from sqlgenie.inference.verify import lemma, tokens

    return {lemma(w) for w in tokens(masked) if w != _MASK and w[0].isalpha()}


def _same_stem(a: str, b: str) -> bool:
    """Two spellings of one word ("undergrads" / "undergraduates"): a common start of at
    least 5 letters and three quarters of the shorter word."""
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n >= 5 and n >= 0.75 * min(len(a), len(b))


def dropped_constants(example_sql: str, example_spans: Sequence[Any], example_masked: str, new_masked: str,
                      model: Any, catalog: Any = None) -> list[str]:
    """A word of the example that the question lacks, which the bank ties to a constant
    the example's SQL has ("courses I *'ve* taken" -> ``student_id = 1``), while no word
    of the question is tied to that column: the constant would stay unasked for."""
    words = model.get() if isinstance(model, _LazyConstants) else model
    if words is None:
        return []
    from sqlgenie.inference.verify import tokens

    ex_raw = {w for w in tokens(example_masked) if w != _MASK and w[0].isalpha()}
    new_raw = {w for w in tokens(new_masked) if w != _MASK and w[0].isalpha()}
    new_lemmas = _words(new_masked)
    from sqlgenie.inference.verify import lemma

    removed = sorted(w for w in ex_raw - new_raw if lemma(w) not in new_lemmas
                     and not any(_same_stem(w, v) for v in new_raw))
    if not removed:
        return []
    unbound = unbound_columns(example_sql, example_spans, catalog)
    if not unbound:
        return []
    for w in removed:
        cols = words.columns(w) & unbound
        if not cols:
            continue
        if any(words.columns(v, words.LICENSE_SHARE) & cols for v in sorted(new_raw)):
            continue
        shown = ", ".join(sorted(cols))
        return [f"the example says \u201c{w}\u201d, which other examples turn into a condition on {shown}; "
                f"your question does not say it, but this example's query keeps that condition"]
    return []


# --------------------------------------------------------------------------- one candidate


def check_candidate(adapted: Any, example_sql: str, example_masked: str, example_spans: Sequence[Any],
                    new_masked: str, new_spans: Sequence[Any], question: str, *, catalog: Any = None,
                    sides: Any = None, schema_word: Any = None, constants: Any = None) -> Any:
    """Run this module's refusals on one verified adaptation (changed in place like
    :func:`sqlgenie.inference.precision.check_candidate`). Returns ``adapted``."""
    if adapted is None or not adapted.ok or adapted.tree is None:
        return adapted
    if example_masked.strip().lower() == new_masked.strip().lower():
        return adapted
    tree = adapted.tree
    reasons: list[str] = []
    if HOW_MUCH:
        reasons = how_much_mismatch(tree, question, catalog)
    if not reasons and ENTITY:
        reasons = answer_entity_mismatch(tree, example_masked, new_masked,
                                         [Span.of(s).cls for s in example_spans],
                                         [Span.of(s).cls for s in new_spans], schema_word, catalog)
    if not reasons and SIDES and len(example_spans) == len(new_spans):
        reasons = side_mismatch(example_sql, example_masked, example_spans, new_masked, new_spans,
                                adapted.pairs, sides, catalog)
    if not reasons and DROPPED and constants is not None and len(example_spans) == len(new_spans):
        reasons = dropped_constants(example_sql, example_spans, example_masked, new_masked, constants, catalog)
    return adapted.refuse(reasons) if reasons else adapted
