"""The ``sqlgenie`` entry point.

``sqlgenie ask ...`` is sent to a running ``sqlgenie serve`` when there is one
(:mod:`sqlgenie.server.client` decides), and printed exactly as a local answer;
this path imports neither the CLI's other commands nor the model, psycopg,
pydantic or rich (the server renders the answer for this terminal), so it takes a
fraction of the ~1-2 s a local one-shot ask needs.
Everything else, and ``ask`` without a server, is the full CLI (:mod:`sqlgenie.cli`).
"""

from __future__ import annotations

import json
import sys
import types
from pathlib import Path


def main() -> None:
    argv = sys.argv[1:]
    if argv[:1] == ["ask"]:
        code = forward_ask(argv[1:])
        if code is not None:
            sys.exit(code)
    from sqlgenie.cli import main as cli_main

    cli_main()


def forward_ask(argv: list[str]) -> int | None:
    """Answer ``ask ARGV`` through a server; the exit code, or None to answer locally."""
    from sqlgenie.server.client import find_server, parse_ask_args, terminal_style

    args = parse_ask_args(argv)
    if args is None:
        return None
    server = find_server()
    if server is None:
        return None
    payload = {"question": args.question, "route": args.route, "execute": args.execute, "limit": args.limit,
               "text_rows": not args.as_json}
    if not args.as_json:  # the server prints it for this terminal (no rich/pygments here)
        payload["render"] = {**terminal_style(), "explain": args.explain}
    try:
        status, body = server.post("/api/ask", payload)
    except OSError:
        return None  # the server went away: answer locally
    try:
        data = json.loads(body)
    except ValueError:
        data = None
    if status == 200 and isinstance(data, dict):
        if args.as_json:
            sys.stdout.write(body.decode("utf-8") + "\n")
            sys.stdout.flush()
        elif isinstance(data.get("rendered"), str):
            sys.stdout.write(data["rendered"])
            sys.stdout.flush()
        else:
            if data.get("rows_text") is not None:
                data["rows"] = data.pop("rows_text")
            _render(data, args.explain)
        return 4 if data.get("status") == "error" else 0
    detail = data.get("detail") if isinstance(data, dict) else None
    if status in (400, 401, 403, 429) and isinstance(detail, str):
        hint = data.get("hint")
        if status in (401, 403):
            hint = ("the server at " f"{server.host}:{server.port} refused the token: set SQLGENIE_TOKEN, "
                    "or SQLGENIE_SERVER_URL=off to answer locally")
        _error(detail, hint)
        return 2 if status == 400 else 1
    return None  # anything unexpected: the local answer is still right


def _cli_modules() -> None:
    """Make ``sqlgenie.cli.ask_cmd`` importable without running ``sqlgenie.cli``'s
    ``__init__`` (which registers every command and imports their libraries)."""
    if "sqlgenie.cli" not in sys.modules:
        package = types.ModuleType("sqlgenie.cli")
        package.__path__ = [str(Path(__file__).resolve().parent / "cli")]
        sys.modules["sqlgenie.cli"] = package


def _render(data: dict, explain: bool) -> None:
    _cli_modules()
    from sqlgenie.cli.ask_cmd import render_answer

    render_answer(data, explain=explain)


def _error(message: str, hint: str | None) -> None:
    _cli_modules()
    from sqlgenie.cli.common import err_console

    err_console.print(f"[bold red]error:[/] {message}", highlight=False)
    if hint:
        err_console.print(f"[dim]hint:[/] {hint}", highlight=False)
