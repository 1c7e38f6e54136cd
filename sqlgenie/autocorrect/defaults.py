"""Defaults: a LIMIT on open-ended queries and the mandatory columns.

**LIMIT.** The outermost query gets ``LIMIT default_limit`` (500) when it has no
``LIMIT``/``FETCH``, unless

* the question asks for a count ("how many", "number of", "count", "total number"),
* the question asks for a top-N ("top 5", "first 10", "5 highest", "10 most ..."),
  whose N belongs to the question, not to a default, or
* the query returns one aggregate row (aggregates and no ``GROUP BY``), or has no
  ``FROM`` at all.

**Mandatory columns** (flagged at onboarding, e.g. a product name next to its id)
are added to the outermost ``SELECT`` for every onboarded table it reads directly,
when not selected already (``*`` counts). Without aggregation the column itself is
added; with ``GROUP BY`` a grouped column is added as is and another one wrapped in
its catalog aggregation function (``SUM``/``AVG``/``MIN``/``MAX``/``COUNT``/
``STRING_AGG``) — or skipped when it has none. A single aggregate row (aggregates
without ``GROUP BY``), ``SELECT DISTINCT`` and set operations are left alone (an
extra column would change their rows or say nothing).
"""

from __future__ import annotations

import re

from sqlglot import exp

from sqlgenie.autocorrect.base import Change, to_sql
from sqlgenie.autocorrect.resolve import ColumnRef, Resolver
from sqlgenie.autocorrect.settings import AutocorrectSettings
from sqlgenie.catalog import Catalog

__all__ = ["add_limit", "add_mandatory_columns", "apply_defaults", "asks_for_count", "asks_for_top_n"]

NAME = "defaults"

# Questions are natural language, not SQL: plain patterns are fine here.
_COUNT = re.compile(r"\b(how\s+many|number\s+of|count(s|ing)?|total\s+number|how\s+much\s+(rows|records))\b", re.I)
_RANK_WORDS = r"(highest|lowest|largest|smallest|biggest|most|least|best|worst|top|bottom|latest|earliest|newest|oldest)"
_TOP_N = re.compile(
    rf"\b(top|first|last|bottom)\s+(\d+|one|two|three|four|five|six|seven|eight|nine|ten|twenty|fifty|hundred)\b"
    rf"|\b(\d+|two|three|four|five|six|seven|eight|nine|ten)\s+{_RANK_WORDS}\b"
    rf"|\btop\b",
    re.I,
)


def asks_for_count(question: str | None) -> bool:
    return bool(question and _COUNT.search(question))


def asks_for_top_n(question: str | None) -> bool:
    return bool(question and _TOP_N.search(question))


def _outer_query(tree: exp.Expression) -> exp.Expression:
    node = tree
    while isinstance(node, exp.Subquery) and node.args.get("alias") is None:
        node = node.this
    return node


def _is_aggregate_query(select: exp.Select) -> bool:
    """GROUP BY, or an aggregate of this query itself (not a window, not a subquery's)."""
    if select.args.get("group"):
        return True
    for projection in select.expressions:
        for func in projection.find_all(exp.AggFunc):
            if isinstance(func.parent, exp.Window) or func.find_ancestor(exp.Select) is not select:
                continue
            return True
    return False


def _single_row(query: exp.Expression) -> bool:
    if not isinstance(query, exp.Select):
        return False
    if query.args.get("from_") is None:
        return True
    return not query.args.get("group") and _is_aggregate_query(query)


def add_limit(
    tree: exp.Expression, settings: AutocorrectSettings | None = None, question: str | None = None, *,
    copy: bool = True,
) -> tuple[exp.Expression, list[Change]]:
    settings = settings or AutocorrectSettings()
    if copy:
        tree = tree.copy()
    query = _outer_query(tree)
    if not isinstance(query, (exp.Select, exp.SetOperation)):
        return tree, []
    if query.args.get("limit") is not None or query.args.get("fetch") is not None:
        return tree, []
    if asks_for_count(question) or asks_for_top_n(question) or _single_row(query):
        return tree, []
    query.set("limit", exp.Limit(expression=exp.Literal.number(settings.default_limit)))
    return tree, [
        Change(NAME, "(no LIMIT)", f"LIMIT {settings.default_limit}", "open-ended query: default row limit added")
    ]


def _aggregate(ref: ColumnRef, column: exp.Column) -> exp.Expression | None:
    agg = (ref.column.aggregation or "").upper()
    if agg == "SUM":
        return exp.Sum(this=column)
    if agg == "AVG":
        return exp.Avg(this=column)
    if agg == "MIN":
        return exp.Min(this=column)
    if agg == "MAX":
        return exp.Max(this=column)
    if agg == "COUNT":
        return exp.Count(this=column)
    if agg == "STRING_AGG":
        return exp.GroupConcat(this=exp.cast(column, exp.DataType.build("text")), separator=exp.Literal.string(", "))
    return None


def add_mandatory_columns(
    tree: exp.Expression, catalog: Catalog, settings: AutocorrectSettings | None = None, *, copy: bool = True,
    resolver: Resolver | None = None,
) -> tuple[exp.Expression, list[Change]]:
    if copy:
        tree, resolver = tree.copy(), None
    query = _outer_query(tree)
    if not isinstance(query, exp.Select) or query.args.get("distinct") is not None:
        return tree, []
    if not any(c.mandatory for t in catalog.tables for c in t.columns):
        return tree, []
    resolver = resolver or Resolver(tree, catalog)
    if not resolver.ok:
        return tree, []
    root = next((s for s in resolver.scopes if s.expression is query), None)
    if root is None:
        return tree, []
    try:
        selected = list(root.selected_sources.items())
    except Exception:
        return tree, []
    projections = list(query.expressions)
    if any(isinstance(p, exp.Star) for p in projections):
        return tree, []
    starred = {p.table.lower() for p in projections if isinstance(p, exp.Column) and isinstance(p.this, exp.Star)}
    present: set[str] = set()
    for p in projections:
        inner = p.unalias()
        if isinstance(inner, exp.Column):
            ref = resolver.resolve(inner)
            if ref is not None:
                present.add(ref.key)
    grouped: set[str] = set()
    group = query.args.get("group")
    if group is not None:
        for g in group.expressions:
            if isinstance(g, exp.Column):
                ref = resolver.resolve(g)
                if ref is not None:
                    grouped.add(ref.key)
    aggregate = _is_aggregate_query(query)
    if aggregate and group is None:
        return tree, []  # one aggregate row: a mandatory column has nothing to describe
    additions: list[tuple[exp.Expression, str]] = []
    for qualifier, (_, source) in selected:
        if not isinstance(source, exp.Table) or qualifier.lower() in starred:
            continue
        info = resolver.table_info(source)
        if info is None:
            continue
        for col in info.columns:
            if not col.mandatory:
                continue
            ref = ColumnRef(info, col)
            if ref.key in present:
                continue
            column = exp.column(exp.to_identifier(col.name, quoted=col.name != col.name.lower() or None),
                                table=exp.to_identifier(qualifier))
            if not aggregate or ref.key in grouped:
                additions.append((column, f"mandatory column {ref.key} added"))
            else:
                agg = _aggregate(ref, column)
                if agg is None:
                    continue
                additions.append((exp.alias_(agg, col.name, quoted=col.name != col.name.lower() or None),
                                  f"mandatory column {ref.key} added with its aggregation {col.aggregation}"))
            present.add(ref.key)
    if not additions:
        return tree, []
    query.set("expressions", projections + [a for a, _ in additions])
    return tree, [Change(NAME, "(not selected)", to_sql(a), why) for a, why in additions]


def apply_defaults(
    tree: exp.Expression, catalog: Catalog, settings: AutocorrectSettings | None = None, question: str | None = None,
    *, copy: bool = True, resolver: Resolver | None = None,
) -> tuple[exp.Expression, list[Change]]:
    """Mandatory columns then LIMIT, each as switched on in ``settings``. Pure unless ``copy=False``."""
    settings = settings or AutocorrectSettings()
    if copy:
        tree, resolver = tree.copy(), None
    changes: list[Change] = []
    if settings.mandatory_columns:
        tree, more = add_mandatory_columns(tree, catalog, settings, copy=False, resolver=resolver)
        changes += more
    if settings.limit:
        tree, more = add_limit(tree, settings, question, copy=False)
        changes += more
    return tree, changes
