"""Close verified candidates that disagree: resolved where the bank's own groups show the separating word.

The match route refuses when two verified candidates within ``TIE_MARGIN`` give different SQL
(:meth:`sqlgenie.inference.pipeline.Asker._adapt`): on templated banks these are mostly twin queries
("please give me flight *schedules* from X to Y", which returns the times, against "i need a flight
from X to Y") that the embedding cannot tell apart, and the refusal is right whenever nothing in the
words separates them. Often something does, and the bank says what: each candidate's **group** (the
verified paraphrases of its query, :mod:`sqlgenie.inference.groups`) has words that *every* member
says ("schedule", "time") and words *no* member of the other group says. Read on ATIS seeds 9 and 10
(issue 13, helper atis10), a fifth of the seen questions refused by a tie had such a word.

:func:`resolve` drops a candidate when its group (at least :data:`MIN_MEMBERS` verified members) says a
word in every member that the asked question does not say and that no member of another candidate's
group says; and, the other way round, when the question says a word that every member of another
candidate's group says and no member of its own group says. Words are compared as the group license
compares them (content words, their lemmas). The answer is given only when every candidate left gives
the same SQL, at least one was dropped, and the question says no word that some paraphrase of a dropped
candidate says and no paraphrase of a kept one (:func:`favoured`: "... to LAS VEGAS *and back*" against a
one-way twin, whose round-trip twin's paraphrases say "back"); otherwise the tie refuses as before. Only candidates that
verified are ever chosen (a candidate vetoed by a later rule still votes against, as before).
"""

from __future__ import annotations

from typing import Any, Sequence

__all__ = ["ENABLED", "MIN_MEMBERS", "favoured", "resolve", "separating_words"]

#: Off: close candidates that disagree always refuse (A/B measurements).
ENABLED = True
#: A group says a word "in every member" only when it has this many verified members.
MIN_MEMBERS = 2


def _words(member: Any) -> set[str]:
    return set(member.words) | set(member.lemmas)


def _profile(asker: Any, example: Any) -> tuple[set[str], set[str]] | None:
    """(words every member of the example's group says, words any member says); None for a small group."""
    from sqlgenie.inference import groups

    try:
        members = groups.groups_of(asker.retriever, asker.catalog).group(example).members
    except Exception:
        return None
    if len(members) < MIN_MEMBERS:
        return None
    every = set.intersection(*(set(m.words) for m in members))
    every = {w for w in every if not w.startswith("dir:")}
    return every, set().union(*(_words(m) for m in members))


def _question_words(masked_text: str) -> set[str]:
    from sqlgenie.inference.groups import content_words
    from sqlgenie.inference.verify import lemma, tokens

    return content_words(masked_text) | {lemma(t) for t in tokens(masked_text)}


def separating_words(mine: tuple[set[str], set[str]], theirs: tuple[set[str], set[str]], asked: set[str]
                     ) -> list[str]:
    """Why a candidate with group profile ``mine`` is not the asked question's query against one with
    ``theirs``: words every member of its group says that the question does not and no member of the
    other says; words the question says that every member of the other says and no member of its own."""
    from sqlgenie.inference.verify import lemma

    def said(word: str, words: set[str]) -> bool:
        return word in words or lemma(word) in words

    out = [w for w in sorted(mine[0]) if not said(w, asked) and not said(w, theirs[1])]
    out += [w for w in sorted(theirs[0]) if said(w, asked) and not said(w, mine[1])]
    return out


def favoured(dropped: tuple[set[str], set[str]], kept: tuple[set[str], set[str]], asked: set[str]) -> list[str]:
    """Words of the question that some paraphrase of the dropped twin says and no paraphrase of the kept one
    ("... from DETROIT to LAS VEGAS *and back*": "back" is said by the round-trip twin's paraphrases only)."""
    from sqlgenie.inference.verify import lemma

    def said(word: str, words: set[str]) -> bool:
        return word in words or lemma(word) in words

    return sorted(w for w in asked if said(w, dropped[1]) and not said(w, kept[1]))


def resolve(asker: Any, outcomes: Sequence[tuple[Any, Any]], close: Sequence[tuple[Any, str | None]],
            masked_text: str, same: Any) -> tuple[Any, Any, str] | None:
    """``(candidate, adapted, note)`` of the one query left when separating words drop the others from a
    tie of ``outcomes[0]`` and ``close`` (``(candidate, sql)``, vetoed ones included), else None.
    ``same(sql_a, sql_b)`` says whether two SQL texts are one query (the tie rule's own comparison)."""
    if not ENABLED or not outcomes:
        return None
    adapted_of = {id(c): a for c, a in outcomes}
    everyone = [(outcomes[0][0], outcomes[0][1].sql)] + [(c, sql) for c, sql in close]
    profiles = [_profile(asker, c.example) for c, _sql in everyone]
    if any(p is None for p in profiles):
        return None
    asked = _question_words(masked_text)
    dropped: dict[int, list[str]] = {}
    for i, (mine, _) in enumerate(zip(profiles, everyone)):
        for j, theirs in enumerate(profiles):
            if i == j or same(everyone[i][1] or "", everyone[j][1] or ""):
                continue
            why = separating_words(mine, theirs, asked)
            if why:
                dropped.setdefault(i, []).extend(w for w in why if w not in dropped.get(i, []))
    left = [i for i in range(len(everyone)) if i not in dropped]
    if not dropped or not left:
        return None
    if any(favoured(profiles[i], profiles[k], asked) for i in dropped for k in left):
        return None  # the question also says a word only a dropped twin's paraphrases say: no one-sided evidence
    if any(not same(everyone[left[0]][1] or "", everyone[k][1] or "") for k in left[1:]):
        return None
    chosen = next((k for k in left if id(everyone[k][0]) in adapted_of), None)
    if chosen is None:
        return None
    cand = everyone[chosen][0]
    words = sorted({w for ws in dropped.values() for w in ws})
    ids = ", ".join(f"#{everyone[i][0].example.id}" for i in sorted(dropped))
    note = (f"close example(s) {ids} give other SQL, but their paraphrases' words ({', '.join(words)}) "
            f"separate them from your question")
    return cand, adapted_of[id(cand)], note
