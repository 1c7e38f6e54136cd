"""``sqlgenie eval select``: candidate selection measured on recorded predictions
(the library is :mod:`sqlgenie.feedback.eval_select`)."""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer

from sqlgenie.cli.common import err_console


def select(
    predictions: List[Path] = typer.Option(
        ..., "--predictions",
        help="Predictions files, one per system (JSONL of {index|question_index, sql, dialect}); "
        "repeat the option or list the files after it.",
    ),
    extra: List[str] = typer.Argument(None, help="More predictions files (after --predictions F1)."),
    dataset: Optional[Path] = typer.Option(None, "--dataset", help="Benchmark directory (default: benchdata/spider)."),
    candidates: Optional[Path] = typer.Option(
        None, "--candidates", help='A file with many candidates per question: {"index", "candidates": [{"sql"}...]}.'
    ),
    questions: Optional[str] = typer.Option(None, "--questions", help="Questions file inside the dataset (default dev.json)."),
    dbs: Optional[str] = typer.Option(None, "--dbs", help="Only these databases (comma-separated)."),
    limit: Optional[int] = typer.Option(None, "--limit", min=1, help="Only the first N questions."),
    weights: str = typer.Option(
        "agreement", "--weights",
        help="agreement: each system's vote weighs by its agreement with the others (no gold used); equal: one vote each.",
    ),
    critic: bool = typer.Option(
        True, "--critic/--no-critic",
        help="Score disagreeing clusters with the critic's checks (onboards each database's catalog, no LLM).",
    ),
    keys: str = typer.Option(
        "drop", "--keys", help="Keys of the loaded copies the critic's catalogs use (as eval load --keys).",
    ),
    distinguish: bool = typer.Option(
        False, "--distinguish",
        help="Build a distinguishing database for close calls between the two best clusters (no LLM: "
        "evidence only, the pick does not change; figures under \"distinguish\").",
    ),
    cache: Optional[Path] = typer.Option(None, "--cache", help="Pickle of execution results to reuse between runs."),
    timeout_ms: Optional[int] = typer.Option(None, "--timeout-ms", help="Statement timeout per query."),
    out: Optional[Path] = typer.Option(None, "--out", help="Per-question records (JSONL)."),
) -> None:
    """Measure candidate selection alone on several systems' recorded predictions.

    Each system's prediction is one candidate; every candidate runs on
    PostgreSQL (SQLite-dialect SQL is transpiled first) and the selector
    (cluster by result, reliability-weighted votes, empty/zero results
    ranked last, the critic's checks on disagreeing clusters) picks one.
    The last stdout line is JSON: questions, candidates_per_question,
    ex_selected, ex_best_single, ex_majority (largest group of equal
    results, ties to the first file), ex_oracle.

    Example: sqlgenie eval select --dataset ../shared/benchdata/spider --predictions ../shared/benchdata/predictions/din_sql_gpt4.jsonl ../shared/benchdata/predictions/codes_3b.jsonl
    """
    from sqlgenie.cli.eval_cmd import _dataset, _finish, _progress, _url
    from sqlgenie.config import get_settings
    from sqlgenie.eval.datasets import parse_db_filter
    from sqlgenie.feedback.eval_select import evaluate_selection

    files = list(predictions) + [Path(p) for p in (extra or [])]
    ds = _dataset(dataset)
    with _progress("select") as progress:
        result = evaluate_selection(
            ds, _url(), files, candidates_file=candidates, questions_file=questions, dbs=parse_db_filter(dbs),
            limit=limit, timeout_ms=timeout_ms or get_settings().statement_timeout_ms, weights=weights,
            cache_path=cache, critic=critic, keys=keys, distinguish=distinguish, progress=progress,
        )
    s = result.summary
    err_console.print(
        f"selected {s['ex_selected']:.4f}  majority {s['ex_majority']:.4f}  best single {s['ex_best_single']:.4f}  "
        f"oracle {s['ex_oracle']:.4f}  on {s['questions']} questions", highlight=False,
    )
    _finish(result, out, False)
