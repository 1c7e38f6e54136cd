"""A scalar subquery that can return several rows.

SQLite takes the first row of ``x = (SELECT ...)`` when the subquery returns
several; PostgreSQL raises "more than one row returned by a subquery used as an
expression". A subquery is safe when it returns one row by construction: an
aggregate without ``GROUP BY``, ``LIMIT 1``, no ``FROM``, or an equality filter on
every column of a key (primary key or a unique column) of its only table.
Otherwise, when it is not correlated and an executor is at hand, the subquery is
run (two rows at most) and the check reports what it returned.
"""

from __future__ import annotations

from sqlglot import exp

from sqlgenie.inference.critic.context import CheckContext
from sqlgenie.inference.critic.findings import Finding

__all__ = ["scalar_subquery", "scalar_subqueries", "single_row"]

_NOT_SCALAR = (exp.In, exp.Exists, exp.Any, exp.All, exp.From, exp.Join, exp.Lateral, exp.SetOperation, exp.CTE)


def scalar_subqueries(tree: exp.Expression) -> list[exp.Subquery]:
    """Subqueries used as a value (compared, computed with, or selected)."""
    out = []
    for sub in tree.find_all(exp.Subquery):
        parent = sub.parent
        if sub.args.get("alias") is not None or isinstance(parent, _NOT_SCALAR) or parent is None:
            continue
        if isinstance(parent, exp.Paren) or isinstance(sub.this, exp.SetOperation) and isinstance(parent, exp.Subquery):
            continue
        if not isinstance(sub.this, (exp.Select, exp.SetOperation)):
            continue
        out.append(sub)
    return out


def _has_own_aggregate(select: exp.Select) -> bool:
    for projection in select.expressions:
        for func in projection.find_all(exp.AggFunc):
            if isinstance(func.parent, exp.Window) or func.find_ancestor(exp.Select) is not select:
                continue
            return True
    return False


def _key_sets(ctx: CheckContext, table: exp.Table) -> list[set[str]]:
    info = ctx.catalog.table(table.name, table.db or None)
    if info is None:
        return []
    keys = [set(c.lower() for c in info.primary_key)] if info.primary_key else []
    keys += [{c.name.lower()} for c in info.columns if c.is_unique]
    return keys


def _equality_columns(select: exp.Select) -> set[str]:
    where = select.args.get("where")
    if where is None:
        return set()
    cols: set[str] = set()
    node = where.this
    conjuncts = list(node.flatten()) if isinstance(node, exp.And) else [node]
    for c in conjuncts:
        if isinstance(c, exp.EQ):
            for side, other in ((c.this, c.expression), (c.expression, c.this)):
                if isinstance(side, exp.Column) and not isinstance(other, exp.Column) or (
                        isinstance(side, exp.Column) and isinstance(other, exp.Column) and other.table != side.table):
                    cols.add(side.name.lower())
    return cols


def single_row(ctx: CheckContext, query: exp.Expression) -> bool:
    """Whether ``query`` returns at most one row by construction."""
    if not isinstance(query, exp.Select):
        return False
    limit = query.args.get("limit")
    if limit is not None:
        value = limit.expression
        if isinstance(value, exp.Literal) and value.this in ("0", "1"):
            return True
    if query.args.get("from_") is None:
        return True
    if not query.args.get("group") and _has_own_aggregate(query):
        return True
    if query.args.get("joins"):
        return False
    source = query.args["from_"].this
    if not isinstance(source, exp.Table):
        return False
    eq = _equality_columns(query)
    return any(key and key <= eq for key in _key_sets(ctx, source))


def _correlated(sub: exp.Subquery) -> bool:
    inner = sub.this
    names = {t.alias_or_name.lower() for t in inner.find_all(exp.Table)}
    names |= {s.alias.lower() for s in inner.find_all(exp.Subquery) if s.alias}
    for col in inner.find_all(exp.Column):
        if col.table and col.table.lower() not in names:
            return True
    return False


def scalar_subquery(ctx: CheckContext) -> list[Finding]:
    if ctx.tree is None:
        return []
    findings = []
    for sub in scalar_subqueries(ctx.tree):
        if single_row(ctx, sub.this):
            continue
        text = sub.this.sql(dialect="postgres")
        evidence = {"subquery": text, "operator": type(sub.parent).__name__.lower()}
        if _correlated(sub) or ctx.executor is None:
            continue  # unknowable without running it: not reported (precision first)
        probe = ctx.probe(text, row_cap=2)
        if probe is None or not probe.ok or len(probe.rows) < 2:
            continue
        evidence["rows"] = [list(r) for r in probe.rows[:2]]
        findings.append(Finding(
            "scalar_subquery", "error",
            f"The subquery ({_short(text)}) is used as one value but returns several rows; "
            "PostgreSQL rejects that (SQLite silently takes the first row). Use IN, or make it return one row.",
            evidence))
    return findings


def _short(text: str, n: int = 120) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"
