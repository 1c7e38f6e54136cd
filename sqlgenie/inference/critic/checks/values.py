"""An empty result where a filter value does not occur in the data.

An empty result alone is no evidence (many right answers are empty). When the
result is empty AND a filter compares a column with a value that the column never
holds (``=``, ``IN``, ``LIKE``, ``ILIKE``; checked with a probe through the safe
executor, or against the value cache without one), the filter is the likely
cause: the finding names the value, the column, and the values it should use (the
value corrector's close cached values and the linked values of that column).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from sqlglot import exp

from sqlgenie.autocorrect.values import like_core
from sqlgenie.inference.critic.context import CheckContext
from sqlgenie.inference.critic.findings import Finding

__all__ = ["FilterSite", "empty_result_value", "filter_sites"]


@dataclass
class FilterSite:
    node: exp.Expression  # the comparison
    column: exp.Column
    ref: object  # ColumnRef
    value: exp.Expression  # the compared constant
    kind: str  # eq | like | ilike


def _constant(node: exp.Expression) -> bool:
    return not any(isinstance(n, (exp.Column, exp.Subquery, exp.Select, exp.Star)) for n in node.walk())


def _literal_text(node: exp.Expression) -> str | None:
    while isinstance(node, (exp.Cast, exp.Paren)):
        node = node.this
    if isinstance(node, exp.Literal):
        return node.this
    return None


def filter_sites(ctx: CheckContext) -> list[FilterSite]:
    """Positive filters (not under NOT) of a resolved base column with a constant."""
    resolver = ctx.resolver
    if resolver is None or not resolver.ok:
        return []
    sites: list[FilterSite] = []
    for node in ctx.tree.find_all(exp.EQ, exp.In, exp.Like, exp.ILike):
        if isinstance(node.parent, exp.Not) or node.args.get("negate") or node.find_ancestor(exp.Not):
            continue
        pairs: list[tuple[exp.Column, exp.Expression]] = []
        if isinstance(node, exp.In):
            if node.args.get("query") is not None or not isinstance(node.this, exp.Column):
                continue
            pairs = [(node.this, v) for v in node.expressions if _constant(v)]
            kind = "eq"
        else:
            left, right = node.this, node.expression
            if isinstance(left, exp.Column) and _constant(right):
                pairs = [(left, right)]
            elif isinstance(right, exp.Column) and _constant(left) and isinstance(node, exp.EQ):
                pairs = [(right, left)]
            kind = "eq" if isinstance(node, exp.EQ) else "ilike" if isinstance(node, exp.ILike) else "like"
        for col, value in pairs:
            ref = resolver.resolve(col)
            if ref is None:
                continue
            sites.append(FilterSite(node, col, ref, value, kind))
    return sites


def _probe_sql(site: FilterSite) -> str:
    ref = site.ref
    column = exp.column(exp.to_identifier(ref.column.name, quoted=True))
    table = exp.table_(exp.to_identifier(ref.table.name, quoted=True), db=exp.to_identifier(ref.table.schema, quoted=True))
    if site.kind == "eq":
        cond: exp.Expression = exp.EQ(this=column, expression=site.value.copy())
    elif site.kind == "ilike":
        cond = exp.ILike(this=column, expression=site.value.copy())
    else:
        cond = exp.Like(this=column, expression=site.value.copy())
    return exp.select(exp.Literal.number(1)).from_(table).where(cond).limit(1).sql(dialect="postgres")


def _occurs(ctx: CheckContext, site: FilterSite) -> bool | None:
    """Whether the column holds the value (None: cannot tell)."""
    probe = ctx.probe(_probe_sql(site), row_cap=1)
    if probe is not None:
        return bool(probe.rows) if probe.ok else None
    text = _literal_text(site.value)
    if ctx.matcher is None or text is None or not getattr(site.ref.column, "searchable", False):
        return None
    from sqlgenie.autocorrect.values import ValueRequest

    kind = "eq" if site.kind == "eq" else site.kind
    [m] = ctx.matcher.lookup(site.ref, [ValueRequest(text, kind)])
    if m.cached_count == 0:
        return None
    return bool(m.exact)


def _padded(value: str) -> bool:
    return value != value.strip()


def _occurs_padded(ctx: CheckContext, site: FilterSite) -> bool:
    """Whether the column holds the string only with other surrounding spaces
    (``' APG'`` for ``'APG'``): the literal is as the question wrote it and the data
    is padded. Equality then says "no such value" on purpose or by the data's
    accident; either way it is not a slip a rewrite could fix exactly, so the
    check stays silent (on Spider dev such predictions match the gold 115 of 117 times)."""
    text = _literal_text(site.value)
    if site.kind != "eq" or text is None or not (isinstance(site.value, exp.Literal) and site.value.is_string):
        return False
    ref = site.ref
    column = exp.column(exp.to_identifier(ref.column.name, quoted=True))
    table = exp.table_(exp.to_identifier(ref.table.name, quoted=True), db=exp.to_identifier(ref.table.schema, quoted=True))
    cond = exp.EQ(this=exp.func("btrim", exp.cast(column, "text")), expression=exp.Literal.string(text.strip()))
    probe = ctx.probe(exp.select(exp.Literal.number(1)).from_(table).where(cond).limit(1).sql(dialect="postgres"),
                      row_cap=1)
    return bool(probe is not None and probe.ok and probe.rows)


def suggestions(ctx: CheckContext, site: FilterSite) -> list[str]:
    """Values the filter should probably use: close cached values (a writer's slip:
    case, accents, typos, plural, a dropped word; never a stored value padded with
    spaces, which is the data's oddity, not the writer's), then linked ones."""
    out: list[str] = []
    text = _literal_text(site.value)
    if ctx.matcher is not None and text is not None and getattr(site.ref.column, "searchable", False):
        from sqlgenie.autocorrect.values import ValueRequest

        [m] = ctx.matcher.lookup(site.ref, [ValueRequest(text, site.kind)])
        out += [v for v in m.matches if v not in out and not _padded(v)]
    out += [v for v in ctx.linked_for(site.ref.key) if v not in out]
    return out


def _from_question(ctx: CheckContext, site: FilterSite) -> bool:
    """Whether the compared text is the question's own words (case aside): the user
    asked for exactly that value, so its absence may be the honest answer."""
    text = _literal_text(site.value)
    if text is None:
        return False
    core = like_core(text) if site.kind in ("like", "ilike") else text.strip()
    if not core:
        return False
    return re.search(r"(?<!\w)" + re.escape(core.lower()) + r"(?!\w)", ctx.question.lower()) is not None


_MAX_OTHER_COLUMNS = 60


def _other_columns(ctx: CheckContext, site: FilterSite) -> list[str]:
    """Text columns of the same schema (other than the filtered one) that hold the
    value: the filter is on the wrong column. Only string values (numbers occur in
    many columns by chance); at most :data:`_MAX_OTHER_COLUMNS` probes."""
    if not (isinstance(site.value, exp.Literal) and site.value.is_string) or ctx.executor is None:
        return []
    schema = site.ref.table.schema
    hits: list[str] = []
    probes = 0
    for table in ctx.catalog.tables:
        if table.schema != schema:
            continue
        for col in table.columns:
            if col.family != "text" or (table.name, col.name) == (site.ref.table.name, site.ref.column.name):
                continue
            probes += 1
            if probes > _MAX_OTHER_COLUMNS:
                return hits
            other = FilterSite(site.node, site.column, _Ref(table, col), site.value, site.kind)
            if _occurs(ctx, other):
                hits.append(f"{table.name}.{col.name}")
                if len(hits) >= 3:
                    return hits
    return hits


class _Ref:
    """A (table, column) pair shaped like :class:`~sqlgenie.autocorrect.resolve.ColumnRef`."""

    def __init__(self, table, column) -> None:
        self.table, self.column = table, column

    @property
    def key(self) -> str:
        return f"{self.table.schema}.{self.table.name}.{self.column.name}"


def empty_result_value(ctx: CheckContext) -> list[Finding]:
    """See the module doc. A value absent from its column is reported when the
    column holds a close spelling of it (a slip), when the value is not the
    question's own words (the generator made it up), or when it is the question's
    but another column holds it (the filter is on the wrong column). A value the
    question states that no column holds is left alone: the empty result may be
    the honest answer."""
    if ctx.result is None or not ctx.result.ok or ctx.result.rows or ctx.tree is None:
        return []
    findings = []
    seen: set[tuple[str, str]] = set()
    for site in filter_sites(ctx):
        value_sql = site.value.sql(dialect="postgres")
        key = (site.ref.key, value_sql)
        if key in seen:
            continue
        seen.add(key)
        if _occurs(ctx, site) is not False or _occurs_padded(ctx, site):
            continue
        use = suggestions(ctx, site)
        elsewhere: list[str] = []
        if not use and _from_question(ctx, site):
            elsewhere = _other_columns(ctx, site)
            if not elsewhere:
                continue
        op = {"eq": "=", "like": "LIKE", "ilike": "ILIKE"}[site.kind]
        message = f"The result is empty and {site.ref.table.name}.{site.ref.column.name} never {op} {value_sql}"
        if use:
            message += f"; values it holds that look meant: {', '.join(repr(v) for v in use[:5])}."
        elif elsewhere:
            message += f"; the value is in {', '.join(elsewhere)}: filter that column instead."
        else:
            message += "; the question does not name this value: check it against the data."
        findings.append(Finding("empty_result_value", "warning", message,
                                {"column": site.ref.key, "value": value_sql, "operator": op, "suggestions": use[:10],
                                 "found_in": elsewhere}))
    return findings
