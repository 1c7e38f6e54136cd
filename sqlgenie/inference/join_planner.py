"""JOIN planner: how to connect the tables a query needs (issue 15, item 2).

API (stable; the think loop and the critic import it)::

    from sqlgenie.inference.join_planner import plan_joins, JoinPlan, PlannedJoin

    plan = plan_joins(catalog, ["demo.orders", "demo.customers", "demo.products"],
                      question="revenue per customer")  # the question is optional: its words
                        # pick among several joins of two tables (source / destination airport)
    plan_joins(catalog, ["flights", "airports", "airports"])  # a table twice: its second role,
                        # as a copy aliased "airports_2" (PlannedJoin.right_alias / left_alias)
    plan.joins          # tuple[PlannedJoin, ...], in join order (each joins one new table)
    plan.tables         # every table in the tree: the requested ones and the bridges
    plan.bridges        # tables added only to connect the requested ones
    plan.unconnected    # requested tables no join reaches (the plan is then incomplete)
    plan.unknown        # requested names the catalog does not hold
    plan.complete       # True when every requested table is known and connected
    plan.render()       # text for an LLM prompt, one join a line, e.g.
                        # "demo.orders.customer_id = demo.customers.customer_id (n:1; each
                        #  customers row repeats once per matching orders row)"
    plan.fan_out()      # the PlannedJoin edges that repeat rows (cardinality n:1, 1:n, n:m)
    plan.from_clause()  # "FROM demo.orders JOIN demo.customers ON ..." (PostgreSQL, via sqlglot)
    plan.condition_pairs()  # frozenset of unordered column pairs, e.g.
                        # {frozenset({"demo.orders.customer_id", "demo.customers.customer_id"})}
    plan.to_dict()      # JSON-able

    j = plan.joins[0]
    j.left_table, j.left_columns, j.right_table, j.right_columns  # referencing -> referenced
    j.cardinality       # "1:1" | "n:1" | "1:n" | "n:m" | "?" (left:right)
    j.fans_out          # True unless 1:1 (or unknown)
    j.repeated_table    # the table whose rows the join repeats ("n:1": right; "1:n": left)
    j.status, j.decided_by, j.score   # accepted | proposed | rejected (by score only) from the
                        # catalog, or guessed (decided_by "name": same column names, no stored join)
    j.confirmed         # accepted join (declared, human, LLM or score above the threshold)
    j.alternatives      # other catalog joins of the same two tables (flights: source and destination)
    j.text()            # the one-line rendering above

``plan_joins`` never raises for unknown or unconnected tables: check ``plan.complete``.
Plans of one catalog snapshot share a cached graph (:func:`build_graph`).

The tree: the join graph holds the catalog's accepted joins, then the joins onboarding
left *proposed*, then (as a last resort, only when nothing better connects two
tables) pairs rejected *by score* (never a human rejection) and name-only guesses
between a requested table and a table no stored pair links it to
(:func:`guessed_joins`; a keyless table is reached through its self-named id column).
Each edge weighs ``1 + 10 * -ln(confidence) + ln(1 + cost)`` (:func:`_weight`: a count
of joins, how unsure the join is, the join cost model's estimate on a log scale);
confidence: the join's score as in :func:`sqlgenie.inference.join_paths.edge_weight`,
proposed capped at 0.3, score-rejected at 0.15 and rated by how well the column names
link the tables or, failing that, by the shape of a reference (:func:`reference_shape`:
an id-suffixed column or a column of a composite key pointing at a single-column key;
a link table's second key column weighs as a proposed join, :func:`link_key`),
name-only guesses at 0.05-0.06. A table not asked for costs :data:`BRIDGE_PENALTY` more
(the tables a plan names usually connect among themselves). Two tables: the cheapest
path; more: a Steiner tree approximation (:meth:`JoinGraph.connect`). Among joins of
the same two tables the question's words pick a role (``start`` -> ``src_apid``),
else the referencing column first in its table. A bridge table reached by two
accepted joins on the same key columns and not asked for is left out (the two tables
join directly). Figures: docs/benchmarks.md, "JOIN planner (issue 15)". Cardinality comes from the catalog's keys and
profiling: a side is "1" when its columns hold the table's primary key or a column
profiled unique.
"""

from __future__ import annotations

import math
import weakref
from dataclasses import dataclass, field, replace
from typing import Any, Iterable, Sequence

from sqlglot import exp

from onboarding.names import (
    ID_TOKENS,
    STRONG_ID_TOKENS,
    canonical_word,
    expand_word,
    mentions_table,
    singular,
    split_identifier,
    strip_id,
    table_words,
)
from sqlgenie.catalog import Catalog, ColumnInfo, JoinInfo, TableInfo
from sqlgenie.inference.join_paths import DEFAULT_COST, MIN_SCORE, PROPOSED_SCORE, JoinGraph

__all__ = ["JoinPlan", "PlannedJoin", "build_graph", "cardinality", "guessed_joins", "is_key", "link_key", "name_link",
           "plan_joins", "reference_shape"]

REJECTED_SCORE = 0.15  # confidence ceiling of a pair rejected by score whose names link it: a last resort
MIN_REJECTED_INCLUSION = 0.5  # a score-rejected pair is an edge only when this share of its values match
REFERENCE_SHAPE = 0.3  # name link granted to a score-rejected join with a reference's shape (reference_shape)
UNLINKED_SCORE = 0.03  # confidence ceiling of a pair rejected by score with no name link
GUESS_TABLE_SCORE = 0.06  # a name-only guess: the column names the other table, whose key it matches
GUESS_NAME_SCORE = 0.05  # a name-only guess: the same column name on both sides
GUESS_MAX_SHARING = 3  # a same-name guess only for a name at most this many tables of the schema hold
UNCERTAINTY = 10.0  # weight of -ln(confidence) in an edge's weight
BRIDGE_PENALTY = 10.0  # extra weight of a table the plan adds only to connect the asked ones
COST_WEIGHT = 1.0  # weight of ln(1 + the cost model's estimate) in an edge's weight
FULL_INCLUSION = 0.99  # share of referencing values found that counts as all of them
PEER_RATIO = 2.0  # parallel joins this close in confidence are told apart by the question and column order
#: words of a role column (``destairport``, ``source_airport``) and question words that name the role
_DEST = ("destination", "arrive", "arrives", "arriving", "arrival", "arrived", "inbound", "landing",
         "end", "ends", "ending", "ended")
_SOURCE = ("source", "origin", "depart", "departs", "departing", "departure", "departed", "outbound", "leaving",
           "start", "starts", "starting", "started")
ROLE_CUES: dict[str, tuple[str, ...]] = {
    "dest": _DEST, "dst": _DEST, "destination": _DEST, "arrival": _DEST, "to": _DEST,
    "source": _SOURCE, "src": _SOURCE, "origin": _SOURCE, "departure": _SOURCE, "from": _SOURCE,
}
#: column names too generic for a same-name guess
GENERIC_NAMES = frozenset({"id", "name", "title", "description", "details", "other_details", "comments", "comment",
                           "notes", "note", "date", "type", "status", "value", "amount", "price", "age"})


def is_key(table: TableInfo | None, columns: Iterable[str]) -> bool | None:
    """Whether ``columns`` identify a row of ``table`` (primary key inside them, or one
    of them profiled unique). None when the table is unknown."""
    if table is None:
        return None
    cols = {c.lower() for c in columns}
    if not cols:
        return False
    pk = {c.lower() for c in table.primary_key}
    if pk and pk <= cols:
        return True
    for c in table.columns:
        if c.name.lower() in cols and (c.is_unique or (c.n_distinct is not None and c.n_distinct == -1)):
            return True
    return False


def cardinality(catalog: Catalog, join: JoinInfo) -> str:
    """``"1:1" | "n:1" | "1:n" | "n:m" | "?"`` of ``join`` (from side : to side)."""
    left = is_key(_table(catalog, join.from_table), join.from_columns)
    right = is_key(_table(catalog, join.to_table), join.to_columns)
    if left is None or right is None:
        return "?"
    return {(True, True): "1:1", (False, True): "n:1", (True, False): "1:n", (False, False): "n:m"}[(left, right)]


def _table(catalog: Catalog, qualified: str) -> TableInfo | None:
    if "." in qualified:
        schema, name = qualified.split(".", 1)
        return catalog.table(name, schema)
    return catalog.table(qualified)


def _short(qualified: str) -> str:
    return qualified.split(".", 1)[1] if "." in qualified else qualified


@dataclass(frozen=True)
class PlannedJoin:
    """One join of the plan, oriented as the catalog stores it (referencing -> referenced)."""

    left_table: str
    left_columns: tuple[str, ...]
    right_table: str
    right_columns: tuple[str, ...]
    cardinality: str
    status: str
    decided_by: str | None
    score: float
    weight: float
    join_id: int | None = None
    alternatives: tuple["PlannedJoin", ...] = ()
    left_alias: str | None = None  # set when this join brings in a second copy of the left table
    right_alias: str | None = None  # ... of the right table (``airports`` as ``airports_2``)

    @property
    def fans_out(self) -> bool:
        return self.cardinality in ("n:1", "1:n", "n:m")

    @property
    def confirmed(self) -> bool:
        return self.status == "accepted"

    @property
    def repeated_table(self) -> str | None:
        """The table whose rows the join repeats (both sides for n:m: the right one is named)."""
        if self.cardinality == "n:1":
            return self.right_table
        if self.cardinality == "1:n":
            return self.left_table
        if self.cardinality == "n:m":
            return self.right_table
        return None

    def column_pairs(self) -> frozenset[frozenset[str]]:
        """Unordered ``{left.col, right.col}`` pairs (lower case, qualified)."""
        return frozenset(
            frozenset((f"{self.left_table}.{a}".lower(), f"{self.right_table}.{b}".lower()))
            for a, b in zip(self.left_columns, self.right_columns)
        )

    def condition(self) -> str:
        lt = self.left_alias or self.left_table
        rt = self.right_alias or self.right_table
        return " AND ".join(f"{lt}.{a} = {rt}.{b}" for a, b in zip(self.left_columns, self.right_columns))

    def explanation(self) -> str:
        lt, rt = _short(self.left_table), _short(self.right_table)
        if self.cardinality == "1:1":
            return "1:1; no fan-out"
        if self.cardinality == "n:1":
            return f"n:1; each {rt} row repeats once per matching {lt} row"
        if self.cardinality == "1:n":
            return f"1:n; each {lt} row repeats once per matching {rt} row"
        if self.cardinality == "n:m":
            return f"n:m; rows of both {lt} and {rt} repeat"
        return "cardinality unknown"

    def text(self) -> str:
        note = self.explanation()
        if self.status == "guessed":
            note += "; guessed from column names only, no stored join"
        elif not self.confirmed:
            note += f"; unconfirmed ({self.status}, confidence {self.score:.2f})"
        line = f"{self.condition()} ({note})"
        for alias, table in ((self.left_alias, self.left_table), (self.right_alias, self.right_table)):
            if alias:
                line += f"; {alias} is a second copy of {table}"
        if self.alternatives:
            line += "; other joins of these tables: " + "; ".join(a.condition() for a in self.alternatives)
        return line

    def to_dict(self) -> dict[str, Any]:
        return {
            "left_table": self.left_table, "left_columns": list(self.left_columns),
            "right_table": self.right_table, "right_columns": list(self.right_columns),
            "cardinality": self.cardinality, "fans_out": self.fans_out, "repeated_table": self.repeated_table,
            "status": self.status, "decided_by": self.decided_by, "score": round(float(self.score), 4),
            "weight": round(float(self.weight), 6), "join_id": self.join_id, "text": self.text(),
            "alternatives": [a.condition() for a in self.alternatives],
            "left_alias": self.left_alias, "right_alias": self.right_alias,
        }


@dataclass(frozen=True)
class JoinPlan:
    """The cheapest tree connecting the requested tables (see the module docstring)."""

    requested: tuple[str, ...]
    tables: tuple[str, ...]  # in join order: the first requested table, then each joined table
    joins: tuple[PlannedJoin, ...]
    bridges: tuple[str, ...] = ()
    unconnected: tuple[str, ...] = ()
    unknown: tuple[str, ...] = ()
    weight: float = 0.0

    @property
    def complete(self) -> bool:
        return not self.unconnected and not self.unknown

    def fan_out(self) -> list[PlannedJoin]:
        return [j for j in self.joins if j.fans_out]

    def condition_pairs(self) -> frozenset[frozenset[str]]:
        out: set[frozenset[str]] = set()
        for j in self.joins:
            out |= j.column_pairs()
        return frozenset(out)

    def render(self) -> str:
        """Text for a prompt: the joins, then what could not be connected."""
        lines = []
        if len(self.requested) <= 1 and not self.joins:
            lines.append("Single table; no join needed." if self.requested else "No tables.")
        for j in self.joins:
            lines.append(j.text())
        if self.bridges:
            lines.append("Tables added only to connect the others: " + ", ".join(self.bridges) + ".")
        if self.unconnected:
            lines.append("No known join reaches: " + ", ".join(self.unconnected) + ".")
        if self.unknown:
            lines.append("Not in the catalog: " + ", ".join(self.unknown) + ".")
        return "\n".join(lines)

    def from_clause(self) -> str:
        """``FROM t1 JOIN t2 ON ...`` over the connected tables (PostgreSQL; no aliases)."""
        if not self.tables:
            return ""
        def table(q: str, alias: str | None = None) -> exp.Expression:
            schema, _, name = q.rpartition(".")
            t = exp.Table(this=exp.to_identifier(name), db=exp.to_identifier(schema) if schema else None)
            return exp.alias_(t, alias, table=True) if alias else t

        def col(q: str, c: str, alias: str | None = None) -> exp.Column:
            if alias:
                return exp.Column(this=exp.to_identifier(c), table=exp.to_identifier(alias))
            schema, _, name = q.rpartition(".")
            return exp.Column(this=exp.to_identifier(c), table=exp.to_identifier(name),
                              db=exp.to_identifier(schema) if schema else None)

        select = exp.select("*").from_(table(self.tables[0]))
        joined = {self.tables[0].lower()}
        for j in self.joins:
            if j.right_alias:
                new, alias = j.right_table, j.right_alias
            elif j.left_alias:
                new, alias = j.left_table, j.left_alias
            else:
                new, alias = (j.right_table if j.left_table.lower() in joined else j.left_table), None
            on = exp.and_(*[exp.EQ(this=col(j.left_table, a, j.left_alias), expression=col(j.right_table, b, j.right_alias))
                            for a, b in zip(j.left_columns, j.right_columns)])
            select = select.join(table(new, alias), on=on)
            joined.add(new.lower())
        sql = select.sql(dialect="postgres")
        return sql[sql.index("FROM"):]

    def to_dict(self) -> dict[str, Any]:
        return {
            "requested": list(self.requested), "tables": list(self.tables), "bridges": list(self.bridges),
            "unconnected": list(self.unconnected), "unknown": list(self.unknown), "complete": self.complete,
            "weight": round(float(self.weight), 6), "joins": [j.to_dict() for j in self.joins],
            "fan_out": [j.condition() for j in self.fan_out()], "text": self.render(),
        }


def _words(name: str) -> list[str]:
    return [canonical_word(w) for w in split_identifier(name)]


def name_link(join: JoinInfo) -> float:
    """How much the column names support ``join`` (0..1): the same words on both sides
    (``model`` = ``model``, ``cust_id`` ~ ``customer_id``), the referencing column naming
    the referenced table (``maker`` -> ``car_makers.id``), or ending with the referenced
    column's words. The weakest column pair counts."""
    best = 1.0
    for a, b in zip(join.from_columns, join.to_columns):
        fa, fb = _words(a), _words(b)
        sa, sb = strip_id(fa), strip_id(fb)
        if sa and sa == sb:
            link = 1.0  # the same words (a bare "id" on both sides links nothing)
        else:
            link = mentions_table(split_identifier(a), _short(join.to_table))
            if sb and len(sa) > len(sb) and sa[-len(sb):] == sb:
                link = max(link, 0.8)
        best = min(best, link)
    return best if join.from_columns else 0.0


def _confidence(join: JoinInfo) -> float:
    """Confidence in the weight of an edge (see the module docstring)."""
    if join.status in ("accepted", "proposed"):
        if join.decided_by in ("human", "declared") and join.status == "accepted":
            return 1.0
        score = max(MIN_SCORE, min(1.0, float(join.score or 0.0)))
        return score if join.status == "accepted" else min(score, PROPOSED_SCORE)
    if join.status == "guessed":
        return float(join.score or 0.0)
    score = min(float(join.score or 0.0), REJECTED_SCORE)
    inclusion = 1.0 if join.inclusion is None else float(join.inclusion)
    if join in _LINK_KEYS and inclusion >= FULL_INCLUSION:
        return PROPOSED_SCORE
    return max(score, REJECTED_SCORE * min(max(name_link(join), _SHAPED.get(join, 0.0)), inclusion))


#: score-rejected joins whose referencing column looks like a reference (see :func:`reference_shape`)
_SHAPED: "weakref.WeakKeyDictionary[JoinInfo, float]" = weakref.WeakKeyDictionary()
#: score-rejected joins from the other key column of a link table (see :func:`link_key`)
_LINK_KEYS: "weakref.WeakSet[JoinInfo]" = weakref.WeakSet()


def link_key(catalog: Catalog, join: JoinInfo) -> bool:
    """``join`` starts at one column of a two-column primary key whose other column an
    accepted join already sends to another table (``trained_in(physician, treatment)``
    with ``trained_in.physician -> physician.employeeid``): a link table, whose second
    key column references something too (``trained_in.treatment -> procedures.code``).
    Such a pair, with every value found and the shape of a reference
    (:func:`reference_shape`), weighs as a proposed join (confidence 0.3)."""
    if not reference_shape(catalog, join):
        return False
    src = _table(catalog, join.from_table)
    if src is None:
        return False
    pk = [c.lower() for c in src.primary_key]
    col = join.from_columns[0].lower()
    if len(pk) != 2 or col not in pk:
        return False
    sibling = pk[1] if pk[0] == col else pk[0]
    refs = _confirmed_references(catalog).get((src.qualified.lower(), (sibling,)), set())
    return any(t != join.to_table.lower() for t in refs)


def reference_shape(catalog: Catalog, join: JoinInfo) -> float:
    """:data:`REFERENCE_SHAPE` when ``join`` has the shape of a foreign key that its names
    do not spell out (``customer.supportrepid -> employee.employeeid``,
    ``wedding.female_id -> people.people_id``): one referencing column that ends with an
    id marker (``id``, ``key``; ``supportrepid`` glued) or belongs to a primary key of
    several columns (a link table's ``trained_in.treatment``), is not its own table's
    whole primary key, names no other table of the schema (``wedding.church_id`` names
    ``church``), and points at the referenced table's single-column primary key. Else 0.
    On small tables every integer column holds every other's values, so inclusion tells
    nothing there and the shape is what is left."""
    if len(join.from_columns) != 1 or len(join.to_columns) != 1:
        return 0.0
    src, dst = _table(catalog, join.from_table), _table(catalog, join.to_table)
    if src is None or dst is None or src.qualified.lower() == dst.qualified.lower():
        return 0.0
    col, key = join.from_columns[0].lower(), join.to_columns[0].lower()
    if [c.lower() for c in dst.primary_key] != [key]:
        return 0.0
    src_pk = [c.lower() for c in src.primary_key]
    if src_pk == [col]:
        return 0.0
    words = split_identifier(join.from_columns[0])
    if not (words and words[-1] in STRONG_ID_TOKENS and len(words) > 1) and not (len(src_pk) > 1 and col in src_pk):
        return 0.0
    stripped = strip_id(words)
    for other in catalog.tables:
        if other.schema != src.schema or other.qualified.lower() in (src.qualified.lower(), dst.qualified.lower()):
            continue
        if stripped and mentions_table(stripped, other.name) >= 1.0:
            return 0.0
    return REFERENCE_SHAPE


def _weight(join: JoinInfo) -> float:
    """``1 + UNCERTAINTY * -ln(confidence) + COST_WEIGHT * ln(1 + cost)``: one per join
    (fewer joins first), how unsure the join is, and the cost model's estimate on a log
    scale. Summed over a tree, the uncertainty term is the log of the chance that every
    join in it is right, so one direct doubtful join beats a detour through several
    doubtful ones. The cost is added, not multiplied: a product made a sure join between
    two large tables (``routes.dst_apid -> airports.apid``, 67k rows) dearer than a
    detour through a small table over a coincidental join (``airports.elevation ->
    airlines.alid``); Spider train 0.9186 -> 0.9369 (docs/benchmarks.md)."""
    cost = join.cost if join.cost is not None and join.cost > 0 else DEFAULT_COST
    return (1.0 + UNCERTAINTY * -math.log(max(1e-6, min(1.0, _confidence(join))))
            + COST_WEIGHT * math.log1p(cost))


def usable(join: JoinInfo, *, proposed: bool = True, rejected: bool = True) -> bool:
    if join.status == "accepted":
        return True
    if join.status == "proposed":
        return proposed
    # a human (or LLM) rejection stands; a low score is only a last resort, and a pair
    # whose values mostly do not match (inclusion under a half) joins nothing
    return (rejected and join.status == "rejected" and join.decided_by in (None, "score")
            and (join.inclusion is None or join.inclusion >= MIN_REJECTED_INCLUSION))


def guessed_joins(catalog: Catalog, known: Iterable[JoinInfo] = (), tables: Iterable[str] | None = None) -> list[JoinInfo]:
    """Name-only joins between tables of one schema that no stored join links (status
    ``guessed``, a last resort; never when both columns' profiled frequent values are
    known and disjoint): a column naming the whole other table whose single-column
    key has the same type family (``flights.sourceairport`` -> ``airports.airportcode``),
    or two columns of the same non-generic name and type family that are not both keys
    and that at most :data:`GUESS_MAX_SHARING` tables of the schema hold
    (``votes.state`` = ``area_code_state.state``; a name every table has is a
    convention, not a link). ``tables``: only pairs with one of these tables."""
    linked = {frozenset((j.from_table.lower(), j.to_table.lower())) for j in known}
    out: list[JoinInfo] = []
    all_tables = list(catalog.tables)
    wanted = None if tables is None else {t.lower() for t in tables}
    sharing: dict[tuple[str, str], int] = {}
    for t in all_tables:
        for c in t.columns:
            key = (t.schema, c.name.lower())
            sharing[key] = sharing.get(key, 0) + 1
    for i, a in enumerate(all_tables):
        for b in all_tables[i + 1:]:
            if a.schema != b.schema or frozenset((a.qualified.lower(), b.qualified.lower())) in linked:
                continue
            if wanted is not None and a.qualified.lower() not in wanted and b.qualified.lower() not in wanted:
                continue
            found = False
            for src, dst in ((a, b), (b, a)):
                key = _guess_key(dst)
                if key is None:
                    continue
                own_key = {c.lower() for c in src.primary_key}
                for col in src.columns:
                    if col.family != key.family or col.name.lower() in own_key:
                        continue
                    if (mentions_table(split_identifier(col.name), dst.name) >= 1.0
                            or _glued_mention(col.name, dst.name)) and not _disjoint(col, key):
                        out.append(JoinInfo(src.qualified, (col.name,), dst.qualified, (key.name,), GUESS_TABLE_SCORE,
                                            "guessed", decided_by="name"))
                        found = True
            if found:
                continue
            for ca in a.columns:
                if ca.name.lower() in GENERIC_NAMES or sharing.get((a.schema, ca.name.lower()), 0) > GUESS_MAX_SHARING:
                    continue
                cb = b.column(ca.name)
                if cb is None or cb.family != ca.family:
                    continue
                if _words(ca.name) != _words(cb.name) or (is_key(a, [ca.name]) and is_key(b, [cb.name])):
                    continue
                if _disjoint(ca, cb):
                    continue
                src, dst, sc, dc = (a, b, ca, cb) if is_key(b, [cb.name]) or not is_key(a, [ca.name]) else (b, a, cb, ca)
                out.append(JoinInfo(src.qualified, (sc.name,), dst.qualified, (dc.name,), GUESS_NAME_SCORE,
                                    "guessed", decided_by="name"))
    return out


def _guess_key(table: TableInfo) -> ColumnInfo | None:
    """The column a name-only guess may reference: the table's single-column primary key,
    or, when onboarding found no key (an empty table: ``sakila_1.staff``), its one
    column named after the table with an id marker (``staff_id``)."""
    if len(table.primary_key) == 1:
        return table.column(table.primary_key[0])
    if table.primary_key:
        return None
    own = []
    for c in table.columns:
        words = split_identifier(c.name)
        if len(words) > 1 and words[-1] in STRONG_ID_TOKENS and mentions_table(strip_id(words), table.name) >= 1.0:
            own.append(c)
    return own[0] if len(own) == 1 else None


def _disjoint(a: ColumnInfo, b: ColumnInfo) -> bool:
    """Both columns' profiled frequent values are known and share none (a join would
    match nothing)."""
    va = {str(v).strip().lower() for v, _f in a.common_values}
    vb = {str(v).strip().lower() for v, _f in b.common_values}
    return bool(va) and bool(vb) and not (va & vb)


def _glued_mention(column: str, table: str) -> bool:
    """The column's name holds every word (4 letters or more) of the table's name glued to
    other letters (``sourceairport`` ~ ``airports``)."""
    words = table_words(table)
    compact = column.lower().replace("_", "")
    return bool(words) and all(len(w) >= 4 and w in compact for w in words)


def _add_edges(g: JoinGraph, joins: Iterable[JoinInfo]) -> None:
    for j in joins:
        a, b = j.from_table.lower(), j.to_table.lower()
        g.names.setdefault(a, j.from_table)
        g.names.setdefault(b, j.to_table)
        if a == b:
            continue
        w = _weight(j)
        g.parallel.setdefault(frozenset((a, b)), []).append((w, j))
        for x, y in ((a, b), (b, a)):
            cur = g.edges.setdefault(x, {}).get(y)
            if cur is None or w < cur[0] or (w == cur[0] and (j.join_id or 0) < (cur[1].join_id or 0)):
                g.edges[x][y] = (w, j)


_GRAPHS: dict[tuple[int, bool, bool], tuple[Any, JoinGraph]] = {}


def build_graph(catalog: Catalog, *, proposed: bool = True, rejected: bool = True) -> JoinGraph:
    """The planner's join graph over ``catalog``'s stored joins (see the module
    docstring); :func:`plan_joins` adds name-only guesses around the tables it is
    asked for. The last few graphs are kept per catalog snapshot."""
    key = (id(catalog), proposed, rejected)
    hit = _GRAPHS.get(key)
    if hit is not None and hit[0]() is catalog:
        return hit[1]
    g = JoinGraph()
    edges = [j for j in catalog.joins if usable(j, proposed=proposed, rejected=rejected)]
    for j in edges:
        if j.status == "rejected":
            shape = reference_shape(catalog, j)
            if shape:
                _SHAPED[j] = shape
                if link_key(catalog, j):
                    _LINK_KEYS.add(j)
    _add_edges(g, edges)
    if len(_GRAPHS) >= 16:
        _GRAPHS.pop(next(iter(_GRAPHS)))
    try:
        _GRAPHS[key] = (weakref.ref(catalog), g)
    except TypeError:  # pragma: no cover - not weak-referenceable
        pass
    return g


def _with_guesses(catalog: Catalog, graph: JoinGraph, terminals: Sequence[str]) -> JoinGraph:
    """A copy of ``graph`` with the name-only guesses touching ``terminals``."""
    known = [j for pairs in graph.parallel.values() for _w, j in pairs]
    guesses = guessed_joins(catalog, known, terminals)
    if not guesses:
        return graph
    g = JoinGraph({k: dict(v) for k, v in graph.edges.items()}, dict(graph.names),
                  {k: list(v) for k, v in graph.parallel.items()})
    _add_edges(g, guesses)
    return g


def _penalised(graph: JoinGraph, terminals: Sequence[str]) -> JoinGraph:
    """A copy of ``graph`` whose joins touching a table not asked for cost
    :data:`BRIDGE_PENALTY` / 2 more per such end (a bridge table joined twice costs the
    whole penalty): the tables asked for usually connect among themselves."""
    pen = BRIDGE_PENALTY
    if pen <= 0:
        return graph
    wanted = {t.lower() for t in terminals}
    half = pen / 2.0
    edges = {a: {b: (w + half * ((a not in wanted) + (b not in wanted)), j) for b, (w, j) in nbrs.items()}
             for a, nbrs in graph.edges.items()}
    return JoinGraph(edges, graph.names, graph.parallel)


def _ordinal(catalog: Catalog, table: str, columns: Sequence[str]) -> int:
    info = _table(catalog, table)
    if info is None:
        return 10**6
    names = [c.name.lower() for c in info.columns]
    return min((names.index(c.lower()) for c in columns if c.lower() in names), default=10**6)


def _hint_score(join: JoinInfo, hint_words: set[str]) -> int:
    """Words of the referencing columns, other than key markers and the referenced
    table's own words, that the question uses (``permanent`` in ``permanent_address_id``)."""
    if not hint_words:
        return 0
    own = {w for t in (join.to_table, join.from_table) for w in table_words(_short(t))}
    own |= {canonical_word(w) for w in own}
    n = 0
    for c in join.from_columns:
        for w in strip_id(split_identifier(c)):
            if w in ID_TOKENS or w in own or canonical_word(w) in own:
                continue
            forms = {w, canonical_word(w), *expand_word(w), *ROLE_CUES.get(w, ())}
            for role, cues in ROLE_CUES.items():
                if len(role) >= 3 and w.startswith(role) and len(w) > len(role):
                    forms |= set(cues)  # glued: "destairport"
            if forms & hint_words:
                n += 1
    return n


def _question_words(question: str | None) -> set[str]:
    if not question:
        return set()
    words = set()
    for w in split_identifier(question):
        words |= {w, canonical_word(w), singular(w)}
        if w.endswith("ly") and len(w) > 5:
            words.add(w[:-2])  # "permanently" -> "permanent"
    return words


def _role_peers(a: JoinInfo, b: JoinInfo, catalog: Catalog | None = None) -> bool:
    """Two references from one table to the same key, every value found (``likes.student_id``
    and ``likes.liked_id`` -> ``highschooler.id``): two roles, equally plausible. A
    column that is its own table's whole primary key plays no role (``employee.employeeid``
    is no peer of ``employee.reportsto``: its values match any small key by chance)."""
    if not (a.from_table.lower() == b.from_table.lower() and a.to_table.lower() == b.to_table.lower()
            and [c.lower() for c in a.to_columns] == [c.lower() for c in b.to_columns]
            and all(x.inclusion is not None and x.inclusion >= FULL_INCLUSION for x in (a, b))):
        return False
    if catalog is not None:
        refs = _confirmed_references(catalog)
        for x in (a, b):
            if any(t != x.to_table.lower() for t in refs.get((x.from_table.lower(), _cols(x.from_columns)), ())):
                return False  # already a confirmed reference to another table (trained_in.physician)
    src = _table(catalog, a.from_table) if catalog is not None else None
    if src is not None and src.primary_key:
        pk = [c.lower() for c in src.primary_key]
        for x in (a, b):
            if ([c.lower() for c in x.from_columns] == pk and len(pk) == 1
                    and mentions_table(strip_id(split_identifier(pk[0])), src.name) >= 1.0):
                return False  # the table's own identity ("employee id" of employee)
    return True


def _cols(columns: Iterable[str]) -> tuple[str, ...]:
    return tuple(c.lower() for c in columns)


_REFS: dict[int, tuple[Any, dict[tuple[str, tuple[str, ...]], set[str]]]] = {}


def _confirmed_references(catalog: Catalog) -> dict[tuple[str, tuple[str, ...]], set[str]]:
    """(referencing table, columns) -> the tables accepted joins say they reference
    (kept per catalog snapshot)."""
    hit = _REFS.get(id(catalog))
    if hit is not None and hit[0]() is catalog:
        return hit[1]
    refs: dict[tuple[str, tuple[str, ...]], set[str]] = {}
    for j in catalog.joins:
        if j.status == "accepted":
            refs.setdefault((j.from_table.lower(), _cols(j.from_columns)), set()).add(j.to_table.lower())
    if len(_REFS) >= 16:
        _REFS.pop(next(iter(_REFS)))
    try:
        _REFS[id(catalog)] = (weakref.ref(catalog), refs)
    except TypeError:  # pragma: no cover - not weak-referenceable
        pass
    return refs


def _choose_parallel(catalog: Catalog, graph: JoinGraph, join: JoinInfo, hint_words: set[str]) -> JoinInfo:
    """Among the joins of the same two tables and the same standing (confirmed or not,
    confidence at least 1 / :data:`PEER_RATIO` of the chosen one's),
    the one the question names (``permanent_address_id`` for "permanent address"),
    else the referencing column that comes first in its table (``student_id`` before
    ``friend_id``), else the cheapest."""
    weight = {id(j): w for w, j in graph.parallel.get(frozenset((join.from_table.lower(), join.to_table.lower())), [])}
    best = _confidence(join)
    peers = [j for j in graph.joins_between(join.from_table, join.to_table)
             if (j.status == "accepted") == (join.status == "accepted")
             and (_confidence(j) * PEER_RATIO >= best or _role_peers(j, join, catalog))]
    if len(peers) <= 1:
        return join
    same_source = [j for j in peers if j.from_table.lower() == join.from_table.lower()]

    def key(j: JoinInfo) -> tuple:
        ordinal = _ordinal(catalog, j.from_table, j.from_columns) if len(same_source) == len(peers) else 0
        return (-_hint_score(j, hint_words), ordinal, weight.get(id(j), 0.0), j.join_id or 0)

    return min(peers, key=key)


def _shortcut(catalog: Catalog, joins: list[JoinInfo], requested: set[str]) -> list[JoinInfo]:
    """A bridge table that only links two tables through the same key columns of its own
    (``city.countrycode -> country.code <- countrylanguage.countrycode`` when ``country``
    was not asked for) is left out: the two join directly (``city.countrycode =
    countrylanguage.countrycode``), which returns the same rows when the references hold."""
    changed = True
    while changed:
        changed = False
        degree: dict[str, list[JoinInfo]] = {}
        for j in joins:
            for t in {j.from_table.lower(), j.to_table.lower()}:
                degree.setdefault(t, []).append(j)
        for table, edges in degree.items():
            if table in requested or len(edges) != 2:
                continue
            a, b = edges
            if a.to_table.lower() != table or b.to_table.lower() != table:
                continue
            if [c.lower() for c in a.to_columns] != [c.lower() for c in b.to_columns]:
                continue
            if a.from_table.lower() == b.from_table.lower() or a.status != "accepted" or b.status != "accepted":
                continue
            direct = JoinInfo(a.from_table, a.from_columns, b.from_table, b.from_columns,
                              min(float(a.score or 0), float(b.score or 0)),
                              "accepted",
                              cost=(a.cost or 0) + (b.cost or 0) or None, decided_by="shortcut",
                              inclusion=None)
            joins = [j for j in joins if j is not a and j is not b] + [direct]
            changed = True
            break
    return joins


def _planned(catalog: Catalog, graph: JoinGraph, join: JoinInfo, with_alternatives: bool = True) -> PlannedJoin:
    alts: tuple[PlannedJoin, ...] = ()
    if with_alternatives:
        alts = tuple(
            _planned(catalog, graph, o, False)
            for o in graph.joins_between(join.from_table, join.to_table)
            if o is not join and o.status == "accepted"
        )
    return PlannedJoin(
        left_table=join.from_table, left_columns=tuple(join.from_columns), right_table=join.to_table,
        right_columns=tuple(join.to_columns), cardinality=cardinality(catalog, join), status=join.status,
        decided_by=join.decided_by, score=float(join.score or 0.0), weight=_weight(join), join_id=join.join_id,
        alternatives=alts,
    )


def _second_copy(catalog: Catalog, graph: JoinGraph, table: str, used: list[JoinInfo], hint_words: set[str],
                 k: int) -> tuple[JoinInfo, PlannedJoin] | None:
    """A join bringing in copy ``k`` of ``table``: another join (a different role of the
    same key: ``flights.destairport`` besides ``flights.sourceairport``) between it and a
    table it is already joined to."""
    t = table.lower()
    for j in list(used):
        if t not in (j.from_table.lower(), j.to_table.lower()) or j.from_table.lower() == j.to_table.lower():
            continue
        other = j.to_table if j.from_table.lower() == t else j.from_table
        taken = {(u.from_table.lower(), tuple(c.lower() for c in u.from_columns), u.to_table.lower(),
                  tuple(c.lower() for c in u.to_columns)) for u in used}
        best = _confidence(j)
        options = [o for o in graph.joins_between(table, other)
                   if (o.from_table.lower(), tuple(c.lower() for c in o.from_columns), o.to_table.lower(),
                       tuple(c.lower() for c in o.to_columns)) not in taken
                   and (_confidence(o) * PEER_RATIO >= best or _role_peers(o, j, catalog))]
        if not options:
            continue
        pick = min(options, key=lambda o: (-_hint_score(o, hint_words), -_confidence(o),
                                            _ordinal(catalog, o.from_table, o.from_columns)))
        alias = f"{_short(table)}_{k}"
        p = _planned(catalog, graph, pick, False)
        if pick.from_table.lower() == t:
            p = replace(p, left_alias=alias)
        else:
            p = replace(p, right_alias=alias)
        return pick, p
    return None


def plan_joins(
    catalog: Catalog,
    tables: Sequence[str],
    *,
    proposed: bool = True,
    rejected: bool = True,
    guess: bool = True,
    question: str | None = None,
    graph: JoinGraph | None = None,
) -> JoinPlan:
    """Cheapest connecting tree for ``tables`` (qualified or bare names, any case).

    ``proposed`` / ``rejected`` / ``guess``: whether joins onboarding left proposed,
    pairs it rejected by score, and name-only guesses may connect tables that accepted
    joins cannot (guesses: only those touching a requested table). ``question``: its
    words choose among several joins of the same two tables (``permanent_address_id``
    or ``current_address_id``). ``graph``: from :func:`build_graph` with the same flags
    (by default the cached graph of this catalog snapshot).
    """
    resolved: list[str] = []
    unknown: list[str] = []
    copies: dict[str, int] = {}
    for name in tables:
        info = _table(catalog, name)
        if info is None:
            unknown.append(name)
            continue
        copies[info.qualified.lower()] = copies.get(info.qualified.lower(), 0) + 1
        if copies[info.qualified.lower()] == 1:
            resolved.append(info.qualified)
    g = graph if graph is not None else build_graph(catalog, proposed=proposed, rejected=rejected)
    if guess:
        g = _with_guesses(catalog, g, resolved)
    tree = _penalised(g, resolved).connect(resolved)
    hint_words = _question_words(question)
    chosen = [_choose_parallel(catalog, g, j, hint_words) for j in tree.joins]
    chosen = _shortcut(catalog, chosen, {r.lower() for r in resolved})
    # order the tree's joins from the first requested table outwards
    joins_left = list(chosen)
    order = [resolved[0]] if resolved else []
    seen = {t.lower() for t in order}
    ordered: list[JoinInfo] = []
    progress = True
    while joins_left and progress:
        progress = False
        for j in list(joins_left):
            a, b = j.from_table.lower(), j.to_table.lower()
            if a in seen or b in seen:
                new = j.to_table if a in seen else j.from_table
                if new.lower() not in seen:
                    order.append(new)
                    seen.add(new.lower())
                ordered.append(j)
                joins_left.remove(j)
                progress = True
    # joins of components outside the first requested table's (unconnected terminals)
    for j in joins_left:
        for t in (j.from_table, j.to_table):
            if t.lower() not in seen:
                order.append(t)
                seen.add(t.lower())
        ordered.append(j)
    unconnected = tuple(t for t in resolved if t.lower() not in {x.lower() for x in order})
    requested_lower = {r.lower() for r in resolved}
    bridges = tuple(t for t in order if t.lower() not in requested_lower)
    unconnected = tuple(dict.fromkeys(unconnected + tuple(
        g.names.get(t.lower(), t) for t in tree.unconnected if t.lower() in requested_lower)))
    planned = [_planned(catalog, g, j) for j in ordered]
    for table in resolved:
        for k in range(2, copies[table.lower()] + 1):
            extra = _second_copy(catalog, g, table, ordered, hint_words, k)
            if extra is not None:
                ordered.append(extra[0])
                planned.append(extra[1])
    planned = tuple(planned)
    return JoinPlan(
        requested=tuple(resolved), tables=tuple(order) + tuple(t for t in resolved if t.lower() not in seen),
        joins=planned, bridges=bridges, unconnected=unconnected, unknown=tuple(unknown),
        weight=sum(j.weight for j in planned),
    )
