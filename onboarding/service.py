"""Onboarding service: ``onboard_table`` and ``onboard_schema``.

One table goes through these phases (the progress callback gets each):

``profile`` -> ``keys`` -> ``columns`` (synonyms, aggregation, searchable) ->
``values`` (frequent-value cache) -> ``joins`` (foreign-key pairs with the tables
onboarded before it) -> ``indexes`` (partition and index picks, benefit) ->
``write`` (one store transaction).

Profiling reads the *target* database; the catalog is written to the *store*
(they may be the same database). Nothing is written before the final phase, and
that phase is a single transaction, so an interrupted onboarding leaves the
previous catalog state of the table intact.
"""

from __future__ import annotations

import time
from contextlib import ExitStack
from dataclasses import dataclass, field
from typing import Any, Callable

import psycopg

from onboarding import aggregation, catalog_writer, cost, enrich, indexes, joins, keys, names, profile, value_cache
from onboarding.catalog_writer import ColumnMeta, TableOnboarding
from sqlgenie.config import Settings, get_settings
from sqlgenie.errors import InputError, LLMNotConfiguredError, UnknownTableError

PHASES = ("profile", "keys", "columns", "values", "joins", "indexes", "write")

#: progress(table, phase, done, total): ``done`` counts finished phases of ``table``.
ProgressFn = Callable[[str, str, int, int], None]


@dataclass
class OnboardOptions:
    priority_metric: str | None = None
    top_values: int = value_cache.DEFAULT_TOP_VALUES
    apply_indexes: bool = False
    measure_indexes: bool = True
    join_scope: str = "schema"  # schema: compare with onboarded tables of the same schema | all
    llm: Any = "auto"  # "auto" (configured provider or none), None (no LLM) or a provider
    threshold: float = joins.THRESHOLD
    exact_max_rows: int = profile.EXACT_MAX_ROWS
    force_analyze: bool = False


@dataclass
class OnboardResult:
    schema: str
    table: str
    table_id: int
    rows: int
    exact: bool
    seconds: float
    primary_key: list[str]
    pk_source: str
    columns: int
    searchable: list[str]
    cached_values: int
    joins: list[dict[str, Any]]
    partition: dict[str, Any] | None
    index_picks: list[dict[str, Any]]
    applied_indexes: list[str] = field(default_factory=list)
    llm: bool = False
    notes: list[str] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)
    candidates: list[joins.Candidate] = field(default_factory=list, repr=False)
    key_evidence: dict[str, Any] = field(default_factory=dict)

    @property
    def qualified(self) -> str:
        return f"{self.schema}.{self.table}"

    def to_json(self) -> dict[str, Any]:
        return {
            "schema": self.schema, "table": self.table, "table_id": self.table_id, "rows": self.rows,
            "exact": self.exact, "seconds": round(self.seconds, 3), "primary_key": self.primary_key,
            "pk_source": self.pk_source, "columns": self.columns, "searchable": self.searchable,
            "cached_values": self.cached_values, "joins": self.joins, "partition": self.partition,
            "index_picks": self.index_picks, "applied_indexes": self.applied_indexes, "llm": self.llm,
            "notes": self.notes, "timings": {k: round(v, 4) for k, v in self.timings.items()},
            "candidates_scored": len(self.candidates),
        }


def resolve_provider(llm: Any, settings: Settings) -> Any:
    if llm == "auto":
        from sqlgenie.llm import get_provider

        try:
            return get_provider(settings)
        except LLMNotConfiguredError:
            return None
    return llm


class _Conns:
    """Target (autocommit) and store connections, opened unless given."""

    def __init__(self, settings: Settings, target: psycopg.Connection | None, store: psycopg.Connection | None):
        self.settings = settings
        self._stack = ExitStack()
        self.target = target
        self.store = store

    def __enter__(self) -> _Conns:
        from sqlgenie.store import connect_store, open_connection, target_url

        if self.store is None:
            self.store = self._stack.enter_context(connect_store(self.settings))
            self.store.commit()
            self.store.autocommit = True  # the writer opens its own transaction per table
        if self.target is None:
            self.target = self._stack.enter_context(open_connection(target_url(self.settings), autocommit=True))
            self.target.execute("SET application_name = 'sqlgenie-onboard'")
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stack.close()


def _catalog_names(store: psycopg.Connection) -> list[str]:
    try:
        return [f"{s}.{t}" for s, t in store.execute("SELECT schema_name, table_name FROM sqlgenie.catalog_tables")]
    except psycopg.Error:
        return []


def onboard_table(
    spec: str,
    *,
    settings: Settings | None = None,
    options: OnboardOptions | None = None,
    progress: ProgressFn | None = None,
    target: psycopg.Connection | None = None,
    store: psycopg.Connection | None = None,
    provider: Any = None,
) -> OnboardResult:
    """Onboard one table (``SCHEMA.TABLE``; quoting as in SQL for odd names)."""
    settings = settings or get_settings()
    options = options or OnboardOptions()
    with _Conns(settings, target, store) as conns:
        if provider is None:
            provider = resolve_provider(options.llm, settings)
        schema, name = profile.resolve_table(conns.target, spec, known=_catalog_names(conns.store))
        return _onboard(conns.target, conns.store, schema, name, options, provider, progress)


def _onboard(
    target: psycopg.Connection,
    store: psycopg.Connection,
    schema: str,
    name: str,
    options: OnboardOptions,
    provider: Any,
    progress: ProgressFn | None,
) -> OnboardResult:
    label = f"{schema}.{name}"
    started = time.perf_counter()
    timings: dict[str, float] = {}
    notes: list[str] = []
    step = [0]

    def phase(p: str) -> float:
        if progress:
            progress(label, p, step[0], len(PHASES))
        step[0] += 1
        return time.perf_counter()

    # 1. profile
    t0 = phase("profile")
    prof = profile.profile_table(target, schema, name, exact_max_rows=options.exact_max_rows,
                                 force_analyze=options.force_analyze)
    notes += prof.notes
    timings["profile"] = time.perf_counter() - t0
    if options.priority_metric:
        metric_col = prof.column(options.priority_metric)
        if metric_col is None or metric_col.family != "numeric":
            numeric = [c.name for c in prof.columns if c.family == "numeric"]
            raise InputError(
                f"--priority-metric {options.priority_metric!r} is not a numeric column of {label}.",
                hint=f"Numeric columns: {', '.join(numeric) or 'none'}.",
            )

    # 2. primary key
    t0 = phase("keys")
    key = keys.infer_primary_key(target, prof)
    key, note = _with_human_key(store, prof, key)
    if note:
        notes.append(note)
    timings["keys"] = time.perf_counter() - t0

    # 3. column metadata
    t0 = phase("columns")
    llm_syn: dict[str, list[str]] = {}
    if provider is not None:
        llm_syn, err = enrich.llm_synonyms(provider, prof)
        if err:
            notes.append(f"LLM synonyms skipped ({err})")
    metas: list[ColumnMeta] = []
    for c in prof.columns:
        syn = enrich.merge_synonyms(names.synonyms_for(c.name, name), llm_syn.get(c.name, []))
        is_key = c.name in key.columns and len(key.columns) == 1
        agg = aggregation.pick_aggregation(c, is_key=is_key, row_count=prof.row_count)
        sample = None
        if c.family in ("text", "enum") and not c.mcv and not c.all_null:
            sample = value_cache.shape_sample(target, prof, c)
        ok, reason = value_cache.searchable(c, sample)
        metas.append(ColumnMeta(c, syn, agg, ok, reason))
    timings["columns"] = time.perf_counter() - t0

    # 4. frequent values
    t0 = phase("values")
    wanted = [m.profile for m in metas if m.searchable]
    if wanted:
        if options.priority_metric:
            vals = {c.name: value_cache.priority_values(target, prof, c, options.priority_metric, options.top_values) for c in wanted}
        else:
            vals = value_cache.top_values(target, prof, wanted, options.top_values)
        for m in metas:
            m.values = vals.get(m.profile.name)
    timings["values"] = time.perf_counter() - t0

    # 5. joins with the tables onboarded before this one
    t0 = phase("joins")
    scope = [schema] if options.join_scope == "schema" else None
    earlier = joins.refs_from_catalog(store, scope, exclude=(schema, name))
    mine = joins.refs_from_profile(prof, key.columns)
    sampler = joins.ValueSampler(target)
    cands = joins.generate_candidates(target, mine, earlier, sampler=sampler)
    tables: dict[tuple[str, str], list[joins.ColumnRef]] = {}
    for ref in earlier + mine:
        tables.setdefault(ref.table_key, []).append(ref)
    pks = _catalog_pks(store, scope, exclude=(schema, name))
    pks[(schema, name)] = key.columns
    cands += joins.composite_candidates(target, tables, pks, (schema, name))
    if provider is not None and cands:
        joins.llm_judge(provider, cands)
    # a table without rows: pairs from names and types alone, only ever proposed
    if prof.row_count == 0 or any(r.rows == 0 for r in earlier):
        schema_tables = [t for _s, t in profile.list_tables(target, schema)]
        cands += joins.name_only_candidates(mine, earlier, schema_tables, _declared_fk_columns(store, prof, scope))
    timings["joins"] = time.perf_counter() - t0

    # 6. partition and index picks
    t0 = phase("indexes")
    usage = None
    try:
        workload = indexes.bank_sql(store)
    except psycopg.Error:
        workload = []
    if workload:
        cols_by_table = {(r.schema, r.table): set() for r in earlier + mine}
        for r in earlier + mine:
            cols_by_table[(r.schema, r.table)].add(r.column)
        use, _touching = indexes.workload_usage(workload, cols_by_table, search_path=(schema, "public"))
        usage = use.get((schema, name))
    join_cols = {
        c for cand in cands if cand.src.table_key == (schema, name) and cand.score >= options.threshold
        for c in cand.from_columns
    } | {c for fk in prof.foreign_keys for c in fk[0]}
    part, picks = indexes.index_picks(target, prof, usage=usage, join_columns=join_cols, primary_key=key.columns,
                                      measure=options.measure_indexes)
    applied: list[str] = []
    if options.apply_indexes:
        applied = indexes.apply_indexes(target, picks)
    timings["indexes"] = time.perf_counter() - t0

    # 7. write (one transaction)
    t0 = phase("write")
    ob = TableOnboarding(
        profile=prof, key=key, columns=metas, partition=part, index_picks=picks, candidates=cands,
        options={"priority_metric": options.priority_metric, "top_values": options.top_values,
                 "join_scope": options.join_scope, "llm": provider is not None},
        timings=timings,
    )
    model = cost.load_model(store)
    written = catalog_writer.write_table(store, ob, cost_model=model, threshold=options.threshold)
    timings["write"] = time.perf_counter() - t0
    if progress:
        progress(label, "done", len(PHASES), len(PHASES))
    return OnboardResult(
        schema=schema, table=name, table_id=written.table_id, rows=prof.row_count, exact=prof.exact,
        seconds=time.perf_counter() - started, primary_key=key.columns, pk_source=key.source,
        columns=len(prof.columns), searchable=[m.profile.name for m in metas if m.searchable],
        cached_values=written.cached_values, joins=written.joins, partition=part,
        index_picks=[p.to_json() for p in picks], applied_indexes=applied, llm=provider is not None,
        notes=notes + [f"kept human edit: {k}" for k in written.kept_human], timings=timings,
        candidates=cands, key_evidence=key.evidence,
    )


def _with_human_key(store: psycopg.Connection, prof: profile.TableProfile,
                    inferred: keys.KeyPick) -> tuple[keys.KeyPick, str | None]:
    """The key a person set with ``sqlgenie tables set-key`` wins over the inferred one, so
    joins, aggregations and index picks of this onboarding use it too. A person's key that
    names a column the table no longer has is dropped (the note says so)."""
    row = store.execute(
        "SELECT primary_key FROM sqlgenie.catalog_tables"
        " WHERE schema_name = %s AND table_name = %s AND 'primary_key' = ANY(human_fields)",
        (prof.schema, prof.name),
    ).fetchone()
    if row is None or prof.primary_key:
        return inferred, None  # a declared PRIMARY KEY is the truth; set-key refuses to override it
    human = list(row[0] or [])
    inferred.evidence["inferred_key"] = {"columns": inferred.columns, "source": inferred.source}
    missing = [c for c in human if prof.column(c) is None]
    if missing:
        inferred.evidence["human_key_dropped"] = human
        return inferred, (f"the primary key set by a person ({', '.join(human)}) names columns the table no longer "
                          f"has ({', '.join(missing)}); using the inferred key instead. "
                          "Set it again with `sqlgenie tables set-key`.")
    return keys.KeyPick(human, "human", {"reason": "set by a person (sqlgenie tables set-key)",
                                         "inferred_key": {"columns": inferred.columns, "source": inferred.source}}), None


def _declared_fk_columns(store: psycopg.Connection, prof: profile.TableProfile,
                         schemas: list[str] | None) -> set[tuple[str, str, str]]:
    """(schema, table, column) of every referencing column of a declared foreign key: this
    table's and those of the onboarded tables in scope."""
    out = {(prof.schema, prof.name, c) for fk in prof.foreign_keys for c in fk[0]}
    for s, t, fks in store.execute(
        "SELECT schema_name, table_name, profile->'declared_foreign_keys' FROM sqlgenie.catalog_tables"
        " WHERE (%(s)s::text[] IS NULL OR schema_name = ANY(%(s)s::text[]))",
        {"s": schemas},
    ):
        for fk in fks or []:
            out |= {(s, t, c) for c in fk.get("columns", [])}
    return out


def _catalog_pks(store: psycopg.Connection, schemas: list[str] | None, exclude: tuple[str, str]) -> dict[tuple[str, str], list[str]]:
    rows = store.execute(
        "SELECT schema_name, table_name, primary_key FROM sqlgenie.catalog_tables"
        " WHERE (%(s)s::text[] IS NULL OR schema_name = ANY(%(s)s::text[]))",
        {"s": schemas},
    ).fetchall()
    return {(r[0], r[1]): list(r[2] or []) for r in rows if (r[0], r[1]) != exclude}


def dependency_order(target: psycopg.Connection, schema: str, tables: list[str]) -> list[str]:
    """Referenced tables before referencing ones (declared foreign keys), else by name."""
    edges: dict[str, set[str]] = {t: set() for t in tables}
    for child, parent in target.execute(
        """
        SELECT c.relname, p.relname FROM pg_constraint con
        JOIN pg_class c ON c.oid = con.conrelid JOIN pg_namespace n ON n.oid = c.relnamespace
        JOIN pg_class p ON p.oid = con.confrelid JOIN pg_namespace pn ON pn.oid = p.relnamespace
        WHERE con.contype = 'f' AND n.nspname = %s AND pn.nspname = %s
        """,
        (schema, schema),
    ):
        if child in edges and parent in edges and child != parent:
            edges[child].add(parent)
    order: list[str] = []
    done: set[str] = set()
    remaining = sorted(tables)
    while remaining:
        ready = [t for t in remaining if edges[t] <= done]
        if not ready:  # a cycle: take the first one
            ready = [remaining[0]]
        for t in ready:
            order.append(t)
            done.add(t)
        remaining = [t for t in remaining if t not in done]
    return order


def onboard_schema(
    schema: str,
    *,
    settings: Settings | None = None,
    options: OnboardOptions | None = None,
    progress: ProgressFn | None = None,
    target: psycopg.Connection | None = None,
    store: psycopg.Connection | None = None,
    provider: Any = None,
    tables: list[str] | None = None,
    on_table: Callable[[OnboardResult], None] | None = None,
) -> list[OnboardResult]:
    """Onboard every table of ``schema`` in dependency-friendly order; each table is
    compared with the tables onboarded before it."""
    settings = settings or get_settings()
    options = options or OnboardOptions()
    with _Conns(settings, target, store) as conns:
        if provider is None:
            provider = resolve_provider(options.llm, settings)
        found = [t for s, t in profile.list_tables(conns.target, schema)]
        if not found:
            schemas = sorted({s for s, _ in profile.list_tables(conns.target)})
            close = profile.closest_names(schema, schemas)
            raise UnknownTableError(
                f"Schema {schema!r} has no tables on the target database.",
                hint=(f"Closest schemas: {', '.join(close)}." if close else "No user schemas found.")
                + " `sqlgenie sql \"SELECT schema_name FROM information_schema.schemata\"` lists them.",
            )
        if tables is not None:
            found = [t for t in found if t in set(tables)]
        results = []
        for t in dependency_order(conns.target, schema, found):
            res = _onboard(conns.target, conns.store, schema, t, options, provider, progress)
            results.append(res)
            if on_table:
                on_table(res)
        return results


def calibrate_costs(settings: Settings | None = None, *, progress: Callable[[int, int], None] | None = None,
                    sizes: tuple[int, ...] = cost.CALIBRATE_SIZES, repeats: int = 3) -> cost.Calibration:
    """``sqlgenie onboard calibrate``: time joins on the target, fit k0/k1, store them,
    recompute every stored join cost."""
    settings = settings or get_settings()
    with _Conns(settings, None, None) as conns:
        real = conns.store.execute(
            """
            SELECT a.schema_name, a.table_name, j.from_columns, coalesce(a.row_estimate, 0),
                   b.schema_name, b.table_name, j.to_columns, coalesce(b.row_estimate, 0)
            FROM sqlgenie.catalog_joins j
            JOIN sqlgenie.catalog_tables a ON a.id = j.from_table_id
            JOIN sqlgenie.catalog_tables b ON b.id = j.to_table_id
            WHERE j.status = 'accepted' ORDER BY j.id
            """
        ).fetchall()
        cal = cost.calibrate(conns.target, real, sizes=sizes, repeats=repeats, progress=progress)
        with conns.store.transaction():
            cost.save_model(conns.store, cal.model, {"r2": round(cal.r2, 4), "samples": len(cal.samples)})
            cost.recompute_costs(conns.store, cal.model)
        return cal
