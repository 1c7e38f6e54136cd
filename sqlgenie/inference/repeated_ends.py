"""A place said again after a verb of its end of the trip is no second value (issue 13, helper atis17).

ATIS questions often name an end of the trip twice: "i'd like a flight from KANSAS CITY to LOS ANGELES that
*arrives in LOS ANGELES* in the late afternoon", "i want a flight from SAN FRANCISCO to DENVER *leaving SAN
FRANCISCO* in the afternoon *arriving DENVER* around 5 in the afternoon". Their template's SQL compares each city
once; the bank's examples of that template say each city once ("... that arrives in the early afternoon"), so
pairing refused them for the count of values ("the question has 3 text value(s), the example 2"). On ATIS seed 12
the refused seen questions whose own-template examples all failed so were about one in twelve (atis15's
per-template diagnosis).

:func:`rewrite` reads the masked question (the tokens of :mod:`.route_ends`): a text value without a digit that
stands right after a word of a direction class (INBOUND / OUTBOUND of :mod:`.adapt`'s meaning words, e.g.
"arrives", "leaving"; optionally with "in" / "at" / "from" / "into" between, as in :mod:`.route_ends`) and that the
question also gives, with the same text, right after the plain preposition of that end ("from" for OUTBOUND, "to" /
"into" for INBOUND) is said again. The mention after the verb is taken out of the question the example is
compared with (the value and the preposition before it; the verb stays, so "arrives in LOS ANGELES in the late
afternoon" reads "arrives in the late afternoon" and still says INBOUND), only when that makes the two questions'
counts of text values agree. Everything else is adapted and verified as before. An end named twice on two
different ends ("from BOSTON to DENVER and arriving back in BOSTON") or after two plain prepositions (a round trip,
"from X to Y and from Y to X") is not read. :data:`ENABLED` switches the rule; **off**: on ATIS seeds 12 and 13 it took the repeated place out
where meant, but every question it read so still differed from its own template's examples in more (the time
after the verb: "in the late afternoon" against "around 6pm"), so no answer changed (docs/benchmarks.md,
"After atis17").
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

__all__ = ["ENABLED", "repeated_mentions", "rewrite"]

ENABLED = False

_MASK = "[MASK]"


def repeated_mentions(masked_text: str, spans: Any) -> list[tuple[int, bool]]:
    """``(k, with_preposition)`` for each mask (the k-th, in text order) that repeats a place after a verb of its
    end (see module doc); ``with_preposition``: a word stands between the verb and the place."""
    from sqlgenie.inference.adapt import _CUE_OF
    from sqlgenie.inference.route_ends import (
        _BETWEEN_VERB_AND_PLACE,
        _PREPOSITION_OF,
        _places,
    )

    tokens = _places(masked_text, spans)
    if not tokens:
        return []
    ordinal = {}
    for i, (tok, _) in enumerate(tokens):
        if tok == "[mask]":
            ordinal[i] = len(ordinal)
    plain = {(cls, place, i) for cls, preps in _PREPOSITION_OF.items()
             for i, (tok, place) in enumerate(tokens) if place is not None and i and tokens[i - 1][0] in preps}
    out: list[tuple[int, bool]] = []
    for i, (tok, _) in enumerate(tokens):
        cls = _CUE_OF.get(tok)
        if cls not in _PREPOSITION_OF:
            continue
        j, between = i + 1, False
        if j < len(tokens) and tokens[j][0] in _BETWEEN_VERB_AND_PLACE[cls]:
            j, between = j + 1, True
        if j >= len(tokens) or tokens[j][0] != "[mask]" or tokens[j][1] is None:
            continue
        if any(c == cls and place == tokens[j][1] and k != j for c, place, k in plain):  # another mention
            out.append((ordinal[j], between))
    return out


def _text_values(spans: Any) -> int:
    from sqlgenie.inference.adapt import Span

    return sum(1 for s in spans if Span.of(s).cls == "text")


def rewrite(example_masked: Any, new_masked: Any) -> Any:
    """``new_masked`` (:class:`example_bank.masking.MaskedQuestion`) without the places it says again after a
    verb of their end, when that makes its text values as many as the example's; the same object otherwise."""
    if not ENABLED or _text_values(new_masked.spans) <= _text_values(example_masked.spans):
        return new_masked
    found = repeated_mentions(new_masked.text, new_masked.spans)
    if not found or _text_values(new_masked.spans) - len(found) != _text_values(example_masked.spans):
        return new_masked
    text = new_masked.text
    at = [m.start() for m in re.finditer(re.escape(_MASK), text, flags=re.IGNORECASE)]
    ordered = sorted(new_masked.spans, key=lambda s: s.start)
    if len(at) != len(ordered):
        return new_masked
    drop = dict(found)
    for k in sorted(drop, reverse=True):  # from the end: earlier offsets stay valid
        before, after = text[:at[k]], text[at[k] + len(_MASK):]
        if drop[k]:
            before = re.sub(r"\b[a-z]+\s*$", "", before)
        text = before.rstrip() + " " + after.lstrip()
    kept = [s for k, s in enumerate(ordered) if k not in drop]
    kept_ids = {id(s) for s in kept}
    return dataclasses.replace(new_masked, text=text.strip(), spans=[s for s in new_masked.spans if id(s) in kept_ids])
