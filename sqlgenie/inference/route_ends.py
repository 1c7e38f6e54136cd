"""Issue 13 (atis16): a direction verb right before a place is the end of a route, as "from" / "to" are.

Adaptation refuses two questions whose meaning-word classes differ (:func:`sqlgenie.inference.adapt.
question_diff`), and INBOUND ("arrive", "into", ...) and OUTBOUND ("leave", "depart", ...) are two of
those classes, because "arriving after 5" and "leaving after 5" compare different columns. Said right
before a named place, the same words say only which end of the trip the place is: "a flight *leaving*
BALTIMORE bound for DALLAS" is "a flight *from* BALTIMORE to DALLAS", "connecting flights from CHICAGO
*into* SEATTLE" is "... *to* SEATTLE", "which flight *leaves from* X goes to Y" is "from X to Y". On ATIS
such pairs are one template whose SQL reads no time at all, and every one of them was refused as
"meaning words: OUTBOUND" (or INBOUND).

:func:`filter_diff` drops a differing direction class from the differences when

* the example's SQL reads no column whose name says a direction (``departure_time``, ``arrival_time``:
  :func:`sqlgenie.inference.direction_cues.sql_directions`), so the word has no time to pick;
* in the question that says the class, **every** word of it stands right before a text value without a
  digit (a place, not "5pm"), or before "in" / "at" (and "from" after a verb of leaving) and then such a
  value: "arriving in the afternoon", "leave at 5pm", "arriving after 1700" keep refusing;
* the other question says the preposition of that end ("from" for OUTBOUND, "to" / "into" for INBOUND)
  right before a text value at least as often;
* apart from meaning classes the two questions differ in none but free words
  (:mod:`sqlgenie.inference.free_words`: "okay", "would"): "a COACH class *seat* on a flight leaving DENVER
  arriving ATLANTA" is not "a COACH class *ticket* for a flight from DENVER to ATLANTA" (ATIS seed 13);
* when the example says the word, its SQL binds the example's place on that end (a day after "leaving" is
  no end of a route).

The places the asked question gives an end with such a word are returned as *ends to check*: after
adaptation (:func:`unbound_ends`) the adapted query must bind each of them on that side of the trip
(through a ``from_*`` / ``to_*`` column, :func:`sqlgenie.inference.example_sides.query_sides`), else
the candidate is refused (``reason_code`` "route_ends"): a place bound on no side (a day, a state) or
on the other one was not what the word said. A place the example gives with the word and the question
with "from" / "to" is checked by :mod:`sqlgenie.inference.example_sides` as before.

:data:`ENABLED` switches the rule (off: every direction class that differs refuses, as before).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["ENABLED", "REASON_CODES", "filter_diff", "reason_code", "unbound_ends"]

ENABLED = True

REASON_CODES = {"as an end of the trip, but the query does not bind it there": "route_ends"}

#: the end of a trip each direction class names, and the prepositions that say that end alone
_END = {"OUTBOUND": "origin", "INBOUND": "destination"}
_PREPOSITION_OF = {"OUTBOUND": ("from",), "INBOUND": ("to", "into")}
#: words allowed between the verb and the place ("leaves from X", "arrive in X", "arriving at X")
_BETWEEN_VERB_AND_PLACE = {"OUTBOUND": ("from", "in", "at"), "INBOUND": ("in", "at", "into")}

_TOKEN = re.compile(r"\[mask\]|[a-z0-9']+")


def reason_code(reason: str) -> str | None:
    from sqlgenie.inference.refusals import code_of

    return code_of(reason, REASON_CODES)


def _places(masked: str, spans: Sequence[Any]) -> list[tuple[str, str | None]]:
    """The masked question's tokens, each ``(token, place)``: for a ``[mask]`` of a text value without a
    digit its text, for other masks ``None`` as place; ``[]`` when masks and spans do not line up."""
    from sqlgenie.inference.adapt import Span

    ordered = sorted((Span.of(s) for s in spans), key=lambda s: s.start)
    tokens = _TOKEN.findall(masked.lower())
    if sum(1 for t in tokens if t == "[mask]") != len(ordered):
        return []
    out: list[tuple[str, str | None]] = []
    k = 0
    for tok in tokens:
        if tok == "[mask]":
            span = ordered[k]
            k += 1
            place = span.clean if span.cls == "text" and not any(c.isdigit() for c in span.text) else None
            out.append((tok, place))
        else:
            out.append((tok, None))
    return out


def _place_after(tokens: list[tuple[str, str | None]], i: int, allowed: Sequence[str]) -> str | None:
    """The place right after token ``i``, or after one of the ``allowed`` words that follows it."""
    j = i + 1
    if j < len(tokens) and tokens[j][0] in allowed:
        j += 1
    if j < len(tokens) and tokens[j][0] == "[mask]":
        return tokens[j][1]
    return None


def _route_words(tokens: list[tuple[str, str | None]], cls: str) -> list[str] | None:
    """The places every word of ``cls`` introduces, or None when one of them introduces none."""
    from sqlgenie.inference.adapt import _CUE_OF

    places = []
    for i, (tok, _) in enumerate(tokens):
        if _CUE_OF.get(tok) != cls:
            continue
        place = _place_after(tokens, i, _BETWEEN_VERB_AND_PLACE[cls])
        if place is None:
            return None
        places.append(place)
    return places


def _prepositions(tokens: list[tuple[str, str | None]], cls: str) -> int:
    """How often the preposition of ``cls``'s end stands right before a place."""
    return sum(1 for i, (tok, _) in enumerate(tokens[:-1])
               if tok in _PREPOSITION_OF[cls] and tokens[i + 1][0] == "[mask]" and tokens[i + 1][1] is not None)


def _worded_alike(diff: Any, free: Callable[[], frozenset[str]] | None) -> bool:
    """Apart from meaning classes, the two questions differ in free words only (:mod:`sqlgenie.inference.
    free_words`: words the bank's paraphrases of one query say or drop), or in none."""
    words = [w for w in list(diff.added) + list(diff.removed) if len(w) > 2 and not w.isdigit()]
    if not words:
        return True
    if free is None:
        return False
    known = free()
    return all(w in known for w in words)


def filter_diff(diff: Any, tree: Any, example_masked: str, new_masked: str, example_spans: Sequence[Any],
                new_spans: Sequence[Any],
                free: Callable[[], frozenset[str]] | None = None) -> tuple[Any, list[tuple[str, str]]]:
    """``diff`` without the direction classes only route ends say (see module doc), and the asked
    question's places with the end its words give them (to check after adaptation); ``free()``: the
    bank's free words."""
    if not ENABLED or not any(c in _END for c in diff.cue_changes):
        return diff, []
    from sqlgenie.inference.adapt import QuestionDiff
    from sqlgenie.inference.direction_cues import sql_directions
    from sqlgenie.inference.example_sides import query_sides

    if sql_directions(tree) or not _worded_alike(diff, free):
        return diff, []
    ex_tokens, new_tokens = _places(example_masked, example_spans), _places(new_masked, new_spans)
    if not ex_tokens or not new_tokens:
        return diff, []
    keep: list[str] = []
    ends: list[tuple[str, str]] = []
    for cls in diff.cue_changes:
        if cls not in _END:
            keep.append(cls)
            continue
        new_words, ex_words = _route_words(new_tokens, cls), _route_words(ex_tokens, cls)
        if new_words and not ex_words and ex_words is not None:
            said, plain = new_words, _prepositions(ex_tokens, cls)
            ends.extend((place, _END[cls]) for place in new_words)
        elif ex_words and not new_words and new_words is not None:
            said, plain = ex_words, _prepositions(new_tokens, cls)
            example_sides = query_sides(tree)  # the example's own places must be ends of its query's trip
            if any(example_sides.get(place.upper()) != {_END[cls]} for place in ex_words):
                keep.append(cls)
                continue
        else:
            keep.append(cls)
            continue
        if plain < len(said):
            keep.append(cls)
            ends = [e for e in ends if e[1] != _END[cls]]
    if len(keep) == len(diff.cue_changes):
        return diff, []
    return QuestionDiff(list(diff.added), list(diff.removed), keep, list(diff.schema_changes)), ends


def unbound_ends(tree: Any, ends: Sequence[tuple[str, str]]) -> list[str]:
    """A refusal for each place of ``ends`` the adapted query does not bind on its side alone."""
    from sqlgenie.inference.example_sides import query_sides

    sides = query_sides(tree)
    return [f"the question gives {place} as an end of the trip, but the query does not bind it there "
            f"(the {side}; route_ends)" for place, side in ends if sides.get(place.upper()) != {side}]
