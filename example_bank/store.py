"""Persistence of the example bank in ``sqlgenie.bank_examples`` / ``bank_metrics``
(migration 0004) over psycopg 3, vectors through ``pgvector.psycopg``.

Duplicates (same masked question key and same normalised SQL) are merged: the row
keeps its first question and SQL, ``merge_count`` grows and a ``pending`` row
becomes ``verified`` when a verified duplicate arrives.
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass, field
from typing import Any, Iterable, Iterator, Sequence

import numpy as np
import psycopg
from pgvector.psycopg import register_vector
from psycopg import sql as pgsql

from example_bank.masking import MaskedQuestion, MaskedSpan
from example_bank.skeleton import Metric, SQLAnalysis
from sqlgenie.errors import InputError

STATUSES = ("verified", "pending", "disputed", "rejected")
SOURCES = ("import", "user", "critic", "feedback")
DEFAULT_EF_SEARCH = 100
VECTOR_INDEX = "bank_examples_embedding_idx"  # HNSW, cosine (migration 0004)


@dataclass
class NewExample:
    """An example ready to store (masked, analysed and embedded)."""

    question: str
    masked: MaskedQuestion
    analysis: SQLAnalysis
    embedding: np.ndarray
    status: str = "verified"
    source: str = "user"
    embedding_model: str | None = None
    details: dict[str, Any] = field(default_factory=dict)


@dataclass
class BankExample:
    id: int
    question: str
    masked_question: str
    sql: str
    status: str
    source: str
    tables: list[str]
    columns: list[str]
    skeleton: str
    sql_normalized: str
    use_count: int = 0
    merge_count: int = 0
    created_at: dt.datetime | None = None
    updated_at: dt.datetime | None = None
    last_used_at: dt.datetime | None = None
    spans: list[dict] = field(default_factory=list)
    metrics: list[Metric] = field(default_factory=list)


@dataclass
class AddResult:
    id: int
    merged: bool  # True: an existing duplicate absorbed it


@dataclass
class ScoredExample:
    example: BankExample
    score: float  # cosine similarity of masked embeddings (1.0 for an exact masked match)
    exact: bool = False


_COLUMNS = (
    "id, question, masked_question, sql, status, source, tables, columns, skeleton, sql_normalized,"
    " use_count, merge_count, created_at, updated_at, last_used_at, mask_spans"
)

_INSERT = """
INSERT INTO sqlgenie.bank_examples
    (question, masked_question, masked_key, mask_spans, sql, sql_normalized, skeleton, tables, columns,
     status, source, embedding, embedding_model, merge_count, details)
VALUES (%s, %s, %s, %s::jsonb, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s::jsonb)
ON CONFLICT (md5(masked_key), md5(sql_normalized)) DO UPDATE SET
    merge_count = sqlgenie.bank_examples.merge_count + 1 + EXCLUDED.merge_count,
    status = CASE WHEN sqlgenie.bank_examples.status = 'pending' AND EXCLUDED.status = 'verified'
                  THEN 'verified' ELSE sqlgenie.bank_examples.status END,
    updated_at = now()
RETURNING id, (xmax = 0) AS inserted
"""


def _row_to_example(row: Sequence[Any]) -> BankExample:
    return BankExample(
        id=row[0], question=row[1], masked_question=row[2], sql=row[3], status=row[4], source=row[5],
        tables=list(row[6] or []), columns=list(row[7] or []), skeleton=row[8], sql_normalized=row[9],
        use_count=row[10], merge_count=row[11], created_at=row[12], updated_at=row[13], last_used_at=row[14],
        spans=list(row[15] or []),
    )


def spans_json(spans: Iterable[MaskedSpan]) -> str:
    return json.dumps([{"start": s.start, "end": s.end, "text": s.text, "kind": s.kind} for s in spans])


def check_status(status: str) -> str:
    if status not in STATUSES:
        raise InputError(f"Unknown status '{status}'.", hint=f"Use one of: {', '.join(STATUSES)}.")
    return status


def check_source(source: str) -> str:
    if source not in SOURCES:
        raise InputError(f"Unknown source '{source}'.", hint=f"Use one of: {', '.join(SOURCES)}.")
    return source


class BankStore:
    """Bank operations on one store connection (the caller owns transactions)."""

    def __init__(self, conn: psycopg.Connection) -> None:
        self.conn = conn
        register_vector(conn)

    # --- writing -----------------------------------------------------------------

    def add(self, example: NewExample) -> AddResult:
        return self.add_many([example])[0]

    def add_many(self, examples: Sequence[NewExample]) -> list[AddResult]:
        """Insert examples, merging duplicates (also duplicates within ``examples``).
        Returns one result per input, in order."""
        if not examples:
            return []
        # Merge duplicates inside the batch first (ON CONFLICT may touch a row only once per statement).
        first: dict[tuple[str, str], int] = {}
        extra: dict[int, int] = {}
        slots: list[int] = []
        for i, ex in enumerate(examples):
            check_status(ex.status)
            check_source(ex.source)
            key = (ex.masked.key, ex.analysis.normalized)
            if key in first:
                extra[first[key]] = extra.get(first[key], 0) + 1
            else:
                first[key] = i
            slots.append(first[key])
        unique = sorted(first.values())
        params = []
        for i in unique:
            ex = examples[i]
            params.append((
                ex.question, ex.masked.text, ex.masked.key, spans_json(ex.masked.spans), ex.analysis.sql,
                ex.analysis.normalized, ex.analysis.skeleton, ex.analysis.tables, ex.analysis.columns,
                ex.status, ex.source, np.asarray(ex.embedding, dtype=np.float32), ex.embedding_model,
                extra.get(i, 0), json.dumps(ex.details),
            ))
        results: dict[int, AddResult] = {}
        with self.conn.cursor() as cur:
            cur.executemany(_INSERT, params, returning=True)
            for i in unique:
                row = cur.fetchone()
                results[i] = AddResult(id=row[0], merged=not row[1])
                cur.nextset()
            metric_rows = [
                (results[i].id, m.metric, m.formula, m.columns)
                for i in unique
                if not results[i].merged
                for m in examples[i].analysis.metrics
            ]
            if metric_rows:
                cur.executemany(
                    "INSERT INTO sqlgenie.bank_metrics (example_id, metric, formula, columns)"
                    " VALUES (%s, %s, %s, %s) ON CONFLICT DO NOTHING",
                    metric_rows,
                )
        return [results[slot] if i == slot else AddResult(results[slot].id, merged=True) for i, slot in enumerate(slots)]

    def remove(self, example_id: int) -> bool:
        cur = self.conn.execute("DELETE FROM sqlgenie.bank_examples WHERE id = %s", (example_id,))
        return cur.rowcount > 0

    def set_status(self, example_id: int, status: str) -> bool:
        cur = self.conn.execute(
            "UPDATE sqlgenie.bank_examples SET status = %s, updated_at = now() WHERE id = %s",
            (check_status(status), example_id),
        )
        return cur.rowcount > 0

    def mark_used(self, ids: Iterable[int]) -> None:
        ids = list(ids)
        if ids:
            self.conn.execute(
                "UPDATE sqlgenie.bank_examples SET use_count = use_count + 1, last_used_at = now()"
                " WHERE id = ANY(%s)",
                (ids,),
            )

    # --- reading -----------------------------------------------------------------

    def get(self, example_id: int) -> BankExample | None:
        row = self.conn.execute(
            pgsql.SQL("SELECT {} FROM sqlgenie.bank_examples WHERE id = %s").format(pgsql.SQL(_COLUMNS)),
            (example_id,),
        ).fetchone()
        if row is None:
            return None
        example = _row_to_example(row)
        example.metrics = [
            Metric(r[0], r[1], list(r[2] or []))
            for r in self.conn.execute(
                "SELECT metric, formula, columns FROM sqlgenie.bank_metrics WHERE example_id = %s ORDER BY id",
                (example_id,),
            )
        ]
        return example

    # --- the HNSW index (bulk imports build it once instead of row by row) ---------

    def vector_index_exists(self) -> bool:
        return self.conn.execute("SELECT to_regclass(%s) IS NOT NULL", (f"sqlgenie.{VECTOR_INDEX}",)).fetchone()[0]

    def drop_vector_index(self) -> None:
        """Drop the HNSW index (bulk load); retrieval stays correct without it (exact
        scan), only slower. The caller commits."""
        self.conn.execute(pgsql.SQL("DROP INDEX IF EXISTS sqlgenie.{}").format(pgsql.Identifier(VECTOR_INDEX)))

    def ensure_vector_index(self, *, maintenance_work_mem: str = "512MB") -> bool:
        """Create the HNSW index when it is missing (after a bulk load, or one that was
        interrupted); returns True when it had to be built. The caller commits."""
        if self.vector_index_exists():
            return False
        self.conn.execute("SELECT set_config('maintenance_work_mem', %s, true)", (maintenance_work_mem,))
        self.conn.execute(
            pgsql.SQL("CREATE INDEX IF NOT EXISTS {} ON sqlgenie.bank_examples USING hnsw (embedding vector_cosine_ops)")
            .format(pgsql.Identifier(VECTOR_INDEX))
        )
        return True

    def count(self, *, status: str | None = None) -> int:
        if status:
            return self.conn.execute(
                "SELECT count(*) FROM sqlgenie.bank_examples WHERE status = %s", (status,)
            ).fetchone()[0]
        return self.conn.execute("SELECT count(*) FROM sqlgenie.bank_examples").fetchone()[0]

    def list(
        self,
        *,
        status: str | None = None,
        source: str | None = None,
        table: str | None = None,
        limit: int | None = 50,
        offset: int = 0,
    ) -> list[BankExample]:
        where, params = self._filters(status, source, table)
        query = pgsql.SQL("SELECT {} FROM sqlgenie.bank_examples {} ORDER BY id LIMIT %s OFFSET %s").format(
            pgsql.SQL(_COLUMNS), where
        )
        rows = self.conn.execute(query, [*params, limit, offset]).fetchall()
        return [_row_to_example(r) for r in rows]

    def iter_all(self, *, status: str | None = None, batch: int = 2000) -> Iterator[BankExample]:
        """All examples in id order (keyset pagination; for export)."""
        last = 0
        while True:
            where, params = self._filters(status, None, None, extra="id > %s")
            rows = self.conn.execute(
                pgsql.SQL("SELECT {} FROM sqlgenie.bank_examples {} ORDER BY id LIMIT %s").format(
                    pgsql.SQL(_COLUMNS), where
                ),
                [*params, last, batch],
            ).fetchall()
            if not rows:
                return
            for r in rows:
                yield _row_to_example(r)
            last = rows[-1][0]

    @staticmethod
    def _filters(status, source, table, extra: str | None = None):
        clauses: list[pgsql.Composable] = []
        params: list[Any] = []
        if status:
            clauses.append(pgsql.SQL("status = %s"))
            params.append(check_status(status))
        if source:
            clauses.append(pgsql.SQL("source = %s"))
            params.append(check_source(source))
        if table:
            clauses.append(pgsql.SQL("tables @> %s"))
            params.append([table.lower()])
        if extra:
            clauses.append(pgsql.SQL(extra))
        if not clauses:
            return pgsql.SQL(""), params
        return pgsql.SQL("WHERE ") + pgsql.SQL(" AND ").join(clauses), params

    # --- retrieval -----------------------------------------------------------------

    def exact_matches(
        self,
        masked_key: str,
        *,
        allowed_tables: Iterable[str] | None,
        statuses: Sequence[str] = ("verified",),
        limit: int = 5,
    ) -> list[BankExample]:
        """Examples whose masked question equals ``masked_key`` (most used first)."""
        query = pgsql.SQL(
            "SELECT {} FROM sqlgenie.bank_examples WHERE md5(masked_key) = md5(%s) AND masked_key = %s"
            " AND status = ANY(%s) {} ORDER BY use_count DESC, merge_count DESC, id LIMIT %s"
        ).format(pgsql.SQL(_COLUMNS), pgsql.SQL("AND tables <@ %s" if allowed_tables is not None else ""))
        params: list[Any] = [masked_key, masked_key, list(statuses)]
        if allowed_tables is not None:
            params.append(sorted(allowed_tables))
        params.append(limit)
        return [_row_to_example(r) for r in self.conn.execute(query, params)]

    def nearest(
        self,
        embedding: np.ndarray,
        *,
        k: int = 5,
        allowed_tables: Iterable[str] | None,
        statuses: Sequence[str] = ("verified",),
        ef_search: int = DEFAULT_EF_SEARCH,
        exact: bool = False,
    ) -> list[ScoredExample]:
        """Top ``k`` by cosine similarity through the HNSW index (``exact=True``: a
        sequential scan, for recall measurements). Filters are applied inside the index
        scan (pgvector iterative scan), so ``k`` results come back when they exist."""
        vector = np.asarray(embedding, dtype=np.float32)
        filters = pgsql.SQL("status = ANY(%s)")
        params: list[Any] = [vector, list(statuses)]
        if allowed_tables is not None:
            filters += pgsql.SQL(" AND tables <@ %s")
            params.append(sorted(allowed_tables))
        params += [vector, k]
        query = pgsql.SQL(
            "SELECT {}, 1 - (embedding <=> %s) AS score FROM sqlgenie.bank_examples WHERE {}"
            " ORDER BY embedding <=> %s LIMIT %s"
        ).format(pgsql.SQL(_COLUMNS), filters)
        # Settings are transaction-local and set on every call (an earlier exact=True call in
        # the same transaction must not leave index scans disabled); one round trip.
        settings = (
            ("enable_indexscan", "off" if exact else "on"),
            ("hnsw.ef_search", str(max(int(ef_search), k))),
            ("hnsw.iterative_scan", "relaxed_order"),
        )
        with self.conn.transaction():
            self.conn.execute(
                "SELECT " + ", ".join(["set_config(%s, %s, true)"] * len(settings)),
                [v for pair in settings for v in pair],
            )
            rows = self.conn.execute(query, params).fetchall()
        out = [ScoredExample(_row_to_example(r[:-1]), float(r[-1])) for r in rows]
        out.sort(key=lambda s: -s.score)  # relaxed_order: re-sort the few rows returned
        return out
