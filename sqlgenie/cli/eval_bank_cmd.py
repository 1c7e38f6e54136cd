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
    suite: bool = typer.Option(True, "--suite/--no-suite",
                               help="Templated sets: test-suite check of undecided answers (precision_suite, ...)."),
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
                           limit=limit, timeout_ms=timeout, settings=settings, progress=progress, route=route,
                           suite=suite)
    s = result.summary
    err_console.print(
        f"answered {s['answered']}/{s['questions']} (coverage {s['coverage']:.3f}); EX answered {s['ex_answered']:.3f}, "
        f"overall {s['ex_overall']:.3f}; p50 {s['p50_ms']:.1f} ms",
        highlight=False,
    )
    _finish(result, out, llm)


def text2sql_split(
    out: Path = typer.Option(..., "--out", help="Directory for <set>_bank.json and <set>_test.json."),
    sets: str = typer.Option("scholar,advising,atis", "--sets", help="Comma-separated templated sets (advising, atis, scholar, academic, yelp, imdb)."),
    benchdata: Optional[Path] = typer.Option(None, "--benchdata", help="Benchmark data root holding text2sql/ and defog/ (default: settings.benchdata_dir)."),
    seed: int = typer.Option(0, "--seed", help="Seed of the template hold-out and of the sentence draw."),
    holdout: float = typer.Option(0.3, "--holdout", help="Share of templates held out entirely (their test questions are 'novel')."),
    bank_fraction: float = typer.Option(0.5, "--bank-fraction", help="Share of a kept template's sentences that go to the bank."),
    bank_per_template: int = typer.Option(8, "--bank-per-template", min=1, help="Most bank sentences per template."),
    test_per_template: int = typer.Option(4, "--test-per-template", min=1, help="Most test sentences per template."),
    max_test: Optional[int] = typer.Option(None, "--max-test", min=1, help="Most test questions per set (seeded sample, seen/novel in proportion)."),
    augment: bool = typer.Option(True, "--augment/--no-augment", help="Write OUT/defog-data/t2s_<set>/ dumps holding every value the questions name (then pass --dataset OUT to eval bank); --no-augment uses the original Defog dumps."),
) -> None:
    """Convert templated question sets (text2sql/<set>.json) into bank/test files for eval bank.

    Each sentence's values are substituted into its text and into every gold variant
    (sqlglot AST, MySQL-style -> PostgreSQL, typed for the Defog dump); templates are
    kept whole: a seeded --holdout share of them goes only to test ('novel'), the
    others give bank sentences and 'seen' test sentences. OUT is then a Defog-layout
    dataset: each set's dump plus rows holding every value its questions name (so a
    refusal is never only "the tiny dump lacks this value"). Answers are scored by
    canonical SQL equality with any gold variant (docs/benchmarks.md, issue 13).

    Example: sqlgenie eval text2sql-split --out /tmp/t2s --sets scholar,advising,atis --seed 0
    then: sqlgenie eval bank --dataset /tmp/t2s --questions /tmp/t2s/scholar_test.json --bank /tmp/t2s/scholar_bank.json
    """
    from sqlgenie.cli.common import print_json
    from sqlgenie.eval.text2sql import write_splits

    root = benchdata or get_settings().benchdata_dir
    names = [s.strip() for s in sets.split(",") if s.strip()]
    report = write_splits(root, names, out, seed=seed, holdout=holdout, bank_fraction=bank_fraction,
                          bank_per_template=bank_per_template, test_per_template=test_per_template, max_test=max_test,
                          augment=augment)
    for name, r in report["sets"].items():
        err_console.print(f"{name}: {r['pairs']} pairs of {r['templates']} templates -> bank {r['bank']}, "
                          f"test {r['test']} ({r['seen']} seen, {r['novel']} novel)", highlight=False)
    print_json(report)
