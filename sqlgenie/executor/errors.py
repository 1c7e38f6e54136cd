"""Map psycopg / PostgreSQL errors to SQLGenie's typed errors."""

from __future__ import annotations

import re

import psycopg
from psycopg import errors as pg

from sqlgenie.errors import (
    DatabaseConnectionError,
    QueryExecutionError,
    QueryTimeoutError,
    SqlGenieError,
    SQLSyntaxError,
    UnknownIdentifierError,
    UnsafeSQLError,
)

# PostgreSQL messages (not SQL): 'relation "x" does not exist', 'column t.x does not exist',
# 'function f(integer) does not exist', 'schema "s" does not exist'.
_MISSING = re.compile(r'^(relation|column|function|schema|type) (.+?) does not exist', re.S)

_UNKNOWN_STATES = {"42P01", "42703", "42883", "3F000", "42704"}
_KIND_WORD = {"relation": "table or view", "column": "column", "function": "function", "schema": "schema", "type": "type"}


def map_db_error(exc: psycopg.Error, *, sql: str | None, timeout_ms: int | None = None, broken: bool = False) -> SqlGenieError:
    """Translate ``exc`` (raised while running ``sql``) into a typed, actionable error."""
    diag = exc.diag
    state = exc.sqlstate or ""
    primary = (diag.message_primary or str(exc)).strip()
    pg_hint = (diag.message_hint or "").strip()
    detail = (diag.message_detail or "").strip()

    if isinstance(exc, pg.QueryCanceled) or state == "57014":
        limit = f" of {timeout_ms} ms" if timeout_ms else ""
        return QueryTimeoutError(f"The query exceeded the statement timeout{limit} and was cancelled.", sql=sql)
    if isinstance(exc, pg.ReadOnlySqlTransaction) or state == "25006":
        return UnsafeSQLError(
            f"The query tried to change the database, which the read-only transaction blocked: {primary}.",
            sql=sql,
            hint="Only read-only queries can run; a function it calls may write data.",
        )
    if state in _UNKNOWN_STATES:
        match = _MISSING.match(primary)
        if match:
            kind, name = _KIND_WORD[match.group(1)], match.group(2).strip()
            message = f"Unknown {kind} {name}: {primary}."
        else:
            kind, name, message = "identifier", "", f"Unknown identifier: {primary}."
        hint = pg_hint or UnknownIdentifierError.default_hint
        error = UnknownIdentifierError(message, sql=sql, hint=hint)
        error.identifier = name.strip('"')  # type: ignore[attr-defined]
        error.kind = kind  # type: ignore[attr-defined]
        return error
    if isinstance(exc, pg.SyntaxError) or state == "42601":
        return SQLSyntaxError(f"PostgreSQL rejected the syntax: {primary}.", sql=sql, hint=pg_hint or None)
    if broken or state.startswith("08") or state in {"57P01", "57P02", "57P03"} or (
        isinstance(exc, psycopg.OperationalError) and not state
    ):
        return DatabaseConnectionError(
            f"Lost the connection to the target database: {primary}",
            hint="Check that the server is up and SQLGENIE_TARGET_DATABASE_URL (or SQLGENIE_DATABASE_URL) is right; "
            "the next query reconnects automatically.",
        )
    if isinstance(exc, pg.InsufficientPrivilege) or state == "42501":
        return QueryExecutionError(
            f"Permission denied: {primary}.",
            sql=sql,
            hint="The target role lacks a privilege; grant SELECT on the table "
            "(`sqlgenie db create-reader` creates a suitable role) or query another table.",
        )
    message = f"The database rejected the query ({state or 'no SQLSTATE'}): {primary}."
    if detail:
        message += f" {detail}"
    return QueryExecutionError(message, sql=sql, hint=pg_hint or None)
