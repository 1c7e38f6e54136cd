"""The result's shape against what the question asks.

* ``duplicates_for_distinct``: the question asks for different / distinct /
  unique things and the result repeats rows (``DISTINCT`` or ``GROUP BY`` missing).

(A check "the question asks how many and the query counts nothing" was measured
and dropped: "how many cylinders does the car ... have" asks for a stored value and
"the most number of" for a superlative; precision 0.15-0.33 on the recorded
predictions.)
"""

from __future__ import annotations

import re

from sqlgenie.inference.critic.context import CheckContext
from sqlgenie.inference.critic.findings import Finding

__all__ = ["duplicates_for_distinct"]

_DISTINCT = re.compile(r"\b(different|distinct|unique)\b", re.I)


def duplicates_for_distinct(ctx: CheckContext) -> list[Finding]:
    if ctx.tree is None or ctx.result is None or not ctx.result.ok or not _DISTINCT.search(ctx.question):
        return []
    rows = ctx.result.rows
    if len(rows) < 2 or ctx.result.truncated:
        return []
    seen: set = set()
    dupes = []
    for row in rows:
        key = tuple(row)
        if key in seen:
            dupes.append(list(row))
            if len(dupes) >= 3:
                break
        seen.add(key)
    if not dupes:
        return []
    return [Finding(
        "duplicates_for_distinct", "warning",
        f"The question asks for different (distinct) items, but the result repeats rows (e.g. {dupes[0]}); "
        "add DISTINCT or group the rows.",
        {"repeated": dupes})]
