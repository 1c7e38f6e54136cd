"""Safe execution of generated SQL: validation (sqlglot allow-list), a read-only,
always-rolled-back transaction with timeouts and a row cap, typed errors, and a
helper to create a SELECT-only database role. See docs/safety.md."""

from sqlgenie.executor.errors import map_db_error
from sqlgenie.executor.roles import create_reader_role
from sqlgenie.executor.runner import QueryResult, SafeExecutor
from sqlgenie.executor.safety import (
    DENIED_FUNCTION_PREFIXES,
    DENIED_FUNCTIONS,
    is_denied_function,
    validate_sql,
)

__all__ = [
    "DENIED_FUNCTIONS",
    "DENIED_FUNCTION_PREFIXES",
    "QueryResult",
    "SafeExecutor",
    "create_reader_role",
    "is_denied_function",
    "map_db_error",
    "validate_sql",
]
