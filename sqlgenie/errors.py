"""Typed errors. Every message says what went wrong *and* what the user can do.

The CLI prints ``str(error)`` (message plus hint) and exits with ``error.exit_code``.
"""

from __future__ import annotations


class SqlGenieError(Exception):
    """Base of every error SQLGenie raises on purpose."""

    exit_code: int = 1
    default_hint: str = ""

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint if hint is not None else self.default_hint

    def __str__(self) -> str:
        return f"{self.message}\nHint: {self.hint}" if self.hint else self.message

    def to_dict(self) -> dict[str, str]:
        return {"error": type(self).__name__, "message": self.message, "hint": self.hint}


# --- configuration and store -------------------------------------------------


class ConfigError(SqlGenieError):
    exit_code = 2
    default_hint = "Check `sqlgenie config show`, your SQLGENIE_* environment variables and sqlgenie.toml."


class StoreError(SqlGenieError):
    """The store (catalog, bank, logs) could not be reached or prepared."""

    exit_code = 3


class DatabaseConnectionError(StoreError):
    default_hint = (
        "Check that the server is running and the URL is right "
        "(`sqlgenie db status`; unset SQLGENIE_DATABASE_URL to use the embedded server)."
    )


class EmbeddedServerError(StoreError):
    default_hint = "See the server log under the data directory (`sqlgenie db status` shows it); `sqlgenie db stop` then retry."


class MissingExtensionError(StoreError):
    pass


class MigrationError(StoreError):
    pass


# --- SQL and execution -------------------------------------------------------


class SQLError(SqlGenieError):
    """A problem with a SQL statement (generated or the user's own)."""

    exit_code = 4

    def __init__(self, message: str, *, sql: str | None = None, hint: str | None = None) -> None:
        super().__init__(message, hint=hint)
        self.sql = sql


class UnsafeSQLError(SQLError):
    default_hint = "SQLGenie only runs a single read-only query (SELECT / WITH ... SELECT / VALUES / set operations)."


class SQLSyntaxError(SQLError):
    default_hint = "Fix the SQL syntax (PostgreSQL dialect) and try again."


class UnknownIdentifierError(SQLError):
    default_hint = "Check table and column names; `sqlgenie sql \"SELECT * FROM information_schema.columns ...\"` lists them."


class QueryTimeoutError(SQLError):
    default_hint = "Add filters or a LIMIT, or raise the timeout with SQLGENIE_STATEMENT_TIMEOUT_MS."


class QueryExecutionError(SQLError):
    default_hint = "The database rejected the query; read its message above."


# --- LLM ---------------------------------------------------------------------


class LLMError(SqlGenieError):
    exit_code = 5


class LLMNotConfiguredError(LLMError):
    default_hint = (
        "Set SQLGENIE_LLM_PROVIDER=anthropic with ANTHROPIC_API_KEY, or SQLGENIE_LLM_PROVIDER=openai "
        "with SQLGENIE_LLM_BASE_URL (vLLM, Ollama, llama.cpp server) and optionally SQLGENIE_LLM_API_KEY."
    )


class LLMRateLimitError(LLMError):
    default_hint = "The provider is rate limiting; wait a little or raise SQLGENIE_LLM_MAX_RETRIES."


class LLMTimeoutError(LLMError):
    default_hint = "The provider did not answer in time; raise SQLGENIE_LLM_TIMEOUT_S or check the endpoint."


class LLMResponseError(LLMError):
    default_hint = "The provider answered with an error or an unexpected body; check the model name and credentials."


# --- user input ----------------------------------------------------------------


class InputError(SqlGenieError):
    exit_code = 2


class UnknownTableError(InputError):
    pass
