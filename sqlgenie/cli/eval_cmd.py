"""`sqlgenie eval`: placeholder registration point; its owner fills in the commands."""

from __future__ import annotations

import typer

app = typer.Typer(help="Evaluate modules on benchmarks (Spider, Defog); last stdout line is JSON.", no_args_is_help=True)
