"""Load a SQLite benchmark database into its own PostgreSQL schema of the target.

Policy (see also :mod:`sqlgenie.eval.identifiers`):

* **Schema**: one per database, named by :func:`schema_name_for` (``db_id`` when it
  is already a plain lower-case name). Loading drops and recreates that schema in one
  transaction, so a failed load leaves the previous state.
* **Identifiers**: every table and column is created under its ASCII-lower-cased
  name, quoted, so mixed case, spaces, reserved words and unicode all load, and the
  transpiled gold SQL (which folds identifiers the same way) resolves them whatever
  case it was written in.
* **Types**: SQLite columns lie about their types (``INT`` columns holding ``''``,
  ``DATETIME`` columns holding free text), so the declared affinity is only a hint
  and the stored values decide (``typeof()`` over every row):
  integers only -> ``integer`` (``bigint`` beyond 32 bits); any real -> ``double
  precision`` (``numeric`` when declared ``DECIMAL``/``NUMERIC``); any text -> ``text``
  unless the column is declared date/time-like and every value is an ISO date
  (-> ``date``) or date-time (-> ``timestamp``); blobs only -> ``bytea``. Columns
  with no values fall back to the declared affinity. Text columns use ``COLLATE "C"``
  (SQLite's BINARY collation).
* **Data**: copied with ``COPY``; values of ``text`` columns are rendered by SQLite
  itself (``CAST(x AS TEXT)``) so mixed columns read back as SQLite shows them.
* **Keys** (``keys="keep"``): declared primary keys (falling back to ``UNIQUE`` when
  the data has NULLs) and foreign keys (``NOT VALID`` when the data violates them);
  a key PostgreSQL cannot accept is skipped with a warning. ``keys="drop"`` creates
  none, for onboarding to infer.
* **Missing file**: tables are created empty from ``tables.json``.
* **Cache**: ``sqlgenie.eval_loads`` in the target (same DDL as migration 0002) holds
  a fingerprint per schema: loader version, keys mode, file size and mtime and the
  sha256 of the SQLite schema. An unchanged database is skipped.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import re
import sqlite3
import time
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Iterable, Literal

import psycopg
from psycopg import errors as pg_errors
from psycopg import sql

from sqlgenie.eval.datasets import SpiderDataset, SpiderSchema
from sqlgenie.eval.identifiers import fold_identifier

LOADER_VERSION = 3
KeysMode = Literal["keep", "drop"]


# --- SQLite inspection ------------------------------------------------------------


def sqlite_affinity(declared: str) -> str:
    """SQLite's column affinity rules (https://sqlite.org/datatype3.html, 3.1)."""
    d = declared.upper()
    if "INT" in d:
        return "INTEGER"
    if "CHAR" in d or "CLOB" in d or "TEXT" in d:
        return "TEXT"
    if "BLOB" in d or not d.strip():
        return "BLOB"
    if "REAL" in d or "FLOA" in d or "DOUB" in d:
        return "REAL"
    return "NUMERIC"


_DATE_RE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_TS_RE = re.compile(r"^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?$")


def _is_datetime_declared(declared: str) -> bool:
    d = declared.upper()
    return "DATE" in d or "TIME" in d


def _classify_temporal(values: Iterable[str]) -> str | None:
    """'date' / 'timestamp' when every value is a valid ISO date / date-time."""
    kinds = set()
    for v in values:
        v = v.strip() if isinstance(v, str) else v
        if not isinstance(v, str):
            return None
        try:
            if _DATE_RE.match(v):
                dt.date.fromisoformat(v)
                kinds.add("date")
            elif _TS_RE.match(v):
                dt.datetime.fromisoformat(v)
                kinds.add("timestamp")
            else:
                return None
        except ValueError:
            return None
    if not kinds:
        return None
    return "timestamp" if "timestamp" in kinds else "date"


def declared_pg_type(declared: str) -> str:
    """PostgreSQL type for a column with no values to look at."""
    d = declared.upper()
    aff = sqlite_affinity(declared)
    if aff == "INTEGER":
        return "bigint" if "BIG" in d else "integer"
    if aff == "TEXT":
        return "text"
    if aff == "REAL":
        return "double precision"
    if aff == "BLOB":
        return "bytea" if "BLOB" in d else "text"
    if "DATETIME" in d or "TIMESTAMP" in d:
        return "timestamp"
    if "DATE" in d:
        return "date"
    if "TIME" in d:
        return "text"
    if "BOOL" in d:
        return "boolean"
    return "numeric"


_SPIDER_TYPE = {"number": "numeric", "text": "text", "time": "timestamp", "boolean": "boolean", "others": "text"}


@dataclass
class ColumnPlan:
    name: str  # as in SQLite
    pg_name: str
    declared: str
    pg_type: str
    value_types: dict[str, int] = field(default_factory=dict)  # typeof() -> count
    render_text: bool = False  # fetch as CAST(x AS TEXT)


@dataclass
class TablePlan:
    name: str
    pg_name: str
    columns: list[ColumnPlan]
    primary_key: list[str] = field(default_factory=list)  # SQLite names
    foreign_keys: list[tuple[list[str], str, list[str]]] = field(default_factory=list)
    rows: int = 0


def _q(name: str) -> str:
    """Quote an identifier for SQLite (only used on the SQLite side)."""
    return '"' + name.replace('"', '""') + '"'


def open_sqlite(path: Path) -> sqlite3.Connection:
    """Read-only SQLite connection that tolerates invalid UTF-8 text."""
    conn = sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True, check_same_thread=False)
    conn.text_factory = lambda b: b.decode("utf-8", errors="replace")
    return conn


def sqlite_schema_digest(conn: sqlite3.Connection) -> str:
    rows = conn.execute("SELECT type, name, sql FROM sqlite_master ORDER BY type, name").fetchall()
    return hashlib.sha256(json.dumps(rows).encode("utf-8")).hexdigest()


def inspect_sqlite(conn: sqlite3.Connection) -> list[TablePlan]:
    """Plan every user table of a SQLite database (types from the stored values)."""
    tables = [
        r[0]
        for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY rowid"
        )
    ]
    plans = []
    for t in tables:
        info = conn.execute(f"PRAGMA table_info({_q(t)})").fetchall()  # cid, name, type, notnull, dflt, pk
        rows = conn.execute(f"SELECT count(*) FROM {_q(t)}").fetchone()[0]
        cols = []
        for _cid, name, declared, _nn, _dflt, _pk in info:
            declared = declared or ""
            counts: dict[str, int] = {}
            lo = hi = None
            if rows:
                for kind, n, mn, mx in conn.execute(
                    f"SELECT typeof({_q(name)}), count(*), min({_q(name)}), max({_q(name)}) FROM {_q(t)} GROUP BY 1"
                ):
                    counts[kind] = n
                    if kind == "integer":
                        lo, hi = mn, mx
            cols.append(ColumnPlan(name, fold_identifier(name), declared, "", counts))
            _decide_type(conn, t, cols[-1], lo, hi)
        pk = [r[1] for r in sorted((r for r in info if r[5]), key=lambda r: r[5])]
        fks: dict[int, tuple[list[str], str, list[str | None]]] = {}
        for fk_id, _seq, ref_table, src, dst, *_ in conn.execute(f"PRAGMA foreign_key_list({_q(t)})"):
            entry = fks.setdefault(fk_id, ([], ref_table, []))
            entry[0].append(src)
            entry[2].append(dst)
        plan = TablePlan(t, fold_identifier(t), cols, pk, [], rows)
        for src_cols, ref_table, dst_cols in fks.values():
            plan.foreign_keys.append((src_cols, ref_table, dst_cols))  # dst may hold None: parent's PK
        plans.append(plan)
    return plans


def _decide_type(conn: sqlite3.Connection, table: str, col: ColumnPlan, lo: Any, hi: Any) -> None:
    c = col.value_types
    n_int, n_real, n_text, n_blob = (c.get(k, 0) for k in ("integer", "real", "text", "blob"))
    declared = col.declared
    if not (n_int or n_real or n_text or n_blob):
        col.pg_type = declared_pg_type(declared)
        return
    if n_blob and not (n_int or n_real or n_text):
        col.pg_type = "bytea"
        return
    if n_text or n_blob:
        if not (n_int or n_real or n_blob) and _is_datetime_declared(declared):
            values = (
                r[0]
                for r in conn.execute(
                    f"SELECT DISTINCT {_q(col.name)} FROM {_q(table)} WHERE {_q(col.name)} IS NOT NULL"
                )
            )
            kind = _classify_temporal(values)
            if kind:
                col.pg_type = kind
                return
        col.pg_type = "text"
        col.render_text = bool(n_int or n_real or n_blob)
        return
    if n_real:
        d = declared.upper()
        col.pg_type = "numeric" if any(k in d for k in ("DEC", "NUMERIC", "MONEY")) else "double precision"
        return
    if sqlite_affinity(declared) == "REAL":
        col.pg_type = "double precision"
    elif lo is not None and -(2**31) <= lo and hi < 2**31 and "BIG" not in declared.upper():
        col.pg_type = "integer"
    else:
        col.pg_type = "bigint"


def plan_from_tables_json(schema: SpiderSchema) -> list[TablePlan]:
    """Plan empty tables from a tables.json entry (database file missing)."""
    plans = []
    for t in schema.tables:
        cols = [
            ColumnPlan(name, fold_identifier(name), ctype, _SPIDER_TYPE.get(ctype, "text"))
            for name, ctype in zip(t.columns, t.column_types)
        ]
        # tables.json may list a column twice in odd schemas: keep the first
        seen, unique_cols = set(), []
        for col in cols:
            if col.pg_name not in seen:
                seen.add(col.pg_name)
                unique_cols.append(col)
        fks = [(list(fk.columns), fk.ref_table, list(fk.ref_columns)) for fk in t.foreign_keys]
        plans.append(TablePlan(t.name, fold_identifier(t.name), unique_cols, list(t.primary_key), fks, 0))
    return plans


# --- cache ------------------------------------------------------------------------


def ensure_cache_table(conn: psycopg.Connection) -> None:
    """Create ``sqlgenie.eval_loads`` in the target when missing (DDL of migration 0002)."""
    ddl = resources.files("sqlgenie.store").joinpath("migrations", "0002_eval.sql").read_text(encoding="utf-8")
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(hashtext('sqlgenie.eval_loads'))")
        if conn.execute("SELECT to_regclass('sqlgenie.eval_loads')").fetchone()[0] is None:
            conn.execute(ddl)


def cached_fingerprints(conn: psycopg.Connection) -> dict[str, str]:
    """schema -> fingerprint of loads whose schema still exists."""
    rows = conn.execute(
        "SELECT l.schema_name, l.fingerprint FROM sqlgenie.eval_loads l"
        " JOIN pg_namespace n ON n.nspname = l.schema_name"
    ).fetchall()
    return dict(rows)


def _cached_result(conn: psycopg.Connection, db_id: str, schema: str, keys: str, started: float) -> LoadResult:
    row = conn.execute("SELECT tables, rows FROM sqlgenie.eval_loads WHERE schema_name = %s", (schema,)).fetchone()
    tables, rows = (row[0], row[1]) if row else (0, 0)
    return LoadResult(db_id, schema, "cached", keys, tables, rows, time.perf_counter() - started)


def _record_load(conn: psycopg.Connection, result: LoadResult, dataset: str, fingerprint: str, details: dict) -> None:
    conn.execute(
        "INSERT INTO sqlgenie.eval_loads (schema_name, dataset, db_id, fingerprint, keys, tables, rows, details)"
        " VALUES (%s, %s, %s, %s, %s, %s, %s, %s::jsonb)"
        " ON CONFLICT (schema_name) DO UPDATE SET dataset = EXCLUDED.dataset, db_id = EXCLUDED.db_id,"
        " fingerprint = EXCLUDED.fingerprint, keys = EXCLUDED.keys, tables = EXCLUDED.tables,"
        " rows = EXCLUDED.rows, details = EXCLUDED.details, loaded_at = now()",
        (result.schema, dataset, result.db_id, fingerprint, result.keys, result.tables, result.rows, json.dumps(details)),
    )


# --- loading ------------------------------------------------------------------------


@dataclass
class LoadResult:
    db_id: str
    schema: str
    status: str  # loaded | cached | schema_only
    keys: str
    tables: int = 0
    rows: int = 0
    seconds: float = 0.0
    warnings: list[str] = field(default_factory=list)


def spider_fingerprint(dataset: SpiderDataset, db_id: str, keys: KeysMode) -> str:
    path = dataset.sqlite_path(db_id)
    h = hashlib.sha256()
    h.update(json.dumps(["spider", LOADER_VERSION, keys]).encode())
    if path is None:
        entry = dataset.tables_entry(db_id)
        h.update(b"tables.json")
        h.update(json.dumps(entry.raw if entry else None, sort_keys=True).encode())
    else:
        st = path.stat()
        h.update(json.dumps([str(path.resolve()), st.st_size, st.st_mtime_ns]).encode())
        with open_sqlite(path) as sconn:
            h.update(sqlite_schema_digest(sconn).encode())
    return h.hexdigest()


def _lock_schema(conn: psycopg.Connection, schema: str) -> None:
    conn.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", ("sqlgenie.eval:" + schema,))


def _recreate_schema(conn: psycopg.Connection, schema: str) -> None:
    conn.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(schema)))
    conn.execute(sql.SQL("CREATE SCHEMA {}").format(sql.Identifier(schema)))


def _create_table(conn: psycopg.Connection, schema: str, plan: TablePlan) -> None:
    cols = []
    for c in plan.columns:
        collate = sql.SQL(' COLLATE "C"') if c.pg_type == "text" else sql.SQL("")
        cols.append(sql.SQL("{} {}{}").format(sql.Identifier(c.pg_name), sql.SQL(c.pg_type), collate))
    conn.execute(
        sql.SQL("CREATE TABLE {}.{} ({})").format(sql.Identifier(schema), sql.Identifier(plan.pg_name), sql.SQL(", ").join(cols))
    )


def _convert(value: Any, pg_type: str, warnings: list[str]) -> Any:
    if value is None:
        return None
    if isinstance(value, str):
        if "\x00" in value:
            warnings.append("NUL characters removed from a text value")
            value = value.replace("\x00", "")
        if pg_type in ("date", "timestamp"):
            return value.strip()
        return value
    if pg_type == "text" and isinstance(value, bytes):
        return value.decode("utf-8", errors="replace").replace("\x00", "")
    return value


def _copy_rows(conn: psycopg.Connection, sconn: sqlite3.Connection, schema: str, plan: TablePlan, warnings: list[str]) -> int:
    if not plan.columns:
        return 0
    exprs = [f"CAST({_q(c.name)} AS TEXT)" if c.render_text else _q(c.name) for c in plan.columns]
    types = [c.pg_type for c in plan.columns]
    copy_sql = sql.SQL("COPY {}.{} ({}) FROM STDIN").format(
        sql.Identifier(schema),
        sql.Identifier(plan.pg_name),
        sql.SQL(", ").join(sql.Identifier(c.pg_name) for c in plan.columns),
    )
    n = 0
    local_warn: list[str] = []
    with conn.cursor() as cur, cur.copy(copy_sql) as cp:
        cursor = sconn.execute(f"SELECT {', '.join(exprs)} FROM {_q(plan.name)}")
        while True:
            batch = cursor.fetchmany(5000)
            if not batch:
                break
            for row in batch:
                cp.write_row([_convert(v, t, local_warn) for v, t in zip(row, types)])
            n += len(batch)
    if local_warn:
        warnings.append(f"{plan.name}: {local_warn[0]} ({len(local_warn)} values)")
    return n


def _add_keys(conn: psycopg.Connection, schema: str, plans: list[TablePlan], warnings: list[str]) -> None:
    by_name = {fold_identifier(p.name): p for p in plans}

    def ident_list(cols: Iterable[str]) -> sql.Composable:
        return sql.SQL(", ").join(sql.Identifier(fold_identifier(c)) for c in cols)

    def try_exec(stmt: sql.Composable) -> Exception | None:
        try:
            with conn.transaction():
                conn.execute(stmt)
            return None
        except psycopg.Error as exc:
            return exc

    for p in plans:
        if not p.primary_key:
            continue
        cols = [c for c in p.primary_key if fold_identifier(c) in {c2.pg_name for c2 in p.columns}]
        if len(cols) != len(p.primary_key):
            warnings.append(f"{p.name}: primary key {p.primary_key} names unknown columns; skipped")
            continue
        table = sql.SQL("{}.{}").format(sql.Identifier(schema), sql.Identifier(p.pg_name))
        err = try_exec(sql.SQL("ALTER TABLE {} ADD PRIMARY KEY ({})").format(table, ident_list(cols)))
        if err is not None:
            err2 = try_exec(sql.SQL("ALTER TABLE {} ADD UNIQUE ({})").format(table, ident_list(cols)))
            reason = str(err).strip().splitlines()[0]
            if err2 is None:
                warnings.append(f"{p.name}: primary key {cols} declared UNIQUE instead ({reason})")
            else:
                warnings.append(f"{p.name}: primary key {cols} skipped ({reason})")

    for p in plans:
        table = sql.SQL("{}.{}").format(sql.Identifier(schema), sql.Identifier(p.pg_name))
        for src, ref_table, dst in p.foreign_keys:
            parent = by_name.get(fold_identifier(ref_table))
            if parent is None:
                warnings.append(f"{p.name}: foreign key to missing table {ref_table!r} skipped")
                continue
            if any(d is None for d in dst):
                dst = list(parent.primary_key)
            if len(dst) != len(src):
                warnings.append(f"{p.name}: foreign key {src} -> {ref_table} has no matching key columns; skipped")
                continue
            ref = sql.SQL("{}.{}").format(sql.Identifier(schema), sql.Identifier(parent.pg_name))
            base = sql.SQL("ALTER TABLE {} ADD FOREIGN KEY ({}) REFERENCES {} ({})").format(
                table, ident_list(src), ref, ident_list(dst)
            )
            err = try_exec(base)
            if err is None:
                continue
            if isinstance(err, pg_errors.ForeignKeyViolation):
                err2 = try_exec(sql.Composed([base, sql.SQL(" NOT VALID")]))
                if err2 is None:
                    warnings.append(f"{p.name}: foreign key {src} -> {ref_table}{dst} added NOT VALID (data violates it)")
                    continue
                err = err2
            reason = str(err).strip().splitlines()[0]
            warnings.append(f"{p.name}: foreign key {src} -> {ref_table}{dst} skipped ({reason})")


def load_spider_db(
    conn: psycopg.Connection,
    dataset: SpiderDataset,
    db_id: str,
    *,
    keys: KeysMode = "keep",
    force: bool = False,
    cache: dict[str, str] | None = None,
) -> LoadResult:
    """Load one Spider-layout database into its schema (skipped when cached).

    ``conn`` must be in autocommit mode; the load runs in its own transaction.
    """
    started = time.perf_counter()
    schema = dataset.schema_name(db_id)
    fingerprint = spider_fingerprint(dataset, db_id, keys)
    if cache is None:
        cache = cached_fingerprints(conn)
    if not force and cache.get(schema) == fingerprint:
        return _cached_result(conn, db_id, schema, keys, started)
    path = dataset.sqlite_path(db_id)
    warnings: list[str] = []
    sconn = open_sqlite(path) if path else None
    try:
        if sconn is not None:
            plans = inspect_sqlite(sconn)
            status = "loaded"
        else:
            entry = dataset.tables_entry(db_id)
            if entry is None:
                raise FileNotFoundError(f"{db_id}: no sqlite file and no tables.json entry")
            plans = plan_from_tables_json(entry)
            status = "schema_only"
            warnings.append("database file missing: tables created empty from tables.json")
        rows = 0
        with conn.transaction():
            _lock_schema(conn, schema)
            _recreate_schema(conn, schema)
            for plan in plans:
                _create_table(conn, schema, plan)
                if sconn is not None:
                    plan.rows = _copy_rows(conn, sconn, schema, plan, warnings)
                    rows += plan.rows
            if keys == "keep":
                _add_keys(conn, schema, plans, warnings)
            for plan in plans:
                if plan.rows:
                    conn.execute(sql.SQL("ANALYZE {}.{}").format(sql.Identifier(schema), sql.Identifier(plan.pg_name)))
            result = LoadResult(db_id, schema, status, keys, len(plans), rows, 0.0, warnings)
            details = {
                "source": str(path) if path else None,
                "tables": {
                    p.name: {
                        "pg_name": p.pg_name,
                        "rows": p.rows,
                        "columns": {c.name: {"pg_name": c.pg_name, "declared": c.declared, "pg_type": c.pg_type, "values": c.value_types} for c in p.columns},
                    }
                    for p in plans
                },
                "warnings": warnings,
            }
            _record_load(conn, result, "spider", fingerprint, details)
    finally:
        if sconn is not None:
            sconn.close()
    cache[schema] = fingerprint
    result.seconds = time.perf_counter() - started
    return result


def load_defog_db(
    conn: psycopg.Connection,
    dump_sql: str,
    db_id: str,
    default_schema: str,
    *,
    force: bool = False,
    cache: dict[str, str] | None = None,
) -> LoadResult:
    """Load one Defog PostgreSQL dump into its schema (``defog_<db>`` or the schema the
    dump creates itself, e.g. ewallet's ``consumer_div``). Keys are the dump's own."""
    from sqlgenie.eval.defog import plan_dump

    started = time.perf_counter()
    plan = plan_dump(dump_sql, default_schema)
    fingerprint = hashlib.sha256(json.dumps(["defog", LOADER_VERSION, plan.fingerprint]).encode()).hexdigest()
    if cache is None:
        cache = cached_fingerprints(conn)
    if not force and cache.get(plan.schema) == fingerprint:
        return _cached_result(conn, db_id, plan.schema, "dump", started)
    with conn.transaction():
        _lock_schema(conn, plan.schema)
        _recreate_schema(conn, plan.schema)
        conn.execute(sql.SQL("SET LOCAL search_path TO {}").format(sql.Identifier(plan.schema)))
        conn.execute(plan.sql)
        tables = conn.execute(
            "SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
            " WHERE n.nspname = %s AND c.relkind = 'r' ORDER BY 1",
            (plan.schema,),
        ).fetchall()
        rows = 0
        for (t,) in tables:
            rows += conn.execute(
                sql.SQL("SELECT count(*) FROM {}.{}").format(sql.Identifier(plan.schema), sql.Identifier(t))
            ).fetchone()[0]
            conn.execute(sql.SQL("ANALYZE {}.{}").format(sql.Identifier(plan.schema), sql.Identifier(t)))
        result = LoadResult(db_id, plan.schema, "loaded", "dump", len(tables), rows)
        _record_load(conn, result, "defog", fingerprint, {"own_schema": plan.own_schema})
    cache[plan.schema] = fingerprint
    result.seconds = time.perf_counter() - started
    return result
