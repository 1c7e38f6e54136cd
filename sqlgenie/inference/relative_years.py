"""A relative year the bank writes as one year (issue 13, helper cover19a).

"How many papers were written on the developing world *this year* ?" against the bank's "How many
papers were written on question answering *in 2016* ?" was refused: "'this year' cannot replace
'2016': 'this year' gives no year" (a relative date names no calendar year by itself). The data
sets have a "now" of their own, though, and the bank shows it: in scholar and ADVISING every
verified question that says "this year" compares a year column with 2016 (3 of 3 on scholar seed 12,
8 of 8 on ADVISING seed 13), nothing else.

:func:`year_phrases` reads the verified bank of the scope once (cached until it changes): for each
relative year phrase a question says (a date span that gives no year, read by its words: "this
year", "past year"), the year constants of its query that no value of the question produced (a
number compared with a year column or a date part). A phrase that at least :data:`MIN_EXAMPLES`
verified questions say, each of whose queries compares **one** such year, the same in all, is read as
that year; one query that writes it otherwise (another year, ``EXTRACT(YEAR FROM CURRENT_DATE) - 1``,
a subquery, two years as "next year" in a two-term window) and the phrase has no reading. Adaptation
then writes that year where the example's year value stood (``adapt.adapt_sql``'s ``years``), and
only there: a phrase that takes the place of anything but a year value is refused as before. The other
way round, an example that says the phrase ("What papers were written on question answering *this year*
?", ``year = 2016``) has its one year literal equal to the reading bound to the phrase, so the question's
"in 2016" (or "in 2010") replaces it (``adapt._bank_year_binding``): scholar seed 13 had four seen
questions refused as "'2016' takes the place of 'this year', which the example's SQL does not use as a value".

A bank that follows the calendar must not answer from a stale year (lead, session 19): "this year" written
as 2026 by questions verified in 2026 is 2027 for a question asked in 2027. So a reading is kept only when
it is the calendar's reading today (the year of :data:`TODAY` plus the phrase's offset: this 0, last -1,
next +1), or when the data set has a "now" of its own: no verified question saying the phrase wrote the
calendar's reading of the year it was added to the bank (``created_at``; scholar's and ADVISING's 2016
added in 2026). Otherwise the phrase has no reading and the adaptation is refused as before.
"""

from __future__ import annotations

import datetime as dt
import re
from collections import defaultdict
from decimal import Decimal
from typing import Any, Callable

__all__ = ["ENABLED", "EXAMPLE_PHRASES", "MIN_EXAMPLES", "TODAY", "YearPhrases", "calendar_offset", "follows_now",
           "is_year_slot", "phrase_key", "year_of", "year_phrases"]

#: On: a relative year phrase the bank writes as one year in every verified question saying it replaces
#: an example's year value. Off: such a phrase cannot replace a year (the adaptation is refused).
ENABLED = True
#: On (with :data:`ENABLED`): the other way round, an example's relative year phrase is bound to the one year
#: literal of its SQL equal to the bank's reading, so a year of the question replaces it
#: (``adapt._bank_year_binding``). Off: such a phrase is a value the example's SQL does not use (refused).
EXAMPLE_PHRASES = True
#: Verified questions that must say the phrase (each comparing the same single year).
MIN_EXAMPLES = 2
#: Verified examples read at most (a bigger bank is read in its first rows only).
MAX_EXAMPLES = 20000

#: Today's date, for the calendar reading of a phrase (a module attribute so tests can move it).
TODAY: Callable[[], dt.date] = dt.date.today

_LEAD = {"the", "in", "during", "over", "for", "of"}
_OFFSET = {"this": 0, "last": -1, "next": 1}  # parse_date_span's relation of a relative year phrase


def calendar_offset(key: str) -> int | None:
    """Years from the current one the phrase ``key`` names by the calendar ("this year" 0, "past year" -1,
    "next year" 1); None for a relation without one."""
    from sqlgenie.inference.adapt import parse_date_span

    value = parse_date_span(key)
    return None if value is None else _OFFSET.get(value.relation or "")


def follows_now(key: str, year: Decimal, added: list[int], today: dt.date) -> bool:
    """Whether the bank's reading ``year`` of ``key`` may be used today: it is the calendar's reading today, or
    the data set has a "now" of its own (none of the questions saying it, added in the years ``added``,
    wrote the calendar's reading of the year it was added). See the module doc."""
    offset = calendar_offset(key)
    if offset is None:
        return False
    if int(year) == today.year + offset:
        return True
    return all(int(year) != a + offset for a in added)


def phrase_key(text: str) -> str | None:
    """The words of a relative year phrase ("the past year" -> "past year", "This year" -> "this year");
    None for a span that is no relative year (a calendar year, a month, a number of years)."""
    from sqlgenie.inference.adapt import date_renderings, parse_date_span

    words = re.findall(r"[a-z0-9]+", text.lower())
    while len(words) > 2 and words[0] in _LEAD:
        words = words[1:]
    if words and words[0] == "the":
        words = words[1:]
    value = parse_date_span(" ".join(words)) if words else None
    if value is None or value.kind != "relative" or value.unit != "year" or value.n is not None \
            or "year" in date_renderings(value):
        return None
    return " ".join(words)


def is_year_slot(slot: Any) -> bool:
    """A number literal compared with a year column or a date part, 1800-2199 (``adapt.Slot``)."""
    column = (slot.column or "").lower().rsplit(".", 1)[-1]
    n = slot.number
    return not slot.is_string and n is not None and 1800 <= n <= 2199 and (slot.temporal or "year" in column)


def _year_constants(sql: str, spans: Any, catalog: Any) -> list[Decimal] | None:
    """The year constants of ``sql`` no span produced (numbers compared with a year column or a date
    part, 1800-2199); None when the SQL does not parse."""
    from sqlgenie.inference.adapt import example_alignment

    try:
        slots, alignment = example_alignment(sql, spans, catalog)
    except Exception:
        return None
    bound = {b.slot for b in alignment.bindings}
    out = []
    for j, s in enumerate(slots):
        if j not in bound and is_year_slot(s):
            out.append(s.number)
    return out


class YearPhrases:
    """The relative year phrases of one scope the bank writes as one year (see module doc)."""

    def __init__(self, retriever: Any, catalog: Any, stamp: Any = None) -> None:
        self.retriever, self.catalog, self.stamp = retriever, catalog, stamp
        self._years: dict[str, Decimal] | None = None
        self._day: dt.date | None = None  # the day the readings were read for (a calendar reading moves with it)
        self.seen: dict[str, list[tuple]] = {}

    def years(self) -> dict[str, Decimal]:
        today = TODAY()
        if self._years is None or self._day != today:
            self._years, self._day = self._read(today), today
        return self._years

    def _read(self, today: dt.date) -> dict[str, Decimal]:
        from example_bank.store import _row_to_example
        from sqlgenie.inference.adapt import Span
        from sqlgenie.inference.groups import groups_of
        from sqlgenie.inference.verify import scope_rows

        r = self.retriever
        rows = scope_rows(r, MAX_EXAMPLES, "EXTRACT(YEAR FROM created_at)::int")
        groups = groups_of(r, self.catalog)
        seen: dict[str, list[tuple]] = defaultdict(list)
        added: dict[str, list[int]] = defaultdict(list)  # per phrase: the year each question saying it was added
        for full in rows:
            row, year_added = full[:-1], full[-1]
            ex = _row_to_example(row)
            if "year" not in ex.question.lower():
                continue
            member = groups.member(ex)
            if member is None:
                continue
            spans = [Span.of(s) for s in member.masked.spans]
            keys = {k for k in (phrase_key(s.text) for s in spans if s.cls == "date") if k}
            if not keys:
                continue
            years = _year_constants(ex.sql, member.masked.spans, self.catalog)
            for k in keys:
                seen[k].append(tuple(years) if years is not None and len(keys) == 1 else ("?",))
                added[k].append(int(year_added))
        self.seen = dict(seen)
        out = {}
        for k, readings in seen.items():
            values = {v for t in readings for v in t}
            if len(readings) >= MIN_EXAMPLES and all(len(t) == 1 for t in readings) and len(values) == 1:
                year = next(iter(values))
                if follows_now(k, year, added[k], today):
                    out[k] = year
        return out


def year_phrases(retriever: Any, catalog: Any) -> dict[str, Decimal]:
    """Relative year phrase -> the year the bank writes for it (empty when :data:`ENABLED` is off or the
    bank cannot be read)."""
    if not ENABLED:
        return {}
    from sqlgenie.inference.verify import cached_per_bank

    try:
        return cached_per_bank(retriever, "_relative_years", lambda stamp: YearPhrases(retriever, catalog, stamp)).years()
    except Exception:  # an aid: never a reason to fail an answer
        return {}


def year_of(text: str, years: Any) -> Decimal | None:
    """The year the bank writes for the relative phrase ``text`` (``years()`` gives the readings, read only
    when needed); None without one."""
    if not ENABLED or years is None:
        return None
    key = phrase_key(text)
    if key is None:
        return None
    return years().get(key)
