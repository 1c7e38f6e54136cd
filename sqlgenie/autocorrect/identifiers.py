"""Identifier repair: unknown table and column names with one clear closest match.

Tables first: a table that is not in the catalog (and is not a CTE, a function or
a system table) is compared with the onboarded tables of its schema (or of the
search path, else all) with rapidfuzz ``ratio`` on lower-cased names. When the best
score reaches ``identifier_cutoff`` and beats the runner-up by ``identifier_margin``
the name is replaced (column qualifiers that used the old name follow). Then
columns, on a fresh scope analysis: a qualified column whose table lacks it, or an
unqualified column that none of the scope's sources (nor an outer scope's, for
correlated subqueries) provides, is compared with the columns those sources do
have. Output-column aliases (``ORDER BY total``) are never "repaired", and a scope
that reads a source whose columns are unknown (a table that is not onboarded, a
set-returning function) is left alone.

Several close candidates raise :class:`AmbiguousIdentifierError` listing them (the
unique repairs made so far ride along on the error as ``partial``); names with no
close candidate are left for PostgreSQL (or the dummy test) to report.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rapidfuzz import fuzz
from sqlglot import exp
from sqlglot.optimizer.scope import Scope

from sqlgenie.autocorrect.base import Change, to_sql
from sqlgenie.autocorrect.errors import AmbiguousIdentifierError
from sqlgenie.autocorrect.resolve import Resolver, _lookup, base_tables
from sqlgenie.autocorrect.settings import AutocorrectSettings
from sqlgenie.catalog import Catalog, TableInfo

__all__ = ["closest", "repair_identifiers"]

NAME = "identifiers"
_PLAIN = re.compile(r"^[a-z_][a-z0-9_$]*$")
_SYSTEM_SCHEMAS = {"pg_catalog", "information_schema", "pg_toast"}


@dataclass(frozen=True)
class _Ambiguity:
    kind: str
    name: str
    candidates: list[str]


def _ident(name: str) -> exp.Identifier:
    return exp.to_identifier(name, quoted=not _PLAIN.match(name))


def closest(name: str, candidates: list[str], settings: AutocorrectSettings) -> tuple[str | None, list[str]]:
    """``(match, [])`` for one clear match, ``(None, close)`` when several are close,
    ``(None, [])`` when none is."""
    target = name.lower()
    scored: dict[str, float] = {}
    for cand in candidates:
        score = fuzz.ratio(target, cand.lower())
        if score >= settings.identifier_cutoff:
            scored[cand] = max(score, scored.get(cand, 0.0))
    if not scored:
        return None, []
    ranked = sorted(scored.items(), key=lambda kv: (-kv[1], kv[0]))
    best_name, best = ranked[0]
    close = [n for n, s in ranked if s >= best - settings.identifier_margin]
    if len(close) == 1:
        return best_name, []
    return None, close


def _table_candidates(catalog: Catalog, schema: str | None) -> list[TableInfo]:
    if schema:
        return [t for t in catalog.tables if t.schema.lower() == schema.lower()]
    on_path = [t for t in catalog.tables if t.schema.lower() in {s.lower() for s in catalog.search_path}]
    return on_path or list(catalog.tables)


def _repair_tables(tree: exp.Expression, catalog: Catalog, settings: AutocorrectSettings,
                   changes: list[Change], problems: list[_Ambiguity]) -> None:
    aliases = {t.alias.lower() for t in tree.find_all(exp.Table) if t.alias}
    cte_names = {c.alias_or_name.lower() for c in tree.find_all(exp.CTE)}
    for table in base_tables(tree):
        name, schema = table.name, table.db or None
        if not name or isinstance(table.this, exp.Func) or table.catalog:
            continue
        if (schema or "").lower() in _SYSTEM_SCHEMAS or name.lower().startswith("pg_") or name.lower() in cte_names:
            continue
        if catalog.table(name, schema) is not None:
            continue
        pool = _table_candidates(catalog, schema)
        match, close = closest(name, [t.name for t in pool], settings)
        if match is None:
            if close:
                problems.append(_Ambiguity("table", name, [f"{t.schema}.{t.name}" for t in pool if t.name in close]))
            continue
        before = to_sql(table)
        table.set("this", _ident(match))
        if not table.alias and name.lower() not in aliases:
            for col in tree.find_all(exp.Column):
                if col.table and col.table.lower() == name.lower() and not col.args.get("db"):
                    col.set("table", _ident(match))
        changes.append(Change(NAME, before, to_sql(table), f"no table {name!r}; closest onboarded table is {match!r}"))


def _outer(scope: Scope) -> Scope | None:
    return Resolver._outer(scope)


def _source_columns(resolver: Resolver, source: exp.Table | Scope) -> list[str] | None:
    if isinstance(source, exp.Table):
        if isinstance(source.this, exp.Func):
            return None
        info = resolver.table_info(source)
        return [c.name for c in info.columns] if info is not None else None
    return resolver._output_names(source, 0)


def _scope_sources(resolver: Resolver, scope: Scope) -> list[tuple[str, exp.Table | Scope]] | None:
    """(qualifier, source) of ``scope`` and of the scopes a correlated reference may reach."""
    out: list[tuple[str, exp.Table | Scope]] = []
    current: Scope | None = scope
    while current is not None:
        try:
            selected = current.selected_sources
        except Exception:  # OptimizeError (duplicate alias) and the like
            return None
        out.extend((name, source) for name, (_, source) in selected.items())
        current = _outer(current)
    return out


def _select_aliases(scope: Scope) -> set[str]:
    expr = scope.expression
    if isinstance(expr, exp.Select):
        return {p.alias.lower() for p in expr.expressions if isinstance(p, exp.Alias) and p.alias}
    return set()


def _repair_columns(tree: exp.Expression, catalog: Catalog, settings: AutocorrectSettings,
                    changes: list[Change], problems: list[_Ambiguity]) -> None:
    resolver = Resolver(tree, catalog)
    if not resolver.ok:
        return
    done: set[int] = set()
    for scope in resolver.scopes:
        try:
            columns = list(scope.columns)
        except Exception:
            continue
        for col in columns:
            if id(col) in done or resolver.scope_of(col) is not scope or isinstance(col.this, exp.Star):
                continue
            done.add(id(col))
            name = col.name
            if not name:
                continue
            if col.table:
                source = None
                current: Scope | None = scope
                while current is not None and source is None:
                    source = _lookup(current.sources, col.table)
                    current = _outer(current) if source is None else current
                if source is None:
                    continue
                names = _source_columns(resolver, source)
                if names is None or any(n == name or n.lower() == name.lower() for n in names):
                    continue
                match, close = closest(name, names, settings)
                if match is None:
                    if close:
                        problems.append(_Ambiguity("column", f"{col.table}.{name}", [f"{col.table}.{c}" for c in close]))
                    continue
                before = to_sql(col)
                col.set("this", _ident(match))
                changes.append(Change(NAME, before, to_sql(col),
                                      f"{col.table!r} has no column {name!r}; closest is {match!r}"))
                continue
            if name.lower() in _select_aliases(scope):
                continue
            sources = _scope_sources(resolver, scope)
            if sources is None:
                continue
            per_source = [(q, _source_columns(resolver, s)) for q, s in sources]
            if any(names is None for _, names in per_source):
                continue
            if any(n.lower() == name.lower() for _, names in per_source for n in names or []):
                continue
            pool = [n for _, names in per_source for n in names or []]
            match, close = closest(name, list(dict.fromkeys(pool)), settings)
            if match is None:
                if close:
                    problems.append(_Ambiguity("column", name, close))
                continue
            owners = [q for q, names in per_source if any(n == match for n in names or [])]
            if len(owners) > 1:
                problems.append(_Ambiguity("column", name, [f"{q}.{match}" for q in owners]))
                continue
            before = to_sql(col)
            col.set("this", _ident(match))
            changes.append(Change(NAME, before, to_sql(col), f"no column {name!r} in scope; closest is {match!r}"))


def repair_identifiers(
    tree: exp.Expression, catalog: Catalog, settings: AutocorrectSettings | None = None, *, copy: bool = True
) -> tuple[exp.Expression, list[Change]]:
    """Replace unknown table/column names by their one clear closest catalog match.

    Pure (``tree`` is copied). Raises :class:`AmbiguousIdentifierError` when a name
    has several close candidates; its ``partial`` attribute holds ``(tree, changes)``
    with the unique repairs. ``copy=False`` rewrites ``tree`` in place (the chain)."""
    settings = settings or AutocorrectSettings()
    if copy:
        tree = tree.copy()
    if not catalog.tables:
        return tree, []
    changes: list[Change] = []
    problems: list[_Ambiguity] = []
    _repair_tables(tree, catalog, settings, changes, problems)
    _repair_columns(tree, catalog, settings, changes, problems)
    if problems:
        first = problems[0]
        text = "; ".join(f"{p.kind} {p.name!r} could be {', '.join(p.candidates)}" for p in problems)
        error = AmbiguousIdentifierError(
            f"Unknown identifier with several close matches: {text}.",
            identifier=first.name, kind=first.kind, candidates=first.candidates, sql=to_sql(tree),
        )
        error.partial = (tree, changes)  # type: ignore[attr-defined]
        error.ambiguities = [(p.kind, p.name, p.candidates) for p in problems]  # type: ignore[attr-defined]
        raise error
    return tree, changes
