"""The query log: every ask is recorded in ``sqlgenie.query_log`` (migrations 0001,
0006) and its id is shown to the user; feedback refers to it.

``kind`` is ``ask`` for user questions and ``eval`` for questions asked by
``sqlgenie eval bank`` (kept apart from the user's history). ``details`` (jsonb)
holds everything else of the answer: the examples with their similarity, the
adaptation, the corrections, the time per stage.

An entry is committed without waiting for its WAL flush (:data:`ASYNC_COMMIT`: ``SET LOCAL
synchronous_commit = off`` in its own transaction, one pipelined round trip) when the connection
is idle in autocommit: the flush (fdatasync) was about 3 ms of every ask. The entry is visible to
every session at once; an operating-system or server crash within a fraction of a second of the
ask can lose it (never a half-written one). Inside a caller's transaction nothing changes.
Off by default (lead, session 16): feedback refers to the entry's id, and an analyst's tool should not
answer with an id it may lose; turn it on where the log is only a trace.
"""

from __future__ import annotations

import json
from typing import Any

import psycopg
from psycopg.pq import TransactionStatus

#: Off: every entry waits for its WAL flush, as the server's ``synchronous_commit`` says.
ASYNC_COMMIT = False

_INSERT = """
INSERT INTO sqlgenie.query_log
    (kind, question, sql, route, status, error, row_count, elapsed_ms, llm_calls, input_tokens, output_tokens,
     example_id, similarity, confidence, details)
VALUES (%(kind)s, %(question)s, %(sql)s, %(route)s, %(status)s, %(error)s, %(row_count)s, %(elapsed_ms)s,
        %(llm_calls)s, %(input_tokens)s, %(output_tokens)s, %(example_id)s, %(similarity)s, %(confidence)s,
        %(details)s::jsonb)
RETURNING id
"""

_COLUMNS = ("id", "created_at", "kind", "question", "sql", "route", "status", "error", "row_count", "elapsed_ms",
            "llm_calls", "input_tokens", "output_tokens", "example_id", "similarity", "confidence", "details")


def record(
    conn: psycopg.Connection,
    *,
    question: str,
    status: str,
    kind: str = "ask",
    sql: str | None = None,
    route: str | None = None,
    error: str | None = None,
    row_count: int | None = None,
    elapsed_ms: float | None = None,
    llm_calls: int = 0,
    input_tokens: int = 0,
    output_tokens: int = 0,
    example_id: int | None = None,
    similarity: float | None = None,
    confidence: float | None = None,
    details: dict[str, Any] | None = None,
) -> int:
    """Insert one entry and return its id (commits when ``conn`` is not autocommit)."""
    params = {
        "kind": kind, "question": question, "sql": sql, "route": route, "status": status, "error": error,
        "row_count": row_count, "elapsed_ms": elapsed_ms, "llm_calls": llm_calls, "input_tokens": input_tokens,
        "output_tokens": output_tokens, "example_id": example_id, "similarity": similarity,
        "confidence": confidence, "details": json.dumps(details or {}, default=str, ensure_ascii=False),
    }
    if ASYNC_COMMIT and conn.autocommit and conn.info.transaction_status == TransactionStatus.IDLE:
        with conn.pipeline(), conn.transaction():  # BEGIN, SET LOCAL, INSERT, COMMIT: one round trip
            conn.execute("SET LOCAL synchronous_commit = off")
            cursor = conn.execute(_INSERT, params)
        row = cursor.fetchone()
    else:
        row = conn.execute(_INSERT, params).fetchone()
        if not conn.autocommit:
            conn.commit()
    return int(row[0])


def get(conn: psycopg.Connection, entry_id: int) -> dict[str, Any] | None:
    row = conn.execute(
        f"SELECT {', '.join(_COLUMNS)} FROM sqlgenie.query_log WHERE id = %s", (entry_id,)
    ).fetchone()
    return dict(zip(_COLUMNS, row)) if row else None


def recent(conn: psycopg.Connection, *, limit: int = 20, kind: str | None = "ask") -> list[dict[str, Any]]:
    rows = conn.execute(
        f"SELECT {', '.join(_COLUMNS)} FROM sqlgenie.query_log"
        " WHERE (%(kind)s::text IS NULL OR kind = %(kind)s) ORDER BY id DESC LIMIT %(limit)s",
        {"kind": kind, "limit": limit},
    ).fetchall()
    return [dict(zip(_COLUMNS, r)) for r in rows]
