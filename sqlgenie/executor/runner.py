"""The safe executor: the only way generated SQL reaches a database.

Every run:

1. :func:`~sqlgenie.executor.safety.check_sql` parses and allow-lists the SQL.
2. On one reused connection (autocommit off at the protocol level: the executor
   sends ``BEGIN READ ONLY`` itself) it sets ``SET LOCAL statement_timeout``,
   ``search_path`` (quoted with :class:`psycopg.sql.Identifier`),
   ``standard_conforming_strings = on`` (so PostgreSQL reads strings exactly as the
   validator did) and ``cursor_tuple_fraction = 1`` (same plans as a plain query).
3. It runs the user's **original text** (not a sqlglot regeneration, which could
   drift) as ``DECLARE ... NO SCROLL CURSOR FOR <sql>`` over the extended protocol:
   PostgreSQL itself then refuses anything that is not a single SELECT/VALUES
   (no second statement, no data-modifying WITH) even if the validator were fooled.
4. It fetches at most ``row_cap + 1`` rows (``truncated`` tells whether more existed)
   and **always** rolls back, on success too.

:meth:`SafeExecutor.run` sends steps 2-4 (``BEGIN READ ONLY``, the ``SET LOCAL`` statements,
``DECLARE``, ``FETCH FORWARD cap + 1``, ``ROLLBACK``) as separate extended-protocol
statements in **one psycopg pipeline** ending in one Sync: one round trip instead of
five (setup, DECLARE, Describe, FETCH, ROLLBACK). The server still runs them one by
one, in order, each with its own statement timeout; an error aborts the rest of the
pipeline (PostgreSQL skips every later message up to the Sync), the transaction is
then rolled back with a separate ``ROLLBACK``. A query is never sent twice: the
reconnect-once rule needs to know the query did not run, so when the idle
connection has unread input (a backend terminated while idle sends its FATAL
message then) the run takes the step-by-step path, whose separate setup round trip
detects the dead connection and reconnects before the query is sent.
"""

from __future__ import annotations

import select
import threading
import time
from collections import deque
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import psycopg
from psycopg import sql as pgsql
from psycopg.pq import TransactionStatus

from sqlgenie.errors import DatabaseConnectionError
from sqlgenie.executor.errors import map_db_error
from sqlgenie.executor.safety import check_sql

__all__ = ["QueryResult", "SafeExecutor"]

_CURSOR_NAME = "sqlgenie_query"


@dataclass
class QueryResult:
    """Rows of one query. ``rows`` holds at most the row cap; ``truncated`` is True
    when the query had more. ``elapsed_ms`` covers running the query and fetching (for
    a pipelined run, the one round trip, which also holds the setup and the ROLLBACK)."""

    sql: str
    columns: list[str]
    rows: list[tuple] = field(default_factory=list)
    truncated: bool = False
    elapsed_ms: float = 0.0


SearchPath = str | Sequence[str] | None


class SafeExecutor:
    """Runs validated, read-only SQL on one lazily opened, reused connection.

    Example::

        with SafeExecutor.from_settings() as ex:
            result = ex.run("SELECT count(*) FROM orders", timeout_ms=2000)

    Thread-safe (runs are serialized on the single connection).
    """

    def __init__(
        self,
        url: str,
        *,
        statement_timeout_ms: int = 30_000,
        row_cap: int = 10_000,
        search_path: SearchPath = None,
        pipeline: bool = True,
    ) -> None:
        self.url = url
        self.statement_timeout_ms = _positive("statement_timeout_ms", statement_timeout_ms)
        self.row_cap = _positive("row_cap", row_cap)
        self.search_path = search_path
        # One round trip per run (psycopg pipeline mode, libpq >= 14); False sends the
        # statements one by one (the A/B in scripts/bench_executor.py, old libpq).
        self.pipeline = bool(pipeline) and psycopg.Pipeline.is_supported()
        self.pipelined_runs = 0  # runs sent as one pipeline (observability, tests)
        self._conn: psycopg.Connection | None = None
        self._lock = threading.RLock()
        self.connects = 0  # how many connections were opened (observability, tests)

    @classmethod
    def from_settings(cls, settings: Any = None, **overrides: Any) -> SafeExecutor:
        """An executor on the target database (``SQLGENIE_TARGET_DATABASE_URL``, else
        the store) with ``statement_timeout_ms`` and ``row_cap`` from settings;
        keyword ``overrides`` (including ``url``) win."""
        from sqlgenie.config import get_settings

        settings = settings or get_settings()
        url = overrides.pop("url", None)
        if url is None:
            from sqlgenie.store.connection import target_url

            url = target_url(settings)
        kwargs: dict[str, Any] = {
            "statement_timeout_ms": settings.statement_timeout_ms,
            "row_cap": settings.row_cap,
        }
        kwargs.update(overrides)
        return cls(url, **kwargs)

    # --- public API ---------------------------------------------------------------

    def run(
        self,
        sql: str,
        *,
        timeout_ms: int | None = None,
        row_cap: int | None = None,
        search_path: SearchPath = None,
    ) -> QueryResult:
        """Validate and run one read-only query; return at most ``row_cap`` rows.

        Raises UnsafeSQLError / SQLSyntaxError (validation), UnknownIdentifierError,
        QueryTimeoutError, QueryExecutionError, DatabaseConnectionError.
        """
        checked = check_sql(sql)
        return self._execute(checked.text, timeout_ms=timeout_ms, row_cap=row_cap, search_path=search_path)

    def plan_many(
        self, sqls: Sequence[str], *, timeout_ms: int | None = None, search_path: SearchPath = None
    ) -> list[Exception | None]:
        """Check many queries without running them: each is validated (allow-list) and
        then parsed, analysed and planned by PostgreSQL as ``DECLARE ... CURSOR FOR
        <sql>`` (nothing is fetched), all in one ``READ ONLY`` transaction that is
        rolled back (restarted after a failing query). Returns, per query, ``None`` or
        the typed error it raised (unknown column, type mismatch, unsafe SQL...)."""
        timeout = _positive("timeout_ms", timeout_ms) if timeout_ms is not None else self.statement_timeout_ms
        outcomes: list[Exception | None] = [None] * len(sqls)
        texts: dict[int, str] = {}
        for i, sql in enumerate(sqls):
            try:
                texts[i] = check_sql(sql).text
            except Exception as exc:  # SqlGenieError, TypeError on non-strings
                outcomes[i] = exc
        pending = deque(texts)
        while pending:
            with self._transaction(timeout, search_path) as conn:
                while pending:
                    i = pending.popleft()
                    declare = pgsql.SQL("DECLARE {} NO SCROLL CURSOR FOR ").format(pgsql.Identifier(f"sqlgenie_plan_{i}"))
                    try:
                        conn.execute(declare + pgsql.SQL(texts[i]), binary=True)  # type: ignore[arg-type]
                    except psycopg.Error as exc:
                        outcomes[i] = map_db_error(exc, sql=texts[i], timeout_ms=timeout, broken=conn.broken)
                        break  # the transaction is aborted: roll back, go on in a new one
        return outcomes

    def explain(self, sql: str, *, timeout_ms: int | None = None, search_path: SearchPath = None) -> dict:
        """Plain ``EXPLAIN (FORMAT JSON)`` (never ANALYZE: the query is planned, not run)
        with the same validation and transaction as :meth:`run`. Returns the plan
        object, e.g. ``plan["Plan"]["Total Cost"]``."""
        text = check_sql(sql).text
        timeout = _positive("timeout_ms", timeout_ms) if timeout_ms is not None else self.statement_timeout_ms
        query = pgsql.SQL("EXPLAIN (FORMAT JSON) ") + pgsql.SQL(text)  # type: ignore[arg-type]
        with self._transaction(timeout, search_path) as conn:
            try:
                # binary=True forces the extended protocol: one statement only.
                row = conn.execute(query, binary=True).fetchone()
            except psycopg.Error as exc:
                raise map_db_error(exc, sql=text, timeout_ms=timeout, broken=conn.broken) from exc
        plan = row[0] if row else None
        if isinstance(plan, str):  # pragma: no cover - json loaders return objects
            import json

            plan = json.loads(plan)
        return plan[0] if isinstance(plan, list) and plan else (plan or {})

    def close(self) -> None:
        """Close the connection (the next run opens a new one)."""
        with self._lock:
            conn, self._conn = self._conn, None
            if conn is not None and not conn.closed:
                conn.close()

    def __enter__(self) -> SafeExecutor:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __del__(self) -> None:  # best effort; prefer close() / with
        try:
            conn = self._conn
            if conn is not None and not conn.closed:
                conn.close()
        except Exception:
            pass

    # --- internals ----------------------------------------------------------------

    def _execute(
        self,
        text: str,
        *,
        timeout_ms: int | None = None,
        row_cap: int | None = None,
        search_path: SearchPath = None,
    ) -> QueryResult:
        """Run ``text`` WITHOUT validation (callers validate first; tests use this to
        show the database-side guards on their own)."""
        timeout = _positive("timeout_ms", timeout_ms) if timeout_ms is not None else self.statement_timeout_ms
        cap = _positive("row_cap", row_cap) if row_cap is not None else self.row_cap
        if self.pipeline:
            with self._lock:
                conn = self._connection()
                if _idle_and_quiet(conn):
                    return self._execute_pipelined(conn, text, timeout, cap, search_path)
        with self._transaction(timeout, search_path) as conn:
            cursor = conn.cursor(name=_CURSOR_NAME, scrollable=False, withhold=False)
            start = time.perf_counter()
            try:
                cursor.execute(pgsql.SQL(text))  # type: ignore[arg-type]  # DECLARE ... CURSOR FOR <text>
                columns = [col.name for col in cursor.description or []]
                rows = cursor.fetchmany(cap + 1)
            except psycopg.Error as exc:
                raise map_db_error(exc, sql=text, timeout_ms=timeout, broken=conn.broken) from exc
            elapsed = (time.perf_counter() - start) * 1000.0
        truncated = len(rows) > cap
        return QueryResult(
            sql=text, columns=columns, rows=[tuple(r) for r in rows[:cap]], truncated=truncated, elapsed_ms=elapsed
        )

    def _execute_pipelined(
        self, conn: psycopg.Connection, text: str, timeout: int, cap: int, search_path: SearchPath
    ) -> QueryResult:
        """The whole run in one pipeline (one Sync, one round trip). Called with the
        lock held, on an idle connection with no unread input."""
        path = search_path if search_path is not None else self.search_path
        name = pgsql.Identifier(_CURSOR_NAME)
        declare = pgsql.SQL("DECLARE {} NO SCROLL CURSOR FOR ").format(name) + pgsql.SQL(text)  # type: ignore[arg-type]
        fetch = pgsql.SQL("FETCH FORWARD {} FROM {}").format(pgsql.Literal(cap + 1), name)
        start = time.perf_counter()
        error: psycopg.Error | None = None
        try:
            # Leaving the block sends the one Sync and reads every result (attached to
            # `cursor`); an explicit sync() inside would cost a second round trip.
            with conn.pipeline():
                try:
                    # Executor-built statements only around the one user statement; each
                    # is its own extended-protocol message (no multi-statement strings).
                    for statement, params in self._pipeline_setup(timeout, path):
                        conn.execute(statement, params)
                    conn.execute(declare)
                    cursor = conn.cursor()
                    cursor.execute(fetch)
                    conn.execute("ROLLBACK")
                except psycopg.Error as exc:
                    # Raised early when psycopg read an error result while sending; the
                    # exit below still syncs and drains the skipped statements.
                    error = exc
        except psycopg.Error as exc:
            # Results are processed in order, so the first error raised is the statement
            # that failed; the later ones were skipped by the server (PipelineAborted).
            error = error or exc
        finally:
            self._rollback(conn)  # no round trip when the pipeline's ROLLBACK ran
        if error is not None:
            raise map_db_error(error, sql=text, timeout_ms=timeout, broken=conn.broken) from error
        columns = [col.name for col in cursor.description or []]
        rows = cursor.fetchall()
        elapsed = (time.perf_counter() - start) * 1000.0
        self.pipelined_runs += 1
        truncated = len(rows) > cap
        return QueryResult(
            sql=text, columns=columns, rows=[tuple(r) for r in rows[:cap]], truncated=truncated, elapsed_ms=elapsed
        )

    @contextmanager
    def _transaction(self, timeout_ms: int, search_path: SearchPath) -> Iterator[psycopg.Connection]:
        """``BEGIN READ ONLY`` + SET LOCALs on the shared connection; always ROLLBACK."""
        with self._lock:
            setup = self._setup_sql(timeout_ms, search_path if search_path is not None else self.search_path)
            conn = self._begin(setup)
            try:
                yield conn
            finally:
                self._rollback(conn)

    def _begin(self, setup: pgsql.Composed) -> psycopg.Connection:
        """Open the transaction; if the connection turns out dead (server restart,
        backend terminated, network), reconnect once: nothing of the query ran yet."""
        for attempt in (1, 2):
            conn = self._connection()
            try:
                if conn.info.transaction_status != TransactionStatus.IDLE:
                    conn.execute("ROLLBACK")
                conn.execute(setup)
                return conn
            except psycopg.OperationalError as exc:
                self._discard()
                if attempt == 2:
                    raise map_db_error(exc, sql=None, broken=True) from exc
            except psycopg.Error as exc:
                self._rollback(conn)
                raise map_db_error(exc, sql=None, broken=conn.broken) from exc
        raise AssertionError("unreachable")  # pragma: no cover

    @staticmethod
    def _setup_sql(timeout_ms: int, search_path: SearchPath) -> pgsql.Composed:
        parts = [
            pgsql.SQL("BEGIN READ ONLY"),
            pgsql.SQL("SET LOCAL statement_timeout = {}").format(pgsql.Literal(int(timeout_ms))),
            pgsql.SQL("SET LOCAL standard_conforming_strings = on"),
            pgsql.SQL("SET LOCAL cursor_tuple_fraction = 1"),
        ]
        schemas = _schemas(search_path)
        if schemas:
            parts.append(
                pgsql.SQL("SET LOCAL search_path TO {}").format(
                    pgsql.SQL(", ").join(pgsql.Identifier(s) for s in schemas)
                )
            )
        # Executor-built statements only (never user text): one round trip.
        return pgsql.SQL("; ").join(parts)

    @staticmethod
    def _pipeline_setup(timeout_ms: int, search_path: SearchPath) -> list[tuple[pgsql.Composable, list[str] | None]]:
        """:meth:`_setup_sql` as (statement, parameters) for the pipeline, which takes
        one statement per message: ``BEGIN READ ONLY``; the fixed ``SET LOCAL`` settings as
        one ``SELECT set_config(name, value, true)`` (what ``SET LOCAL`` does, undone by
        the ROLLBACK; values bound as parameters); ``SET LOCAL search_path`` as is (so
        PostgreSQL normalises the quoting exactly as before)."""
        settings = [
            ("statement_timeout", str(int(timeout_ms))),
            ("standard_conforming_strings", "on"),
            ("cursor_tuple_fraction", "1"),
        ]
        calls = pgsql.SQL(", ").join(
            pgsql.SQL("set_config({}, %s, true)").format(pgsql.Literal(name)) for name, _ in settings
        )
        statements: list[tuple[pgsql.Composable, list[str] | None]] = [
            (pgsql.SQL("BEGIN READ ONLY"), None),
            (pgsql.SQL("SELECT ") + calls, [value for _, value in settings]),
        ]
        schemas = _schemas(search_path)
        if schemas:
            statements.append((
                pgsql.SQL("SET LOCAL search_path TO {}").format(
                    pgsql.SQL(", ").join(pgsql.Identifier(s) for s in schemas)
                ),
                None,
            ))
        return statements

    def _connection(self) -> psycopg.Connection:
        conn = self._conn
        if conn is not None and not conn.closed and not conn.broken:
            return conn
        self._discard()
        from sqlgenie.store.connection import open_connection

        try:
            conn = open_connection(self.url, autocommit=True, prepare_threshold=None)
        except DatabaseConnectionError as exc:
            raise DatabaseConnectionError(
                exc.message,
                hint="Check the target URL (SQLGENIE_TARGET_DATABASE_URL, else SQLGENIE_DATABASE_URL) "
                "and that the server is running (`sqlgenie db status`).",
            ) from exc
        try:
            # Session default as an extra layer; every run also says BEGIN READ ONLY.
            conn.execute("SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY")
        except psycopg.Error as exc:
            conn.close()
            raise map_db_error(exc, sql=None, broken=True) from exc
        self._conn = conn
        self.connects += 1
        return conn

    def _rollback(self, conn: psycopg.Connection) -> None:
        if conn.closed or conn.broken:
            self._discard()
            return
        try:
            if conn.info.transaction_status != TransactionStatus.IDLE:
                conn.execute("ROLLBACK")
        except psycopg.Error:
            self._discard()

    def _discard(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None and not conn.closed:
            try:
                conn.close()
            except Exception:  # pragma: no cover
                pass


def _positive(name: str, value: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return value


def _idle_and_quiet(conn: psycopg.Connection) -> bool:
    """True when ``conn`` is idle and the server sent nothing since the last result.

    An idle backend that is terminated (``pg_terminate_backend``, server restart)
    sends a FATAL message before closing: the socket turns readable. Such a
    connection must take the step-by-step path, which finds it dead before the query
    is sent and reconnects; a pipeline would have sent the query already."""
    if conn.info.transaction_status != TransactionStatus.IDLE:
        return False
    try:
        poller = select.poll()  # not select.select: no limit on the descriptor number
        poller.register(conn.pgconn.socket, select.POLLIN | select.POLLPRI)
        return not poller.poll(0)
    except (OSError, ValueError, psycopg.Error):
        return False


def _schemas(search_path: SearchPath) -> list[str]:
    if search_path is None:
        return []
    if isinstance(search_path, str):
        items = search_path.split(",")
    else:
        items = list(search_path)
    return [s.strip() for s in items if s and s.strip()]
