"""Direction words the example's SQL already encodes: "leaving" and "arriving" that change nothing.

Adaptation refuses a question whose meaning-word classes differ from its example's
(:func:`sqlgenie.inference.adapt.question_diff`); two of those classes are the direction of a
movement, INBOUND ("arriving", "arrival", "land", ...) and OUTBOUND ("leaving", "departing",
"departure", ...). A seen question often says the direction its example leaves implicit: "list
flights from BOSTON to PITTSBURGH *leaving* early in the morning" against "show me the flights
from BOSTON to PITTSBURGH on the morning of ...", whose SQL compares ``departure_time`` with the
morning's hours. The added word names what the SQL already does, so it is no evidence of another
query (issue 13, seed-3 records of ATIS: a fifth of the seen refusals whose own template was
retrieved were refused only for such a word).

:func:`filter_diff` drops a direction class from the differences when

* the question *adds* it (the example does not say a word of that class; a word the example says
  and the question drops is never licensed: "arriving after 5" without "arriving" is a departure
  time in the bank's convention);
* the opposite direction does not differ too (no swap of "arriving" for "leaving");
* the example's SQL reads a column whose name says that direction (``departure_time`` for
  OUTBOUND) and no column whose name says the opposite one (``arrival_time``): the query is about
  that side only, so the word cannot pick another column.

Everything else (values, pairing by "from"/"to", the roles of :mod:`sqlgenie.inference.verify`)
is checked as before.
"""

from __future__ import annotations

from typing import Any

from sqlglot import exp

__all__ = ["ENABLED", "filter_diff", "sql_directions"]

#: Off: every direction class that differs refuses (A/B measurements).
ENABLED = True

_OPPOSITE = {"INBOUND": "OUTBOUND", "OUTBOUND": "INBOUND"}


def sql_directions(tree: exp.Expression) -> set[str]:
    """Direction classes named by the columns the SQL reads (``departure_time`` -> OUTBOUND)."""
    from example_bank.masking import split_identifier
    from sqlgenie.inference.adapt import _CUE_OF

    found: set[str] = set()
    for col in tree.find_all(exp.Column):
        for word in split_identifier(col.name):
            cls = _CUE_OF.get(word)
            if cls in _OPPOSITE:
                found.add(cls)
    return found


def filter_diff(diff: Any, tree: exp.Expression, example_masked: str, new_masked: str) -> Any:
    """``diff`` without the direction classes the question adds and the SQL already encodes."""
    if not ENABLED or not any(c in _OPPOSITE for c in diff.cue_changes):
        return diff
    from sqlgenie.inference.adapt import _CUE_OF, QuestionDiff, _tokens

    said_example = {_CUE_OF[w] for w in _tokens(example_masked) if w in _CUE_OF}
    said_new = {_CUE_OF[w] for w in _tokens(new_masked) if w in _CUE_OF}
    encoded = sql_directions(tree)
    keep: list[str] = []
    for cls in diff.cue_changes:
        other = _OPPOSITE.get(cls)
        licensed = (other is not None and cls in said_new and cls not in said_example
                    and other not in diff.cue_changes and cls in encoded and other not in encoded)
        if not licensed:
            keep.append(cls)
    if len(keep) == len(diff.cue_changes):
        return diff
    return QuestionDiff(list(diff.added), list(diff.removed), keep, list(diff.schema_changes))
