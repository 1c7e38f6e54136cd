"""``sqlgenie ask "question"``: SQL, rows and an explanation (the library is
:mod:`sqlgenie.inference.pipeline`)."""

from __future__ import annotations

from typing import Any, Optional

import typer

from sqlgenie.cli.common import JSON_OPTION, console, err_console, print_json

MAX_ROWS_SHOWN = 20


def ask(
    question: str = typer.Argument(..., help="The question, in quotes."),
    as_json: bool = JSON_OPTION,
    explain: bool = typer.Option(False, "--explain", help="Also show the masked question, the adaptation, every retrieved example and the think loop's plan and rounds."),
    no_execute: bool = typer.Option(False, "--no-execute", help="Produce the SQL but do not run it."),
    route: str = typer.Option("auto", "--route", help="auto (by similarity to the bank), match or think."),
    limit: Optional[int] = typer.Option(None, "--limit", min=1, help="Return at most N rows (LIMIT N when the query has none)."),
) -> None:
    """Answer a question with SQL, its rows and an explanation; every ask is logged with an id.

    Without an LLM, questions close to a verified bank example are answered by adapting
    the example's SQL (new values, dates, limits) and autocorrecting it; others get a
    clear refusal with the nearest examples.

    Example: sqlgenie ask "How many orders were placed in 2023?" --limit 10
    """
    from sqlgenie.config import get_settings
    from sqlgenie.inference.pipeline import Asker
    from sqlgenie.inference.router import check_route

    check_route(route)
    settings = get_settings()
    with Asker.open(settings) as asker:
        result = asker.ask(question, route=route, execute=not no_execute, limit=limit)
    data = result.to_dict()
    if as_json:
        print_json(data)
    else:
        render_answer(data, explain=explain)
    if result.status == "error":
        raise typer.Exit(code=4)


def _fmt(value: Any) -> str:
    return "" if value is None else str(value)


def render_answer(data: dict[str, Any], *, explain: bool = False, max_rows: int = MAX_ROWS_SHOWN, out=None) -> None:
    """Print one answer (``AskResult.to_dict()``) for people: route, SQL (highlighted),
    rows, examples, corrections, time per stage, id."""
    from rich.syntax import Syntax
    from rich.table import Table

    out = out or console
    route = data.get("route") or "-"
    sim = data.get("similarity")
    head = f"[bold]route[/] {route}"
    if data.get("method"):
        head += f" ({data['method']})"
    if sim is not None:
        head += f"  [bold]similarity[/] {sim:.2f}"
    if data.get("confidence") is not None:
        head += f"  [bold]confidence[/] {data['confidence']:.2f}"
    if data.get("id") is not None:
        head += f"  [dim]id {data['id']}[/]"
    out.print(head, highlight=False)
    status = data.get("status")
    if status != "ok" and data.get("message"):
        style = "yellow" if status == "refused" else "red"
        out.print(f"[bold {style}]{data['message']}[/]", highlight=False)
        think = data.get("think") or {}
        if think.get("reason"):
            out.print(f"[dim]why:[/] {think['reason']}", highlight=False)
        if data.get("hint"):
            out.print(f"[dim]hint:[/] {data['hint']}", highlight=False)
    if data.get("sql"):
        out.print(Syntax(data["sql"], "sql", theme="ansi_dark", word_wrap=True))
    if data.get("explanation") and status == "ok":
        out.print(f"[dim]{data['explanation']}[/]", highlight=False)
    corrections = data.get("corrections") or []
    if corrections and explain:
        for c in corrections:
            out.print(f"  [cyan]{c['corrector']}[/]: {c['before']}  \u2192  {c['after']}", highlight=False)
    if data.get("executed"):
        columns = data.get("columns") or []
        rows = data.get("rows") or []
        table = Table(*columns) if columns else Table()
        for row in rows[:max_rows]:
            table.add_row(*(_fmt(v) for v in row))
        out.print(table)
        more = " (more rows exist: raise --limit / row cap)" if data.get("truncated") else ""
        shown = f", {max_rows} shown" if len(rows) > max_rows else ""
        out.print(f"[dim]{data.get('row_count', 0)} row(s){shown}{more}[/]", highlight=False)
    examples = data.get("examples") or []
    if examples and (explain or status != "ok"):
        out.print("[bold]nearest verified examples[/]" if status != "ok" else "[bold]retrieved examples[/]")
        for ex in examples[: (5 if explain else 3)]:
            mark = " (same template)" if ex.get("exact") else ""
            used = " \u2190 used" if ex.get("id") == data.get("example_id") and status == "ok" else ""
            out.print(f"  #{ex['id']} {ex['similarity']:.2f}{mark}{used}  {ex['question']}", highlight=False)
    elif data.get("example_id") is not None and not explain:
        used = next((e for e in examples if e.get("id") == data.get("example_id")), None)
        if used:
            out.print(f"[dim]example #{used['id']} ({used['similarity']:.2f}): {used['question']}[/]", highlight=False)
    loop = (data.get("think") or {}).get("loop")
    if loop:
        render_think_loop(loop, explain=explain, out=out)
    if explain:
        if data.get("masked_question"):
            out.print(f"[bold]masked question[/] {data['masked_question']}", highlight=False)
        adaptation = data.get("adaptation") or {}
        for sub in adaptation.get("substitutions", []):
            check = {True: "cached value", False: "not a cached value", None: ""}[sub.get("verified")]
            out.print(f"  {sub['example_text']!r} \u2192 {sub['question_text']!r}: {sub['old']} \u2192 {sub['new']}"
                      f" [dim]({sub['derivation']}{', ' + sub['column'] if sub.get('column') else ''}"
                      f"{', ' + check if check else ''})[/]", highlight=False)
        for note in adaptation.get("notes", []):
            out.print(f"  [dim]{note}[/]", highlight=False)
        if data.get("decision"):
            out.print(f"[dim]routing: {data['decision']['reason']}[/]", highlight=False)
    timings = data.get("timings_ms") or {}
    if timings:
        stages = "  ".join(f"{k} {v:.0f}" for k, v in timings.items())
        out.print(f"[dim]ms: {stages}  (total {data.get('total_ms', 0):.0f})[/]", highlight=False)
    llm = data.get("llm") or {}
    if llm.get("calls"):
        out.print(f"[dim]LLM: {llm['calls']} call(s), {llm.get('input_tokens', 0)} in / {llm.get('output_tokens', 0)} out tokens[/]",
                  highlight=False)


def render_think_loop(loop: dict[str, Any], *, explain: bool = False, out=None) -> None:
    """The think loop's plan, rounds and stop reason (``--explain``), or one line."""
    from rich.markup import escape

    out = out or console
    rounds = loop.get("rounds") or []
    usage = loop.get("usage") or {}
    if not explain:
        out.print(f"[dim]think loop: {len(rounds)} round(s); stopped: {escape(str(loop.get('stop')))}[/]", highlight=False)
        return
    out.print("[bold]think loop: plan[/]", highlight=False)
    for line in (loop.get("plan") or "(none)").splitlines():
        out.print(f"  {line}", highlight=False, markup=False)
    for r in rounds:
        verdict = "accepted" if r.get("accepted") else "rejected"
        rows = f", {r['row_count']} row(s)" if r.get("row_count") is not None else ""
        out.print(f"[bold]round {r['round']}[/] ({verdict}{rows})", highlight=False)
        out.print(f"  {' '.join(r['sql'].split())}", highlight=False, markup=False)
        for c in r.get("corrections") or []:
            out.print(f"  [cyan]{c['corrector']}[/]: {escape(c['before'])}  \u2192  {escape(c['after'])}", highlight=False)
        for f in r.get("findings") or []:
            state = "repaired" if f.get("repaired") else f["severity"]
            out.print(f"  [yellow]{f['check']}[/] ({state}): {escape(f['message'])}", highlight=False)
        if r.get("llm_critic"):
            problems = escape("; ".join(r.get("llm_problems") or []))
            out.print(f"  [yellow]LLM critic[/]: {r['llm_critic']}{': ' + problems if problems else ''}", highlight=False)
    out.print(f"[bold]stopped[/]: {escape(str(loop.get('stop')))}  [dim]({usage.get('calls', 0)} LLM call(s) of "
              f"{usage.get('max_calls')}, {usage.get('input_tokens', 0) + usage.get('output_tokens', 0)} tokens of "
              f"{usage.get('max_tokens')})[/]", highlight=False)


__all__ = ["ask", "render_answer", "render_think_loop", "err_console"]
