"""Default aggregation function per column, from type, name and cardinality.

The pick answers "what does *total X* / *X per group* mean for this column":

* keys and identifiers (PK, join columns, ``*_id``, ``code``, ``sku``)  -> COUNT
* additive measures (amount, quantity, revenue, cost, total, count, hours...) -> SUM
* intensive measures (price, rate, ratio, percent, discount, score, age, lat/long...) -> AVG
* other numbers: SUM when they look like measures (many distinct values), AVG for
  low-cardinality ratings/levels
* dates and times (and year/month numbers) -> MAX (the latest); booleans -> COUNT
* text: identifiers -> COUNT, other text -> STRING_AGG
"""

from __future__ import annotations

from onboarding.names import ID_TOKENS, canonical_word, split_identifier
from onboarding.profile import ColumnProfile

AGGREGATIONS = ("SUM", "AVG", "MIN", "MAX", "COUNT", "STRING_AGG")

ADDITIVE = frozenset(
    "amount total sum revenue sale sales cost costs spend spent quantity count units unit_count volume "
    "balance profit income expense expenses fee fees tax payment paid charge charges budget hours minutes "
    "duration distance weight points goals visits clicks views orders items population attendance "
    "enrollment capacity stock inventory".split()
)
INTENSIVE = frozenset(
    "price rate ratio percent percentage pct discount score rating grade gpa age average avg mean median "
    "latitude longitude lat lng lon temperature temp speed height length width depth size level rank ranking "
    "margin probability share factor index density humidity pressure".split()
)
CALENDAR = frozenset("year month day hour week quarter date time".split())


def _words(name: str) -> list[str]:
    return [canonical_word(w) for w in split_identifier(name)]


def is_identifier_name(name: str) -> bool:
    words = split_identifier(name)
    return bool(words) and (words[-1] in ID_TOKENS or words[0] in ("id", "uuid", "guid"))


def pick_aggregation(col: ColumnProfile, *, is_key: bool = False, row_count: int | None = None) -> str:
    """One of :data:`AGGREGATIONS` for ``col``."""
    words = _words(col.name)
    raw = split_identifier(col.name)
    if is_key or is_identifier_name(col.name):
        return "COUNT"
    if col.family == "boolean":
        return "COUNT"
    if col.family == "temporal":
        return "MAX"
    if col.family == "numeric":
        # the last word carries the meaning: unit_price -> price, price_total -> total
        for w in reversed(words):
            if w in CALENDAR:
                return "MAX"  # year numbers: the latest
            if w in INTENSIVE:
                return "AVG"
            if w in ADDITIVE or w.rstrip("s") in ADDITIVE:
                return "SUM"
        if any(w in ("qty", "amt", "cnt", "num", "no", "nbr") for w in raw):
            return "SUM"
        distinct = col.n_distinct or 0
        if distinct and distinct <= 12 and (row_count or 0) > 50:
            return "AVG"  # a rating / level / small scale
        return "SUM"
    if col.family in ("text", "enum"):
        return "STRING_AGG"
    return "COUNT"
