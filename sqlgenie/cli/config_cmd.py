"""``sqlgenie config``: inspect the effective settings."""

from __future__ import annotations

import typer
from rich.table import Table

from sqlgenie.cli.common import JSON_OPTION, console, print_json
from sqlgenie.config import Settings, get_settings

app = typer.Typer(help="Inspect configuration (environment SQLGENIE_*, sqlgenie.toml, defaults).", no_args_is_help=True)


@app.command("show")
def show(as_json: bool = JSON_OPTION) -> None:
    """Print the effective settings with secrets masked.

    Example: sqlgenie config show --json
    """
    settings = get_settings()
    values = settings.masked()
    if as_json:
        print_json(values)
        return
    table = Table("setting", "value", "environment variable", "description", title="Effective settings")
    for name, value in values.items():
        field = Settings.model_fields[name]
        table.add_row(name, "" if value is None else str(value), f"SQLGENIE_{name.upper()}", field.description or "")
    console.print(table)
