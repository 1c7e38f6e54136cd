"""Column resolution: which catalog column does a column reference read?

``p.name`` in ``... FROM (SELECT b.brand_name AS name FROM brands b) p WHERE p.name = 'x'``
reads ``brands.brand_name``. :class:`Resolver` follows table aliases, joins,
derived tables (with column alias lists), CTEs, ``*`` projections, set
operations (when every branch reads the same column) and correlated subqueries,
using sqlglot's scope analysis on the unmodified tree and the :class:`Catalog` for
the columns of base tables. Names compare like PostgreSQL: exact first, then
case-insensitively (unquoted names fold to lower case).

Anything it cannot prove (a table that is not onboarded, a computed projection,
an unqualified name that two sources could provide) resolves to ``None``; the
correctors leave such comparisons alone.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlglot import exp
from sqlglot.errors import OptimizeError, SqlglotError
from sqlglot.optimizer.scope import Scope, traverse_scope

from sqlgenie.catalog import Catalog, ColumnInfo, TableInfo

__all__ = ["ColumnRef", "Resolver", "base_tables"]

_MAX_DEPTH = 32


@dataclass(frozen=True)
class ColumnRef:
    """A base column of an onboarded table."""

    table: TableInfo
    column: ColumnInfo

    @property
    def key(self) -> str:
        return f"{self.table.schema}.{self.table.name}.{self.column.name}"

    @property
    def family(self) -> str:
        return self.column.family


def _lookup(mapping: dict, name: str):
    if name in mapping:
        return mapping[name]
    lowered = name.lower()
    hits = [v for k, v in mapping.items() if isinstance(k, str) and k.lower() == lowered]
    return hits[0] if len(hits) == 1 else None


def _same_name(a: str, b: str) -> bool:
    return a == b or a.lower() == b.lower()


class Resolver:
    """Resolves column nodes of ``tree`` (the very nodes: resolve before replacing them)."""

    def __init__(self, tree: exp.Expression, catalog: Catalog) -> None:
        self.tree = tree
        self.catalog = catalog
        self.scopes: list[Scope] = []
        self._owner: dict[int, Scope] = {}
        self._table_cache: dict[int, TableInfo | None] = {}
        try:
            self.scopes = list(traverse_scope(tree))
        except (SqlglotError, RecursionError, KeyError, ValueError):
            self.scopes = []
        # traverse_scope yields inner scopes first: the first scope that lists a
        # column node owns it (outer scopes also list correlated columns).
        for scope in self.scopes:
            try:
                columns = scope.columns
            except (SqlglotError, KeyError, ValueError):
                continue
            for col in columns:
                self._owner.setdefault(id(col), scope)

    @property
    def ok(self) -> bool:
        return bool(self.scopes)

    # --- public -----------------------------------------------------------------------

    def scope_of(self, column: exp.Column) -> Scope | None:
        return self._owner.get(id(column))

    def resolve(self, column: exp.Column, _depth: int = 0) -> ColumnRef | None:
        """The base catalog column read by ``column``, or None when unsure."""
        if _depth > _MAX_DEPTH or not isinstance(column, exp.Column) or isinstance(column.this, exp.Star):
            return None
        scope = self._owner.get(id(column))
        if scope is None:
            return None
        return self._resolve_name(scope, column.table or None, column.name, _depth + 1)

    def table_info(self, table: exp.Table) -> TableInfo | None:
        """Catalog entry of a table node (None when not onboarded)."""
        key = id(table)
        if key not in self._table_cache:
            name = table.name
            info = self.catalog.table(name, table.db or None) if name else None
            self._table_cache[key] = info
        return self._table_cache[key]

    # --- internals ----------------------------------------------------------------------

    def _selected(self, scope: Scope) -> list[exp.Table | Scope] | None:
        try:
            return [source for _, source in scope.selected_sources.values()]
        except (OptimizeError, SqlglotError, KeyError):
            return None

    @staticmethod
    def _outer(scope: Scope) -> Scope | None:
        """The scope whose sources a correlated reference in ``scope`` may read."""
        if not scope.can_be_correlated:
            return None
        parent = scope.parent
        while parent is not None and isinstance(parent.expression, exp.SetOperation):
            parent = parent.parent
        return parent

    def _resolve_name(self, scope: Scope, qualifier: str | None, name: str, depth: int) -> ColumnRef | None:
        if depth > _MAX_DEPTH:
            return None
        if qualifier:
            source = _lookup(scope.sources, qualifier)
            if source is None:
                outer = self._outer(scope)
                return self._resolve_name(outer, qualifier, name, depth + 1) if outer else None
            return self._from_source(source, name, depth + 1)
        sources = self._selected(scope)
        if sources is None:
            return None
        definite, unknown = [], False
        for source in sources:
            has = self._provides(source, name, depth + 1)
            if has is None:
                unknown = True
            elif has:
                definite.append(source)
        if unknown or len(definite) > 1:
            return None
        if not definite:
            outer = self._outer(scope)
            return self._resolve_name(outer, None, name, depth + 1) if outer else None
        return self._from_source(definite[0], name, depth + 1)

    def _from_source(self, source: exp.Table | Scope, name: str, depth: int) -> ColumnRef | None:
        if isinstance(source, exp.Table):
            info = self.table_info(source)
            if info is None:
                return None
            col = info.column(name)
            return ColumnRef(info, col) if col is not None else None
        return self._output_column(source, name, depth + 1)

    def _provides(self, source: exp.Table | Scope, name: str, depth: int) -> bool | None:
        """Whether ``source`` has an output column ``name`` (None: cannot tell)."""
        if depth > _MAX_DEPTH:
            return None
        if isinstance(source, exp.Table):
            if not source.name or isinstance(source.this, exp.Func):
                return None
            info = self.table_info(source)
            if info is None:
                return None
            return info.column(name) is not None
        names = self._output_names(source, depth + 1)
        if names is None:
            return None
        return any(_same_name(n, name) for n in names)

    def _alias_columns(self, scope: Scope) -> list[str]:
        parent = scope.expression.parent
        if isinstance(parent, exp.Subquery):
            alias = parent.args.get("alias")
            if isinstance(alias, exp.TableAlias):
                return [c.name for c in alias.columns]
        if isinstance(parent, exp.CTE):
            alias = parent.args.get("alias")
            if isinstance(alias, exp.TableAlias):
                return [c.name for c in alias.columns]
        return []

    def _output_names(self, scope: Scope, depth: int) -> list[str] | None:
        if depth > _MAX_DEPTH:
            return None
        expr = scope.expression
        renamed = self._alias_columns(scope)
        if isinstance(expr, exp.SetOperation):
            if not scope.set_operation_scopes:
                return None
            names = self._output_names(scope.set_operation_scopes[0], depth + 1)
            if names is not None and renamed:
                names = renamed + names[len(renamed):]
            return names
        if not isinstance(expr, exp.Select):
            return None
        names: list[str] = []
        for projection in expr.expressions:
            if isinstance(projection, exp.Star) or (
                isinstance(projection, exp.Column) and isinstance(projection.this, exp.Star)
            ):
                sources = self._star_sources(scope, projection)
                if sources is None:
                    return None
                for source in sources:
                    if isinstance(source, exp.Table):
                        info = self.table_info(source)
                        if info is None:
                            return None
                        names.extend(c.name for c in info.columns)
                    else:
                        inner = self._output_names(source, depth + 1)
                        if inner is None:
                            return None
                        names.extend(inner)
            else:
                names.append(projection.alias_or_name)
        if renamed:
            names = renamed + names[len(renamed):]
        return names

    def _star_sources(self, scope: Scope, projection: exp.Expression) -> list[exp.Table | Scope] | None:
        if isinstance(projection, exp.Column) and projection.table:
            source = _lookup(scope.sources, projection.table)
            return [source] if source is not None else None
        return self._selected(scope)

    def _output_column(self, scope: Scope, name: str, depth: int) -> ColumnRef | None:
        if depth > _MAX_DEPTH:
            return None
        expr = scope.expression
        renamed = self._alias_columns(scope)
        if renamed:
            hits = [i for i, n in enumerate(renamed) if _same_name(n, name)]
            if len(hits) != 1:
                return None
            return self._column_at(scope, hits[0], depth + 1)
        if isinstance(expr, exp.SetOperation):
            names = self._output_names(scope, depth + 1)
            if names is None:
                return None
            hits = [i for i, n in enumerate(names) if _same_name(n, name)]
            return self._column_at(scope, hits[0], depth + 1) if len(hits) == 1 else None
        if not isinstance(expr, exp.Select):
            return None
        explicit = [p for p in expr.expressions if not isinstance(p, exp.Star)
                    and not (isinstance(p, exp.Column) and isinstance(p.this, exp.Star))]
        matches = [p for p in explicit if p.alias_or_name == name] or [
            p for p in explicit if p.alias_or_name.lower() == name.lower()
        ]
        if len(matches) == 1:
            inner = matches[0].unalias()
            return self.resolve(inner, depth + 1) if isinstance(inner, exp.Column) else None
        if matches:
            return None
        for projection in expr.expressions:
            if isinstance(projection, exp.Star):
                return self._resolve_name(scope, None, name, depth + 1)
            if isinstance(projection, exp.Column) and isinstance(projection.this, exp.Star):
                ref = self._resolve_name(scope, projection.table, name, depth + 1)
                if ref is not None:
                    return ref
        return None

    def _column_at(self, scope: Scope, index: int, depth: int) -> ColumnRef | None:
        expr = scope.expression
        if isinstance(expr, exp.SetOperation):
            refs = [self._column_at(branch, index, depth + 1) for branch in scope.set_operation_scopes]
            if refs and all(r is not None for r in refs) and len({r.key for r in refs}) == 1:  # type: ignore[union-attr]
                return refs[0]
            return None
        if not isinstance(expr, exp.Select):
            return None
        if any(isinstance(p, exp.Star) or (isinstance(p, exp.Column) and isinstance(p.this, exp.Star))
               for p in expr.expressions):
            names = self._output_names(scope, depth + 1)
            if names is None or index >= len(names):
                return None
            return self._output_column_plain(scope, names[index], depth + 1)
        if index >= len(expr.expressions):
            return None
        inner = expr.expressions[index].unalias()
        return self.resolve(inner, depth + 1) if isinstance(inner, exp.Column) else None

    def _output_column_plain(self, scope: Scope, name: str, depth: int) -> ColumnRef | None:
        """Like :meth:`_output_column` but ignoring the scope's alias column list."""
        expr = scope.expression
        for projection in expr.expressions:
            if isinstance(projection, exp.Star):
                return self._resolve_name(scope, None, name, depth + 1)
            if isinstance(projection, exp.Column) and isinstance(projection.this, exp.Star):
                ref = self._resolve_name(scope, projection.table, name, depth + 1)
                if ref is not None:
                    return ref
            elif _same_name(projection.alias_or_name, name):
                inner = projection.unalias()
                return self.resolve(inner, depth + 1) if isinstance(inner, exp.Column) else None
        return None


def base_tables(tree: exp.Expression) -> list[exp.Table]:
    """Table nodes that name real tables (not CTEs), in source order."""
    out: list[exp.Table] = []
    seen: set[int] = set()
    try:
        scopes = list(traverse_scope(tree))
    except (SqlglotError, RecursionError, KeyError, ValueError):
        scopes = []
    for scope in scopes:
        for source in scope.sources.values():
            if isinstance(source, exp.Table) and id(source) not in seen and not isinstance(source.this, exp.Func):
                seen.add(id(source))
                out.append(source)
    if not scopes:  # fall back to every table node
        out = [t for t in tree.find_all(exp.Table) if not isinstance(t.this, exp.Func)]
    return out

