"""``sqlgenie onboard|tables|joins|columns``: onboarding and the catalog it writes.

The work is in the ``onboarding`` package; these commands parse options, show a
progress bar per table and phase on stderr, and render results (``--json`` prints
one JSON object on stdout).
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Any, Iterator, Optional

import typer
from rich.table import Table

from sqlgenie.cli.common import JSON_OPTION, console, print_json, progress_bar
from sqlgenie.config import get_settings

onboard_app = typer.Typer(help="Onboard tables: profile, keys, joins, partition/index picks, value cache.", no_args_is_help=True)
tables_app = typer.Typer(help="Inspect onboarded tables.", no_args_is_help=True)
joins_app = typer.Typer(help="Review proposed joins (foreign-key pairs): list, accept, reject.", no_args_is_help=True)
columns_app = typer.Typer(help="Edit column metadata (synonyms, aggregation, mandatory).", no_args_is_help=True)

_TOP_VALUES = typer.Option(1000, "--top-values", min=0, help="Frequent values cached per searchable text column.")
_APPLY = typer.Option(False, "--apply", help="Create the recommended indexes (CREATE INDEX CONCURRENTLY). Off by default.")
_ACROSS = typer.Option(False, "--across-schemas", help="Look for joins with onboarded tables of every schema (default: same schema).")
_NO_LLM = typer.Option(False, "--no-llm", help="Do not call the configured LLM (synonyms from the dictionary, joins by score).")
_NO_INDEX_CHECK = typer.Option(False, "--no-index-benefit", help="Skip the EXPLAIN before/after benefit of index picks.")


@contextmanager
def _phase_bars(enabled: bool = True) -> Iterator[Any]:
    """One progress bar per table; its description shows the current phase."""
    if not enabled:
        yield None
        return
    with progress_bar("{task.description:<48}") as progress:
        tasks: dict[str, Any] = {}

        def callback(table: str, phase: str, done: int, total: int) -> None:
            if table not in tasks:
                tasks[table] = progress.add_task(table, total=total)
            label = f"{table} [dim]{phase}[/]" if phase != "done" else f"{table} [green]done[/]"
            progress.update(tasks[table], completed=done, total=total, description=label)

        yield callback


def _options(top_values: int, apply: bool, across: bool, no_llm: bool, priority_metric: str | None = None,
             no_index_benefit: bool = False):
    from onboarding.service import OnboardOptions

    return OnboardOptions(
        priority_metric=priority_metric, top_values=top_values, apply_indexes=apply,
        join_scope="all" if across else "schema", llm=None if no_llm else "auto",
        measure_indexes=not no_index_benefit,
    )


def _render_result(res: Any) -> None:
    console.print(
        f"[bold]{res.schema}.{res.table}[/]: {res.rows:,} rows ({'exact' if res.exact else 'statistics + sample'}), "
        f"{res.columns} columns, primary key {', '.join(res.primary_key) or '—'} ({res.pk_source}), "
        f"{len(res.searchable)} searchable ({res.cached_values:,} cached values), {res.seconds:.2f} s",
        highlight=False,
    )
    if res.pk_source == "inferred" and _weak_chance(res.key_evidence) is not None:
        key_note = _key_note({"pk_source": res.pk_source, "pk_evidence": res.key_evidence, "rows": res.rows})
        console.print(f"  [yellow]key[/]: {key_note}", highlight=False)
    shown = [j for j in res.joins if j["status"] != "rejected"]
    for j in shown[:12]:
        colour = {"accepted": "green", "proposed": "yellow"}.get(j["status"], "red")
        console.print(
            f"  join #{j['id']} {j['from']}({', '.join(j['from_columns'])}) -> {j['to']}({', '.join(j['to_columns'])}) "
            f"score {j['score']:.2f} [{colour}]{j['status']}[/] by {j['decided_by']}",
            highlight=False,
        )
    if len(shown) > 12:
        console.print(f"  ... {len(shown) - 12} more (sqlgenie joins list)", highlight=False)
    if res.partition:
        rec = "recommended" if res.partition.get("recommended") else "not recommended"
        console.print(f"  partition pick: {res.partition['column']} ({res.partition['kind']}, {rec})", highlight=False)
    for p in res.index_picks:
        benefit = "n/a" if p.get("benefit") is None else f"{100 * p['benefit']:.0f}% lower EXPLAIN cost"
        state = "applied" if p.get("applied") else ("recommended" if p.get("recommended") else "not recommended")
        console.print(f"  index pick: {', '.join(p['columns'])}: {benefit} ({state})\n    {p['ddl']};", highlight=False)
    for note in res.notes:
        console.print(f"  [dim]note: {note}[/]", highlight=False)


@onboard_app.command("table")
def onboard_table(
    table: str = typer.Argument(..., help='SCHEMA.TABLE; quote odd names: \'demo."Order Items"\'.'),
    priority_metric: Optional[str] = typer.Option(
        None, "--priority-metric", help="Numeric column: cache the values that hold 99.9% of its sum instead of the most frequent."
    ),
    top_values: int = _TOP_VALUES,
    apply: bool = _APPLY,
    across_schemas: bool = _ACROSS,
    no_llm: bool = _NO_LLM,
    no_index_benefit: bool = _NO_INDEX_CHECK,
    as_json: bool = JSON_OPTION,
) -> None:
    """Onboard one table: profile, synonyms, aggregation, primary key, foreign-key pairs
    with the tables onboarded before it, join costs, partition/index picks and the
    frequent-value cache. Re-onboarding keeps human edits and join decisions.

    Example: sqlgenie onboard table demo.orders --priority-metric total_amt --top-values 500
    """
    from onboarding.service import onboard_table as run

    opts = _options(top_values, apply, across_schemas, no_llm, priority_metric, no_index_benefit)
    with _phase_bars() as progress:
        res = run(table, settings=get_settings(), options=opts, progress=progress)
    if as_json:
        print_json(res.to_json())
        return
    _render_result(res)


@onboard_app.command("schema")
def onboard_schema(
    schema: str = typer.Argument(..., help="Schema whose tables to onboard."),
    top_values: int = _TOP_VALUES,
    apply: bool = _APPLY,
    across_schemas: bool = _ACROSS,
    no_llm: bool = _NO_LLM,
    no_index_benefit: bool = _NO_INDEX_CHECK,
    as_json: bool = JSON_OPTION,
) -> None:
    """Onboard every table of a schema in dependency-friendly order (referenced tables
    first); each table is compared with the tables onboarded before it.

    Example: sqlgenie onboard schema demo
    """
    from onboarding.service import onboard_schema as run

    opts = _options(top_values, apply, across_schemas, no_llm, None, no_index_benefit)
    with _phase_bars() as progress:
        results = run(schema, settings=get_settings(), options=opts, progress=progress)
    if as_json:
        print_json({"schema": schema, "tables": [r.to_json() for r in results]})
        return
    for r in results:
        _render_result(r)
    console.print(f"[bold green]onboarded {len(results)} tables[/] of schema {schema}.", highlight=False)


@onboard_app.command("calibrate")
def calibrate(
    quick: bool = typer.Option(False, "--quick", help="Smaller synthetic joins (up to 100k rows) and one run each."),
    as_json: bool = JSON_OPTION,
) -> None:
    """Fit the join cost model C(T1,T2) = k0 + k1(|T1| ln|T1| + |T2| ln|T2|) (ms) by timing
    real joins on the target (synthetic tables in a rolled-back transaction, plus
    accepted catalog joins) and least squares; stores k0, k1 and recomputes every join cost.

    Example: sqlgenie onboard calibrate
    """
    from onboarding.cost import CALIBRATE_SIZES
    from onboarding.service import calibrate_costs

    sizes = (1_000, 5_000, 20_000, 100_000) if quick else CALIBRATE_SIZES
    with progress_bar("calibrate") as p:
        task = p.add_task("calibrate", total=None)
        cal = calibrate_costs(get_settings(), sizes=sizes, repeats=1 if quick else 3,
                              progress=lambda d, t: p.update(task, completed=d, total=t))
    out = {"k0": cal.model.k0, "k1": cal.model.k1, "r2": round(cal.r2, 4), "samples": cal.samples,
           "seconds": round(cal.seconds, 2)}
    if as_json:
        print_json(out)
        return
    console.print(f"k0 = {cal.model.k0:.4g} ms, k1 = {cal.model.k1:.4g} ms per row·ln(row) "
                  f"(R² {cal.r2:.3f}, {len([s for s in cal.samples if 'ms' in s])} timings, {cal.seconds:.1f} s)",
                  highlight=False)


# --- tables ----------------------------------------------------------------------------------------


@contextmanager
def _store() -> Iterator[Any]:
    from sqlgenie.store import connect_store

    with connect_store(get_settings()) as conn:
        yield conn


@tables_app.command("list")
def tables_list(
    schema: Optional[str] = typer.Option(None, "--schema", help="Only this schema."),
    as_json: bool = JSON_OPTION,
) -> None:
    """List onboarded tables with rows, primary key, searchable columns and joins.

    Example: sqlgenie tables list --schema demo
    """
    from onboarding.catalog_admin import list_tables

    with _store() as store:
        rows = list_tables(store, schema)
    if as_json:
        print_json({"tables": rows})
        return
    if not rows:
        console.print("No onboarded tables. Try: sqlgenie onboard schema demo")
        return
    t = Table(title="onboarded tables", title_justify="left",
              caption="joins: accepted/proposed; searchable: text columns with cached values", caption_justify="left")
    t.add_column("table", overflow="fold", ratio=2)
    t.add_column("rows", justify="right", no_wrap=True)
    t.add_column("primary key", overflow="fold", ratio=2)
    t.add_column("cols", justify="right", no_wrap=True)
    t.add_column("searchable", justify="right", no_wrap=True)
    t.add_column("joins", justify="right", no_wrap=True)
    t.add_column("onboarded", overflow="fold", ratio=1)
    for r in rows:
        t.add_row(f"{r['schema']}.{r['table']}", f"{r['rows'] or 0:,}", ", ".join(r["primary_key"]) + f" ({r['pk_source']})",
                  str(r["columns"]), str(r["searchable"]), f"{r['joins_accepted']}/{r['joins_proposed']}",
                  r["onboarded_at"].strftime("%Y-%m-%d %H:%M"))
    console.print(t)


_TYPE_SHORT = {"timestamp without time zone": "timestamp", "timestamp with time zone": "timestamptz",
               "character varying": "varchar", "double precision": "float8", "time without time zone": "time"}


def _short_type(data_type: str) -> str:
    """``timestamp without time zone`` -> ``timestamp``, ``character varying(20)`` -> ``varchar(20)``."""
    for long, short in _TYPE_SHORT.items():
        if data_type.startswith(long):
            return short + data_type[len(long):]
    return data_type


def _weak_chance(evidence: dict[str, Any] | None) -> float | None:
    """The chance an inferred key is unique by coincidence, when it is high enough to ask a person."""
    from onboarding.keys import WEAK_KEY_CHANCE

    chance = (evidence or {}).get("chance_unique")
    return chance if chance is not None and chance >= WEAK_KEY_CHANCE else None


def _key_note(info: dict[str, Any]) -> str | None:
    """Why the table has its key, and whether a person should confirm it."""
    ev = info.get("pk_evidence") or {}
    if info["pk_source"] == "human":
        return "primary key set by a person (sqlgenie tables set-key --reset hands it back to inference)"
    if info["pk_source"] != "inferred":
        return None
    note = f"inferred: {ev.get('reason', 'unique and never NULL in the data')}"
    chance = _weak_chance(ev)
    if chance is not None:
        note += (f"; {ev.get('rows', info['rows']) or 0:,} rows would be unique over these columns by coincidence "
                 f"{100 * chance:.0f}% of the time: confirm it with `sqlgenie tables set-key`, or --none")
    return note


@tables_app.command("show")
def tables_show(
    table: str = typer.Argument(..., help="An onboarded table: SCHEMA.TABLE or TABLE."),
    values: int = typer.Option(10, "--values", min=0, help="Cached values shown per searchable column."),
    as_json: bool = JSON_OPTION,
) -> None:
    """Show an onboarded table: columns, types, synonyms, aggregation, primary key,
    partition and index picks, joins and cached values.

    Example: sqlgenie tables show demo.orders --values 5
    """
    from onboarding.catalog_admin import show_table

    with _store() as store:
        info = show_table(store, table, values=values)
    if as_json:
        print_json(info)
        return
    console.print(f"[bold]{info['schema']}.{info['table']}[/]: {info['rows'] or 0:,} rows, primary key "
                  f"{', '.join(info['primary_key']) or '—'} ({info['pk_source']})", highlight=False)
    key_note = _key_note(info)
    if key_note:
        console.print(f"  [dim]{key_note}[/]", highlight=False)
    wide = console.width >= 110  # narrower terminals get the synonyms as lines under the table
    t = Table(show_lines=False, caption="flags: K primary key, M mandatory; cached: values cached for fuzzy matching",
              caption_justify="left")
    t.add_column("column", no_wrap=True, overflow="fold", min_width=6)
    t.add_column("type", overflow="fold")
    t.add_column("flags", no_wrap=True)
    for head in ("null%", "distinct"):
        t.add_column(head, justify="right", no_wrap=True)
    t.add_column("agg", overflow="fold")
    t.add_column("cached", justify="right", no_wrap=True)
    if wide:
        t.add_column("synonyms", ratio=1, min_width=12)
    for c in info["columns"]:
        row = [
            c["column"], _short_type(c["type"]), ("K" if c["primary_key"] else "") + ("M" if c["mandatory"] else ""),
            "" if c["null_frac"] is None else f"{100 * c['null_frac']:.1f}",
            "" if c["distinct"] is None else f"{c['distinct']:,.0f}", c["aggregation"] or "",
            f"{c['cached_values']:,}" if c["searchable"] else "",
        ]
        t.add_row(*row, *([", ".join(c["synonyms"][:4])] if wide else []))
    console.print(t)
    if not wide:
        for c in info["columns"]:
            if c["synonyms"]:
                console.print(f"  synonyms {c['column']}: {', '.join(c['synonyms'][:6])}", highlight=False)
    for j in info["joins"]:
        if j["status"] == "rejected":
            continue
        console.print(f"  join #{j['id']} {j['from']}({', '.join(j['from_columns'])}) -> {j['to']}({', '.join(j['to_columns'])})"
                      f" score {j['score']:.2f} {j['status']} (cost {j['cost']} ms)", highlight=False)
    if info["partition_pick"]:
        p = info["partition_pick"]
        console.print(f"  partition pick: {p['column']} — {p['reason']}", highlight=False)
    for p in info["index_picks"]:
        console.print(f"  index pick: {p['ddl']};  benefit {p.get('benefit')}", highlight=False)
    for c in info["columns"]:
        if c["top_values"]:
            shown = ", ".join(f"{v['value']} ({v['frequency']:,})" for v in c["top_values"])
            console.print(f"  values {c['column']}: {shown}", highlight=False)


@tables_app.command("set-key")
def tables_set_key(
    table: str = typer.Argument(..., help="An onboarded table: SCHEMA.TABLE or TABLE."),
    columns: Optional[list[str]] = typer.Argument(None, help="The key's columns, in order (a composite key takes several)."),
    no_key: bool = typer.Option(False, "--none", help="The table has no primary key (a log or a link table)."),
    reset: bool = typer.Option(False, "--reset", help="Drop the person's key: back to the inferred one."),
    force: bool = typer.Option(False, "--force", help="Skip the check that the columns are unique and never NULL in the data."),
    as_json: bool = JSON_OPTION,
) -> None:
    """Set, confirm or remove a table's primary key by hand (kept on re-onboarding).

    Inferred keys come from uniqueness in the data; on a small table a unique column or
    pair can be a coincidence (`tables show` says when). The key is checked on the data
    (no NULL, no duplicate) unless --force; a declared PRIMARY KEY is never overridden.
    Joins inferred from then on use it.

    Example: sqlgenie tables set-key sales.order_lines order_no line_no
    """
    from onboarding.catalog_admin import set_primary_key
    from sqlgenie.store import open_connection, target_url

    settings = get_settings()
    with _store() as store:
        if columns and not force:
            with open_connection(target_url(settings), autocommit=True) as target:
                out = set_primary_key(store, table, columns, target=target, no_key=no_key, reset=reset,
                                      timeout_ms=settings.statement_timeout_ms)
        else:
            out = set_primary_key(store, table, columns, no_key=no_key, reset=reset, force=force)
    if as_json:
        print_json(out)
        return
    key = ", ".join(out["primary_key"]) or "none"
    before = ", ".join(out["previous"]["primary_key"]) or "none"
    checked = out["checked"]
    how = f"; checked on {checked['rows']:,} rows" if checked else (" (not checked: --force)" if force and columns else "")
    console.print(f"{out['table']}: primary key [bold]{key}[/] ({out['pk_source']}), was {before} "
                  f"({out['previous']['pk_source']}){how}", highlight=False)


# --- joins -------------------------------------------------------------------------------------------


@joins_app.command("list")
def joins_list(
    status: Optional[str] = typer.Option(None, "--status", help="proposed | accepted | rejected"),
    table: Optional[str] = typer.Option(None, "--table", help="Only joins of this onboarded table."),
    as_json: bool = JSON_OPTION,
) -> None:
    """List foreign-key pairs with score, status and who decided (declared, score, llm, human).

    Example: sqlgenie joins list --status proposed
    """
    from onboarding.catalog_admin import list_joins, resolve_onboarded

    with _store() as store:
        tid = resolve_onboarded(store, table)[0] if table else None
        rows = list_joins(store, status=status, table_id=tid)
    if as_json:
        print_json({"joins": [{k: v for k, v in r.items() if k != "evidence"} | {"evidence": r["evidence"]} for r in rows]})
        return
    if not rows:
        console.print("No joins" + (f" with status {status}" if status else "") + ".")
        return
    t = Table(caption="incl.: share of the referencing values found in the referenced column; "
                      "cost: the join cost model's estimate in ms", caption_justify="left")
    t.add_column("id", justify="right", no_wrap=True)
    t.add_column("referencing", overflow="fold", ratio=1)
    t.add_column("referenced", overflow="fold", ratio=1)
    t.add_column("score", justify="right", no_wrap=True)
    t.add_column("incl.", justify="right", no_wrap=True)
    t.add_column("status", no_wrap=True)
    t.add_column("by", no_wrap=True)
    t.add_column("cost", justify="right", no_wrap=True)
    for r in rows:
        t.add_row(str(r["id"]), f"{r['from']}({', '.join(r['from_columns'])})", f"{r['to']}({', '.join(r['to_columns'])})",
                  f"{r['score']:.2f}", "" if r["inclusion"] is None else f"{r['inclusion']:.2f}", r["status"],
                  r["decided_by"] or "", "" if r["cost"] is None else f"{r['cost']:.1f}")
    console.print(t)


def _decide(join_id: int, status: str, as_json: bool) -> None:
    from onboarding.catalog_admin import decide_join

    with _store() as store:
        row = decide_join(store, join_id, status)
    if as_json:
        print_json(row)
        return
    console.print(f"join #{join_id} {row.get('from', '')} -> {row.get('to', '')}: [bold]{status}[/] (by human)", highlight=False)


@joins_app.command("accept")
def joins_accept(join_id: int = typer.Argument(..., help="Join id (see `sqlgenie joins list`)."), as_json: bool = JSON_OPTION) -> None:
    """Accept a join (a human decision, kept on re-onboarding).

    Example: sqlgenie joins accept 12
    """
    _decide(join_id, "accepted", as_json)


@joins_app.command("reject")
def joins_reject(join_id: int = typer.Argument(..., help="Join id (see `sqlgenie joins list`)."), as_json: bool = JSON_OPTION) -> None:
    """Reject a join (a human decision, kept on re-onboarding).

    Example: sqlgenie joins reject 12
    """
    _decide(join_id, "rejected", as_json)


# --- columns -----------------------------------------------------------------------------------------


@columns_app.command("set")
def columns_set(
    column: str = typer.Argument(..., help="TABLE.COLUMN or SCHEMA.TABLE.COLUMN of an onboarded table."),
    synonyms: Optional[str] = typer.Option(None, "--synonyms", help='Comma-separated synonyms (replace the list), e.g. "revenue, sales".'),
    aggregation: Optional[str] = typer.Option(None, "--aggregation", help="SUM | AVG | MIN | MAX | COUNT | STRING_AGG"),
    mandatory: Optional[bool] = typer.Option(None, "--mandatory/--not-mandatory", help="Always include this column in answers."),
    description: Optional[str] = typer.Option(None, "--description", help="Free-text description."),
    searchable: Optional[bool] = typer.Option(None, "--searchable/--not-searchable", help="Keep (or drop) its value cache."),
    as_json: bool = JSON_OPTION,
) -> None:
    """Human edit of a column's metadata; edited fields are kept on re-onboarding.

    Example: sqlgenie columns set demo.orders.total_amt --synonyms "order value, revenue" --aggregation SUM --mandatory
    """
    from onboarding.catalog_admin import set_column

    syn = None if synonyms is None else [s for s in synonyms.split(",")]
    with _store() as store:
        out = set_column(store, column, synonyms=syn, aggregation=aggregation, mandatory=mandatory,
                         description=description, searchable=searchable)
    if as_json:
        print_json(out)
        return
    console.print(f"{out['table']}.{out['column']}: synonyms {out['synonyms']}, aggregation {out['aggregation']}, "
                  f"mandatory {out['mandatory']} (human fields: {', '.join(out['human_fields'])})", highlight=False)
