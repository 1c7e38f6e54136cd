"""``sqlgenie feedback``, ``worker``, ``jobs`` and ``review`` (the library is
:mod:`sqlgenie.feedback`)."""

from __future__ import annotations

import contextlib
from typing import Iterator, Optional

import typer

from sqlgenie.cli.common import JSON_OPTION, console, err_console, print_json

jobs_app = typer.Typer(help="The background job queue (regeneration after a thumbs-down).", no_args_is_help=True)
review_app = typer.Typer(help="The review queue: corrected and regenerated answers waiting for a person.",
                         no_args_is_help=True)


@contextlib.contextmanager
def _store() -> Iterator[tuple]:
    from sqlgenie.config import get_settings
    from sqlgenie.store.connection import open_connection, store_url
    from sqlgenie.store.migrations import ensure_migrated

    settings = get_settings()
    url = store_url(settings)
    ensure_migrated(url)
    conn = open_connection(url, autocommit=True)
    try:
        yield settings, conn
    finally:
        conn.close()


def feedback(
    ask_id: int = typer.Argument(..., help="The answer's id (printed by `sqlgenie ask`; `ask --json` has it as id)."),
    verdict: str = typer.Argument(..., help="up (the answer is right) or down (it is wrong)."),
    comment: Optional[str] = typer.Option(None, "--comment", help="What is wrong (or right) with the answer."),
    sql: Optional[str] = typer.Option(None, "--sql", help="down: the corrected SQL (run by the safe executor, then reviewed)."),
    user: Optional[str] = typer.Option(None, "--user", help="Who gives the feedback (kept as provenance)."),
    as_json: bool = JSON_OPTION,
) -> None:
    """Say whether an answer was right: up puts the pair into the bank, down queues a regeneration.

    up: the question and its SQL enter the example bank as verified (merged with a
    duplicate), with the ask id, user, time, route and source example. down: the
    comment is kept, the source example is marked (after repeated downs it is no
    longer used for matching until reviewed), a corrected --sql is run by the safe
    executor and queued for review, and a regeneration job is queued for
    `sqlgenie worker`.

    Example: sqlgenie feedback 42 down --comment "should count distinct customers" --sql "SELECT count(DISTINCT customer_id) FROM orders"
    """
    from sqlgenie.feedback.service import give_feedback

    with _store() as (settings, store):
        result = give_feedback(store, ask_id, verdict, comment=comment, sql=sql, user=user, settings=settings)
    if as_json:
        print_json(result.to_dict())
        return
    console.print(f"feedback [bold]{result.feedback_id}[/] recorded ({result.verdict}) on answer {result.ask_id}",
                  highlight=False)
    for message in result.messages:
        console.print(f"  {message}", highlight=False)


def worker(
    once: bool = typer.Option(False, "--once", help="Run the jobs that are ready, then stop."),
    concurrency: int = typer.Option(1, "--concurrency", min=1, max=32, help="Jobs run at the same time (threads)."),
    poll_s: float = typer.Option(1.0, "--poll", min=0.05, help="Seconds between looks at an empty queue."),
    max_jobs: Optional[int] = typer.Option(None, "--max-jobs", min=1, help="Stop after this many jobs."),
    as_json: bool = JSON_OPTION,
) -> None:
    """Run queued jobs (regeneration after a thumbs-down) until stopped.

    Long-running by default; stops cleanly on SIGTERM or Ctrl-C (the running jobs
    finish first). A worker killed outright loses nothing: its jobs are taken again
    when their lease runs out, and their results are written once.

    Example: sqlgenie worker --concurrency 2
    """
    from sqlgenie.feedback.worker import run_worker

    stats = run_worker(once=once, concurrency=concurrency, poll_s=poll_s, max_jobs=max_jobs,
                       log=lambda m: err_console.print(m, highlight=False))
    if as_json:
        print_json(stats)
    else:
        err_console.print(f"worker stopped: {stats['done']} done, {stats['failed']} failed, "
                          f"{stats['lost']} lost", highlight=False)


@jobs_app.command("list")
def jobs_list(
    state: Optional[str] = typer.Option(None, "--state", help="queued | running | done | dead"),
    limit: int = typer.Option(100, "--limit", min=1),
    as_json: bool = JSON_OPTION,
) -> None:
    """List jobs, newest first.

    Example: sqlgenie jobs list --state dead --json
    """
    from sqlgenie.feedback.queue import counts, list_jobs

    with _store() as (_settings, store):
        jobs = list_jobs(store, state=state, limit=limit)
        totals = counts(store)
    if as_json:
        print_json({"jobs": [j.to_dict() for j in jobs], "counts": totals})
        return
    from rich.table import Table

    table = Table("id", "kind", "state", "attempts", "error", "created")
    for j in jobs:
        table.add_row(str(j.id), j.kind, j.state, f"{j.attempts}/{j.max_attempts}", (j.error or "")[:60],
                      j.created_at.strftime("%Y-%m-%d %H:%M:%S") if j.created_at else "")
    console.print(table)
    console.print(" ".join(f"{k} {v}" for k, v in totals.items()), highlight=False)


@jobs_app.command("show")
def jobs_show(job_id: int = typer.Argument(...), as_json: bool = JSON_OPTION) -> None:
    """Show one job with its attempts' history."""
    from sqlgenie.feedback.queue import get_job

    with _store() as (_settings, store):
        job = get_job(store, job_id)
    print_json(job.to_dict()) if as_json else console.print_json(data=job.to_dict(), default=str)


@jobs_app.command("retry")
def jobs_retry(job_id: int = typer.Argument(...), as_json: bool = JSON_OPTION) -> None:
    """Queue a dead job again with fresh attempts."""
    from sqlgenie.feedback.queue import retry_job

    with _store() as (_settings, store):
        job = retry_job(store, job_id)
    print_json(job.to_dict()) if as_json else console.print(f"job {job.id} queued again", highlight=False)


@review_app.command("list")
def review_list(
    state: Optional[str] = typer.Option("pending", "--state", help="pending | accepted | rejected | superseded | all"),
    limit: int = typer.Option(100, "--limit", min=1),
    as_json: bool = JSON_OPTION,
) -> None:
    """List review items (pending by default), newest first.

    Example: sqlgenie review list --json
    """
    from sqlgenie.feedback.review import list_items

    with _store() as (_settings, store):
        items = list_items(store, state=None if state in (None, "all") else state, limit=limit)
    if as_json:
        print_json({"items": [i.to_dict(full=False) for i in items]})
        return
    from rich.table import Table

    table = Table("id", "kind", "state", "ask", "question", "sql")
    for i in items:
        table.add_row(str(i.id), i.kind, i.state, str(i.ask_id), i.question[:50],
                      (i.sql or "(no candidate)")[:70] + ("" if i.differs else "  [same as the downvoted answer]"))
    console.print(table)


@review_app.command("show")
def review_show(item_id: int = typer.Argument(...), as_json: bool = JSON_OPTION) -> None:
    """Show one item: the proposed SQL, the downvoted answer, the runner-up and the evidence."""
    from sqlgenie.feedback.review import get_item

    with _store() as (_settings, store):
        item = get_item(store, item_id)
    data = item.to_dict()
    if as_json:
        print_json(data)
        return
    console.print(f"[bold]review item {item.id}[/] ({item.kind}, {item.state}) for answer {item.ask_id}", highlight=False)
    console.print(f"question: {item.question}", highlight=False)
    console.print(f"proposed: {item.sql or '(no candidate)'}", highlight=False)
    console.print(f"downvoted: {item.downvoted_sql}", highlight=False)
    if item.runner_up_sql:
        console.print(f"runner-up: {item.runner_up_sql}", highlight=False)
    if not item.differs:
        console.print("[yellow]No candidate differs from the answer that got the thumbs-down.[/]")
    dist = (item.evidence or {}).get("distinguish") or {}
    if dist.get("distinguished"):
        from sqlgenie.feedback.distinguish import render_result, render_tables

        a, b = dist["results"]
        console.print(f"[bold]why they differ[/]: {a['label']} and {b['label']} on these rows", highlight=False)
        console.print(render_tables(dist), highlight=False, markup=False)
        for res in (a, b):
            console.print(f"{res['label']} returns:\n{render_result(res)}", highlight=False, markup=False)
        if (dist.get("selection_judge") or {}).get("pick"):
            console.print(f"LLM judge picked {dist['selection_judge']['pick']}", highlight=False)
    console.print_json(data=item.evidence, default=str)


@review_app.command("accept")
def review_accept(
    item_id: int = typer.Argument(...),
    user: Optional[str] = typer.Option(None, "--user", help="The reviewer (kept as provenance)."),
    sql: Optional[str] = typer.Option(None, "--sql", help="Accept with this SQL instead of the proposed one."),
    as_json: bool = JSON_OPTION,
) -> None:
    """Accept an item: its pair enters the bank and supersedes the downvoted answer."""
    from sqlgenie.feedback.review import accept

    with _store() as (settings, store):
        item = accept(store, item_id, user=user, settings=settings, sql=sql)
    if as_json:
        print_json(item.to_dict())
        return
    console.print(f"accepted review item {item.id}: bank example #{item.bank_example_id}", highlight=False)


@review_app.command("reject")
def review_reject(
    item_id: int = typer.Argument(...),
    user: Optional[str] = typer.Option(None, "--user", help="The reviewer."),
    reason: Optional[str] = typer.Option(None, "--reason", help="Why it is rejected."),
    restore_example: bool = typer.Option(
        False, "--restore-example", help="The original answer was right: use its disputed bank example again."
    ),
    as_json: bool = JSON_OPTION,
) -> None:
    """Reject an item (nothing enters the bank)."""
    from sqlgenie.feedback.review import reject

    with _store() as (_settings, store):
        item = reject(store, item_id, user=user, reason=reason, restore_example=restore_example)
    if as_json:
        print_json(item.to_dict())
        return
    console.print(f"rejected review item {item.id}", highlight=False)


def register(app: typer.Typer) -> None:
    app.command("feedback")(feedback)
    app.command("worker")(worker)
    app.add_typer(jobs_app, name="jobs")
    app.add_typer(review_app, name="review")
