"""`sqlgenie onboard|tables|joins|columns`: placeholder registration points; the onboarding owner fills them in."""

from __future__ import annotations

import typer

onboard_app = typer.Typer(help="Onboard tables: profile, keys, joins, partition/index picks, value cache.", no_args_is_help=True)
tables_app = typer.Typer(help="Inspect onboarded tables.", no_args_is_help=True)
joins_app = typer.Typer(help="Review proposed joins (foreign-key pairs): list, accept, reject.", no_args_is_help=True)
columns_app = typer.Typer(help="Edit column metadata (synonyms, aggregation, mandatory).", no_args_is_help=True)
