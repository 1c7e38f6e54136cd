"""Routing (design 3.2.2): the match route when a verified bank example is close
enough to the question, the think route otherwise.

The decision uses only the retrieval scores, the threshold T
(``Settings.match_threshold``) and the route the user asked for:

* ``auto``: match when the best example scores at least T (an exact masked
  match scores 1.0), else think;
* ``match``: match with the nearest example whatever its score (think only when
  the bank has no example for the available tables);
* ``think``: think.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from sqlgenie.errors import InputError

ROUTES = ("auto", "match", "think")


@dataclass(frozen=True)
class RouteDecision:
    route: str  # match | think
    requested: str  # auto | match | think
    reason: str
    similarity: float | None  # best example's score (None: no example)
    threshold: float
    exact: bool = False  # the best example's masked question equals the question's

    def to_dict(self) -> dict[str, Any]:
        return {"route": self.route, "requested": self.requested, "reason": self.reason,
                "similarity": None if self.similarity is None else round(self.similarity, 4),
                "threshold": self.threshold, "exact": self.exact}


def check_route(route: str) -> str:
    value = (route or "auto").strip().lower()
    if value not in ROUTES:
        raise InputError(f"Unknown route {route!r}.", hint="Use --route auto, match or think.")
    return value


def decide_route(matches: Sequence[Any], threshold: float, requested: str = "auto") -> RouteDecision:
    """Route for a question whose retrieved examples are ``matches`` (best first;
    objects with ``score`` and ``exact``, e.g. ``example_bank.store.ScoredExample``)."""
    requested = check_route(requested)
    best = matches[0] if matches else None
    score = float(best.score) if best is not None else None
    exact = bool(getattr(best, "exact", False)) if best is not None else False
    if requested == "think":
        return RouteDecision("think", requested, "think route requested (--route think)", score, threshold, exact)
    if best is None:
        return RouteDecision("think", requested, "the bank has no verified example for the available tables",
                             None, threshold, False)
    if requested == "match":
        return RouteDecision("match", requested, f"match route requested (--route match); nearest example scores {score:.2f}",
                             score, threshold, exact)
    if exact:
        return RouteDecision("match", requested, "a verified example has the same masked question", score, threshold, True)
    if score >= threshold:
        return RouteDecision("match", requested, f"nearest verified example scores {score:.2f} >= T = {threshold:.2f}",
                             score, threshold, False)
    return RouteDecision("think", requested, f"nearest verified example scores {score:.2f} < T = {threshold:.2f}",
                         score, threshold, False)
