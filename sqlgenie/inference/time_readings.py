"""Times of day worded apart, read as the bank writes them (issue 13, ATIS seen coverage, helper cover19b).

ATIS templates are wide: one SQL shape is asked "in the evening", "in the morning", "between 1800 and
1900". Session 18 found most refused seen ATIS questions to be such a shape worded apart. Two readings the
bank already holds were missed:

* **a part of the day at the reading the example's SQL carries** (:data:`USUAL_READING`,
  :func:`readings`, used by :func:`sqlgenie.inference.word_constants.rewrite`). ``word_constants`` swaps a
  word only the example says for one only the question says when both are tied to constants on the same
  columns, reading each word by its 80 % tie (:meth:`WordConstants.tied`) and only when it has none by the
  usual share (:meth:`WordConstants.usual`, 50 %). "morning" is ``departure_time`` 0 in 88 % of the ATIS
  questions saying it and 1200 in 68 %: its tie is the one constant 0, its usual reading 0 and 1200;
  "evening" has no tie and a usual reading 1800 and 2200. So "i'd like an *evening* flight from NEWARK to
  LOS ANGELES" was refused against "i would like a *morning* flight from CHARLOTTE to NEWARK"
  (``departure_time BETWEEN 0 AND 1200``): one constant against two. Each word now has both readings,
  the tie first; the example's word is read at the one its SQL carries exactly (the example shows which),
  and the question's word at one with the same columns and as many constants on each (the tie if it
  fits, else the usual reading). Nothing is guessed: both readings are shares of the bank's own verified
  questions, and every other check runs on the swapped example as before.
* **a range of two clock times, its ends in order** (:data:`RANGE_IN_ORDER`, :func:`range_pairs`, used
  by :mod:`sqlgenie.inference.clock_numbers` and ``adapt.adapt_sql``). The masker reads a bare number from
  1800 to 2199 as a year; ``clock_numbers`` re-reads it as a time when the example compares a time of day,
  but only one: with two, pairing by equal text crossed "between 1600 and 1700" against "between 1700
  and 2000" into ``arrival_time <= 1600 AND arrival_time >= 1700``. When both questions say the two
  times as "between A and B" and the example's A and B are bound to the two ends of one time-of-day
  column's range, A pairs with the question's A and B with its B whatever their text, and both may be
  re-read: "arrives between 1800 and 1900" against "arriving between 1600 and 1700".

Each switch can be set off (or on) for A/B measurements; which are on, and why, is in docs/benchmarks.md, "After
cover19b".
"""

from __future__ import annotations

import re
from typing import Any, Sequence

__all__ = ["ASKED_ALIKE", "asking_alike", "CLASS_WORDS", "CUES_FIRST", "CUE_DEPTH", "cue_depth", "cue_rank", "cues_first", "FIT_CLOCKS", "TIME_COLUMNS", "clock_counts", "moved", "RANGE_IN_ORDER", "USUAL_READING", "range_pairs", "readings", "readings_without",
           "said_in_class", "same_shape"]

#: Off: a word is read by its 80 % tie when it has one, else at the usual share, as before.
USUAL_READING = True
#: Off (built, measured, shown on one seed only): at most one year-like clock time is re-read, and a range's ends
#: pair as any values do, as before. With :data:`CLASS_WORDS` and :data:`FIT_CLOCKS` it answered one ATIS s12 question
#: more ("is there a flight from PITTSBURGH to BALTIMORE that arrives between 1800 and 1900", right) and nothing on
#: s13, s14 or s15; a rule counts only when shown on two design seeds (docs/benchmarks.md, "After cover19b").
RANGE_IN_ORDER = False
#: Off (built, measured, shown on one seed only, with :data:`RANGE_IN_ORDER`): a modifier word the question adds counts
#: as added even when the example says a word of its meaning class ("arrives" against "arriving"), as before.
CLASS_WORDS = False


#: Off: a deeper candidate fits only with the same count of numbers and dates as the masker reads them, as before.
FIT_CLOCKS = True


def clock_counts(spans: Sequence[Any]) -> tuple[int, int, int] | None:
    """With :data:`FIT_CLOCKS`: the counts of text, number and date values (``deeper.fits``) with every
    year-like number read as a number, as :mod:`sqlgenie.inference.clock_numbers` may re-read it against an
    example comparing a time of day ("arrives between 1800 and 1900" fits "arriving between 1600 and 1700";
    adaptation still decides). None when off (no two span lists then count alike)."""
    if not FIT_CLOCKS:
        return None
    from sqlgenie.inference.clock_numbers import year_like

    classes = ["number" if s.cls == "date" and year_like(s.text) else s.cls for s in spans]
    return classes.count("text"), classes.count("number"), classes.count("date")


def said_in_class(word: str, example_words: set[str]) -> bool:
    """With :data:`CLASS_WORDS`: ``word`` belongs to a meaning class (:data:`sqlgenie.inference.adapt._CUE_OF`:
    "arrives", "arriving" and "arrival" are INBOUND) that a word of ``example_words`` belongs to as well."""
    if not CLASS_WORDS:
        return False
    from sqlgenie.inference.adapt import _CUE_OF

    cls = _CUE_OF.get(word.lower())
    return cls is not None and any(_CUE_OF.get(w) == cls for w in example_words)


def readings(words: Any, word: str) -> list[dict[str, tuple[str, ...]]]:
    """The bank's readings of ``word`` (``words``: a :class:`WordConstants`), most certain first: its tie at
    the 80 % rule and, with :data:`USUAL_READING` (or when it has no tie), its reading at the usual share;
    empty ones and repeats left out."""
    from sqlgenie.inference import word_constants

    tied = words.tied(word)
    out: list[dict[str, tuple[str, ...]]] = [tied] if tied else []
    if word_constants.USUAL_SHARE and (USUAL_READING or not tied):
        usual = words.usual(word)
        if usual and usual not in out:
            out.append(usual)
    return out


def _shares_without(words: Any, word: str, other: str) -> tuple[int, dict[tuple[str, str], float]]:
    """``(uses, (column, number) -> share)`` of ``word`` as :meth:`WordConstants.shares` counts them, over the
    verified questions that say ``word`` and not ``other`` (kept on ``words`` per pair, until the bank changes)."""
    from collections import Counter

    from sqlgenie.inference import word_constants
    from sqlgenie.inference.verify import verified_rows

    memo = words.__dict__.setdefault("_without", {})
    if (word, other) in memo:
        return memo[(word, other)]
    rows = verified_rows(words.store, words.allowed, "masked_question, sql, mask_spans", "masked_question ~ %s",
                         [r"\m" + re.escape(word.lower()) + r"\M"], 2 * word_constants.SAMPLE)
    said_other = re.compile(rf"\b{re.escape(other.lower())}s?\b")
    counts: Counter = Counter()
    uses = 0
    for masked, sql, spans in rows:
        if uses >= word_constants.SAMPLE:
            break
        if said_other.search(masked or ""):
            continue
        found = word_constants._implied(sql, spans or [], words.catalog)
        if found is None:
            continue
        uses += 1
        counts.update((col, n) for col, nums in found.items() for n in nums)
    memo[(word, other)] = got = (uses, {key: k / uses for key, k in counts.items()} if uses else {})
    return got


def readings_without(words: Any, word: str, other: str) -> list[dict[str, tuple[str, ...]]]:
    """:func:`readings` of the question's ``word`` counted over the verified questions that do not say
    ``other``, the example's word it replaces (with :data:`USUAL_READING`; else :func:`readings`). "early" is
    ``departure_time`` 0 and 800 at the usual share because "early *morning*" is; in the questions that do
    not say "morning" it has no reading at all (``< 1000``, ``BETWEEN 0 AND 1000``, "early afternoon"), so an
    example's "morning" is not read as "early". A reading counts only when it is one of the word's readings over
    all its questions too: "night" without "morning" is 600 and 1800 at the usual share, but those are the ends
    of two ranges (``>= 1800 OR <= 600``), and over all its questions "night" reads 0, 600 and 1800."""
    if not USUAL_READING:
        return readings(words, word)
    from sqlgenie.inference import word_constants

    uses, shares = _shares_without(words, word, other)
    if uses < word_constants.MIN_USES:
        return []

    def at(share: float, year: bool) -> dict[str, tuple[str, ...]]:
        out: dict[str, tuple[str, ...]] = {}
        for (col, n), got in shares.items():
            if got >= share and (year or not col.endswith(".year")):
                out[col] = tuple(sorted(out.get(col, ()) + (n,), key=word_constants._num))
        return out

    tied = at(word_constants.MIN_SHARE, True)
    out = [tied] if tied else []
    if word_constants.USUAL_SHARE:
        usual = at(word_constants.USUAL_SHARE, False)
        if usual and usual not in out:
            out.append(usual)
    everywhere = readings(words, word)  # and the same over all its questions: one reading, not one of several
    return [r for r in out if r in everywhere]


#: Off (built, measured, not kept): a word's reading stays on the column the bank mostly writes it on, as before.
#: On, it answered no ATIS s12 / s13 question more and turned one s13 answer into a refused tie: "list flights from
#: PITTSBURGH to NEWARK on monday morning" (answered from "... tuesday afternoon ...") met "all flights from BOSTON to
#: PHILADELPHIA which *show up* on tuesday afternoon" (``arrival_time`` 1200 to 1800), whose "afternoon" the rule
#: read as the question's "morning" on ``arrival_time`` though the question names no arrival: the column must
#: follow a verb of the question, which this reading does not check.
TIME_COLUMNS = False


def _table(column: str) -> str:
    return column.rsplit(".", 1)[0]


def moved(words: Any, word: str, reading: dict[str, tuple[str, ...]], columns: Any
          ) -> list[dict[str, tuple[str, ...]]]:
    """With :data:`TIME_COLUMNS`: ``reading`` (of one time-of-day column) put on another time-of-day column
    of the same table among ``columns``, when verified questions saying ``word`` compare that column with
    each of those numbers too ("evening" is ``departure_time`` 1800 and 2200 at the usual share, and the
    questions "... that arrives in the evening" write ``arrival_time`` 1800 and 2200: the bank reads the part
    of the day on the column the question's verb names, which the example's SQL shows)."""
    if not TIME_COLUMNS or len(reading) != 1:
        return []
    from sqlgenie.inference.clock_numbers import time_of_day_column

    (col, nums), = reading.items()
    if not time_of_day_column(col):
        return []
    shares = words.shares(word)
    return [{other: nums} for other in dict.fromkeys(columns)
            if other != col and _table(other) == _table(col) and time_of_day_column(other)
            and all(shares.get((other, n), 0.0) > 0 for n in nums)]


def same_shape(a: dict[str, tuple[str, ...]], b: dict[str, tuple[str, ...]]) -> bool:
    """Two readings on the same columns with as many constants on each (one may take the other's place)."""
    return set(a) == set(b) and all(len(a[c]) == len(b[c]) for c in a)


# --------------------------------------------------------------------------- a range of two clock times

_BETWEEN = re.compile(r"\bbetween\s+\[mask\]\s+and\s+\[mask\]", re.IGNORECASE)


def _range_masks(masked: str | None, n: int) -> tuple[int, int] | None:
    """The indices (among ``n`` masks) of the two values of the one "between [MASK] and [MASK]" of ``masked``."""
    if not masked:
        return None
    found = list(_BETWEEN.finditer(masked))
    if len(found) != 1 or masked.upper().count("[MASK]") != n:
        return None
    first = masked[:found[0].start()].upper().count("[MASK]")
    return first, first + 1


def range_pairs(example_masked: str | None, new_masked: str | None, ex_n: int, new_n: int, slots: Sequence[Any],
                alignment: Any) -> list[tuple[int, int]]:
    """``[(e, n), (e2, n2)]``: the example's "between A and B" paired end to end with the question's, when
    both say one such range and the example binds A and B to the two ends of one time-of-day column's range
    (a lower and an upper bound, or the two operands of a BETWEEN); else empty."""
    if not RANGE_IN_ORDER:
        return []
    ex, new = _range_masks(example_masked, ex_n), _range_masks(new_masked, new_n)
    if ex is None or new is None:
        return []
    from sqlgenie.inference.clock_numbers import _clock_slot

    ends = []
    for e in ex:
        bound = alignment.of_span(e)
        if len(bound) != 1 or not _clock_slot(slots[bound[0].slot]):
            return []
        ends.append(slots[bound[0].slot])
    if ends[0].column != ends[1].column or ends[0] is ends[1]:
        return []
    return [(ex[0], new[0]), (ex[1], new[1])]


# --------------------------------------------------------------------------- deeper candidates said with the same classes

#: Off (built, measured, not kept): the deeper candidates are the :data:`deeper.DEPTH` nearest, tried in retrieval's
#: order, as before. On (replayed over every question of ATIS s12 and s13): s12 +4 right, one right answer lost ("what
#: is the cheapest flight from SAN FRANCISCO to PITTSBURGH on sunday", refused by a tie with a candidate it brought in)
#: and one wrong novel answer ("show fares and flights from DENVER to OAKLAND" with fares only); s13 nothing more than
#: :data:`ASKED_ALIKE` gives. The license past the nearest examples reads the words, not which of two said-alike
#: templates is asked.
CUES_FIRST = False
#: Nearest examples read when :data:`CUES_FIRST` is on; past ``deeper.DEPTH`` only those said with the question's
#: meaning classes are kept.
CUE_DEPTH = 100


def _cues(masked_text: str) -> frozenset[str]:
    from sqlgenie.inference.groups import cue_classes

    return frozenset(cue_classes(masked_text))


def _hit_cues(hit: Any) -> frozenset[str]:
    ex = hit.example
    return _cues(getattr(ex, "masked_question", None) or ex.question)


def cue_depth(depth: int) -> int:
    """How many nearest examples the deeper retrieval reads."""
    return max(depth, CUE_DEPTH) if CUES_FIRST else depth


def cues_first(hits: Sequence[Any], masked_text: str, depth: int) -> list[Any]:
    """The ``depth`` nearest ``hits`` and, with :data:`CUES_FIRST`, the further ones said with the question's
    meaning classes (:func:`sqlgenie.inference.groups.cue_classes`: "before", "after", "between", "arriving",
    ...). MiniLM places "what flights go from [MASK] to [MASK] *before* [MASK]" nearer "... *after* [MASK]"
    (0.989) than its own template's "list flights from [MASK] to [MASK] *before* [MASK]" (0.959, 59th on ATIS
    seed 13), and adaptation refuses every example said with other meaning classes."""
    hits = list(hits)
    if not CUES_FIRST:
        return hits[:depth]
    mine = _cues(masked_text)
    return hits[:depth] + [h for h in hits[depth:] if _hit_cues(h) == mine]


def cue_rank(hit: Any, masked_text: str) -> int:
    """0 for a deeper candidate said with the question's meaning classes (tried first, with
    :data:`CUES_FIRST`), else 1; always 0 when off (retrieval's order)."""
    if not CUES_FIRST:
        return 0
    return 0 if _hit_cues(hit) == _cues(masked_text) else 1


#: Off: every deeper candidate is adapted and may join a tie, even one the license refuses for asking another thing.
ASKED_ALIKE = True


def asking_alike(candidates: Sequence[Any], asked_differently: Any) -> list[Any]:
    """With :data:`ASKED_ALIKE`: the deeper candidates whose question asks what the asked one asks
    (``asked_differently(c)`` None, :func:`sqlgenie.inference.deeper.asked_differently`). The stricter license
    refuses the others as an answer; left in, they tie with a right candidate: "what *kind of airplane* goes
    from BOSTON to SAN FRANCISCO before 1200" verified for "what *flights* go from BOSTON to DENVER before 1000"
    beside "list flights from CINCINNATI to TAMPA before 1200", and the two SQLs differ."""
    if not ASKED_ALIKE:
        return list(candidates)
    return [c for c in candidates if not asked_differently(c)]
