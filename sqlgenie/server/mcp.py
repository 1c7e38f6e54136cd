"""``sqlgenie mcp``: a Model Context Protocol server on stdio (the ``mcp`` package).

Tools, each calling the same library function as the CLI command and the HTTP route
of the same name (no logic here):

* ``ask(question, route="auto", execute=True, limit=None)`` -> the JSON of
  ``sqlgenie ask --json`` (:meth:`sqlgenie.inference.pipeline.Asker.ask`);
* ``feedback(ask_id, verdict, comment=None, sql=None)`` -> as ``sqlgenie feedback
  --json`` (:func:`sqlgenie.feedback.service.give_feedback`; the user recorded is
  ``mcp`` unless ``SQLGENIE_MCP_USER`` names another);
* ``list_tables(schema=None)`` -> as ``sqlgenie tables list --json``
  (:func:`onboarding.catalog_admin.list_tables`);
* ``describe_table(name, values=10)`` -> as ``sqlgenie tables show --json``
  (:func:`onboarding.catalog_admin.show_table`).

One process serves one client: the asker (embedding model, store connections) is
opened on the first ``ask`` and kept. A SQLGenie error becomes a tool error whose
text is the error's message and hint. The SDK diverts the process's own stdout to
stderr while it serves, so nothing but protocol messages reaches the client.

Client configuration (Claude Desktop and others)::

    {"mcpServers": {"sqlgenie": {"command": "sqlgenie", "args": ["mcp"],
                                 "env": {"SQLGENIE_DATA_DIR": "..."}}}}
"""

from __future__ import annotations

import contextlib
import os
import threading
from typing import Any, Literal

from sqlgenie.config import Settings, get_settings
from sqlgenie.errors import InputError, SqlGenieError
from sqlgenie.jsonable import to_jsonable

__all__ = ["McpBackend", "build_server", "run_stdio"]

INSTRUCTIONS = (
    "SQLGenie answers business questions over the user's PostgreSQL tables with verified SQL. "
    "Call list_tables / describe_table to see what data exists, ask to answer a question (SQL, rows, "
    "explanation, and an id), and feedback with that id to say whether the answer was right. "
    "A refused answer (status 'refused') is deliberate: SQLGenie does not guess."
)


class McpBackend:
    """The library calls behind the tools (usable without the protocol, e.g. in tests)."""

    def __init__(self, settings: Settings | None = None) -> None:
        self.settings = settings or get_settings()
        self._lock = threading.Lock()
        self._stack = contextlib.ExitStack()
        self._asker: Any = None
        self._store: Any = None

    # --- plumbing ------------------------------------------------------------------------

    def _get_asker(self) -> Any:
        if self._asker is None:
            from sqlgenie.inference.pipeline import Asker

            self._asker = self._stack.enter_context(Asker.open(self.settings))
        return self._asker

    def _get_store(self) -> Any:
        if self._store is None or self._store.closed:
            from sqlgenie.store.connection import open_connection, store_url
            from sqlgenie.store.migrations import ensure_migrated

            url = store_url(self.settings)
            ensure_migrated(url)
            self._store = open_connection(url, autocommit=True)
        return self._store

    def close(self) -> None:
        with self._lock:
            self._stack.close()
            self._asker = None
            if self._store is not None:
                self._store.close()
                self._store = None

    # --- tools -----------------------------------------------------------------------------

    def ask(self, question: str, route: str = "auto", execute: bool = True, limit: int | None = None) -> dict[str, Any]:
        from sqlgenie.inference.router import check_route

        if not question or not question.strip():
            raise InputError("The question is empty.", hint="Pass the question in words, e.g. 'How many orders in 2024?'.")
        check_route(route)
        if limit is not None and limit < 1:
            raise InputError(f"limit must be at least 1, not {limit}.")
        with self._lock:
            result = self._get_asker().ask(question, route=route, execute=execute, limit=limit)
        return to_jsonable(result.to_dict())

    def feedback(self, ask_id: int, verdict: str, comment: str | None = None, sql: str | None = None) -> dict[str, Any]:
        from sqlgenie.feedback.service import give_feedback

        user = os.environ.get("SQLGENIE_MCP_USER") or "mcp"
        with self._lock:
            result = give_feedback(self._get_store(), ask_id, verdict, comment=comment, sql=sql, user=user,
                                   settings=self.settings)
            if self._asker is not None and verdict == "up":
                # a thumbs-up may have added a bank example: the next ask reloads
                self._stack.close()
                self._stack = contextlib.ExitStack()
                self._asker = None
        data = result.to_dict() if hasattr(result, "to_dict") else result
        return to_jsonable(data)

    def list_tables(self, schema: str | None = None) -> dict[str, Any]:
        from onboarding.catalog_admin import list_tables

        with self._lock:
            return to_jsonable({"tables": list_tables(self._get_store(), schema)})

    def describe_table(self, name: str, values: int = 10) -> dict[str, Any]:
        from onboarding.catalog_admin import show_table

        if values < 0 or values > 200:
            raise InputError(f"values must be between 0 and 200, not {values}.")
        with self._lock:
            return to_jsonable(show_table(self._get_store(), name, values=values))


def _server_class() -> Any:
    from mcp.server.mcpserver import MCPServer  # mcp >= 2 (pinned in the server extra)

    return MCPServer


def _tool_error(exc: SqlGenieError) -> Exception:
    from mcp.server.mcpserver.exceptions import ToolError

    return ToolError(str(exc))


def build_server(backend: McpBackend | None = None) -> Any:
    """The MCP server with the four tools over ``backend``."""
    from sqlgenie import __version__

    be = backend or McpBackend()
    cls = _server_class()
    server = cls("sqlgenie", instructions=INSTRUCTIONS, version=__version__)

    def call(fn, *args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except SqlGenieError as exc:
            raise _tool_error(exc) from exc

    @server.tool(description="Answer a business question over the onboarded tables: the SQL, its rows, the route "
                             "(match: adapted from a verified example; think: generated), corrections, and an id "
                             "for feedback. status is ok, refused (no safe answer; see message and hint) or error.")
    def ask(question: str, route: Literal["auto", "match", "think"] = "auto", execute: bool = True,
            limit: int | None = None) -> dict[str, Any]:
        return call(be.ask, question, route=route, execute=execute, limit=limit)

    @server.tool(description="Say whether an answer was right. verdict 'up' adds the question and its SQL to the "
                             "bank of verified examples; 'down' (with a comment, or a corrected sql) queues it for "
                             "regeneration and review. ask_id is the id returned by ask.")
    def feedback(ask_id: int, verdict: Literal["up", "down"], comment: str | None = None,
                 sql: str | None = None) -> dict[str, Any]:
        return call(be.feedback, ask_id, verdict, comment=comment, sql=sql)

    @server.tool(description="The onboarded tables (optionally of one schema): rows, primary key, column and join "
                             "counts.")
    def list_tables(schema: str | None = None) -> dict[str, Any]:
        return call(be.list_tables, schema)

    @server.tool(description="One table ('schema.table' or a unique table name): its columns with types, "
                             "synonyms and frequent values, its key, and its joins.")
    def describe_table(name: str, values: int = 10) -> dict[str, Any]:
        return call(be.describe_table, name, values=values)

    server._sqlgenie_backend = be  # closed by run_stdio
    return server


def run_stdio() -> None:
    """Serve on stdin/stdout until the client closes the connection."""
    backend = McpBackend()
    server = build_server(backend)
    try:
        server.run("stdio")
    finally:
        backend.close()
