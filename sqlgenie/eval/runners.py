"""Running SQL for evaluation: PostgreSQL through the SafeExecutor (one connection,
``search_path`` set per database) and SQLite on the original benchmark files."""

from __future__ import annotations

import sqlite3
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlgenie.errors import SqlGenieError
from sqlgenie.eval.gold import TableTypes, load_affinities, load_table_types
from sqlgenie.eval.sqlite_loader import open_sqlite

DEFAULT_EVAL_ROW_CAP = 100_000


@dataclass
class RunOutcome:
    rows: list[tuple] = field(default_factory=list)
    columns: list[str] = field(default_factory=list)
    elapsed_ms: float = 0.0
    truncated: bool = False
    error: BaseException | None = None

    @property
    def ok(self) -> bool:
        return self.error is None

    def error_text(self) -> str | None:
        if self.error is None:
            return None
        msg = getattr(self.error, "message", None) or str(self.error)
        return f"{type(self.error).__name__}: {msg}".strip()


class PostgresRunner:
    """Runs (read-only, validated) SQL on the target with the SafeExecutor."""

    def __init__(self, url: str, *, timeout_ms: int, row_cap: int = DEFAULT_EVAL_ROW_CAP) -> None:
        from sqlgenie.executor import SafeExecutor  # lazy: the executor is its own module

        self.url = url
        self.timeout_ms = timeout_ms
        self.row_cap = row_cap
        self.executor = SafeExecutor(url, statement_timeout_ms=timeout_ms, row_cap=row_cap)
        self._types: dict[str, TableTypes] = {}
        self._affinities: dict[str, dict[tuple[str, str], str]] = {}
        self._meta = None

    def _meta_conn(self):
        if self._meta is None:
            from sqlgenie.store.connection import open_connection

            self._meta = open_connection(self.url, autocommit=True)
        return self._meta

    def table_types(self, schema: str) -> TableTypes:
        """Column types of ``schema`` (cached for the runner's life)."""
        if schema not in self._types:
            self._types[schema] = load_table_types(self._meta_conn(), schema)
        return self._types[schema]

    def affinities(self, schema: str) -> dict[tuple[str, str], str]:
        """SQLite affinities of a schema loaded from SQLite (empty otherwise)."""
        if schema not in self._affinities:
            self._affinities[schema] = load_affinities(self._meta_conn(), schema)
        return self._affinities[schema]

    def transpile(self, sql: str, schema: str):
        """SQLite-dialect SQL -> PostgreSQL for ``schema`` (see :mod:`sqlgenie.eval.gold`)."""
        from sqlgenie.eval.gold import transpile_sqlite

        return transpile_sqlite(sql, self.table_types(schema), self.affinities(schema))

    def run(self, sql: str, schema: str, *, iterations: int = 1) -> RunOutcome:
        best: RunOutcome | None = None
        for _ in range(max(1, iterations)):
            try:
                result = self.executor.run(sql, search_path=[schema])
            except SqlGenieError as exc:
                return RunOutcome(error=exc)
            outcome = RunOutcome(result.rows, result.columns, result.elapsed_ms, result.truncated)
            if best is None or outcome.elapsed_ms < best.elapsed_ms:
                best = outcome
        assert best is not None
        return best

    def close(self) -> None:
        self.executor.close()
        if self._meta is not None:
            self._meta.close()
            self._meta = None


class SQLiteTimeout(Exception):
    pass


class SQLiteRunner:
    """Runs SQL on the original SQLite files (read-only), with a timeout and row cap."""

    def __init__(self, *, timeout_ms: int, row_cap: int = DEFAULT_EVAL_ROW_CAP) -> None:
        self.timeout_ms = timeout_ms
        self.row_cap = row_cap
        self._conns: dict[Path, sqlite3.Connection] = {}

    def _conn(self, path: Path) -> sqlite3.Connection:
        conn = self._conns.get(path)
        if conn is None:
            conn = open_sqlite(path)
            self._conns[path] = conn
        return conn

    def run(self, sql: str, path: Path) -> RunOutcome:
        conn = self._conn(path)
        deadline = time.perf_counter() + self.timeout_ms / 1000.0
        conn.set_progress_handler(lambda: 1 if time.perf_counter() > deadline else 0, 10_000)
        start = time.perf_counter()
        try:
            cur = conn.execute(sql)
            rows = cur.fetchmany(self.row_cap + 1)
            columns = [d[0] for d in cur.description or []]
        except sqlite3.OperationalError as exc:
            if "interrupted" in str(exc):
                return RunOutcome(error=SQLiteTimeout(f"SQLite query exceeded {self.timeout_ms} ms"))
            return RunOutcome(error=exc)
        except (sqlite3.Error, ValueError) as exc:
            return RunOutcome(error=exc)
        finally:
            conn.set_progress_handler(None, 0)
        elapsed = (time.perf_counter() - start) * 1000.0
        truncated = len(rows) > self.row_cap
        return RunOutcome([tuple(r) for r in rows[: self.row_cap]], columns, elapsed, truncated)

    def close(self) -> None:
        for conn in self._conns.values():
            conn.close()
        self._conns.clear()


def jsonable_rows(rows: list[tuple], limit: int = 5) -> list[list[Any]]:
    """A few rows for JSONL records (values made JSON-friendly by the caller's encoder)."""
    return [list(r) for r in rows[:limit]]
