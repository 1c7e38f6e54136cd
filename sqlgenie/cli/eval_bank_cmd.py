"""``sqlgenie eval bank``: the match route answering from a bank of verified pairs,
with no LLM (library: :mod:`sqlgenie.inference.eval_bank`)."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from sqlgenie.cli.common import err_console
from sqlgenie.cli.eval_cmd import (
    DATASET_OPTION,
    DBS_OPTION,
    LIMIT_OPTION,
    LLM_OPTION,
    OUT_OPTION,
    QUESTIONS_OPTION,
    TIMEOUT_OPTION,
    _dataset,
    _finish,
    _progress,
    _url,
)
from sqlgenie.config import get_settings


def bank(
    bank_file: str = typer.Option(..., "--bank", help="Verified pairs in the questions format (relative to the dataset or absolute)."),
    dataset: Optional[Path] = DATASET_OPTION,
    questions: Optional[str] = QUESTIONS_OPTION,
    dbs: Optional[str] = DBS_OPTION,
    limit: Optional[int] = LIMIT_OPTION,
    route: str = typer.Option("auto", "--route", help="auto, match or think (as for ask)."),
    timeout_ms: Optional[int] = TIMEOUT_OPTION,
    out: Optional[Path] = OUT_OPTION,
    llm: bool = LLM_OPTION,
) -> None:
    """Ask every question from a bank of verified pairs, no LLM; score execution accuracy.

    For each database: load and onboard it (cached), replace its bank examples with
    the --bank pairs, ask its questions and compare results with the gold. Reports
    coverage (answered share), ex_answered (accuracy among answered), ex_overall
    and p50_ms per question. Splits for development:
    python -m sqlgenie.inference.eval_bank split --out DIR.

    Example: sqlgenie eval bank --dataset ../shared/benchdata/spider --questions split/dev_paraphrase_test.json --bank split/dev_paraphrase_bank.json
    """
    from sqlgenie.eval.datasets import parse_db_filter
    from sqlgenie.inference.eval_bank import eval_bank
    from sqlgenie.inference.router import check_route

    check_route(route)
    ds = _dataset(dataset)
    settings = get_settings()
    timeout = timeout_ms or settings.statement_timeout_ms
    with _progress("bank") as progress:
        result = eval_bank(ds, _url(), bank_file=bank_file, questions_file=questions, dbs=parse_db_filter(dbs),
                           limit=limit, timeout_ms=timeout, settings=settings, progress=progress, route=route)
    s = result.summary
    err_console.print(
        f"answered {s['answered']}/{s['questions']} (coverage {s['coverage']:.3f}); EX answered {s['ex_answered']:.3f}, "
        f"overall {s['ex_overall']:.3f}; p50 {s['p50_ms']:.1f} ms",
        highlight=False,
    )
    _finish(result, out, llm)
