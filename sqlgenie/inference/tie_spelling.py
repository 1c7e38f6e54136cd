"""Close candidates that differ only in how a value is spelt agree (the tie rule of the match route).

``Asker._adapt`` refuses when verified candidates that retrieval scores about equally give
different SQL: two readings of one question, and the route cannot tell which is meant. Read on
the fresh templated split seed 5 (issue 13, helper matchv), a third of those refusals on scholar
were no two readings at all: the candidates' SQL was the same query with one string constant in
another case, 'li dong' from one example and 'Li Dong' from another ('ACL' / 'acl',
'Multiuser Receiver' / 'multiuser receiver'), because each example's adaptation keeps the
question's value or the spelling a column holds. That is one value: the value corrector maps a case
variant of one stored value to that value before anything runs (``value_same_folded``), and a
column that held both spellings as two values would make the question itself ambiguous, not the
choice between two examples.

:func:`same_query` therefore compares the two statements with every string literal folded to
lower case (through the sqlglot AST, then the bank's canonical form); any other difference —
another column, table, operator, number, or a value that differs in more than its case — still
disagrees and refuses. The items of an ``IN`` list of constants are compared in one order (a list
of alternatives has none: ``IN ('a', 'b')`` is ``IN ('b', 'a')``).
"""

from __future__ import annotations

from sqlglot import exp

__all__ = ["ENABLED", "same_query"]

#: Off: candidates whose SQL differs only in the case of a string constant disagree (A/B measurements).
ENABLED = True


def _folded(sql: str) -> str | None:
    from example_bank.skeleton import normalize_sql
    from sqlgenie.autocorrect.base import lower_string_literal, parse_sql

    try:
        tree = parse_sql(sql)
    except Exception:
        return None

    def fold(node: exp.Expression) -> exp.Expression:
        if isinstance(node, exp.In) and node.expressions and all(isinstance(e, exp.Literal) for e in node.expressions):
            items = sorted((fold(e) for e in node.expressions), key=lambda e: (e.is_string, e.this))  # no order
            return exp.In(this=node.this.copy(), expressions=items)
        return lower_string_literal(node)

    try:
        return normalize_sql(tree.transform(fold))
    except Exception:
        return None


def same_query(a: str | None, b: str | None) -> bool:
    """Whether two adapted statements are one query up to the case of their string constants
    (and the order of an ``IN`` list of constants)."""
    if not ENABLED or not a or not b:
        return False
    fa = _folded(a)
    return fa is not None and fa == _folded(b)
