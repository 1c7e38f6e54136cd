"""What the match route's refusal modules share (``precision``'s successors: ``sides``,
``counterparts``, ``unasked_parts``, ``deeper``): a refusal is a sentence, its
``reason_code`` is found by a phrase of that sentence, and a module's rules run lazily
until the first one finds a reason."""

from __future__ import annotations

from typing import Any, Iterable, Mapping

__all__ = ["code_of", "refuse_first", "tree_to_read"]


def code_of(reason: str, codes: Mapping[str, str]) -> str | None:
    """The ``reason_code`` of ``reason``: the code of the first phrase of ``codes`` it contains."""
    for phrase, code in codes.items():
        if phrase in reason:
            return code
    return None


def refuse_first(adapted: Any, found: Iterable[tuple[str, list[str]]]) -> Any:
    """Refuse ``adapted`` (a verified adaptation, changed in place) with the reasons of the first
    rule of ``found`` (``(rule, reasons)``, lazily) that has any. Returns ``adapted``."""
    if adapted is None or not adapted.ok or adapted.tree is None:
        return adapted
    for _rule, reasons in found:
        if reasons:
            return adapted.refuse(reasons)
    return adapted


def tree_to_read(adapted: Any, example_masked: str, new_masked: str) -> Any:
    """The adapted query's tree for a module's rules to read, or None when there is nothing to read: the two
    masked wordings are the same (the same wording asks the same query) or there is no tree."""
    if example_masked.strip().lower() == new_masked.strip().lower():
        return None
    return adapted.tree
