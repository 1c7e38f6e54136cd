"""Deeper candidates when a nearest example fits the values but another wording refused it.

matchr's deeper path (:mod:`sqlgenie.inference.deeper`) stays shut when a nearest example *fits*
the question's values and was refused for its wording: retrieval then found the question's value
shape, so examples worded further away were not tried (opening it unconditionally answered ATIS
questions wrong: "show flights ... on a THURSDAY" from "... on thursday", whose SQL holds a date
for the word). Read on the fresh split seed 5 (issue 13, helper matchv), the fitting nearest
examples are often of another query with the same values ("What papers have X and Y written?" is
the 15th nearest to "what paper did X and Y write together?", the nearest are yes/no and one-author
queries), and on scholar every seen question the open gate answered was right, while each wrong
ATIS answer came from an example whose question says words the asked question drops ("thursday",
"return ... on the same day", "in the morning").

So the gate opens (:func:`allowed`) for a deeper candidate that passes matchr's stricter license,
whose SQL compares with no constant that its question's values did not produce
(:func:`unsaid_constants`: "on thursday" in ATIS's bank is a date, "in the evening" a time range),
**and** whose question says no content word the asked question does not say (:func:`dropped_words`):
each word of the example is in the question, as the same word, another form of it (its lemma or
suffix stem: "written" / "write") or a filler word, unless another paraphrase of its query (its
skeleton group) drops the same words and adds nothing (the group's removal license). Both
directions are then accounted for: what the question adds (matchr's license) and what the
example says.
"""

from __future__ import annotations

from typing import Any

__all__ = ["ENABLED", "allowed", "dropped_words", "unsaid_constants"]

#: On (issue 13, helper matchx): with ``value_reading`` refusing the DALLAS FORT WORTH answers that made
#: matchv switch it off, and :data:`SAID_CONSTANTS`, it added right answers on ATIS seeds 7, 8, 0 and scholar
#: seed 0 and no wrong answer on a novel question (docs/benchmarks.md, "After matchx"). Off: the deeper path
#: stays shut whenever a nearest example fits the values (matchr's gate).
ENABLED = True


def dropped_words(asker: Any, retrieval: Any, cand: Any) -> list[str]:
    """Content words and meaning classes the candidate's question says and the asked question does
    not, that no other paraphrase of its query drops as well."""
    from sqlgenie.inference.adapt import _CUE_OF, _tokens, question_diff
    from sqlgenie.inference.deeper import unlicensed_removals
    from sqlgenie.inference.deeper_words import stem
    from sqlgenie.inference.verify import lemma

    new_masked = retrieval.masked
    ex_masked = asker.retriever.mask(cand.example.question)
    if ex_masked.key == new_masked.key:
        return []
    diff = question_diff(ex_masked.text, new_masked.text)
    mine = {stem(f) for w in _tokens(new_masked.text) for f in (w, lemma(w))}
    removed = [w for w in diff.removed if stem(w) not in mine and stem(lemma(w)) not in mine]
    if removed:  # words the bank shows no query needs (free_words, atis12)
        from sqlgenie.inference.free_words import free_words

        free = free_words(asker.retriever, asker.catalog)
        removed = [w for w in removed if w not in free]
    ex_cues = {_CUE_OF[w] for w in _tokens(ex_masked.text) if w in _CUE_OF}
    new_cues = {_CUE_OF[w] for w in _tokens(new_masked.text) if w in _CUE_OF}
    removed += sorted(ex_cues - new_cues)
    return unlicensed_removals(asker, cand, new_masked.text, removed)


def unsaid_constants(asker: Any, cand: Any, sql: str | None = None) -> list[str]:
    """Constants the candidate's SQL compares a column with (or a LIKE pattern) that no value of its
    question produced: what its wording implies ("on thursday" as a date, "in the evening" as
    ``departure_time BETWEEN 1800 AND 2200``), which a question worded apart may not."""
    from sqlgenie.autocorrect.base import parse_sql
    from sqlgenie.inference.adapt import Span, align, collect_slots
    from sqlgenie.inference.deeper import _spans

    try:
        slots = collect_slots(parse_sql(sql or cand.example.sql), asker.catalog)  # sql: as adapted (cover18)
        bound = {b.slot for b in align([Span.of(x) for x in _spans(asker, cand.example)], slots).bindings}
    except Exception:
        return ["(unreadable SQL)"]
    return [f"{(s.column or '?').rsplit('.', 1)[-1]} {s.text}" for s in slots
            if s.index not in bound and s.context in ("compare", "like") and s.column]


#: The asked question's own words account for the constants the bank writes for them ("sunday" ->
#: ``day_number 27``; :func:`sqlgenie.inference.word_constants.said_by`; issue 13, helper matchx).
SAID_CONSTANTS = True


def allowed(asker: Any, retrieval: Any, cand: Any) -> str | None:
    """Why a deeper candidate reached past a fitting nearest example does not answer (None: it may)."""
    from sqlgenie.inference import deeper_readings

    implied = unsaid_constants(asker, cand, deeper_readings.as_adapted(asker, retrieval, cand))  # cover18: swapped
    if implied and SAID_CONSTANTS:
        from sqlgenie.inference import word_constants

        said = deeper_readings.said_constants(word_constants.word_constants(asker.retriever, asker.catalog),
                                              retrieval.masked.text)  # cover18: at the usual share too
        implied = [c for c in implied if tuple(c.split(" ", 1)) not in said]
    if implied:
        return (f"example #{cand.example.id} verifies but is not among the nearest examples, a nearer example "
                f"fits your values, and its SQL compares with {', '.join(implied)}, which no value of its question says")
    dropped = deeper_readings.swapped_out(asker, retrieval, cand, dropped_words(asker, retrieval, cand))
    if dropped:
        return (f"example #{cand.example.id} verifies but is not among the nearest examples, a nearer example "
                f"fits your values, and its question says {', '.join(map(repr, dropped))}, which yours does not")
    return None
