"""Running the checks on one statement: :func:`run_checks` (pure apart from probes)."""

from __future__ import annotations

from typing import Any, Iterable, Sequence

from sqlglot import exp

from sqlgenie.catalog import Catalog
from sqlgenie.inference.critic.context import CheckContext, normalize_linked_values
from sqlgenie.inference.critic.findings import ExecutionResult, Finding

__all__ = ["build_context", "execute", "run_checks"]


def _parse(sql: str | exp.Expression) -> tuple[str, exp.Expression | None, str | None]:
    if isinstance(sql, exp.Expression):
        return sql.sql(dialect="postgres"), sql, None
    from sqlgenie.autocorrect.base import parse_sql
    from sqlgenie.errors import SqlGenieError

    try:
        return sql, parse_sql(sql), None
    except SqlGenieError as exc:
        return sql, None, exc.message


def _as_result(result: Any) -> ExecutionResult | None:
    """Accept an ExecutionResult, a QueryResult / RunOutcome-like object, or an exception."""
    if result is None or isinstance(result, ExecutionResult):
        return result
    if isinstance(result, BaseException):
        return ExecutionResult(error=result)
    return ExecutionResult(list(getattr(result, "columns", []) or []), list(getattr(result, "rows", []) or []),
                           getattr(result, "error", None), bool(getattr(result, "truncated", False)))


def execute(executor: Any, sql: str, *, search_path: Sequence[str] | None = None,
            row_cap: int | None = None) -> ExecutionResult:
    """Run ``sql`` through the safe executor; errors come back in the result."""
    from sqlgenie.errors import SqlGenieError

    path = None if getattr(executor, "search_path", None) else search_path
    try:
        res = executor.run(sql, search_path=path, row_cap=row_cap)
    except SqlGenieError as exc:
        return ExecutionResult(error=exc)
    return ExecutionResult(res.columns, res.rows, None, res.truncated)


def build_context(sql: str | exp.Expression, *, question: str, catalog: Catalog, executor: Any = None,
                  matcher: Any = None, linked_values: Any = None, join_graph: Any = None, result: Any = None,
                  search_path: Sequence[str] | None = None) -> CheckContext:
    text, tree, error = _parse(sql)
    return CheckContext(sql=text, question=question or "", catalog=catalog, tree=tree, parse_error=error,
                        result=_as_result(result), executor=executor, matcher=matcher,
                        linked_values=normalize_linked_values(linked_values), join_graph=join_graph,
                        search_path=search_path)


def run_checks(
    sql: str | exp.Expression,
    *,
    question: str,
    catalog: Catalog,
    executor: Any = None,
    linked_values: Any = None,
    result: Any = None,
    matcher: Any = None,
    join_graph: Any = None,
    search_path: Sequence[str] | None = None,
    execute_sql: bool = False,
    checks: Iterable[Any] | None = None,
) -> list[Finding]:
    """Every check's findings on ``sql`` (text or sqlglot tree, PostgreSQL dialect).

    ``result`` is the statement's execution outcome when the caller has it (an
    :class:`ExecutionResult`, a ``QueryResult``, an eval ``RunOutcome`` or the
    exception it raised); with ``execute_sql`` and an ``executor`` the statement is
    run here instead. ``executor`` also serves the checks' probes (small queries the
    critic builds, e.g. whether a filter value occurs); without it those checks fall
    back to the value cache (``matcher``) or stay silent. No check ever changes
    the SQL."""
    from sqlgenie.inference.critic.checks import CHECKS

    ctx = build_context(sql, question=question, catalog=catalog, executor=executor, matcher=matcher,
                        linked_values=linked_values, join_graph=join_graph, result=result, search_path=search_path)
    if ctx.result is None and execute_sql and executor is not None and ctx.tree is not None:
        ctx.result = execute(executor, ctx.sql, search_path=ctx.search_path or tuple(catalog.search_path))
    return check_context(ctx, checks)


def check_context(ctx: CheckContext, checks: Iterable[Any] | None = None) -> list[Finding]:
    from sqlgenie.inference.critic.checks import CHECKS

    findings: list[Finding] = []
    for check in checks if checks is not None else CHECKS:
        if ctx.tree is None and check.__name__ != "parses":
            continue
        findings.extend(check(ctx))
    return findings
