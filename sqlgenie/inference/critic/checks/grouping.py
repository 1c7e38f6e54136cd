"""GROUP BY misuse.

SQLite accepts grouping mistakes that PostgreSQL refuses, and models trained on
SQLite write them; PostgreSQL's own message ("must appear in the GROUP BY clause")
does not say what to write instead. These checks say it, from the statement alone
(no execution needed), and stay silent when the statement ran (PostgreSQL then
found the grouping valid, e.g. a column that depends on a grouped primary key):

* ``ungrouped_column``: a plain column (or ``t.*``) next to ``GROUP BY``, next to an
  aggregate, or in a query that orders by an aggregate without ``GROUP BY``,
  neither grouped nor inside an aggregate (SQLite returns a value of an arbitrary
  row of each group). Only a declared primary key makes its table's other columns
  groupable (PostgreSQL knows no inferred key);
* ``nested_aggregate``: an aggregate of an aggregate in one query (``MAX(COUNT(*))``);
* ``aggregate_in_where``: an aggregate in ``WHERE``, which filters rows before they
  are grouped (``HAVING`` filters groups).

One more reads the question:

* ``each_without_group_by``: the question asks for a figure "for each" / "per"
  thing and the query aggregates every row into one, with no ``GROUP BY``.
"""

from __future__ import annotations

import re

from sqlglot import exp

from sqlgenie.inference.critic.context import CheckContext, outer_select
from sqlgenie.inference.critic.findings import Finding

__all__ = ["aggregate_in_where", "each_without_group_by", "nested_aggregate", "ungrouped_column"]


def _refused(ctx: CheckContext) -> bool:
    """The statement did not run (not executed, or PostgreSQL refused it)."""
    return ctx.result is None or not ctx.result.ok


def _own(node: exp.Expression, select: exp.Select) -> bool:
    """``node`` belongs to ``select`` itself (not to a subquery inside it)."""
    return node.find_ancestor(exp.Select) is select


def _between(node: exp.Expression, top: exp.Expression, kinds: tuple[type, ...]) -> exp.Expression | None:
    """The first ancestor of ``node`` of one of ``kinds`` below ``top``."""
    parent = node.parent
    while parent is not None and parent is not top:
        if isinstance(parent, kinds):
            return parent
        parent = parent.parent
    return None


def _own_aggregates(select: exp.Select, parts: list[exp.Expression]) -> list[exp.AggFunc]:
    out = []
    for part in parts:
        for agg in part.find_all(exp.AggFunc):
            if _own(agg, select) and _between(agg, select, (exp.Window,)) is None and not isinstance(
                    agg.parent, exp.Window):
                out.append(agg)
    return out


def _sources(select: exp.Select, ctx: CheckContext) -> dict[str, object]:
    from sqlgenie.inference.critic.checks.joins import _sources as sources

    return sources(select, ctx)


def _q(name: str | None) -> str:
    return (name or "").lower()


def ungrouped_column(ctx: CheckContext) -> list[Finding]:
    if ctx.tree is None or not _refused(ctx):
        return []
    findings: list[Finding] = []
    for index, select in enumerate(ctx.tree.find_all(exp.Select)):
        group = select.args.get("group")
        projections = list(select.expressions)
        aggregates = _own_aggregates(select, projections + ([select.args["having"]] if select.args.get("having") else []))
        ordered_by = _own_aggregates(select, [select.args["order"]] if select.args.get("order") else [])
        if group is None and not aggregates and not ordered_by:
            continue
        aliases = {_q(p.alias): p.unalias() for p in projections if isinstance(p, exp.Alias)}
        grouped: list[exp.Expression] = []
        for g in group.expressions if group is not None else []:
            if isinstance(g, exp.Literal) and g.is_int and 0 < int(g.this) <= len(projections):
                grouped.append(projections[int(g.this) - 1].unalias())
            elif isinstance(g, exp.Column) and not g.table and _q(g.name) in aliases:
                grouped.append(aliases[_q(g.name)])
                grouped.append(g)
            else:
                grouped.append(g)
        grouped_sql = {g.sql(dialect="postgres").lower() for g in grouped}
        grouped_cols = [c for g in grouped for c in ([g] if isinstance(g, exp.Column) else [])]
        sources = _sources(select, ctx)

        def is_grouped(col: exp.Column) -> bool:
            name, table = _q(col.name), _q(col.table)
            for g in grouped_cols:
                if _q(g.name) == name and (not table or not g.table or _q(g.table) == table):
                    return True
            node: exp.Expression | None = col
            while node is not None and node is not select:
                if node.sql(dialect="postgres").lower() in grouped_sql:
                    return True
                node = node.parent
            # PostgreSQL accepts columns of a table whose declared primary key is grouped
            # (an inferred key is the catalog's, not a constraint PostgreSQL knows).
            for alias, info in sources.items():
                if (table and alias != table) or getattr(info, "pk_source", "declared") != "declared":
                    continue
                if not any(_q(c.name) == name for c in info.columns):
                    continue
                pk = [_q(k) for k in info.primary_key]
                if pk and all(any(_q(g.name) == k and (not g.table or _q(g.table) == alias) for g in grouped_cols)
                              for k in pk):
                    return True
            return False

        def binds(col: exp.Column) -> bool:
            """The column exists in a source (an unknown column is the binds check's finding)."""
            name, table = _q(col.name), _q(col.table)
            if table:
                info = sources.get(table)
                return info is None or any(_q(c.name) == name for c in info.columns)
            if len(sources) < len(select.args.get("joins") or []) + 1:
                return True  # a derived table or function may provide it
            return any(_q(c.name) == name for info in sources.values() for c in info.columns)

        parts: list[tuple[str, exp.Expression]] = [("SELECT", p) for p in projections]
        if select.args.get("having") is not None:
            parts.append(("HAVING", select.args["having"]))
        if select.args.get("order") is not None:
            parts.append(("ORDER BY", select.args["order"]))
        def key_grouped(alias: str, info) -> bool:
            """The table's key (declared, inferred from the data, or set by a person) is grouped."""
            pk = [_q(k) for k in info.primary_key]
            return bool(pk) and all(any(_q(g.name) == k and (not g.table or _q(g.table) == alias)
                                        for g in grouped_cols) for k in pk)

        def owner(col: exp.Column) -> str | None:
            """The source alias of ``col`` when its table's key is grouped (so the column may join GROUP BY)."""
            name, table = _q(col.name), _q(col.table)
            found = [(a, i) for a, i in sources.items() if (not table or a == table)
                     and any(_q(c.name) == name for c in i.columns)]
            if len(found) != 1 or len(sources) < len(select.args.get("joins") or []) + 1:
                return None
            return found[0][0] if key_grouped(*found[0]) else None

        bad: list[tuple[str, str]] = []
        regroup: list[list[str]] = []
        fixable = group is not None
        for clause, part in parts:
            for col in list(part.find_all(exp.Column)) + ([part] if isinstance(part, exp.Star) else []):
                if not _own(col, select):
                    continue
                if isinstance(col, exp.Star) or isinstance(col.this, exp.Star):
                    # t.* (or *): every column of the table(s) must be grouped or depend on a grouped key.
                    table = _q(col.table) if isinstance(col, exp.Column) else ""
                    infos = [(a, i) for a, i in sources.items() if not table or a == table]
                    if not infos or len(sources) < len(select.args.get("joins") or []) + 1:
                        continue
                    missing = [(a, i, c.name) for a, i in infos for c in i.columns
                               if not is_grouped(exp.column(c.name, table=a))]
                    if missing:
                        bad.append((clause, f"{col.sql(dialect='postgres')} ({', '.join(m[2] for m in missing[:5])})"))
                        for a, i, name in missing:
                            if key_grouped(a, i):
                                regroup.append([a, name])
                            else:
                                fixable = False
                    continue
                if _between(col, select, (exp.AggFunc, exp.Window)) is not None:
                    continue
                if clause == "ORDER BY" and not col.table and _q(col.name) in aliases:
                    continue
                if not is_grouped(col) and binds(col):
                    label = col.sql(dialect="postgres")
                    if label not in [b[1] for b in bad]:
                        bad.append((clause, label))
                        alias = owner(col)
                        if alias is None:
                            fixable = False
                        else:
                            regroup.append([alias, col.name])
        if not bad:
            continue
        names = ", ".join(b[1] for b in bad[:5])
        if group is None and not aggregates:
            agg = ordered_by[0].sql(dialect="postgres")
            message = (f"The query orders by the aggregate {agg} but has no GROUP BY, so every row falls into one "
                       f"group and {names} has no single value (PostgreSQL refuses it). GROUP BY the items being "
                       "ranked, then ORDER BY the aggregate.")
        elif group is None:
            agg = aggregates[0].sql(dialect="postgres")
            message = (f"{names} is a plain column next to the aggregate {agg} without GROUP BY: PostgreSQL refuses "
                       "it (SQLite returns the value of an arbitrary row). For the row holding the largest or "
                       "smallest value, ORDER BY that column with LIMIT 1 (or filter on a MAX/MIN subquery); for "
                       f"one result per {bad[0][1]}, GROUP BY it.")
        else:
            message = (f"{names} is neither in GROUP BY nor inside an aggregate: PostgreSQL refuses it (SQLite "
                       "returns the value of an arbitrary row of each group). Add it to GROUP BY, or aggregate it "
                       "(MIN/MAX/COUNT), or group by the key of its table.")
        findings.append(Finding("ungrouped_column", "error", message,
                                {"columns": [b[1] for b in bad], "clauses": sorted({b[0] for b in bad}),
                                 "group_by": [g.sql(dialect="postgres") for g in group.expressions] if group else [],
                                 "select_index": index,
                                 # (alias, column) pairs whose table's key is grouped: adding them to GROUP BY
                                 # leaves the groups as they are (the repair group_by_key).
                                 "regroup": regroup if fixable else []}))
    return findings


def nested_aggregate(ctx: CheckContext) -> list[Finding]:
    if ctx.tree is None or not _refused(ctx):
        return []
    findings: list[Finding] = []
    for agg in ctx.tree.find_all(exp.AggFunc):
        select = agg.find_ancestor(exp.Select)
        if select is None or isinstance(agg.parent, exp.Window):
            continue
        outer = _between(agg, select, (exp.AggFunc,))
        if outer is None or isinstance(outer.parent, exp.Window):
            continue
        text = outer.sql(dialect="postgres")
        findings.append(Finding(
            "nested_aggregate", "error",
            f"{text} nests one aggregate in another, which PostgreSQL refuses. For the largest (smallest) "
            f"{agg.sql(dialect='postgres')} of the groups, ORDER BY {agg.sql(dialect='postgres')} DESC (ASC) "
            "LIMIT 1, or aggregate over a subquery that computes it per group.",
            {"aggregate": text}))
        break
    return findings


def aggregate_in_where(ctx: CheckContext) -> list[Finding]:
    if ctx.tree is None or not _refused(ctx):
        return []
    for select in ctx.tree.find_all(exp.Select):
        where = select.args.get("where")
        if where is None:
            continue
        for agg in where.find_all(exp.AggFunc):
            if _own(agg, select):
                text = agg.sql(dialect="postgres")
                return [Finding(
                    "aggregate_in_where", "error",
                    f"{text} is in WHERE, which filters single rows before any grouping, so PostgreSQL refuses "
                    "it. Compare aggregates in HAVING after GROUP BY, or compute the aggregate in a subquery.",
                    {"aggregate": text})]
    return []


_EACH = re.compile(r"\b(for|of|in|by|from|to|with)\s+(each|every)\b|\beach\s+of\b", re.I)


def each_without_group_by(ctx: CheckContext) -> list[Finding]:
    if ctx.tree is None or not _EACH.search(ctx.question):
        return []
    select = outer_select(ctx.tree)
    if select is None or select.args.get("group") is not None:
        return []
    aggregates = _own_aggregates(select, list(select.expressions))
    if not aggregates:
        return []
    if ctx.result is not None and (not ctx.result.ok or len(ctx.result.rows) != 1):
        return []
    m = _EACH.search(ctx.question)
    agg = aggregates[0].sql(dialect="postgres")
    return [Finding(
        "each_without_group_by", "warning",
        f"The question asks for a figure {m.group(0)!r} item, but the query has no GROUP BY: {agg} is computed "
        "once over all rows. GROUP BY the items the question names (and return them).",
        {"aggregate": agg, "phrase": m.group(0)})]
