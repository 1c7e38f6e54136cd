"""Metrics shared by every eval task.

* outcome rates (correct / incorrect / error) and error buckets;
* schema selection precision / recall / F1 at table and column level, against the
  tables and columns a gold query uses (aliases and scopes resolved by sqlglot's
  ``qualify``);
* transition rates of a revision step (before -> after outcomes);
* cost accounting per question (LLM calls, tokens, latency per stage).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Iterable, Literal, Mapping, Sequence

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError
from sqlglot.optimizer.qualify import qualify
from sqlglot.optimizer.scope import build_scope
from sqlglot.schema import MappingSchema

Outcome = Literal["correct", "incorrect", "error"]
ERROR_BUCKETS = ("no_such_table", "no_such_column", "function", "syntax", "timeout", "other")


# --- outcomes and error buckets ------------------------------------------------------


def error_bucket(error: BaseException | str | None) -> str:
    """Bucket of an execution error (typed SQLGenie errors, psycopg errors or text)."""
    if error is None:
        return "other"
    from sqlgenie.errors import QueryTimeoutError, SQLSyntaxError, UnknownIdentifierError

    if isinstance(error, QueryTimeoutError):
        return "timeout"
    if isinstance(error, SQLSyntaxError):
        return "syntax"
    if isinstance(error, UnknownIdentifierError):
        kind = getattr(error, "kind", "") or ""
        if "function" in kind:
            return "function"
        if "column" in kind:
            return "no_such_column"
        if "table" in kind or "relation" in kind or "schema" in kind:
            return "no_such_table"
    text = str(error).lower()
    if "timeout" in text or "canceling statement" in text or "timed out" in text:
        return "timeout"
    if "no such table" in text or ("relation" in text and "does not exist" in text):
        return "no_such_table"
    if "no such column" in text or ("column" in text and "does not exist" in text):
        return "no_such_column"
    if "function" in text and ("does not exist" in text or "no such function" in text):
        return "function"
    if "syntax" in text or "parse" in text:
        return "syntax"
    return "other"


def outcome_rates(outcomes: Sequence[str]) -> dict[str, float]:
    n = len(outcomes)
    c = Counter(outcomes)
    if not n:
        return {"correct_rate": 0.0, "incorrect_rate": 0.0, "error_rate": 0.0}
    return {
        "correct_rate": c["correct"] / n,
        "incorrect_rate": c["incorrect"] / n,
        "error_rate": c["error"] / n,
    }


def bucket_counts(buckets: Iterable[str]) -> dict[str, int]:
    c = Counter(buckets)
    return {b: c.get(b, 0) for b in ERROR_BUCKETS}


# --- transitions -------------------------------------------------------------------


def transition_rates(before: Sequence[str], after: Sequence[str]) -> dict[str, float | int]:
    """Rates of a revision step over questions (``before[i]`` -> ``after[i]``).

    Each rate is relative to all questions; ``*_count`` keys give raw counts.
    """
    if len(before) != len(after):
        raise ValueError("before and after must cover the same questions")
    n = len(before)
    pairs = Counter(zip(before, after))
    names = {
        "incorrect_to_correct": ("incorrect", "correct"),
        "error_to_correct": ("error", "correct"),
        "correct_to_incorrect": ("correct", "incorrect"),
        "correct_to_error": ("correct", "error"),
        "error_to_incorrect": ("error", "incorrect"),
        "incorrect_to_error": ("incorrect", "error"),
    }
    out: dict[str, float | int] = {"questions": n}
    for name, pair in names.items():
        out[name] = pairs[pair] / n if n else 0.0
        out[name + "_count"] = pairs[pair]
    out["net_gain"] = (
        (pairs[("incorrect", "correct")] + pairs[("error", "correct")] - pairs[("correct", "incorrect")] - pairs[("correct", "error")]) / n
        if n
        else 0.0
    )
    return out


# --- schema selection ----------------------------------------------------------------


@dataclass(frozen=True)
class SchemaItems:
    tables: frozenset[str]
    columns: frozenset[tuple[str, str]]  # (table, column)


def used_schema_items(sql_text: str, table_columns: Mapping[str, Iterable[str]], dialect: str = "postgres") -> SchemaItems:
    """Tables and (table, column) pairs a query reads, with aliases and scopes resolved.

    ``table_columns`` maps table -> column names (as they appear in the query after the
    dialect's normalisation, e.g. lower case for PostgreSQL). ``SELECT *`` counts every
    column of the starred tables. Raises ValueError when the SQL cannot be parsed.
    """
    try:
        tree = sqlglot.parse_one(sql_text, read=dialect)
    except SqlglotError as exc:
        raise ValueError(f"cannot parse: {exc}") from exc
    mapping = {t: {c: "text" for c in cols} for t, cols in table_columns.items()}
    try:
        tree = qualify(
            tree,
            schema=MappingSchema(mapping, dialect=dialect),
            dialect=dialect,
            validate_qualify_columns=False,
            expand_stars=True,
        )
    except SqlglotError:
        pass  # best effort: unresolved columns are attributed by their qualifier below
    tables: set[str] = set()
    columns: set[tuple[str, str]] = set()
    root = build_scope(tree)
    if root is None:
        return SchemaItems(frozenset(), frozenset())
    known = set(table_columns)
    for scope in root.traverse():
        alias_to_table: dict[str, str] = {}
        for alias, (node, source) in scope.selected_sources.items():
            if isinstance(source, exp.Table) and source.name in known:
                alias_to_table[alias] = source.name
                tables.add(source.name)
        for col in scope.columns:
            table = alias_to_table.get(col.table)
            if table is None and not col.table:
                owners = [t for t in alias_to_table.values() if col.name in set(table_columns.get(t, ()))]
                table = owners[0] if len(owners) == 1 else None
            if table is not None and col.name in set(table_columns.get(table, ())):
                columns.add((table, col.name))
    return SchemaItems(frozenset(tables), frozenset(columns))


def prf(selected: Iterable, gold: Iterable) -> dict[str, float]:
    """Precision, recall and F1 of a selected set against a gold set (empty gold and
    empty selection score 1.0)."""
    s, g = set(selected), set(gold)
    if not s and not g:
        return {"precision": 1.0, "recall": 1.0, "f1": 1.0}
    tp = len(s & g)
    p = tp / len(s) if s else 0.0
    r = tp / len(g) if g else 0.0
    f = 2 * p * r / (p + r) if p + r else 0.0
    return {"precision": p, "recall": r, "f1": f}


def schema_selection_scores(selected: SchemaItems, gold: SchemaItems) -> dict[str, float]:
    t = prf(selected.tables, gold.tables)
    c = prf(selected.columns, gold.columns)
    return {
        "table_precision": t["precision"],
        "table_recall": t["recall"],
        "table_f1": t["f1"],
        "column_precision": c["precision"],
        "column_recall": c["recall"],
        "column_f1": c["f1"],
    }


# --- cost accounting ---------------------------------------------------------------


@dataclass
class Cost:
    """What answering one question cost. ``stage_ms`` maps a stage name
    (e.g. ``prune``, ``generate``, ``execute``) to its latency."""

    llm_calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    stage_ms: dict[str, float] = field(default_factory=dict)

    @property
    def total_ms(self) -> float:
        return sum(self.stage_ms.values())

    def add_call(self, input_tokens: int = 0, output_tokens: int = 0) -> None:
        self.llm_calls += 1
        self.input_tokens += input_tokens
        self.output_tokens += output_tokens

    def add_stage(self, stage: str, ms: float) -> None:
        self.stage_ms[stage] = self.stage_ms.get(stage, 0.0) + ms

    def merge(self, other: Cost) -> Cost:
        out = Cost(self.llm_calls + other.llm_calls, self.input_tokens + other.input_tokens, self.output_tokens + other.output_tokens, dict(self.stage_ms))
        for k, v in other.stage_ms.items():
            out.add_stage(k, v)
        return out

    @classmethod
    def from_record(cls, record: Mapping) -> Cost:
        """Read the optional cost fields of a prediction record
        (``llm_calls``, ``input_tokens``, ``output_tokens``, ``stage_ms`` or ``latency_ms``)."""
        stages = dict(record.get("stage_ms") or {})
        if not stages and record.get("latency_ms") is not None:
            stages = {"total": float(record["latency_ms"])}
        return cls(int(record.get("llm_calls") or 0), int(record.get("input_tokens") or 0), int(record.get("output_tokens") or 0), {k: float(v) for k, v in stages.items()})

    def to_dict(self) -> dict:
        return {
            "llm_calls": self.llm_calls,
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "stage_ms": dict(self.stage_ms),
            "total_ms": self.total_ms,
        }


def cost_summary(costs: Sequence[Cost]) -> dict:
    """Totals and per-question means of a list of costs."""
    n = len(costs)
    total = Cost()
    for c in costs:
        total = total.merge(c)
    mean = (lambda v: v / n) if n else (lambda v: 0.0)
    return {
        "llm_calls": total.llm_calls,
        "input_tokens": total.input_tokens,
        "output_tokens": total.output_tokens,
        "mean_llm_calls": mean(total.llm_calls),
        "mean_input_tokens": mean(total.input_tokens),
        "mean_output_tokens": mean(total.output_tokens),
        "mean_stage_ms": {k: mean(v) for k, v in sorted(total.stage_ms.items())},
        "mean_total_ms": mean(total.total_ms),
    }
