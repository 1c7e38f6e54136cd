"""``sqlgenie eval values``: value linking on a Spider-layout dataset (the work is in
:mod:`sqlgenie.inference.eval_values`)."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from sqlgenie.cli.eval_cmd import DBS_OPTION, LIMIT_OPTION, LLM_OPTION, OUT_OPTION
from sqlgenie.cli.eval_schema_cmd import DATASET_OPTION, QUESTIONS_OPTION


def values(
    dataset: Optional[Path] = DATASET_OPTION,
    questions: Optional[str] = QUESTIONS_OPTION,
    dbs: Optional[str] = DBS_OPTION,
    limit: Optional[int] = LIMIT_OPTION,
    probes: bool = typer.Option(True, "--probes/--no-probes", help="Probe the tables for values the cache lacks."),
    out: Optional[Path] = OUT_OPTION,
    llm: bool = LLM_OPTION,
) -> None:
    """Measure value linking: gold literals that occur in the data, found at top 1 / top 5.

    Loads and onboards (no LLM) every needed database first (cached). Summary keys:
    questions, literals, literals_in_db, recall_at_1, recall_at_5, naive_recall_at_5
    (the pruner's own value look-up), link_ms_p50. Last stdout line: JSON.

    Example: sqlgenie eval values --dataset ../shared/benchdata/spider --out values.jsonl
    """
    from sqlgenie.cli.common import err_console
    from sqlgenie.cli.eval_cmd import _finish, _progress
    from sqlgenie.eval.datasets import parse_db_filter
    from sqlgenie.inference.eval_values import eval_values

    with _progress("values") as progress:
        result = eval_values(dataset, questions_file=questions, dbs=parse_db_filter(dbs), limit=limit,
                             probes=probes, progress=progress)
    s = result.summary
    err_console.print(
        f"{s['literals_in_db']} gold literals in the data: recall@1 {s['recall_at_1']:.4f}, "
        f"recall@5 {s['recall_at_5']:.4f} (naive@5 {s['naive_recall_at_5']:.4f}) on {s['questions']} questions",
        highlight=False,
    )
    _finish(result, out, llm)
