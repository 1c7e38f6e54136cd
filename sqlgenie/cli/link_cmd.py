"""``sqlgenie link "question"``: which tables, columns and stored values a question
points at (the library is :mod:`sqlgenie.inference.value_linking`)."""

from __future__ import annotations

import typer

from sqlgenie.cli.common import JSON_OPTION, console, print_json


def link(
    question: str = typer.Argument(..., help="The question, in quotes."),
    as_json: bool = JSON_OPTION,
    per_span: int = typer.Option(3, "--per-span", min=1, max=20, help="Candidates shown per question span."),
    probes: bool = typer.Option(True, "--probes/--no-probes",
                                help="Probe the tables (ILIKE with LIMIT) for values the cache does not hold."),
) -> None:
    """Show the schema kept for a question and the stored values it names.

    Each kept column comes with its reason; linked values keep their columns.

    Reasons: score (relevance to the question), key (primary key of a named table),
    join (joins the kept tables), value (holds a linked value), all (whole row asked).

    Example: sqlgenie link "How many singers are from France?" --json
    """
    from sqlgenie.config import get_settings
    from sqlgenie.inference.pipeline import Asker
    from sqlgenie.inference.value_linking import ValueLinker, link_and_prune

    settings = get_settings()
    with Asker.open(settings, provider=None, log=False) as asker:
        linker = ValueLinker(asker.catalog, asker.store, executor=asker.executor if probes else None)
        report = link_and_prune(question, pruner=asker.pruner, linker=linker, limit_per_span=per_span)
    if as_json:
        print_json(report.to_json())
        return
    console.print(f"[bold]kept[/] {report.kept_columns} of {report.total_columns} columns "
                  f"[dim]({report.ms:.1f} ms)[/]", highlight=False)
    if report.situation == "no_values":
        console.print("[dim]the tables hold no rows: no-values operating point (keeps fewer columns)[/]",
                      highlight=False)
    elif report.situation == "no_values_no_joins":
        console.print("[dim]the tables hold no rows and have no joins: declare keys (or onboard with rows) "
                      "so the kept tables can be joined[/]", highlight=False)
    for table, cols in report.tables.items():
        console.print(f"  [bold]{table}[/]", highlight=False)
        for c in cols:
            console.print(f"    {c['column']:<28} {c['reason']:<6} [dim]{c['score']:.2f}[/]", highlight=False)
    if report.joins:
        console.print("[bold]joins[/]", highlight=False)
        for j in report.joins:
            console.print(f"  {j}", highlight=False)
    console.print("[bold]linked values[/]" if report.links else "[dim]no stored value found in the question[/]",
                  highlight=False)
    for l in report.links:
        mark = "" if l.rank == 1 else "[dim]"
        console.print(f"  {mark}\"{l.span}\" -> {l.column} = {l.value!r} ({l.method}, {l.score:.2f})",
                      highlight=False, markup=True)
