"""Shared CLI plumbing: consoles, JSON output, error handling."""

from __future__ import annotations

import dataclasses
import datetime as dt
import decimal
import json
import sys
import uuid
from pathlib import Path
from typing import Any

import typer
from rich.console import Console

from sqlgenie.jsonable import to_jsonable  # noqa: F401  (re-exported: one encoding for --json and the API)

console = Console()
err_console = Console(stderr=True)

JSON_OPTION = typer.Option(False, "--json", help="Print one JSON object on stdout (for scripts).")


def progress_bar(description: str = "{task.description:<16}", *, transient: bool = False):
    """The standard progress bar of long commands, on stderr (stdout stays clean for --json)."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    return Progress(
        TextColumn(description), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
        console=err_console, transient=transient,
    )


def print_json(obj: Any) -> None:
    """Write ``obj`` as one JSON line on stdout (no rich markup)."""
    sys.stdout.write(json.dumps(to_jsonable(obj), ensure_ascii=False, default=str) + "\n")
    sys.stdout.flush()
