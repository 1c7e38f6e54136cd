"""Typed errors of the autocorrectors (all :class:`~sqlgenie.errors.SqlGenieError`)."""

from __future__ import annotations

from sqlgenie.errors import SQLError, UnknownIdentifierError


class SafeEvalError(SQLError):
    """A ``<python>`` expression was rejected or could not be evaluated.

    The safe evaluator raises nothing else, whatever its input.
    """

    default_hint = (
        "Only literals, arithmetic, comparisons and datetime/date/timedelta/relativedelta, "
        "now()/today(), strftime, abs, round, min and max are allowed inside <python>...</python>."
    )


class PythonSpanError(SQLError):
    """A ``<python>`` span is malformed (unclosed, nested, empty)."""

    default_hint = "Write each computed value as <python>expression</python>, e.g. <python>89.8*16/100</python>."


class AmbiguousIdentifierError(UnknownIdentifierError):
    """An unknown table or column name is close to several catalog names."""

    default_hint = "Name the table or column exactly; `sqlgenie tables` lists the onboarded tables."

    def __init__(self, message: str, *, identifier: str, kind: str, candidates: list[str], sql: str | None = None,
                 hint: str | None = None) -> None:
        super().__init__(message, sql=sql, hint=hint)
        self.identifier = identifier
        self.kind = kind
        self.candidates = list(candidates)

    def to_dict(self) -> dict:
        out = super().to_dict()
        out.update({"identifier": self.identifier, "kind": self.kind, "candidates": self.candidates})
        return out


class DummyTestError(SQLError):
    """The SQL failed on small sampled copies of its tables (the target was not touched)."""

    default_hint = "Fix the SQL (the error above comes from PostgreSQL running it on sampled copies)."
