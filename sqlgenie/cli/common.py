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

console = Console()
err_console = Console(stderr=True)

JSON_OPTION = typer.Option(False, "--json", help="Print one JSON object on stdout (for scripts).")


def to_jsonable(value: Any) -> Any:
    """Convert dataclasses, pydantic models, Decimals, dates, paths... to JSON values."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if hasattr(value, "model_dump"):
        return to_jsonable(value.model_dump())
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set)):
        return [to_jsonable(v) for v in value]
    if isinstance(value, decimal.Decimal):
        return int(value) if value == value.to_integral_value() and abs(value) < 2**53 else float(value)
    if isinstance(value, (dt.datetime, dt.date, dt.time)):
        return value.isoformat()
    if isinstance(value, dt.timedelta):
        return value.total_seconds()
    if isinstance(value, (Path, uuid.UUID)):
        return str(value)
    if isinstance(value, (bytes, memoryview)):
        return bytes(value).hex()
    return value


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
