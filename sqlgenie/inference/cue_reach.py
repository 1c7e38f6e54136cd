"""The own template out of reach: a second, deeper reach for examples said with the question's meaning classes
(issue 13, ATIS seen coverage, helper atis19b).

MiniLM places "what flights go from [MASK] to [MASK] *before* [MASK]" nearer "... *after* [MASK]" (0.989)
than its own template's "list flights from [MASK] to [MASK] *before* [MASK]" (0.959, 59th on ATIS seed 13).
The deeper candidates (:mod:`sqlgenie.inference.deeper`: the first :data:`deeper.EXTRA` that fit among the
:data:`deeper.DEPTH` nearest) are then all "after" examples, which adaptation refuses for their meaning
words, and the own template is never tried.

cover19b's ``time_readings.CUES_FIRST`` reached 100 deep and tried the candidates said with the question's
meaning classes *first*, in place of the usual deeper candidates. Read on ATIS seed 12 (the two records it
changed for the worse), neither was a tie nor a license that could not tell two templates apart: both
questions say **no** meaning class ("what is the cheapest flight from SAN FRANCISCO to PITTSBURGH on sunday",
"show fares and flights from DENVER to OAKLAND": "cheapest" is no cue word), so "said with the same classes"
held for every example without one, and far examples sharing the question's values (retrieval's value bonus)
took the usual deeper candidates' places: the right "give me the cheapest flight from DALLAS to BALTIMORE on
saturday" was no longer tried (refused), and "list all round trip fares from PITTSBURGH to WASHINGTON", whose
SQL disagreed with "show me the fares from WASHINGTON to OAKLAND" and so refused the question by the tie rule,
was no longer tried either (the fares-only answer, wrong).

So the reach here changes nothing the usual deeper candidates decide (:func:`may_reach`): it runs only

* after they were tried and **none verified** (no answer, no tie, no veto, no license refusal: a verified
  candidate is evidence the wording was reached, and a refusal then stands),
* for a question that **says a meaning class** (:func:`sqlgenie.inference.groups.cue_classes`, the non-soft
  classes adaptation compares: "before" LT, "after" GT, "between" RANGE, "arriving" INBOUND, ...),

and tries (:func:`candidates`) the examples among the :data:`DEPTH` nearest, not tried yet, above the match
threshold, **said with exactly the question's meaning classes**, in retrieval's order, the first
:data:`deeper.EXTRA` that fit the question's values; they are adapted and verified like the usual deeper
candidates (every check, the tie rule among them, a candidate asking another thing left out of the tie),
and the answer passes the same stricter license. Two guards (:data:`VALUE_WORDS`: the word before each number
or date value said alike; :data:`AGREE`: a second example of the reach gives the answer's SQL) keep out the wrong
answers measured without them. Its one refusal of its own is :data:`AGREE`'s (``deeper candidate: unbacked``).
Measured: docs/benchmarks.md, "After atis19b".
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["AGREE", "DEPTH", "ENABLED", "VALUE_WORDS", "WITHOUT_CUES", "backed", "candidates", "cues", "may_reach", "value_words"]

#: Off: the deeper path tries the usual deeper candidates only, as before (A/B measurements).
ENABLED = True
#: Nearest bank examples read by the second reach (one pgvector query).
DEPTH = 300
#: On: the second reach runs for a question that says no meaning class too (its candidates then say none either).
WITHOUT_CUES = False
#: On: a candidate of the second reach says the word right before each number or date value as the question does
#: ("arriving *by* [MASK]" is no candidate for "arriving *at* [MASK]": "by" is no cue word, yet the example's SQL
#: compares ``<=`` where the question asks ``=``; ATIS s15). Off: any candidate said with the same classes.
VALUE_WORDS = True
#: On: an answer of the second reach needs a second candidate of it (another example) verified with the same SQL.
AGREE = True


def cues(masked_text: str) -> frozenset[str]:
    """The meaning classes a masked question says (adaptation's cue classes, the soft ones left out)."""
    from sqlgenie.inference.groups import cue_classes

    return frozenset(cue_classes(masked_text or ""))


def may_reach(masked_text: str, verified_any: bool) -> bool:
    """Whether the second reach runs: on, the usual deeper candidates had none verified, and the question
    says a meaning class."""
    return ENABLED and not verified_any and (WITHOUT_CUES or bool(cues(masked_text)))


def _example_cues(asker: Any, example: Any) -> frozenset[str]:
    masked = getattr(example, "masked_question", None)
    return cues(masked if masked else asker.retriever.mask(example.question).text)


def value_words(masked_text: str, spans: Sequence[Any]) -> tuple[str, ...]:
    """The word right before each number or date value of a masked question (its [MASK]s in order, the
    spans' classes by :class:`sqlgenie.inference.adapt.Span`), sorted; "" at the start of the question."""
    import re

    from sqlgenie.inference.adapt import Span

    parts = re.split(r"\[mask\]", masked_text or "", flags=re.IGNORECASE)
    classes = [Span.of(x).cls for x in spans]
    if len(parts) != len(classes) + 1:
        return ()
    out = []
    for before, cls in zip(parts, classes):
        if cls == "text":
            continue
        words = re.findall(r"[a-z0-9']+", before.lower())
        out.append(words[-1] if words else "")
    return tuple(sorted(out))


def _words_alike(asker: Any, masked: Any, example: Any) -> bool:
    """With :data:`VALUE_WORDS`: the example says the word before each number or date value as the question does."""
    if not VALUE_WORDS:
        return True
    from sqlgenie.inference import deeper

    ex_masked = getattr(example, "masked_question", None) or asker.retriever.mask(example.question).text
    return value_words(masked.text, masked.spans) == value_words(ex_masked, deeper._spans(asker, example))


def candidates(asker: Any, retrieval: Any, tried: Sequence[Any], forced: bool = False) -> list[Any]:
    """The first :data:`deeper.EXTRA` examples among the :data:`DEPTH` nearest, not in ``tried``, said with
    exactly the question's meaning classes, that fit its values (:func:`deeper.fits`), ranked as
    retrieval ranks them."""
    from example_bank.retrieval import (
        embedding_text,
        rank_score,
        span_values,
        value_overlap,
    )
    from sqlgenie.inference import deeper

    r = asker.retriever
    masked = retrieval.masked
    mine = cues(masked.text)
    if not mine and not WITHOUT_CUES:
        return []
    vector = r.encode([embedding_text(masked)])[0]  # the encoder's cache: retrieval just encoded it
    hits = r.nearest(vector, k=DEPTH, allowed_tables=r.allowed, statuses=r.statuses,
                     ef_search=max(int(getattr(r, "ef_search", 0) or 0), DEPTH))
    seen = {c.example.id for c in tried}
    threshold = asker.settings.match_threshold
    values = span_values(masked.spans)
    bonus = getattr(r, "value_bonus", 0.1)
    pool = [h for h in hits if h.example.id not in seen and (forced or h.score >= threshold)
            and _example_cues(asker, h.example) == mine]
    pool.sort(key=lambda h: -rank_score(h.score, value_overlap(values, span_values(h.example.spans)), bonus))
    out: list[Any] = []
    for hit in pool:
        if len(out) >= deeper.EXTRA:
            break
        if deeper.fits(masked.spans, deeper._spans(asker, hit.example), asker.value_columns) and _words_alike(
                asker, masked, hit.example):
            out.append(hit)
    return out


def backed(adapted: Any, cand: Any, outcomes: Sequence[Any]) -> bool:
    """With :data:`AGREE`: another verified candidate of the second reach (``outcomes``: ``(candidate,
    adapted)`` of its pool) gives ``adapted``'s SQL."""
    if not AGREE:
        return True
    from example_bank.skeleton import normalized_or_text as norm
    from sqlgenie.inference import tie_spelling

    mine = norm(adapted.sql)
    return any(c.example.id != cand.example.id and (a.sql == adapted.sql or norm(a.sql) == mine
                                                    or tie_spelling.same_query(adapted.sql, a.sql))
               for c, a in outcomes)
