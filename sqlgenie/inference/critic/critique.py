"""The deterministic critic: run the checks, apply exact repairs, report.

    report = critique(sql, question=q, catalog=catalog, executor=executor, matcher=matcher)
    report.sql, report.ok, report.findings, report.rows

1. The statement is parsed and (``execute=True``) run through the safe executor.
2. Every check in :data:`~sqlgenie.inference.critic.checks.CHECKS` reads it.
3. Each repair in :data:`~sqlgenie.inference.critic.repairs.REPAIRS` whose finding
   is present proposes a rewrite; the rewrite is run and kept only when it runs
   without error, leaves fewer error findings and, for a value repair, returns rows
   (an empty result is what the repair was for). Repairs repeat while one is kept
   (at most ``max_rounds``).
4. The report holds the final SQL, its result, its findings, and the original's
   findings that a repair removed (``repaired=True``).
"""

from __future__ import annotations

from typing import Any, Sequence

from sqlgenie.catalog import Catalog
from sqlgenie.inference.critic.checks_runner import build_context, check_context, execute as run_sql
from sqlgenie.inference.critic.context import CheckContext
from sqlgenie.inference.critic.findings import CriticReport, Finding

__all__ = ["critique"]


def _errors(findings: list[Finding]) -> int:
    return sum(1 for f in findings if f.severity == "error")


def _better(old: CheckContext, old_findings: list[Finding], new: CheckContext, new_findings: list[Finding],
            repair_name: str) -> bool:
    if new.tree is None:
        return False
    if new.result is not None and not new.result.ok:
        return False
    if _errors(new_findings) > _errors(old_findings):
        return False
    if repair_name == "filter_values":
        return new.result is not None and bool(new.result.rows)
    if old.result is None or new.result is None:
        return _errors(new_findings) < _errors(old_findings)
    return True


def critique(
    sql: str,
    *,
    question: str,
    catalog: Catalog,
    executor: Any,
    matcher: Any = None,
    linked_values: Any = None,
    join_graph: Any = None,
    execute: bool = True,
    search_path: Sequence[str] | None = None,
    settings: Any = None,
    row_cap: int | None = None,
    max_rounds: int = 3,
) -> CriticReport:
    """Check ``sql`` (PostgreSQL dialect), repair what is exactly repairable, report.

    ``executor`` is a :class:`~sqlgenie.executor.SafeExecutor` (the only way SQL
    reaches the database; ``None`` with ``execute=False`` for static checks only),
    ``matcher`` a value matcher (``PgValueMatcher``) for value suggestions and
    repairs, ``linked_values`` the values linked to the question's words (see
    :func:`~sqlgenie.inference.critic.context.normalize_linked_values`),
    ``settings`` the :class:`~sqlgenie.autocorrect.AutocorrectSettings` of the
    repairs. Never raises for a bad statement: problems are findings."""
    from sqlgenie.inference.critic.repairs import REPAIRS

    path = tuple(search_path) if search_path is not None else tuple(catalog.search_path)
    can_run = execute and executor is not None

    def evaluate(text: str) -> tuple[CheckContext, list[Finding]]:
        ctx = build_context(text, question=question, catalog=catalog, executor=executor, matcher=matcher,
                            linked_values=linked_values, join_graph=join_graph, search_path=path)
        if can_run and ctx.tree is not None:
            ctx.result = run_sql(executor, text, search_path=path, row_cap=row_cap)
        return ctx, check_context(ctx)

    first_ctx, first_findings = evaluate(sql)
    ctx, findings = first_ctx, first_findings
    repairs: list[dict[str, str]] = []
    for _ in range(max_rounds):
        kept = False
        for repair in REPAIRS:
            proposal = repair(ctx, findings, matcher, settings)
            if proposal is None:
                continue
            new_sql, changes = proposal
            if new_sql == ctx.sql:
                continue
            new_ctx, new_findings = evaluate(new_sql)
            if _better(ctx, findings, new_ctx, new_findings, repair.__name__):
                ctx, findings = new_ctx, new_findings
                repairs.extend(changes)
                kept = True
                break
        if not kept:
            break

    final = list(findings)
    if repairs:
        still = {(f.check, f.message) for f in findings}
        for f in first_findings:
            if (f.check, f.message) not in still:
                f.repaired = True
                final.insert(0, f)
    result = ctx.result
    return CriticReport(
        sql=ctx.sql, original_sql=sql, findings=final, repairs=repairs,
        columns=list(result.columns) if result is not None else [],
        rows=list(result.rows) if result is not None else [],
        executed=result is not None,
        error=result.error_text() if result is not None and not result.ok else None,
    )
