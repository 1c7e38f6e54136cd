"""Precision rules of the match route (issue 13, helper matchp): turn silent wrong
answers of an adapted example into right answers or refusals.

Each rule is general (no word list from a test set) and was kept only when it raised
precision on every templated set without losing Spider coverage (docs/benchmarks.md,
"After matchp"):

* :func:`pin_stored_values` - **the question's value as stored**. In the match route a
  text literal is the question's own value. The value corrector only knows the *cached*
  (frequent) values of a column, so a value the data holds but the cache lacks
  (``'Christopher D. Manning'``) was widened to every close cached value
  (``IN ('Christopher D Manning', 'Christopher D. Manning')``) or replaced by one
  (meal code ``'S/'`` -> ``'S'``). Only when the corrector would change one of the
  question's literals, one probe (through the safe executor) asks the database: when
  the column holds the literal, it is kept as it is; when it holds exactly one value
  equal to it but for case and spacing, that value is used alone.
* :func:`answer_type_mismatch` - **the kind of answer the question asks for**, read off
  the question alone and checked against the outer projection of the adapted SQL,
  whatever the example said: "how many ..." needs a number (an aggregate, arithmetic or
  a numeric column that is not a key), "when ..." / "what year ..." / "how recently ..."
  needs a temporal column. The example's own SQL may be template noise (a "how many"
  question whose SQL lists ids).
* :class:`ModifierWords` / :func:`missing_modifiers` - **a modifier the question adds**.
  Words such as "morning" or "nonstop" carry no value, yet the bank's SQL encodes them
  as constants (``departure_time BETWEEN 0 AND 1200``, ``stops = 0``); words such as
  "popular" or "latest" as a ranking (ORDER BY, a MIN / MAX subquery). A word the
  question adds to its example is such a modifier when at least 80% (and 3) of the
  verified bank questions using it have SQL comparing a column with a number their
  question does not say (or, failing that, SQL that ranks); the candidate is refused
  when its SQL compares none of those columns with such a number (does not rank): the
  modifier would be dropped silently. Learned from the bank in scope, so no word list.
  The mirror case, a modifier the example has and the question lacks, is
  :func:`sqlgenie.inference.verify.implied_constants`.
* The masker (``example_bank.masking``) keeps a name's middle initial in the value
  ("Christopher D. Manning", "Noah A. Smith": "A" followed by "." inside a capitalised
  run is an initial, not the article); the value had been cut at the initial and the
  value corrector widened the stub ('Noah A' -> ``IN ('Noah A Smith', 'Noah A. Smith',
  'Noah Smith')``).

Every refusal reason is a sentence a user can read; :data:`REASON_CODES` maps the
start of each to its ``reason_code``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Iterable, Sequence

from sqlglot import exp

from sqlgenie.inference import ranked_words
from sqlgenie.inference.adapt import _singular

__all__ = [
    "ModifierWords",
    "PinnedMatcher",
    "REASON_CODES",
    "answer_type_mismatch",
    "missing_modifiers",
    "modifier_words",
    "pin_stored_values",
    "reason_code",
]

#: reason_code of each refusal this module gives, by a phrase of its sentence.
REASON_CODES = {
    "your question asks how many": "answer type",
    "your question asks when": "answer type",
    "the examples translate": "missing modifier",
}


def reason_code(reason: str) -> str | None:
    for phrase, code in REASON_CODES.items():
        if phrase in reason:
            return code
    return None


# --------------------------------------------------------------------------- stored values


class PinnedMatcher:
    """A value matcher that defers to ``inner`` and, when ``inner`` would change one of
    the question's own literals (not a cached value, close cached values found), asks
    the database whether the column holds it (:func:`pin_stored_values`)."""

    def __init__(self, inner: Any, literals: set[str], executor: Any) -> None:
        self.inner, self.literals, self.executor = inner, literals, executor
        self.probes = 0  # database round trips (observability, tests)
        self._stored: dict[tuple[str, str], list[str]] = {}

    def prefetch_exact(self, items: Iterable[Any]) -> None:
        fn = getattr(self.inner, "prefetch_exact", None)
        if fn is not None:
            fn(list(items))

    def lookup(self, column: Any, requests: Sequence[Any], settings: Any = None) -> list[Any]:
        from sqlgenie.autocorrect.values import ValueMatch

        out = list(self.inner.lookup(column, requests, settings))
        for i, (r, m) in enumerate(zip(requests, out)):
            if r.kind != "eq" or m.exact or not m.matches or r.literal not in self.literals:
                continue
            stored = self._held(column, r.literal)
            if r.literal in stored:
                out[i] = ValueMatch(r, True)  # the column holds the question's value: never touched
            else:
                key = " ".join(r.literal.casefold().split())
                folded = [v for v in stored if " ".join(v.casefold().split()) == key]
                if len(folded) == 1:  # one stored case/spacing variant: that value alone (value_same_folded)
                    out[i] = ValueMatch(r, False, (folded[0],), (100.0,), m.cached_count)
        return out

    def _held(self, column: Any, literal: str) -> list[str]:
        """Stored values of ``column`` equal to ``literal`` but for case (at most 3)."""
        table, col_name = column.table, column.column.name
        key = (column.key.lower(), literal)
        if key in self._stored:
            return self._stored[key]
        col = exp.column(col_name, quoted=True)
        probe = (exp.select(col).distinct()
                 .from_(exp.table_(table.name, db=table.schema, quoted=True))
                 .where(exp.EQ(this=exp.Lower(this=col.copy()), expression=exp.Literal.string(literal.lower())))
                 .limit(3))
        self.probes += 1
        try:
            rows = self.executor.run(probe.sql(dialect="postgres"), row_cap=3).rows
        except Exception:
            rows = []
        self._stored[key] = [r[0] for r in rows if isinstance(r[0], str)]
        return self._stored[key]


def pin_stored_values(matcher: Any, adapted: Any, executor: Any, catalog: Any = None) -> Any:
    """``matcher`` wrapped in a :class:`PinnedMatcher` for the text values the question
    supplied (``adapted.substitutions``): each one the column really holds is kept
    instead of being widened or replaced by the value corrector."""
    if matcher is None or adapted is None or executor is None:
        return matcher
    literals = set()
    for sub in getattr(adapted, "substitutions", ()) or ():
        if sub.new.startswith("'") and sub.new.endswith("'") and "LIKE" not in (sub.derivation or ""):
            literals.add(sub.new[1:-1].replace("''", "'"))
    return PinnedMatcher(matcher, literals, executor) if literals else matcher


# --------------------------------------------------------------------------- answer type

_HOW_MANY = re.compile(r"^\s*(?:(?:and|so|then|please|also|now|ok|okay)\s+)?how\s+many\b", re.I)
_WHEN = re.compile(r"^\s*(?:(?:and|so|then|please|also|now)\s+)?(?:when\s+(?:is|are|was|were|did|do|does|will|has|have|had|can)\b"
                   r"|(?:in\s+)?(?:what|which)\s+years?\b|how\s+recently\b)", re.I)
_TEMPORAL_WORDS = frozenset("year years date dates time times day days month months semester semesters quarter "
                            "season period hour hours week weeks when".split())


def _temporal_name(name: str) -> bool:
    """A column named for a time ("year", "start_time", "birthdate"; not "monday")."""
    from example_bank.masking import split_identifier

    parts = [p.lower() for p in split_identifier(name)]
    return any(p in _TEMPORAL_WORDS for p in parts) or name.lower().endswith(("date", "time", "year"))


def _outer(tree: exp.Expression) -> exp.Select | None:
    while isinstance(tree, exp.SetOperation):
        tree = tree.left
    return tree if isinstance(tree, exp.Select) else None


def _alias_tables(tree: exp.Expression) -> dict[str, exp.Table]:
    return {t.alias_or_name.lower(): t for t in tree.find_all(exp.Table)}


def _column_info(col: exp.Column, tables: dict[str, exp.Table], catalog: Any) -> Any:
    if catalog is None:
        return None
    cands = [tables[col.table.lower()]] if col.table and col.table.lower() in tables else list(tables.values())
    for t in cands:
        info = catalog.table(t.name, t.db or None)
        if info is not None and info.column(col.name) is not None:
            return info.column(col.name)
    return None


def answer_items(tree: exp.Expression) -> tuple[list[exp.Expression], dict[str, exp.Table]] | None:
    """The outer projection's expressions (aliases removed) and its tables by alias; None
    when the query has no outer SELECT list or selects ``*`` (nothing to check)."""
    sel = _outer(tree)
    if sel is None or not sel.expressions:
        return None
    items = [e.unalias() if isinstance(e, exp.Alias) else e for e in sel.expressions]
    if any(isinstance(e, exp.Star) for e in items):
        return None
    return items, _alias_tables(sel)


def computes(e: exp.Expression) -> bool:
    """An aggregate, arithmetic or a comparison: an answer computed, not a stored value."""
    return e.find(exp.AggFunc) is not None or isinstance(e, (exp.Binary, exp.Predicate)) or \
        e.find(exp.Binary) is not None


def _is_key(name: str) -> bool:
    n = name.lower()
    return n == "id" or n.endswith("_id") or n.endswith("id") and len(n) > 2 and not n.endswith("paid")


def answer_type_mismatch(tree: exp.Expression, question: str, catalog: Any = None) -> list[str]:
    """The question's own kind of answer (how many / when) against the adapted SQL's
    outer projection (see module doc)."""
    answer = answer_items(tree)
    if answer is None:
        return []
    items, tables = answer
    if _HOW_MANY.search(question):
        for e in items:
            if computes(e):
                return []
            for col in e.find_all(exp.Column):
                info = _column_info(col, tables, catalog)
                numeric = info is not None and info.family == "numeric"
                if (numeric or info is None) and not _is_key(col.name):
                    return []
        shown = ", ".join(e.sql(dialect="postgres") for e in items[:3])
        return [f"your question asks how many, but the example's query lists rows ({shown}) instead of counting them"]
    if _WHEN.search(question):
        for e in items:
            if isinstance(e, exp.Predicate) or e.find(exp.Predicate) is not None:
                return []  # a yes/no answer
            for col in e.find_all(exp.Column):
                info = _column_info(col, tables, catalog)
                if info is not None and info.family == "temporal":
                    return []
                if _temporal_name(col.name):
                    return []
        shown = ", ".join(e.sql(dialect="postgres") for e in items[:3])
        return [f"your question asks when, but the example's query answers with {shown}, not a date or time"]
    return []


# --------------------------------------------------------------------------- modifiers

_WORD = re.compile(r"[a-z][a-z']+")


_ORDER = "<order>"  # feature: the SQL ranks (ORDER BY, or a MIN / MAX subquery)


@dataclass
class _WordStats:
    uses: int  # verified bank questions with the word (a sample)
    implied: int  # of them, SQL comparing a column with a number the question does not say
    columns: frozenset[str]  # those columns
    ordered: int = 0  # of them, SQL that ranks


class ModifierWords:
    """Per word, how the verified bank's SQL treats the questions using it (see module
    doc); looked up on demand (a word-boundary regex on the stored masked questions, SQL
    parsed with sqlglot, at most :attr:`SAMPLE` per word) and cached until the bank
    changes."""

    MIN_USES = 3
    MIN_SHARE = 0.8
    SAMPLE = 40  # bank questions read per word
    ORDERING = True  # words the bank always ranks with ("popular", "latest") count too

    def __init__(self, store: Any, allowed: Any, catalog: Any, stamp: Any = None) -> None:
        self.store, self.allowed, self.catalog, self.stamp = store, allowed, catalog, stamp
        self.cache: dict[str, _WordStats] = {}
        self._features: dict[int, frozenset[str]] = {}  # bank example id -> its SQL's features

    def stats(self, words: Sequence[str]) -> dict[str, _WordStats]:
        for w in dict.fromkeys(words):
            if w in self.cache:
                continue
            # a sample is enough to tell a modifier (every use carries it) from a common word
            from sqlgenie.inference.verify import verified_rows
            rows = verified_rows(self.store, self.allowed, "id, mask_spans, sql", "masked_question ~* %s",
                                 [r"\m" + re.escape(w) + r"\M"], self.SAMPLE)
            uses, implied, ordered, cols = 0, 0, 0, set()
            for ex_id, spans, sql in rows:
                found = self._features.get(ex_id)
                if found is None:
                    found = self._features[ex_id] = sql_features(sql, spans or [], self.catalog)
                uses += 1
                numbers = found - {_ORDER}
                if numbers:
                    implied += 1
                    cols |= numbers
                if _ORDER in found:
                    ordered += 1
            self.cache[w] = _WordStats(uses, implied, frozenset(cols), ordered)
        return {w: self.cache[w] for w in words}

    def ranks_alone(self, word: str) -> bool:
        """``word`` ranks in the bank's questions that say no ranking word (:mod:`.ranked_words`)."""
        return ranked_words.ranks_alone(word, self)

    def modifiers(self, words: Sequence[str]) -> dict[str, frozenset[str]]:
        """The words that are modifiers, with what their SQL always has: the columns their
        constants compare, or :data:`_ORDER` (ranking)."""
        out = {}
        for w, s in self.stats(words).items():
            if s.uses < self.MIN_USES:
                continue
            if s.implied >= self.MIN_SHARE * s.uses and s.columns:
                out[w] = s.columns
            elif self.ORDERING and s.ordered >= self.MIN_SHARE * s.uses:
                out[w] = frozenset({_ORDER})
        return out


def sql_features(sql: str | exp.Expression, spans: Sequence[Any], catalog: Any = None) -> frozenset[str]:
    """The columns of :func:`implied_numbers`, plus :data:`_ORDER` when the SQL ranks."""
    from sqlgenie.inference.adapt import example_sql_reading

    try:  # a text is read once per text and catalog (read only; its slots too, in implied_numbers)
        tree = example_sql_reading(sql, catalog).tree if isinstance(sql, str) else sql
    except Exception:
        return frozenset()
    out = set(implied_numbers(sql, spans, catalog))
    if tree.find(exp.Order) is not None or any(
            isinstance(sub.this, exp.Select) and any(e.find(exp.Max, exp.Min) is not None for e in sub.this.expressions)
            for sub in tree.find_all(exp.Subquery)):
        out.add(_ORDER)
    return frozenset(out)


def implied_numbers(sql: str | exp.Expression, spans: Sequence[Any], catalog: Any = None) -> set[str]:
    """Columns the SQL compares (WHERE / ON, not HAVING) with a number no value span of
    its question produced (aligned as :func:`sqlgenie.inference.adapt.align` does);
    calendar parts and keys left out (as :func:`verify.implied_constants`)."""
    from sqlgenie.inference.adapt import unbound_slots

    out: set[str] = set()
    for s in unbound_slots(sql, spans, catalog) or []:
        if s.context != "compare" or s.is_string or s.temporal or s.node.find_ancestor(exp.Having) is not None:
            continue
        name = (s.column or "").rsplit(".", 1)[-1].strip('"').lower()
        if not name or name == "id" or name.endswith("_id"):
            continue
        out.add(name)
    return out


class _LazyModifiers:
    """Resolves :func:`_modifier_words` on first use (exact matches never need it)."""

    def __init__(self, retriever: Any, catalog: Any) -> None:
        self.retriever, self.catalog = retriever, catalog
        self._words: ModifierWords | None = None
        self._resolved = False

    def modifiers(self, words: Sequence[str]) -> dict[str, frozenset[str]]:
        if not self._resolved:
            self._words, self._resolved = _modifier_words(self.retriever, self.catalog), True
        return self._words.modifiers(words) if self._words is not None else {}

    def ranks_alone(self, word: str) -> bool:
        """``word`` ranks in the bank's questions that say no ranking word (:mod:`.ranked_words`)."""
        if not self._resolved:
            self._words, self._resolved = _modifier_words(self.retriever, self.catalog), True
        return True if self._words is None else ranked_words.ranks_alone(word, self._words)


def modifier_words(retriever: Any, catalog: Any) -> Any:
    """The modifier words of the retriever's scope, looked up lazily (see :class:`ModifierWords`)."""
    return _LazyModifiers(retriever, catalog)


def _modifier_words(retriever: Any, catalog: Any) -> ModifierWords | None:
    """The :class:`ModifierWords` of the retriever's scope (kept on the retriever until
    its scope or the verified bank changes)."""
    from sqlgenie.inference.verify import cached_per_bank

    store = getattr(retriever, "store", None)
    if store is None:
        return None
    allowed = getattr(retriever, "allowed", None)
    return cached_per_bank(retriever, "_precision_modifiers",
                           lambda stamp: ModifierWords(store, allowed, catalog, stamp))


_SKIP = frozenset("""a an the of in on at by for to from with and or is are was were be been do does did have has
had what which who whom how that this these those there it its their all any some each every me my i we you our
not no show list give tell find please want would like need get can could will shall may might must also just""".split())


def missing_modifiers(tree: exp.Expression, example_masked: str, new_masked: str, new_spans: Sequence[Any],
                      words: Any, catalog: Any = None, schema_word: Any = None) -> list[str]:
    """Words the question adds to its example that the bank's SQL always encodes as a
    number compared with a column (or as a ranking), while this SQL compares none of
    those columns with a number the question does not say (does not rank); see module
    doc. Schema words ("name", "stadium") name what is asked, not how: never modifiers."""
    if words is None:
        return []
    ex = set(_WORD.findall(example_masked.lower()))
    new = [w for w in _WORD.findall(new_masked.lower()) if w != "mask"]
    added = [w for w in dict.fromkeys(new) if w not in ex and w not in _SKIP and len(w) > 2
             and not (schema_word is not None and (schema_word(w) or schema_word(_singular(w))))]
    from sqlgenie.inference.time_readings import said_in_class  # cover19b: "arrives" where it says "arriving"

    added = [w for w in added if not said_in_class(w, ex)]
    if not added:
        return []
    found = words.modifiers(added)
    if found and ranked_words.ENABLED and not ranked_words.question_ranks(new_masked):  # "most cited": said by "most"
        found = {w: cols for w, cols in found.items() if cols != {_ORDER} or words.ranks_alone(w)}
    if not found:
        return []
    have = sql_features(tree, new_spans, catalog)
    missing = [w for w, cols in found.items() if not (cols & have)]
    if not missing:
        return []
    quoted = ", ".join(f"\u201c{w}\u201d" for w in missing)
    needs = set().union(*(found[w] for w in missing))
    what = ", ".join(sorted(needs - {_ORDER}))
    text = (f"a condition on {what}" if what else "") + (" and " if what and _ORDER in needs else "") + \
        ("a ranking" if _ORDER in needs else "")
    return [f"your question says {quoted}, which the examples translate into {text} that this example's query lacks"]


# --------------------------------------------------------------------------- one candidate


def check_candidate(adapted: Any, example_masked: str, new_masked: str, new_spans: Sequence[Any], question: str,
                    *, catalog: Any = None, modifiers: Any = None, schema_word: Any = None) -> Any:
    """Run this module's refusals on one verified adaptation (``adapt_verified``'s
    result, changed in place: ``ok`` False, ``sql`` None and the reasons in
    ``unaccounted`` when refused). Returns ``adapted``."""
    if adapted is None or not adapted.ok:
        return adapted
    tree = adapted.tree  # parsed once by adapt_verified
    if tree is None:
        return adapted
    reasons = answer_type_mismatch(tree, question, catalog)
    if not reasons and example_masked.strip().lower() != new_masked.strip().lower():
        reasons = missing_modifiers(tree, example_masked, new_masked, new_spans, modifiers, catalog, schema_word)
    return adapted.refuse(reasons) if reasons else adapted
