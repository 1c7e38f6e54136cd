"""``sqlgenie correct``: run the deterministic autocorrectors over one SQL statement."""

from __future__ import annotations

import sys
from typing import Optional

import typer
from rich.markup import escape

from sqlgenie.cli.common import JSON_OPTION, console, err_console, print_json


def correct(
    query: str = typer.Argument(..., help="SQL to correct (PostgreSQL dialect); '-' reads it from stdin."),
    as_json: bool = JSON_OPTION,
    schema: Optional[str] = typer.Option(
        None, "--schema", "-s", help="Schema for unqualified table names (default: public)."
    ),
    question: Optional[str] = typer.Option(
        None, "--question", "-q", help="The question the SQL answers (decides LIMIT for counts and top-N)."
    ),
    dummy: bool = typer.Option(
        False, "--dummy/--no-dummy", help="Also run the result on sampled copies of its tables (never on the target)."
    ),
) -> None:
    """Correct filter values, dates, literal types, identifiers and defaults in one query.

    Prints the corrected SQL and the list of changes; nothing is executed on the
    target (with --dummy the query runs on <10-row copies in a scratch schema).

    Example: sqlgenie correct "SELECT * FROM brands WHERE name = 'rockpot'" --json
    """
    from sqlgenie.autocorrect import AutocorrectSettings, DummyTester, PgValueMatcher, run_chain
    from sqlgenie.catalog import load_catalog
    from sqlgenie.config import get_settings
    from sqlgenie.store import connect_store, store_url, target_url

    text = sys.stdin.read() if query == "-" else query
    settings = get_settings()
    ac = AutocorrectSettings.from_settings(settings)
    search_path = (schema,) if schema else ("public",)
    with connect_store(settings) as conn:
        catalog = load_catalog(conn, search_path=search_path)
        matcher = PgValueMatcher(conn, ac)
        tester = None
        if dummy:
            tester = DummyTester(store_url(settings), target_url(settings), settings=ac, search_path=search_path)
        result = run_chain(text, catalog, matcher, ac, question, dummy=tester)
    if as_json:
        print_json(result.to_dict())
    else:
        console.print(result.sql, highlight=False, markup=False, soft_wrap=True)
        if result.changes:
            console.print(f"[dim]{len(result.changes)} change(s):[/]")
            for c in result.changes:
                console.print(
                    f"  [bold]{c.corrector}[/]: {escape(c.before)} [dim]->[/] {escape(c.after)}  [dim]({escape(c.reason)})[/]",
                    highlight=False,
                )
        else:
            console.print("[dim]no changes[/]")
        for error in result.errors:
            err_console.print(f"[bold red]error:[/] {escape(error.message)}", highlight=False)
            if error.hint:
                err_console.print(f"[dim]hint:[/] {escape(error.hint)}", highlight=False)
    if result.errors:
        raise typer.Exit(result.errors[0].exit_code)
