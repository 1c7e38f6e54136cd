"""Issue 13 (atis14c): a number of the question that lands in another role in the adapted SQL than
the question gives it.

The words around a number say what it is: "at / before / after / around 1524", "1700 o'clock",
"8 pm" are times; "flight 417", "flight number 417" a flight number; "an 819 flight" is no flight
number (a flight number follows its noun). The adapted query gives the number a role by the column
it is compared with: a ``*_time`` column is a time, ``flight_number`` a flight number, anything else
(a cost, a date part, a count) neither. When every mention of a number gives it one role and the
query compares it only with a flight number where the question says a time (or "an 819 flight"), or
only with a time where it says a flight number, the example's number was another thing than the
question's ("flight 324" of the example answered for "at 1524"). A time cue before a number the
query compares with any other column is not read: "before 2010" (a year), "less than 1000 dollars"
(a cost) and "other than 627" (a course) share the words of a time.

:data:`ENABLED` switches the rule; :data:`REASON_CODES` gives the ``reason_code``. Hook: one call in
``Asker._adapt`` beside ``head_reading.check_candidate``, under the same veto.
"""

from __future__ import annotations

import re
from typing import Any, Iterator

from sqlglot import exp

from sqlgenie.inference.refusals import code_of, refuse_first

__all__ = ["ENABLED", "REASON_CODES", "check_candidate", "misplaced_numbers", "number_roles", "query_roles",
           "reason_code"]

ENABLED = True

REASON_CODES = {"but the query compares it with": "number_place"}

TIME, FLIGHT, NOT_FLIGHT, OTHER = "time", "flight number", "no flight number", "other"

TIME_BEFORE = {"at", "before", "after", "around", "about", "until", "till", "by", "than"}
TIME_AFTER = {"o'clock", "oclock", "am", "pm", "hours", "a.m.", "p.m."}
FLIGHT_BEFORE = {"flight", "number"}
FLIGHT_NOUNS = {"flight", "flights"}

_WORD = re.compile(r"[a-z0-9.']+")
_COMPARISONS = (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE)


def reason_code(reason: str) -> str | None:
    return code_of(reason, REASON_CODES)


def _role(words: list[str], i: int) -> str | None:
    before = words[i - 1] if i > 0 else ""
    after = words[i + 1] if i + 1 < len(words) else ""
    if after in TIME_AFTER:
        return TIME
    if before in FLIGHT_BEFORE:
        return FLIGHT
    if before in TIME_BEFORE:
        return TIME
    if after in FLIGHT_NOUNS:
        return NOT_FLIGHT
    return None


def number_roles(question: str, number: str) -> set[str | None]:
    """The role every mention of ``number`` (a whole word) in ``question`` is given."""
    words = _WORD.findall(question.lower())
    return {_role(words, i) for i, w in enumerate(words) if w == number}


def _column_role(name: str) -> str:
    if name.endswith("_time"):
        return TIME
    if name == "flight_number":
        return FLIGHT
    return OTHER


def _compared(node: exp.Expression) -> Iterator[tuple[exp.Column, exp.Literal]]:
    for cmp in node.find_all(*_COMPARISONS):
        left, right = cmp.left, cmp.right
        if isinstance(left, exp.Literal) and isinstance(right, exp.Column):
            left, right = right, left
        if isinstance(left, exp.Column) and isinstance(right, exp.Literal):
            yield left, right
    for between in node.find_all(exp.Between):
        if isinstance(between.this, exp.Column):
            for end in (between.args.get("low"), between.args.get("high")):
                if isinstance(end, exp.Literal):
                    yield between.this, end


def query_roles(tree: exp.Expression) -> dict[str, set[str]]:
    """number (as written) -> the roles of the columns the query compares it with."""
    roles: dict[str, set[str]] = {}
    for column, literal in _compared(tree):
        text = str(literal.this).strip()
        if text.isdigit():
            roles.setdefault(text, set()).add(_column_role(column.name))
    return roles


def _fits(asked: str, roles: set[str]) -> bool:
    """Only a time read as a flight number and the other way round are refused: "before 2010" and
    "less than 1000 dollars" compare with a year or a cost, which the words do not tell from a time."""
    if asked in (TIME, NOT_FLIGHT):
        return roles != {FLIGHT}
    if asked == FLIGHT:
        return roles != {TIME}
    return True


def misplaced_numbers(tree: exp.Expression, question: str) -> list[str]:
    reasons = []
    for number, roles in query_roles(tree).items():
        asked = number_roles(question, number)
        if len(asked) != 1 or None in asked:
            continue  # not said, said without a cue, or said twice in two roles
        (role,) = asked
        if not _fits(role, roles):
            reasons.append(f"the question gives {number} as a {role} but the query compares it with "
                           f"{' / '.join(sorted(roles))} columns (number_place)")
    return reasons


def findings(adapted: Any, question: str) -> Iterator[tuple[str, list[str]]]:
    if ENABLED and adapted.tree is not None:
        yield "number place", misplaced_numbers(adapted.tree, question)


def check_candidate(adapted: Any, question: str) -> Any:
    """Refuse ``adapted`` (changed in place) when a number takes another role than the question gives it."""
    return refuse_first(adapted, findings(adapted, question))
