"""A table joined only for a filter the question drops goes with the filter.

``verify.reduce_example`` answers a question that is its example minus a value ("2014 papers
using ImageNet" from "eccv 2014 papers using ImageNet") by removing that value's filter
(``venue.venuename = 'eccv'``). When the filter was the only reason its table is in the query,
the table stayed joined (``venue.venueid = paper.venueid``): the query then drops the papers
without a venue, and it is not the query of the reduced question (issue 13: a wrong answer on the
seed-3 records of scholar once refused exact matches reached the nearest examples).

:func:`drop` removes such a table: its alias is referenced by exactly one column left in the query,
inside a top-level ``a.x = b.y`` conjunct of the outer WHERE, and it is joined without ON/USING
(the comma joins of the bank's SQL) — then that conjunct and the table go. Anything else (the
table still read elsewhere, an explicit JOIN ... ON, a subquery) is left as it was. The table at
the other end of the removed conjunct is then tried the same way (``CHAINS``): a link table such as
``paperkeyphrase`` that joined ``keyphrase`` to ``paper`` for the dropped keyphrase goes too.
"""

from __future__ import annotations

from typing import Iterable

from sqlglot import exp

__all__ = ["ENABLED", "drop"]

#: Off: the reduced example keeps every table (A/B measurements).
ENABLED = True
#: Off: only the dropped filter's own table goes, not a link table that joined only it (issue 13, matchu:
#: "2014 papers" from "semantic parsing 2016 papers" kept ``paperkeyphrase``).
CHAINS = True


def _eq_conjunct(col: exp.Column, root: exp.Select) -> exp.EQ | None:
    eq = col.parent
    if not isinstance(eq, exp.EQ) or not all(isinstance(x, exp.Column) for x in (eq.this, eq.expression)):
        return None
    p = eq.parent
    while isinstance(p, (exp.And, exp.Paren)):
        p = p.parent
    return eq if isinstance(p, exp.Where) and p.parent is root else None


def drop(tree: exp.Expression, aliases: Iterable[str]) -> list[str]:
    """Remove from ``tree`` (in place) the tables of ``aliases`` that only a join conjunct still
    references; the aliases removed."""
    if not ENABLED or not isinstance(tree, exp.Select):
        return []
    from sqlgenie.inference.verify import _remove_conjunct

    removed: list[str] = []
    queue = sorted({a for a in aliases if a})
    while queue:
        alias = queue.pop(0)
        tables = [t for t in tree.find_all(exp.Table) if t.alias_or_name == alias]
        if len(tables) != 1:
            continue
        table = tables[0]
        cols = [c for c in tree.find_all(exp.Column) if c.table == alias]
        if len(cols) != 1:
            continue
        eq = _eq_conjunct(cols[0], tree)
        if eq is None:
            continue
        join = table.parent
        if isinstance(join, exp.Join) and join.parent is tree and not join.args.get("on") and not join.args.get("using"):
            join.pop()
        elif isinstance(join, exp.From) and join.parent is tree:
            joins = tree.args.get("joins") or []
            first = next((j for j in joins if not j.args.get("on") and not j.args.get("using")
                          and isinstance(j.this, exp.Table)), None)
            if first is None:
                continue
            first.pop()
            join.set("this", first.this)
        else:
            continue
        partner = eq.expression if eq.this is cols[0] else eq.this
        _remove_conjunct(eq)
        removed.append(alias)
        if CHAINS and partner.table and partner.table not in removed and partner.table not in queue:
            queue.append(partner.table)  # a link table (paperkeyphrase) joined only to the table that went
    return removed
