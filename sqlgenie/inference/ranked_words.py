"""A ranking the bank says with another word (issue 13, helper cover19a).

``precision.missing_modifiers`` refuses a candidate when the question adds a word the bank always
ranks with (``ModifierWords``: 80 % of at least 3 verified questions saying it have SQL that ranks)
and the adapted query does not rank: "popular", "latest". On scholar it refused "How many times was
alex snoeren cited ?" against "How many citations does yejin choi have ?" ("your question says
“cited”, which the examples translate into a ranking that this example's query lacks"), because
the bank says "cited" mostly in "*most* cited papers on Parsing", "which paper was cited the
*most*": the ranking there is said by "most", not by "cited". The bank shows it: of its questions
that say "cited" and no ranking word (a superlative or an order: adaptation's MAX, MIN, OLD, NEW,
ASC, DESC cue classes), few rank ("papers cited by at least 5 papers", "papers typically cited by
parsing papers").

:func:`ranks_alone` recounts a ranking modifier over the verified questions that say it *without*
a ranking word; when the question itself says no ranking word, the word is no ranking modifier when
at least :data:`MIN_USES` such questions say it and fewer than :data:`MIN_SHARE` of them rank. A word
that ranks on its own ("popular"), or that too few questions say without a ranking word (scholar seed
13: "topics popular at NIPS 2015" alone), keeps refusing. Read on demand per word (at most
:data:`SAMPLE` questions), cached with the modifier words until the bank changes.
"""

from __future__ import annotations

from typing import Any

__all__ = ["ENABLED", "RANKING_CUES", "question_ranks", "ranks_alone"]

#: On: a word the bank ranks with only beside a ranking word is no ranking modifier for a question that
#: says no ranking word. Off: every ranking modifier counts (``precision.missing_modifiers`` as before).
ENABLED = True
#: Adaptation's cue classes that say a ranking themselves.
RANKING_CUES = frozenset({"MAX", "MIN", "OLD", "NEW", "ASC", "DESC"})
MIN_USES = 3
MIN_SHARE = 0.8
SAMPLE = 40


def question_ranks(masked_text: str) -> bool:
    """The (masked) question says a ranking word: a superlative or an order (adaptation's cue classes)."""
    from sqlgenie.inference.adapt import _CUE_OF, _tokens

    return any(_CUE_OF.get(w) in RANKING_CUES for w in _tokens(masked_text))


def ranks_alone(word: str, modifier_words: Any) -> bool:
    """``word`` (a ranking modifier of ``modifier_words``, a ``precision.ModifierWords``) may rank on its own:
    False only when at least :data:`MIN_USES` verified questions say it and no ranking word and fewer than
    :data:`MIN_SHARE` of their queries rank; True otherwise (the modifier keeps refusing)."""
    cache = modifier_words.__dict__.setdefault("_ranks_alone", {})
    got = cache.get(word)
    if got is not None:
        return got
    import re

    from sqlgenie.inference.precision import _ORDER, sql_features
    from sqlgenie.inference.verify import verified_rows

    rows = verified_rows(modifier_words.store, modifier_words.allowed, "id, masked_question, mask_spans, sql",
                         "masked_question ~* %s", [r"\m" + re.escape(word) + r"\M"], SAMPLE)
    if not rows:
        cache[word] = True
        return True
    uses = ordered = 0
    for _id, masked, spans, sql in rows:
        if question_ranks(masked or ""):
            continue
        uses += 1
        if _ORDER in sql_features(sql, spans or [], modifier_words.catalog):
            ordered += 1
    got = not (uses >= MIN_USES and ordered < MIN_SHARE * uses)  # too few such uses: no evidence, it ranks
    cache[word] = got
    return got
