"""`sqlgenie bank`: the example bank of verified question -> SQL pairs."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Iterator, Optional

import typer
from rich.table import Table

from sqlgenie.cli.common import JSON_OPTION, console, err_console, print_json

app = typer.Typer(help="The example bank of verified question->SQL pairs.", no_args_is_help=True)

STATUS_HELP = "verified | pending | disputed | rejected"


@contextlib.contextmanager
def _session(need_target: bool = True) -> Iterator[tuple]:
    """(settings, store connection, target connection or None, target url)."""
    from sqlgenie.config import get_settings
    from sqlgenie.store import connect_store, open_connection, store_url, target_url

    settings = get_settings()
    with connect_store(settings) as store:
        if not need_target:
            yield settings, store, None, None
            return
        url = target_url(settings)
        if url == store_url(settings):
            yield settings, store, store, url
            return
        target = open_connection(url, autocommit=True)
        try:
            yield settings, store, target, url
        finally:
            target.close()


def _encoder(settings):
    from example_bank.embedder import get_embedder

    return get_embedder(settings.embedding_model).encode


def _example_dict(example, *, full: bool = False) -> dict:
    from example_bank.service import example_to_dict

    return example_to_dict(example, full=full)


@app.command("add")
def add(
    question: str = typer.Argument(..., help="The natural-language question."),
    sql: str = typer.Argument(..., help="The SQL that answers it."),
    dialect: str = typer.Option("postgres", "--dialect", help="Dialect of SQL (transpiled to PostgreSQL)."),
    status: str = typer.Option("verified", "--status", help=STATUS_HELP),
    source: str = typer.Option("user", "--source", help="import | user | critic | feedback"),
    as_json: bool = JSON_OPTION,
) -> None:
    """Add one question->SQL pair after validating it (parses, read-only, onboarded
    tables, runs with LIMIT 0 on the target). A duplicate is merged.

    Example: sqlgenie bank add "How many orders were placed in 2024?" "SELECT count(*) FROM orders WHERE extract(year FROM placed_at) = 2024"
    """
    from example_bank.service import add_example

    with _session() as (settings, store, target, url):
        payload = add_example(store, target, url, question, sql, encode=_encoder(settings),
                              model_name=settings.embedding_model, dialect=dialect, status=status, source=source)
    if as_json:
        print_json(payload)
        return
    verb = "merged into existing example" if payload["merged"] else "added example"
    console.print(f"{verb} [bold]{payload['id']}[/]")
    console.print(f"masked: {payload['masked_question']}", highlight=False)


@app.command("import")
def import_(
    file: Path = typer.Argument(..., help="JSON list, JSONL or CSV with columns question and sql."),
    dialect: str = typer.Option("postgres", "--dialect", help="Dialect of the SQL: postgres, sqlite, mysql, ..."),
    status: str = typer.Option("verified", "--status", help=STATUS_HELP),
    source: str = typer.Option("import", "--source", help="import | user | critic | feedback"),
    file_format: Optional[str] = typer.Option(None, "--format", help="json | jsonl | csv (default: from the extension)."),
    execute: bool = typer.Option(
        True, "--execute/--no-execute", help="Have the target plan each SQL (catches unknown columns, type errors)."
    ),
    rejected_out: Optional[Path] = typer.Option(None, "--rejected", help="Write rejected rows (JSONL) to this file."),
    as_json: bool = JSON_OPTION,
) -> None:
    """Import question->SQL pairs; invalid rows are reported with reasons and skipped.

    Example: sqlgenie bank import pairs.jsonl --dialect sqlite --rejected rejected.jsonl
    """
    import json

    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    from example_bank.importer import BankContext, import_pairs, read_pairs

    rows = list(read_pairs(file, file_format))
    with _session() as (settings, store, target, url):
        ctx = BankContext.load(store, target, url)
        encode = _encoder(settings)
        progress = Progress(
            TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
            console=err_console, transient=as_json,
        )
        try:
            with progress:
                task = progress.add_task("importing", total=len(rows))
                report = import_pairs(
                    ctx, rows, encode=encode, dialect=dialect, status=status, source=source,
                    model_name=settings.embedding_model, execute=execute, file_name=str(file),
                    progress=lambda n: progress.advance(task, n),
                    on_phase=lambda phase: progress.update(task, description=phase),
                )
        finally:
            ctx.close()
    if rejected_out is not None:
        with rejected_out.open("w", encoding="utf-8") as fh:
            for r in report.rejected:
                fh.write(json.dumps(r.__dict__, ensure_ascii=False) + "\n")
    summary = report.summary()
    if as_json:
        print_json(summary)
        return
    console.print(
        f"{report.rows} rows: [green]{report.added} added[/], {report.merged} merged, "
        f"[red]{len(report.rejected)} rejected[/] in {report.seconds:.1f}s ({report.pairs_per_second} pairs/s)"
    )
    if report.rejected:
        table = Table("row", "reason", "question", title="Rejected rows", show_lines=False)
        for r in report.rejected[:50]:
            table.add_row(str(r.row), f"{r.error}: {r.reason}", r.question[:60])
        console.print(table)
        if len(report.rejected) > 50:
            console.print(f"... and {len(report.rejected) - 50} more (use --rejected FILE or --json)")


@app.command("list")
def list_(
    status: Optional[str] = typer.Option(None, "--status", help=STATUS_HELP),
    source: Optional[str] = typer.Option(None, "--source", help="import | user | critic | feedback"),
    table: Optional[str] = typer.Option(None, "--table", help="Only examples using this table."),
    limit: int = typer.Option(50, "--limit", min=1),
    offset: int = typer.Option(0, "--offset", min=0),
    as_json: bool = JSON_OPTION,
) -> None:
    """List examples (oldest first).

    Example: sqlgenie bank list --status verified --limit 20
    """
    from example_bank.service import list_examples

    with _session(need_target=False) as (_s, store, _t, _u):
        payload = list_examples(store, status=status, source=source, table=table, limit=limit, offset=offset)
    if as_json:
        print_json(payload)
        return
    examples, total = payload["examples"], payload["total"]
    out = Table("id", "status", "source", "question", "tables", "uses", title=f"{len(examples)} of {total} examples")
    for e in examples:
        out.add_row(str(e["id"]), e["status"], e["source"], e["question"], ", ".join(e["tables"]), str(e["use_count"]))
    console.print(out)


@app.command("show")
def show(example_id: int = typer.Argument(..., help="Example id."), as_json: bool = JSON_OPTION) -> None:
    """Show one example with its masked question, skeleton, tables, columns and metrics.

    Example: sqlgenie bank show 42
    """
    from example_bank.store import BankStore
    from sqlgenie.errors import InputError

    with _session(need_target=False) as (_s, store, _t, _u):
        example = BankStore(store).get(example_id)
    if example is None:
        raise InputError(f"No example with id {example_id}.", hint="`sqlgenie bank list` shows the ids.")
    data = _example_dict(example, full=True)
    if as_json:
        print_json(data)
        return
    for key, value in data.items():
        console.print(f"[bold]{key}[/]: {value}", highlight=False)


@app.command("search")
def search(
    question: str = typer.Argument(..., help="The question to look up."),
    k: int = typer.Option(5, "-k", "--k", min=1, help="How many examples."),
    threshold: Optional[float] = typer.Option(None, "--threshold", help="Minimum cosine similarity (default T)."),
    status: list[str] = typer.Option(["verified"], "--status", help="Statuses searched (repeatable)."),
    all_tables: bool = typer.Option(False, "--all-tables", help="Do not filter by tables available on the target."),
    as_json: bool = JSON_OPTION,
) -> None:
    """Find the examples closest to a question: exact masked match first, then
    cosine similarity of masked embeddings above the threshold.

    Example: sqlgenie bank search "How many orders were placed in 2023?" -k 3
    """
    from example_bank.service import search_examples

    with _session() as (settings, store, target, _url):
        limit = settings.match_threshold if threshold is None else threshold
        payload = search_examples(store, target, question, encode=_encoder(settings), threshold=limit, k=k,
                                  statuses=tuple(status), filter_tables=not all_tables)
    if as_json:
        print_json(payload)
        return
    console.print(f"masked: {payload['masked_question']}   (threshold {limit})", highlight=False)
    if not payload["matches"]:
        console.print("[yellow]no example above the threshold[/]")
        return
    out = Table("score", "id", "question", "sql")
    for m in payload["matches"]:
        out.add_row(f"{m['score']:.3f}{' =' if m['exact'] else ''}", str(m["id"]), m["question"], m["sql"])
    console.print(out)


@app.command("remove")
def remove(example_id: int = typer.Argument(..., help="Example id."), as_json: bool = JSON_OPTION) -> None:
    """Delete one example (and its metrics).

    Example: sqlgenie bank remove 42
    """
    from example_bank.store import BankStore
    from sqlgenie.errors import InputError

    with _session(need_target=False) as (_s, store, _t, _u):
        removed = BankStore(store).remove(example_id)
    if not removed:
        raise InputError(f"No example with id {example_id}.", hint="`sqlgenie bank list` shows the ids.")
    if as_json:
        print_json({"removed": example_id})
    else:
        console.print(f"removed example {example_id}")


@app.command("export")
def export(
    file: Path = typer.Argument(..., help="Output .json, .jsonl or .csv (importable with `bank import`)."),
    status: Optional[str] = typer.Option(None, "--status", help=STATUS_HELP),
    as_json: bool = JSON_OPTION,
) -> None:
    """Export examples to a file that `sqlgenie bank import` reads back.

    Example: sqlgenie bank export bank.jsonl --status verified
    """
    from example_bank.importer import export_examples
    from example_bank.store import BankStore

    with _session(need_target=False) as (_s, store, _t, _u):
        n = export_examples(BankStore(store), file, status=status)
    if as_json:
        print_json({"file": str(file), "exported": n})
    else:
        console.print(f"exported {n} examples to {file}")
