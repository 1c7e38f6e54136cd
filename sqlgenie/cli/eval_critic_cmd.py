"""``sqlgenie eval critic``: the deterministic critic on recorded predictions.

Registered by ``sqlgenie/cli/__init__.py`` on the eval group. The work is in
:mod:`sqlgenie.inference.critic.evaluate`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from sqlgenie.cli.eval_cmd import DBS_OPTION, LIMIT_OPTION, LLM_OPTION, OUT_OPTION, TIMEOUT_OPTION
from sqlgenie.cli.eval_cmd import SPIDER_DATASET_OPTION as DATASET_OPTION
from sqlgenie.errors import InputError


def critic(
    predictions: Path = typer.Option(
        ..., "--predictions",
        help='Recorded predictions, JSONL or a JSON list of {"index" (or "question_index"), "sql", "dialect"}; '
        '"dialect": "sqlite" SQL is transpiled to PostgreSQL first (as in `eval ex`).',
    ),
    dataset: Optional[Path] = DATASET_OPTION,
    dbs: Optional[str] = DBS_OPTION,
    limit: Optional[int] = LIMIT_OPTION,
    keys: str = typer.Option(
        "keep", "--keys",
        help="keep: databases loaded with their declared keys, read by onboarding (default, as `eval load`); "
        "drop: keys left to onboarding's inference.",
    ),
    timeout_ms: Optional[int] = TIMEOUT_OPTION,
    out: Optional[Path] = OUT_OPTION,
    llm: bool = LLM_OPTION,
) -> None:
    """Run the critic and its exact repairs over recorded predictions.

    Each prediction is scored by execution against the gold (the `eval ex`
    harness), critiqued on its database's onboarded catalog (loaded and onboarded
    first, cached), and re-scored when a repair changed it. Last stdout line:
    questions, ex_before, ex_after, flagged, flag_precision (flagged that were
    wrong), flag_recall (wrong that were flagged), i2c, c2i, and per check
    counts and precision (by_check). No LLM.

    Example: sqlgenie eval critic --dataset ../shared/benchdata/spider
    --predictions ../shared/benchdata/predictions/din_sql_gpt4.jsonl --out critic.jsonl
    """
    from sqlgenie.cli.common import err_console
    from sqlgenie.cli.eval_cmd import _dataset, _finish, _progress
    from sqlgenie.config import get_settings
    from sqlgenie.eval.datasets import parse_db_filter
    from sqlgenie.inference.critic.evaluate import eval_critic

    if keys not in ("keep", "drop"):
        raise InputError(f"--keys must be keep or drop, not {keys!r}.")
    settings = get_settings()
    with _progress("critic") as progress:
        result = eval_critic(
            _dataset(dataset), predictions, settings=settings, dbs=parse_db_filter(dbs), limit=limit, keys=keys,
            timeout_ms=timeout_ms or settings.statement_timeout_ms, progress=progress,
        )
    s = result.summary
    err_console.print(
        f"EX {s['ex_before']:.4f} -> {s['ex_after']:.4f} on {s['questions']} questions; flagged {s['flagged']} "
        f"(precision {s['flag_precision']}, recall {s['flag_recall']}); i2c {s['i2c']}, c2i {s['c2i']}",
        highlight=False,
    )
    _finish(result, out, llm)
