"""Skeleton groups of the bank: a seen question is compared with every paraphrase of one intent.

The bank often holds several questions for one query: the same SQL with other values
("flights from BOSTON to DENVER", "i'd like to fly from DALLAS to ATLANTA"). Verifying
a new question against one example only refuses every word that example happens not
to use, so the paraphrases of a seen intent were refused as "worded differently"
(issue 13). A **group** is the set of verified examples whose SQL has the same
skeleton (canonical SQL with literals masked, the bank's ``skeleton`` column) *and*
the same constants outside their questions' values (the literals no masked span
produced: ``departure_time BETWEEN 0 AND 1200`` for "morning" is part of the intent,
so "morning" and "evening" examples are two groups).

Used in the match route (:meth:`sqlgenie.inference.pipeline.Asker._adapt`) for every
candidate of the pool:

* :meth:`Group.license` returns what the *group* says beyond the candidate: the
  words and meaning classes (aggregate, comparison, direction, ...) of the other
  members, outside their masked values. A word the new question adds is licensed when
  another example of the same group uses it (it is a paraphrase of the same query);
  a word no example of the group uses goes through the ordinary checks
  (:mod:`sqlgenie.inference.verify`) and keeps refusing when it is evidence of
  another structure.

Groups are read per skeleton on first use and cached on the retriever until the
verified bank of its scope changes (the same stamp as ``verify.BankValues``), so a
bank hit stays fast.

Measured and not kept: adding to the pool the member of a candidate's group worded
closest to the question (seed 0: ATIS +2 right answers and one more wrong one on a novel
question; the unread seed-1 split: scholar 2 right answers fewer, 2 wrong more), and
refusing a word no member uses that few other queries use (ATIS: 6 right answers lost of
7). See docs/benchmarks.md, "After matchc".
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Sequence

from sqlgenie.inference.adapt import (
    _CUE_OF,
    _SOFT_CUES,
    _STOP,
    DIRECTION_BEFORE_VALUE,
    _tokens,
    example_alignment,
)

__all__ = ["ENABLED", "Group", "GroupLicense", "Groups", "groups_of", "content_words", "cue_classes"]

#: Off: the match route compares each candidate alone (A/B measurements).
ENABLED = True

#: Members of one group read at most (a bank with hundreds of copies of one skeleton
#: gains nothing from the rest).
MAX_MEMBERS = 40

#: A skeleton's members read from the bank held in the process inside an ask (perf19), not asked of the store.
HELD_MEMBERS = True


_DIRECTION = DIRECTION_BEFORE_VALUE


def content_words(masked_text: str) -> set[str]:
    """Content words of a masked question outside its values (singular forms; fillers and
    meaning-class words left out), as :func:`sqlgenie.inference.adapt.question_diff` sees them,
    plus ``dir:from`` / ``dir:to`` for a direction word right before a value ("flights *to* DAL"
    and "flights *from* DAL" are not worded alike)."""
    words = {w for w in _tokens(masked_text) if w not in _STOP and w not in _CUE_OF}
    raw = re.findall(r"\[mask\]|[a-z0-9']+", masked_text.lower())
    words |= {"dir:" + _DIRECTION[raw[k - 1]] for k, w in enumerate(raw) if w == "[mask]" and k
              and raw[k - 1] in _DIRECTION}
    return words


def cue_classes(masked_text: str) -> set[str]:
    """Meaning classes (aggregate, comparison, negation, direction, ...) a masked question uses."""
    return {_CUE_OF[w] for w in _tokens(masked_text) if w in _CUE_OF and _CUE_OF[w] not in _SOFT_CUES}


@dataclass
class Member:
    example: Any  # example_bank.store.BankExample
    masked: Any  # MaskedQuestion
    words: set[str]  # content words (adapt's singular tokens)
    lemmas: set[str]  # verify's lemmas of every token
    cues: set[str]  # meaning classes
    key: tuple  # the intent's constants


class GroupLicense:
    """What the other examples of one group say, against one example and one question.

    * a word or meaning class the question adds to the example is licensed when another
      member says it (:meth:`word_added_ok`, :meth:`cue_added_ok`);
    * words or classes the example has and the question lacks are licensed together when
      one other member lacks all of them and says nothing that neither the question nor
      the example says (:meth:`removed_ok`): that member is a paraphrase of the same query
      worded as the question is, so the dropped words carried no filter.
    """

    def __init__(self, others: Sequence[Member], example_words: set[str], new_words: set[str],
                 new_cues: set[str]) -> None:
        self.others = list(others)
        self.example_words, self.new_words, self.new_cues = example_words, new_words, new_cues
        self.words: set[str] = set().union(*(m.words for m in self.others))
        self.lemmas: set[str] = set().union(*(m.lemmas for m in self.others))
        self.cues: set[str] = set().union(*(m.cues for m in self.others))

    def word_added_ok(self, word: str) -> bool:
        from sqlgenie.inference.verify import lemma

        w = word.lower()
        return w in self.words or w in self.lemmas or lemma(w) in self.lemmas

    def words_added_ok(self, words: Sequence[str]) -> bool:
        content = [w for w in words if w not in _STOP]
        return bool(content) and all(self.word_added_ok(w) for w in content)

    def cue_added_ok(self, cls: str) -> bool:
        return cls in self.cues

    def removed_ok(self, items: set[str]) -> bool:
        if not items:
            return True
        allowed = self.new_words | self.example_words
        return any(not (items & (m.words | m.cues)) and m.words <= allowed and m.cues <= self.new_cues
                   for m in self.others)

    def filter_diff(self, diff: Any) -> Any:
        """``diff`` (:class:`sqlgenie.inference.adapt.QuestionDiff`) without what the group licenses."""
        from sqlgenie.inference.adapt import QuestionDiff

        cues = [c for c in diff.cue_changes if not (c in self.new_cues and self.cue_added_ok(c))]
        removed_cues = {c for c in cues if c not in self.new_cues}
        if removed_cues and self.removed_ok(removed_cues):
            cues = [c for c in cues if c not in removed_cues]
        added = [w for w in diff.added if not self.word_added_ok(w)]
        removed = list(diff.removed)
        if removed and self.removed_ok(set(removed)):
            removed = []
        kept = set(added) | set(removed)
        schema = [w for w in diff.schema_changes if w in kept]
        return QuestionDiff(added, removed, cues, schema)


@dataclass
class Group:
    members: list[Member] = field(default_factory=list)

    def license(self, example_id: int, new_masked_text: str) -> GroupLicense | None:
        """What the other members license for ``example_id`` against the new question
        (None: the example is alone in its group)."""
        others = [m for m in self.members if m.example.id != example_id]
        me = next((m for m in self.members if m.example.id == example_id), None)
        if not others or me is None:
            return None
        return GroupLicense(others, me.words, content_words(new_masked_text), cue_classes(new_masked_text))


def _constants_key(sql: str, spans: Sequence[Any], catalog: Any) -> tuple[tuple, set[str]] | None:
    """The literals of ``sql`` that no span of its question produced (the intent's own
    constants), as a sorted tuple, and the words of the spans bound to no literal ("this
    wednesday" masked as a date that the SQL does not use: its words are wording, not a
    value); None when the SQL does not parse."""
    try:
        slots, alignment = example_alignment(sql, spans, catalog)  # read once per text and catalog (read only)
    except Exception:
        return None
    spans = alignment.spans
    bound = {b.slot for b in alignment.bindings}
    key = tuple(sorted(f"{s.context}:{s.column or ''}:{s.text.lower()}" for s in slots if s.index not in bound))
    free = {w for i, s in enumerate(spans) if not alignment.of_span(i)
            for w in _tokens(s.text) if w not in _STOP and w not in _CUE_OF}
    return key, free


class Groups:
    """Skeleton groups of one retriever scope (see module doc)."""

    def __init__(self, retriever: Any, stamp: Any, catalog: Any = None) -> None:
        self.retriever, self.stamp, self.catalog = retriever, stamp, catalog
        self._by_skeleton: dict[str, list[Member]] = {}
        self._member: dict[int, Member] = {}

    # -- members -----------------------------------------------------------------------

    def member(self, example: Any) -> Member | None:
        got = self._member.get(example.id)
        if got is not None:
            return got
        masked = self.retriever.mask(example.question)
        keyed = _constants_key(example.sql, masked.spans, self.catalog)
        if keyed is None:
            return None
        from sqlgenie.inference.verify import lemma, tokens

        key, free = keyed
        got = Member(example, masked, content_words(masked.text) | free, {lemma(t) for t in tokens(masked.text)},
                     cue_classes(masked.text), key)
        self._member[example.id] = got
        return got

    def _skeleton_members(self, skeleton: str) -> list[Member]:
        got = self._by_skeleton.get(skeleton)
        if got is not None:
            return got
        from example_bank.store import _COLUMNS, _row_to_example

        r = self.retriever
        statuses = list(getattr(r, "statuses", ("verified",)))
        rows = self._held_members(skeleton, statuses)
        if rows is not None:
            members = [m for m in (self.member(_row_to_example(row)) for row in rows) if m is not None]
            self._by_skeleton[skeleton] = members
            return members
        query = (f"SELECT {_COLUMNS} FROM sqlgenie.bank_examples WHERE md5(skeleton) = md5(%s) AND skeleton = %s"
                 " AND status = ANY(%s)")
        params: list[Any] = [skeleton, skeleton, statuses]
        if getattr(r, "allowed", None) is not None:
            query += " AND tables <@ %s"
            params.append(sorted(r.allowed))
        query += " ORDER BY id LIMIT %s"
        params.append(MAX_MEMBERS)
        try:
            rows = r.store.execute(query, params).fetchall()
        except Exception:
            rows = []
        members = [m for m in (self.member(_row_to_example(row)) for row in rows) if m is not None]
        self._by_skeleton[skeleton] = members
        return members

    def _held_members(self, skeleton: str, statuses: list[str]) -> list[tuple] | None:
        """The rows of ``skeleton`` from the bank held in the process (:mod:`sqlgenie.inference.bank_snapshot`,
        this ask's bank version), as the store's query below returns them; None outside an ask, for statuses
        other than verified, or when the snapshot is off: the store answers."""
        from sqlgenie.inference.bank_snapshot import snapshot_for

        if not HELD_MEMBERS or statuses != ["verified"]:
            return None
        snapshot = snapshot_for(self.retriever.store, getattr(self.retriever, "allowed", None))
        return None if snapshot is None else snapshot.skeleton_rows(skeleton, MAX_MEMBERS)

    def group(self, example: Any) -> Group:
        """The examples with ``example``'s skeleton and intent constants (itself included)."""
        me = self.member(example)
        if me is None:
            return Group([])
        members = [m for m in self._skeleton_members(example.skeleton) if m.key == me.key]
        if all(m.example.id != example.id for m in members):
            members.append(me)
        return Group(members)


def groups_of(retriever: Any, catalog: Any = None) -> Groups:
    """The :class:`Groups` of the retriever's scope, kept on the retriever until the
    verified bank of that scope changes."""
    from sqlgenie.inference.verify import cached_per_bank

    return cached_per_bank(retriever, "_match_groups", lambda stamp: Groups(retriever, stamp, catalog))


def candidates(retriever: Any, catalog: Any, pool: Sequence[Any], new_masked: Any
               ) -> list[tuple[Any, Group | None]]:
    """The match route's candidates, each with its group; without a group when
    :data:`ENABLED` is off or the groups cannot be read."""
    if not ENABLED or not pool:
        return [(c, None) for c in pool]
    try:
        groups = groups_of(retriever, catalog)
        return [(c, groups.group(c.example)) for c in pool]
    except Exception:  # the groups are an aid: never a reason to fail an answer
        return [(c, None) for c in pool]
