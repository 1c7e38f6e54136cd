"""The statement must run on PostgreSQL (through the safe executor only)."""

from __future__ import annotations

from sqlgenie.inference.critic.context import CheckContext
from sqlgenie.inference.critic.findings import Finding

__all__ = ["executes"]


def executes(ctx: CheckContext) -> list[Finding]:
    """An execution error is always a finding (the result is what the user asked for)."""
    if ctx.result is None or ctx.result.ok:
        return []
    error = ctx.result.error
    text = ctx.result.error_text() or "unknown error"
    return [Finding("executes", "error", f"PostgreSQL rejected the query: {text}",
                    {"error": text, "error_type": type(error).__name__})]
