"""``sqlgenie serve`` (HTTP API and web page), ``sqlgenie users`` (tokens) and
``sqlgenie mcp`` (Model Context Protocol server on stdio)."""

from __future__ import annotations

from typing import Optional

import typer

from sqlgenie.cli.common import JSON_OPTION, console, err_console, print_json

users_app = typer.Typer(help="Users of `sqlgenie serve` and their bearer tokens.", no_args_is_help=True)


def serve(
    host: Optional[str] = typer.Option(None, "--host", help="Address to bind (default 127.0.0.1: this machine only)."),
    port: Optional[int] = typer.Option(None, "--port", min=1, max=65535, help="Port (default 8000)."),
    askers: Optional[int] = typer.Option(None, "--askers", min=1, max=32, help="Warm askers (parallel asks)."),
    log_level: str = typer.Option("warning", "--log-level", help="uvicorn log level: warning, info, debug."),
) -> None:
    """Serve the HTTP API (/api, OpenAPI at /docs) and the web page (/) from one process.

    The model and the store pool are loaded once, for every request.

    Every API route but /api/health needs a bearer token: make one with
    `sqlgenie users add NAME --role asker`. While it runs, `sqlgenie ask` on this
    machine sends its questions here (no model load per call).

    Example: sqlgenie serve --port 8000
    """
    import uvicorn

    from sqlgenie.config import get_settings
    from sqlgenie.server.app import create_app

    settings = get_settings()
    host = host or settings.server_host
    port = port or settings.server_port
    app = create_app(settings, askers=askers)
    err_console.print(f"SQLGenie on http://{host}:{port}/  (API docs: /docs; Ctrl+C stops)", highlight=False)
    if host not in ("127.0.0.1", "localhost", "::1"):
        err_console.print(f"[yellow]bound to {host}: reachable from other machines; tokens travel in clear "
                          "text unless a TLS proxy is in front[/]", highlight=False)
    uvicorn.run(app, host=host, port=port, log_level=log_level, access_log=log_level in ("info", "debug"))


@users_app.command("add")
def users_add(
    name: str = typer.Argument(..., help="User name (an existing user gets the role and a new token)."),
    role: str = typer.Option("asker", "--role", help="asker (ask, feedback) | reviewer (+ review, bank) | admin (+ joins)."),
    as_json: bool = JSON_OPTION,
) -> None:
    """Create a user with a bearer token for `sqlgenie serve`. The token is printed
    once and stored only as a hash: keep it.

    Example: sqlgenie users add alice --role reviewer --json
    """
    from sqlgenie.config import get_settings
    from sqlgenie.server.users import add_user
    from sqlgenie.store import connect_store

    with connect_store(get_settings()) as store:
        user, token = add_user(store, name, role)
    if as_json:
        print_json(user.to_dict() | {"token": token})
        return
    console.print(f"user [bold]{user.name}[/] ({user.role}); token (shown once, keep it):", highlight=False)
    console.print(token, highlight=False, soft_wrap=True)
    console.print(f'[dim]use: curl -H "Authorization: Bearer {token[:8]}..." http://127.0.0.1:8000/api/me[/]',
                  highlight=False)


@users_app.command("list")
def users_list(as_json: bool = JSON_OPTION) -> None:
    """List users, roles and active tokens (never the tokens themselves).

    Example: sqlgenie users list
    """
    from rich.table import Table

    from sqlgenie.config import get_settings
    from sqlgenie.server.users import list_users
    from sqlgenie.store import connect_store

    with connect_store(get_settings()) as store:
        rows = list_users(store)
    if as_json:
        print_json({"users": rows})
        return
    t = Table("id", "name", "role", "tokens", "last used", "disabled")
    for r in rows:
        t.add_row(str(r["id"]), r["name"], r["role"], str(r["active_tokens"]),
                  r["last_used_at"].strftime("%Y-%m-%d %H:%M") if r["last_used_at"] else "", "yes" if r["disabled"] else "")
    console.print(t)


@users_app.command("remove")
def users_remove(name: str = typer.Argument(..., help="User name."), as_json: bool = JSON_OPTION) -> None:
    """Disable a user and revoke its tokens (a running server stops accepting them within 30 s).

    Example: sqlgenie users remove alice
    """
    from sqlgenie.config import get_settings
    from sqlgenie.errors import InputError
    from sqlgenie.server.users import remove_user
    from sqlgenie.store import connect_store

    with connect_store(get_settings()) as store:
        done = remove_user(store, name)
    if not done:
        raise InputError(f"No active user {name!r}.", hint="`sqlgenie users list` shows them.")
    if as_json:
        print_json({"removed": name})
    else:
        console.print(f"user {name} disabled; its tokens are revoked")


def mcp() -> None:
    """Run a Model Context Protocol server (stdio) for assistant clients.

    Tools: ask, feedback, list_tables and describe_table.

    Example client configuration: {"command": "sqlgenie", "args": ["mcp"]}
    """
    from sqlgenie.server.mcp import run_stdio

    run_stdio()
