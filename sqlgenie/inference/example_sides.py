"""Issue 13 (atis14c): a value the question puts on one side of a relation that the adapted SQL
puts on another.

The question cues a value's side by the words just before it: "from / leaving / departing X" is
the origin, "to / into / arriving (in) X" the destination, "via / stopping (in) X" a stop. The
adapted query places the value by its joins: the literal's alias reaches, through equality joins, a
``from_*`` / ``to_*`` / ``stop_*`` column (``from_airport``, ...). When every mention of a value cues one
side and the query binds that value only on other sides, the example's SQL had the sides the other
way round (a reversed gold in the bank, "flights from OAK to SFO" with ``to_airport = 'OAK'``) or the
adapter crossed two values ("leaving DENVER ... stopping at PITTSBURGH" answered with Denver as the
stop). "Between A and B" reads as "from A to B" (``BETWEEN_ORDER``), as ``between_ends`` reads it for the
adapter and the ATIS golds write it: it fired on one of 38 answered "between" questions of ATIS seeds
0, 12-15 (a wrong one). Values the question mentions with conflicting cues, or none, are not read
("from A to B and from B to A").

:data:`ENABLED` switches the rule; :data:`REASON_CODES` gives the ``reason_code``. Hook: one call in
``Asker._adapt`` beside ``head_reading.check_candidate``, under the same veto.
"""

from __future__ import annotations

import re
from collections import defaultdict
from typing import Any, Iterator

from sqlglot import exp

from sqlgenie.inference.refusals import code_of, refuse_first

__all__ = ["ENABLED", "REASON_CODES", "check_candidate", "cued_sides", "query_sides", "reason_code", "crossed_sides"]

ENABLED = True
#: "between A and B" gives A as the origin and B as the destination
BETWEEN_ORDER = True

REASON_CODES = {"but the query puts it on the side of": "example_sides"}

#: how a column's name begins when it places a row on one side of a trip (ATIS ``from_airport``,
#: ``to_airport``, ``stop_airport``; ``from_city`` / ``to_city`` alike)
SIDE_PREFIXES = {"from_": "origin", "to_": "destination", "stop_": "stop"}

#: the word just before a value
NEAR_CUES = {
    "from": "origin", "leaving": "origin", "leave": "origin", "leaves": "origin", "departing": "origin",
    "depart": "origin", "departs": "origin",
    "to": "destination", "into": "destination", "arriving": "destination", "arrive": "destination",
    "arrives": "destination", "reaching": "destination",
    "via": "stop", "through": "stop",
}
#: "in" / "at" take the side of the verb before them ("arriving in X", "stopping at X")
PREPOSITIONS = {"in", "at"}
VERB_CUES = {
    "leave": "origin", "leaving": "origin", "leaves": "origin", "depart": "origin", "departing": "origin",
    "departs": "origin",
    "arrive": "destination", "arriving": "destination", "arrives": "destination", "land": "destination",
    "landing": "destination", "lands": "destination",
    "stop": "stop", "stopping": "stop", "stops": "stop", "layover": "stop", "stopover": "stop",
    "connecting": "stop", "connection": "stop",
}

_WORD = re.compile(r"[a-z0-9.']+")
_BETWEEN = re.compile(r"\bbetween (.+?) and ", re.IGNORECASE)


def reason_code(reason: str) -> str | None:
    return code_of(reason, REASON_CODES)


def _words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def _cue(before: list[str]) -> str | None:
    """The side the words before a value give it (``None``: no cue)."""
    if not before:
        return None
    last = before[-1]
    if last in NEAR_CUES:
        return NEAR_CUES[last]
    if last in PREPOSITIONS and len(before) >= 2:
        return VERB_CUES.get(before[-2])
    return None


def between_as_route(question: str) -> str:
    """``question`` with its first "between A and B" read as "from A to B" (``between_ends`` reads it
    so for the adapter; the ATIS golds do too)."""
    return _BETWEEN.sub(r"from \1 to ", question, count=1) if BETWEEN_ORDER else question


def cued_sides(question: str, value: str) -> set[str | None]:
    """The cue of every mention of ``value`` (word-bounded, case-insensitive) in ``question``."""
    words, target = _words(between_as_route(question)), _words(value)
    if not target:
        return set()
    n = len(target)
    return {_cue(words[:i]) for i in range(len(words) - n + 1) if words[i:i + n] == target}


def _side(column: str) -> str | None:
    return next((side for prefix, side in SIDE_PREFIXES.items() if column.lower().startswith(prefix)), None)


def _alias_graph(tree: exp.Expression) -> dict[str, list[tuple[str, str]]]:
    """alias -> [(other alias, side of the edge or '')] over the equality joins of the whole tree."""
    graph: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for eq in tree.find_all(exp.EQ):
        left, right = eq.left, eq.right
        if not (isinstance(left, exp.Column) and isinstance(right, exp.Column)):
            continue
        side = _side(left.name) or _side(right.name) or ""
        graph[left.table].append((right.table, side))
        graph[right.table].append((left.table, side))
    return graph


def _sides_of(alias: str, graph: dict[str, list[tuple[str, str]]]) -> set[str]:
    """The sides an alias reaches: joins are followed until a side column, which is not crossed."""
    seen, todo, sides = {alias}, [alias], set()
    while todo:
        here = todo.pop()
        for there, side in graph.get(here, ()):
            if side:
                sides.add(side)
            elif there not in seen:
                seen.add(there)
                todo.append(there)
    return sides


def query_sides(tree: exp.Expression) -> dict[str, set[str]]:
    """upper-cased string literal -> the sides the query binds it on (only values that reach one)."""
    graph = _alias_graph(tree)
    found: dict[str, set[str]] = defaultdict(set)
    for eq in tree.find_all(exp.EQ):
        column, literal = eq.left, eq.right
        if isinstance(literal, exp.Column) and isinstance(column, exp.Literal):
            column, literal = literal, column
        if not (isinstance(column, exp.Column) and isinstance(literal, exp.Literal) and literal.is_string):
            continue
        sides = _sides_of(column.table, graph)
        if len(sides) == 1:
            found[str(literal.this).upper()] |= sides
    return found


def crossed_sides(tree: exp.Expression, question: str) -> list[str]:
    reasons = []
    for value, sides in query_sides(tree).items():
        cues = cued_sides(question, value)
        if len(cues) != 1 or None in cues:
            continue  # not said, said without a cue, or with cues that disagree
        (cue,) = cues
        if cue not in sides:
            reasons.append(f"the question gives {value} as the {cue} of the trip but the query puts it on "
                           f"the side of the {' / '.join(sorted(sides))} (example_sides)")
    return reasons


def findings(adapted: Any, question: str) -> Iterator[tuple[str, list[str]]]:
    if ENABLED and adapted.tree is not None:
        yield "example sides", crossed_sides(adapted.tree, question)


def check_candidate(adapted: Any, question: str) -> Any:
    """Refuse ``adapted`` (changed in place) when a value sits on another side than the question gives it."""
    return refuse_first(adapted, findings(adapted, question))
