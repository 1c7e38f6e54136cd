"""Retrieval from the example bank: mask the question, take exact masked matches
first, then the nearest masked embeddings (pgvector HNSW, cosine) above the
threshold T, keeping only examples whose tables are all available on the target.

"Available" means onboarded (the catalog of issue 4) or, while nothing is
onboarded, existing on the target database. The catalog plugs in through the
:class:`OnboardedTables` protocol; the default reads ``sqlgenie.catalog_tables``.

Warm processes keep one :class:`Retriever` (schema vocabulary and available tables
are loaded once, :meth:`Retriever.refresh` reloads them); one-shot callers use
:func:`retrieve`.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Protocol, Sequence

import numpy as np
import psycopg

from example_bank.masking import MaskedQuestion, SchemaVocabulary, mask_question
from example_bank.store import BankStore, ScoredExample

SYSTEM_SCHEMAS = ("pg_catalog", "information_schema", "sqlgenie", "pg_toast")


class OnboardedTables(Protocol):
    """Returns the onboarded table names (``table`` and ``schema.table``, lower-case)
    or ``None`` when no catalog exists yet (then tables on the target count)."""

    def __call__(self, conn: psycopg.Connection) -> set[str] | None: ...


def _regclass_exists(conn: psycopg.Connection, name: str) -> bool:
    return conn.execute("SELECT to_regclass(%s) IS NOT NULL", (name,)).fetchone()[0]


def _names(rows, search_path: set[str]) -> set[str]:
    out: set[str] = set()
    for schema, table in rows:
        schema, table = schema.lower(), table.lower()
        out.add(f"{schema}.{table}")
        if schema in search_path:
            out.add(table)
    return out


def onboarded_tables(conn: psycopg.Connection) -> set[str] | None:
    """Onboarded tables from ``sqlgenie.catalog_tables``; ``None`` when that table does
    not exist or is empty (nothing onboarded yet: fall back to the target's tables)."""
    if not _regclass_exists(conn, "sqlgenie.catalog_tables"):
        return None
    rows = conn.execute("SELECT schema_name, table_name FROM sqlgenie.catalog_tables").fetchall()
    if not rows:
        return None
    return _names(rows, {"public"})


def existing_tables(target: psycopg.Connection) -> set[str]:
    """Tables and views on the target (bare names for schemas on its search_path)."""
    rows = target.execute(
        "SELECT n.nspname, c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
        " WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f') AND n.nspname <> ALL(%s)"
        " AND n.nspname NOT LIKE 'pg\\_%%'",
        (list(SYSTEM_SCHEMAS),),
    ).fetchall()
    path = {r[0].lower() for r in target.execute("SELECT unnest(current_schemas(false))")}
    return _names(rows, path)


def available_tables(
    store: psycopg.Connection,
    target: psycopg.Connection | None,
    provider: OnboardedTables = onboarded_tables,
) -> set[str] | None:
    """Tables retrieval may use: onboarded ones, else those on the target; ``None``
    (no filter) only when there is neither a catalog nor a target connection."""
    found = provider(store)
    if found is not None:
        return found
    return existing_tables(target) if target is not None else None


def schema_vocabulary(store: psycopg.Connection, target: psycopg.Connection | None) -> SchemaVocabulary:
    """Schema words for masking: onboarded tables, columns and synonyms; else the
    target's table and column names."""
    names: list[str] = []
    if _regclass_exists(store, "sqlgenie.catalog_columns"):
        for table, column, synonyms in store.execute(
            "SELECT t.table_name, c.column_name, c.synonyms FROM sqlgenie.catalog_tables t"
            " JOIN sqlgenie.catalog_columns c ON c.table_id = t.id"
        ):
            names += [table, column, *(synonyms or [])]
    if not names and target is not None:
        for table, column in target.execute(
            "SELECT table_name, column_name FROM information_schema.columns WHERE table_schema <> ALL(%s)",
            (list(SYSTEM_SCHEMAS),),
        ):
            names += [table, column]
    return SchemaVocabulary.from_names(names)


def load_value_index(store: psycopg.Connection, *, max_values: int = 500_000) -> dict[str, str] | None:
    """Cached values of onboarded columns (issue 4's value cache), lower-cased, mapped
    to ``table.column``; ``None`` when there is no value cache. Loaded once per
    :class:`Retriever` / import, then looked up in memory."""
    if not _regclass_exists(store, "sqlgenie.value_cache"):
        return None
    found: dict[str, str] = {}
    for value, owner in store.execute(
        "SELECT lower(v.value), t.table_name || '.' || c.column_name FROM sqlgenie.value_cache v"
        " JOIN sqlgenie.catalog_columns c ON c.id = v.column_id JOIN sqlgenie.catalog_tables t ON t.id = c.table_id"
        " ORDER BY v.frequency DESC LIMIT %s",
        (max_values,),
    ):
        if value and not value.isdigit():
            found.setdefault(value, owner)
    return found or None


def value_lookup(index: dict[str, str] | None) -> Callable[[str], object] | None:
    """A ``value_lookup`` for :func:`mask_question` over a value index."""
    if not index:
        return None
    return lambda text: index.get(" ".join(text.split()).lower())


VALUE_BONUS = 0.1


def span_values(spans) -> set[str]:
    """Lower-cased, punctuation-free texts of masked spans (dicts or MaskedSpan)."""
    out = set()
    for span in spans:
        text = span["text"] if isinstance(span, dict) else span.text
        norm = " ".join(re.sub(r"[^\w]+", " ", text.lower()).split())
        if norm:
            out.add(norm)
    return out


def value_overlap(a: set[str], b: set[str]) -> float:
    """Share of masked values two questions have in common (0..1)."""
    if not a or not b:
        return 0.0
    return len(a & b) / max(len(a), len(b))


def rank_score(cosine: float, overlap: float, bonus: float = VALUE_BONUS) -> float:
    """Ranking among non-exact candidates: masked cosine plus a small bonus for the
    share of identical masked values (a paraphrase with the same values is most
    likely the very same query). The threshold applies to the cosine alone."""
    return cosine + bonus * overlap


def embedding_text(masked: MaskedQuestion) -> str:
    """The text whose embedding represents a (masked) question in the bank."""
    return masked.text


@dataclass
class RetrievalResult:
    question: str
    masked: MaskedQuestion
    threshold: float
    matches: list[ScoredExample] = field(default_factory=list)
    elapsed_ms: float = 0.0

    @property
    def best(self) -> ScoredExample | None:
        return self.matches[0] if self.matches else None


class Retriever:
    """Retrieval with context (vocabulary, available tables) loaded once."""

    def __init__(
        self,
        store: psycopg.Connection,
        target: psycopg.Connection | None = None,
        *,
        encode: Callable[[list[str]], np.ndarray] | None = None,
        threshold: float = 0.75,
        statuses: tuple[str, ...] = ("verified",),
        ef_search: int = 100,
        provider: OnboardedTables = onboarded_tables,
        filter_tables: bool = True,
        value_bonus: float = VALUE_BONUS,
        candidates: int = 2,
    ) -> None:
        self.store = store
        self.target = target
        self.bank = BankStore(store)
        if encode is None:
            from example_bank.embedder import get_embedder

            encode = get_embedder().encode
        self.encode = encode
        self.threshold = threshold
        self.statuses = statuses
        self.ef_search = ef_search
        self.provider = provider
        self.filter_tables = filter_tables
        self.value_bonus = value_bonus
        self.candidates = candidates
        #: The nearest-example search and the exact look-up (``BankStore``'s signatures); the asker may
        #: answer them from a snapshot of the bank held in the process (``sqlgenie.inference.bank_snapshot``).
        self.nearest = self.bank.nearest
        self.exact_matches = self.bank.exact_matches
        self.refresh()

    def refresh(self) -> None:
        self.vocabulary = schema_vocabulary(self.store, self.target)
        self.allowed = available_tables(self.store, self.target, self.provider) if self.filter_tables else None
        self.values = value_lookup(load_value_index(self.store))

    #: Masked questions remembered per retriever (the match route masks the same bank questions for
    #: every ask): bounded, and forgotten when the vocabulary or the value look-up is replaced.
    MASK_MEMO = 4096

    def mask(self, question: str) -> MaskedQuestion:
        """:func:`mask_question` with this retriever's vocabulary and values, remembered per question
        while both are the same objects (:meth:`refresh` and the asker replace them, never change them)."""
        memo = self.__dict__.get("_mask_memo")
        if memo is None or memo[0] is not self.vocabulary or memo[1] is not self.values:
            memo = self._mask_memo = (self.vocabulary, self.values, {})
        masks = memo[2]
        got = masks.get(question)
        if got is None:
            got = mask_question(question, self.vocabulary, self.values)
            if len(masks) >= self.MASK_MEMO:
                masks.clear()
            masks[question] = got
        return got

    def retrieve(self, question: str, k: int = 5, threshold: float | None = None, *,
                 exact: Sequence[Any] | None = None) -> RetrievalResult:
        """Top ``k`` examples: exact masked matches (score 1.0) first, then nearest
        neighbours with cosine similarity >= ``threshold`` (default T): the
        ``candidates * k`` nearest by HNSW, ordered by :func:`rank_score`. ``exact``: the
        exact matches of this question and ``k`` when the caller has just looked them up
        (one round trip less)."""
        started = time.perf_counter()
        limit = self.threshold if threshold is None else threshold
        masked = self.mask(question)
        if exact is None:
            exact = self.exact_matches(masked.key, allowed_tables=self.allowed, statuses=self.statuses, limit=k)
        matches = [ScoredExample(e, 1.0, exact=True) for e in exact]
        if len(matches) < k:
            vector = self.encode([embedding_text(masked)])[0]
            seen = {m.example.id for m in matches}
            mine = span_values(masked.spans)
            pool = [
                hit
                for hit in self.nearest(
                    vector, k=self.candidates * k + len(matches), allowed_tables=self.allowed,
                    statuses=self.statuses, ef_search=self.ef_search,
                )
                if hit.example.id not in seen and hit.score >= limit
            ]
            pool.sort(key=lambda h: -rank_score(h.score, value_overlap(mine, span_values(h.example.spans)), self.value_bonus))
            matches += pool[: k - len(matches)]
        return RetrievalResult(question, masked, limit, matches, (time.perf_counter() - started) * 1000)


def retrieve(
    question: str,
    k: int = 5,
    threshold: float | None = None,
    *,
    store: psycopg.Connection,
    target: psycopg.Connection | None = None,
    encode: Callable[[list[str]], np.ndarray] | None = None,
) -> RetrievalResult:
    """One-shot retrieval (threshold default: settings.match_threshold)."""
    if threshold is None:
        from sqlgenie.config import get_settings

        threshold = get_settings().match_threshold
    return Retriever(store, target, encode=encode, threshold=threshold).retrieve(question, k, threshold)
