"""The ``Asker`` service: a question in, SQL, rows and an explanation out.

    with Asker.open(settings) as asker:          # warm once per process
        result = asker.ask("How many orders were placed in 2024?")
        result.sql, result.rows, result.route, result.id

Stages (each timed in ``result.timings_ms``):

1. **retrieve** - mask the question, exact masked matches first, then the
   nearest bank examples (``example_bank.retrieval.Retriever``);
2. **route** - match when the best example scores at least T, else think
   (:mod:`.router`; ``--route`` overrides);
3. match route, **without an LLM** (or when the deterministic adaptation is exact
   and complete): **adapt** the example's SQL (:mod:`.adapt`); **with an LLM**:
   **prune** the schema (``SchemaPruner``) and **generate** with one call
   (:mod:`.generate_llm`);
4. **autocorrect** - the deterministic chain (values, dates, types, LIMIT ...);
5. **execute** - through the SafeExecutor (the only path to the database);
6. **log** - one row in ``sqlgenie.query_log``; its id is the answer's id.

The think route, with an LLM, runs the think loop (:mod:`.think.loop`: plan,
generate, critic, up to m rounds, within a per-question budget); without one, and
when the match route cannot account for the question, it answers with a clear
refusal with the nearest examples (:mod:`.think`), never a silent guess.

One ``Asker`` holds the catalog, the retriever (vocabulary, value index), the
value matcher (one per process, recreated by :meth:`Asker.refresh` after
onboarding), the pruner, the executor and the LLM provider.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Sequence

import numpy as np
import psycopg

from sqlgenie.config import Settings, get_settings
from sqlgenie.errors import InputError, LLMNotConfiguredError, SQLError, SqlGenieError
from sqlgenie.inference.adapt import AdaptedSQL
from sqlgenie.inference import answer_words, between_ends, beyond_exact, counterparts, deeper, groups, other_query, unasked_parts
from sqlgenie.inference import example_parts, example_sides, head_reading, number_place, read_apart, unclear_answers
from sqlgenie.inference import answer_items, asked_returns, repeated_ends, role_cues, unmet_words
from sqlgenie.inference import free_words, idle_schema_words, match_support, relative_years, value_reading, word_constants
from sqlgenie.inference.router import RouteDecision, check_route, decide_route
from sqlgenie.inference import ask_opening, precision
from sqlgenie.inference import sides
from sqlgenie.inference import tie_spelling, tie_words
from sqlgenie.inference import unread_words
from sqlgenie.inference.bank_snapshot import exact_from_snapshot, nearest_from_snapshot
from sqlgenie.inference.verify import adapt_verified, bank_values, one_bank_stamp
from sqlgenie.inference.think import ThinkAnswer, example_summary, think_route

__all__ = ["AskResult", "Asker"]

#: Examples retrieved per question (the nearest are shown; the top ones are tried).
RETRIEVE_K = 5
#: Bank candidates tried per question, best first (the first that verifies answers; close ones must agree).
ADAPT_CANDIDATES = 5
#: Examples scoring within this of the best must agree, else the answer is refused.
TIE_MARGIN = 0.02
#: Past the first verified candidate, those out of its tie are not verified unless their refusals are
#: read (perf15: their outcome cannot change the answer; ``Asker._adapt``).
SKIP_UNTIED = True
#: Least confidence of a deterministic adaptation that is answered.
MIN_CONFIDENCE = 0.5


@dataclass
class AskResult:
    """Everything about one answer (``to_dict`` is the ``ask --json`` object)."""

    question: str
    status: str  # ok | refused | error
    route: str | None  # match | think
    sql: str | None = None
    columns: list[str] = field(default_factory=list)
    rows: list[tuple] = field(default_factory=list)
    row_count: int | None = None
    truncated: bool = False
    executed: bool = False
    id: int | None = None  # query log id
    message: str | None = None  # refusal or error message
    hint: str | None = None
    explanation: str = ""
    method: str | None = None  # adapt | llm | think
    confidence: float | None = None
    similarity: float | None = None
    decision: RouteDecision | None = None
    examples: list[dict[str, Any]] = field(default_factory=list)  # retrieved, best first
    example_id: int | None = None  # the example the answer was adapted from (match route)
    adaptation: dict[str, Any] | None = None
    corrections: list[dict[str, str]] = field(default_factory=list)
    correction_errors: list[dict[str, str]] = field(default_factory=list)
    think: ThinkAnswer | None = None
    masked_question: str | None = None
    llm: dict[str, Any] = field(default_factory=lambda: {"calls": 0, "input_tokens": 0, "output_tokens": 0})
    timings_ms: dict[str, float] = field(default_factory=dict)
    total_ms: float = 0.0
    error: str | None = None  # error class name
    unreviewed: bool = False  # a regenerated answer awaiting review (sqlgenie.feedback.review)
    review_id: int | None = None

    @property
    def answered(self) -> bool:
        return self.status == "ok"

    def to_dict(self, *, max_rows: int | None = None) -> dict[str, Any]:
        rows = self.rows if max_rows is None else self.rows[:max_rows]
        return {
            "id": self.id, "question": self.question, "status": self.status, "route": self.route,
            "method": self.method, "sql": self.sql, "columns": self.columns, "rows": [list(r) for r in rows],
            "row_count": self.row_count, "truncated": self.truncated, "executed": self.executed,
            "message": self.message, "hint": self.hint, "explanation": self.explanation,
            "confidence": None if self.confidence is None else round(self.confidence, 3),
            "similarity": None if self.similarity is None else round(self.similarity, 4),
            "decision": self.decision.to_dict() if self.decision else None,
            "examples": self.examples, "example_id": self.example_id, "adaptation": self.adaptation,
            "corrections": self.corrections, "correction_errors": self.correction_errors,
            "think": self.think.to_dict() if self.think else None, "masked_question": self.masked_question,
            "llm": self.llm, "timings_ms": {k: round(v, 2) for k, v in self.timings_ms.items()},
            "total_ms": round(self.total_ms, 2), "error": self.error,
            "unreviewed": self.unreviewed, "review_id": self.review_id,
        }


class _Clock:
    def __init__(self) -> None:
        self.timings: dict[str, float] = {}
        self.started = time.perf_counter()

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        start = time.perf_counter()
        try:
            yield
        finally:
            self.timings[name] = self.timings.get(name, 0.0) + (time.perf_counter() - start) * 1000.0

    @property
    def total(self) -> float:
        return (time.perf_counter() - self.started) * 1000.0


_STORED_EMBEDDING = ("SELECT embedding FROM sqlgenie.ask_embedding_cache WHERE model = %s AND text_md5 = md5(%s)"
                     " AND text = %s")


def _stored_vector(value: Any) -> np.ndarray:
    value = value.to_numpy() if hasattr(value, "to_numpy") else value
    return np.asarray(value, dtype=np.float32)


class _CachedEncoder:
    """The process-wide embedder behind two caches of single texts (masked
    questions repeat): an in-memory LRU and ``sqlgenie.ask_embedding_cache`` in the
    store, so a one-shot ``ask`` of a known question template never loads the
    model. Single texts are encoded with one intra-op thread: on a shared 2-core
    machine a one-sentence MiniLM pass is faster without thread hand-offs."""

    def __init__(self, encode: Callable[[list[str]], np.ndarray] | None, model: str,
                 store: psycopg.Connection | None = None, size: int = 2048) -> None:
        self._encode = encode
        self.model = model
        self.store = store
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._size = size
        self._lock = threading.Lock()
        self.model_calls = 0
        # texts whose stored vector this ask read already (ask_opening): text -> vector, None when not stored
        self._ask_read: dict[str, np.ndarray | None] = {}

    def held(self, text: str) -> bool:
        """Whether ``text``'s vector is in the in-memory cache (no store read needed)."""
        with self._lock:
            return text in self._cache

    def store_query(self, text: str) -> tuple[str, tuple[str, str, str]] | None:
        """The statement and parameters that read ``text``'s stored vector (None without a store)."""
        return None if self.store is None else (_STORED_EMBEDDING, (self.model, text, text))

    def take_read(self, text: str, row: Any) -> None:
        """``row`` of :meth:`store_query`, read by this ask's opening round trip: the next call for
        ``text`` in this ask uses it instead of reading the store again (:meth:`end_ask` forgets it)."""
        self._ask_read[text] = None if row is None else _stored_vector(row[0])

    def end_ask(self) -> None:
        self._ask_read.clear()

    def _model_encode(self, texts: list[str]) -> np.ndarray:
        if self._encode is None:
            from example_bank.embedder import get_embedder

            self._encode = get_embedder(self.model).encode
        self.model_calls += 1
        return self._encode(texts)

    def __call__(self, texts: list[str]) -> np.ndarray:
        if len(texts) != 1:
            return self._model_encode(texts)
        key = texts[0]
        with self._lock:
            hit = self._cache.get(key)
            if hit is not None:
                self._cache.move_to_end(key)
                return hit[None, :]
        vector = self._ask_read.pop(key) if key in self._ask_read else self._from_store(key)
        if vector is None:
            vector = self._model_encode(texts)[0]  # the embedder owns torch's thread count
            self._to_store(key, vector)
        with self._lock:
            self._cache[key] = vector
            if len(self._cache) > self._size:
                self._cache.popitem(last=False)
        return vector[None, :]

    def _from_store(self, text: str) -> np.ndarray | None:
        if self.store is None:
            return None
        try:
            row = self.store.execute(_STORED_EMBEDDING, (self.model, text, text)).fetchone()
        except psycopg.Error:
            self._recover()
            return None
        if row is None:
            return None
        return _stored_vector(row[0])

    def _to_store(self, text: str, vector: np.ndarray) -> None:
        if self.store is None:
            return
        try:
            self.store.execute(
                "INSERT INTO sqlgenie.ask_embedding_cache (model, text_md5, text, embedding)"
                " VALUES (%s, md5(%s), %s, %s) ON CONFLICT DO NOTHING",
                (self.model, text, text, np.asarray(vector, dtype=np.float32)),
            )
            if not self.store.autocommit:
                self.store.commit()
        except psycopg.Error:
            self._recover()

    def _recover(self) -> None:
        if self.store is not None and not self.store.autocommit and not self.store.closed:
            self.store.rollback()


def _scoped_onboarded(schemas: Sequence[str] | None) -> Callable[[psycopg.Connection], set[str] | None]:
    """The retriever's table filter limited to ``schemas`` (None: every onboarded table)."""
    from example_bank.retrieval import onboarded_tables

    if schemas is None:
        return onboarded_tables
    wanted = [s for s in schemas]

    def provider(conn: psycopg.Connection) -> set[str] | None:
        if conn.execute("SELECT to_regclass('sqlgenie.catalog_tables') IS NULL").fetchone()[0]:
            return None
        rows = conn.execute(
            "SELECT schema_name, table_name FROM sqlgenie.catalog_tables WHERE schema_name = ANY(%s)", (wanted,)
        ).fetchall()
        if not rows:
            return None
        out = set()
        for schema, table in rows:
            out.add(f"{schema.lower()}.{table.lower()}")
            if schema.lower() == "public":
                out.add(table.lower())
        return out

    return provider


def load_value_columns(conn: psycopg.Connection, schemas: Sequence[str] | None = None,
                       max_values: int = 500_000) -> dict[str, set[str]]:
    """``lower(value) -> {"schema.table.column", ...}`` over the value cache (scoped)."""
    if conn.execute("SELECT to_regclass('sqlgenie.value_cache') IS NULL").fetchone()[0]:
        return {}
    rows = conn.execute(
        "SELECT lower(v.value), t.schema_name || '.' || t.table_name || '.' || c.column_name"
        " FROM sqlgenie.value_cache v JOIN sqlgenie.catalog_columns c ON c.id = v.column_id"
        " JOIN sqlgenie.catalog_tables t ON t.id = c.table_id"
        " WHERE (%(s)s::text[] IS NULL OR t.schema_name = ANY(%(s)s::text[]))"
        " ORDER BY v.frequency DESC LIMIT %(n)s",
        {"s": list(schemas) if schemas is not None else None, "n": max_values},
    ).fetchall()
    out: dict[str, set[str]] = {}
    for value, key in rows:
        if value:
            norm = " ".join(value.split())
            out.setdefault(norm, set()).add(key)
            bare = _bare(norm)
            if bare and bare != norm:  # 'the rise of the blue beetle!' is also found without its '!'
                out.setdefault(bare, set()).add(key)
    return out


def _bare(text: str) -> str:
    return " ".join("".join(ch if ch.isalnum() or ch.isspace() else " " for ch in text).split())


def scoped_value_lookup(index: dict[str, set[str]]) -> Callable[[str], object] | None:
    """A masking ``value_lookup`` over :func:`load_value_columns` (the first column, sorted)."""
    if not index:
        return None

    def lookup(text: str) -> str | None:
        found = index.get(" ".join(text.split()).lower())
        return min(found) if found else None

    return lookup


def scoped_vocabulary(conn: psycopg.Connection, schemas: Sequence[str]):
    """Schema words of the onboarded tables of ``schemas`` (masking vocabulary)."""
    from example_bank.masking import SchemaVocabulary

    names: list[str] = []
    for table, column, synonyms in conn.execute(
        "SELECT t.table_name, c.column_name, c.synonyms FROM sqlgenie.catalog_tables t"
        " JOIN sqlgenie.catalog_columns c ON c.table_id = t.id WHERE t.schema_name = ANY(%s)",
        (list(schemas),),
    ):
        names += [table, column, *(synonyms or [])]
    return SchemaVocabulary.from_names(names)


class Asker:
    """The ask service (see module doc). Not thread-safe: one per thread or a lock."""

    def __init__(
        self,
        settings: Settings | None = None,
        *,
        store: psycopg.Connection | None = None,
        target_url: str | None = None,
        schemas: Sequence[str] | None = None,
        search_path: Sequence[str] | None = None,
        provider: Any = "auto",
        encode: Callable[[list[str]], np.ndarray] | None = None,
        log: bool = True,
        log_kind: str = "ask",
        autocorrect: Any = None,
        min_confidence: float = MIN_CONFIDENCE,
        llm_fast_path: bool = True,
    ) -> None:
        from sqlgenie.store.connection import open_connection, store_url
        from sqlgenie.store.connection import target_url as default_target_url

        self.settings = settings or get_settings()
        self._own_store = store is None
        if store is None:
            from sqlgenie.store.migrations import ensure_migrated

            url = store_url(self.settings)
            ensure_migrated(url)
            store = open_connection(url, autocommit=True)
        self.store = store
        self.target_url = target_url or default_target_url(self.settings)
        self.schemas = list(schemas) if schemas is not None else None
        self.search_path = list(search_path) if search_path is not None else None
        self.log_enabled = log
        self.log_kind = log_kind
        self.min_confidence = min_confidence
        self.llm_fast_path = llm_fast_path
        self._autocorrect_override = autocorrect
        if provider == "auto":
            from sqlgenie.llm import get_provider

            try:
                provider = get_provider(self.settings)
            except LLMNotConfiguredError:
                provider = None
        self.provider = provider
        from pgvector.psycopg import register_vector

        register_vector(self.store)
        self.encode = _CachedEncoder(encode, self.settings.embedding_model, self.store if encode is None else None)
        self._target_conn: psycopg.Connection | None = None
        self._executor = None
        self._pruner = None
        self.refresh()

    # --- life cycle ---------------------------------------------------------------------

    @classmethod
    @contextmanager
    def open(cls, settings: Settings | None = None, **kwargs: Any) -> Iterator[Asker]:
        asker = cls(settings, **kwargs)
        try:
            yield asker
        finally:
            asker.close()

    def refresh(self) -> None:
        """(Re)load the catalog, the retriever's vocabulary and value index, and a new
        value matcher: call after onboarding or bank changes."""
        from example_bank.retrieval import Retriever
        from sqlgenie.autocorrect import AutocorrectSettings, PgValueMatcher
        from sqlgenie.catalog import load_catalog

        self.catalog = load_catalog(self.store, schemas=self.schemas,
                                    search_path=tuple(self.search_path or ("public",)))
        base = self._autocorrect_override or AutocorrectSettings.from_settings(self.settings)
        self.autocorrect = base
        self.matcher = PgValueMatcher(self.store, base)
        target = self._target() if not self.catalog.tables else None
        self.retriever = Retriever(
            self.store, target, encode=self.encode, threshold=self.settings.match_threshold,
            provider=_scoped_onboarded(self.schemas),
        )
        self.retriever.nearest = nearest_from_snapshot(self.retriever)  # the store outside an ask
        self.retriever.exact_matches = exact_from_snapshot(self.retriever)
        if self.schemas is not None and self.catalog.tables:
            self.retriever.vocabulary = scoped_vocabulary(self.store, self.schemas)
        self.value_index = load_value_columns(self.store, self.schemas)
        if self.schemas is not None:
            self.retriever.values = scoped_value_lookup(self.value_index)
        self._pruner = None

    def _target(self) -> psycopg.Connection | None:
        from sqlgenie.store.connection import open_connection, store_url

        if self._target_conn is None:
            if self.target_url == store_url(self.settings):
                return self.store
            self._target_conn = open_connection(self.target_url, autocommit=True)
        return self._target_conn

    @property
    def executor(self):
        if self._executor is None:
            from sqlgenie.executor import SafeExecutor

            self._executor = SafeExecutor(self.target_url, statement_timeout_ms=self.settings.statement_timeout_ms,
                                          row_cap=self.settings.row_cap, search_path=self.search_path)
        return self._executor

    @property
    def pruner(self):
        if self._pruner is None:
            from sqlgenie.inference.pruning import SchemaPruner

            self._pruner = SchemaPruner(self.catalog, value_matcher=self.matcher, settings=self.settings)
        return self._pruner

    def close(self) -> None:
        if self._executor is not None:
            self._executor.close()
            self._executor = None
        if self._target_conn is not None:
            self._target_conn.close()
            self._target_conn = None
        if self._own_store and not self.store.closed:
            self.store.close()

    def __enter__(self) -> Asker:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- helpers ------------------------------------------------------------------------

    def value_columns(self, text: str) -> set[str]:
        norm = " ".join(text.split()).lower()
        return self.value_index.get(norm) or self.value_index.get(_bare(norm), set())

    def _schema_word(self, word: str) -> bool:
        return word in self.retriever.vocabulary

    # --- ask ----------------------------------------------------------------------------

    def ask(
        self,
        question: str,
        *,
        route: str = "auto",
        execute: bool = True,
        limit: int | None = None,
        log: bool | None = None,
    ) -> AskResult:
        """Answer ``question`` (see module doc). Never raises for an unanswerable
        question or a failing query: the result says so (``status``)."""
        question = (question or "").strip()
        if not question:
            raise InputError("The question is empty.", hint='Ask something, e.g. sqlgenie ask "How many orders in 2024?"')
        requested = check_route(route)
        if limit is not None and limit <= 0:
            raise InputError(f"--limit must be positive, not {limit}.")
        clock = _Clock()
        result = AskResult(question=question, status="refused", route=None)
        with one_bank_stamp():  # the opening's bank version is this ask's stamp (ask_opening)
            with clock.stage("open"):  # one round trip: what retrieve and pending_review would read first
                opening = ask_opening.open_ask(self, question, pending=requested != "think")
            try:
                self._answer(result, clock, requested, execute, limit)
            except SqlGenieError as exc:
                result.status = "error"
                result.message = exc.message
                result.hint = exc.hint
                result.error = type(exc).__name__
                if not result.explanation:
                    result.explanation = f"Failed: {exc.message}"
            finally:
                self.encode.end_ask()
            if requested != "think":
                with clock.stage("pending_review"):
                    from sqlgenie.feedback.review import apply_pending

                    apply_pending(self, result, execute=execute, limit=limit, item=opening.pending)
        result.timings_ms = clock.timings
        result.total_ms = clock.total
        if self.log_enabled if log is None else log:
            with clock.stage("log"):
                result.id = self._record(result)
            result.timings_ms = clock.timings
            result.total_ms = clock.total  # the logged elapsed_ms excludes the log write itself
        return result

    def _answer(self, result: AskResult, clock: _Clock, requested: str, execute: bool, limit: int | None) -> None:
        with one_bank_stamp():  # one ask sees one bank: its stamp is read once, not by every per-bank cache
            self._answer_in_one_bank(result, clock, requested, execute, limit)

    def _answer_in_one_bank(self, result: AskResult, clock: _Clock, requested: str, execute: bool,
                            limit: int | None) -> None:
        with clock.stage("retrieve"):
            retrieval = self._retrieve(question := result.question, requested)
        matches = retrieval.matches
        result.masked_question = retrieval.masked.text
        result.examples = [example_summary(m) for m in matches]
        with clock.stage("route"):
            decision = decide_route(matches, self.settings.match_threshold, requested)
        result.decision = decision
        result.similarity = decision.similarity
        result.route = decision.route
        if decision.route == "think":
            if self.provider is not None:  # the think loop (issue 15): plan, generate, critic
                from sqlgenie.inference.think.route import answer_think

                answer_think(self, result, clock, matches, decision.reason, execute=execute, limit=limit)
                return
            self._think(result, matches, decision.reason)
            return

        use_llm = self.provider is not None
        adapted: AdaptedSQL | None = None
        chosen = None
        failures: list[str] = []
        if not use_llm or self.llm_fast_path:
            with clock.stage("adapt"):
                adapted, chosen, failures = self._adapt(retrieval, matches, decision)
            if use_llm and not (adapted is not None and adapted.ok and adapted.confidence >= 0.999
                                and decision.exact):
                adapted = None  # with an LLM, only an exact and complete adaptation skips the call
        if adapted is not None and adapted.ok:
            result.method = "adapt"
            result.example_id = chosen.example.id
            if all(e["id"] != chosen.example.id for e in result.examples):  # a deeper candidate (inference/deeper.py)
                result.examples.append(example_summary(chosen))
            result.similarity = float(chosen.score)
            result.confidence = adapted.confidence
            result.adaptation = adapted.to_dict()
            sql_in: Any = adapted.tree if adapted.substitutions and adapted.tree is not None else adapted.sql
            handed_over = sql_in is adapted.tree  # this ask's own adapted tree: nothing reads it after the chain
        elif use_llm:
            sql_in = self._generate(result, clock, retrieval, matches)
            handed_over = False
        else:
            self._think(result, matches, "the match route could not adapt the nearest examples",
                        adaptation_failed=True, details=failures)
            result.route = "think"
            return

        with clock.stage("autocorrect"):
            from sqlgenie.autocorrect import run_chain

            settings = self.autocorrect
            if limit is not None:
                settings = settings.model_copy(update={"default_limit": limit})
            if result.method == "adapt":  # the question's own value: a case variant is that value, not a list
                settings = settings.model_copy(update={"value_same_folded": True})
            matcher = self.matcher
            if result.method == "adapt":  # the question's value as the database stores it (precision rules)
                matcher = precision.pin_stored_values(matcher, adapted, self.executor, self.catalog)
            corrected = run_chain(sql_in, self.catalog, matcher, settings, question=question, owned=handed_over)
        result.sql = corrected.sql
        result.corrections = [c.to_dict() for c in corrected.changes]
        result.correction_errors = [e.to_dict() for e in corrected.errors]
        if adapted is not None and result.method == "adapt":
            with clock.stage("check"):
                missing = self._missing_values(adapted, corrected)
            if missing:
                self._think(result, [chosen], "the adapted query would filter on values the data does not have",
                            adaptation_failed=True, details=missing)
                result.sql = None
                result.route = "think"
                return
        if corrected.ast is None:
            err = corrected.errors[0] if corrected.errors else None
            result.status = "error"
            result.message = err.message if err else "The SQL could not be parsed."
            result.error = type(err).__name__ if err else "SQLSyntaxError"
            result.explanation = self._explain(result, chosen, adapted)
            return
        result.status = "ok"
        result.explanation = self._explain(result, chosen, adapted)
        if execute:
            with clock.stage("execute"):
                try:
                    run = self.executor.run(result.sql, row_cap=limit or None)
                except SQLError as exc:
                    result.status = "error"
                    result.message = exc.message
                    result.hint = exc.hint
                    result.error = type(exc).__name__
                    return
            result.executed = True
            result.columns = run.columns
            result.rows = run.rows
            result.row_count = len(run.rows)
            result.truncated = run.truncated

    def _retrieve(self, question: str, requested: str) -> Any:
        """Exact masked matches when there are any (no embedding needed), else the
        nearest examples whatever their score (the router applies T)."""
        from example_bank.retrieval import RetrievalResult
        from example_bank.store import ScoredExample

        started = time.perf_counter()
        r = self.retriever
        masked = r.mask(question)
        if requested != "think":
            exact = r.exact_matches(masked.key, allowed_tables=r.allowed, statuses=r.statuses, limit=RETRIEVE_K)
            if exact:
                return RetrievalResult(question, masked, 0.0, [ScoredExample(e, 1.0, exact=True) for e in exact],
                                       (time.perf_counter() - started) * 1000.0)
            return r.retrieve(question, k=RETRIEVE_K, threshold=0.0, exact=exact)  # none: not looked up twice
        return r.retrieve(question, k=RETRIEVE_K, threshold=0.0)

    # --- match route: deterministic --------------------------------------------------------

    def _adapt(self, retrieval: Any, matches: Sequence[Any], decision: RouteDecision, extend: bool = True
               ) -> tuple[AdaptedSQL | None, Any, list[str]]:
        """Adapt the best examples; refuse when the close ones disagree; when none verifies,
        the deeper candidates that fit (``extend``; :mod:`sqlgenie.inference.deeper`)."""
        threshold = self.settings.match_threshold
        best_score = matches[0].score
        forced = decision.requested == "match"
        pool = [m for m in matches if m.score >= threshold or forced][:ADAPT_CANDIDATES]  # top-k
        if forced and not pool:
            pool = matches[:1]
        new_masked = retrieval.masked
        outcomes: list[tuple[Any, AdaptedSQL]] = []
        failures: list[str] = []
        known_values = bank_values(self.retriever)  # constants of the bank's SQL (verify: values the example lacks)
        modifiers = precision.modifier_words(self.retriever, self.catalog)  # words the bank's SQL encodes as numbers
        grouped = groups.candidates(self.retriever, self.catalog, pool, new_masked)  # paraphrases of one query
        side_words = sides.value_sides(self.retriever, self.catalog)  # words the bank ties to one side of a join
        const_words = sides.constant_words(self.retriever, self.catalog)  # words the bank ties to constants
        place_words = other_query.value_places(self.retriever, self.catalog)  # words the bank ties to a column
        head_words = answer_words.answer_heads(self.retriever, self.catalog, self._schema_word)  # read lazily
        output_cols = answer_items.output_words(self.retriever)  # columns the bank returns for a word (lazily)
        roles = role_cues.role_cues(self.retriever, self.catalog)  # the roles the bank's words give (lazily)
        head_ties = head_reading.head_tables(self.retriever)  # tables the bank reads for a word (lazily)
        who_rows = head_reading.who_answers(self.retriever, self.catalog)  # what the bank answers "who" with
        wh_nouns = example_parts.wh_nouns(self.retriever, self.catalog, self._schema_word)  # per wh-noun (lazily)
        vetoed: list[tuple[Any, str | None]] = []  # refused by counterparts only: still vote on ties
        tied_words = word_constants.word_constants(self.retriever, self.catalog)  # words the bank writes as numbers
        free = lambda: free_words.free_words(self.retriever, self.catalog)  # noqa: E731 (read on first need)
        idle = lambda: idle_schema_words.idle_words(self.retriever, self.catalog, self._schema_word)  # noqa: E731
        years = lambda: relative_years.year_phrases(self.retriever, self.catalog)  # noqa: E731 (read on first need)
        exact_of: dict[int, bool] = {}  # per candidate: worded as the question (match_support)
        self.pool_verified = False  # atis19b (cue_reach): whether a candidate of this pool verified (or was vetoed)

        def verify(cand: Any, group: Any) -> tuple[AdaptedSQL, tuple[bool, str | None]]:
            """One candidate adapted and checked: (adapted, (verified before the veto rules, its SQL))."""
            ex = cand.example
            ex_masked = self.retriever.mask(ex.question)
            asked = between_ends.rewrite(ex_masked, new_masked)  # "between A and B" as "from A to B"
            own_directions = asked is new_masked
            asked = repeated_ends.rewrite(ex_masked, asked)  # atis17: "to X ... arriving in X" names X once
            ex_masked = between_ends.rewrite_example(ex_masked, asked)  # and the example's "between A and B"
            ex_sql, swapped = ex.sql, word_constants.rewrite(ex.sql, ex_masked, asked.text, tied_words, self.catalog)
            if swapped:  # "on wednesday" read as the question's "on friday", with the bank's constants
                ex_sql, ex_masked = swapped[0], swapped[1]
            exact = ex_masked.key == asked.key
            exact_of[ex.id] = exact
            license = None if exact or group is None else group.license(ex.id, asked.text)
            adapted = adapt_verified(  # adapt, then verify the structure (issue 13)
                ex_sql, ex_masked.text, ex_masked.spans, asked.text, asked.spans,
                question=retrieval.question, catalog=self.catalog, value_columns=self.value_columns, exact=exact,
                similarity=float(cand.score), schema_words=self._schema_word, known_values=known_values,
                group=license, own_directions=own_directions,  # "between" rewritten: no direction of its own
                word_ties=tied_words,  # implied constants a shared word carries (shared_constants)
                free=free,  # words no query needs are no wording of an implied constant (free_words, atis15)
                idle=idle,  # schema words the bank says and never reads ("term"): no schema change (cover19a)
                years=years,  # "this year" as the one year the bank writes for it (relative_years, cover19a)
            )
            precision.check_candidate(adapted, ex_masked.text, asked.text, asked.spans, retrieval.question,
                                      catalog=self.catalog, modifiers=modifiers, schema_word=self._schema_word)
            sides.check_candidate(adapted, ex_sql, ex_masked.text, ex_masked.spans, asked.text, asked.spans,
                                  retrieval.question, catalog=self.catalog, sides=side_words,
                                  schema_word=self._schema_word, constants=const_words)  # matchq's refusals
            example_parts.check_head(adapted, ex_masked.text, asked.text, catalog=self.catalog,
                                     schema_word=self._schema_word, heads=head_words)  # prec14: a plain failure
            before = (adapted.ok and adapted.confidence >= self.min_confidence, adapted.sql)
            counterparts.check_candidate(adapted, ex_sql, ex_masked.text, ex_masked.spans, asked.text,
                                         asked.spans, catalog=self.catalog, schema_word=self._schema_word,
                                         group=license, constants=const_words)  # matchs's refusals
            unasked_parts.check_candidate(adapted, ex_masked.text, ex_masked.spans, asked.text, asked.spans,
                                          schema_word=self._schema_word, catalog=self.catalog,
                                          group=license)  # what only the example asks (matchu)
            unclear_answers.check_candidate(adapted, asked.text, retrieval.question)  # spider9: "than any", SELECT *, listed items
            value_reading.check_candidate(adapted, ex.question, retrieval.question, self.retriever)  # 'DALLAS FORT WORTH'
            unread_words.check_candidate(adapted, asked.text, tied_words)  # "wednesday": a date the answer never reads
            other_query.check_candidate(adapted, ex_sql, ex_masked.text, ex_masked.spans, asked.text, asked.spans,
                                        catalog=self.catalog, group=license,
                                        columns=place_words, holders=self.value_columns)  # another query (matchw)
            answer_words.check_candidate(adapted, ex_masked.text, asked.text, catalog=self.catalog, group=license,
                                         schema_word=self._schema_word, heads=head_words)  # matchy
            read_apart.check_candidate(adapted, ex.question, retrieval.question, ex_masked.text, asked.text,
                                       retriever=self.retriever, catalog=self.catalog, group=license)  # matchz
            head_reading.check_candidate(adapted, ex_masked.text, asked.text, catalog=self.catalog, group=license,
                                         schema_word=self._schema_word, ties=head_ties, who=who_rows,
                                         new_spans=asked.spans)  # match12a
            example_parts.check_candidate(adapted, ex_masked.text, asked.text, catalog=self.catalog, group=license,
                                          schema_word=self._schema_word, modifiers=modifiers, nouns=wh_nouns,
                                          who=who_rows, new_spans=asked.spans)  # prec14
            unmet_words.check_candidate(adapted, ex_sql, ex.question, retrieval.question, ex_masked.text, asked.text,
                                        group=license, schema_word=self._schema_word, words=tied_words,
                                        catalog=self.catalog)  # prec16: count, spelling, asker, frame
            answer_items.check_candidate(adapted, ex_masked.text, asked.text, group=license, heads=head_words,
                                         catalog=self.catalog, schema_word=self._schema_word,
                                         words=output_cols)  # prec17
            asked_returns.check_candidate(adapted, ex_masked.text, asked.text, catalog=self.catalog,
                                          schema_word=self._schema_word)  # atis17: the asked thing is returned
            role_cues.check_candidate(adapted, ex_masked.text, ex_masked.spans, asked.text, asked.spans,
                                      catalog=self.catalog, model=roles)  # novel18: a value's role in a relation
            example_sides.check_candidate(adapted, retrieval.question)  # atis14c: "from X" bound as a destination
            number_place.check_candidate(adapted, retrieval.question)  # atis14c: "at 1524" bound as a flight number
            if swapped and adapted.ok:
                adapted.notes.extend(sw.note() for sw in swapped[2])
            return adapted, before

        deferred: list[tuple[int, Any, Any]] = []  # (place in failures, candidate, group): see complete()

        def may_tie(cand: Any) -> bool:
            """Whether ``cand`` could join the tie of the first verified candidate (the ``close`` test below)."""
            first = outcomes[0][0]
            return cand.score >= best_score - TIE_MARGIN and cand.score >= first.score - TIE_MARGIN

        def complete() -> list[str]:
            """``failures`` with the refusals of the candidates skipped as unable to tie, in their place:
            skipped only past a verified candidate and out of its tie, they cannot change the answer, only
            the reasons listed when it is refused (or by a caller, ``extend`` False)."""
            for place, cand, group in reversed(deferred):
                adapted, before = verify(cand, group)
                if before[0] and not adapted.ok:
                    continue  # vetoed: out of the tie, no vote
                if adapted.ok and adapted.confidence < self.min_confidence:
                    adapted.ok = False
                    adapted.unaccounted.append(f"confidence {adapted.confidence:.2f} < {self.min_confidence:.2f}")
                if not adapted.ok:
                    failures.insert(place, f"example #{cand.example.id}: " + "; ".join(adapted.unaccounted))
            deferred.clear()
            return failures

        for cand, group in grouped:
            if SKIP_UNTIED and outcomes and not may_tie(cand) and not match_support.dump_enabled():  # perf15: its
                # outcome cannot change the answer (the evidence dump counts every verified candidate)
                deferred.append((len(failures), cand, group))
                continue
            ex = cand.example
            adapted, before = verify(cand, group)
            if before[0] and not adapted.ok:  # they only refuse: never let a later candidate answer instead
                if not outcomes:
                    self.pool_verified = True
                    return None, None, failures + [f"example #{ex.id}: " + "; ".join(adapted.unaccounted)]
                vetoed.append((cand, before[1]))
                continue
            if adapted.ok and adapted.confidence < self.min_confidence:
                adapted.ok = False
                adapted.unaccounted.append(f"confidence {adapted.confidence:.2f} < {self.min_confidence:.2f}")
            if adapted.ok:
                outcomes.append((cand, adapted))
            else:
                failures.append(f"example #{ex.id}: " + "; ".join(adapted.unaccounted))
        if not outcomes:  # none verified: the nearest after refused exact matches, else the next that fit (issue 13)
            if not extend:
                return None, None, failures
            retried = beyond_exact.retry(self, retrieval, pool, decision, failures)
            if retried is not None:
                return match_support.mark_path(retried, "beyond_exact")
            return match_support.mark_path(deeper.fallback(self, retrieval, pool, decision, failures), "deeper")
        self.pool_verified = True
        self.pool_outcomes = outcomes  # atis19b (cue_reach.AGREE): the verified candidates of this pool
        cand, best = outcomes[0]
        close = [(c, a.sql) for c, a in outcomes[1:] if c.score >= best_score - TIE_MARGIN and c.score >= cand.score - TIE_MARGIN]
        close += [(c, sql) for c, sql in vetoed if c.score >= best_score - TIE_MARGIN and c.score >= cand.score - TIE_MARGIN]
        if close:
            from example_bank.skeleton import normalized_or_text as norm

            # the same text normalizes alike: normalized (a parse, a copy, a render) only when the texts differ (perf18)
            disagree = [c for c, sql in close if sql != best.sql and norm(sql) != norm(best.sql)
                        and not tie_spelling.same_query(best.sql, sql)]  # 'li dong' / 'Li Dong'
            if disagree:
                settled = tie_words.resolve(self, outcomes, close, new_masked.text,
                                            lambda a, b: norm(a) == norm(b) or tie_spelling.same_query(a, b))
                if settled is not None:  # the bank's groups show the word that separates the twins
                    settled[1].notes.append(settled[2])
                    if match_support.dump_enabled():
                        settled[1].evidence = match_support.features(
                            self, retrieval, new_masked, pool, grouped, outcomes, exact_of, vetoed, settled[0],
                            settled[1], "tie_words", known_values, tied_words)
                    return settled[1], settled[0], failures if extend else complete()
                ids = ", ".join(f"#{c.example.id}" for c in [cand, *disagree])
                complete().append(f"verified examples {ids} match equally well but give different SQL")
                return None, None, failures
        if match_support.dump_enabled():
            best.evidence = match_support.features(self, retrieval, new_masked, pool, grouped, outcomes, exact_of,
                                                   vetoed, cand, best, "top", known_values, tied_words)
        return best, cand, failures if extend else complete()  # answered: the asker reads no failures

    def _missing_values(self, adapted: AdaptedSQL, corrected: Any) -> list[str]:
        """Substituted text values that are not cached values of their column, that the
        value corrector left alone and that do not occur in the column at all."""
        from sqlglot import exp as sqlexp

        problems: list[str] = []
        changed = " ".join(c.before for c in corrected.changes)
        for sub in adapted.substitutions:
            if sub.verified is not False or not sub.column or sub.column.count(".") != 2:
                continue
            if sub.new in changed:
                continue  # the value corrector replaced it by cached values
            schema, table, column = sub.column.split(".")
            info = self.catalog.table(table, schema)
            if info is None or info.column(column) is None or info.column(column).family != "text":
                continue
            value = sub.new[1:-1].replace("''", "'") if sub.new.startswith("'") else sub.new
            col = sqlexp.column(column, quoted=True)
            cond = (sqlexp.ILike(this=col, expression=sqlexp.Literal.string(value)) if "LIKE" in sub.derivation
                    else sqlexp.EQ(this=col, expression=sqlexp.Literal.string(value)))
            probe = (sqlexp.select(sqlexp.Literal.number(1))
                     .from_(sqlexp.table_(table, db=schema, quoted=True)).where(cond).limit(1))
            try:
                found = self.executor.run(probe.sql(dialect="postgres"), row_cap=1).rows
            except SQLError:
                continue
            if not found:
                problems.append(f"{sub.question_text!r} does not occur in {sub.column} "
                                f"(the example had {sub.example_text!r})")
        return problems

    # --- match route: LLM -------------------------------------------------------------------

    def _generate(self, result: AskResult, clock: _Clock, retrieval: Any, matches: Sequence[Any]) -> str:
        from sqlgenie.inference.generate_llm import generate_match
        from sqlgenie.inference.instructions import load_instructions

        threshold = self.settings.match_threshold
        shown = [m for m in matches if m.score >= threshold] or list(matches[:1])
        with clock.stage("prune"):
            try:
                pruned = self.pruner.prune(
                    result.question,
                    example_tables=[t for m in shown for t in m.example.tables],
                    example_columns=[tuple(c.rsplit(".", 1)) for m in shown for c in m.example.columns if "." in c],
                )
                schema_text = pruned.render(self.catalog)
            except ImportError:  # pruning not installed: the whole catalog
                schema_text = _render_catalog(self.catalog)
        today = self.settings.now.date() if self.settings.now else None
        instructions = load_instructions(self.settings).text
        with clock.stage("generate"):
            generated = generate_match(self.provider, result.question, schema=schema_text, examples=shown,
                                       instructions=instructions, today=today)
        result.method = "llm"
        result.example_id = shown[0].example.id if shown else None
        result.llm = {"calls": generated.calls, "input_tokens": generated.input_tokens,
                      "output_tokens": generated.output_tokens, "latency_ms": round(generated.latency_ms, 1),
                      "examples": generated.examples, "prompt_chars": generated.prompt_chars}
        result.confidence = float(shown[0].score) if shown else None
        return generated.sql

    # --- think route ----------------------------------------------------------------------

    def _think(self, result: AskResult, matches: Sequence[Any], reason: str, *, adaptation_failed: bool = False,
               details: Sequence[str] = ()) -> None:
        answer = think_route(matches, reason=reason, llm_configured=self.provider is not None,
                             adaptation_failed=adaptation_failed, details=details)
        result.think = answer
        result.status = "refused"
        result.method = "think"
        result.message = answer.message
        result.hint = answer.hint
        result.explanation = f"{answer.message} ({answer.reason})"

    # --- explanation and log ----------------------------------------------------------------

    def _explain(self, result: AskResult, chosen: Any, adapted: AdaptedSQL | None) -> str:
        parts: list[str] = []
        if result.method == "adapt" and chosen is not None and adapted is not None:
            how = "same question template" if result.decision and result.decision.exact and chosen.score >= 0.999 \
                else f"similarity {chosen.score:.2f}"
            parts.append(f"Adapted verified example #{chosen.example.id} \u201c{chosen.example.question}\u201d ({how}).")
            if adapted.substitutions:
                subs = ", ".join(f"{s.old} \u2192 {s.new}" for s in adapted.substitutions)
                parts.append(f"Values replaced: {subs}.")
            else:
                parts.append("Its SQL answers this question as it is.")
            parts += [note[0].upper() + note[1:] + "." for note in adapted.notes if not note.startswith("wording")]
        elif result.method == "llm":
            n = len([e for e in result.llm.get("examples", []) if e is not None])
            parts.append(f"Generated by the LLM ({result.llm.get('calls', 0)} call) from {n} verified example(s)"
                         + (f", nearest #{result.example_id} at similarity {result.similarity:.2f}" if result.similarity is not None else "")
                         + ", and the pruned schema.")
        if result.corrections:
            parts.append("Autocorrected: " + "; ".join(c["reason"] for c in result.corrections) + ".")
        if result.confidence is not None:
            parts.append(f"Confidence {result.confidence:.2f}.")
        return " ".join(parts)

    def _record(self, result: AskResult) -> int | None:
        from sqlgenie.inference import query_log

        details = result.to_dict(max_rows=0)
        for key in ("rows", "sql", "question", "status", "route", "id"):
            details.pop(key, None)
        try:
            return query_log.record(
                self.store, kind=self.log_kind, question=result.question, sql=result.sql, route=result.route,
                status=result.status, error=result.message if result.status != "ok" else None,
                row_count=result.row_count, elapsed_ms=result.total_ms, llm_calls=int(result.llm.get("calls", 0)),
                input_tokens=int(result.llm.get("input_tokens", 0)), output_tokens=int(result.llm.get("output_tokens", 0)),
                example_id=result.example_id, similarity=result.similarity, confidence=result.confidence,
                details=details,
            )
        except psycopg.Error:
            if not self.store.autocommit:
                self.store.rollback()
            raise


def _render_catalog(catalog: Any) -> str:
    lines = []
    for t in catalog.tables:
        cols = ", ".join(f"{c.name} {c.data_type}" for c in t.columns)
        lines.append(f"{t.qualified}({cols})" + (f" PK({', '.join(t.primary_key)})" if t.primary_key else ""))
    return "\n".join(lines)


def ask_once(question: str, settings: Settings | None = None, **kwargs: Any) -> AskResult:
    """One-shot helper: open an Asker, ask, close."""
    ask_kwargs = {k: kwargs.pop(k) for k in ("route", "execute", "limit") if k in kwargs}
    with Asker.open(settings, **kwargs) as asker:
        return asker.ask(question, **ask_kwargs)
