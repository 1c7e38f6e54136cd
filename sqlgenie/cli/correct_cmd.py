"""`sqlgenie correct`: placeholder registration point; the autocorrector owner fills it in."""

from __future__ import annotations


def correct(query: str) -> None:
    """Run the deterministic autocorrectors over a SQL statement."""
    raise NotImplementedError("sqlgenie correct is being built")
