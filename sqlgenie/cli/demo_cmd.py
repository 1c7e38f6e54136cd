"""`sqlgenie demo`: placeholder registration point; its owner fills in the commands."""

from __future__ import annotations

import typer

app = typer.Typer(help="Load the demo retail warehouse (schema demo).", no_args_is_help=True)
