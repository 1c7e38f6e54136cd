"""What the critic reports: :class:`Finding` (one problem a check found) and
:class:`CriticReport` (the SQL after exact repairs, every finding, the rows)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

Severity = Literal["error", "warning"]


@dataclass
class Finding:
    """One problem found by one check.

    ``check`` is the check's name (see :data:`sqlgenie.inference.critic.checks.CHECKS`),
    ``severity`` ``error`` (the SQL is wrong or cannot run) or ``warning`` (likely
    wrong: the generator should look again), ``message`` is for a person,
    ``evidence`` holds what the check saw (values, rows, columns) for a prompt or a
    test. ``repaired`` is True when an exact repair removed the problem (the
    report's SQL no longer has it)."""

    check: str
    severity: Severity
    message: str
    evidence: dict[str, Any] = field(default_factory=dict)
    repaired: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"check": self.check, "severity": self.severity, "message": self.message,
                "evidence": self.evidence, "repaired": self.repaired}


@dataclass
class ExecutionResult:
    """The outcome of running a statement: rows or the error it raised."""

    columns: list[str] = field(default_factory=list)
    rows: list[tuple] = field(default_factory=list)
    error: BaseException | None = None
    truncated: bool = False

    @property
    def ok(self) -> bool:
        return self.error is None

    def error_text(self) -> str | None:
        if self.error is None:
            return None
        return getattr(self.error, "message", None) or str(self.error)


@dataclass
class CriticReport:
    """The critic's verdict on one statement.

    ``sql`` is the statement after exact repairs (``original_sql`` before them),
    ``findings`` every finding (those an exact repair removed have ``repaired``),
    ``repairs`` the rewrites made (corrector, before, after, reason), ``columns`` /
    ``rows`` the result of ``sql`` when it was executed."""

    sql: str
    original_sql: str
    findings: list[Finding] = field(default_factory=list)
    repairs: list[dict[str, str]] = field(default_factory=list)
    columns: list[str] = field(default_factory=list)
    rows: list[tuple] = field(default_factory=list)
    executed: bool = False
    error: str | None = None  # execution error of ``sql`` (None when it ran or was not run)

    @property
    def repaired(self) -> bool:
        return bool(self.repairs)

    @property
    def open_findings(self) -> list[Finding]:
        """Findings still true of ``sql`` (what goes back to the generator)."""
        return [f for f in self.findings if not f.repaired]

    @property
    def ok(self) -> bool:
        """No error-severity finding left on ``sql``."""
        return not any(f.severity == "error" for f in self.open_findings)

    def to_dict(self, *, max_rows: int | None = 20) -> dict[str, Any]:
        rows = self.rows if max_rows is None else self.rows[:max_rows]
        return {
            "sql": self.sql, "original_sql": self.original_sql, "ok": self.ok, "repaired": self.repaired,
            "findings": [f.to_dict() for f in self.findings], "repairs": self.repairs,
            "columns": self.columns, "rows": [list(r) for r in rows], "row_count": len(self.rows),
            "executed": self.executed, "error": self.error,
        }
