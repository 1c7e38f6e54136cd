"""Typed read model of the catalog of onboarded tables.

Onboarding (``onboarding/``) writes the ``sqlgenie.catalog_*`` tables (migration
0003); everything else — the example bank, the autocorrectors, schema pruning and
ask — reads them through :func:`load_catalog`, which returns an immutable
:class:`Catalog` snapshot. Pure passes take a ``Catalog`` argument, so they can be
tested on catalogs built in memory.

Name resolution follows PostgreSQL: unquoted names are case-insensitive; a
table name without a schema resolves along ``search_path`` (default ``public``)
and then to any unique match.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable

import psycopg

NUMERIC_TYPES = ("smallint", "integer", "bigint", "numeric", "real", "double precision", "decimal")
TEXT_TYPES = ("text", "character varying", "character", "varchar", "char", "citext", "name")
TEMPORAL_TYPES = ("date", "timestamp", "time", "interval")


def type_family(data_type: str) -> str:
    """Coarse family of a PostgreSQL type name: numeric | text | temporal | boolean | other."""
    t = data_type.lower()
    if t.startswith(NUMERIC_TYPES):
        return "numeric"
    if t.startswith(TEXT_TYPES):
        return "text"
    if t.startswith(TEMPORAL_TYPES):
        return "temporal"
    if t.startswith("bool"):
        return "boolean"
    return "other"


@dataclass(frozen=True)
class ColumnInfo:
    name: str
    data_type: str
    nullable: bool = True
    synonyms: tuple[str, ...] = ()
    aggregation: str | None = None
    searchable: bool = False
    mandatory: bool = False
    description: str | None = None
    n_distinct: float | None = None
    null_frac: float | None = None
    column_id: int | None = None
    # added by onboarding (migration 0005)
    is_unique: bool | None = None
    min_value: str | None = None
    max_value: str | None = None
    common_values: tuple[tuple[str, float], ...] = ()  # most common values with their row fractions

    @property
    def family(self) -> str:
        return type_family(self.data_type)


@dataclass(frozen=True)
class TableInfo:
    schema: str
    name: str
    columns: tuple[ColumnInfo, ...]
    primary_key: tuple[str, ...] = ()
    row_estimate: int | None = None
    description: str | None = None
    table_id: int | None = None
    # added by onboarding (migration 0005)
    pk_source: str = "none"  # declared | inferred | human | none
    partition_column: str | None = None  # the partition pick (a recommendation)
    index_picks: tuple[tuple[str, ...], ...] = ()  # recommended index columns

    @property
    def qualified(self) -> str:
        return f"{self.schema}.{self.name}"

    def column(self, name: str) -> ColumnInfo | None:
        """Column by name: exact first, then case-insensitive."""
        for col in self.columns:
            if col.name == name:
                return col
        lowered = name.lower()
        matches = [c for c in self.columns if c.name.lower() == lowered]
        return matches[0] if len(matches) == 1 else None


@dataclass(frozen=True)
class JoinInfo:
    from_table: str  # qualified "schema.table"
    from_columns: tuple[str, ...]
    to_table: str
    to_columns: tuple[str, ...]
    score: float
    status: str  # proposed | accepted | rejected
    cost: float | None = None
    join_id: int | None = None
    decided_by: str | None = None
    inclusion: float | None = None  # share of sampled referencing values found (onboarding evidence)


@dataclass(frozen=True)
class Catalog:
    tables: tuple[TableInfo, ...] = ()
    joins: tuple[JoinInfo, ...] = ()
    search_path: tuple[str, ...] = ("public",)
    _by_key: dict[str, TableInfo] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        index = {t.qualified.lower(): t for t in self.tables}
        object.__setattr__(self, "_by_key", index)

    def table(self, name: str, schema: str | None = None) -> TableInfo | None:
        """Resolve a table like PostgreSQL would (case-insensitive, search path, then unique match)."""
        if schema:
            return self._by_key.get(f"{schema}.{name}".lower())
        for sch in self.search_path:
            found = self._by_key.get(f"{sch}.{name}".lower())
            if found:
                return found
        matches = [t for t in self.tables if t.name.lower() == name.lower()]
        return matches[0] if len(matches) == 1 else None

    def accepted_joins(self) -> list[JoinInfo]:
        return [j for j in self.joins if j.status == "accepted"]

    def joins_of(self, qualified_table: str, *, statuses: Iterable[str] = ("accepted",)) -> list[JoinInfo]:
        wanted = set(statuses)
        key = qualified_table.lower()
        return [
            j for j in self.joins if j.status in wanted and key in (j.from_table.lower(), j.to_table.lower())
        ]

    def qualified_names(self) -> set[str]:
        return {t.qualified for t in self.tables}

    def with_search_path(self, *schemas: str) -> Catalog:
        return Catalog(self.tables, self.joins, tuple(schemas))


def catalog_exists(conn: psycopg.Connection) -> bool:
    return conn.execute("SELECT to_regclass('sqlgenie.catalog_tables') IS NOT NULL").fetchone()[0]


def load_catalog(
    conn: psycopg.Connection, *, schemas: Iterable[str] | None = None, search_path: Iterable[str] = ("public",)
) -> Catalog:
    """Snapshot of the onboarded tables (optionally only those in ``schemas``)."""
    if not catalog_exists(conn):
        return Catalog(search_path=tuple(search_path))
    schema_list = list(schemas) if schemas is not None else None
    where = "WHERE t.schema_name = ANY(%(schemas)s)" if schema_list is not None else ""
    rows = conn.execute(
        f"""
        SELECT t.id, t.schema_name, t.table_name, t.primary_key, t.row_estimate, t.description,
               c.id, c.column_name, c.data_type, c.nullable, c.synonyms, c.aggregation, c.searchable,
               c.mandatory, c.description, c.n_distinct, c.null_frac,
               c.is_unique, c.min_value, c.max_value, c.profile->'mcv',
               t.pk_source, t.partition_pick->>'column', t.index_picks
        FROM sqlgenie.catalog_tables t
        JOIN sqlgenie.catalog_columns c ON c.table_id = t.id
        {where}
        ORDER BY t.schema_name, t.table_name, c.ordinal
        """,
        {"schemas": schema_list},
    ).fetchall()
    grouped: dict[int, tuple[tuple, list[ColumnInfo]]] = {}
    for r in rows:
        head, cols = grouped.setdefault(r[0], (r[:6] + r[21:24], []))
        mcv = tuple((str(m[0]), float(m[1])) for m in (r[20] or []) if isinstance(m, list) and len(m) == 2)
        cols.append(
            ColumnInfo(
                name=r[7], data_type=r[8], nullable=r[9], synonyms=tuple(r[10] or ()), aggregation=r[11],
                searchable=r[12], mandatory=r[13], description=r[14], n_distinct=r[15], null_frac=r[16],
                column_id=r[6], is_unique=r[17], min_value=r[18], max_value=r[19], common_values=mcv,
            )
        )
    tables = tuple(
        TableInfo(schema=h[1], name=h[2], columns=tuple(cols), primary_key=tuple(h[3] or ()),
                  row_estimate=h[4], description=h[5], table_id=h[0], pk_source=h[6] or "none",
                  partition_column=h[7],
                  index_picks=tuple(tuple(p.get("columns") or ()) for p in (h[8] or []) if p.get("recommended")))
        for h, cols in grouped.values()
    )
    ids = {t.table_id: t.qualified for t in tables}
    joins = tuple(
        JoinInfo(from_table=ids[r[1]], from_columns=tuple(r[2]), to_table=ids[r[3]], to_columns=tuple(r[4]),
                 score=r[5], status=r[6], cost=r[7], join_id=r[0], decided_by=r[8],
                 inclusion=None if r[9] is None else float(r[9]))
        for r in conn.execute(
            "SELECT id, from_table_id, from_columns, to_table_id, to_columns, score, status, cost, decided_by,"
            " (evidence->>'inclusion')::float8"
            " FROM sqlgenie.catalog_joins ORDER BY id"
        )
        if r[1] in ids and r[3] in ids
    )
    return Catalog(tables=tables, joins=joins, search_path=tuple(search_path))


def search_values(
    conn: psycopg.Connection, text: str, *, table: str | None = None, column: str | None = None,
    limit: int = 10, min_similarity: float = 0.3,
) -> list[dict]:
    """Fuzzy candidates for ``text`` among the cached frequent values of searchable
    columns (pg_trgm similarity over ``sqlgenie.value_cache``, GIN-indexed), best first:
    dicts with schema, table, column, value, frequency, similarity. ``table`` may be
    ``schema.table`` or a bare table name."""
    schema = None
    if table and "." in table:
        schema, table = table.split(".", 1)
    with conn.transaction():
        conn.execute("SELECT set_config('pg_trgm.similarity_threshold', %s, true)", (str(min_similarity),))
        rows = conn.execute(
            """
            SELECT t.schema_name, t.table_name, c.column_name, v.value, v.frequency, similarity(v.value, %(q)s) AS sim
            FROM sqlgenie.value_cache v
            JOIN sqlgenie.catalog_columns c ON c.id = v.column_id
            JOIN sqlgenie.catalog_tables t ON t.id = c.table_id
            WHERE v.value %% %(q)s
              AND (%(schema)s::text IS NULL OR t.schema_name = %(schema)s)
              AND (%(table)s::text IS NULL OR t.table_name = %(table)s)
              AND (%(column)s::text IS NULL OR c.column_name = %(column)s)
            ORDER BY sim DESC, v.frequency DESC, v.value
            LIMIT %(limit)s
            """,
            {"q": text, "schema": schema, "table": table, "column": column, "limit": limit},
        ).fetchall()
    return [
        {"schema": r[0], "table": r[1], "column": r[2], "value": r[3], "frequency": r[4], "similarity": round(float(r[5]), 4)}
        for r in rows
    ]
