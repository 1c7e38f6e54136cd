"""Column references PostgreSQL cannot resolve to one table.

* ``ambiguous_column``: an unqualified column that two or more tables of its query
  have (``SELECT semester_id FROM semesters JOIN student_enrolment ON ...``).
  When an inner join (or a ``WHERE`` conjunct) makes those columns equal, every
  reading gives the same value and the repair ``qualify_ambiguous`` qualifies it
  with the first of them; otherwise the finding names the candidates and goes back
  to the generator. Silent when the statement ran, and on joins with ``USING`` or
  ``NATURAL`` (which merge the columns).
"""

from __future__ import annotations

from sqlglot import exp

from sqlgenie.inference.critic.context import CheckContext
from sqlgenie.inference.critic.findings import Finding

__all__ = ["ambiguous_column", "ambiguities"]


def _output_names(select: exp.Expression) -> set[str] | None:
    if not isinstance(select, exp.Select):
        return None
    names = set()
    for p in select.expressions:
        if isinstance(p, exp.Star) or (isinstance(p, exp.Column) and isinstance(p.this, exp.Star)):
            return None
        if not p.alias_or_name:
            return None
        names.add(p.alias_or_name.lower())
    return names


def _alias_identifier(item: exp.Expression) -> exp.Identifier:
    """The identifier a source is referred to by (its alias, else its name), quoting kept."""
    alias = item.args.get("alias")
    ident = alias.this if isinstance(alias, exp.TableAlias) else None
    if not isinstance(ident, exp.Identifier):
        ident = item.this if isinstance(item, exp.Table) and isinstance(item.this, exp.Identifier) else None
    return ident.copy() if ident is not None else exp.to_identifier(item.alias_or_name)


def _source_columns(select: exp.Select, tree: exp.Expression, catalog) -> list[tuple[str, set[str]]] | None:
    """(alias identifier, column names) of each source of ``select`` in FROM order; None when one is unknown."""
    ctes = {}
    for cte in tree.find_all(exp.CTE):
        ctes[cte.alias_or_name.lower()] = cte.this
    items = []
    from_ = select.args.get("from_")
    if from_ is not None:
        items.append(from_.this)
    for j in select.args.get("joins") or []:
        if j.args.get("using") or j.args.get("method") or (j.kind or "").upper() == "NATURAL":
            return None
        items.append(j.this)
    out = []
    for item in items:
        alias = item.alias_or_name.lower()
        if isinstance(item, exp.Table) and not isinstance(item.this, exp.Func):
            if not item.db and item.name.lower() in ctes:
                names = _output_names(ctes[item.name.lower()])
            else:
                info = catalog.table(item.name, item.db or None)
                names = {c.name.lower() for c in info.columns} if info is not None else None
        elif isinstance(item, exp.Subquery):
            names = _output_names(item.this)
        else:
            names = None
        if names is None or not alias:
            return None
        out.append((_alias_identifier(item), names))
    return out


def _equalities(select: exp.Select) -> list[tuple[tuple[str, str], tuple[str, str]]]:
    """Column equalities every output row satisfies: conjuncts of inner joins' ON and of WHERE."""
    conds = []
    for j in select.args.get("joins") or []:
        if j.side or (j.kind or "").upper() in ("CROSS", "OUTER", "FULL"):
            continue
        if j.args.get("on") is not None:
            conds.append(j.args["on"])
    if select.args.get("where") is not None:
        conds.append(select.args["where"].this)
    pairs = []
    for cond in conds:
        for part in cond.flatten() if isinstance(cond, exp.And) else [cond]:
            if isinstance(part, exp.Paren):
                part = part.unnest()
            if isinstance(part, exp.EQ) and isinstance(part.this, exp.Column) and isinstance(
                    part.expression, exp.Column) and part.this.table and part.expression.table:
                pairs.append(((part.this.table.lower(), part.this.name.lower()),
                              (part.expression.table.lower(), part.expression.name.lower())))
    return pairs


def _equated(candidates: list[tuple[str, str]], pairs) -> bool:
    parent: dict = {}

    def find(x):
        while parent.get(x, x) != x:
            x = parent[x]
        return x

    for a, b in pairs:
        parent[find(a)] = find(b)
    roots = {find(c) for c in candidates}
    return len(roots) == 1


def ambiguities(tree: exp.Expression | None, catalog) -> list[dict]:
    """Each ambiguous unqualified column of ``tree``: select (the node), name,
    candidates (alias, column) in FROM order, exact (the candidates are equated)."""
    if tree is None:
        return []
    out = []
    for select in tree.find_all(exp.Select):
        sources = None
        seen: set[str] = set()
        for col in select.find_all(exp.Column):
            if col.table or isinstance(col.this, exp.Star) or col.find_ancestor(exp.Select) is not select:
                continue
            name = col.name.lower()
            if name in seen:
                continue
            seen.add(name)
            if sources is None:
                sources = _source_columns(select, tree, catalog)
                if sources is None:
                    break
            idents = [ident for ident, names in sources if name in names]
            if len(idents) < 2:
                continue
            candidates = [(ident.name, name) for ident in idents]
            out.append({"select": select, "name": col.name, "candidates": candidates, "identifiers": idents,
                        "exact": _equated([(a.lower(), n) for a, n in candidates], _equalities(select))})
    return out


def ambiguous_column(ctx: CheckContext) -> list[Finding]:
    if ctx.tree is None or (ctx.result is not None and ctx.result.ok):
        return []
    findings = []
    for a in ambiguities(ctx.tree, ctx.catalog):
        labels = [f"{alias}.{a['name']}" for alias, _ in a["candidates"]]
        if a["exact"]:
            message = (f"Column {a['name']!r} is in {' and '.join(labels)}, so PostgreSQL cannot tell which is meant; "
                       f"the join makes them equal, so either gives the same value: qualify it ({labels[0]}).")
        else:
            message = (f"Column {a['name']!r} is in {' and '.join(labels)}, so PostgreSQL cannot tell which is meant "
                       "and they hold different values: qualify it with the table the question means.")
        findings.append(Finding("ambiguous_column", "error", message,
                                {"column": a["name"], "candidates": labels, "equated": a["exact"]}))
    return findings
