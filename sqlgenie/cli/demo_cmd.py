"""``sqlgenie demo``: the quickstart (no subcommand) and the demo retail warehouse
(schema ``demo`` in the target database, ``demo load``)."""

from __future__ import annotations

from typing import Any

import typer
from rich.table import Table

from sqlgenie.cli.common import JSON_OPTION, console, err_console, print_json, progress_bar
from sqlgenie.config import get_settings
from sqlgenie.demo.constants import DEFAULT_SCALE, DEFAULT_SEED, MAX_SCALE, MIN_SCALE
from sqlgenie.store.connection import target_url

app = typer.Typer(help="Quickstart on the demo retail warehouse (schema demo); `demo load` (re)builds it.")

_STAGE_LABELS = {"keys": "keys & indexes", "analyze": "analyze"}


class _ProgressBars:
    """One rich progress bar per table / stage, on stderr."""

    def __init__(self, progress: Any) -> None:  # a rich Progress
        self.progress = progress
        self.tasks: dict[str, Any] = {}

    def __call__(self, stage: str, done: int, total: int) -> None:
        if stage not in self.tasks:
            self.tasks[stage] = self.progress.add_task(_STAGE_LABELS.get(stage, stage), total=total)
        self.progress.update(self.tasks[stage], completed=done, total=total)


@app.callback(invoke_without_command=True)
def quickstart(
    ctx: typer.Context,
    scale: int = typer.Option(None, "--scale", help=f"Load the demo at this many order_items rows (default {DEFAULT_SCALE:,})."),
    reload: bool = typer.Option(False, "--reload", help="Rebuild the demo even if it is loaded."),
    as_json: bool = JSON_OPTION,
) -> None:
    """Quickstart: embedded store, demo warehouse, onboarding, seed bank, then questions not in the bank.

    Example: sqlgenie demo
    """
    if ctx.invoked_subcommand is not None:
        return
    from sqlgenie.cli.ask_cmd import render_answer
    from sqlgenie.quickstart import run_quickstart

    say = (lambda msg: err_console.print(f"[bold cyan]>[/] {msg}")) if not as_json else None
    with progress_bar(transient=True) as progress:
        report = run_quickstart(get_settings(), scale=scale, reload=reload, progress=say,
                                demo_progress=_ProgressBars(progress))
    if as_json:
        print_json(report)
        return
    console.print(f"[bold green]store[/] {report.store['mode']} PostgreSQL {report.store['server_version']}"
                  + (f" at {report.store['pgdata']}" if report.store["pgdata"] else ""))
    console.print("[bold green]demo[/] " + ", ".join(f"{t} {n:,}" for t, n in report.demo["tables"].items()))
    onboarding, bank = report.onboarding, report.bank
    console.print(f"[bold green]onboarding[/] {onboarding.get('tables', 0)} tables"
                  + (f", {onboarding.get('cached_values', 0)} cached values, {onboarding.get('seconds', 0)} s"
                     if onboarding.get("onboarded_now") else " (unchanged, skipped)"))
    console.print(f"[bold green]seed bank[/] {bank.get('pairs', 0)} verified question → SQL pairs"
                  + (f" imported in {bank.get('seconds', 0)} s" if bank.get("imported_now") else " (already imported)"))
    console.print(f"[bold green]asking[/] {len(report.answers)} questions that are not in the bank, "
                  + ("with the configured LLM" if report.llm else "with no LLM"))
    for answer in report.answers:
        console.rule(f"[bold]{answer['question']}")
        render_answer(answer, max_rows=10)
    seconds = sum(report.stage_seconds.values())
    console.print(f"\n[dim]quickstart {seconds:.1f} s: "
                  + ", ".join(f"{k} {v:.1f}" for k, v in report.stage_seconds.items()) + "[/]")
    console.print('Next: sqlgenie ask "your question" (--explain, --json); sqlgenie sql "SELECT ..." runs your own '
                  "read-only SQL; set SQLGENIE_LLM_PROVIDER for novel questions (domain rules for the LLM go in "
                  f"{report.instructions_file}); sqlgenie --help lists everything.")


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
    with progress_bar(transient=not as_json and err_console.is_terminal) as progress:
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
