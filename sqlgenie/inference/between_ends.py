""""between A and B" of two named things read as "from A to B" against a "from ... to ..." example.

"between" is a meaning word (class RANGE) because between two *numbers or dates* it is a range
(``BETWEEN 1200 AND 1800``). Between two *text values* ("flights between HOUSTON and MEMPHIS",
"the fare between DENVER and ATLANTA") there is nothing to range over: the two values are the
ends of a route, which the bank's examples say with "from HOUSTON to MEMPHIS". Adaptation
refused every such pair as "the question differs from the example in meaning words: RANGE", and
could not have paired the values anyway (no "from"/"to" before them). On the seed-3 records of
ATIS, a third of the seen questions whose own template was among the nearest examples and that
were refused for a meaning word were refused for this "between" alone.

:func:`rewrite` gives the verification of one candidate the question's masked text with
"between [MASK] and [MASK]" written "from [MASK] to [MASK]" when

* both masks are text values (never numbers or dates: those are a range),
* the example does not say "between" itself (then the words are compared as they are), and
* the example says "from [MASK]" and "to [MASK]" before text values (it is about the two ends).

The first value then pairs with the example's "from" value and the second with its "to" value,
and every check (values, roles, direction swaps, the group license, the precision and side
rules) runs on that text. The question's own text, its retrieval and its spans are unchanged.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

__all__ = ["ENABLED", "rewrite"]

#: Off: "between" of two text values refuses against "from ... to ..." (A/B measurements).
ENABLED = True

_MASK = "[MASK]"
_BETWEEN = re.compile(r"\bbetween\s+\[MASK\]\s+and\s+\[MASK\]", re.IGNORECASE)
_TOKEN = re.compile(r"\[MASK\]|[A-Za-z']+", re.IGNORECASE)


def _classes(spans: Any) -> list[str]:
    from sqlgenie.inference.adapt import Span

    return [Span.of(s).cls for s in sorted(spans, key=lambda s: Span.of(s).start)]


def _mask_index(text: str, pos: int) -> int:
    """Index of the mask starting at or after ``pos`` among the text's masks."""
    return text[:pos].upper().count(_MASK)


def _ends(text: str, classes: list[str]) -> set[str]:
    """Direction words ("from", "to") said right before a text value."""
    out: set[str] = set()
    tokens = _TOKEN.findall(text)
    k = 0
    for i, tok in enumerate(tokens):
        if tok.upper() == _MASK:
            if i and tokens[i - 1].lower() in ("from", "to") and k < len(classes) and classes[k] == "text":
                out.add(tokens[i - 1].lower())
            k += 1
    return out


def rewrite(example_masked: Any, new_masked: Any) -> Any:
    """``new_masked`` (:class:`example_bank.masking.MaskedQuestion`) with "between A and B" of two
    text values written "from A to B" when the example says "from ... to ..." (see module doc);
    the same object otherwise."""
    if not ENABLED:
        return new_masked
    text = new_masked.text
    if "between" not in text.lower() or "between" in example_masked.text.lower():
        return new_masked
    classes = _classes(new_masked.spans)
    if text.upper().count(_MASK) != len(classes):
        return new_masked
    if _ends(example_masked.text, _classes(example_masked.spans)) != {"from", "to"}:
        return new_masked
    parts: list[str] = []
    pos = 0
    for m in _BETWEEN.finditer(text):
        k = _mask_index(text, m.start())
        if k + 1 < len(classes) and classes[k] == classes[k + 1] == "text":
            parts.append(text[pos:m.start()] + f"from {_MASK} to {_MASK}")
            pos = m.end()
    if not parts:
        return new_masked
    parts.append(text[pos:])
    return dataclasses.replace(new_masked, text="".join(parts))


#: Off (the default): only the question's "between" is read as "from ... to ...". Measured on ATIS seeds 7/8
#: (issue 13, helper matchx): +2 right and +1 wrong seen answers, 1 right lost and 1 wrong removed (deeper
#: "between" examples that now verify tie with others); nothing on seed 0: not kept on.
EXAMPLE_SIDE = False


def rewrite_example(example_masked: Any, new_masked: Any) -> Any:
    """The mirror of :func:`rewrite`: the *example's* "between A and B" of two text values written
    "from A to B" when the question says "from ... to ..." and not "between" ("is there a flight
    between BOSTON and OAKLAND with a stopover at DENVER" against "is there a flight from X to Y
    making a stopover in Z": one template of ATIS, refused as RANGE). The same object otherwise."""
    if not EXAMPLE_SIDE:
        return example_masked
    return rewrite(new_masked, example_masked)
