"""``sqlgenie eval retrieval``: a thin, lazily importing wrapper (numpy and the model
load only when the task runs) around :mod:`example_bank.eval_retrieval`."""

from __future__ import annotations

from pathlib import Path

import typer


def retrieval(
    dataset: Path = typer.Option(None, "--dataset", help="Spider directory (default: <benchdata_dir>/spider)."),
    questions: str = typer.Option("train_spider_compact.json", "--questions", help="Questions file in the dataset."),
    limit: int = typer.Option(0, "--limit", help="Only the first N databases (0: all)."),
) -> None:
    """Template retrieval quality on Spider: top-1 skeleton match with and without noun
    masking (keys questions, skeleton_at1_masked, skeleton_at1_unmasked).

    Example: sqlgenie eval retrieval --limit 20
    """
    from example_bank.eval_retrieval import retrieval_command

    retrieval_command(dataset=dataset, questions=questions, limit=limit)
