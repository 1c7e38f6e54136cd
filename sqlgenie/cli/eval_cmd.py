"""``sqlgenie eval``: evaluation tasks on benchmark datasets (Spider and Defog layouts).

Every task: ``sqlgenie eval <task> --dataset DIR [--questions FILE] [--dbs a,b]
[--limit N]``; offline (no LLM unless ``--llm``); a progress bar on stderr;
per-question records as JSONL with ``--out FILE``; the last line of stdout is one
JSON object with ``"task"`` and its metrics. The work is in :mod:`sqlgenie.eval`.
"""

from __future__ import annotations

import json
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator, Optional

import typer

from sqlgenie.cli.common import err_console, print_json, progress_bar, to_jsonable
from sqlgenie.config import get_settings
from sqlgenie.errors import InputError

app = typer.Typer(help="Evaluate modules on benchmarks (Spider, Defog); last stdout line is JSON.", no_args_is_help=True)

DATASET_OPTION = typer.Option(
    None, "--dataset", help="Dataset directory (Spider or Defog layout). Default: <benchdata_dir>/spider."
)
QUESTIONS_OPTION = typer.Option(
    None, "--questions", help="Questions file (relative to the dataset or absolute). Default: dev.json / questions_gen_postgres.csv."
)
SPIDER_DATASET_OPTION = typer.Option(
    None, "--dataset", help="Dataset directory (Spider layout). Default: <benchdata_dir>/spider."
)
DBS_OPTION = typer.Option(None, "--dbs", help="Only these databases (comma-separated db ids).")
LIMIT_OPTION = typer.Option(None, "--limit", min=0, help="Only the first N selected questions.")
OUT_OPTION = typer.Option(None, "--out", help="Write per-question records as JSONL to this file.")
LLM_OPTION = typer.Option(False, "--llm", help="Allow LLM calls (tasks of this issue never call one).")
TIMEOUT_OPTION = typer.Option(None, "--timeout-ms", min=1, help="Per-query timeout (default: statement_timeout_ms).")


def _dataset(path: Optional[Path]):
    from sqlgenie.eval.datasets import open_dataset

    return open_dataset(path if path is not None else get_settings().benchdata_dir / "spider")


def _url() -> str:
    from sqlgenie.store.connection import target_url

    return target_url(get_settings())


@contextmanager
def _progress(label: str) -> Iterator[Any]:
    """A rich progress bar on stderr; yields the ``(done, total)`` callback tasks take."""
    with progress_bar("[bold]{task.description}") as progress:
        task_id = progress.add_task(label, total=None)

        def callback(done: int, total: int) -> None:
            progress.update(task_id, completed=done, total=total)

        yield callback


def _write_jsonl(path: Optional[Path], records: list[dict[str, Any]]) -> None:
    if path is None:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as fh:
        for rec in records:
            fh.write(json.dumps(to_jsonable(rec), ensure_ascii=False, default=str) + "\n")


def _finish(result, out: Optional[Path], llm: bool) -> None:
    _write_jsonl(out, result.records)
    summary = dict(result.summary)
    summary["llm"] = llm
    if out is not None:
        summary["out"] = str(out)
    print_json(summary)


@app.command("load")
def load(
    dataset: Optional[Path] = DATASET_OPTION,
    questions: Optional[str] = QUESTIONS_OPTION,
    dbs: Optional[str] = DBS_OPTION,
    limit: Optional[int] = LIMIT_OPTION,
    keys: str = typer.Option("keep", "--keys", help="keep: create declared primary/foreign keys; drop: leave them out."),
    force: bool = typer.Option(False, "--force", help="Reload even when the cache says a database is unchanged."),
    out: Optional[Path] = OUT_OPTION,
    llm: bool = LLM_OPTION,
) -> None:
    """Load each benchmark database into its own PostgreSQL schema (cached).

    SQLite files for the Spider layout (missing files: empty tables from
    tables.json), dumps for the Defog layout; idempotent. --questions and --limit
    are accepted for a uniform contract and unused.

    Example: sqlgenie eval load --dataset ../shared/benchdata/spider --keys drop
    """
    from sqlgenie.eval.datasets import parse_db_filter
    from sqlgenie.eval.tasks import load_dataset

    if keys not in ("keep", "drop"):
        raise InputError(f"--keys must be keep or drop, not {keys!r}.")
    ds = _dataset(dataset)
    url = _url()
    with _progress("load") as progress:
        result = load_dataset(ds, url, dbs=parse_db_filter(dbs), keys=keys, force=force, progress=progress)
    s = result.summary
    err_console.print(
        f"loaded {s['loaded']}, cached {s['cached']}, schema-only {s['schema_only']} of {s['databases']} databases "
        f"({s['rows']} rows) in {s['seconds']} s",
        highlight=False,
    )
    _finish(result, out, llm)


@app.command("gold-check")
def gold_check(
    dataset: Optional[Path] = DATASET_OPTION,
    questions: Optional[str] = QUESTIONS_OPTION,
    dbs: Optional[str] = DBS_OPTION,
    limit: Optional[int] = LIMIT_OPTION,
    timeout_ms: Optional[int] = TIMEOUT_OPTION,
    out: Optional[Path] = OUT_OPTION,
    llm: bool = LLM_OPTION,
) -> None:
    """Check transpiled gold on PostgreSQL against the original on SQLite.

    Reports how often the two results agree (Defog: whether every gold
    alternative runs); differences due only to ties under ORDER BY count as
    agreement and are reported as agree_by_tie. Loads missing databases first.

    Example: sqlgenie eval gold-check --dataset ../shared/benchdata/spider --out gold.jsonl
    """
    from sqlgenie.eval.datasets import parse_db_filter
    from sqlgenie.eval.tasks import gold_check as run

    ds = _dataset(dataset)
    url = _url()
    timeout = timeout_ms or get_settings().statement_timeout_ms
    with _progress("gold-check") as progress:
        result = run(ds, url, questions_file=questions, dbs=parse_db_filter(dbs), limit=limit, timeout_ms=timeout, progress=progress)
    s = result.summary
    err_console.print(f"gold agreement {s['agree']}/{s['questions']} = {s['agree_rate']:.4f}", highlight=False)
    _finish(result, out, llm)


@app.command("ex")
def ex(
    pred: Path = typer.Option(
        ..., "--pred",
        help='Predictions: JSON list or JSONL of {"question_index": i, "sql": "..."} ("index" accepted too); '
        'add "dialect": "sqlite" to SQL written for SQLite (it is transpiled to PostgreSQL first; default postgres).',
    ),
    dataset: Optional[Path] = DATASET_OPTION,
    questions: Optional[str] = QUESTIONS_OPTION,
    dbs: Optional[str] = DBS_OPTION,
    limit: Optional[int] = LIMIT_OPTION,
    baseline: Optional[Path] = typer.Option(
        None, "--baseline", help="Predictions before a revision step: adds transition rates."
    ),
    strict_columns: bool = typer.Option(False, "--strict-columns", help="Column order must match the gold's."),
    ves_iterations: int = typer.Option(1, "--ves-iterations", min=1, help="Runs per query for VES timing (fastest kept)."),
    timeout_ms: Optional[int] = TIMEOUT_OPTION,
    out: Optional[Path] = OUT_OPTION,
    llm: bool = LLM_OPTION,
) -> None:
    """Score a predictions file by execution accuracy.

    Results compared as multisets (ordered when the gold has ORDER BY) with
    numeric tolerance; correct / incorrect / error rates, error buckets, soft-F1,
    VES, schema F1 and cost. Predictions run through the SafeExecutor.

    Each prediction may carry "dialect": "sqlite" (the recorded predictions in
    benchdata/predictions do): its SQL is then transpiled to PostgreSQL with the
    gold's transpiler before it runs; without it the SQL is taken as PostgreSQL.

    Example: sqlgenie eval ex --dataset ../shared/benchdata/spider --pred preds.json --out ex.jsonl
    """
    from sqlgenie.eval.datasets import parse_db_filter
    from sqlgenie.eval.tasks import execution_accuracy, read_predictions

    ds = _dataset(dataset)
    predictions = read_predictions(pred)
    base = read_predictions(baseline) if baseline is not None else None
    url = _url()
    timeout = timeout_ms or get_settings().statement_timeout_ms
    with _progress("ex") as progress:
        result = execution_accuracy(
            ds,
            url,
            predictions,
            questions_file=questions,
            dbs=parse_db_filter(dbs),
            limit=limit,
            timeout_ms=timeout,
            column_order=strict_columns,
            ves_iterations=ves_iterations,
            baseline=base,
            progress=progress,
        )
    s = result.summary
    err_console.print(
        f"EX {s['ex']:.4f} on {s['questions']} questions (errors {s['error_rate']:.4f})", highlight=False
    )
    _finish(result, out, llm)


@app.command("preds")
def preds(
    dataset: Optional[Path] = DATASET_OPTION,
    questions: Optional[str] = QUESTIONS_OPTION,
    dbs: Optional[str] = DBS_OPTION,
    limit: Optional[int] = LIMIT_OPTION,
    shuffle: bool = typer.Option(False, "--shuffle", help="Give each question another question's gold SQL."),
    seed: int = typer.Option(0, "--seed", help="Random seed for --shuffle."),
    out: Optional[Path] = OUT_OPTION,
    llm: bool = LLM_OPTION,
) -> None:
    """Write gold (or shuffled gold) SQL as a predictions file.

    Checks of the harness itself: gold scores 1.0 with `ex`, shuffled gold
    scores low. Written as JSONL via --out, which --pred accepts.

    Example: sqlgenie eval preds --dataset ../shared/benchdata/spider --shuffle --out shuffled.jsonl
    """
    from sqlgenie.eval.datasets import parse_db_filter
    from sqlgenie.eval.tasks import make_predictions

    ds = _dataset(dataset)
    url = _url()
    with _progress("preds") as progress:
        result = make_predictions(
            ds, url, questions_file=questions, dbs=parse_db_filter(dbs), limit=limit, shuffle=shuffle, seed=seed, progress=progress
        )
    result.records = [{"index": r["question_index"], **r} for r in result.records]
    _finish(result, out, llm)


@app.command("autocorrect")
def autocorrect(
    dataset: Optional[Path] = DATASET_OPTION,
    dbs: Optional[str] = DBS_OPTION,
    limit: Optional[int] = LIMIT_OPTION,
    seed: int = typer.Option(0, "--seed", help="Seed of the literal perturbations."),
    reonboard: bool = typer.Option(False, "--reonboard", help="Onboard the databases again even if cached."),
    timeout_ms: Optional[int] = TIMEOUT_OPTION,
    out: Optional[Path] = OUT_OPTION,
    llm: bool = LLM_OPTION,
) -> None:
    """Do-no-harm and repair rates of the autocorrector chain on gold queries (keys
    gold_unchanged_rate, perturbed, restored_rate).

    Example: sqlgenie eval autocorrect --dataset ../shared/benchdata/spider --out ac.jsonl
    """
    from sqlgenie.autocorrect import AutocorrectSettings
    from sqlgenie.autocorrect.eval_autocorrect import eval_autocorrect
    from sqlgenie.eval.datasets import parse_db_filter
    from sqlgenie.eval.tasks import TaskResult

    settings = get_settings()
    records: list = []
    with _progress("autocorrect") as progress:
        summary = eval_autocorrect(
            _dataset(dataset), _url(), dbs=parse_db_filter(dbs), limit=limit, seed=seed,
            timeout_ms=timeout_ms or settings.statement_timeout_ms, reonboard=reonboard,
            settings=AutocorrectSettings.from_settings(settings), progress=progress, records=records,
        )
    _finish(TaskResult(summary, records), out, llm)
