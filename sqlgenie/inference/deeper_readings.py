"""What the bank already reads, applied to a deeper candidate's license (issue 13, helper cover18).

A seen question whose own template retrieval ranks past the nearest five is answered only through
:mod:`sqlgenie.inference.deeper`, under a stricter license than the usual pool: the question may add no
word that no paraphrase of the candidate's query says (:func:`deeper.added_words`), and both questions
must ask about the same thing (answer heads sharing a word, :func:`deeper.asked_differently`). On ATIS
seed 12, 27 of the 100 refused seen questions had an own-template example that verifies alone (every
check of the usual pool), and a third of those reached the deeper path and were refused by that license
for words the bank itself reads:

* **a word the bank writes as constants that the query compares** (:func:`written_words`): "what is the
  cheapest flight from SAN FRANCISCO to PITTSBURGH on *sunday*" from "give me the cheapest flight from
  DALLAS to BALTIMORE on *saturday*": adaptation already read the example's "saturday" as the question's
  "sunday" (:mod:`sqlgenie.inference.word_constants`: ``day_number = 27 AND month_number = 8``, as the
  verified questions saying "sunday" write it), yet "sunday" counted as a word no paraphrase says. A word
  the bank ties to constants (:meth:`WordConstants.tied`, else at the usual share) on at least one column
  other than a year, every one of which the adapted query compares with on that column, is accounted for:
  the query does what the verified questions saying the word do.
* **answer heads the bank answers alike** (:func:`same_heads`): "show BUSINESS class *fares* on US from
  BOSTON to TORONTO" from "what is the *price* of BUSINESS class from BOSTON to SAN FRANCISCO on TW":
  the heads share no word, but the verified questions asking for a "fare", a "price" or a "cost" are all
  answered with the fare table (:class:`sqlgenie.inference.answer_words.AnswerHeads`, ≥ 80 % of ≥ 3 uses).
  Heads differ only when the bank reads each of them (a head it has no reading for still refuses) and
  reads them differently.
* **the constants a word says at the usual share** (:func:`said_constants`): past a fitting nearest
  example (:mod:`sqlgenie.inference.worded_apart`), a deeper candidate's SQL may compare only constants
  its question's values or the asked question's words say. "morning" is ``departure_time`` 0 in 87 % and
  1200 in 67 % of the ATIS questions saying it: the 80 % rule (``word_constants.said_by``) says 0 and not
  1200, so "i would like a morning flight from CHARLOTTE to NEWARK" was refused for a candidate comparing
  ``departure_time BETWEEN 0 AND 1200``. The usual share (:data:`word_constants.USUAL_SHARE`, the reading
  by which adaptation already swaps "morning" for "evening") says both.
* **the example as adaptation read it** (:func:`as_adapted`, :func:`swapped_out`): when
  :mod:`sqlgenie.inference.word_constants` read the candidate's "on saturday" as the question's "on sunday"
  (its SQL's ``day_number = 26`` as 27), the license compared the stored question and SQL all the same:
  "its question says 'saturday', which yours does not" (a schema word dropped), "its SQL compares with
  month_number 4, day_number 23, which no value of its question says" (``worded_apart``). The words the swap
  replaced are no dropped words, and the constants are read off the swapped SQL.

Learned from the bank in scope, never a word list; each reading has a switch. Both act only on the
deeper path, after the usual pool refused, so a bank hit through the nearest examples does not read them.
"""

from __future__ import annotations

from typing import Any, Iterable, Sequence

__all__ = ["CONSTANT_WORDS", "SAME_HEADS", "SWAPPED_WORDS", "USUAL_SAID", "as_adapted", "said_constants", "same_heads",
           "swapped_out", "written_words"]

#: Off: every added word no paraphrase says refuses a deeper candidate, as before.
CONSTANT_WORDS = True
#: Off: answer heads that share no word refuse a deeper candidate, as before.
SAME_HEADS = True
#: Off: past a fitting nearest example, only the constants a word is tied to at the 80 % rule count as said
#: by the question (``word_constants.said_by``), as before.
USUAL_SAID = True
#: Off: the deeper license reads the candidate's question and SQL as stored, not as adaptation read them after
#: ``word_constants``' swap ("on saturday" read as the question's "on sunday"), as before.
SWAPPED_WORDS = True


def _compared(sql: str, catalog: Any) -> dict[str, set[str]] | None:
    """Column (as :mod:`word_constants` keys it) -> the numbers ``sql`` compares it with."""
    from sqlgenie.autocorrect.base import parse_sql
    from sqlgenie.inference.adapt import collect_slots
    from sqlgenie.inference.word_constants import _slot_key

    try:
        slots = collect_slots(parse_sql(sql), catalog)
    except Exception:
        return None
    out: dict[str, set[str]] = {}
    for s in slots:
        if s.context == "compare" and not s.is_string and s.column and s.number is not None:
            out.setdefault(_slot_key(s), set()).add(s.text)
    return out


def written_words(words: Sequence[str], sql: str | None, ties: Any, catalog: Any) -> set[str]:
    """The words of ``words`` that the bank writes as constants (``ties``: a
    :class:`sqlgenie.inference.word_constants.WordConstants`) on at least one column other than a year,
    all of which ``sql`` compares with on their column (see module doc)."""
    if not CONSTANT_WORDS or ties is None or not sql or not words:
        return set()
    from sqlgenie.inference import word_constants

    found: set[str] = set()
    compared: dict[str, set[str]] | None = None
    for w in words:
        tied = ties.tied(w) or (ties.usual(w) if word_constants.USUAL_SHARE else {})
        if not tied or all(col.endswith(".year") for col in tied):
            continue
        if compared is None:
            compared = _compared(sql, catalog)
            if compared is None:
                return found
        if all(set(nums) <= compared.get(col, set()) for col, nums in tied.items()):
            found.add(w)
    return found


def same_heads(new_heads: Iterable[str], old_heads: Iterable[str], heads: Any) -> bool:
    """Whether the bank answers both questions' heads with the same thing: every head has a reading
    (``heads``: :class:`sqlgenie.inference.answer_words.AnswerHeads`, or its lazy form) and the
    readings of the two sides are equal."""
    if not SAME_HEADS or heads is None:
        return False
    new, old = list(new_heads), list(old_heads)
    if not new or not old:
        return False
    try:
        new_marks = [heads.marks(h) for h in new]
        old_marks = [heads.marks(h) for h in old]
    except Exception:  # the readings are an aid: without them the heads refuse as before
        return False
    if not all(new_marks) or not all(old_marks):
        return False
    return frozenset().union(*new_marks) == frozenset().union(*old_marks)


def said_constants(ties: Any, masked_text: str) -> set[tuple[str, str]]:
    """``(column, number)`` pairs the question's own words say by the bank: ``word_constants.said_by``
    and, with :data:`USUAL_SAID`, the constants each word writes at the usual share (see module doc)."""
    from sqlgenie.inference import word_constants

    said = word_constants.said_by(ties, masked_text)
    if not USUAL_SAID or ties is None or not word_constants.USUAL_SHARE:
        return said
    return said | {(col.rsplit(".", 1)[-1], n) for w in word_constants._content(masked_text)
                   for col, nums in ties.usual(w).items() for n in nums}


def _swap(asker: Any, retrieval: Any, cand: Any) -> tuple[str, list[Any]]:
    """The candidate's SQL and swaps as ``word_constants.rewrite`` reads it for the asked question."""
    from sqlgenie.inference import word_constants

    ex = cand.example
    if not SWAPPED_WORDS:
        return ex.sql, []
    try:
        ties = word_constants.word_constants(asker.retriever, asker.catalog)
        got = word_constants.rewrite(ex.sql, asker.retriever.mask(ex.question), retrieval.masked.text, ties,
                                     asker.catalog)
    except Exception:  # a reading: without it the license reads the example as stored
        return ex.sql, []
    return (got[0], list(got[2])) if got else (ex.sql, [])


def as_adapted(asker: Any, retrieval: Any, cand: Any) -> str:
    """The candidate's SQL with the constants of the words ``word_constants`` swapped (see module doc)."""
    return _swap(asker, retrieval, cand)[0]


def swapped_out(asker: Any, retrieval: Any, cand: Any, words: Sequence[str]) -> list[str]:
    """``words`` (said by the candidate's question, not the asked one) without those the swap read as the
    question's words."""
    if not words:
        return list(words)
    old = {s.old for s in _swap(asker, retrieval, cand)[1]}
    return [w for w in words if w not in old]
