"""``sqlgenie demo``: the demo retail warehouse (schema ``demo`` in the target database).

Subcommands live here (``demo load``); a no-subcommand quickstart can be added as
this app's callback with ``invoke_without_command=True``.
"""

from __future__ import annotations

from typing import Any

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from sqlgenie.cli.common import JSON_OPTION, console, err_console, print_json
from sqlgenie.config import get_settings
from sqlgenie.demo.constants import DEFAULT_SCALE, DEFAULT_SEED, MAX_SCALE, MIN_SCALE
from sqlgenie.store.connection import target_url

app = typer.Typer(help="Load the demo retail warehouse (schema demo).", no_args_is_help=True)

_STAGE_LABELS = {"keys": "keys & indexes", "analyze": "analyze"}


class _ProgressBars:
    """One rich progress bar per table / stage, on stderr."""

    def __init__(self, progress: Progress) -> None:
        self.progress = progress
        self.tasks: dict[str, Any] = {}

    def __call__(self, stage: str, done: int, total: int) -> None:
        if stage not in self.tasks:
            self.tasks[stage] = self.progress.add_task(_STAGE_LABELS.get(stage, stage), total=total)
        self.progress.update(self.tasks[stage], completed=done, total=total)


@app.command("load")
def load(
    scale: int = typer.Option(
        DEFAULT_SCALE, "--scale", help=f"Number of order_items rows ({MIN_SCALE:,} to {MAX_SCALE:,}); other tables scale with it."
    ),
    seed: int = typer.Option(DEFAULT_SEED, "--seed", help="Random seed: same scale and seed give identical data."),
    as_json: bool = JSON_OPTION,
) -> None:
    """Create (or replace) schema demo in the target database: a messy retail warehouse
    (regions, stores, customers, products, orders, order_items over 2023-2025).

    Example: sqlgenie demo load --scale 1000000 --seed 7
    """
    from sqlgenie.demo import load_demo, validate

    validate(scale, seed)  # before starting any server
    url = target_url(get_settings())
    with Progress(
        TextColumn("{task.description:<16}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=err_console,
        transient=not as_json and err_console.is_terminal,
    ) as progress:
        report = load_demo(url, scale=scale, seed=seed, progress=_ProgressBars(progress))
    if as_json:
        print_json(report)
        return
    table = Table(title=f"schema {report.schema}: scale {report.scale:,}, seed {report.seed}", title_justify="left")
    table.add_column("table")
    table.add_column("rows", justify="right")
    table.add_column("seconds", justify="right")
    for name, info in report.tables.items():
        table.add_row(name, f"{info['rows']:,}", f"{info['seconds']:.2f}")
    for name, seconds in report.phases.items():
        table.add_row(f"[dim]{name}[/]", "", f"{seconds:.2f}")
    console.print(table)
    console.print(f"[bold green]demo loaded[/] in {report.seconds:.1f} s "
                  f"(orders {report.date_range[0]} .. {report.date_range[1]}).")
    console.print('Try: sqlgenie sql "SELECT category, count(*) FROM demo.products GROUP BY 1 ORDER BY 2 DESC"')
