"""``sqlgenie eval fk`` and ``sqlgenie eval pk``: key inference of onboarding on a
Spider-layout dataset (library: :mod:`onboarding.eval_keys`).

Register on the eval app with ``eval_keys_cmd.register(eval_cmd.app)``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from sqlgenie.cli.common import err_console
from sqlgenie.cli.eval_cmd import DATASET_OPTION, DBS_OPTION, LLM_OPTION, OUT_OPTION, _finish, _progress
from sqlgenie.config import get_settings

SPLIT_OPTION = typer.Option("all", "--split", help="all | train | dev: databases of train_spider_compact.json / dev.json.")
KEEP_OPTION = typer.Option(False, "--keep-catalog", help="Keep the eval schemas' catalog entries (default: removed after scoring).")


def _dataset_dir(dataset: Optional[Path]) -> Path:
    return dataset if dataset is not None else get_settings().benchdata_dir / "spider"


def fk(
    dataset: Optional[Path] = DATASET_OPTION,
    dbs: Optional[str] = DBS_OPTION,
    split: str = SPLIT_OPTION,
    keep_catalog: bool = KEEP_OPTION,
    out: Optional[Path] = OUT_OPTION,
    llm: bool = LLM_OPTION,
) -> None:
    """Foreign-key inference: load every non-empty database with --keys drop, onboard
    all its tables with no LLM, and compare the pairs accepted by score with
    tables.json's foreign_keys (ordered referencing -> referenced column pairs,
    micro-averaged). Last line: dbs, gold, predicted, precision, recall, f1.

    Example: sqlgenie eval fk --dataset ../shared/benchdata/spider --out fk.jsonl
    """
    from onboarding.eval_keys import eval_fk
    from sqlgenie.eval.datasets import parse_db_filter

    with _progress("eval fk") as progress:
        result = eval_fk(_dataset_dir(dataset), settings=get_settings(), dbs=parse_db_filter(dbs), split=split,
                         progress=progress, keep_catalog=keep_catalog)
    s = result.summary
    err_console.print(f"fk: P {s['precision']:.4f} R {s['recall']:.4f} F1 {s['f1']:.4f} "
                      f"({s['predicted']} predicted, {s['gold']} gold, {s['dbs']} databases)", highlight=False)
    _finish(result, out, False)


def pk(
    dataset: Optional[Path] = DATASET_OPTION,
    dbs: Optional[str] = DBS_OPTION,
    split: str = SPLIT_OPTION,
    keep_catalog: bool = KEEP_OPTION,
    out: Optional[Path] = OUT_OPTION,
    llm: bool = LLM_OPTION,
) -> None:
    """Primary-key inference: as `eval fk`, comparing each non-empty table's primary key
    with tables.json's primary_keys (a composite key matches the one column tables.json
    keeps for it). Last line: tables, precision, recall (+ strict_* and ddl_* variants).

    Example: sqlgenie eval pk --dataset ../shared/benchdata/spider
    """
    from onboarding.eval_keys import eval_pk
    from sqlgenie.eval.datasets import parse_db_filter

    with _progress("eval pk") as progress:
        result = eval_pk(_dataset_dir(dataset), settings=get_settings(), dbs=parse_db_filter(dbs), split=split,
                         progress=progress, keep_catalog=keep_catalog)
    s = result.summary
    err_console.print(f"pk: P {s['precision']:.4f} R {s['recall']:.4f} on {s['tables']} tables", highlight=False)
    _finish(result, out, False)


def register(app: typer.Typer) -> None:
    """Add ``fk`` and ``pk`` to the ``sqlgenie eval`` app."""
    app.command("fk")(fk)
    app.command("pk")(pk)
