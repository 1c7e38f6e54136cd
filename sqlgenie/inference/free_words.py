"""Words the bank shows to carry no part of a query (issue 13, helper atis12).

The deeper candidates' license (:mod:`sqlgenie.inference.deeper`) and the check past a fitting
nearest example (:mod:`sqlgenie.inference.worded_apart`) refuse a candidate for any content word
one question says and the other does not, unless a paraphrase of the candidate's own query says
(or drops) it too. On ATIS most seen questions they refused had their own template's example
verified and differed only in conversational words: "i would like to see the DAILY flights from
BALTIMORE to PHILADELPHIA" against "show me all DAILY flights between MILWAUKEE and ORLANDO"
('like', 'see', 'would'), "what ground transportation is *available* from LGA airport into NEW
YORK" against "please list the ground transportation from LGA into NEW YORK".

:func:`free_words` reads the whole verified bank of the scope once (cached until it changes): in
each skeleton group of two or more members (:mod:`sqlgenie.inference.groups`: the same SQL
skeleton and the same constants outside the questions' values, i.e. paraphrases of one query), a
word said by some members and not by others is optional *for that query*. A word optional in at
least :data:`MIN_GROUPS` different groups, and at least :data:`MIN_RATIO` times as often as all members
of a group say it, is not needed by the queries the bank shows it with: it is
*free*, and it neither licenses nor refuses a deeper candidate. Learned per scope, never a word
list; schema words, superlatives and direction markers are never free (their own checks decide them).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

__all__ = ["ENABLED", "FOCUS", "IMPLIED_CONSTANTS", "MIN_GROUPS", "focus_apart", "free_words", "FreeWords", "unworded"]

#: On: free words are left out of the deeper license's added and dropped words. Off: every word counts.
ENABLED = True
#: Groups (paraphrases of one query) in which the word must be optional.
MIN_GROUPS = 4
#: ... and at least this many times as often optional as said by every member of a group (a word most
#: paraphrases of a query keep is part of it).
MIN_RATIO = 2.0
#: On: free words are no wording of a constant the example's SQL implies (``verify.implied_constants``,
#: issue 13, helper atis15): "i *need* a flight from DENVER to SALT LAKE CITY on monday" against "what flights
#: from MONTREAL to LAS VEGAS on saturday" was refused only for "need". Off (the default): every content word
#: counts there. Built and measured, left off: ATIS seed 12 +2 right and +2 wrong seen answers, both where a
#: free word did carry the constant: "as early in the morning as i *can*" (``MIN(departure_time)``) and "a 2100
#: *o'clock* flight" (``departure_time = 2100 OR departure_time = 900``). Measured again in session 16 (helper
#: atis16) with :data:`EQUATIVES` and ``clock_numbers.UNSAID_TIMES`` guarding those two: ATIS seeds 12, 13, 14, 15, 0
#: +12 right, +3 exact-wrong seen answers (all three execution-equal by the test suite: a nested-IN form of the same
#: query, and a gold with another city in its subquery), but scholar seed 12 +1 wrong novel answer that is really
#: wrong ("What journals are Donald E Knuth 's articles published in ?" from "journal articles by ...", whose
#: ``journalid >= 0`` the free words no longer guard). **On** since session 17 (helper atis17): that answer is refused
#: by :mod:`.asked_returns` (the question asks for journals, the query returns papers), and the one it then added on
#: ADVISING seed 13 by :data:`FOCUS`; measured on ATIS seeds 12 / 13, ADVISING 12 / 13, scholar 12 / 13 and Spider dev
#: seed 3: +20 right (ATIS +7, ADVISING +13), no really wrong answer added, one exact-wrong answer the test suite finds
#: execution-equal (docs/benchmarks.md, "After atis17").
IMPLIED_CONSTANTS = True
#: Verified examples read at most (a bigger bank is read in its first rows only).
MAX_EXAMPLES = 20000


class FreeWords:
    """Free words of one scope (see module doc), read on first use."""

    def __init__(self, retriever: Any, catalog: Any, stamp: Any = None) -> None:
        self.retriever, self.catalog, self.stamp = retriever, catalog, stamp
        self._words: frozenset[str] | None = None

    def words(self) -> frozenset[str]:
        if self._words is None:
            self._words = self._read()
        return self._words

    def _read(self) -> frozenset[str]:
        from example_bank.store import _row_to_example
        from sqlgenie.inference.groups import groups_of
        from sqlgenie.inference.verify import scope_rows

        r = self.retriever
        rows = scope_rows(r, MAX_EXAMPLES)
        groups = groups_of(r, self.catalog)
        by_query: dict[tuple, list[Any]] = defaultdict(list)
        for row in rows:
            ex = _row_to_example(row)
            m = groups.member(ex)
            if m is not None:
                by_query[(ex.skeleton, m.key)].append(m)
        optional: dict[str, int] = defaultdict(int)
        kept: dict[str, int] = defaultdict(int)  # groups where every member says the word
        for members in by_query.values():
            if len(members) < 2:
                continue
            said = set().union(*(m.words for m in members))
            always = set.intersection(*(set(m.words) for m in members))
            for w in said - always:
                optional[w] += 1
            for w in always:
                kept[w] += 1
        self.optional, self.kept = dict(optional), dict(kept)
        return frozenset(w for w, n in optional.items()
                         if n >= MIN_GROUPS and n >= kept.get(w, 0) * MIN_RATIO
                         and not w.startswith("dir:") and not _schema(self.catalog, w) and not _ranks(w))


def _ranks(word: str) -> bool:
    """A superlative ("cheapest": optional only beside its synonyms "lowest", "least expensive"): never free."""
    from sqlgenie.inference.verify import _SUPERLATIVE

    return word in _SUPERLATIVE or (len(word) > 5 and word.endswith("est"))


def _schema(catalog: Any, word: str) -> bool:
    """A table or column name (or a word of one): never free."""
    if catalog is None:
        return False
    try:
        for t in catalog.tables:
            names = [t.name] + [c.name for c in t.columns]
            for n in names:
                parts = n.lower().split("_")
                if word == n.lower() or word in parts or word.rstrip("s") in parts:
                    return True
    except Exception:
        return False
    return False


def free_words(retriever: Any, catalog: Any) -> frozenset[str]:
    """The free words of the retriever's scope (empty when :data:`ENABLED` is off or they cannot be read)."""
    if not ENABLED:
        return frozenset()
    from sqlgenie.inference.verify import cached_per_bank

    try:
        return cached_per_bank(retriever, "_free_words", lambda stamp: FreeWords(retriever, catalog, stamp)).words()
    except Exception:  # an aid: never a reason to fail an answer
        return frozenset()


#: On (with :data:`IMPLIED_CONSTANTS`): a question with an equative comparison ("as early in the morning *as i
#: can*", "as soon as possible") keeps every word: the words after its second "as" say a superlative that no
#: free-word statistics can see (issue 13, helper atis16; the wrong answer atis15 met on ATIS seed 12).
EQUATIVES = True
_EQUATIVE = re.compile(r"\bas\s+(?:[a-z']+\s+){1,6}?as\b")


def equative(text: str) -> bool:
    """The text compares by "as ... as" (an equative: "as early as i can", "as cheap as possible")."""
    return bool(_EQUATIVE.search(text.lower()))


#: On (with :data:`IMPLIED_CONSTANTS`): when one question says a restrictive focus word ("only", a closed class of
#: English) and the other does not, every word counts: "Is ANTHRCUL 375 *only* offered in the Fall ?" asks whether it
#: is offered in no other semester, which "Is AEROSP 513 available to me in the Fall ?" never asks (ADVISING seed 13,
#: helper atis17: "only", "offered" and "available" were all free there).
FOCUS = True
_FOCUS = frozenset({"only", "solely", "exclusively"})


def focus_apart(texts: Sequence[str]) -> bool:
    """One of the texts says a restrictive focus word ("only") that another does not."""
    said = [_FOCUS & set(re.findall(r"[a-z']+", t.lower())) for t in texts]
    return len(said) > 1 and any(a != b for a, b in zip(said, said[1:]))


def unworded(words: list[str], free: Any, texts: Sequence[str] = ()) -> list[str]:
    """``words`` (one question's wording apart from the other's) without the free ones, when
    :data:`IMPLIED_CONSTANTS` is on; ``free()`` gives the free words (read only when needed); ``texts``:
    the two questions (one with an equative keeps every word, :data:`EQUATIVES`)."""
    if not IMPLIED_CONSTANTS or not words:
        return words
    if EQUATIVES and any(equative(t) for t in texts):
        return words
    if FOCUS and focus_apart(texts):
        return words
    known = free()
    return [w for w in words if w not in known]
