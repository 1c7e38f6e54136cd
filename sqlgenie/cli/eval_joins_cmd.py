"""``sqlgenie eval joins``: the JOIN planner on gold queries (library:
:mod:`sqlgenie.inference.eval_joins`).

Register on the eval app with ``eval_joins_cmd.register(eval_cmd.app)``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from sqlgenie.cli.eval_cmd import DBS_OPTION, LIMIT_OPTION, LLM_OPTION, OUT_OPTION, QUESTIONS_OPTION
from sqlgenie.cli.eval_cmd import SPIDER_DATASET_OPTION as DATASET_OPTION


def joins(
    dataset: Optional[Path] = DATASET_OPTION,
    questions: Optional[str] = QUESTIONS_OPTION,
    dbs: Optional[str] = DBS_OPTION,
    limit: Optional[int] = LIMIT_OPTION,
    use_question: bool = typer.Option(
        True, "--question/--no-question",
        help="Give the planner the question's words (they choose among several joins of the same two tables).",
    ),
    proposed: bool = typer.Option(True, "--proposed/--no-proposed", help="Joins onboarding left proposed may connect tables."),
    rejected: bool = typer.Option(
        True, "--rejected/--no-rejected", help="Pairs onboarding rejected by score may connect tables (a last resort)."),
    guess: bool = typer.Option(True, "--guess/--no-guess", help="Name-only guesses may connect tables (a last resort)."),
    keep_catalog: bool = typer.Option(
        False, "--keep-catalog", help="Keep the eval schemas' catalog entries (default: removed after scoring)."),
    out: Optional[Path] = OUT_OPTION,
    llm: bool = LLM_OPTION,
) -> None:
    """JOIN planner: every database is loaded with its keys dropped and onboarded with
    no LLM (as `eval fk`); for each gold SELECT reading two or more tables the planner
    gets those tables and its join conditions are compared with the gold's as
    unordered column-pair sets. Last line: questions, join_exact (every join site of
    the question equal), site_exact, by_tables, misses (wrong_pairs, gold_extra_pairs,
    no_gold_condition, self_join, unconnected, unknown_table), db_halves (A: databases
    whose id's MD5 is even, B: the others), by_db. No LLM.

    Example: sqlgenie eval joins --dataset ../shared/benchdata/spider --out joins.jsonl
    """
    from sqlgenie.cli.common import err_console
    from sqlgenie.cli.eval_cmd import _finish, _progress
    from sqlgenie.config import get_settings
    from sqlgenie.eval.datasets import parse_db_filter
    from sqlgenie.inference.eval_joins import eval_joins

    settings = get_settings()
    with _progress("eval joins") as progress:
        result = eval_joins(
            dataset if dataset is not None else settings.benchdata_dir / "spider", settings=settings,
            questions_file=questions, dbs=parse_db_filter(dbs), limit=limit, progress=progress,
            keep_catalog=keep_catalog, proposed=proposed, rejected=rejected, guess=guess, use_question=use_question,
        )
    s = result.summary
    err_console.print(f"joins: join_exact {s['join_exact']:.4f} ({s['exact']} of {s['questions']} questions), "
                      f"site_exact {s['site_exact']:.4f}", highlight=False)
    _finish(result, out, False)


def register(app: typer.Typer) -> None:
    """Add ``joins`` to the ``sqlgenie eval`` app."""
    app.command("joins")(joins)
