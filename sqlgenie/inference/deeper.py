"""Deeper candidates: when none of the nearest bank examples verifies, try the next ones that fit.

The match route tries the five examples retrieval ranks first (``pipeline.ADAPT_CANDIDATES``).
On templated banks those five are often paraphrases of one or two *other* queries:
"papers by richard ladner and linda shapiro" is nearest to five one-author examples
("papers by linda shapiro in 2016", ...) that adaptation refuses at once because they have
one name where the question has two, while the example of the question's own template
("What papers have Richard Ladner and Linda Shapiro written?") is the 15th nearest. Most
seen-template refusals on scholar and ATIS were of that kind (issue 13, docs/benchmarks.md
"After matchr").

:func:`fallback` runs only when *no* candidate of the usual pool verified (a pool where a
candidate verified, or two disagreed, is decided exactly as before) **and none of them even fits
the question's values** (:func:`fits`): then retrieval missed the question's shape. When a
nearest example fits the values and was refused for its wording, examples worded further away
are not tried (measured: on ATIS they answered 1 question right for 3 wrong ones).

1. **Retrieve deeper** in the same pgvector index: the :data:`DEPTH` nearest masked
   questions (one query; the question's embedding is the one retrieval just computed, read
   back from the encoder's cache), above the match threshold, ranked as retrieval ranks them
   (:func:`example_bank.retrieval.rank_score`).
2. **Keep the ones that fit** the question's values before adapting anything
   (:func:`fits`): the same number of text, number and date values (adaptation refuses any
   other count), and every text value of the question whose columns the value cache knows
   sharing a column with a text value of the example (else adaptation refuses it as "a value
   of another column"). The first :data:`EXTRA` that fit are adapted and verified like the
   usual pool (the same checks, the same tie rule among them: verified candidates within
   ``TIE_MARGIN`` of the best of *these* must agree).
3. **A stricter license** for the answer (:func:`stricter_license`): a candidate retrieval did
   not rank among the nearest five answers only when

   * the question adds no content word that neither it nor any other paraphrase of its query
     (its skeleton group, :mod:`sqlgenie.inference.groups`) says (in the usual pool such a word
     only lowers the confidence; "pm flights DALLAS to ATLANTA" is not "show flights from DALLAS
     to SAN FRANCISCO" with other values): :func:`added_words`;
   * its question says no schema word the question leaves out, unless a paraphrase of its query
     leaves it out too ("the cheapest *round trip* flights" for "the cheapest flight"):
     :func:`removed_schema_words`;
   * its SQL keeps no string constant that went with a value the question replaced: compared on
     the same table as that value and produced by no value of its question (``city_name =
     'WASHINGTON' AND state_code = 'DC'`` adapted to DENVER): :func:`companion_constants`;
   * both ask for the same kind of answer (who / where / when / how many / anything else) about
     the same thing (the answer phrases' heads share a word when both have one: "what airlines
     ..." is not "what kinds of planes ...") and the candidate does not group where the question
     does not ("How many papers does X publish each year?" for "How many papers does X have?"):
     :func:`asked_differently`.

The refusal reason is a sentence with its :data:`REASON_CODES` code, and the refusal shows the
nearest examples as every match refusal does. Measured and not kept: see docs/benchmarks.md,
"After matchr".
"""

from __future__ import annotations

import itertools
from typing import Any, Sequence

from sqlgenie.inference.adapt import Span, question_diff
from sqlgenie.inference.refusals import code_of

__all__ = ["DEPTH", "ENABLED", "EXTRA", "REASON_CODES", "added_words", "asked_differently", "companion_constants", "extension",
           "fallback", "fits", "reason_code", "removed_schema_words", "stricter_license",
           "unlicensed_removals"]

#: Off: the match route tries only the usual pool (A/B measurements).
ENABLED = True
#: Nearest bank examples read by the deeper retrieval (one pgvector query).
DEPTH = 40
#: Fitting candidates tried beyond the usual pool.
EXTRA = 5

#: reason_code of each refusal this module gives, by a phrase of its sentence.
REASON_CODES = {
    "is not among the nearest examples and your question adds": "deeper candidate: unlicensed words",
    "is not among the nearest examples and its question says": "deeper candidate: dropped schema words",
    "is not among the nearest examples and its SQL keeps": "deeper candidate: companion constant",
    "is not among the nearest examples and it asks": "deeper candidate: asks differently",
    "is not among the nearest examples, a nearer example fits": "deeper candidate: dropped words",
    "is not among the nearest examples and no other example said": "deeper candidate: unbacked",
}


def reason_code(reason: str) -> str | None:
    return code_of(reason, REASON_CODES)


def _counts(spans: Sequence[Span]) -> tuple[int, int, int]:
    classes = [s.cls for s in spans]
    return classes.count("text"), classes.count("number"), classes.count("date")


def fits(new_spans: Sequence[Any], example_spans: Sequence[Any], value_columns: Any = None) -> bool:
    """Whether an example's values can take the question's: the same number of text, number
    and date values, and the text values can be paired one to one so that no pair is of two
    different columns (by the value cache, when it knows both values' columns)."""
    new = [Span.of(s) for s in new_spans]
    old = [Span.of(s) for s in example_spans]
    if _counts(new) != _counts(old):
        from sqlgenie.inference.time_readings import clock_counts  # cover19b: "1800" may be a time of day

        counted = clock_counts(new)
        if counted is None or counted != clock_counts(old):
            return False
    if value_columns is None:
        return True

    def cols(span: Span) -> frozenset[str]:
        return frozenset(c.lower() for c in value_columns(span.clean))

    mine = [cols(s) for s in new if s.cls == "text"]
    theirs = [cols(s) for s in old if s.cls == "text"]
    if len(mine) > 6:  # pairing is adaptation's job; only small sets are checked here
        return True

    def ok(a: frozenset[str], b: frozenset[str]) -> bool:
        return not a or not b or bool(a & b)

    return any(all(ok(a, b) for a, b in zip(mine, perm)) for perm in itertools.permutations(theirs))


def _spans(asker: Any, example: Any) -> list[Any]:
    """The example's masked spans as the bank stored them (no masking per hit)."""
    spans = example.spans
    if not spans and "[mask]" in (getattr(example, "masked_question", "") or "").lower():
        spans = asker.retriever.mask(example.question).spans
    return list(spans or [])


def extension(asker: Any, retrieval: Any, tried: Sequence[Any], forced: bool = False) -> list[Any]:
    """The next :data:`EXTRA` bank examples that :func:`fits` the question, after ``tried``,
    from the :data:`DEPTH` nearest (ranked as retrieval ranks them)."""
    from example_bank.retrieval import embedding_text, rank_score, span_values, value_overlap

    r = asker.retriever
    masked = retrieval.masked
    threshold = asker.settings.match_threshold
    from sqlgenie.inference import time_readings  # cover19b: the question's meaning classes first

    depth = time_readings.cue_depth(DEPTH)
    vector = r.encode([embedding_text(masked)])[0]  # the encoder's cache: retrieval just encoded it
    hits = r.nearest(vector, k=depth, allowed_tables=r.allowed, statuses=r.statuses,  # the bank held in the process
                     ef_search=max(int(getattr(r, "ef_search", 0) or 0), depth))
    hits = time_readings.cues_first(hits, masked.text, DEPTH)
    seen = {c.example.id for c in tried}
    mine = span_values(masked.spans)
    pool = [h for h in hits if h.example.id not in seen and (forced or h.score >= threshold)]
    bonus = getattr(r, "value_bonus", 0.1)
    pool.sort(key=lambda h: (time_readings.cue_rank(h, masked.text),
                             -rank_score(h.score, value_overlap(mine, span_values(h.example.spans)), bonus)))
    out: list[Any] = []
    for hit in pool:
        if len(out) >= EXTRA:
            break
        if fits(masked.spans, _spans(asker, hit.example), asker.value_columns):
            out.append(hit)
    return out


def _license(asker: Any, cand: Any, new_masked_text: str) -> Any:
    from sqlgenie.inference import groups

    if not groups.ENABLED:
        return None
    try:
        return groups.groups_of(asker.retriever, asker.catalog).group(cand.example).license(
            cand.example.id, new_masked_text)
    except Exception:  # the groups are an aid: without them every word counts
        return None


def added_words(asker: Any, retrieval: Any, cand: Any) -> list[str]:
    """Content words the question adds to the candidate's question that no other paraphrase
    of its query (its skeleton group) says."""
    new_masked = retrieval.masked
    ex_masked = asker.retriever.mask(cand.example.question)
    if ex_masked.key == new_masked.key:
        return []
    added = question_diff(ex_masked.text, new_masked.text).added
    if not added:
        return []
    license = _license(asker, cand, new_masked.text)
    unlicensed = [w for w in added if license is None or not license.word_added_ok(w)]
    from sqlgenie.inference.deeper_words import accounted  # its own words inflected, what its SQL reads

    known = accounted(asker, cand, unlicensed, ex_masked.text, new_masked.text)
    from sqlgenie.inference.free_words import free_words  # words the bank shows no query needs (atis12)

    free = free_words(asker.retriever, asker.catalog) if unlicensed else frozenset()
    return [w for w in unlicensed if w not in known and w not in free]


def removed_schema_words(asker: Any, retrieval: Any, cand: Any) -> list[str]:
    """Schema words the candidate's question says and the question does not ("round trip"
    when the asked question is about any flight), unless another paraphrase of its query
    lacks them too (the group's removal license)."""
    new_masked = retrieval.masked
    ex_masked = asker.retriever.mask(cand.example.question)
    if ex_masked.key == new_masked.key:
        return []
    removed = [w for w in question_diff(ex_masked.text, new_masked.text).removed if asker._schema_word(w)]
    if removed:  # cover18: "saturday" read as the question's "sunday" by word_constants is not dropped
        from sqlgenie.inference.deeper_readings import swapped_out

        removed = swapped_out(asker, retrieval, cand, removed)
    return unlicensed_removals(asker, cand, new_masked.text, removed)


def unlicensed_removals(asker: Any, cand: Any, new_text: str, removed: list[str]) -> list[str]:
    """``removed`` (words the candidate's question says and the question does not), unless the
    candidate's group licenses dropping all of them (another paraphrase of its query lacks them)."""
    if not removed:
        return []
    license = _license(asker, cand, new_text)
    if license is not None and license.removed_ok(set(removed)):
        return []
    return removed


def companion_constants(asker: Any, cand: Any, adapted: Any) -> list[str]:
    """Constants of the candidate's SQL that qualify a value the question replaced: a string
    compared on the same table (alias) as the replaced value, that no value of the example's
    question produced (``city_name = 'WASHINGTON' AND state_code = 'DC'`` adapted to DENVER
    keeps ``'DC'``). Stricter than :func:`sqlgenie.inference.counterparts.companion_constants`,
    whose reading of the example's constants it shares: a list of alternatives counts too."""
    from sqlgenie.inference.adapt import norm_text
    from sqlgenie.inference.counterparts import example_constants

    replaced = {norm_text(old) for old, new in getattr(adapted, "pairs", []) or [] if norm_text(old) != norm_text(new)}
    if not replaced:
        return []
    bound, free = example_constants(cand.example.sql, asker.retriever.mask(cand.example.question).spans, asker.catalog)
    tables = {alias for text, alias, _column in bound if text in replaced} - {None}
    return [f"{column or 'a column'} = '{text}'" for column, text, alias, _alt in free if alias in tables]


def fallback(asker: Any, retrieval: Any, tried: Sequence[Any], decision: Any, failures: list[str]
             ) -> tuple[Any, Any, list[str]]:
    """``Asker._adapt``'s answer when no candidate of ``tried`` verified: the deeper candidates
    (see module doc), or ``(None, None, failures)``."""
    from sqlgenie.inference import worded_apart

    fitting = any(fits(retrieval.masked.spans, _spans(asker, c.example), asker.value_columns) for c in tried)
    if not ENABLED or (fitting and not worded_apart.ENABLED):
        return None, None, failures  # a nearest example fits the values: its wording refused it, not retrieval
    forced = getattr(decision, "requested", None) == "match"
    try:
        more = extension(asker, retrieval, tried, forced)
    except Exception:  # deeper retrieval is an aid: never a reason to fail an answer
        return None, None, failures
    from sqlgenie.inference import time_readings  # cover19b: a candidate asking another thing joins no tie

    more = time_readings.asking_alike(more, lambda c: asked_differently(asker, retrieval, c))
    adapted = cand = None
    verified_any = False
    if more:
        adapted, cand, more_failures = asker._adapt(retrieval, more, decision, extend=False)
        verified_any = bool(getattr(asker, "pool_verified", True))
        failures = list(failures) + list(more_failures)
    from sqlgenie.inference import cue_reach  # atis19b: the own template past the deeper candidates

    if adapted is None and cue_reach.may_reach(retrieval.masked.text, verified_any):
        try:
            far = cue_reach.candidates(asker, retrieval, list(tried) + list(more), forced)
        except Exception:  # deeper retrieval is an aid: never a reason to fail an answer
            far = []
        far = time_readings.asking_alike(far, lambda c: asked_differently(asker, retrieval, c))
        if far:
            adapted, cand, far_failures = asker._adapt(retrieval, far, decision, extend=False)
            failures = list(failures) + list(far_failures)
            if adapted is not None and not cue_reach.backed(adapted, cand, getattr(asker, "pool_outcomes", [])):
                failures.append(f"example #{cand.example.id} verifies but is not among the nearest examples and "
                                "no other example said with your question's meaning words gives its SQL")
                return None, None, failures
    if adapted is None:
        return None, None, failures
    reason = stricter_license(asker, retrieval, cand, adapted)
    if not reason and fitting:  # past a fitting nearest example: what its question says must be asked too
        reason = worded_apart.allowed(asker, retrieval, cand)
    if reason:
        failures.append(reason)
        return None, None, failures
    return adapted, cand, failures


def stricter_license(asker: Any, retrieval: Any, cand: Any, adapted: Any) -> str | None:
    """Why a deeper candidate that verified still does not answer (None: it does)."""
    head = f"example #{cand.example.id} verifies but is not among the nearest examples and"
    extra = added_words(asker, retrieval, cand)
    if extra:  # cover18: words the bank writes as constants the query compares (inference/deeper_readings.py)
        from sqlgenie.inference import deeper_readings, word_constants

        written = deeper_readings.written_words(
            extra, adapted.sql, word_constants.word_constants(asker.retriever, asker.catalog), asker.catalog)
        extra = [w for w in extra if w not in written]
    if extra:
        return f"{head} your question adds words none of its paraphrases use ({', '.join(map(repr, extra))})"
    dropped = removed_schema_words(asker, retrieval, cand)
    if dropped:
        return f"{head} its question says {', '.join(map(repr, dropped))}, which yours does not"
    tied = companion_constants(asker, cand, adapted)
    if tied:
        return f"{head} its SQL keeps {', '.join(tied)}, which went with the value your question replaced"
    asked = asked_differently(asker, retrieval, cand)
    if asked:
        return f"{head} {asked}"
    return None


def _kind(roles: Any) -> str:
    return roles.kind if roles.kind in ("who", "where", "when") else ""


def asked_differently(asker: Any, retrieval: Any, cand: Any) -> str | None:
    """The two questions ask for another kind of answer (who / where / when / how many against
    anything else) or only the candidate's groups ("How many papers does X publish each year?"
    for "How many papers does X have?"), by the roles :mod:`sqlgenie.inference.verify` reads."""
    from sqlgenie.inference.verify import _classes, _roles

    new_masked = retrieval.masked
    ex_masked = asker.retriever.mask(cand.example.question)
    new = _roles(new_masked.text, tuple(_classes(new_masked.spans)), asker._schema_word)
    old = _roles(ex_masked.text, tuple(_classes(ex_masked.spans)), asker._schema_word)
    if _kind(new) != _kind(old) or new.count != old.count:
        said = {"who": "who", "where": "where", "when": "when"}
        return (f"it asks {said.get(_kind(old), 'how many' if old.count else 'what')}, yours "
                f"{said.get(_kind(new), 'how many' if new.count else 'what')}")
    if old.grouped and not new.grouped:
        return f"it asks per {', '.join(sorted(old.grouped))} and yours does not"
    if new.heads and old.heads and not set(new.heads) & set(old.heads):
        from sqlgenie.inference import answer_words, deeper_readings

        bank_heads = answer_words.answer_heads(asker.retriever, asker.catalog, asker._schema_word)
        if not deeper_readings.same_heads(new.heads, old.heads, bank_heads):  # cover18: "fare" / "price"
            return f"it asks for {' and '.join(old.heads)}, yours for {' and '.join(new.heads)}"
    return None
