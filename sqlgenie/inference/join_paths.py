"""Cheapest join paths over the catalog's accepted joins.

The join graph is undirected: one node per qualified table, one edge per pair of
tables that an *accepted* join connects (the cheapest when several do). An edge's
weight is the join cost model's ``cost`` (milliseconds, ``k0 + k1 (|T1| ln|T1| +
|T2| ln|T2|)``, written by onboarding) divided by the join's confidence ``score``
cubed (so among joins of equal cost the surer one wins); a join without a cost weighs
:data:`DEFAULT_COST`. With ``proposed=True`` the joins onboarding left *proposed*
(not sure enough to accept) are edges too, at a confidence of at most
:data:`PROPOSED_SCORE`: about 30 times dearer than a sure join, they only connect
tables that accepted joins cannot.

:func:`connect` joins a set of *terminal* tables with a Steiner tree approximation
(Takahashi-Matsuyama: grow the tree from one terminal by the cheapest Dijkstra path
to the nearest terminal not yet in it, tried from every terminal, cheapest tree
kept). Terminals the accepted joins cannot reach stay unconnected. The tree holds
the cheapest join of each linked pair; :meth:`JoinGraph.joins_between` lists the
others (``flights`` has two with ``airports``: source and destination).
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field
from typing import Callable, Iterable, Sequence

from sqlgenie.catalog import JoinInfo

DEFAULT_COST = 0.5  # ms: the cost model's k0, for joins stored without a cost
MIN_SCORE = 0.2  # confidence floor in the weight (human or declared joins count as 1)
SCORE_POWER = 3.0  # weight = cost / score ** SCORE_POWER: doubtful inferred joins are avoided
PROPOSED_SCORE = 0.3  # confidence ceiling of a proposed join: a last resort

__all__ = ["JoinGraph", "JoinTree", "connect", "edge_weight"]


def edge_weight(join: JoinInfo) -> float:
    """Weight of one join: ``cost / confidence ** SCORE_POWER`` (a proposed join's
    confidence is capped at :data:`PROPOSED_SCORE`)."""
    cost = join.cost if join.cost is not None and join.cost > 0 else DEFAULT_COST
    sure = join.decided_by in ("human", "declared") and join.status == "accepted"
    score = 1.0 if sure else max(MIN_SCORE, min(1.0, float(join.score or 0.0)))
    if join.status != "accepted":
        score = min(score, PROPOSED_SCORE)
    return cost / score**SCORE_POWER


@dataclass(frozen=True)
class JoinTree:
    tables: frozenset[str]  # every table in the tree (terminals and the tables between them)
    joins: tuple[JoinInfo, ...]
    weight: float
    unconnected: frozenset[str] = frozenset()  # terminals outside the main tree (other components)
    refused: frozenset[str] = frozenset()  # terminals the admission rule left out (connect_in_order)


@dataclass
class JoinGraph:
    """Undirected graph of accepted (and optionally proposed) joins (keys: lower-case
    qualified names)."""

    edges: dict[str, dict[str, tuple[float, JoinInfo]]] = field(default_factory=dict)
    names: dict[str, str] = field(default_factory=dict)  # lower -> qualified as in the catalog
    parallel: dict[frozenset[str], list[tuple[float, JoinInfo]]] = field(default_factory=dict)

    @classmethod
    def from_joins(cls, joins: Iterable[JoinInfo], *, proposed: bool = False) -> JoinGraph:
        """Graph of the accepted joins among ``joins`` (and the proposed ones when
        ``proposed``; rejected joins never count)."""
        statuses = ("accepted", "proposed") if proposed else ("accepted",)
        g = cls()
        for j in joins:
            if j.status not in statuses:
                continue
            a, b = j.from_table.lower(), j.to_table.lower()
            g.names.setdefault(a, j.from_table)
            g.names.setdefault(b, j.to_table)
            if a == b:
                continue  # self-joins do not connect anything
            w = edge_weight(j)
            g.parallel.setdefault(frozenset((a, b)), []).append((w, j))
            for x, y in ((a, b), (b, a)):
                cur = g.edges.setdefault(x, {}).get(y)
                if cur is None or w < cur[0]:
                    g.edges[x][y] = (w, j)
        return g

    def joins_between(self, a: str, b: str) -> list[JoinInfo]:
        """Every join of a pair of tables in the graph, cheapest first (``flights`` has
        two with ``airports``: source and destination; a query may need either)."""
        pairs = self.parallel.get(frozenset((a.lower(), b.lower())), [])
        return [j for _w, j in sorted(pairs, key=lambda p: (p[0], p[1].join_id or 0))]

    def neighbours(self, table: str) -> dict[str, tuple[float, JoinInfo]]:
        return self.edges.get(table.lower(), {})

    def _dijkstra(self, sources: Iterable[str]) -> tuple[dict[str, float], dict[str, str]]:
        dist: dict[str, float] = {}
        prev: dict[str, str] = {}
        heap = [(0.0, s) for s in sources]
        for _, s in heap:
            dist[s] = 0.0
        heapq.heapify(heap)
        done: set[str] = set()
        while heap:
            d, u = heapq.heappop(heap)
            if u in done:
                continue
            done.add(u)
            for v, (w, _j) in self.edges.get(u, {}).items():
                nd = d + w
                if nd < dist.get(v, float("inf")) - 1e-12:
                    dist[v] = nd
                    prev[v] = u
                    heapq.heappush(heap, (nd, v))
        return dist, prev

    def shortest_path(self, a: str, b: str) -> list[JoinInfo] | None:
        """Cheapest chain of joins from ``a`` to ``b`` (None when unreachable)."""
        a, b = a.lower(), b.lower()
        if a == b:
            return []
        dist, prev = self._dijkstra([a])
        if b not in dist:
            return None
        path = []
        node = b
        while node != a:
            p = prev[node]
            path.append(self.edges[p][node][1])
            node = p
        return list(reversed(path))

    def _grow(self, start: str, terminals: set[str]) -> tuple[set[str], list[tuple[str, str]], float, set[str]]:
        tree = {start}
        edges: list[tuple[str, str]] = []
        weight = 0.0
        missing = set(terminals) - tree
        while missing:
            dist, prev = self._dijkstra(tree)
            reachable = [t for t in missing if t in dist]
            if not reachable:
                break
            nearest = min(reachable, key=lambda t: (dist[t], t))
            weight += dist[nearest]
            node = nearest
            while node not in tree:
                p = prev[node]
                edges.append((p, node))
                tree.add(node)
                node = p
            missing = set(terminals) - tree
        return tree, edges, weight, missing

    def connect_in_order(self, terminals: Sequence[str],
                         admit: Callable[[str, list[JoinInfo]], bool] | None = None) -> JoinTree:
        """Online Steiner tree: terminals join the tree one by one, in the given order
        (most relevant first), each by the cheapest path to the tree built so far. The
        tree of a prefix of ``terminals`` is a subtree of the tree of the whole list, so
        fewer terminals never bring in a table that more terminals would not.

        ``admit(terminal, path)``, when given, is asked for every terminal after the
        first that is not yet in the tree, with the joins its cheapest path adds (empty
        when no join reaches it); a terminal it refuses stays out (``JoinTree.refused``)."""
        terms = list(dict.fromkeys(t.lower() for t in terminals))
        nodes: set[str] = set()
        edges: list[tuple[str, str]] = []
        order: list[str] = []
        main: set[str] = set()
        refused: list[str] = []
        for t in terms:
            if t in nodes:
                continue
            if not nodes:
                nodes.add(t)
                order.append(t)
                continue
            dist, prev = self._dijkstra(nodes)
            if t in dist:
                path = []
                node = t
                while node not in nodes:
                    p = prev[node]
                    path.append((p, node))
                    node = p
                if admit is not None and not admit(self.names.get(t, t), [self.edges[a][b][1] for a, b in reversed(path)]):
                    refused.append(t)
                    continue
                for p, node in path:  # from the terminal back to the tree, as before
                    edges.append((p, node))
                    nodes.add(node)
                    order.append(node)
            else:
                if admit is not None and not admit(self.names.get(t, t), []):
                    refused.append(t)
                    continue
                nodes.add(t)
                order.append(t)
        terms = [t for t in terms if t not in refused]
        if terms:
            # the component of the first terminal is the main tree
            main = {terms[0]}
            changed = True
            while changed:
                changed = False
                for a, b in edges:
                    if (a in main) != (b in main):
                        main |= {a, b}
                        changed = True
        joins = tuple(self.edges[a][b][1] for a, b in edges)
        total = sum(self.edges[a][b][0] for a, b in edges)
        return JoinTree(
            frozenset(self.names.get(t, t) for t in order),
            joins,
            total,
            frozenset(self.names.get(t, t) for t in terms if t not in main),
            frozenset(self.names.get(t, t) for t in refused),
        )

    def connect(self, terminals: Sequence[str]) -> JoinTree:
        """Steiner tree approximation over ``terminals`` (qualified names; any case)."""
        terms = list(dict.fromkeys(t.lower() for t in terminals))
        if len(terms) <= 1:
            return JoinTree(frozenset(self.names.get(t, t) for t in terms), (), 0.0)
        best = None
        in_graph = [t for t in terms if t in self.edges]
        for start in in_graph or terms[:1]:
            tree, edges, weight, missing = self._grow(start, set(terms))
            key = (len(missing), weight, len(tree))
            if best is None or key < best[0]:
                best = (key, tree, edges, missing)
        assert best is not None
        _, tree, edges, missing = best
        # terminals left out of the best tree may still connect among themselves
        rest = set(missing)
        extra_tables: set[str] = set()
        extra_edges: list[tuple[str, str]] = []
        while rest:
            seed = sorted(rest)[0]
            sub_tree, sub_edges, _w, sub_missing = self._grow(seed, rest)
            extra_tables |= sub_tree
            extra_edges += sub_edges
            rest = (rest & sub_missing) - sub_tree
        joins = tuple(self.edges[a][b][1] for a, b in edges + extra_edges)
        total = sum(self.edges[a][b][0] for a, b in edges + extra_edges)
        return JoinTree(
            frozenset(self.names.get(t, t) for t in tree | extra_tables | set(missing)),
            joins,
            total,
            frozenset(self.names.get(t, t) for t in missing),
        )


def connect(terminals: Sequence[str], joins: Iterable[JoinInfo], *, in_order: bool = False) -> JoinTree:
    """One-shot :meth:`JoinGraph.connect` (or :meth:`~JoinGraph.connect_in_order`) over
    ``joins`` (only accepted ones count)."""
    graph = JoinGraph.from_joins(joins)
    return graph.connect_in_order(terminals) if in_order else graph.connect(terminals)
