"""Exact repairs: rewrites made only where a finding proves the problem and the
fix is determined by the data or the catalog.

Each repair is a function ``(ctx, findings, matcher, settings) -> (sql, changes) |
None`` that proposes a rewrite when its finding is present; :func:`critique`
runs the proposal and keeps it only when it is better (see there). The rewrites
themselves are the autocorrectors' (:mod:`sqlgenie.autocorrect`), not new code:

* ``identifiers_and_types``: a statement that does not bind or does not run goes
  through identifier repair (one clear closest name) and datatype matching (a
  literal cast to its column's type);
* ``filter_values``: an empty result whose filter value does not occur in the data
  goes through the value corrector (the close cached values of that column);
* ``scalar_in``: ``x = (subquery)`` whose subquery returns several rows becomes
  ``x IN (subquery)`` (``<>`` becomes ``NOT IN``), the only reading PostgreSQL runs;
* ``add_distinct``: the question asks for different / distinct items and the
  result repeats rows: the outermost ``SELECT`` gets ``DISTINCT`` (when it has no
  ``DISTINCT``, ``GROUP BY`` or ``LIMIT`` already);
* ``qualify_ambiguous``: an unqualified column two tables of its query have, where
  an inner join (or a ``WHERE`` conjunct) makes the two equal, is qualified with the
  first of them (every reading gives the same value);
* ``aggregate_groups``: a grouped query whose every output is an aggregate of an
  aggregate (``SELECT MAX(COUNT(*)) FROM t GROUP BY x``) computes the inner
  aggregate per group in a subquery and the outer one over the groups, the one
  meaning such a query has where it is defined (Oracle's nested aggregates);
* ``group_by_key``: columns PostgreSQL refuses as ungrouped whose table's key is in
  ``GROUP BY`` (a key inferred from the data, which PostgreSQL does not know) join
  ``GROUP BY``: each group holds one row of that table, so the groups stay the same.
"""

from __future__ import annotations

from typing import Any, Callable

from sqlglot import exp

from sqlgenie.inference.critic.context import CheckContext
from sqlgenie.inference.critic.findings import Finding

__all__ = ["REPAIRS", "add_distinct", "aggregate_groups", "filter_values", "group_by_key", "identifiers_and_types", "qualify_ambiguous", "scalar_in"]

Proposal = tuple[str, list[dict[str, str]]]
Repair = Callable[[CheckContext, list[Finding], Any, Any], "Proposal | None"]


def _settings(settings: Any, **switches: bool):
    from sqlgenie.autocorrect.settings import AutocorrectSettings

    base = settings if settings is not None else AutocorrectSettings()
    off = {k: False for k in ("python_spans", "identifiers", "datatypes", "values", "limit", "mandatory_columns",
                              "dummy_test")}
    off.update(switches)
    return base.model_copy(update=off)


def identifiers_and_types(ctx: CheckContext, findings: list[Finding], matcher: Any, settings: Any) -> Proposal | None:
    if not any(f.check in ("binds", "executes") and f.severity == "error" for f in findings) or ctx.tree is None:
        return None
    from sqlgenie.autocorrect.chain import run_chain

    result = run_chain(ctx.tree, ctx.catalog, None, _settings(settings, identifiers=True, datatypes=True), ctx.question)
    if not result.changes:
        return None
    return result.sql, [c.to_dict() for c in result.changes]


def filter_values(ctx: CheckContext, findings: list[Finding], matcher: Any, settings: Any) -> Proposal | None:
    if matcher is None or ctx.tree is None:
        return None
    if not any(f.check == "empty_result_value" and f.evidence.get("suggestions") for f in findings):
        return None
    from sqlgenie.autocorrect.chain import run_chain

    result = run_chain(ctx.tree, ctx.catalog, matcher, _settings(settings, values=True), ctx.question)
    if not result.changes:
        return None
    return result.sql, [c.to_dict() for c in result.changes]


def scalar_in(ctx: CheckContext, findings: list[Finding], matcher: Any, settings: Any) -> Proposal | None:
    wanted = {f.evidence.get("subquery") for f in findings if f.check == "scalar_subquery"}
    if not wanted or ctx.tree is None:
        return None
    from sqlgenie.inference.critic.checks.subqueries import scalar_subqueries

    tree = ctx.tree.copy()
    changes = []
    for sub in scalar_subqueries(tree):
        if sub.this.sql(dialect="postgres") not in wanted:
            continue
        parent = sub.parent
        if not isinstance(parent, (exp.EQ, exp.NEQ)):
            continue
        other = parent.expression if parent.this is sub else parent.this
        before = parent.sql(dialect="postgres")
        new: exp.Expression = exp.In(this=other.copy(), query=sub.copy())
        if isinstance(parent, exp.NEQ):
            new = exp.Not(this=new)
        parent.replace(new)
        changes.append({"corrector": "scalar_in", "before": before, "after": new.sql(dialect="postgres"),
                        "reason": "the subquery returns several rows: compare with IN"})
    if not changes:
        return None
    return tree.sql(dialect="postgres"), changes


def add_distinct(ctx: CheckContext, findings: list[Finding], matcher: Any, settings: Any) -> Proposal | None:
    if ctx.tree is None or not any(f.check == "duplicates_for_distinct" for f in findings):
        return None
    from sqlgenie.inference.critic.context import outer_select

    tree = ctx.tree.copy()
    select = outer_select(tree)
    if select is None or select.args.get("distinct") or select.args.get("group") or select.args.get("limit"):
        return None
    select.set("distinct", exp.Distinct())
    return tree.sql(dialect="postgres"), [{"corrector": "add_distinct", "before": "SELECT", "after": "SELECT DISTINCT",
                                           "reason": "the question asks for different items; the result repeated rows"}]


def qualify_ambiguous(ctx: CheckContext, findings: list[Finding], matcher: Any, settings: Any) -> Proposal | None:
    if ctx.tree is None or not any(f.check == "ambiguous_column" and f.evidence.get("equated") for f in findings):
        return None
    from sqlgenie.inference.critic.checks.references import ambiguities

    tree = ctx.tree.copy()
    changes = []
    for a in ambiguities(tree, ctx.catalog):
        if not a["exact"]:
            continue
        select, name, alias, ident = a["select"], a["name"].lower(), a["candidates"][0][0], a["identifiers"][0]
        for col in list(select.find_all(exp.Column)):
            if col.table or col.name.lower() != name or col.find_ancestor(exp.Select) is not select:
                continue
            col.set("table", ident.copy())
        changes.append({"corrector": "qualify_ambiguous", "before": a["name"], "after": f"{alias}.{a['name']}",
                        "reason": "the join makes " + " and ".join(f"{t}.{c}" for t, c in a["candidates"]) + " equal"})
    if not changes:
        return None
    return tree.sql(dialect="postgres"), changes


def _nested(select: exp.Select) -> list[tuple[exp.Expression, exp.AggFunc, exp.AggFunc]] | None:
    """(projection, outer, inner) for each output of ``select`` when every one is
    ``OUTER(INNER(...))`` and nothing else in the query nests aggregates."""
    if (select.args.get("group") is None or select.args.get("distinct") or select.args.get("limit")
            or select.args.get("order") or not select.expressions):
        return None
    out = []
    for p in select.expressions:
        outer = p.unalias()
        inner = outer.this if isinstance(outer, exp.AggFunc) else None
        if not isinstance(inner, exp.AggFunc) or isinstance(outer, exp.Window) or len(
                [a for a in outer.find_all(exp.AggFunc)]) != 2:
            return None
        out.append((p, outer, inner))
    having = select.args.get("having")
    for agg in having.find_all(exp.AggFunc) if having is not None else []:
        if agg.find_ancestor(exp.Select) is select and any(
                a is not agg and a.find_ancestor(exp.Select) is select for a in agg.find_all(exp.AggFunc)):
            return None
    return out


def aggregate_groups(ctx: CheckContext, findings: list[Finding], matcher: Any, settings: Any) -> Proposal | None:
    if ctx.tree is None or not any(f.check == "nested_aggregate" for f in findings):
        return None
    tree = ctx.tree.copy()
    changes = []
    for select in list(tree.find_all(exp.Select)):
        nested = _nested(select)
        if not nested:
            continue
        inner_select = select.copy()
        inner_select.set("expressions", [inner.copy().as_(f"_agg{i}") for i, (_, _, inner) in enumerate(nested)])
        outputs = []
        for i, (p, outer, _) in enumerate(nested):
            agg = outer.copy()
            agg.set("this", exp.column(f"_agg{i}", table="_groups"))
            outputs.append(agg.as_(p.alias) if isinstance(p, exp.Alias) else agg)
        new = exp.select(*outputs).from_(inner_select.subquery("_groups"))
        changes.append({"corrector": "aggregate_groups", "before": ", ".join(p.sql(dialect="postgres") for p, _, _ in nested),
                        "after": ", ".join(o.sql(dialect="postgres") for o in outputs),
                        "reason": "the inner aggregate per group, the outer one over the groups"})
        select.replace(new)
    if not changes:
        return None
    return tree.sql(dialect="postgres"), changes


def group_by_key(ctx: CheckContext, findings: list[Finding], matcher: Any, settings: Any) -> Proposal | None:
    wanted = [f for f in findings if f.check == "ungrouped_column" and f.evidence.get("regroup")]
    if ctx.tree is None or not wanted:
        return None
    tree = ctx.tree.copy()
    selects = list(tree.find_all(exp.Select))
    changes = []
    for f in wanted:
        index = f.evidence.get("select_index")
        if not isinstance(index, int) or index >= len(selects) or selects[index].args.get("group") is None:
            return None
        group = selects[index].args["group"]
        added = []
        for alias, name in f.evidence["regroup"]:
            col = exp.column(exp.to_identifier(name, quoted=True), table=exp.to_identifier(alias))
            if col.sql(dialect="postgres") not in {g.sql(dialect="postgres") for g in group.expressions}:
                group.append("expressions", col)
                added.append(col.sql(dialect="postgres"))
        if added:
            changes.append({"corrector": "group_by_key", "before": ", ".join(f.evidence.get("group_by") or []),
                            "after": ", ".join(g.sql(dialect="postgres") for g in group.expressions),
                            "reason": "their table's key is grouped, so each group holds one of its rows"})
    if not changes:
        return None
    return tree.sql(dialect="postgres"), changes


REPAIRS: tuple[Repair, ...] = (identifiers_and_types, qualify_ambiguous, aggregate_groups, group_by_key, scalar_in,
                               filter_values, add_distinct)
