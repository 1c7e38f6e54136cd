"""Column profiles of one table of the target database.

Policy (fast on big tables, exact on small ones):

* **Small tables** (at most :data:`EXACT_MAX_ROWS` rows): exact figures from one
  scan for all columns (``count``, ``count(DISTINCT)``, ``min``/``max``, widths)
  plus one ``GROUP BY`` per non-unique column for its most common values.
* **Big tables**: PostgreSQL's own statistics (``pg_stats``, after ``ANALYZE`` when
  they are missing or stale) for null fraction, distinct count, most common values
  and width; one ``TABLESAMPLE SYSTEM`` pass over about :data:`SAMPLE_TARGET_ROWS`
  rows for min/max and a uniqueness check on the sample; exact min/max only where an
  index makes them free. Never a full scan per column.

All identifiers are composed with :class:`psycopg.sql.Identifier`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable

import psycopg
from psycopg import errors as pg_errors
from psycopg import sql

from sqlgenie.errors import InputError, UnknownTableError

EXACT_MAX_ROWS = 100_000
SAMPLE_TARGET_ROWS = 100_000
SAMPLE_SEED = 20240611
MCV_KEEP = 10
VALUE_TEXT_MAX = 200  # characters kept of min/max/common values
_COLUMNS_PER_QUERY = 120


@dataclass
class ColumnProfile:
    name: str
    ordinal: int
    data_type: str  # format_type(), e.g. numeric(10,2)
    category: str  # pg_type.typcategory (S string, N numeric, D datetime, B boolean, E enum, U user...)
    family: str  # numeric | text | temporal | boolean | enum | binary | other
    not_null: bool = False  # declared NOT NULL
    comparable: bool = True  # has a btree ordering (min/max, DISTINCT, GROUP BY)
    non_null: int | None = None  # non-null rows (exact or estimated)
    null_frac: float | None = None
    n_distinct: float | None = None  # absolute distinct count (exact or estimated)
    is_unique: bool | None = None
    min_value: str | None = None
    max_value: str | None = None
    mcv: list[tuple[str, float]] = field(default_factory=list)  # (value, fraction of all rows)
    avg_width: float | None = None  # bytes
    exact: bool = False
    description: str | None = None
    integral: bool = False  # integer types

    @property
    def has_minmax(self) -> bool:
        """min()/max() exist for the type (not for boolean, uuid, ranges...)."""
        return self.comparable and self.family in ("numeric", "text", "temporal", "enum")

    @property
    def all_null(self) -> bool:
        return self.non_null == 0 or (self.null_frac is not None and self.null_frac >= 1.0)

    def to_json(self) -> dict[str, Any]:
        return {
            "category": self.category, "family": self.family, "comparable": self.comparable,
            "non_null": self.non_null, "mcv": [[v, round(f, 6)] for v, f in self.mcv],
            "avg_width": None if self.avg_width is None else round(self.avg_width, 1),
            "exact": self.exact, "all_null": self.all_null,
        }


@dataclass
class IndexInfo:
    name: str
    columns: list[str | None]  # None for expression columns
    unique: bool
    primary: bool
    method: str
    partial: bool
    definition: str


@dataclass
class TableProfile:
    schema: str
    name: str
    oid: int
    kind: str  # r table, p partitioned, m materialized view, f foreign
    row_count: int
    exact: bool
    columns: list[ColumnProfile]
    primary_key: list[str] = field(default_factory=list)
    unique_keys: list[list[str]] = field(default_factory=list)  # declared, non-partial, plain columns
    foreign_keys: list[tuple[list[str], str, str, list[str]]] = field(default_factory=list)
    indexes: list[IndexInfo] = field(default_factory=list)
    description: str | None = None
    analyzed: bool = False  # ANALYZE was run by this profile
    sample_fraction: float | None = None  # TABLESAMPLE percentage used (big tables)
    size_bytes: int | None = None
    seconds: float = 0.0
    notes: list[str] = field(default_factory=list)

    @property
    def qualified(self) -> str:
        return f"{self.schema}.{self.name}"

    def column(self, name: str) -> ColumnProfile | None:
        for c in self.columns:
            if c.name == name:
                return c
        return None

    def ident(self) -> sql.Composed:
        return sql.SQL("{}.{}").format(sql.Identifier(self.schema), sql.Identifier(self.name))

    def indexed_leading(self) -> set[str]:
        return {ix.columns[0] for ix in self.indexes if ix.columns and ix.columns[0] and not ix.partial}

    def to_json(self) -> dict[str, Any]:
        return {
            "rows": self.row_count, "exact": self.exact, "kind": self.kind,
            "sample_fraction": self.sample_fraction, "analyzed": self.analyzed,
            "size_bytes": self.size_bytes, "seconds": round(self.seconds, 3),
            "declared_primary_key": self.primary_key, "unique_keys": self.unique_keys,
            "declared_foreign_keys": [
                {"columns": c, "ref_schema": s, "ref_table": t, "ref_columns": r} for c, s, t, r in self.foreign_keys
            ],
            "indexes": [
                {"name": ix.name, "columns": ix.columns, "unique": ix.unique, "method": ix.method, "partial": ix.partial}
                for ix in self.indexes
            ],
            "notes": self.notes,
        }


def qident(schema: str, name: str) -> sql.Composed:
    return sql.SQL("{}.{}").format(sql.Identifier(schema), sql.Identifier(name))


# --- table name resolution ---------------------------------------------------------------


def split_table_spec(spec: str) -> tuple[str | None, str, bool]:
    """``schema.table`` / ``table`` / ``"My Schema"."Order Items"`` -> (schema, table, quoted).

    A dot inside double quotes is part of the name; ``""`` inside quotes is a quote.
    """
    parts: list[str] = []
    quoted_any = False
    buf: list[str] = []
    i, n = 0, len(spec)
    in_q = False
    while i < n:
        ch = spec[i]
        if in_q:
            if ch == '"':
                if i + 1 < n and spec[i + 1] == '"':
                    buf.append('"')
                    i += 1
                else:
                    in_q = False
            else:
                buf.append(ch)
        elif ch == '"':
            in_q = quoted_any = True
        elif ch == "." and len(parts) == 0:
            parts.append("".join(buf))
            buf = []
        else:
            buf.append(ch)
        i += 1
    if in_q:
        raise InputError(f"Unbalanced double quote in table name {spec!r}.")
    parts.append("".join(buf))
    parts = [p.strip() if not quoted_any else p for p in parts]
    if len(parts) == 1:
        return None, parts[0], quoted_any
    return parts[0], parts[1], quoted_any


def list_tables(conn: psycopg.Connection, schema: str | None = None) -> list[tuple[str, str]]:
    """User tables, partitioned tables, materialized and foreign tables of the target."""
    rows = conn.execute(
        """
        SELECT n.nspname, c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE c.relkind IN ('r', 'p', 'm', 'f') AND NOT c.relispartition
          AND n.nspname NOT IN ('pg_catalog', 'information_schema', 'sqlgenie', 'pg_toast')
          AND n.nspname NOT LIKE 'pg_temp%%' AND n.nspname NOT LIKE 'pg_toast%%'
          AND (%(schema)s::text IS NULL OR n.nspname = %(schema)s)
        ORDER BY 1, 2
        """,
        {"schema": schema},
    ).fetchall()
    return [(r[0], r[1]) for r in rows]


def closest_names(query: str, choices: list[str], limit: int = 5) -> list[str]:
    from rapidfuzz import fuzz, process

    if not choices:
        return []
    found = process.extract(query.lower(), {c: c.lower() for c in choices}, scorer=fuzz.WRatio, limit=limit)
    return [key for _value, score, key in found if score >= 40]


def resolve_table(conn: psycopg.Connection, spec: str, *, known: list[str] | None = None) -> tuple[str, str]:
    """Resolve a user-typed table name on the target like PostgreSQL would (exact, then
    case-insensitive, then a unique match across schemas); UnknownTableError naming the
    closest tables otherwise. ``known`` adds onboarded names to the suggestions."""
    schema, name, quoted = split_table_spec(spec.strip())
    if not name:
        raise InputError("Empty table name.", hint="Pass SCHEMA.TABLE, e.g. demo.orders.")
    everything = list_tables(conn)
    exact = [(s, t) for s, t in everything if t == name and (schema is None or s == schema)]
    if schema is None and len(exact) > 1:
        public = [x for x in exact if x[0] == "public"]
        exact = public or exact
    if len(exact) == 1:
        return exact[0]
    if not quoted:
        loose = [
            (s, t) for s, t in everything
            if t.lower() == name.lower() and (schema is None or s.lower() == schema.lower())
        ]
        if len(loose) == 1:
            return loose[0]
        if len(loose) > 1:
            raise InputError(
                f"Table name {spec!r} is ambiguous: {', '.join(f'{s}.{t}' for s, t in loose)}.",
                hint="Qualify it with its schema, and quote it if the case matters: schema.\"Name\".",
            )
    if len(exact) > 1:
        raise InputError(
            f"Table name {spec!r} exists in several schemas: {', '.join(f'{s}.{t}' for s, t in exact)}.",
            hint="Qualify it with its schema: SCHEMA.TABLE.",
        )
    view = conn.execute(
        "SELECT n.nspname, c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
        " WHERE c.relkind = 'v' AND lower(c.relname) = lower(%s) AND (%s::text IS NULL OR n.nspname = %s) LIMIT 1",
        (name, schema, schema),
    ).fetchone()
    if view is not None:
        raise InputError(f"{view[0]}.{view[1]} is a view, not a table.", hint="Onboard the tables it reads from.")
    choices = sorted({f"{s}.{t}" for s, t in everything} | set(known or []))
    close = closest_names(spec, choices)
    hint = (f"Closest tables: {', '.join(close)}." if close else "No tables found on the target database.") + (
        " `sqlgenie tables list` shows onboarded tables."
    )
    raise UnknownTableError(f"Table {spec!r} does not exist on the target database.", hint=hint)


# --- metadata -------------------------------------------------------------------------------

_FAMILY_BY_CATEGORY = {"N": "numeric", "S": "text", "D": "temporal", "T": "temporal", "B": "boolean", "E": "enum"}


def _family(category: str, typname: str) -> str:
    if typname == "bytea":
        return "binary"
    if typname in ("interval",):
        return "temporal"
    return _FAMILY_BY_CATEGORY.get(category, "other")


def _metadata(conn: psycopg.Connection, schema: str, name: str) -> TableProfile:
    row = conn.execute(
        """
        SELECT c.oid, c.relkind, c.reltuples, obj_description(c.oid, 'pg_class'),
               pg_total_relation_size(c.oid)
        FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = %s AND c.relname = %s
        """,
        (schema, name),
    ).fetchone()
    if row is None:
        raise UnknownTableError(f"Table {schema}.{name} does not exist on the target database.")
    oid, kind, reltuples, comment, size = row
    if kind not in ("r", "p", "m", "f"):
        raise InputError(
            f"{schema}.{name} is a {'view' if kind == 'v' else 'relation of kind ' + kind}, not a table.",
            hint="Onboard the tables it reads from.",
        )
    cols = []
    for attname, attnum, fmt, notnull, typcat, typname, comparable, descr in conn.execute(
        """
        SELECT a.attname, a.attnum, format_type(a.atttypid, a.atttypmod), a.attnotnull,
               bt.typcategory, bt.typname,
               EXISTS (
                   SELECT 1 FROM pg_opclass oc JOIN pg_am am ON am.oid = oc.opcmethod
                   WHERE am.amname = 'btree' AND oc.opcdefault
                     AND oc.opcintype IN (bt.oid,
                         CASE WHEN bt.typcategory = 'A' THEN 'anyarray'::regtype::oid
                              WHEN bt.typtype = 'e' THEN 'anyenum'::regtype::oid
                              WHEN bt.typtype = 'r' THEN 'anyrange'::regtype::oid ELSE 0 END)
               ),
               col_description(a.attrelid, a.attnum)
        FROM pg_attribute a
        JOIN pg_type t ON t.oid = a.atttypid
        JOIN pg_type bt ON bt.oid = CASE WHEN t.typtype = 'd' THEN t.typbasetype ELSE t.oid END
        WHERE a.attrelid = %s AND a.attnum > 0 AND NOT a.attisdropped
        ORDER BY a.attnum
        """,
        (oid,),
    ):
        family = _family(typcat, typname)
        # arrays of non-comparable element types fail at run time; treat arrays as not comparable
        ok = bool(comparable) and typcat != "A" and typname not in ("json", "xml")
        cols.append(
            ColumnProfile(
                name=attname, ordinal=attnum, data_type=fmt, category=typcat, family=family,
                not_null=notnull, comparable=ok, description=descr,
                integral=typname in ("int2", "int4", "int8"),
            )
        )
    prof = TableProfile(schema, name, oid, kind, max(int(reltuples), 0), False, cols, description=comment, size_bytes=size)
    names_by_num = {c.ordinal: c.name for c in cols}
    for conname, contype, conkey, fschema, ftable, fkey in conn.execute(
        """
        SELECT con.conname, con.contype, con.conkey, fn.nspname, fc.relname,
               (SELECT array_agg(a.attname ORDER BY k.ord) FROM unnest(con.confkey) WITH ORDINALITY k(num, ord)
                JOIN pg_attribute a ON a.attrelid = con.confrelid AND a.attnum = k.num)
        FROM pg_constraint con
        LEFT JOIN pg_class fc ON fc.oid = con.confrelid
        LEFT JOIN pg_namespace fn ON fn.oid = fc.relnamespace
        WHERE con.conrelid = %s AND con.contype IN ('p', 'u', 'f')
        ORDER BY con.contype, con.conname
        """,
        (oid,),
    ):
        keycols = [names_by_num.get(k) for k in (conkey or [])]
        if any(k is None for k in keycols):
            continue
        if contype == "p":
            prof.primary_key = keycols  # type: ignore[assignment]
        elif contype == "u":
            prof.unique_keys.append(keycols)  # type: ignore[arg-type]
        elif contype == "f" and fkey:
            prof.foreign_keys.append((keycols, fschema, ftable, list(fkey)))  # type: ignore[arg-type]
    for iname, indkey, unique, primary, method, partial, definition in conn.execute(
        """
        SELECT ic.relname, i.indkey::int2[], i.indisunique, i.indisprimary, am.amname,
               i.indpred IS NOT NULL, pg_get_indexdef(i.indexrelid)
        FROM pg_index i JOIN pg_class ic ON ic.oid = i.indexrelid JOIN pg_am am ON am.oid = ic.relam
        WHERE i.indrelid = %s AND i.indisvalid
        ORDER BY ic.relname
        """,
        (oid,),
    ):
        keys = [names_by_num.get(k) if k else None for k in indkey]
        prof.indexes.append(IndexInfo(iname, keys, unique, primary, method, partial, definition))
        if unique and not primary and not partial and keys and all(keys):
            if keys not in prof.unique_keys:
                prof.unique_keys.append(keys)  # type: ignore[arg-type]
    return prof


# --- statistics freshness ---------------------------------------------------------------


def _needs_analyze(conn: psycopg.Connection, prof: TableProfile) -> bool:
    has_stats = conn.execute(
        "SELECT EXISTS (SELECT 1 FROM pg_stats WHERE schemaname = %s AND tablename = %s)", (prof.schema, prof.name)
    ).fetchone()[0]
    if not has_stats:
        return True
    row = conn.execute(
        "SELECT n_live_tup, n_mod_since_analyze FROM pg_stat_all_tables WHERE relid = %s", (prof.oid,)
    ).fetchone()
    if row is None or row[0] is None:
        return False
    live, modified = row
    return modified is not None and modified > 0.2 * max(live, prof.row_count) + 1000


def _analyze(conn: psycopg.Connection, prof: TableProfile) -> bool:
    try:
        conn.execute(sql.SQL("ANALYZE {}").format(prof.ident()))
    except (pg_errors.InsufficientPrivilege, pg_errors.FeatureNotSupported) as exc:
        prof.notes.append(f"ANALYZE not permitted ({str(exc).strip().splitlines()[0]}); using existing statistics")
        return False
    prof.analyzed = True
    prof.row_count = max(
        int(conn.execute("SELECT reltuples FROM pg_class WHERE oid = %s", (prof.oid,)).fetchone()[0]), 0
    )
    return True


def sample_clause(row_count: int, target_rows: int = SAMPLE_TARGET_ROWS, seed: int = SAMPLE_SEED) -> tuple[sql.Composable, float]:
    """``TABLESAMPLE SYSTEM (p) REPEATABLE (seed)`` reading about ``target_rows`` rows."""
    pct = min(100.0, max(0.01, 100.0 * target_rows / max(row_count, 1)))
    pct = float(f"{pct:.4g}")
    return sql.SQL(" TABLESAMPLE SYSTEM ({}) REPEATABLE ({})").format(sql.Literal(pct), sql.Literal(seed)), pct


def _clip(value: Any) -> str | None:
    if value is None:
        return None
    text = str(value)
    return text if len(text) <= VALUE_TEXT_MAX else text[:VALUE_TEXT_MAX]


# --- exact profile (small tables) -----------------------------------------------------------


def _exact_profile(conn: psycopg.Connection, prof: TableProfile) -> None:
    table = prof.ident()
    prof.row_count = conn.execute(sql.SQL("SELECT count(*) FROM {}").format(table)).fetchone()[0]
    prof.exact = True
    for start in range(0, len(prof.columns), _COLUMNS_PER_QUERY):
        chunk = prof.columns[start:start + _COLUMNS_PER_QUERY]
        try:
            _exact_chunk(conn, table, chunk, prof.row_count)
        except psycopg.Error:
            for col in chunk:  # one odd type must not sink the others
                try:
                    _exact_chunk(conn, table, [col], prof.row_count)
                except psycopg.Error as exc:
                    # no ordering after all (e.g. an array of json): counts and widths only
                    col.comparable = False
                    prof.notes.append(f"{col.name}: no distinct/min/max ({str(exc).strip().splitlines()[0]})")
                    try:
                        _exact_chunk(conn, table, [col], prof.row_count)
                    except psycopg.Error:
                        pass
    for col in prof.columns:
        col.exact = True
        if not col.comparable or not col.non_null or col.is_unique:
            continue
        col.mcv = [
            (_clip(v), n / max(prof.row_count, 1))  # type: ignore[misc]
            for v, n in conn.execute(
                sql.SQL(
                    "SELECT {c}::text, count(*) FROM {t} WHERE {c} IS NOT NULL GROUP BY {c} ORDER BY 2 DESC, 1 LIMIT {k}"
                ).format(c=sql.Identifier(col.name), t=table, k=sql.Literal(MCV_KEEP))
            )
        ]


def _exact_chunk(conn: psycopg.Connection, table: sql.Composable, cols: list[ColumnProfile], rows: int) -> None:
    exprs: list[sql.Composable] = []
    for col in cols:
        c = sql.Identifier(col.name)
        exprs.append(sql.SQL("count({})").format(c))
        exprs.append(sql.SQL("avg(pg_column_size({}))::float8").format(c))
        if col.comparable:
            exprs.append(sql.SQL("count(DISTINCT {})").format(c))
            if col.has_minmax:
                exprs.append(sql.SQL("left(min({c})::text, {n})").format(c=c, n=sql.Literal(VALUE_TEXT_MAX)))
                exprs.append(sql.SQL("left(max({c})::text, {n})").format(c=c, n=sql.Literal(VALUE_TEXT_MAX)))
            else:
                exprs += [sql.SQL("NULL::text"), sql.SQL("NULL::text")]
    row = conn.execute(sql.SQL("SELECT {} FROM {}").format(sql.SQL(", ").join(exprs), table)).fetchone()
    i = 0
    for col in cols:
        col.non_null, col.avg_width = row[i], row[i + 1]
        i += 2
        col.null_frac = 1.0 - col.non_null / rows if rows else 0.0
        if col.comparable:
            col.n_distinct, col.min_value, col.max_value = float(row[i]), row[i + 1], row[i + 2]
            col.is_unique = bool(col.non_null) and row[i] == col.non_null
            i += 3


# --- estimated profile (big tables) ---------------------------------------------------------


def _stats_profile(conn: psycopg.Connection, prof: TableProfile) -> None:
    rows = prof.row_count
    stats = {
        r[0]: r[1:]
        for r in conn.execute(
            """
            SELECT attname, null_frac, n_distinct, avg_width,
                   most_common_vals::text::text[], most_common_freqs, histogram_bounds::text::text[]
            FROM pg_stats WHERE schemaname = %s AND tablename = %s
            ORDER BY inherited DESC
            """,
            (prof.schema, prof.name),
        )
    }
    unique_single = {k[0] for k in ([prof.primary_key] if prof.primary_key else []) + prof.unique_keys if len(k) == 1}
    for col in prof.columns:
        st = stats.get(col.name)
        if st is None:
            continue
        null_frac, n_distinct, avg_width, mcv, mcf, hist = st
        col.null_frac = float(null_frac)
        col.non_null = int(round(rows * (1.0 - col.null_frac)))
        col.avg_width = float(avg_width) if avg_width is not None else None
        if n_distinct is not None:
            col.n_distinct = float(-n_distinct * rows if n_distinct < 0 else n_distinct)
        if mcv and mcf:
            col.mcv = [(_clip(v), float(f)) for v, f in zip(mcv[:MCV_KEEP], mcf[:MCV_KEEP])]
        if hist:
            col.min_value, col.max_value = _clip(hist[0]), _clip(hist[-1])
        if col.name in unique_single:
            col.is_unique = True
        elif n_distinct is not None and n_distinct == -1 and col.null_frac == 0:
            col.is_unique = True  # confirmed on the sample below
        else:
            col.is_unique = False
    _sample_pass(conn, prof)
    _indexed_minmax(conn, prof)


def _sample_pass(conn: psycopg.Connection, prof: TableProfile) -> None:
    """One TABLESAMPLE pass: min/max, distinct values seen (a lower bound that corrects
    pg_stats' estimate upwards) and a uniqueness check for every comparable column."""
    clause, pct = sample_clause(prof.row_count)
    prof.sample_fraction = pct
    cols = [c for c in prof.columns if c.comparable]
    if not cols:
        return
    exprs: list[sql.Composable] = [sql.SQL("count(*)")]
    for col in cols:
        c = sql.Identifier(col.name)
        minmax = [
            sql.SQL("left(min({c})::text, {n})").format(c=c, n=sql.Literal(VALUE_TEXT_MAX)),
            sql.SQL("left(max({c})::text, {n})").format(c=c, n=sql.Literal(VALUE_TEXT_MAX)),
        ] if col.has_minmax else [sql.SQL("NULL::text"), sql.SQL("NULL::text")]
        exprs += minmax + [
            sql.SQL("count({c})").format(c=c),
            sql.SQL("count(DISTINCT {c})").format(c=c),
        ]
    try:
        row = conn.execute(sql.SQL("SELECT {} FROM {}{}").format(sql.SQL(", ").join(exprs), prof.ident(), clause)).fetchone()
    except psycopg.Error as exc:
        prof.notes.append(f"sample pass failed ({str(exc).strip().splitlines()[0]})")
        return
    i = 1
    for col in cols:
        lo, hi, nn, nd = row[i:i + 4]
        i += 4
        if lo is not None and (col.min_value is None or _less(lo, col.min_value, col)):
            col.min_value = lo
        if hi is not None and (col.max_value is None or _less(col.max_value, hi, col)):
            col.max_value = hi
        if col.is_unique and nd is not None and nn and nd < nn:
            col.is_unique = False  # a duplicate in the sample
        if nd is not None and (col.n_distinct is None or nd > col.n_distinct):
            col.n_distinct = float(nd)  # values seen in the sample: a lower bound of the true count


def _less(a: str, b: str, col: ColumnProfile) -> bool:
    if col.family == "numeric":
        try:
            return float(a) < float(b)
        except ValueError:
            return a < b
    return a < b


def _indexed_minmax(conn: psycopg.Connection, prof: TableProfile) -> None:
    """Exact min/max of btree-indexed leading columns (two index probes each)."""
    leading = {ix.columns[0] for ix in prof.indexes if ix.method == "btree" and not ix.partial and ix.columns and ix.columns[0]}
    cols = [c for c in prof.columns if c.name in leading and c.has_minmax]
    if not cols:
        return
    exprs = []
    for col in cols:
        c = sql.Identifier(col.name)
        exprs += [
            sql.SQL("(SELECT left(min({c})::text, {n}) FROM {t})").format(c=c, t=prof.ident(), n=sql.Literal(VALUE_TEXT_MAX)),
            sql.SQL("(SELECT left(max({c})::text, {n}) FROM {t})").format(c=c, t=prof.ident(), n=sql.Literal(VALUE_TEXT_MAX)),
        ]
    row = conn.execute(sql.SQL("SELECT {}").format(sql.SQL(", ").join(exprs))).fetchone()
    for k, col in enumerate(cols):
        col.min_value, col.max_value = row[2 * k], row[2 * k + 1]


# --- entry point ----------------------------------------------------------------------------------


def profile_table(
    conn: psycopg.Connection,
    schema: str,
    name: str,
    *,
    exact_max_rows: int = EXACT_MAX_ROWS,
    force_analyze: bool = False,
    progress: Callable[[str], None] | None = None,
) -> TableProfile:
    """Profile ``schema.name`` on the target. ``conn`` should be in autocommit mode."""
    started = time.perf_counter()
    prof = _metadata(conn, schema, name)
    if progress:
        progress("statistics")
    if prof.kind != "f" and (force_analyze or _needs_analyze(conn, prof) or prof.row_count == 0):
        # an empty or never-analyzed table shows reltuples -1/0: ANALYZE is cheap then
        _analyze(conn, prof)
    small = prof.row_count <= exact_max_rows
    if small or prof.kind == "f":  # foreign tables have no pg_stats to rely on, nor TABLESAMPLE
        if not small:
            prof.notes.append("foreign table: exact scan")
        # bounded count first: reltuples can be stale
        n = conn.execute(
            sql.SQL("SELECT count(*) FROM (SELECT 1 FROM {} LIMIT {}) s").format(prof.ident(), sql.Literal(exact_max_rows + 1))
        ).fetchone()[0]
        if n > exact_max_rows and prof.kind != "f":
            if not prof.analyzed:
                _analyze(conn, prof)
            prof.row_count = max(prof.row_count, n)
            _stats_profile(conn, prof)
        else:
            _exact_profile(conn, prof)
    else:
        _stats_profile(conn, prof)
    prof.seconds = time.perf_counter() - started
    return prof
