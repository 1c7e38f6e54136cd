"""Partition and index picks, with DDL and an estimated benefit. Nothing is applied
unless asked (``--apply``).

* **Workload**: the SQL of the example bank (``sqlgenie.bank_examples.sql`` in the
  store, when that table exists), parsed with sqlglot; every column used in a JOIN
  condition, WHERE, GROUP BY or ORDER BY is counted per table.
* **Partition pick**: a timestamp/date column (range partitions) or a region-like
  column (list partitions: region, country, state, market, zone...) with enough
  distinct values and the most filter use. Recommended from
  :data:`PARTITION_MIN_ROWS` rows up.
* **Index picks**: columns not already leading an index, scored by workload use
  (WHERE 3, JOIN 2, GROUP BY / ORDER BY 1), foreign-key columns (JOIN), the
  partition column, and selectivity (distinct values / rows). At most
  :data:`MAX_INDEX_PICKS`.
* **Benefit**: ``EXPLAIN`` cost of a representative query (the workload queries
  using the column, else an equality / recent-range lookup) before and after the
  index is created **inside a transaction that is rolled back**. Tables above
  :data:`REAL_BUILD_MAX_ROWS` rows are measured on a TABLESAMPLE copy in a
  temporary table (same transaction, rolled back) instead of building the index on
  the full table; the method is recorded with the figures.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass
from typing import Any, Iterable

import psycopg
from psycopg import sql

from onboarding.names import split_identifier
from onboarding.profile import ColumnProfile, TableProfile, sample_clause

PARTITION_MIN_ROWS = 1_000_000
MAX_INDEX_PICKS = 3
REAL_BUILD_MAX_ROWS = 2_000_000
SAMPLE_COPY_ROWS = 200_000
MIN_BENEFIT = 0.10  # recommend only when the estimated cost drops by at least 10 %
_REGION_WORDS = frozenset("region country state province territory market zone area district site city continent".split())
_CLAUSE_WEIGHT = {"where": 3.0, "join": 2.0, "group": 1.0, "order": 1.0}


@dataclass
class IndexPick:
    columns: list[str]
    score: float
    reasons: list[str]
    ddl: str
    query: str | None = None
    cost_before: float | None = None
    cost_after: float | None = None
    benefit: float | None = None  # 1 - after / before
    method: str | None = None  # rolled_back_build | sample_copy | none
    recommended: bool = False
    applied: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "columns": self.columns, "score": round(self.score, 3), "reasons": self.reasons, "ddl": self.ddl,
            "query": self.query,
            "cost_before": None if self.cost_before is None else round(self.cost_before, 2),
            "cost_after": None if self.cost_after is None else round(self.cost_after, 2),
            "benefit": None if self.benefit is None else round(self.benefit, 4),
            "method": self.method, "recommended": self.recommended, "applied": self.applied,
        }


# --- workload -------------------------------------------------------------------------------------


def bank_sql(store: psycopg.Connection) -> list[str]:
    """SQL texts of the example bank (empty when the bank does not exist yet)."""
    exists = store.execute("SELECT to_regclass('sqlgenie.bank_examples') IS NOT NULL").fetchone()[0]
    if not exists:
        return []
    has_sql = store.execute(
        "SELECT EXISTS (SELECT 1 FROM information_schema.columns WHERE table_schema = 'sqlgenie'"
        " AND table_name = 'bank_examples' AND column_name = 'sql')"
    ).fetchone()[0]
    if not has_sql:
        return []
    return [r[0] for r in store.execute("SELECT sql FROM sqlgenie.bank_examples WHERE sql IS NOT NULL LIMIT 20000")]


Usage = dict[tuple[str, str], dict[str, Counter]]  # (schema, table) -> column -> Counter(kind)


def workload_usage(
    sqls: Iterable[str], columns_by_table: dict[tuple[str, str], set[str]], search_path: tuple[str, ...] = ("public",)
) -> tuple[Usage, dict[tuple[str, str], list[str]]]:
    """Column use per table in ``sqls`` (sqlglot), and the statements touching each table."""
    import sqlglot
    from sqlglot import exp
    from sqlglot.optimizer.scope import traverse_scope

    by_lower = {(s.lower(), t.lower()): (s, t) for s, t in columns_by_table}
    by_name: dict[str, list[tuple[str, str]]] = {}
    for s, t in columns_by_table:
        by_name.setdefault(t.lower(), []).append((s, t))
    usage: Usage = {}
    touching: dict[tuple[str, str], list[str]] = {}

    def resolve(table: exp.Table) -> tuple[str, str] | None:
        name, db = table.name, table.db
        if db:
            return by_lower.get((db.lower(), name.lower()))
        for sch in search_path:
            hit = by_lower.get((sch.lower(), name.lower()))
            if hit:
                return hit
        cands = by_name.get(name.lower(), [])
        return cands[0] if len(cands) == 1 else None

    for text in sqls:
        try:
            tree = sqlglot.parse_one(text, read="postgres")
        except Exception:  # noqa: BLE001 - unparseable bank SQL is skipped
            continue
        if tree is None:
            continue
        seen_tables: set[tuple[str, str]] = set()
        try:
            scopes = traverse_scope(tree)
        except Exception:  # noqa: BLE001
            continue
        for scope in scopes:
            sources: dict[str, tuple[str, str]] = {}
            for alias, src in scope.sources.items():
                if isinstance(src, exp.Table):
                    hit = resolve(src)
                    if hit:
                        sources[alias.lower()] = hit
                        seen_tables.add(hit)
            if not sources:
                continue
            for col in scope.columns:
                kind = _clause_of(col)
                if kind is None:
                    continue
                target = None
                if col.table:
                    target = sources.get(col.table.lower())
                else:
                    owners = [t for t in set(sources.values()) if col.name in columns_by_table.get(t, set())
                              or col.name.lower() in {c.lower() for c in columns_by_table.get(t, set())}]
                    target = owners[0] if len(owners) == 1 else None
                if target is None:
                    continue
                real = _real_column(col.name, columns_by_table.get(target, set()))
                if real is None:
                    continue
                usage.setdefault(target, {}).setdefault(real, Counter())[kind] += 1
        for t in seen_tables:
            touching.setdefault(t, []).append(text)
    return usage, touching


def _real_column(name: str, columns: set[str]) -> str | None:
    if name in columns:
        return name
    low = [c for c in columns if c.lower() == name.lower()]
    return low[0] if len(low) == 1 else None


def _clause_of(node) -> str | None:
    from sqlglot import exp

    cur = node
    while cur is not None:
        parent = cur.parent
        if parent is None:
            return None
        if isinstance(parent, exp.Where):
            return "where"
        if isinstance(parent, exp.Join) and cur is parent.args.get("on"):
            return "join"
        if isinstance(parent, exp.Group):
            return "group"
        if isinstance(parent, exp.Order):
            return "order"
        if isinstance(parent, (exp.Select, exp.Subquery)):
            return None
        cur = parent
    return None


# --- partition pick ---------------------------------------------------------------------------------


def partition_pick(prof: TableProfile, usage: dict[str, Counter] | None = None) -> dict[str, Any] | None:
    """Best partition column with reason and DDL (``recommended`` only on big tables)."""
    usage = usage or {}
    best: tuple[float, ColumnProfile, str] | None = None
    for col in prof.columns:
        if col.all_null:
            continue
        filters = usage.get(col.name, Counter()).get("where", 0)
        words = set(split_identifier(col.name))
        nd = col.n_distinct or 0
        if col.family == "temporal" and col.data_type.startswith(("timestamp", "date")) and nd >= 30:
            s = 2.0 + filters + min(1.0, math.log10(max(nd, 1)) / 6)
            kind = "range"
        elif words & _REGION_WORDS and 2 <= nd <= 1000 and col.family in ("text", "numeric", "enum"):
            s = 1.0 + filters + min(0.5, nd / 2000)
            kind = "list"
        else:
            continue
        if best is None or s > best[0]:
            best = (s, col, kind)
    if best is None:
        return None
    s, col, kind = best
    table = _qualified_text(prof.schema, prof.name)
    new = _qualified_text(prof.schema, _truncate(prof.name + "_partitioned"))
    c = _ident_text(col.name)
    if kind == "range":
        reason = f"time column {col.name} ({int(col.n_distinct or 0):,} distinct values, {col.min_value} .. {col.max_value}): monthly range partitions prune by date filters"
        example = _month_partition(prof, col)
        ddl = (
            f"CREATE TABLE {new} (LIKE {table} INCLUDING DEFAULTS INCLUDING CONSTRAINTS) PARTITION BY RANGE ({c});\n"
            f"{example}\n"
            f"-- then: INSERT INTO {new} SELECT * FROM {table}; swap the names; recreate keys including {c}"
        )
    else:
        reason = f"region-like column {col.name} ({int(col.n_distinct or 0):,} values): list partitions prune by region filters"
        ddl = (
            f"CREATE TABLE {new} (LIKE {table} INCLUDING DEFAULTS INCLUDING CONSTRAINTS) PARTITION BY LIST ({c});\n"
            f"CREATE TABLE {_qualified_text(prof.schema, _truncate(prof.name + '_default'))} PARTITION OF {new} DEFAULT;\n"
            f"-- then: one partition per frequent value, INSERT ... SELECT, swap the names"
        )
    uses = sum(usage.get(col.name, Counter()).values())
    if uses:
        reason += f"; used {uses} time(s) in the example bank"
    return {
        "column": col.name, "kind": kind, "score": round(s, 3), "reason": reason, "ddl": ddl,
        "recommended": prof.row_count >= PARTITION_MIN_ROWS,
        "note": None if prof.row_count >= PARTITION_MIN_ROWS else f"table has {prof.row_count:,} rows: too small to benefit",
    }


def _month_partition(prof: TableProfile, col: ColumnProfile) -> str:
    m = re.match(r"(\d{4})-(\d{2})", col.min_value or "")
    if not m:
        return "-- CREATE TABLE ... PARTITION OF ... FOR VALUES FROM (...) TO (...);  -- one per month"
    y, mo = int(m.group(1)), int(m.group(2))
    ny, nmo = (y + 1, 1) if mo == 12 else (y, mo + 1)
    part = _qualified_text(prof.schema, _truncate(f"{prof.name}_{y:04d}_{mo:02d}"))
    return (
        f"CREATE TABLE {part} PARTITION OF {_qualified_text(prof.schema, _truncate(prof.name + '_partitioned'))}"
        f" FOR VALUES FROM ('{y:04d}-{mo:02d}-01') TO ('{ny:04d}-{nmo:02d}-01');  -- one per month"
    )


# --- index picks -------------------------------------------------------------------------------------


def _ident_text(name: str) -> str:
    return sql.Identifier(name).as_string(None)


def _qualified_text(schema: str, name: str) -> str:
    return f"{_ident_text(schema)}.{_ident_text(name)}"


def _truncate(name: str, limit: int = 63) -> str:
    raw = name.encode("utf-8")
    if len(raw) <= limit:
        return name
    return raw[:limit].decode("utf-8", errors="ignore")


def index_name(table: str, columns: list[str]) -> str:
    base = "sg_" + table + "_" + "_".join(columns) + "_idx"
    base = re.sub(r"\s+", "_", base).lower()
    return _truncate(base)


def index_ddl(prof: TableProfile, columns: list[str], *, concurrently: bool = True) -> str:
    cols = ", ".join(_ident_text(c) for c in columns)
    conc = "CONCURRENTLY " if concurrently else ""
    return f"CREATE INDEX {conc}IF NOT EXISTS {_ident_text(index_name(prof.name, columns))} ON {_qualified_text(prof.schema, prof.name)} ({cols})"


def candidate_indexes(
    prof: TableProfile,
    usage: dict[str, Counter] | None,
    join_columns: Iterable[str],
    partition: dict[str, Any] | None,
    primary_key: list[str],
) -> list[IndexPick]:
    usage = usage or {}
    leading = prof.indexed_leading()
    joins = set(join_columns)
    picks = []
    for col in prof.columns:
        if col.name in leading or col.all_null or not col.comparable or col.family in ("boolean", "binary", "other"):
            continue
        if primary_key and primary_key[0] == col.name:
            continue
        if col.family == "text" and (col.avg_width or 0) > 200:
            continue
        reasons = []
        s = 0.0
        for kind, n in usage.get(col.name, Counter()).items():
            s += _CLAUSE_WEIGHT.get(kind, 0.0) * n
            reasons.append(f"{kind} in {n} bank quer{'y' if n == 1 else 'ies'}")
        if col.name in joins:
            s += 2.0
            reasons.append("foreign-key join column")
        if partition and partition.get("column") == col.name:
            s += 1.5
            reasons.append("time/region filter column")
        if s <= 0:
            continue
        nd = col.n_distinct or 1
        rows = max(prof.row_count, 2)
        selectivity = min(1.0, math.log(max(nd, 1) + 1) / math.log(rows + 1))
        if nd <= 2:
            selectivity *= 0.2
        s *= 0.5 + selectivity
        reasons.append(f"selectivity {selectivity:.2f} ({int(nd):,} distinct of {prof.row_count:,} rows)")
        picks.append(IndexPick([col.name], s, reasons, index_ddl(prof, [col.name])))
    picks.sort(key=lambda p: -p.score)
    return picks[:MAX_INDEX_PICKS]


def _probe_query(conn: psycopg.Connection, prof: TableProfile, col: ColumnProfile) -> tuple[Any, tuple] | None:
    """A representative lookup on ``col``: a recent range for time columns, else equality
    with a value from the table. Returns (make(table_identifier) -> query, params)."""
    c = sql.Identifier(col.name)
    if col.family == "temporal" and col.min_value and col.max_value:
        try:
            lo = conn.execute(
                "SELECT (%s::timestamp + (%s::timestamp - %s::timestamp) * 0.99)::text",
                (col.min_value, col.max_value, col.min_value),
            ).fetchone()[0]
        except psycopg.Error:
            return None
        return (lambda t: sql.SQL("SELECT * FROM {t} WHERE {c} >= %s::timestamp").format(t=t, c=c)), (lo,)
    clause = sql.SQL("") if prof.exact else sample_clause(prof.row_count, target_rows=1000)[0]
    try:
        row = conn.execute(
            sql.SQL("SELECT {c}::text FROM {t}{s} WHERE {c} IS NOT NULL LIMIT 1").format(c=c, t=prof.ident(), s=clause)
        ).fetchone()
    except psycopg.Error:
        return None
    if row is None:
        return None
    ty = sql.SQL(col.data_type)
    return (lambda t: sql.SQL("SELECT * FROM {t} WHERE {c} = %s::{ty}").format(t=t, c=c, ty=ty)), (row[0],)


def _explain_cost(conn: psycopg.Connection, query: sql.Composable, params: tuple) -> float:
    plan = conn.execute(sql.SQL("EXPLAIN (FORMAT JSON) ") + query, params).fetchone()[0]
    if isinstance(plan, str):
        import json

        plan = json.loads(plan)
    return float(plan[0]["Plan"]["Total Cost"])


def estimate_benefits(conn: psycopg.Connection, prof: TableProfile, picks: list[IndexPick],
                      workload: list[str] | None = None, *, lock_timeout_ms: int = 2000) -> None:
    """Fill cost_before/after and benefit of each pick (index built in a rolled-back
    transaction; on a sample copy for big tables). ``conn``: target, autocommit."""
    if not picks:
        return
    big = prof.row_count > REAL_BUILD_MAX_ROWS
    for pick in picks:
        col = prof.column(pick.columns[0])
        if col is None:
            continue
        probe = _probe_query(conn, prof, col)
        if probe is None:
            pick.method = "none"
            pick.reasons.append("no representative query")
            continue
        make, params = probe
        query = make(prof.ident())
        pick.query = query.as_string(conn).replace("%s", repr(params[0]), 1)
        try:
            with conn.transaction(force_rollback=True):
                conn.execute(sql.SQL("SET LOCAL lock_timeout = {}").format(sql.Literal(f"{lock_timeout_ms}ms")))
                conn.execute("SET LOCAL statement_timeout = '120s'")
                conn.execute("SET LOCAL maintenance_work_mem = '256MB'")
                target = prof.ident()
                scale = 1.0
                if big:
                    clause, pct = sample_clause(prof.row_count, target_rows=SAMPLE_COPY_ROWS)
                    tmp = sql.Identifier("sg_index_probe")
                    conn.execute(sql.SQL("CREATE TEMP TABLE {tmp} ON COMMIT DROP AS SELECT * FROM {t}{s}").format(
                        tmp=tmp, t=target, s=clause))
                    conn.execute(sql.SQL("ANALYZE {}").format(tmp))
                    n_copy = conn.execute(sql.SQL("SELECT count(*) FROM {}").format(tmp)).fetchone()[0]
                    scale = prof.row_count / max(n_copy, 1)
                    query_t = make(tmp)
                    pick.method = f"sample_copy ({pct:g}% TABLESAMPLE, {n_copy:,} rows)"
                    before = _explain_cost(conn, query_t, params)
                    conn.execute(sql.SQL("CREATE INDEX ON {} ({})").format(tmp, sql.SQL(", ").join(sql.Identifier(c) for c in pick.columns)))
                    after = _explain_cost(conn, query_t, params)
                else:
                    pick.method = "rolled_back_build"
                    before = _explain_cost(conn, query, params)
                    conn.execute(sql.SQL("CREATE INDEX ON {} ({})").format(target, sql.SQL(", ").join(sql.Identifier(c) for c in pick.columns)))
                    after = _explain_cost(conn, query, params)
        except psycopg.Error as exc:
            pick.method = "none"
            pick.reasons.append(f"benefit not measured ({str(exc).strip().splitlines()[0]})")
            continue
        pick.cost_before, pick.cost_after = before * scale, after * scale
        pick.benefit = 1.0 - after / before if before > 0 else 0.0
        pick.recommended = pick.benefit >= MIN_BENEFIT


def apply_indexes(conn: psycopg.Connection, picks: list[IndexPick]) -> list[str]:
    """Create the recommended indexes (``CREATE INDEX CONCURRENTLY``; ``conn`` autocommit)."""
    done = []
    for pick in picks:
        if not pick.recommended:
            continue
        conn.execute(pick.ddl)
        pick.applied = True
        done.append(pick.ddl)
    return done


def index_picks(
    conn: psycopg.Connection,
    prof: TableProfile,
    *,
    usage: dict[str, Counter] | None = None,
    join_columns: Iterable[str] = (),
    primary_key: list[str] | None = None,
    measure: bool = True,
) -> tuple[dict[str, Any] | None, list[IndexPick]]:
    """Partition pick and index picks (with measured benefit) for one table."""
    part = partition_pick(prof, usage)
    picks = candidate_indexes(prof, usage, join_columns, part, primary_key or [])
    if measure and prof.row_count > 0:
        estimate_benefits(conn, prof, picks)
    return part, picks
