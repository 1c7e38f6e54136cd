"""A word of the question that the bank writes as constants, on columns the answer never reads.

The bank in scope says how some words are read: on ATIS "on wednesday" (in lower case) is
``date_day.day_number = 23 AND month_number = 4 AND year = 1991`` in nearly every verified example
that says it (:class:`sqlgenie.inference.word_constants.WordConstants`, matchx). The word comparison
of the match route sees no difference between "wednesday" and the example's "WEDNESDAY", which the
bank writes as ``days.day_name = 'WEDNESDAY'``: words are compared in lower case, so "show flights from
BOSTON to DENVER on wednesday morning" was answered with the day name of "show all WEDNESDAY morning
flights from DENVER to BOSTON" (ATIS seed 10, a novel template whose gold compares the date; issue 13,
helper atis10, found when values said in the other roles began to pair by direction).

:func:`unread` lists the question's own words (outside its values, as written in lower case) that the
bank ties to constants (at least ``word_constants.MIN_USES`` uses, ``MIN_SHARE`` of them) when the
adapted SQL reads **none** of the columns the word is tied to: whatever the answer does, it does not
do what the bank's questions that say the word do. A year column is left out (the bank's SQL pins a default
year whatever its question says: advising's ``year = 2016`` would tie "exam" or "semester" to it), and so are
words of fewer than :data:`MIN_LETTERS` letters. A refusal with a sentence and a ``reason_code``.
"""

from __future__ import annotations

from typing import Any

from sqlglot import exp

from sqlgenie.inference.refusals import code_of, refuse_first

__all__ = ["ENABLED", "REASON_CODES", "check_candidate", "reason_code", "unread"]

#: Off: no refusal (A/B measurements).
ENABLED = True

REASON_CODES = {"which the verified examples write as": "unread word"}


def reason_code(reason: str) -> str | None:
    return code_of(reason, REASON_CODES)


#: Shorter words are left alone ("don" of "don 't").
MIN_LETTERS = 4


def _default_year(column: str) -> bool:
    """A year column: the bank's SQL often pins one year whatever its question says (advising's ``year = 2016``,
    ATIS's 1991), so every word would look tied to it (``verify.implied_constants`` leaves it out too)."""
    return column.rsplit(".", 1)[-1].lower().endswith("year")


def _read_columns(tree: exp.Expression) -> set[str]:
    return {c.name.lower() for c in tree.find_all(exp.Column)}


def unread(tree: exp.Expression, masked_text: str, words: Any) -> list[str]:
    """Reasons, one per word of ``masked_text`` the bank ties to constants on columns ``tree`` never reads."""
    if words is None or tree is None:
        return []
    from sqlgenie.inference.word_constants import _content

    read = _read_columns(tree)
    out: list[str] = []
    for word in _content(masked_text):
        if len(word) < MIN_LETTERS:
            continue
        tied = {col: nums for col, nums in words.tied(word).items() if not _default_year(col)}
        if not tied:
            continue
        names = {col.rsplit(".", 1)[-1] for col in tied}
        if names & read:
            continue
        shown = ", ".join(f"{col.rsplit('.', 1)[-1]} {'/'.join(nums)}" for col, nums in sorted(tied.items()))
        out.append(f"your question says “{word}”, which the verified examples write as {shown}; "
                   f"this query reads none of those columns")
    return out


def check_candidate(adapted: Any, masked_text: str, words: Any) -> Any:
    """Refuse a verified adaptation (changed in place) that leaves such a word unread. Returns ``adapted``."""
    if not ENABLED or adapted is None or not adapted.ok or adapted.tree is None:
        return adapted
    return refuse_first(adapted, [("unread word", unread(adapted.tree, masked_text, words))])
