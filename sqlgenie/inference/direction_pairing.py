"""One value in both questions, after opposite direction words: pair by the direction, not the text.

Adaptation pairs the question's values with the example's (:func:`sqlgenie.inference.adapt.adapt_sql`)
by a score in which the same text counts most (+3) and the same direction word before the value
("from" / "to" / "via") little (±1). When the question names the example's own values in the other
roles ("round trip flights from MONTREAL to ORLANDO" against the bank's "... from ORLANDO to
MONTREAL"), the same-text pairing wins, keeps ORLANDO as the origin, and the verification then
refuses it as a reversed direction (:func:`sqlgenie.inference.verify.direction_swaps`): the question
of the very same query, often its exact masked match, is refused (issue 13, ATIS seed 9: 3 of the
seen refusals whose own template adapts right alone).

A value that follows "from" in one question and "to" in the other plays another part in each, so its
equal text is no evidence that it fills the same slot: :func:`identity_counts` says not to count it.
The pairing by direction then wins (ORLANDO takes MONTREAL's place as the destination, MONTREAL
ORLANDO's as the origin) and every check runs as before on that adaptation. Only pairings that the
direction check would refuse change: a value with the same direction word (or none) in either
question still pairs with itself first. Only the question's own direction words count: where
``between_ends`` rewrote "between A and B" as "from A to B" (:func:`own_directions` is False around that
adaptation), "between" says no order and the equal text pairs first as before.
"""

from __future__ import annotations

import contextlib
import contextvars
from typing import Iterator

__all__ = ["ENABLED", "identity_counts", "own_directions"]

#: Off: equal texts pair first whatever their direction words (A/B measurements).
ENABLED = True


def identity_counts(example_direction: str, new_direction: str) -> bool:
    """Whether the same value text in both questions counts towards pairing the two: not when it
    follows one direction word in the example and another in the question."""
    if not ENABLED or not _OWN.get():
        return True
    return not (example_direction and new_direction and example_direction != new_direction)


_OWN: contextvars.ContextVar[bool] = contextvars.ContextVar("direction_pairing_own", default=True)


@contextlib.contextmanager
def own_directions(own: bool) -> Iterator[None]:
    """Within the block, whether the asked question's direction words are its own (False: a rewrite said them)."""
    token = _OWN.set(own)
    try:
        yield
    finally:
        _OWN.reset(token)
