"""Checks that need no data: the statement parses and binds to the catalog."""

from __future__ import annotations

from sqlglot import exp

from sqlgenie.inference.critic.context import CheckContext
from sqlgenie.inference.critic.findings import Finding

__all__ = ["parses", "binds"]


def parses(ctx: CheckContext) -> list[Finding]:
    """The statement must be one PostgreSQL statement sqlglot can parse."""
    if ctx.tree is not None:
        return []
    return [Finding("parses", "error", f"The SQL does not parse: {ctx.parse_error or 'empty statement'}.",
                    {"error": ctx.parse_error})]


def binds(ctx: CheckContext) -> list[Finding]:
    """Every table and column must exist in the catalog (CTEs, aliases and derived
    tables resolved through sqlglot's scopes). Sources the catalog does not know
    (functions, tables that are not onboarded) make a scope unknowable: skipped."""
    if ctx.tree is None or not ctx.catalog.tables:
        return []
    from sqlgenie.autocorrect.identifiers import _scope_sources, _select_aliases, _source_columns
    from sqlgenie.autocorrect.resolve import _lookup, base_tables

    findings: list[Finding] = []
    cte_names = {c.alias_or_name.lower() for c in ctx.tree.find_all(exp.CTE)}
    unknown_tables: set[str] = set()
    for table in base_tables(ctx.tree):
        name = table.name
        if not name or isinstance(table.this, exp.Func) or table.catalog or name.lower() in cte_names:
            continue
        schema = table.db or None
        if (schema or "").lower() in ("pg_catalog", "information_schema") or name.lower().startswith("pg_"):
            continue
        if ctx.catalog.table(name, schema) is None:
            unknown_tables.add(name)
            known = sorted(t.name for t in ctx.catalog.tables)
            findings.append(Finding(
                "binds", "error",
                f"There is no table {name!r}; the tables are: {', '.join(known[:30])}.",
                {"kind": "table", "name": name, "known": known[:30]}))
    if unknown_tables:
        return findings
    resolver = ctx.resolver
    if resolver is None or not resolver.ok:
        return findings
    seen: set[str] = set()
    for scope in resolver.scopes:
        try:
            columns = list(scope.columns)
        except Exception:
            continue
        for col in columns:
            if resolver.scope_of(col) is not scope or isinstance(col.this, exp.Star) or not col.name:
                continue
            name = col.name
            if col.table:
                source = None
                current = scope
                while current is not None and source is None:
                    source = _lookup(current.sources, col.table)
                    current = resolver._outer(current) if source is None else current
                if source is None:
                    label = f"{col.table}.{name}"
                    if label not in seen:
                        seen.add(label)
                        findings.append(Finding("binds", "error",
                                                f"{label} uses {col.table!r}, which is no table or alias in its query.",
                                                {"kind": "qualifier", "name": label}))
                    continue
                names = _source_columns(resolver, source)
                if names is None or any(n.lower() == name.lower() for n in names):
                    continue
                label = f"{col.table}.{name}"
                if label not in seen:
                    seen.add(label)
                    findings.append(Finding("binds", "error",
                                            f"{col.table!r} has no column {name!r}; its columns are: {', '.join(names[:30])}.",
                                            {"kind": "column", "name": label, "known": list(names[:30])}))
                continue
            if name.lower() in _select_aliases(scope):
                continue
            sources = _scope_sources(resolver, scope)
            if not sources:
                continue
            per_source = [_source_columns(resolver, s) for _, s in sources]
            if any(n is None for n in per_source):
                continue
            if any(n.lower() == name.lower() for names in per_source for n in names or []):
                continue
            if name not in seen:
                seen.add(name)
                pool = sorted({n for names in per_source for n in names or []})
                findings.append(Finding("binds", "error",
                                        f"No table in scope has a column {name!r}; available: {', '.join(pool[:30])}.",
                                        {"kind": "column", "name": name, "known": pool[:30]}))
    return findings
