"""Frequent-value cache of searchable text columns (``sqlgenie.value_cache``).

A column is *searchable* when it holds text (text, varchar, char, citext or an
enum; never binary), has values, fewer than :data:`MAX_DISTINCT` distinct values,
is not an identifier (``*_id``, ``uuid``, ``sku``, hashes, tokens) and its values
are not URLs, e-mail addresses, UUIDs, numbers or long free text.

Cached values:

* by default the top ``N`` (:data:`DEFAULT_TOP_VALUES`) most frequent values with
  their frequencies — exact ``GROUP BY`` on small tables; on big tables one
  ``TABLESAMPLE SYSTEM`` pass over about :data:`VALUE_SAMPLE_ROWS` rows for all
  searchable columns at once (``GROUPING SETS``), frequencies scaled to the table;
* with a *priority metric* (a numeric column of the same table, e.g. revenue): the
  values that together hold :data:`PRIORITY_SHARE` (99.9 %) of the metric's sum,
  largest first, at most ``10 * N`` values, each with its frequency and metric sum.

The store keeps them in ``sqlgenie.value_cache`` with a pg_trgm GIN index, so
:func:`search_values` finds fuzzy candidates (``'Munchen'`` -> ``'München'``) fast.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import psycopg
from psycopg import sql

from onboarding.names import split_identifier
from onboarding.profile import ColumnProfile, TableProfile, sample_clause

MAX_DISTINCT = 100_000
DEFAULT_TOP_VALUES = 1000
PRIORITY_SHARE = 0.999
VALUE_SAMPLE_ROWS = 400_000
MAX_AVG_WIDTH = 120  # bytes; wider text is free text, not a searchable label

_IDENTIFIER_WORDS = frozenset({"id", "ids", "uuid", "guid", "key", "pk", "fk", "hash", "token", "sku", "checksum", "password", "pwd", "url", "uri", "link", "email", "mail", "href"})
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
_URL = re.compile(r"^(https?|ftp)://|^www\.", re.I)
_UUID = re.compile(r"^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$", re.I)
_HEX = re.compile(r"^[0-9a-f]{16,}$", re.I)
_NUMBER = re.compile(r"^[+-]?\d+([.,]\d+)?$")


@dataclass
class CachedValue:
    value: str
    frequency: int
    metric: float | None = None


@dataclass
class ColumnValues:
    column: str
    values: list[CachedValue] = field(default_factory=list)
    method: str = "exact"  # exact | sample | priority_metric
    sample_fraction: float | None = None


def value_shape(values: list[str]) -> str | None:
    """'email' | 'url' | 'uuid' | 'number' | 'hex' when most values have that shape."""
    vals = [v.strip() for v in values if v and v.strip()]
    if not vals:
        return None
    for label, rx in (("email", _EMAIL), ("url", _URL), ("uuid", _UUID), ("hex", _HEX), ("number", _NUMBER)):
        hits = sum(1 for v in vals if rx.search(v))
        if hits >= 0.5 * len(vals):
            return label
    return None


def searchable(col: ColumnProfile, sample_values: list[str] | None = None) -> tuple[bool, str]:
    """(searchable?, reason)."""
    if col.family not in ("text", "enum"):
        return False, f"not text ({col.data_type})"
    if col.all_null:
        return False, "all values are NULL"
    if not col.comparable:
        return False, "type cannot be grouped"
    if col.n_distinct is not None and col.n_distinct >= MAX_DISTINCT:
        return False, f"{int(col.n_distinct):,} distinct values (limit {MAX_DISTINCT:,})"
    words = set(split_identifier(col.name))
    if words & _IDENTIFIER_WORDS:
        return False, "identifier, URL or e-mail column (name)"
    if (col.avg_width or 0) > MAX_AVG_WIDTH:
        return False, f"long free text (average {col.avg_width:.0f} bytes)"
    shape = value_shape(sample_values if sample_values is not None else [v for v, _ in col.mcv])
    if shape:
        return False, f"values look like {shape}s"
    return True, "text labels"


def shape_sample(conn: psycopg.Connection, prof: TableProfile, col: ColumnProfile, n: int = 50) -> list[str]:
    clause: sql.Composable = sql.SQL("")
    if not prof.exact:
        clause, _ = sample_clause(prof.row_count, target_rows=20_000)
    q = sql.SQL("SELECT left({c}::text, 300) FROM {t}{s} WHERE {c} IS NOT NULL LIMIT {n}").format(
        c=sql.Identifier(col.name), t=prof.ident(), s=clause, n=sql.Literal(n)
    )
    try:
        return [r[0] for r in conn.execute(q)]
    except psycopg.Error:
        return []


def top_values(
    conn: psycopg.Connection, prof: TableProfile, columns: list[ColumnProfile], n: int = DEFAULT_TOP_VALUES
) -> dict[str, ColumnValues]:
    """Top ``n`` values with frequencies for every column in ``columns`` (one pass per
    20 columns: ``GROUPING SETS``)."""
    if not columns or n <= 0:
        return {}
    if len(columns) > 20:
        out: dict[str, ColumnValues] = {}
        for i in range(0, len(columns), 20):
            out.update(top_values(conn, prof, columns[i:i + 20], n))
        return out
    clause: sql.Composable = sql.SQL("")
    pct = None
    if not prof.exact:
        clause, pct = sample_clause(prof.row_count, target_rows=VALUE_SAMPLE_ROWS)
    idents = [sql.Identifier(c.name) for c in columns]
    if len(columns) == 1:
        grouping: sql.Composable = sql.SQL("0")
        group_by = sql.SQL("GROUP BY {}").format(idents[0])
    else:
        grouping = sql.SQL("GROUPING({})").format(sql.SQL(", ").join(idents))
        group_by = sql.SQL("GROUP BY GROUPING SETS ({})").format(
            sql.SQL(", ").join(sql.SQL("({})").format(i) for i in idents)
        )
    # value of the grouped column: exactly one of the columns is grouped in each row
    value_expr = sql.SQL("COALESCE({})").format(
        sql.SQL(", ").join(sql.SQL("{}::text").format(i) for i in idents)
    ) if len(columns) > 1 else sql.SQL("{}::text").format(idents[0])
    q = sql.SQL(
        """
        SELECT g, v, cnt, total FROM (
            SELECT g, v, cnt, sum(cnt) OVER (PARTITION BY g) AS total,
                   row_number() OVER (PARTITION BY g ORDER BY cnt DESC, v) AS rn
            FROM (SELECT {grouping} AS g, {value} AS v, count(*) AS cnt FROM {t}{s} {group_by}) x
            WHERE v IS NOT NULL
        ) y WHERE rn <= {n} ORDER BY g, rn
        """
    ).format(grouping=grouping, value=value_expr, t=prof.ident(), s=clause, group_by=group_by, n=sql.Literal(n))
    rows = conn.execute(q).fetchall()
    # GROUPING(c1..ck) bitmask: bit set for columns NOT grouped; the grouped one is the zero bit
    k = len(columns)
    out: dict[str, ColumnValues] = {
        c.name: ColumnValues(c.name, method="exact" if prof.exact else "sample", sample_fraction=pct) for c in columns
    }
    for g, v, cnt, total in rows:
        if k == 1:
            idx = 0
        else:
            idx = next(i for i in range(k) if not (g >> (k - 1 - i)) & 1)
        col = columns[idx]
        scale = 1.0
        if not prof.exact and total:
            scale = (col.non_null or prof.row_count) / float(total)
        out[col.name].values.append(CachedValue(v, max(1, int(round(cnt * scale)))))
    return out


def priority_values(
    conn: psycopg.Connection, prof: TableProfile, col: ColumnProfile, metric: str, n: int = DEFAULT_TOP_VALUES
) -> ColumnValues:
    """Values holding :data:`PRIORITY_SHARE` of ``metric``'s sum, largest first (at most ``10 n``)."""
    clause: sql.Composable = sql.SQL("")
    pct = None
    if not prof.exact:
        clause, pct = sample_clause(prof.row_count, target_rows=VALUE_SAMPLE_ROWS)
    q = sql.SQL(
        """
        WITH g AS (
            SELECT {c}::text AS v, count(*) AS cnt, coalesce(sum({m}), 0)::float8 AS s
            FROM {t}{smp} WHERE {c} IS NOT NULL GROUP BY {c}
        ), r AS (
            SELECT v, cnt, s, sum(s) OVER (ORDER BY s DESC, cnt DESC, v ROWS UNBOUNDED PRECEDING) AS cum,
                   sum(s) OVER () AS total, sum(cnt) OVER () AS total_cnt
            FROM g
        )
        SELECT v, cnt, s, total_cnt FROM r WHERE cum - s < {share} * total OR total <= 0
        ORDER BY s DESC, cnt DESC, v LIMIT {lim}
        """
    ).format(
        c=sql.Identifier(col.name), m=sql.Identifier(metric), t=prof.ident(), smp=clause,
        share=sql.Literal(PRIORITY_SHARE), lim=sql.Literal(10 * n),
    )
    out = ColumnValues(col.name, method="priority_metric", sample_fraction=pct)
    for v, cnt, s, total_cnt in conn.execute(q):
        scale = (col.non_null or prof.row_count) / float(total_cnt) if (not prof.exact and total_cnt) else 1.0
        out.values.append(CachedValue(v, max(1, int(round(cnt * scale))), s * scale))
    return out


def search_values(conn: psycopg.Connection, text: str, **kwargs: Any) -> list[dict[str, Any]]:
    """Fuzzy candidates for ``text`` in the value cache: :func:`sqlgenie.catalog.search_values`."""
    from sqlgenie.catalog import search_values as _search

    return _search(conn, text, **kwargs)
