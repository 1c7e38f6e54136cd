"""``sqlgenie eval schema``: schema pruning quality on a Spider-layout dataset.

Registered by the eval group (``sqlgenie/cli/eval_cmd.py``)::

    from sqlgenie.cli import eval_schema_cmd
    app.command("schema")(eval_schema_cmd.schema)

The work is in :mod:`sqlgenie.inference.eval_schema`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from sqlgenie.errors import InputError

from sqlgenie.cli.eval_cmd import DBS_OPTION, LIMIT_OPTION, LLM_OPTION, OUT_OPTION
from sqlgenie.cli.eval_cmd import SPIDER_DATASET_OPTION as DATASET_OPTION

QUESTIONS_OPTION = typer.Option(
    None, "--questions", help="Questions file (relative to the dataset or absolute). Default: dev.json."
)


def schema(
    dataset: Optional[Path] = DATASET_OPTION,
    questions: Optional[str] = QUESTIONS_OPTION,
    dbs: Optional[str] = DBS_OPTION,
    limit: Optional[int] = LIMIT_OPTION,
    threshold: Optional[float] = typer.Option(
        None, "--threshold", min=0.0, max=1.0, help="δ: least column relevance kept (default: prune_threshold)."
    ),
    keys: str = typer.Option(
        "keep",
        "--keys",
        help="keep: the databases as published, declared keys read by onboarding (default, as `eval load`); "
        "drop: keys and joins left for onboarding to infer (the harder variant).",
    ),
    reonboard: bool = typer.Option(False, "--reonboard", help="Onboard every database again, even when catalogued."),
    variant: str = typer.Option(
        "none", "--variant",
        help="none; synonyms: schema words of the questions replaced by WordNet synonyms (needs the Debian "
        "package wordnet-base); synonyms-mythes / synonyms-aiksaurus: the same with the LibreOffice thesaurus "
        "(mythes-en-us, made from WordNet) or Aiksaurus (libaiksaurus-1.2-data, independent of WordNet); schema-only: databases loaded into <schema>_so with their rows removed.",
    ),
    values: bool = typer.Option(
        True, "--values/--no-values",
        help="Link the question's values first (cached values only); the best link of a span keeps its column.",
    ),
    out: Optional[Path] = OUT_OPTION,
    llm: bool = LLM_OPTION,
) -> None:
    """Measure schema pruning: gold columns kept vs share of the schema kept.

    Loads and onboards (no LLM) every needed database first (cached). Metrics:
    column_recall, column_precision, table_recall, kept_fraction,
    full_coverage_rate (questions with every gold column kept), and a curve over δ.

    Example: sqlgenie eval schema --dataset ../shared/benchdata/spider --out schema.jsonl
    """
    from sqlgenie.cli.common import err_console
    from sqlgenie.cli.eval_cmd import _finish, _progress
    from sqlgenie.eval.datasets import parse_db_filter
    from sqlgenie.inference.eval_schema import eval_schema

    if keys not in ("keep", "drop"):
        raise InputError(f"--keys must be keep or drop, not {keys!r}.")
    with _progress("schema") as progress:
        result = eval_schema(
            dataset, questions_file=questions, dbs=parse_db_filter(dbs), limit=limit, threshold=threshold,
            keys=keys, reonboard=reonboard, progress=progress, values=values, variant=variant,
        )
    s = result.summary
    err_console.print(
        f"column recall {s['column_recall']:.4f}, kept {s['kept_fraction']:.4f} of the schema, full coverage "
        f"{s['full_coverage_rate']:.4f} on {s['questions']} questions (δ = {s['threshold']})",
        highlight=False,
    )
    _finish(result, out, llm)
