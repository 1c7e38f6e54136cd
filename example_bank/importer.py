"""Adding examples to the bank: validation of one pair (``bank add``) and bulk
import of JSON / JSONL / CSV files (``bank import``) with dialect transpilation,
batched embedding and a report of rejected rows.

A pair is accepted when its SQL

1. parses in the given dialect (sqlglot) and transpiles to PostgreSQL,
2. passes the safe executor's allow-list (one read-only query),
3. uses only available tables (onboarded; while nothing is onboarded, existing on
   the target),
4. runs on the target as ``SELECT * FROM (<sql>) AS q LIMIT 0`` through the safe
   executor (catches unknown columns and type errors). Imports check a batch of
   statements at once with :meth:`SafeExecutor.plan_many` instead: PostgreSQL parses,
   analyses and plans each (``DECLARE CURSOR``, nothing fetched) in one read-only
   transaction, which finds the same errors; optional (``execute=False``).
"""

from __future__ import annotations

import csv
import io
import json
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Iterator

import numpy as np
import psycopg
from sqlglot import exp

from example_bank.masking import MaskedQuestion, SchemaVocabulary, mask_question
from example_bank.retrieval import (
    OnboardedTables,
    available_tables,
    embedding_text,
    load_value_index,
    onboarded_tables,
    schema_vocabulary,
    value_lookup,
)
from example_bank.skeleton import SQLAnalysis, analyze_sql, parse_sql
from example_bank.store import AddResult, BankStore, NewExample, check_source, check_status
from sqlgenie.errors import InputError, SQLSyntaxError, SqlGenieError, UnknownTableError

BULK_MIN_PAIRS = 5_000  # imports this large (and >= the bank) rebuild the HNSW index once
DIALECTS = ("postgres", "sqlite", "mysql", "bigquery", "snowflake", "duckdb", "tsql", "oracle", "spark", "trino",
            "redshift", "hive", "presto", "clickhouse", "databricks")


@dataclass
class Rejected:
    row: int  # 1-based row number in the file (data rows; header not counted)
    question: str
    sql: str
    reason: str
    error: str  # error class


@dataclass
class ImportReport:
    file: str
    rows: int = 0
    added: int = 0
    merged: int = 0
    rejected: list[Rejected] = field(default_factory=list)
    seconds: float = 0.0
    embedded_texts: int = 0

    @property
    def pairs_per_second(self) -> float:
        return round(self.rows / self.seconds, 1) if self.seconds else 0.0

    def summary(self) -> dict:
        return {
            "file": self.file,
            "rows": self.rows,
            "added": self.added,
            "merged": self.merged,
            "rejected": len(self.rejected),
            "embedded_texts": self.embedded_texts,
            "seconds": round(self.seconds, 2),
            "pairs_per_second": self.pairs_per_second,
            "rejected_rows": [r.__dict__ for r in self.rejected],
        }


# --------------------------------------------------------------------------- readers


def _pick(record: dict, *names: str) -> str | None:
    lowered = {str(k).strip().lower(): v for k, v in record.items()}
    for name in names:
        value = lowered.get(name)
        if value is not None:
            return str(value)
    return None


def _record(record: object) -> tuple[str, str]:
    if not isinstance(record, dict):
        return "", ""
    return (_pick(record, "question", "nl", "utterance") or "", _pick(record, "sql", "query", "gold_sql") or "")


def read_pairs(path: Path, fmt: str | None = None) -> Iterator[tuple[int, str, str]]:
    """(row number, question, sql) from a JSON list, JSONL or CSV file with columns
    ``question`` and ``sql`` (``query`` is accepted for ``sql``)."""
    path = Path(path)
    if not path.is_file():
        raise InputError(f"{path} does not exist.", hint="Give the path of a .json, .jsonl or .csv file.")
    kind = (fmt or path.suffix.lstrip(".")).lower()
    text = path.read_text(encoding="utf-8-sig")
    if kind in ("json",):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InputError(f"{path} is not valid JSON: {exc}", hint="Use a JSON list of objects, or JSONL.") from exc
        if isinstance(data, dict):
            data = data.get("examples") or data.get("pairs") or [data]
        if not isinstance(data, list):
            raise InputError(f"{path}: expected a JSON list of {{question, sql}} objects.")
        for i, rec in enumerate(data, 1):
            yield (i, *_record(rec))
    elif kind in ("jsonl", "ndjson"):
        for i, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
            except json.JSONDecodeError:
                yield i, "", f"\x00invalid JSON line: {line[:80]}"
                continue
            yield (i, *_record(rec))
    elif kind in ("csv", "tsv"):
        reader = csv.DictReader(io.StringIO(text), delimiter="\t" if kind == "tsv" else ",")
        fields = {f.strip().lower() for f in reader.fieldnames or []}
        if "question" not in fields or not fields & {"sql", "query"}:
            raise InputError(
                f"{path}: the CSV header must name columns 'question' and 'sql' (found: {sorted(fields)}).",
            )
        for i, rec in enumerate(reader, 1):
            yield (i, *_record(rec))
    else:
        raise InputError(f"Unknown file format '{kind}' for {path}.", hint="Use .json, .jsonl or .csv (or --format).")


# --------------------------------------------------------------------------- validation


@dataclass
class BankContext:
    """What validation and masking need from the store and the target (loaded once)."""

    store: psycopg.Connection
    target: psycopg.Connection | None
    target_url: str | None
    allowed: set[str] | None
    vocabulary: SchemaVocabulary
    values: Callable[[str], object] | None
    target_columns: set[str]
    executor: object | None = None

    @classmethod
    def load(
        cls,
        store: psycopg.Connection,
        target: psycopg.Connection | None,
        target_url: str | None = None,
        provider: OnboardedTables = onboarded_tables,
    ) -> "BankContext":
        columns: set[str] = set()
        if target is not None:
            columns = {
                r[0].lower()
                for r in target.execute(
                    "SELECT DISTINCT column_name FROM information_schema.columns"
                    " WHERE table_schema NOT IN ('pg_catalog', 'information_schema')"
                )
            }
        return cls(
            store=store,
            target=target,
            target_url=target_url,
            allowed=available_tables(store, target, provider),
            vocabulary=schema_vocabulary(store, target),
            values=value_lookup(load_value_index(store)),
            target_columns=columns,
        )

    def mask(self, question: str) -> MaskedQuestion:
        return mask_question(question, self.vocabulary, self.values)

    def safe_executor(self):
        """The safe executor on the target (opened on first use, closed by :meth:`close`)."""
        if self.executor is None:
            from sqlgenie.executor import SafeExecutor

            self.executor = SafeExecutor(self.target_url, statement_timeout_ms=10_000, row_cap=1)
        return self.executor

    def run_limit0(self, sql: str) -> None:
        if self.target_url is None:
            return
        probe = exp.select("*").from_(parse_sql(sql).subquery("q")).limit(0).sql(dialect="postgres")
        self.safe_executor().run(probe)

    def close(self) -> None:
        if self.executor is not None:
            self.executor.close()
            self.executor = None


def _check_inputs(question: str | None, sql: str | None) -> None:
    """What a pair needs before its SQL is parsed: a question and some SQL."""
    if not sql or not sql.strip():
        raise SQLSyntaxError("The SQL is empty.", sql=sql)
    if sql.startswith("\x00"):  # a reader's note about an unreadable row
        raise InputError(sql[1:])
    if not question or not question.strip():
        raise InputError("The question is empty.", hint="Give the natural-language question the SQL answers.")


def validate_pair(
    ctx: BankContext,
    question: str,
    sql: str,
    *,
    dialect: str = "postgres",
    execute: bool = True,
) -> SQLAnalysis:
    """Check one pair (see the module docstring); returns the analysis of its SQL or
    raises a typed error whose message says what is wrong."""
    _check_inputs(question, sql)
    analysis = analyze_sql(sql, dialect, known_columns=ctx.target_columns if dialect == "sqlite" else None)
    _static_check(ctx, analysis, allow_list=True)
    if execute:
        ctx.run_limit0(analysis.sql)
    return analysis


def _static_check(ctx: BankContext, analysis: SQLAnalysis, *, allow_list: bool) -> None:
    """The checks that need no database: the allow-list (unless the plan check runs it)
    and the available tables."""
    if allow_list:
        from sqlgenie.executor import validate_sql

        validate_sql(analysis.sql)
    if ctx.allowed is not None:
        missing = [t for t in analysis.tables if t not in ctx.allowed]
        if missing:
            raise UnknownTableError(
                f"The SQL uses table(s) not available on the target: {', '.join(missing)}.",
                hint="Onboard the table first (or check its name and schema); the bank only keeps "
                "examples whose tables are onboarded on the current target.",
            )


# --------------------------------------------------------------------------- adding


def _new_example(question: str, masked: MaskedQuestion, analysis: SQLAnalysis, vector, status, source, model):
    return NewExample(question.strip(), masked, analysis, vector, status=status, source=source, embedding_model=model)


def add_pair(
    ctx: BankContext,
    question: str,
    sql: str,
    *,
    encode: Callable[[list[str]], np.ndarray],
    dialect: str = "postgres",
    status: str = "verified",
    source: str = "user",
    model_name: str | None = None,
    execute: bool = True,
) -> tuple[AddResult, MaskedQuestion, SQLAnalysis]:
    check_status(status)
    check_source(source)
    analysis = validate_pair(ctx, question, sql, dialect=dialect, execute=execute)
    masked = ctx.mask(question.strip())
    vector = encode([embedding_text(masked)])[0]
    result = BankStore(ctx.store).add(_new_example(question, masked, analysis, vector, status, source, model_name))
    return result, masked, analysis


@dataclass
class _Row:
    row: int
    question: str
    sql: str
    masked: MaskedQuestion
    analysis: SQLAnalysis


def import_pairs(
    ctx: BankContext,
    pairs: Iterable[tuple[int, str, str]],
    *,
    encode: Callable[[list[str]], np.ndarray],
    dialect: str = "postgres",
    status: str = "verified",
    source: str = "import",
    model_name: str | None = None,
    execute: bool = True,
    batch_size: int = 512,
    file_name: str = "",
    progress: Callable[[int], None] | None = None,
    commit: bool = True,
    bulk_index: bool | None = None,
    on_phase: Callable[[str], None] | None = None,
) -> ImportReport:
    """Validate, mask, embed (unique masked texts only, in batches) and store pairs.
    Invalid rows are reported, never stored. Commits after each batch when ``commit``.

    Bulk loads (``bulk_index``; by default when committing at least
    :data:`BULK_MIN_PAIRS` pairs and no fewer than the bank holds) drop the HNSW index
    first and build it once at the end, also when the import fails: building it over
    N rows costs a fraction of N incremental insertions. Meanwhile retrieval is exact
    (a scan), so still correct; an import killed mid-way leaves the index to the next
    import or :meth:`BankStore.ensure_vector_index`. ``on_phase`` hears about that
    last step ("building the vector index").

    Per batch, the statements of new SQL skeletons are checked on the target together
    (:meth:`SafeExecutor.plan_many`: allow-list, then parsed, analysed and planned by
    PostgreSQL in one read-only transaction; statements differing only in literals
    are checked once); ``execute=False`` keeps the allow-list and table checks only."""
    check_status(status)
    check_source(source)
    if dialect not in DIALECTS:
        raise InputError(f"Unknown dialect '{dialect}'.", hint=f"Use one of: {', '.join(DIALECTS)}.")
    report = ImportReport(file=file_name)
    started = time.perf_counter()
    bank = BankStore(ctx.store)
    if commit:
        if bank.ensure_vector_index():  # left missing by an interrupted bulk import
            ctx.store.commit()
        pairs = pairs if isinstance(pairs, list) else list(pairs)
        if bulk_index is None:
            bulk_index = len(pairs) >= BULK_MIN_PAIRS and len(pairs) >= bank.count()
        if bulk_index:
            bank.drop_vector_index()
            ctx.store.commit()
    elif bulk_index:
        raise ValueError("bulk_index needs commit=True: the index is dropped and rebuilt in their own transactions")
    else:
        bulk_index = False
    plan_on_target = execute and ctx.target_url is not None
    analyses: dict[str, SQLAnalysis | Exception] = {}
    checked: dict[str, Exception | None] = {}  # by skeleton; absent: not checked on the target yet
    vectors: dict[str, np.ndarray] = {}
    pending: list[_Row] = []
    # Embedding (ONNX Runtime / torch release the GIL) of batch N overlaps parsing and
    # masking of batch N+1 in this thread; batch N is stored when batch N+1 is ready.
    pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="bank-embed")
    inflight: tuple[list[_Row], list[str], Future] | None = None

    def reject(item: _Row | tuple[int, str, str], exc: Exception) -> None:
        row, question, sql = (item.row, item.question, item.sql) if isinstance(item, _Row) else item
        message = exc.message if isinstance(exc, SqlGenieError) else str(exc)
        report.rejected.append(Rejected(row, question or "", sql or "", message, type(exc).__name__))
        if progress:
            progress(1)

    def check_on_target(batch: list[_Row]) -> list[_Row]:
        """Plan the batch's new skeletons on the target; keep the rows that pass."""
        if not plan_on_target:
            return batch
        new: dict[str, str] = {}
        for item in batch:
            if item.analysis.skeleton not in checked:
                new.setdefault(item.analysis.skeleton, item.analysis.sql)
        if new:
            for key, outcome in zip(new, ctx.safe_executor().plan_many(list(new.values()))):
                checked[key] = outcome
        kept = []
        for item in batch:
            error = checked[item.analysis.skeleton]
            if error is None:
                kept.append(item)
            else:
                reject(item, error)
        return kept

    def store_batch(batch: list[_Row], texts: list[str], future: Future) -> None:
        for text, vec in zip(texts, future.result()):
            vectors[text] = vec
        examples = [
            _new_example(r.question, r.masked, r.analysis, vectors[embedding_text(r.masked)], status, source, model_name)
            for r in batch
        ]
        for res in bank.add_many(examples):
            if res.merged:
                report.merged += 1
            else:
                report.added += 1
        if commit:
            ctx.store.commit()
        if progress:
            progress(len(batch))

    def flush(final: bool = False) -> None:
        nonlocal inflight
        batch = check_on_target(list(pending))
        pending.clear()
        texts: list[str] = []
        if batch:
            queued = inflight[1] if inflight else []
            texts = sorted({embedding_text(r.masked) for r in batch} - vectors.keys() - set(queued))
            report.embedded_texts += len(texts)
        future = pool.submit(encode, texts) if texts else None
        if inflight is not None:
            store_batch(*inflight)
            inflight = None
        if batch:
            if future is None:
                future = Future()
                future.set_result([])
            inflight = (batch, texts, future)
        if final and inflight is not None:
            store_batch(*inflight)
            inflight = None

    try:
        for row, question, sql in pairs:
            report.rows += 1
            try:
                _check_inputs(question, sql)
                key = f"{dialect}\x00{sql}"
                cached = analyses.get(key)
                if cached is None:
                    try:
                        cached = analyze_sql(
                            sql, dialect, known_columns=ctx.target_columns if dialect == "sqlite" else None
                        )
                        _static_check(ctx, cached, allow_list=not plan_on_target)
                    except Exception as exc:
                        cached = exc
                    analyses[key] = cached
                if isinstance(cached, Exception):
                    raise cached
                pending.append(_Row(row, question.strip(), sql, ctx.mask(question.strip()), cached))
            except Exception as exc:  # typed errors, and a bug or odd input must not stop a long import
                reject((row, question, sql), exc)
            if len(pending) >= batch_size:
                flush()
            if len(analyses) > 100_000:
                analyses.clear()
        flush(final=True)
    finally:
        pool.shutdown(wait=True)
        if bulk_index:
            if ctx.store.info.transaction_status == psycopg.pq.TransactionStatus.INERROR:
                ctx.store.rollback()
            if on_phase:
                on_phase("building the vector index")
            bank.ensure_vector_index()
            ctx.store.commit()
    report.rejected.sort(key=lambda r: r.row)
    report.seconds = time.perf_counter() - started
    return report


# --------------------------------------------------------------------------- export


def export_examples(store: BankStore, path: Path, *, status: str | None = None, fmt: str | None = None) -> int:
    """Write examples as JSON list, JSONL or CSV (by extension); importable again."""
    path = Path(path)
    kind = (fmt or path.suffix.lstrip(".") or "jsonl").lower()
    fields = ["id", "question", "sql", "status", "source", "masked_question", "skeleton", "tables",
              "use_count", "merge_count", "created_at"]

    def rows():
        for e in store.iter_all(status=status):
            yield {
                "id": e.id, "question": e.question, "sql": e.sql, "status": e.status, "source": e.source,
                "masked_question": e.masked_question, "skeleton": e.skeleton, "tables": e.tables,
                "use_count": e.use_count, "merge_count": e.merge_count,
                "created_at": e.created_at.isoformat() if e.created_at else None,
            }

    n = 0
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8", newline="") as fh:
        if kind == "json":
            fh.write("[\n")
            for rec in rows():
                fh.write((",\n" if n else "") + json.dumps(rec, ensure_ascii=False))
                n += 1
            fh.write("\n]\n")
        elif kind in ("jsonl", "ndjson"):
            for rec in rows():
                fh.write(json.dumps(rec, ensure_ascii=False) + "\n")
                n += 1
        elif kind == "csv":
            writer = csv.DictWriter(fh, fieldnames=fields)
            writer.writeheader()
            for rec in rows():
                rec["tables"] = " ".join(rec["tables"])
                writer.writerow(rec)
                n += 1
        else:
            raise InputError(f"Unknown export format '{kind}'.", hint="Use a .json, .jsonl or .csv file name.")
    return n
