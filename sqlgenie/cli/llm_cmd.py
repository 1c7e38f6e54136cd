"""`sqlgenie llm`: placeholder registration point; its owner fills in the commands."""

from __future__ import annotations

import typer

app = typer.Typer(help="LLM providers: check configuration and connectivity.", no_args_is_help=True)
