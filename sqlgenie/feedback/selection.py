"""Choosing one SQL among candidates by what they return (CHASE-SQL / TS-SQL spirit).

1. **Cluster** the candidates that ran by their result (:func:`sqlgenie.eval.compare.results_match`:
   multisets up to a permutation of columns, ordered when both are ordered, numeric
   tolerance). Candidates that failed are left out.
2. **Score** each cluster: its *support* is the sum of its members' weights (one
   vote each unless a caller knows better, e.g. reliabilities); then result checks
   that need no gold: a cluster whose result is *degenerate* (no rows, only NULLs,
   or one row of zeros, e.g. ``count(*)`` of a filter that matches nothing) while
   another cluster holding at least ``MIN_ANSWER_SHARE`` of the support returns a
   real answer ranks below every cluster with an answer, whatever its support (on
   the six Spider dev systems a degenerate result was right in 12 of 155 disputed
   cases, see docs/benchmarks.md); the critic's findings on
   the members (lazily, when :mod:`sqlgenie.inference.critic` is installed and the
   caller gives a catalog) cost ``ERROR_PENALTY`` for an error-severity finding
   present in every member, ``WARNING_PENALTY`` for a warning.
3. **Distinguish** (a hook: ``select(..., distinguish=f)``): when the two best
   clusters are close, ``f`` may decide between them. The regeneration job passes
   :meth:`sqlgenie.feedback.distinguish.Distinguisher.hook`: a small database built
   from the catalog on which they differ, and with an LLM a pairwise judge on it
   (without an LLM it returns None: the pick stays the best-supported cluster).
4. **Pick** the best score; ties go to the cluster holding the earliest candidate
   (callers order candidates by prior trust: the downvoted answer's neighbours
   first, the first predictions file first).

The same function serves the regeneration worker and ``sqlgenie eval select``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Callable, Sequence

ERROR_PENALTY = 1.0
#: Share of the total support a cluster with an answer needs to outrank degenerate ones.
MIN_ANSWER_SHARE = 0.1
WARNING_PENALTY = 0.25


@dataclass
class Candidate:
    sql: str
    source: str
    rows: list[tuple] | None = None
    columns: list[str] = field(default_factory=list)
    error: str | None = None
    ordered: bool = False
    weight: float = 1.0
    findings: list[dict[str, Any]] | None = None  # critic findings ({check, severity, message})
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.error is None and self.rows is not None

    def to_dict(self, *, rows: int = 5) -> dict[str, Any]:
        return {"sql": self.sql, "source": self.source, "error": self.error, "weight": round(self.weight, 4),
                "columns": self.columns, "row_count": None if self.rows is None else len(self.rows),
                "rows": [list(r) for r in (self.rows or [])[:rows]], "findings": self.findings or [],
                **({"meta": self.meta} if self.meta else {})}


@dataclass
class Cluster:
    members: list[int]
    support: float = 0.0
    penalty: float = 0.0
    reasons: list[str] = field(default_factory=list)
    degenerate: bool = False  # set by score_clusters: ranks below every cluster with an answer

    @property
    def score(self) -> float:
        return self.support - self.penalty

    def to_dict(self) -> dict[str, Any]:
        return {"members": self.members, "support": round(self.support, 4), "penalty": round(self.penalty, 4),
                "score": round(self.score, 4), "degenerate": self.degenerate, "reasons": self.reasons}


@dataclass
class Selection:
    winner: int | None
    runner_up: int | None
    clusters: list[Cluster]
    rule: str
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"winner": self.winner, "runner_up": self.runner_up, "rule": self.rule, "notes": self.notes,
                "clusters": [c.to_dict() for c in self.clusters]}


def same_result(a: Candidate, b: Candidate) -> bool:
    from sqlgenie.eval.compare import results_match

    return results_match(a.rows or [], b.rows or [], ordered=a.ordered and b.ordered)


def cluster(candidates: Sequence[Candidate]) -> list[Cluster]:
    """Clusters of equal results, in order of their first member."""
    clusters: list[Cluster] = []
    for i, cand in enumerate(candidates):
        if not cand.ok:
            continue
        for c in clusters:
            if same_result(candidates[c.members[0]], cand):
                c.members.append(i)
                break
        else:
            clusters.append(Cluster([i]))
    return clusters


def _zero(v: Any) -> bool:
    return v is None or (isinstance(v, (int, float, Decimal)) and not isinstance(v, bool) and v == 0)


def degenerate(rows: list[tuple] | None) -> bool:
    """No rows, only NULLs, or a single row of zeros/NULLs (a count or sum over nothing)."""
    if not rows:
        return True
    if all(all(v is None for v in r) for r in rows):
        return True
    return len(rows) == 1 and all(_zero(v) for v in rows[0])


def score_clusters(candidates: Sequence[Candidate], clusters: list[Cluster]) -> None:
    for c in clusters:
        c.support = sum(candidates[i].weight for i in c.members)
    total = sum(max(0.0, c.support) for c in clusters) or 1.0
    # an answer outranks degenerate results only when it is a real contender (at least
    # MIN_ANSWER_SHARE of the support), not one stray sample among many
    answered = any(not degenerate(candidates[c.members[0]].rows) and c.support / total >= MIN_ANSWER_SHARE
                   for c in clusters)
    for c in clusters:
        c.penalty = 0.0
        c.reasons = []
        c.degenerate = answered and degenerate(candidates[c.members[0]].rows)
        if c.degenerate:
            c.reasons.append("empty, all-NULL or zero result while other candidates return an answer")
        checked = [candidates[i].findings for i in c.members if candidates[i].findings is not None]
        if checked:
            for severity, cost in (("error", ERROR_PENALTY), ("warning", WARNING_PENALTY)):
                everywhere = set.intersection(*({f["check"] for f in fs if f.get("severity") == severity}
                                                for fs in checked))
                if everywhere:
                    c.penalty += cost * len(everywhere)
                    c.reasons.append(f"critic {severity}: {', '.join(sorted(everywhere))}")


def select(candidates: Sequence[Candidate], *, distinguish: Callable[[Sequence[Candidate], Cluster, Cluster],
                                                                   int | None] | None = None,
           margin: float = 1.0) -> Selection:
    """Cluster, score and pick (see module doc). ``distinguish(candidates, a, b)``
    may return 0 (a) or 1 (b) to break a close call between the two best clusters."""
    clusters = cluster(candidates)
    if not clusters:
        return Selection(None, None, [], "no candidate ran")
    score_clusters(candidates, clusters)
    ranked = sorted(clusters, key=lambda c: (c.degenerate, -c.score, c.members[0]))
    rule = "best-supported cluster"
    notes: list[str] = []
    if len(ranked) == 1:
        rule = "all candidates agree"
    elif distinguish is not None and not ranked[1].degenerate and ranked[0].score - ranked[1].score < margin:
        pick = distinguish(candidates, ranked[0], ranked[1])
        if pick == 1:
            ranked[0], ranked[1] = ranked[1], ranked[0]
            notes.append("a distinguishing database decided between the two best clusters")
            rule = "distinguishing database"
        elif pick == 0:
            notes.append("a distinguishing database confirmed the best-supported cluster")
    winner = ranked[0].members[0]
    runner = ranked[1].members[0] if len(ranked) > 1 else None
    return Selection(winner, runner, ranked, rule, notes)


def majority(candidates: Sequence[Candidate]) -> int | None:
    """The plain vote: the largest cluster, ties to the earliest candidate."""
    clusters = cluster(candidates)
    if not clusters:
        return None
    best = max(clusters, key=lambda c: (len(c.members), -c.members[0]))
    return best.members[0]
