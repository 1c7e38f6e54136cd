"""Shared pieces of the correctors: the change record and sqlglot helpers."""

from __future__ import annotations

import functools

from dataclasses import dataclass

import sqlglot
from sqlglot import exp
from sqlglot.errors import ParseError, TokenError

from sqlgenie.errors import SQLSyntaxError

DIALECT = "postgres"


@dataclass(frozen=True)
class Change:
    """One rewrite made by a corrector: what it replaced, by what, and why.

    ``before``/``after`` are SQL fragments (or the raw ``<python>`` span), short
    enough to show in ``ask --explain`` and to store in the query log.
    """

    corrector: str
    before: str
    after: str
    reason: str

    def to_dict(self) -> dict[str, str]:
        return {"corrector": self.corrector, "before": self.before, "after": self.after, "reason": self.reason}


def parse_sql(sql: str) -> exp.Expression:
    """Parse one PostgreSQL statement with sqlglot (typed error on failure). A fresh tree
    every call (callers rewrite it), copied from the remembered parse of the same text:
    the match route parses the same bank SQL for every candidate and check, and a copy
    costs about a third of a parse."""
    return _parsed(sql).copy()


def parsed_read_only(sql: str) -> exp.Expression:
    """The remembered parse of ``sql`` itself, not a copy: for callers that only read the tree
    (never change it, never keep a node to change later); raises as :func:`parse_sql` does."""
    return _parsed(sql)


@functools.lru_cache(maxsize=4096)
def _parsed(sql: str) -> exp.Expression:
    """The parse of ``sql``; never handed out (only its copies), so never changed. Without the
    tokens' positions (:data:`TOKEN_POSITIONS`): sqlglot copies every node's metadata dict, which
    made a copy cost more than the parse, and reads positions only to point at an unresolved
    column when asked to validate (sqlgenie never asks)."""
    try:
        tree = sqlglot.parse_one(sql, read=DIALECT)
    except (ParseError, TokenError) as exc:
        raise SQLSyntaxError(f"Cannot parse the SQL: {exc}", sql=sql) from exc
    if tree is None:
        raise SQLSyntaxError("Empty SQL statement.", sql=sql)
    return without_positions(tree)


#: The metadata sqlglot's parser gives identifiers and literals: where their token was.
TOKEN_POSITIONS = ("line", "col", "start", "end")


def without_positions(tree: exp.Expression) -> exp.Expression:
    """``tree`` (changed in place) without the tokens' positions in its nodes' metadata."""
    for node in tree.walk():
        meta = node._meta
        if meta:
            for key in TOKEN_POSITIONS:
                meta.pop(key, None)
            if not meta:
                node._meta = None
    return tree


def to_sql(node: exp.Expression) -> str:
    return node.sql(dialect=DIALECT)


def string_literal(node: exp.Expression) -> str | None:
    """The text of a string literal node, else None."""
    if isinstance(node, exp.Literal) and node.is_string:
        return node.this
    return None


def lower_string_literal(node: exp.Expression) -> exp.Expression:
    """A string literal in lower case (a ``transform`` step), any other node as it is: the
    templated sets were written for MySQL, whose default collation compares strings without
    case, so the exact metric, the test suite and the tie rule all compare constants folded."""
    if isinstance(node, exp.Literal) and node.is_string and node.this != node.this.lower():
        return exp.Literal.string(node.this.lower())
    return node


def number_literal(node: exp.Expression) -> str | None:
    """The text of a number literal (a negated one included, as ``-5``), else None."""
    if isinstance(node, exp.Literal) and not node.is_string:
        return node.this
    if isinstance(node, exp.Neg) and isinstance(node.this, exp.Literal) and not node.this.is_string:
        return "-" + node.this.this
    return None


def in_values(node: exp.In) -> list[exp.Expression] | None:
    """The literal list of ``x IN (a, b)``; None for ``IN (subquery)`` / ``IN UNNEST``."""
    if node.args.get("query") is not None or node.args.get("unnest") is not None or node.args.get("field") is not None:
        return None
    return list(node.expressions)
