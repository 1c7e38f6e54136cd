"""``sqlgenie sql``: run your own read-only SQL through the safe executor."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Optional

import typer
from rich.table import Table
from rich.text import Text

from sqlgenie.cli.common import JSON_OPTION, console, print_json, to_jsonable
from sqlgenie.errors import InputError


def sql(
    query: Optional[str] = typer.Argument(None, help="One read-only SQL query; '-' reads it from stdin."),
    file: Optional[Path] = typer.Option(
        None, "--file", "-f", help="Read the SQL from this file instead.", dir_okay=False
    ),
    as_json: bool = JSON_OPTION,
    row_cap: Optional[int] = typer.Option(
        None, "--row-cap", "--limit", min=1, help="Fetch at most N rows (default: SQLGENIE_ROW_CAP). The SQL is not changed."
    ),
    timeout_ms: Optional[int] = typer.Option(
        None, "--timeout-ms", min=1, help="Statement timeout in ms (default: SQLGENIE_STATEMENT_TIMEOUT_MS)."
    ),
) -> None:
    """Run one read-only query on the target database (validated, read-only, rolled back).

    Only a single SELECT / WITH ... SELECT / VALUES / set operation is accepted;
    anything else is rejected before it reaches the database.

    Example: sqlgenie sql "SELECT table_name FROM information_schema.tables LIMIT 5" --json
    """
    from sqlgenie.executor import SafeExecutor

    text = _read_sql(query, file)
    with SafeExecutor.from_settings() as executor:
        result = executor.run(text, timeout_ms=timeout_ms, row_cap=row_cap)
    if as_json:
        print_json(
            {
                "sql": result.sql,
                "columns": result.columns,
                "rows": [list(row) for row in result.rows],
                "row_count": len(result.rows),
                "truncated": result.truncated,
                "elapsed_ms": round(result.elapsed_ms, 3),
            }
        )
        return
    table = Table(show_lines=False)
    for column in result.columns:
        table.add_column(Text(column))
    for row in result.rows:
        table.add_row(*(_cell(v) for v in row))
    console.print(table)
    more = f", truncated at {len(result.rows)}: the query returned more (raise --row-cap)" if result.truncated else ""
    console.print(Text(f"{len(result.rows)} row(s){more} in {result.elapsed_ms:.1f} ms", style="dim"))


def _read_sql(query: str | None, file: Path | None) -> str:
    if query is not None and file is not None:
        raise InputError("Pass the SQL either as an argument or with --file, not both.")
    if file is not None:
        try:
            return file.read_text(encoding="utf-8")
        except OSError as exc:
            raise InputError(f"Cannot read {file}: {exc.strerror or exc}.", hint="Check the path given to --file.") from exc
    if query == "-":
        return sys.stdin.read()
    if query is None:
        raise InputError(
            "No SQL given.",
            hint='Example: sqlgenie sql "SELECT 1"  (or `--file q.sql`, or `-` to read stdin).',
        )
    return query


def _cell(value: object) -> Text:
    if value is None:
        return Text("NULL", style="dim")
    shown = to_jsonable(value)
    return Text(shown if isinstance(shown, str) else str(shown))
