"""Cost-aware admission of a table into the pruner's join tree (issue 14).

A column kept by score (≥ δ) in a table not yet in the kept tree does not cost one
column: it brings its table's join path, that is the join columns of every join on the
way (and of the other joins of each linked pair) and the tables in between. On Spider
train (keys dropped, out of fold at the default operating point) the join columns the
tree adds are 4.9% of the schema and only 13% of them are used by the gold query; on
tables the path merely passes through, 6%. They are mostly the price of a table that is
there through one weak column. So a table that is not *protected* (named by the
question, used by an example, holding a value link or a key kept for it, asked for
whole) joins the tree only when its best column clears δ by a margin that grows with
what its path adds:

    logit(best score of the table) ≥ logit(δ) + MARGIN · (k + BETWEEN · b)

with ``k`` the columns the path adds that are not kept yet and ``b`` the tables it passes
through. A refused table stays out with its score-kept columns. Tables are tried in the
tree's order (named ones first, then by best score), each path counted from the tree the
earlier ones built. The first table is never refused.

MARGIN and BETWEEN were chosen on Spider train out of fold (5 folds by database, the
folds of ``python -m sqlgenie.inference.eval_schema fit``), as kept share at equal
column recall 0.984: 0.3607 without the rule, 0.3474 with it (lower in each of the five
folds); docs/benchmarks.md, "Cost-aware table admission (linking6)".
"""

from __future__ import annotations

import math
from typing import Any, Callable, Collection, Sequence

import numpy as np

from sqlgenie.catalog import JoinInfo

__all__ = ["BETWEEN", "MARGIN", "admission_rule", "path_columns"]

#: Logit margin per column a table's join path adds (0: every table is admitted).
MARGIN = 0.15
#: Extra cost, in columns, of each table the path passes through.
BETWEEN = 6.0


def _logit(p: float) -> float:
    p = min(max(p, 1e-6), 1 - 1e-6)
    return math.log(p / (1 - p))


def path_columns(pruner: Any, path: Sequence[JoinInfo]) -> set[int]:
    """Column indexes the joins of ``path`` bring in (both sides of each join, and of
    the other joins of the same pair when the pruner keeps parallel joins)."""
    joins = list(path)
    if getattr(pruner, "parallel_joins", ""):
        for j in path:
            for alt in pruner.graph.joins_between(j.from_table, j.to_table):
                if alt is not j and alt not in joins:
                    joins.append(alt)
    out: set[int] = set()
    for j in joins:
        for tq, cols in ((j.from_table, j.from_columns), (j.to_table, j.to_columns)):
            for c in cols:
                i = pruner.col_index.get(f"{tq}.{c}".lower())
                if i is not None:
                    out.add(i)
    return out


def admission_rule(pruner: Any, kept: Collection[int], protected: Collection[int], best: np.ndarray,
                   delta: float, margin: float | None = None, between: float | None = None
                   ) -> Callable[[str, list[JoinInfo]], bool] | None:
    """``admit(table, path)`` for :meth:`JoinGraph.connect_in_order` over the pruner's
    tables (``best``: each table's best column score; ``protected``: table indexes never
    refused); None when the margin is 0 (every table admitted)."""
    margin = MARGIN if margin is None else margin
    between = BETWEEN if between is None else between
    if margin <= 0:
        return None
    have = set(kept)
    bar = _logit(delta)

    def admit(table: str, path: list[JoinInfo]) -> bool:
        ti = pruner.table_index.get(table.lower())
        new = path_columns(pruner, path) - have
        if ti is not None and ti not in protected:
            cost = len(new) + between * max(len(path) - 1, 0)
            if _logit(float(best[ti])) < bar + margin * cost:
                return False
        have.update(new)
        return True

    return admit
