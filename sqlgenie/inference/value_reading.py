"""A value of several words that the bank reads as its parts (issue 13, helper matchx).

The masker takes "DALLAS FORT WORTH" or "BUSINESS class" as one value, and adaptation puts it into
the example's SQL as one constant (``city_name = 'DALLAS FORT WORTH'``). The bank's verified
queries may read the same words otherwise: in most ATIS questions that say "DALLAS FORT WORTH"
the SQL compares ``city_name`` with 'DALLAS' and with 'FORT WORTH' (the two cities the airport
serves), and "BUSINESS class" is ``class_type = 'BUSINESS'``. A constant the examples that use
the words do not write is a guess at what they mean; on the fresh ATIS splits (seeds 7, 8) every
such answer was wrong.

:func:`split_readings` refuses a verified adaptation whose SQL compares a string constant of
several words that the asked question says, its example's question does not (the value was put
in by adaptation, not copied with the example), and that the verified bank questions saying it
read as its parts (a constant of theirs is a proper part of the words: 'DALLAS', 'FORT WORTH',
'BUSINESS') in more than half of their uses (and more often than as the whole), at least
:data:`MIN_USES` of them. Learned from the bank in scope (no list of values), cached per bank.
"""

from __future__ import annotations

import re
from typing import Any, Sequence

from sqlglot import exp

from sqlgenie.inference.refusals import code_of, refuse_first

__all__ = ["ENABLED", "MIN_USES", "REASON_CODES", "ValueReadings", "check_candidate", "reason_code",
           "split_readings"]

#: Off: the rule finds nothing (A/B runs).
ENABLED = True
#: Verified bank questions saying the words needed before their reading counts.
MIN_USES = 3
#: Bank questions read per value.
SAMPLE = 60

REASON_CODES = {"which the verified examples that say it compare as": "value reading"}


def reason_code(reason: str) -> str | None:
    return code_of(reason, REASON_CODES)


def _fold(text: str) -> str:
    return " ".join(re.findall(r"[a-z0-9]+", (text or "").lower()))


def _has(text: str, words: str) -> bool:
    return f" {words} " in f" {_fold(text)} "


def _string_constants(tree: exp.Expression) -> list[str]:
    return [lit.this for lit in tree.find_all(exp.Literal) if lit.is_string and lit.this]


class ValueReadings:
    """Per value (folded words), how the verified bank's SQL writes it: ``(uses, whole, parts,
    parts seen)`` over the bank questions that say it; looked up on demand, cached until the bank
    changes."""

    def __init__(self, store: Any, allowed: Any, stamp: Any = None) -> None:
        self.store, self.allowed, self.stamp = store, allowed, stamp
        self.cache: dict[str, tuple[int, int, int, tuple[str, ...]]] = {}

    def reading(self, value: str) -> tuple[int, int, int, tuple[str, ...]]:
        key = _fold(value)
        if key in self.cache:
            return self.cache[key]
        from sqlgenie.autocorrect.base import parsed_read_only
        from sqlgenie.inference.verify import verified_rows

        pattern = r"\m" + r"\s+".join(re.escape(w) for w in key.split()) + r"\M"
        rows = verified_rows(self.store, self.allowed, "question, sql", "question ~* %s", [pattern], SAMPLE)
        uses = whole = parts = 0
        seen: dict[str, None] = {}
        for question, sql in rows:
            if not _has(question, key):
                continue
            try:
                consts = {_fold(c) for c in _string_constants(parsed_read_only(sql))}
            except Exception:
                continue
            uses += 1
            if key in consts:
                whole += 1
                continue
            inside = [c for c in consts if c and c != key and f" {c} " in f" {key} "]
            if inside:
                parts += 1
                seen.update(dict.fromkeys(sorted(inside)))
        self.cache[key] = (uses, whole, parts, tuple(seen))
        return self.cache[key]


def _readings(retriever: Any) -> ValueReadings | None:
    from sqlgenie.inference.verify import cached_per_bank

    store = getattr(retriever, "store", None)
    if store is None:
        return None
    return cached_per_bank(retriever, "_value_readings",
                           lambda stamp: ValueReadings(store, getattr(retriever, "allowed", None), stamp))


def split_readings(tree: exp.Expression, example_question: str, question: str, readings: Any) -> list[str]:
    """See module doc: the reasons (one sentence per value), or []."""
    if not ENABLED or readings is None or tree is None:
        return []
    out: list[str] = []
    for const in dict.fromkeys(_string_constants(tree)):
        key = _fold(const)
        if len(key.split()) < 2 or not _has(question, key) or _has(example_question, key):
            continue
        uses, whole, parts, seen = readings.reading(key)
        if uses >= MIN_USES and parts * 2 > uses and parts > whole:
            shown = " and ".join(f"'{p.upper()}'" for p in seen[:3])
            out.append(f"“{const}” is one value in this query, which the verified examples that say it compare as "
                       f"{shown} ({parts} of {uses} questions)")
    return out


def check_candidate(adapted: Any, example_question: str, question: str, retriever: Any) -> Any:
    """Refuse a verified adaptation (changed in place) whose SQL writes a value of several words as
    one constant where the bank reads it as its parts. Returns ``adapted``."""
    if not ENABLED or adapted is None or not adapted.ok or adapted.tree is None:
        return adapted
    return refuse_first(adapted, [("value reading", split_readings(adapted.tree, example_question, question,
                                                                   _readings(retriever)))])
