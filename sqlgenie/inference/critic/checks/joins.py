"""An aggregate over a join that fans out.

``SELECT AVG(s.age) FROM singer s JOIN singer_in_concert c ON s.singer_id = c.singer_id``
averages each singer once per concert. A join ``A.x = B.k`` where ``B.k`` is a key
of ``B`` (its primary key or a unique column, from the catalog) and ``A.x`` is not a
key of ``A`` is 1:n from ``B`` to ``A``: every row of ``B`` is repeated once per
matching row of ``A``. ``SUM`` / ``AVG`` (without ``DISTINCT``) of a column of ``B``
then count ``B``'s values several times; the check reports it unless the query
groups by ``B``'s key and averages (each group holds one ``B`` row, whose repeated
value still inflates ``SUM`` but not ``AVG``). ``COUNT`` is left alone: counting the
joined rows is what "number of concerts for each singer" means (on the recorded
predictions ``COUNT(col)`` over such joins was as often right as wrong).
"""

from __future__ import annotations

from sqlglot import exp

from sqlgenie.inference.critic.context import CheckContext
from sqlgenie.inference.critic.findings import Finding

__all__ = ["fanout_aggregate"]


def _is_key(info, columns: set[str]) -> bool:
    if info is None or not columns:
        return False
    pk = {c.lower() for c in info.primary_key}
    if pk and pk <= columns:
        return True
    return any(c.is_unique and c.name.lower() in columns for c in info.columns)


def _sources(select: exp.Select, ctx: CheckContext) -> dict[str, object]:
    """alias -> TableInfo of the base tables this SELECT reads directly."""
    out = {}
    tables = []
    from_ = select.args.get("from_")
    if from_ is not None:
        tables.append(from_.this)
    tables += [j.this for j in select.args.get("joins") or []]
    for t in tables:
        if isinstance(t, exp.Table) and t.name:
            info = ctx.catalog.table(t.name, t.db or None)
            if info is not None:
                out[t.alias_or_name.lower()] = info
    return out


def _join_pairs(select: exp.Select) -> list[tuple[exp.Column, exp.Column]]:
    pairs = []
    for j in select.args.get("joins") or []:
        on = j.args.get("on")
        if on is None:
            continue
        for eq in on.find_all(exp.EQ):
            if isinstance(eq.this, exp.Column) and isinstance(eq.expression, exp.Column):
                pairs.append((eq.this, eq.expression))
    where = select.args.get("where")
    if where is not None:
        for eq in where.find_all(exp.EQ):
            if eq.find_ancestor(exp.Select) is select and isinstance(eq.this, exp.Column) and isinstance(
                    eq.expression, exp.Column) and eq.this.table and eq.expression.table:
                pairs.append((eq.this, eq.expression))
    return pairs


def fanout_aggregate(ctx: CheckContext) -> list[Finding]:
    if ctx.tree is None:
        return []
    findings = []
    for select in ctx.tree.find_all(exp.Select):
        if not select.args.get("joins"):
            continue
        sources = _sources(select, ctx)
        if len(sources) < 2:
            continue
        # tables repeated by a 1:n join: alias of the "one" side -> the "many" side's alias
        repeated: dict[str, str] = {}
        for a, b in _join_pairs(select):
            ta, tb = (a.table or "").lower(), (b.table or "").lower()
            if ta not in sources or tb not in sources or ta == tb:
                continue
            for one, one_col, many, many_col in ((tb, b, ta, a), (ta, a, tb, b)):
                if _is_key(sources[one], {one_col.name.lower()}) and not _is_key(sources[many], {many_col.name.lower()}):
                    repeated.setdefault(one, many)
        if not repeated:
            continue
        grouped = {(c.table or "").lower() + "." + c.name.lower()
                   for g in (select.args.get("group").expressions if select.args.get("group") else [])
                   for c in g.find_all(exp.Column)}
        for agg in select.find_all(exp.Sum, exp.Avg):
            if agg.find_ancestor(exp.Select) is not select or isinstance(agg.this, exp.Distinct):
                continue
            col = agg.this
            if not isinstance(col, exp.Column) or not col.table:
                continue
            alias = col.table.lower()
            if alias not in repeated:
                continue
            info = sources[alias]
            key_grouped = any(f"{alias}.{k.lower()}" in grouped for k in info.primary_key)
            if key_grouped and isinstance(agg, exp.Avg):
                continue
            fname = type(agg).__name__.upper()
            findings.append(Finding(
                "fanout_aggregate", "warning",
                f"{fname}({col.sql(dialect='postgres')}) runs over a join that repeats each {info.name} row once per "
                f"matching {sources[repeated[alias]].name} row (1:n), so {info.name}'s values count several times; "
                f"aggregate before joining, or use DISTINCT where that is meant.",
                {"aggregate": agg.sql(dialect="postgres"), "table": info.qualified,
                 "many_side": sources[repeated[alias]].qualified}))
    return findings
