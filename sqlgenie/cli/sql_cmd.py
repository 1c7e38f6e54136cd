"""`sqlgenie sql`: placeholder registration point; the safe executor's owner fills it in."""

from __future__ import annotations


def sql(query: str) -> None:
    """Run your own read-only SQL through the safe executor."""
    raise NotImplementedError("sqlgenie sql is being built")
