"""Gold literals that occur in no row: a second, separate reading of known gold errors.

Some Spider golds compare a column with a string the database never stores:
``flight_2`` keeps airport codes with a leading space (``SourceAirport = ' APG'``) and
cities with a trailing one (``'Anthony '``), and several golds write a value in another
case than the stored one (``'haiti'`` against ``'Haiti'``; ``=`` is case-sensitive in
SQLite and PostgreSQL alike). Such a gold returns nothing (or, behind ``<>``, everything),
so an answer whose value corrector mapped the question's value to the stored one can
never match it. The Spider maintainers list such errors in the dataset's errata; the
execution metric cannot see them.

This module reads them explicitly, without touching the headline metric:

* a **gold literal** is a string literal compared with a column by ``=``, ``<>`` /
  ``!=``, ``IN`` / ``NOT IN`` (each list item), or ``LIKE`` / ``ILIKE`` whose pattern has
  no wildcard (``%`` or ``_``: with one it is a pattern, not a value). Comparisons of two
  columns, of expressions (``LOWER(col)``), ranges (``<``, ``BETWEEN``) and literals
  inside function calls are out of scope;
* it is **absent** when no row of its column holds it (exactly, or case-insensitively
  for ``ILIKE``, which is what the transpiled ``LIKE`` of a Spider gold is);
* it is **repairable** when exactly one value stored in that column equals it after
  trimming white space and folding case. Two stored values that fold equal
  (``'Haiti'`` and ``'HAITI'``) leave it alone: which one the gold meant is not known.

:func:`repair_gold` rewrites the gold's AST (sqlglot, never text) with the stored value
of every repairable literal; the evaluation then scores a wrong answer against the
repaired gold as well (``correct_gold_repaired``). By construction the repair can only
change a verdict where the gold's literal is in no row of its column, so the repaired
precision is an upper reading next to the raw one, never a replacement for it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterator

import sqlglot
from sqlglot import exp
from sqlglot.optimizer.scope import traverse_scope

#: Column types whose values are compared as text (others are never "absent strings").
TEXT_TYPES = ("text", "character varying", "character", "varchar", "char", "name")
#: Most distinct stored values read per literal (two already decide "ambiguous").
_PROBE_LIMIT = 5


@dataclass(frozen=True)
class AbsentLiteral:
    """A gold literal no row holds, with the stored values that equal it once folded."""

    table: str
    column: str
    operator: str
    literal: str
    stored: tuple[str, ...]

    @property
    def repairable(self) -> bool:
        return len(self.stored) == 1

    def as_record(self) -> dict[str, Any]:
        return {"column": f"{self.table}.{self.column}", "operator": self.operator, "literal": self.literal,
                "stored": self.stored[0] if self.repairable else None, "folded_matches": len(self.stored)}


def fold(value: str) -> str:
    """Trimmed and case-folded: the comparison under which a stored value "is" the literal."""
    return value.strip().casefold()


def _wildcard_free(pattern: str) -> bool:
    return "%" not in pattern and "_" not in pattern


def _unwrap(node: Any) -> Any:
    """The column or literal under casts, parentheses and case / trim functions."""
    while isinstance(node, (exp.Cast, exp.Paren, exp.Lower, exp.Upper, exp.Trim)):
        node = node.this
    return node


def compared_literals(tree: exp.Expression, columns: dict[str, dict[str, str]], *, unwrap: bool = False,
                      either_side: bool = True) -> Iterator[tuple[str, str, str, exp.Literal]]:
    """``(table, column, operator, literal node)`` for every string literal of ``tree``
    compared with a column of a base table by ``=``, ``<>``, ``IN`` / ``NOT IN`` (each item)
    or ``LIKE`` / ``ILIKE`` (operator ``=``, ``<>``, ``IN``, ``NOT IN``, ``LIKE``,
    ``ILIKE``). ``columns``: lower-case table name → {lower-case column name: its name};
    the table comes back in lower case, the column as ``columns`` spells it. A column is
    resolved in its own scope (sqlglot): by its qualifier, else the one table of the scope
    that has a column of that name. ``unwrap``: also a column or literal under a cast,
    ``LOWER``, ``UPPER``, ``TRIM`` or parentheses (value linking: the literal still names
    a stored value); ``either_side``: also ``'x' = col``. Shared by :mod:`sqlgenie.inference.eval_values`
    (which gold literals value linking should find) and the repair below."""
    peel = _unwrap if unwrap else (lambda node: node)
    for scope in traverse_scope(tree):
        tables = {alias.lower(): source.name.lower() for alias, source in scope.sources.items()
                  if isinstance(source, exp.Table) and source.name.lower() in columns}
        for node in scope.find_all(exp.EQ, exp.NEQ, exp.In, exp.Like, exp.ILike):
            left = peel(node.this)
            if isinstance(node, exp.In):
                if node.args.get("query") is not None:
                    continue
                op = "NOT IN" if isinstance(node.parent, exp.Not) else "IN"
                literals = [item for item in node.expressions if isinstance(item, exp.Literal) and item.is_string]
            else:
                right = peel(node.expression)
                if either_side and isinstance(right, exp.Column) and isinstance(left, exp.Literal):
                    left, right = right, left
                literals = [right] if isinstance(right, exp.Literal) and right.is_string else []
                op = {exp.EQ: "=", exp.NEQ: "<>", exp.Like: "LIKE", exp.ILike: "ILIKE"}[type(node)]
            if not literals or not isinstance(left, exp.Column):
                continue
            name = left.name.lower()
            if left.table:
                owners = [tables.get(left.table.lower())]
            else:
                owners = list(dict.fromkeys(t for t in tables.values() if name in columns[t]))
            if len(owners) != 1 or owners[0] is None or name not in columns[owners[0]]:
                continue
            for literal in literals:
                yield owners[0], columns[owners[0]][name], op, literal


def _columns(types: dict[str, dict[str, str]]) -> dict[str, dict[str, str]]:
    return {t.lower(): {c.lower(): c.lower() for c in cols} for t, cols in types.items()}


def _column_type(types: dict[str, dict[str, str]], table: str, column: str) -> str | None:
    for col, dtype in types.get(table, {}).items():
        if col.lower() == column:
            return dtype.lower()
    return None


def _folded_values(runner: Any, schema: str, table: str, column: str, literal: str) -> list[str] | None:
    """Distinct stored values of ``table.column`` equal to ``literal`` once trimmed and
    case-folded (PostgreSQL's ``LOWER(TRIM(...))``, re-checked in Python); None when the
    probe fails."""
    col = exp.column(column, table=table, quoted=True)
    folded = exp.Lower(this=exp.Trim(this=col.copy()))
    probe = (
        exp.select(col.copy())
        .distinct()
        .from_(exp.table_(table, quoted=True))
        .where(exp.EQ(this=folded, expression=exp.Lower(this=exp.Trim(this=exp.Literal.string(literal)))))
        .limit(_PROBE_LIMIT)
    )
    out = runner.run(probe.sql(dialect="postgres"), schema)
    if not out.ok:
        return None
    return [row[0] for row in out.rows if isinstance(row[0], str) and fold(row[0]) == fold(literal)]


def absent_literals(sql: str, schema: str, runner: Any) -> list[AbsentLiteral]:
    """Every gold literal of ``sql`` (PostgreSQL) that no row of its column holds, with
    the stored values that fold equal to it. ``runner``: a
    :class:`~sqlgenie.eval.runners.PostgresRunner` (``table_types`` and ``run``)."""
    try:
        tree = sqlglot.parse_one(sql, read="postgres")
    except sqlglot.errors.SqlglotError:
        return []
    types = {t.lower(): cols for t, cols in runner.table_types(schema).items()}
    out: list[AbsentLiteral] = []
    seen: set[tuple[str, str, str]] = set()
    for table, name, op, literal in compared_literals(tree, _columns(types)):
        if op in ("LIKE", "ILIKE") and not _wildcard_free(literal.this):
            continue
        dtype = _column_type(types, table, name)
        if dtype is None or not dtype.startswith(TEXT_TYPES):
            continue
        key = (table, name, literal.this if op != "ILIKE" else literal.this.casefold())
        if key in seen:
            continue
        seen.add(key)
        stored = _folded_values(runner, schema, table, name, literal.this)
        if stored is None:
            continue
        if op == "ILIKE":
            present = any(v.casefold() == literal.this.casefold() for v in stored)
        else:
            present = literal.this in stored
        if not present:
            out.append(AbsentLiteral(table, name, op, literal.this, tuple(sorted(set(stored)))))
    return out


def repair_gold(sql: str, schema: str, runner: Any) -> tuple[str | None, list[AbsentLiteral]]:
    """(the gold with every repairable absent literal replaced by its one stored value,
    or None when there is none; the absent literals found)."""
    absent = absent_literals(sql, schema, runner)
    fixes = {(a.table, a.column, a.literal): a.stored[0] for a in absent if a.repairable}
    if not fixes:
        return None, absent
    tree = sqlglot.parse_one(sql, read="postgres")
    types = {t.lower(): cols for t, cols in runner.table_types(schema).items()}
    # collect first, replace after: replacing while traversing scopes would detach nodes
    targets = []
    for table, name, _op, literal in compared_literals(tree, _columns(types)):
        stored = fixes.get((table, name, literal.this))
        if stored is not None:
            targets.append((literal, stored))
    for literal, stored in targets:
        literal.replace(exp.Literal.string(stored))
    return tree.sql(dialect="postgres"), absent


def repaired_verdict(dataset: Any, q: Any, sql: str, refs: list, runner: Any, *, correct: bool) -> dict[str, Any]:
    """The record keys of this reading for one answered question: ``correct_gold_repaired``
    (the raw verdict, or for a wrong answer whether it matches a gold repaired here) and,
    when a gold has absent literals, ``gold_literals_absent`` (literal, column, stored form).
    Spider: execution against each repaired PostgreSQL gold; templated sets: the exact
    metric against the repaired gold variants."""
    if correct:
        return {"correct_gold_repaired": True}
    from sqlgenie.eval.tasks import _Reference, _score_prediction

    schema = dataset.schema_name(q.db_id)
    golds = list(q.golds) if q.golds else [r.sql for r in refs if r.dialect == "postgres"]
    absent: dict[tuple, dict[str, Any]] = {}
    repaired: list[tuple[str, str]] = []  # (gold, repaired gold)
    for gold in golds:
        fixed, found = repair_gold(gold, schema, runner)
        for a in found:
            absent.setdefault((a.table, a.column, a.literal), a.as_record())
        if fixed is not None:
            repaired.append((gold, fixed))
    out: dict[str, Any] = {"correct_gold_repaired": False}
    if absent:
        out["gold_literals_absent"] = list(absent.values())
    if not repaired:
        return out
    if q.golds:
        from sqlgenie.eval.text2sql import exact_match

        fixed_of = dict(repaired)
        out["correct_gold_repaired"] = exact_match(sql, [fixed_of.get(g, g) for g in golds])
        return out
    ordered = {r.sql: r.ordered for r in refs}
    new_refs = []
    for gold, fixed in repaired:
        run = runner.run(fixed, schema)
        if run.ok:
            new_refs.append(_Reference(fixed, run, ordered.get(gold, False)))
    if new_refs:
        scored = _score_prediction(dataset, q, {"sql": sql}, new_refs, runner, False, 1)
        out["correct_gold_repaired"] = scored.get("outcome") == "correct"
    return out


def gold_repaired_summary(answered: list[dict[str, Any]], scored: list[dict[str, Any]]) -> dict[str, Any]:
    """Summary keys: ``gold_literal_absent`` (scored records whose gold has a repairable
    absent literal; only wrong answers are checked) and ``precision_gold_repaired``."""
    return {
        "gold_literal_absent": sum(1 for r in scored if any(a.get("stored") is not None
                                                             for a in r.get("gold_literals_absent", ()))),
        "precision_gold_repaired": round(sum(1 for r in answered if r.get("correct_gold_repaired", r["correct"]))
                                         / len(answered), 4) if answered else 0.0,
    }
