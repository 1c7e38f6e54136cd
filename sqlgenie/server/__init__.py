"""``sqlgenie serve``: the HTTP API, the web page and the MCP server (issue 17).

Routes only: every route calls the same library function as the CLI command of
the same name. ``create_app`` builds the FastAPI app."""

from __future__ import annotations

__all__ = ["create_app"]


def create_app(*args, **kwargs):  # untyped: `typing` would slow the one-shot ask's import (client)
    from sqlgenie.server.app import create_app as build

    return build(*args, **kwargs)
