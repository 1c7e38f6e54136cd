"""`sqlgenie bank`: placeholder registration point; its owner fills in the commands."""

from __future__ import annotations

import typer

app = typer.Typer(help="The example bank of verified question->SQL pairs.", no_args_is_help=True)
