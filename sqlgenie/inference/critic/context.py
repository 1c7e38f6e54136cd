"""What every check sees: :class:`CheckContext`.

Built once per statement by :func:`sqlgenie.inference.critic.run_checks`: the SQL
text, its sqlglot tree (PostgreSQL dialect; ``None`` when it does not parse), the
question, the catalog, the execution result when there is one, and the optional
helpers (safe executor for probes, value matcher, linked values, join graph). The
column resolver (:class:`sqlgenie.autocorrect.resolve.Resolver`) is built lazily
and shared by the checks.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Sequence

from sqlglot import exp

from sqlgenie.catalog import Catalog
from sqlgenie.inference.critic.findings import ExecutionResult

__all__ = ["CheckContext", "normalize_linked_values"]


def normalize_linked_values(linked: Any) -> dict[str, list[str]]:
    """Linked values in any of the shapes callers have -> ``{"schema.table.column"
    (lower case): [values]}``.

    Accepted: a mapping ``{column key: [values] | value}``; an iterable of dicts with
    ``schema``/``table``/``column``/``value`` (or ``key``/``column_key``); or objects with
    those attributes (value linking's results)."""
    out: dict[str, list[str]] = {}
    if not linked:
        return out

    def add(key: str | None, value: Any) -> None:
        if not key or value is None:
            return
        values = value if isinstance(value, (list, tuple, set)) else [value]
        bucket = out.setdefault(key.lower(), [])
        for v in values:
            if v is not None and str(v) not in bucket:
                bucket.append(str(v))

    if isinstance(linked, Mapping):
        for key, value in linked.items():
            add(str(key), value)
        return out
    for item in linked:
        get = item.get if isinstance(item, Mapping) else (lambda k, _i=item: getattr(_i, k, None))
        key = get("key") or get("column_key")
        if not key:
            parts = [get("schema"), get("table"), get("column")]
            if parts[1] and parts[2]:
                key = ".".join(str(p) for p in parts if p)
        add(key, get("value") if get("value") is not None else get("values"))
    return out


@dataclass
class CheckContext:
    sql: str
    question: str
    catalog: Catalog
    tree: exp.Expression | None = None
    parse_error: str | None = None
    result: ExecutionResult | None = None
    executor: Any = None  # SafeExecutor: probes only, never the statement itself
    matcher: Any = None  # ValueMatcher (value caches)
    linked_values: dict[str, list[str]] = field(default_factory=dict)
    join_graph: Any = None
    search_path: Sequence[str] | None = None
    _resolver: Any = None

    @property
    def resolver(self):
        """The shared column resolver (None when the statement does not parse)."""
        if self._resolver is None and self.tree is not None:
            from sqlgenie.autocorrect.resolve import Resolver

            self._resolver = Resolver(self.tree, self.catalog)
        return self._resolver

    def probe(self, sql: str, *, row_cap: int = 2) -> ExecutionResult | None:
        """Run a probe statement the critic built (sqlglot, literals as literals)
        through the safe executor; None when there is no executor."""
        if self.executor is None:
            return None
        from sqlgenie.errors import SqlGenieError

        try:
            res = self.executor.run(sql, row_cap=row_cap, search_path=self._path())
        except SqlGenieError as exc:
            return ExecutionResult(error=exc)
        return ExecutionResult(res.columns, res.rows, None, res.truncated)

    def _path(self) -> Sequence[str] | None:
        if getattr(self.executor, "search_path", None):
            return None  # the executor's own search path
        return self.search_path if self.search_path is not None else tuple(self.catalog.search_path)

    def linked_for(self, key: str) -> list[str]:
        return self.linked_values.get(key.lower(), [])


def outer_select(tree: exp.Expression) -> exp.Select | None:
    """The outermost SELECT of a statement (None for set operations and others)."""
    node = tree
    while isinstance(node, exp.Subquery):
        node = node.this
    return node if isinstance(node, exp.Select) else None


def iter_selects(tree: exp.Expression) -> Iterable[exp.Select]:
    return tree.find_all(exp.Select)
