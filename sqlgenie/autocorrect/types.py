"""Datatype matching: literals get the type of the column they are compared with.

For ``=``, ``<>``, ``<``, ``<=``, ``>``, ``>=``, ``IN`` and ``BETWEEN`` between a
column resolved to the catalog and literals:

* text column, number literal: ``student_roll_number = 4`` -> ``= '4'`` (PostgreSQL
  has no ``text = integer`` operator);
* numeric column, numeric string: ``age = '42'`` -> ``= 42``;
* date/timestamp column, a complete date string in any common format:
  ``'03/15/2024'`` -> ``CAST('2024-03-15' AS DATE)`` (``TIMESTAMP`` when it has a time);
  strings missing a day, month or year are left alone;
* boolean column: ``'yes'``/``'true'``/``'t'``/``'1'``/``1`` -> ``TRUE`` (and the
  negatives -> ``FALSE``).

A literal that cannot be converted is left alone (PostgreSQL or the dummy test
reports it).
"""

from __future__ import annotations

import datetime as dt
import re

from dateutil import parser as date_parser
from sqlglot import exp

from sqlgenie.autocorrect.base import Change, in_values, number_literal, string_literal, to_sql
from sqlgenie.autocorrect.resolve import ColumnRef, Resolver
from sqlgenie.autocorrect.settings import AutocorrectSettings
from sqlgenie.catalog import Catalog

__all__ = ["convert_literal", "match_datatypes", "parse_full_date"]

NAME = "datatypes"

_NUMBER = re.compile(r"^\s*[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?\s*$")
_TRUE = {"true", "t", "yes", "y", "1", "on"}
_FALSE = {"false", "f", "no", "n", "0", "off"}
_COMPARISONS = (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE)
_DEFAULT_A = dt.datetime(2001, 2, 3, 4, 5, 6)
_DEFAULT_B = dt.datetime(2011, 12, 13, 14, 15, 16)


def parse_full_date(text: str) -> tuple[dt.datetime, bool] | None:
    """``(value, has_time)`` when ``text`` is a complete date (year, month and day
    all given), else None. The day comes after the month in ``01/02/2024``, as in
    PostgreSQL's default DateStyle."""
    raw = text.strip()
    if not raw or len(raw) > 40 or not any(ch.isdigit() for ch in raw) or _NUMBER.match(raw):
        return None
    try:
        a = date_parser.parse(raw, default=_DEFAULT_A)
        b = date_parser.parse(raw, default=_DEFAULT_B)
    except (ValueError, OverflowError, TypeError):
        return None
    if a.tzinfo is not None or b.tzinfo is not None:
        return None
    if (a.year, a.month, a.day) != (b.year, b.month, b.day):
        return None  # year, month or day came from the default
    has_time = (a.hour, a.minute) == (b.hour, b.minute)
    if not has_time:
        return a.replace(hour=0, minute=0, second=0, microsecond=0), False
    if a.second != b.second:
        a = a.replace(second=0, microsecond=0)
    return a, True


def _is_date_type(data_type: str) -> str | None:
    t = data_type.lower()
    if t.startswith("date"):
        return "date"
    if t.startswith("timestamp"):
        return "timestamp"
    return None


def convert_literal(node: exp.Expression, ref: ColumnRef) -> exp.Expression | None:
    """The literal ``node`` converted to the type of ``ref`` (None: leave it)."""
    family = ref.column.family
    text = string_literal(node)
    number = number_literal(node)
    if family == "text":
        if number is not None:
            return exp.Literal.string(number)
        return None
    if family == "numeric":
        if text is not None and _NUMBER.match(text):
            value = text.strip().lstrip("+")
            if value.startswith("-"):
                return exp.Neg(this=exp.Literal.number(value[1:]))
            return exp.Literal.number(value)
        return None
    if family == "boolean":
        raw = (text if text is not None else number or "").strip().lower()
        if raw in _TRUE:
            return exp.Boolean(this=True)
        if raw in _FALSE:
            return exp.Boolean(this=False)
        return None
    kind = _is_date_type(ref.column.data_type)
    if kind is not None and text is not None:
        parsed = parse_full_date(text)
        if parsed is None:
            return None
        value, has_time = parsed
        if has_time and (value.hour, value.minute, value.second, value.microsecond) != (0, 0, 0, 0):
            stamp = value.isoformat(sep=" ")
            return exp.cast(exp.Literal.string(stamp), exp.DataType.build("timestamp"))
        return exp.cast(exp.Literal.string(value.date().isoformat()), exp.DataType.build("date"))
    return None


def _literal_like(node: exp.Expression) -> bool:
    return string_literal(node) is not None or number_literal(node) is not None


def match_datatypes(
    tree: exp.Expression, catalog: Catalog, settings: AutocorrectSettings | None = None, *, copy: bool = True,
    resolver: Resolver | None = None,
) -> tuple[exp.Expression, list[Change]]:
    """Cast literals to their column's type (see module doc). Pure unless ``copy=False``."""
    if copy:
        tree, resolver = tree.copy(), None
    if not any(_literal_like(n) for n in tree.find_all(exp.Literal)):
        return tree, []
    resolver = resolver or Resolver(tree, catalog)
    if not resolver.ok:
        return tree, []
    plans: list[tuple[exp.Expression, list[tuple[exp.Expression, exp.Expression]], ColumnRef]] = []
    for node in tree.find_all(*_COMPARISONS, exp.In, exp.Between):
        column: exp.Expression | None = None
        literals: list[exp.Expression] = []
        if isinstance(node, _COMPARISONS):
            left, right = node.this, node.expression
            if isinstance(left, exp.Column) and _literal_like(right):
                column, literals = left, [right]
            elif isinstance(right, exp.Column) and _literal_like(left):
                column, literals = right, [left]
        elif isinstance(node, exp.In):
            values = in_values(node)
            if values is not None and isinstance(node.this, exp.Column):
                column, literals = node.this, [v for v in values if _literal_like(v)]
        elif isinstance(node.this, exp.Column):
            column = node.this
            literals = [x for x in (node.args.get("low"), node.args.get("high")) if x is not None and _literal_like(x)]
        if column is None or not literals:
            continue
        ref = resolver.resolve(column)  # type: ignore[arg-type]
        if ref is None:
            continue
        swaps = []
        for lit in literals:
            new = convert_literal(lit, ref)
            if new is not None and to_sql(new) != to_sql(lit):
                swaps.append((lit, new))
        if swaps:
            plans.append((node, swaps, ref))
    changes: list[Change] = []
    for node, swaps, ref in plans:
        before = to_sql(node)
        for old, new in swaps:
            old.replace(new)
        changes.append(
            Change(NAME, before, to_sql(node), f"{ref.key} is {ref.column.data_type}: literal cast to match")
        )
    return tree, changes
