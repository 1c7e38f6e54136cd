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
``between_ends`` rewrote "between A and B" as "from A to B" (the Asker passes ``own_directions=False``
to :func:`sqlgenie.inference.verify.adapt_verified` for that adaptation), "between" says no order and the
equal text pairs first as before.
"""

from __future__ import annotations

__all__ = ["ENABLED", "identity_counts"]

#: Off: equal texts pair first whatever their direction words (A/B measurements).
ENABLED = True


def identity_counts(example_direction: str, new_direction: str, own: bool = True) -> bool:
    """Whether the same value text in both questions counts towards pairing the two: not when it
    follows one direction word in the example and another in the question (``own``: the question's
    direction words are its own, not a rewrite's)."""
    if not ENABLED or not own:
        return True
    return not (example_direction and new_direction and example_direction != new_direction)

