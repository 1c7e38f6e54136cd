"""Schema words the bank says and never reads (issue 13, helper cover19a).

Adaptation refuses a candidate when the question adds a *schema word* (a word of a table or
column name) that the example's SQL does not use (``adapt.question_diff``): "flights with
*meals*" against "flights from X to Y" asks for a column the query does not read. A word is a
schema word by the catalog alone, though, and some are the data set's ordinary wording: in
ADVISING "term" ("in the Spring or Summer *term*") is a word of ``student.admit_term`` and
``student_record.repeat_term``, "class" one of ``classroom`` and "take" one of
``comment_instructor``'s columns, yet 86, 53 and 70 verified questions of the bank say them and
**no** query of theirs reads a column they name: the bank answers "term" with ``semester``,
"class" with ``course``. On ADVISING seeds 12 and 13 "term" and "class" were the schema words of
29 and 18 refused seen questions ("Are 200 -level classes available in Spring or Summer *term* ?"
against "... in the Spring or Summer ?").

:func:`idle_words` reads the verified bank of the scope once (cached until it changes): a schema
word that at least :data:`MIN_USES` verified questions say (as adaptation's diff reads them:
singular forms outside the values) while none of their queries uses an identifier it names
(``adapt.word_in`` over the query's vocabulary, as the diff reads it) and that the bank does not write
as constants (``word_constants``: tied, or at the usual share; ATIS "night", a word of
``fare_basis.night``, is written as ``departure_time`` constants) is **idle**: the bank shows it as
wording, never as a part of a query. An idle word the question adds is no schema change
(it stays a soft difference, and every other check still reads it). Learned per scope from the
bank's own examples, never a word list; a schema word one verified query reads is never idle.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable
from typing import Any

__all__ = ["BEFORE_VALUE", "ENABLED", "MIN_USES", "IdleSchemaWords", "idle_words", "without_idle", "words_before_values"]

#: On: a schema word the bank says in :data:`MIN_USES` or more verified questions and reads in none of
#: their queries is no schema change in adaptation's word diff. Off: every schema word counts.
#: **Off** by default (lead, session 19): on the reserved ADVISING seed it answered two novel questions wrong
#: through "take" ("courses I can take ... to satisfy my ULCS requirement" read as "courses offered ... meet the
#: MDE requirement": the gold reads the student's record), beside two right ones; over three ADVISING seeds its
#: added answers were right 10 times in 13, below the route's precision. A word that names no column of the
#: bank's queries may still say which query is asked; a license that reads that is left to do (a first try,
#: tables the word cues in the bank, removed none of the two and lost three right answers on seed 13).
ENABLED = False
#: On: an idle word right before a value of the question still counts as a schema change (it may name the
#: value's column). ADVISING seed 13 without it: "If I *take* 699 , how many credits will I receive ?" answered
#: from "Of the upper-level classes , how many are 14 credits ?" with ``credits = '699'`` (a novel question).
BEFORE_VALUE = True
#: Verified questions that must say the word (a word the bank rarely says shows nothing).
MIN_USES = 5
#: Verified examples read at most (a bigger bank is read in its first rows only).
MAX_EXAMPLES = 20000


class IdleSchemaWords:
    """Idle schema words of one scope (see module doc), read on first use."""

    def __init__(self, retriever: Any, catalog: Any, schema_word: Callable[[str], bool],
                 stamp: Any = None) -> None:
        self.retriever, self.catalog, self.schema_word, self.stamp = retriever, catalog, schema_word, stamp
        self._words: frozenset[str] | None = None
        self.said: dict[str, int] = {}
        self.read: dict[str, int] = {}

    def words(self) -> frozenset[str]:
        if self._words is None:
            self._words = self._read()
        return self._words

    def _read(self) -> frozenset[str]:
        from example_bank.store import _row_to_example
        from sqlgenie.inference.adapt import example_sql_reading, word_in
        from sqlgenie.inference.groups import groups_of
        from sqlgenie.inference.verify import scope_rows
        from sqlgenie.inference.word_constants import word_constants

        r = self.retriever
        rows = scope_rows(r, MAX_EXAMPLES)
        groups = groups_of(r, self.catalog)
        said: dict[str, int] = defaultdict(int)
        read: dict[str, int] = defaultdict(int)
        for row in rows:
            ex = _row_to_example(row)
            member = groups.member(ex)
            if member is None:
                continue
            try:
                used = set(example_sql_reading(ex.sql, self.catalog).vocabulary()[0])
            except Exception:
                continue
            for w in member.words:
                if w.startswith("dir:") or not self.schema_word(w):
                    continue
                said[w] += 1
                if word_in(w, used):
                    read[w] += 1
        self.said, self.read = dict(said), dict(read)
        idle = [w for w, n in said.items() if n >= MIN_USES and not read.get(w)]
        constants = word_constants(r, self.catalog) if idle else None
        return frozenset(w for w in idle if not _written_as_constants(w, constants))


def _written_as_constants(word: str, constants: Any) -> bool:
    """The bank writes ``word`` as constants its queries compare (``word_constants``: tied, or at the usual
    share): it is read, as numbers rather than as a column it names (ATIS "night", a word of
    ``fare_basis.night`` that the bank's questions mean as ``departure_time`` constants)."""
    if constants is None:
        return False
    try:
        return bool(constants.tied(word) or constants.usual(word))
    except Exception:  # unreadable: the word is not shown to be wording
        return True


def idle_words(retriever: Any, catalog: Any, schema_word: Callable[[str], bool]) -> frozenset[str]:
    """The idle schema words of the retriever's scope (empty when :data:`ENABLED` is off or they cannot be read)."""
    if not ENABLED:
        return frozenset()
    from sqlgenie.inference.verify import cached_per_bank

    try:
        return cached_per_bank(retriever, "_idle_schema_words",
                               lambda stamp: IdleSchemaWords(retriever, catalog, schema_word, stamp)).words()
    except Exception:  # an aid: never a reason to fail an answer
        return frozenset()


def without_idle(schema_changes: list[str], idle: Callable[[], frozenset[str]] | None,
                 new_masked: str | None = None) -> list[str]:
    """``schema_changes`` (adaptation's diff) without the words the bank says and never reads; ``idle()``
    gives them (read only when a schema word differs). A word right before a value of the question
    (``new_masked``) stays a schema change when :data:`BEFORE_VALUE` is on: it may say which column the value
    fills ("If I *take* 699 , how many credits ...": a course number, not credits)."""
    if not ENABLED or idle is None or not schema_changes:
        return schema_changes
    known = idle()
    if BEFORE_VALUE and new_masked:
        known = known - words_before_values(new_masked)
    return [w for w in schema_changes if w not in known]


def words_before_values(masked_text: str) -> frozenset[str]:
    """The words right before each value (``[mask]``) of a masked question, in adaptation's singular forms."""
    from sqlgenie.inference.adapt import _tokens

    words = re.findall(r"\[mask\]|[a-z0-9']+", masked_text.lower())
    before = [words[i - 1] for i, w in enumerate(words) if w == "[mask]" and i and words[i - 1] != "[mask]"]
    return frozenset(t for w in before for t in _tokens(w))
