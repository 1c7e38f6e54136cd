"""ORDER BY misuse against what the question asks.

* ``superlative_without_limit``: the question asks for the single top (or bottom)
  item ("which singer is the oldest", "the department with the most staff") and
  the query orders without ``LIMIT``: it returns every row instead of the one.
  Questions that ask for an ordering ("sorted by", "in descending order", "from
  the oldest to the youngest") or for several ("top 3", "the three largest") are
  left alone.
* ``order_direction``: the query keeps the first row(s) of ``ORDER BY
  COUNT(...)``/``SUM(...)`` in one direction while the question asks for the
  other ("most" with ``ASC``, "fewest"/"least" with ``DESC``).
"""

from __future__ import annotations

import re

from sqlglot import exp

from sqlgenie.inference.critic.context import CheckContext, outer_select
from sqlgenie.inference.critic.findings import Finding

__all__ = ["order_direction", "superlative_without_limit"]

_SUPERLATIVE = re.compile(
    r"\b(the\s+)?(most|least|fewest|highest|lowest|largest|smallest|biggest|greatest|oldest|youngest|"
    r"newest|latest|earliest|longest|shortest|maximum|minimum|best|worst|\w+est)\b", re.I)
_SINGLE = re.compile(r"\b(which|what|who|whose|find the|give the|show the|return the|list the)\b", re.I)
_ORDERING = re.compile(r"\b(order(ed)?|sort(ed)?|rank(ed)?|ascending|descending|from the \w+ to|\w+est to)\b", re.I)
_SEVERAL = re.compile(
    r"\b(top|first|last)\s+(\d+|two|three|four|five|six|seven|eight|nine|ten)\b|"
    r"\b(\d+|two|three|four|five|six|seven|eight|nine|ten)\s+(most|least|highest|lowest|largest|smallest|\w+est)\b"
    r"|\b(each|every|per|all)\b", re.I)
_MOST = re.compile(r"\b(most|largest number|greatest number|highest number|maximum number)\b", re.I)
_LEAST = re.compile(r"\b(least|fewest|smallest number|lowest number|minimum number)\b", re.I)


def _aggregates_ordered(select: exp.Select) -> list[tuple[exp.Ordered, exp.Expression]]:
    order = select.args.get("order")
    if order is None:
        return []
    aliases = {p.alias.lower(): p.unalias() for p in select.expressions if isinstance(p, exp.Alias)}
    out = []
    for o in order.expressions:
        key = o.this
        if isinstance(key, exp.Column) and not key.table and key.name.lower() in aliases:
            key = aliases[key.name.lower()]
        if isinstance(key, (exp.Count, exp.Sum)):
            out.append((o, key))
    return out


def superlative_without_limit(ctx: CheckContext) -> list[Finding]:
    if ctx.tree is None:
        return []
    q = ctx.question
    if not _SUPERLATIVE.search(q) or not _SINGLE.search(q) or _ORDERING.search(q) or _SEVERAL.search(q):
        return []
    select = outer_select(ctx.tree)
    if select is None or select.args.get("order") is None or select.args.get("limit") is not None:
        return []
    if ctx.result is not None and ctx.result.ok and len(ctx.result.rows) <= 1:
        return []
    return [Finding(
        "superlative_without_limit", "warning",
        "The question asks for the single top (or bottom) item, but the query orders every row and returns "
        "them all; keep the first (LIMIT 1, or a filter on the MAX/MIN to keep ties).",
        {"order_by": select.args["order"].sql(dialect="postgres")})]


def order_direction(ctx: CheckContext) -> list[Finding]:
    if ctx.tree is None:
        return []
    q = ctx.question
    most, least = bool(_MOST.search(q)), bool(_LEAST.search(q))
    if most == least:
        return []
    select = outer_select(ctx.tree)
    if select is None or select.args.get("limit") is None:
        return []
    ordered = _aggregates_ordered(select)
    if len(ordered) != 1:
        return []
    o, key = ordered[0]
    desc = bool(o.args.get("desc"))
    if most and not desc or least and desc:
        want = "DESC" if most else "ASC"
        return [Finding(
            "order_direction", "warning",
            f"The question asks for the {'most' if most else 'least'}, but the query keeps the first rows of "
            f"{o.sql(dialect='postgres')}; order {want} instead.",
            {"order_by": o.sql(dialect="postgres"), "want": want})]
    return []
