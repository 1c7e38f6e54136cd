"""Reading and editing the catalog for people: ``tables list/show``, ``joins list/accept/reject``,
``columns set``. Plain dicts out (the CLI renders them or prints JSON)."""

from __future__ import annotations

from typing import Any

import psycopg
from psycopg import sql

from onboarding import catalog_writer
from onboarding.aggregation import AGGREGATIONS
from onboarding.keys import uniqueness_counts
from onboarding.profile import closest_names, split_table_spec
from sqlgenie.errors import InputError, UnknownTableError

JOIN_STATUSES = ("proposed", "accepted", "rejected")


def _all_tables(store: psycopg.Connection) -> list[tuple[int, str, str]]:
    return [(r[0], r[1], r[2]) for r in store.execute("SELECT id, schema_name, table_name FROM sqlgenie.catalog_tables")]


def resolve_onboarded(store: psycopg.Connection, spec: str) -> tuple[int, str, str]:
    """(table_id, schema, table) of an onboarded table; UnknownTableError naming the closest."""
    schema, name, quoted = split_table_spec(spec.strip())
    tables = _all_tables(store)
    exact = [t for t in tables if t[2] == name and (schema is None or t[1] == schema)]
    if len(exact) == 1:
        return exact[0]
    if not quoted:
        loose = [t for t in tables if t[2].lower() == name.lower() and (schema is None or t[1].lower() == schema.lower())]
        if len(loose) == 1:
            return loose[0]
        exact = exact or loose
    if len(exact) > 1:
        raise InputError(
            f"{spec!r} matches several onboarded tables: {', '.join(f'{s}.{t}' for _, s, t in exact)}.",
            hint="Qualify it with its schema: SCHEMA.TABLE.",
        )
    close = closest_names(spec, [f"{s}.{t}" for _, s, t in tables])
    raise UnknownTableError(
        f"Table {spec!r} is not onboarded.",
        hint=(f"Closest onboarded tables: {', '.join(close)}. " if close else "")
        + "Onboard it with `sqlgenie onboard table SCHEMA.TABLE`; `sqlgenie tables list` shows onboarded tables.",
    )


def split_column_spec(spec: str) -> tuple[str, str]:
    """``schema.table.column`` / ``table.column`` (double quotes allowed) -> (table spec, column)."""
    parts: list[str] = []
    buf: list[str] = []
    in_q = False
    i = 0
    while i < len(spec):
        ch = spec[i]
        if ch == '"':
            if in_q and i + 1 < len(spec) and spec[i + 1] == '"':
                buf.append('""')
                i += 2
                continue
            in_q = not in_q
            buf.append(ch)
        elif ch == "." and not in_q:
            parts.append("".join(buf))
            buf = []
        else:
            buf.append(ch)
        i += 1
    parts.append("".join(buf))
    if len(parts) < 2 or not parts[-1]:
        raise InputError(f"{spec!r} is not TABLE.COLUMN.", hint='Example: sqlgenie columns set demo.orders.total_amt --aggregation SUM')
    column = parts[-1]
    if column.startswith('"') and column.endswith('"') and len(column) >= 2:
        column = column[1:-1].replace('""', '"')
    return ".".join(parts[:-1]), column


def list_tables(store: psycopg.Connection, schema: str | None = None) -> list[dict[str, Any]]:
    rows = store.execute(
        """
        SELECT t.id, t.schema_name, t.table_name, t.row_estimate, t.primary_key, t.pk_source,
               (SELECT count(*) FROM sqlgenie.catalog_columns c WHERE c.table_id = t.id),
               (SELECT count(*) FROM sqlgenie.catalog_columns c WHERE c.table_id = t.id AND c.searchable),
               (SELECT count(*) FROM sqlgenie.catalog_joins j WHERE t.id IN (j.from_table_id, j.to_table_id) AND j.status = 'accepted'),
               (SELECT count(*) FROM sqlgenie.catalog_joins j WHERE t.id IN (j.from_table_id, j.to_table_id) AND j.status = 'proposed'),
               t.onboarded_at
        FROM sqlgenie.catalog_tables t
        WHERE %(s)s::text IS NULL OR t.schema_name = %(s)s
        ORDER BY t.schema_name, t.table_name
        """,
        {"s": schema},
    ).fetchall()
    return [
        {"id": r[0], "schema": r[1], "table": r[2], "rows": r[3], "primary_key": list(r[4] or []), "pk_source": r[5],
         "columns": r[6], "searchable": r[7], "joins_accepted": r[8], "joins_proposed": r[9], "onboarded_at": r[10]}
        for r in rows
    ]


def show_table(store: psycopg.Connection, spec: str, *, values: int = 10) -> dict[str, Any]:
    tid, schema, table = resolve_onboarded(store, spec)
    t = store.execute(
        """
        SELECT row_estimate, description, primary_key, pk_source, partition_pick, index_picks, profile, options,
               onboarded_at, human_fields
        FROM sqlgenie.catalog_tables WHERE id = %s
        """,
        (tid,),
    ).fetchone()
    cols = []
    for r in store.execute(
        """
        SELECT id, column_name, data_type, nullable, null_frac, n_distinct, min_value, max_value, synonyms, aggregation,
               searchable, mandatory, description, is_unique, human_fields, profile
        FROM sqlgenie.catalog_columns WHERE table_id = %s ORDER BY ordinal
        """,
        (tid,),
    ):
        top = []
        if r[10] and values > 0:
            top = [
                {"value": v, "frequency": f}
                for v, f in store.execute(
                    "SELECT value, frequency FROM sqlgenie.value_cache WHERE column_id = %s ORDER BY frequency DESC, value LIMIT %s",
                    (r[0], values),
                )
            ]
        n_cached = store.execute("SELECT count(*) FROM sqlgenie.value_cache WHERE column_id = %s", (r[0],)).fetchone()[0]
        prof = r[15] or {}
        cols.append({
            "column": r[1], "type": r[2], "nullable": r[3], "null_frac": r[4], "distinct": r[5], "min": r[6], "max": r[7],
            "synonyms": list(r[8] or []), "aggregation": r[9], "searchable": r[10], "mandatory": r[11],
            "description": r[12], "unique": r[13], "primary_key": r[1] in (t[2] or []), "human_fields": list(r[14] or []),
            "searchable_reason": prof.get("searchable_reason"), "cached_values": n_cached, "top_values": top,
            "most_common": prof.get("mcv", [])[:5],
        })
    joins = list_joins(store, table_id=tid)
    prof = t[6] or {}
    return {
        "id": tid, "schema": schema, "table": table, "rows": t[0], "description": t[1],
        "primary_key": list(t[2] or []), "pk_source": t[3], "pk_evidence": prof.get("key_evidence"),
        "partition_pick": t[4], "index_picks": t[5] or [], "exact_profile": prof.get("exact"),
        "sample_fraction": prof.get("sample_fraction"), "options": t[7] or {}, "onboarded_at": t[8],
        "human_fields": list(t[9] or []), "columns": cols, "joins": joins, "timings": prof.get("timings"),
        "notes": prof.get("notes", []),
    }


def list_joins(store: psycopg.Connection, *, status: str | None = None, table_id: int | None = None,
               schema: str | None = None) -> list[dict[str, Any]]:
    if status is not None and status not in JOIN_STATUSES:
        raise InputError(f"--status must be one of {', '.join(JOIN_STATUSES)}, not {status!r}.")
    rows = store.execute(
        """
        SELECT j.id, a.schema_name, a.table_name, j.from_columns, b.schema_name, b.table_name, j.to_columns,
               j.score, j.status, j.decided_by, j.cost, j.evidence
        FROM sqlgenie.catalog_joins j
        JOIN sqlgenie.catalog_tables a ON a.id = j.from_table_id
        JOIN sqlgenie.catalog_tables b ON b.id = j.to_table_id
        WHERE (%(st)s::text IS NULL OR j.status = %(st)s)
          AND (%(t)s::bigint IS NULL OR %(t)s IN (j.from_table_id, j.to_table_id))
          AND (%(s)s::text IS NULL OR a.schema_name = %(s)s OR b.schema_name = %(s)s)
        ORDER BY (j.status = 'accepted') DESC, (j.status = 'proposed') DESC, j.score DESC, j.id
        """,
        {"st": status, "t": table_id, "s": schema},
    ).fetchall()
    return [
        {
            "id": r[0], "from": f"{r[1]}.{r[2]}", "from_columns": list(r[3]), "to": f"{r[4]}.{r[5]}",
            "to_columns": list(r[6]), "score": round(float(r[7]), 4), "status": r[8], "decided_by": r[9],
            "cost": None if r[10] is None else round(float(r[10]), 3),
            "inclusion": (r[11] or {}).get("inclusion"), "evidence": r[11] or {},
        }
        for r in rows
    ]


def decide_join(store: psycopg.Connection, join_id: int, status: str) -> dict[str, Any]:
    """A human accepts or rejects one pair (kept on re-onboarding)."""
    done = catalog_writer.set_join_status(store, join_id, status)
    if done is None:
        ids = [r[0] for r in store.execute("SELECT id FROM sqlgenie.catalog_joins ORDER BY id")]
        raise InputError(
            f"No join with id {join_id}.",
            hint=f"`sqlgenie joins list` shows them (ids {ids[0]}..{ids[-1]})." if ids else "No joins are stored yet.",
        )
    row = [j for j in list_joins(store) if j["id"] == join_id]
    return row[0] if row else done


def _catalog_column(store: psycopg.Connection, tid: int, schema: str, table: str, column: str) -> str:
    """The stored name of ``column`` (exact, else a unique case-insensitive match); a clear
    error naming the closest columns otherwise."""
    names = [r[0] for r in store.execute(
        "SELECT column_name FROM sqlgenie.catalog_columns WHERE table_id = %s ORDER BY ordinal", (tid,))]
    if column in names:
        return column
    low = [n for n in names if n.lower() == column.lower()]
    if len(low) == 1:
        return low[0]
    close = closest_names(column, names)
    raise InputError(
        f"{schema}.{table} has no column {column!r}.",
        hint=f"Closest columns: {', '.join(close)}." if close else f"Columns: {', '.join(names)}.",
    )


def set_column(
    store: psycopg.Connection,
    spec: str,
    *,
    synonyms: list[str] | None = None,
    aggregation: str | None = None,
    mandatory: bool | None = None,
    description: str | None = None,
    searchable: bool | None = None,
) -> dict[str, Any]:
    """Human edit of one column; the edited fields are kept on re-onboarding."""
    table_spec, column = split_column_spec(spec)
    tid, schema, table = resolve_onboarded(store, table_spec)
    name = _catalog_column(store, tid, schema, table, column)
    row = store.execute(
        "SELECT id, column_name FROM sqlgenie.catalog_columns WHERE table_id = %s AND column_name = %s", (tid, name)
    ).fetchone()
    if aggregation is not None:
        aggregation = aggregation.upper()
        if aggregation not in AGGREGATIONS:
            raise InputError(f"--aggregation must be one of {', '.join(AGGREGATIONS)}, not {aggregation!r}.")
    changes: dict[str, Any] = {}
    if synonyms is not None:
        changes["synonyms"] = [s for s in dict.fromkeys(x.strip() for x in synonyms) if s]
    if aggregation is not None:
        changes["aggregation"] = aggregation
    if mandatory is not None:
        changes["mandatory"] = mandatory
    if description is not None:
        changes["description"] = description
    if searchable is not None:
        changes["searchable"] = searchable
    if not changes:
        raise InputError("Nothing to change.", hint="Pass --synonyms, --aggregation, --mandatory/--not-mandatory, --description or --searchable.")
    with store.transaction():
        for field_name, value in changes.items():
            store.execute(
                sql.SQL(
                    "UPDATE sqlgenie.catalog_columns SET {} = %s,"
                    " human_fields = (SELECT array_agg(DISTINCT f) FROM unnest(human_fields || %s::text) f) WHERE id = %s"
                ).format(sql.Identifier(field_name)),
                (value, field_name, row[0]),
            )
        if changes.get("searchable") is False:
            store.execute("DELETE FROM sqlgenie.value_cache WHERE column_id = %s", (row[0],))
    out = store.execute(
        "SELECT column_name, synonyms, aggregation, mandatory, description, searchable, human_fields"
        " FROM sqlgenie.catalog_columns WHERE id = %s",
        (row[0],),
    ).fetchone()
    return {"table": f"{schema}.{table}", "column": out[0], "synonyms": list(out[1] or []), "aggregation": out[2],
            "mandatory": out[3], "description": out[4], "searchable": out[5], "human_fields": sorted(out[6] or [])}


def key_violations(target: psycopg.Connection, schema: str, table: str, columns: list[str],
                   *, timeout_ms: int) -> dict[str, int]:
    """Rows, rows with a NULL in ``columns`` and duplicate rows over them, counted on the
    whole table in a read-only transaction that is rolled back."""
    query = uniqueness_counts(sql.Identifier(schema, table), columns)
    with target.transaction(force_rollback=True):
        target.execute("SET TRANSACTION READ ONLY")
        target.execute("SELECT set_config('statement_timeout', %s, true)", (str(int(timeout_ms)),))
        try:
            rows, complete, distinct = target.execute(query).fetchone()
        except psycopg.errors.QueryCanceled as exc:
            raise InputError(
                f"Checking that ({', '.join(columns)}) is unique in {schema}.{table} took longer than {timeout_ms} ms.",
                hint="Pass --force to set the key without the check, or raise SQLGENIE_STATEMENT_TIMEOUT_MS.",
            ) from exc
        except psycopg.errors.UndefinedTable as exc:
            raise UnknownTableError(
                f"{schema}.{table} is onboarded but no longer exists on the target database.",
                hint="Re-create it, or remove it from the catalog by onboarding the schema again.",
            ) from exc
    return {"rows": int(rows), "null_rows": int(rows - complete), "duplicate_rows": int(complete - distinct)}


def set_primary_key(
    store: psycopg.Connection,
    spec: str,
    columns: list[str] | None,
    *,
    target: psycopg.Connection | None = None,
    no_key: bool = False,
    reset: bool = False,
    force: bool = False,
    timeout_ms: int = 30_000,
) -> dict[str, Any]:
    """A person sets (or confirms) a table's primary key, declares it has none (``no_key``),
    or hands it back to inference (``reset``). The key is checked on the data (no NULL, no
    duplicate) unless ``force``; a declared ``PRIMARY KEY`` cannot be overridden. Kept on
    re-onboarding; it takes effect for joins inferred from then on."""
    chosen = [c for c in (columns or []) if c.strip()]
    if sum((bool(chosen), no_key, reset)) != 1:
        raise InputError("Give the key's columns, or --none, or --reset (one of them).",
                         hint="Example: sqlgenie tables set-key sales.order_lines order_no line_no")
    tid, schema, table = resolve_onboarded(store, spec)
    pk, source, human, profile = store.execute(
        "SELECT primary_key, pk_source, human_fields, profile FROM sqlgenie.catalog_tables WHERE id = %s", (tid,)
    ).fetchone()
    if source == "declared":
        raise InputError(
            f"{schema}.{table} declares PRIMARY KEY ({', '.join(pk)}); a declared key is not overridden.",
            hint="Change the constraint on the database, then run `sqlgenie onboard table` again.",
        )
    check: dict[str, int] | None = None
    if reset:
        machine = (profile or {}).get("machine_key") or {}
        if machine:  # the key inference picked at the last onboarding
            new_key, new_source = list(machine.get("columns") or []), machine.get("source") or "none"
        elif "primary_key" in (human or []):  # onboarded before machine keys were kept
            new_key, new_source = [], "none"
        else:
            new_key, new_source = list(pk or []), source
        fields_sql = "array_remove(human_fields, 'primary_key')"
    else:
        new_key = [] if no_key else list(dict.fromkeys(_catalog_column(store, tid, schema, table, c.strip())
                                                        for c in chosen))
        new_source = "human"
        fields_sql = "(SELECT array_agg(DISTINCT f) FROM unnest(human_fields || 'primary_key'::text) f)"
        if new_key and not force:
            if target is None:
                raise InputError("No target connection to check the key on.", hint="Pass --force to skip the check.")
            check = key_violations(target, schema, table, new_key, timeout_ms=timeout_ms)
            problems = ([f"{check['null_rows']:,} have a NULL in it"] if check["null_rows"] else []) + (
                [f"{check['duplicate_rows']:,} repeat another row's values"] if check["duplicate_rows"] else [])
            if problems:
                raise InputError(
                    f"({', '.join(new_key)}) is not a key of {schema}.{table}: of its {check['rows']:,} rows, "
                    + " and ".join(problems) + ".",
                    hint="Pick other columns (`sqlgenie tables show` lists them), or pass --force to set it anyway.",
                )
    with store.transaction():
        catalog_writer.lock(store)
        store.execute(
            sql.SQL("UPDATE sqlgenie.catalog_tables SET primary_key = %s, pk_source = %s, human_fields = {} WHERE id = %s")
            .format(sql.SQL(fields_sql)),
            (new_key, new_source, tid),
        )
    return {"table": f"{schema}.{table}", "primary_key": new_key, "pk_source": new_source,
            "previous": {"primary_key": list(pk or []), "pk_source": source}, "checked": check,
            "kept_on_reonboarding": not reset}
