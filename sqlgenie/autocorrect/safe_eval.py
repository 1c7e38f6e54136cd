"""A safe evaluator for the small Python expressions of ``<python>...</python>`` spans.

It never calls ``eval``, ``exec`` or ``compile`` to code: the text is parsed with
:func:`ast.parse` (``mode="eval"``, which only builds a syntax tree) and the tree is
walked by :class:`SafeEvaluator`, which knows a handful of node types:

* literals: numbers, strings, ``True``/``False``/``None``;
* arithmetic ``+ - * / // % **`` and unary ``+ - not``, ``and``/``or``;
* comparisons ``== != < <= > >=``;
* calls of whitelisted names only: ``datetime(...)``, ``date(...)``,
  ``timedelta(...)``, ``relativedelta(...)``, ``now()``, ``today()``,
  ``datetime.now()`` / ``datetime.today()`` / ``date.today()`` (also spelled
  ``datetime.datetime.now()`` etc.), ``datetime.strptime``,
  ``datetime.fromisoformat``, ``date.fromisoformat``, ``abs``, ``round``, ``min``,
  ``max``; keyword arguments are checked against a list per function;
* methods of date values: ``strftime``, ``isoformat``, ``date``, ``replace``,
  ``weekday``, ``isoweekday``; attributes ``year``, ``month``, ``day``, ``hour``,
  ``minute``, ``second``, ``days``, ``seconds``.

Everything else (names such as ``os`` or ``__import__``, any attribute starting
with ``_``, subscripts, lambdas, comprehensions, f-strings, walrus, starred
arguments, list/dict/set displays outside ``min``/``max``) is rejected before
anything runs. Limits: source length, number of syntax nodes, the magnitude of
every number produced (``**`` is checked *before* it is computed), string length.
Operators are type-checked (no ``str * int``, no ``str % x``), so no operation can
grow without bound.

Whatever its input, :meth:`SafeEvaluator.evaluate` returns a value or raises
:class:`~sqlgenie.autocorrect.errors.SafeEvalError` — nothing else (a hypothesis
test checks this). "Now" can be pinned for reproducible runs.
"""

from __future__ import annotations

import ast
import datetime as dt
import math
import operator
import warnings
from dataclasses import dataclass
from typing import Any, Callable

from dateutil.relativedelta import relativedelta

from sqlgenie.autocorrect.errors import SafeEvalError

__all__ = ["EvalLimits", "SafeEvaluator", "safe_eval"]


@dataclass(frozen=True)
class EvalLimits:
    max_chars: int = 500
    max_nodes: int = 120
    max_abs_number: float = 1e15
    max_str_len: int = 200
    max_args: int = 10
    max_round_digits: int = 15


# --- value kinds -----------------------------------------------------------------------

_NUM = "number"
_STR = "string"
_DATETIME = "datetime"
_DATE = "date"
_TIMEDELTA = "timedelta"
_RELDELTA = "relativedelta"
_BOOL = "boolean"
_NONE = "None"


def _kind(value: Any) -> str:
    # Order matters: bool is an int, datetime is a date.
    if isinstance(value, bool):
        return _BOOL
    if isinstance(value, (int, float)):
        return _NUM
    if isinstance(value, str):
        return _STR
    if isinstance(value, dt.datetime):
        return _DATETIME
    if isinstance(value, dt.date):
        return _DATE
    if isinstance(value, dt.timedelta):
        return _TIMEDELTA
    if isinstance(value, relativedelta):
        return _RELDELTA
    if value is None:
        return _NONE
    return type(value).__name__


_DATE_KINDS = (_DATETIME, _DATE)
_DELTA_KINDS = (_TIMEDELTA, _RELDELTA)
_NUMERIC = (_NUM, _BOOL)

# Binary operators: the kinds each accepts. Anything else is rejected before running.
_BINOPS: dict[type, tuple[str, Callable[[Any, Any], Any], set[tuple[str, str]]]] = {
    ast.Add: ("+", operator.add, {
        (_NUM, _NUM), (_STR, _STR), (_DATETIME, _TIMEDELTA), (_DATE, _TIMEDELTA), (_DATETIME, _RELDELTA),
        (_DATE, _RELDELTA), (_TIMEDELTA, _DATETIME), (_TIMEDELTA, _DATE), (_RELDELTA, _DATETIME),
        (_RELDELTA, _DATE), (_TIMEDELTA, _TIMEDELTA), (_RELDELTA, _RELDELTA),
    }),
    ast.Sub: ("-", operator.sub, {
        (_NUM, _NUM), (_DATETIME, _TIMEDELTA), (_DATE, _TIMEDELTA), (_DATETIME, _RELDELTA), (_DATE, _RELDELTA),
        (_DATETIME, _DATETIME), (_DATE, _DATE), (_TIMEDELTA, _TIMEDELTA), (_RELDELTA, _RELDELTA),
    }),
    ast.Mult: ("*", operator.mul, {(_NUM, _NUM), (_TIMEDELTA, _NUM), (_NUM, _TIMEDELTA)}),
    ast.Div: ("/", operator.truediv, {(_NUM, _NUM), (_TIMEDELTA, _NUM), (_TIMEDELTA, _TIMEDELTA)}),
    ast.FloorDiv: ("//", operator.floordiv, {(_NUM, _NUM), (_TIMEDELTA, _TIMEDELTA)}),
    ast.Mod: ("%", operator.mod, {(_NUM, _NUM)}),
    ast.Pow: ("**", operator.pow, {(_NUM, _NUM)}),
}

_CMPOPS: dict[type, tuple[str, Callable[[Any, Any], bool]]] = {
    ast.Eq: ("==", operator.eq),
    ast.NotEq: ("!=", operator.ne),
    ast.Lt: ("<", operator.lt),
    ast.LtE: ("<=", operator.le),
    ast.Gt: (">", operator.gt),
    ast.GtE: (">=", operator.ge),
}

_ORDERED_PAIRS = {(_NUM, _NUM), (_STR, _STR), (_DATETIME, _DATETIME), (_DATE, _DATE), (_TIMEDELTA, _TIMEDELTA)}

# Attributes readable on values (never anything starting with "_").
_VALUE_ATTRIBUTES = {
    _DATETIME: {"year", "month", "day", "hour", "minute", "second"},
    _DATE: {"year", "month", "day"},
    _TIMEDELTA: {"days", "seconds"},
}

# Methods callable on values: name -> (allowed keyword arguments, positional argument count range)
_DATE_METHODS: dict[str, tuple[frozenset[str], int, int]] = {
    "strftime": (frozenset(), 1, 1),
    "isoformat": (frozenset(), 0, 0),
    "date": (frozenset(), 0, 0),
    "weekday": (frozenset(), 0, 0),
    "isoweekday": (frozenset(), 0, 0),
    "replace": (frozenset({"year", "month", "day", "hour", "minute", "second", "microsecond"}), 0, 0),
}

_NODE_TYPES = (
    ast.Expression, ast.Constant, ast.BinOp, ast.UnaryOp, ast.BoolOp, ast.Compare, ast.Call, ast.Name,
    ast.Attribute, ast.keyword, ast.Load, ast.List, ast.Tuple,
    ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow, ast.USub, ast.UAdd, ast.Not,
    ast.And, ast.Or, ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE,
)

_DELTA_KEYWORDS = frozenset({"weeks", "days", "hours", "minutes", "seconds", "milliseconds", "microseconds"})
_RELDELTA_KEYWORDS = frozenset(
    {"years", "months", "weeks", "days", "hours", "minutes", "seconds", "microseconds",
     "year", "month", "day", "hour", "minute", "second", "microsecond"}
)
_DATETIME_KEYWORDS = frozenset({"year", "month", "day", "hour", "minute", "second", "microsecond"})


def _describe(node: ast.AST) -> str:
    return type(node).__name__


class SafeEvaluator:
    """Evaluates one expression (see the module doc). ``now`` pins ``now()``."""

    def __init__(self, now: dt.datetime | None = None, limits: EvalLimits | None = None) -> None:
        self._now = now
        self.limits = limits or EvalLimits()
        # dotted name -> (function, allowed keywords, min positional, max positional)
        self._functions: dict[str, tuple[Callable[..., Any], frozenset[str], int, int]] = {}
        fn = self._functions
        for prefix in ("", "datetime."):
            fn[prefix + "datetime"] = (self._datetime, _DATETIME_KEYWORDS, 0, 7)
            fn[prefix + "datetime.now"] = (self._now_fn, frozenset(), 0, 0)
            fn[prefix + "datetime.today"] = (self._now_fn, frozenset(), 0, 0)
            fn[prefix + "datetime.strptime"] = (self._strptime, frozenset(), 2, 2)
            fn[prefix + "datetime.fromisoformat"] = (self._dt_fromiso, frozenset(), 1, 1)
            fn[prefix + "date"] = (self._date, frozenset({"year", "month", "day"}), 0, 3)
            fn[prefix + "date.today"] = (self._today_fn, frozenset(), 0, 0)
            fn[prefix + "date.fromisoformat"] = (self._date_fromiso, frozenset(), 1, 1)
            fn[prefix + "timedelta"] = (self._timedelta, _DELTA_KEYWORDS, 0, 7)
        for name in ("relativedelta", "dateutil.relativedelta.relativedelta", "relativedelta.relativedelta"):
            fn[name] = (self._relativedelta, _RELDELTA_KEYWORDS, 0, 0)
        fn["now"] = (self._now_fn, frozenset(), 0, 0)
        fn["today"] = (self._today_fn, frozenset(), 0, 0)
        fn["abs"] = (self._abs, frozenset(), 1, 1)
        fn["round"] = (self._round, frozenset({"ndigits"}), 1, 2)
        fn["min"] = (self._min, frozenset(), 1, self.limits.max_args)
        fn["max"] = (self._max, frozenset(), 1, self.limits.max_args)

    # --- public ----------------------------------------------------------------------

    def evaluate(self, source: str) -> Any:
        """The value of ``source``; raises :class:`SafeEvalError` and nothing else."""
        try:
            return self._evaluate(source)
        except SafeEvalError:
            raise
        except ZeroDivisionError as exc:
            raise SafeEvalError(f"Division by zero in <python> expression {_short(source)!r}.") from exc
        except (OverflowError, MemoryError, RecursionError) as exc:
            raise SafeEvalError(f"The <python> expression {_short(source)!r} is too large: {exc}.") from exc
        except Exception as exc:  # ValueError/TypeError from datetime & co., anything unforeseen
            raise SafeEvalError(f"Cannot evaluate the <python> expression {_short(source)!r}: {exc}.") from exc

    @property
    def now(self) -> dt.datetime:
        return self._now if self._now is not None else dt.datetime.now()

    # --- parsing and checks ------------------------------------------------------------

    def _evaluate(self, source: Any) -> Any:
        if not isinstance(source, str):
            raise SafeEvalError(f"A <python> expression must be text, not {type(source).__name__}.")
        text = source.strip()
        if not text:
            raise SafeEvalError("Empty <python> expression.")
        if len(text) > self.limits.max_chars:
            raise SafeEvalError(
                f"The <python> expression has {len(text)} characters; at most {self.limits.max_chars} are allowed."
            )
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                tree = ast.parse(text, mode="eval")
        except (SyntaxError, ValueError) as exc:
            raise SafeEvalError(
                f"The <python> span is not a single Python expression ({getattr(exc, 'msg', exc)}): {_short(text)!r}."
            ) from exc
        count = 0
        for node in ast.walk(tree):
            count += 1
            if count > self.limits.max_nodes:
                raise SafeEvalError(
                    f"The <python> expression is too complex (more than {self.limits.max_nodes} syntax nodes)."
                )
            if not isinstance(node, _NODE_TYPES):
                raise SafeEvalError(f"{_describe(node)} is not allowed in a <python> expression: {_short(text)!r}.")
            if isinstance(node, ast.Attribute) and node.attr.startswith("_"):
                raise SafeEvalError(f"Access to the private or special attribute {node.attr!r} is not allowed.")
            if isinstance(node, ast.Name) and node.id.startswith("_"):
                raise SafeEvalError(f"The name {node.id!r} is not allowed.")
        value = self._eval(tree.body)
        return self._check(value)

    def _check(self, value: Any) -> Any:
        kind = _kind(value)
        if kind == _NUM:
            if isinstance(value, float) and not math.isfinite(value):
                raise SafeEvalError(f"The result {value!r} is not a finite number.")
            if abs(value) > self.limits.max_abs_number:
                raise SafeEvalError(
                    f"A number in the <python> expression exceeds the limit of {self.limits.max_abs_number:g}."
                )
        elif kind == _STR:
            if len(value) > self.limits.max_str_len:
                raise SafeEvalError(f"A string in the <python> expression exceeds {self.limits.max_str_len} characters.")
        elif kind not in (_BOOL, _DATETIME, _DATE, _TIMEDELTA, _RELDELTA, _NONE):
            raise SafeEvalError(f"Values of type {kind} are not allowed in a <python> expression.")
        return value

    # --- evaluation --------------------------------------------------------------------

    def _eval(self, node: ast.AST) -> Any:
        if isinstance(node, ast.Constant):
            if isinstance(node.value, (bool, int, float, str)) or node.value is None:
                return self._check(node.value)
            raise SafeEvalError(f"The constant {type(node.value).__name__} is not allowed in a <python> expression.")
        if isinstance(node, ast.BinOp):
            return self._binop(node)
        if isinstance(node, ast.UnaryOp):
            value = self._eval(node.operand)
            kind = _kind(value)
            if isinstance(node.op, ast.Not):
                return not value
            if kind not in _NUMERIC and not (kind == _TIMEDELTA or kind == _RELDELTA):
                raise SafeEvalError(f"Unary minus/plus needs a number or a time delta, not {kind}.")
            return self._check(-value if isinstance(node.op, ast.USub) else +value)
        if isinstance(node, ast.BoolOp):
            result: Any = None
            for item in node.values:
                result = self._eval(item)
                if isinstance(node.op, ast.And) and not result:
                    return result
                if isinstance(node.op, ast.Or) and result:
                    return result
            return result
        if isinstance(node, ast.Compare):
            return self._compare(node)
        if isinstance(node, ast.Call):
            return self._call(node)
        if isinstance(node, ast.Attribute):
            return self._attribute(node)
        if isinstance(node, ast.Name):
            if node.id in self._functions or node.id in ("datetime", "date", "timedelta", "relativedelta"):
                raise SafeEvalError(f"{node.id!r} must be called, e.g. {node.id}(...).")
            raise SafeEvalError(f"The name {node.id!r} is not allowed in a <python> expression.")
        if isinstance(node, (ast.List, ast.Tuple)):
            raise SafeEvalError("Lists and tuples are only allowed as the argument of min() or max().")
        raise SafeEvalError(f"{_describe(node)} is not allowed in a <python> expression.")

    def _binop(self, node: ast.BinOp) -> Any:
        spec = _BINOPS.get(type(node.op))
        if spec is None:
            raise SafeEvalError(f"The operator {_describe(node.op)} is not allowed in a <python> expression.")
        symbol, fn, allowed = spec
        left = self._eval(node.left)
        right = self._eval(node.right)
        lk, rk = _kind(left), _kind(right)
        lk = _NUM if lk == _BOOL else lk
        rk = _NUM if rk == _BOOL else rk
        if (lk, rk) not in allowed:
            raise SafeEvalError(f"Cannot apply {symbol} to {lk} and {rk} in a <python> expression.")
        if isinstance(node.op, ast.Pow):
            self._check_power(left, right)
        return self._check(fn(left, right))

    def _check_power(self, base: float, exponent: float) -> None:
        limit = math.log10(self.limits.max_abs_number)
        if abs(exponent) > 1000:
            raise SafeEvalError(f"The exponent {exponent!r} is too large.")
        if base == 0 and exponent < 0:
            raise SafeEvalError("Zero cannot be raised to a negative power.")
        if base < 0 and not float(exponent).is_integer():
            raise SafeEvalError("A negative number cannot be raised to a fractional power.")
        if abs(base) > 1 and exponent > 0 and exponent * math.log10(abs(base)) > limit:
            raise SafeEvalError(f"{base!r} ** {exponent!r} would exceed the limit of {self.limits.max_abs_number:g}.")
        if 0 < abs(base) < 1 and exponent < 0 and -exponent * -math.log10(abs(base)) > limit:
            raise SafeEvalError(f"{base!r} ** {exponent!r} would exceed the limit of {self.limits.max_abs_number:g}.")

    def _compare(self, node: ast.Compare) -> bool:
        left = self._eval(node.left)
        for op, comparator in zip(node.ops, node.comparators):
            spec = _CMPOPS.get(type(op))
            if spec is None:
                raise SafeEvalError(f"The comparison {_describe(op)} is not allowed in a <python> expression.")
            symbol, fn = spec
            right = self._eval(comparator)
            lk, rk = _kind(left), _kind(right)
            lk = _NUM if lk == _BOOL else lk
            rk = _NUM if rk == _BOOL else rk
            if (lk, rk) not in _ORDERED_PAIRS and symbol not in ("==", "!="):
                raise SafeEvalError(f"Cannot compare {lk} and {rk} with {symbol}.")
            if not fn(left, right):
                return False
            left = right
        return True

    # --- names, attributes, calls ---------------------------------------------------------

    def _dotted(self, node: ast.AST) -> str | None:
        parts: list[str] = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if isinstance(node, ast.Name):
            parts.append(node.id)
            return ".".join(reversed(parts))
        return None

    def _attribute(self, node: ast.Attribute) -> Any:
        dotted = self._dotted(node)
        if dotted is not None and (dotted in self._functions or dotted.split(".")[0] in ("datetime", "date",
                                                                                         "dateutil", "relativedelta")):
            if dotted in self._functions:
                raise SafeEvalError(f"{dotted!r} must be called, e.g. {dotted}(...).")
            raise SafeEvalError(f"{dotted!r} is not an allowed name in a <python> expression.")
        value = self._eval(node.value)
        kind = _kind(value)
        if node.attr in _VALUE_ATTRIBUTES.get(kind, ()):
            return self._check(getattr(value, node.attr))
        raise SafeEvalError(f"The attribute {node.attr!r} of a {kind} is not allowed in a <python> expression.")

    def _call(self, node: ast.Call) -> Any:
        for kw in node.keywords:
            if kw.arg is None:
                raise SafeEvalError("**keyword unpacking is not allowed in a <python> expression.")
        dotted = self._dotted(node.func)
        if dotted is not None and dotted in self._functions:
            fn, keywords, lo, hi = self._functions[dotted]
            args = self._args(node, dotted, keywords, lo, hi)
            kwargs = {kw.arg: self._eval(kw.value) for kw in node.keywords}
            return self._check(fn(*args, **kwargs))
        if isinstance(node.func, ast.Attribute) and not (dotted is not None and dotted.split(".")[0] in (
                "datetime", "date", "dateutil", "relativedelta", "timedelta")):
            target = self._eval(node.func.value)
            kind = _kind(target)
            method = node.func.attr
            if kind in _DATE_KINDS and method in _DATE_METHODS:
                keywords, lo, hi = _DATE_METHODS[method]
                if method == "date" and kind != _DATETIME:
                    raise SafeEvalError("date() is a method of datetime values only.")
                args = self._args(node, method, keywords, lo, hi)
                kwargs = {kw.arg: self._int_arg(self._eval(kw.value), kw.arg or "") for kw in node.keywords}
                if method == "strftime":
                    fmt = args[0]
                    if not isinstance(fmt, str):
                        raise SafeEvalError("strftime() needs a format string.")
                    if len(fmt) > 64:
                        raise SafeEvalError("The strftime() format is too long.")
                return self._check(getattr(target, method)(*args, **kwargs))
            raise SafeEvalError(f"The method {method!r} of a {kind} is not allowed in a <python> expression.")
        name = dotted if dotted is not None else _describe(node.func)
        raise SafeEvalError(f"Calling {name!r} is not allowed in a <python> expression.")

    def _args(self, node: ast.Call, name: str, keywords: frozenset[str], lo: int, hi: int) -> list[Any]:
        for arg in node.args:
            if isinstance(arg, ast.Starred):
                raise SafeEvalError("*argument unpacking is not allowed in a <python> expression.")
        if not lo <= len(node.args) <= hi:
            raise SafeEvalError(f"{name}() takes {lo}..{hi} positional arguments, not {len(node.args)}.")
        for kw in node.keywords:
            if kw.arg not in keywords:
                raise SafeEvalError(f"{name}() does not accept the keyword argument {kw.arg!r} here.")
        if name in ("min", "max") and len(node.args) == 1 and isinstance(node.args[0], (ast.List, ast.Tuple)):
            items = node.args[0].elts
            if not items or len(items) > self.limits.max_args:
                raise SafeEvalError(f"{name}() takes 1..{self.limits.max_args} values.")
            return [self._eval(e) for e in items]
        return [self._eval(a) for a in node.args]

    # --- whitelisted functions ------------------------------------------------------------

    def _int_arg(self, value: Any, name: str) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise SafeEvalError(f"{name} must be an integer, not {_kind(value)}.")
        return value

    def _number_kwargs(self, kwargs: dict[str, Any], fn: str) -> dict[str, Any]:
        for key, value in kwargs.items():
            if _kind(value) != _NUM:
                raise SafeEvalError(f"{fn}({key}=...) needs a number, not {_kind(value)}.")
        return kwargs

    def _now_fn(self) -> dt.datetime:
        return self.now

    def _today_fn(self) -> dt.date:
        return self.now.date()

    def _datetime(self, *args: Any, **kwargs: Any) -> dt.datetime:
        ints = [self._int_arg(a, "datetime() argument") for a in args]
        kw = {k: self._int_arg(v, k) for k, v in kwargs.items()}
        return dt.datetime(*ints, **kw)

    def _date(self, *args: Any, **kwargs: Any) -> dt.date:
        ints = [self._int_arg(a, "date() argument") for a in args]
        kw = {k: self._int_arg(v, k) for k, v in kwargs.items()}
        return dt.date(*ints, **kw)

    def _timedelta(self, *args: Any, **kwargs: Any) -> dt.timedelta:
        for a in args:
            if _kind(a) != _NUM:
                raise SafeEvalError(f"timedelta() needs numbers, not {_kind(a)}.")
        return dt.timedelta(*args, **self._number_kwargs(kwargs, "timedelta"))

    def _relativedelta(self, **kwargs: Any) -> relativedelta:
        kw = self._number_kwargs(kwargs, "relativedelta")
        for key, value in kw.items():
            if abs(value) > 100_000:
                raise SafeEvalError(f"relativedelta({key}={value!r}) is out of range.")
        return relativedelta(**kw)

    def _strptime(self, text: Any, fmt: Any) -> dt.datetime:
        if not isinstance(text, str) or not isinstance(fmt, str):
            raise SafeEvalError("strptime() needs two strings.")
        if len(fmt) > 64 or len(text) > 64:
            raise SafeEvalError("strptime() arguments are too long.")
        return dt.datetime.strptime(text, fmt)

    def _dt_fromiso(self, text: Any) -> dt.datetime:
        if not isinstance(text, str) or len(text) > 64:
            raise SafeEvalError("fromisoformat() needs a short string.")
        return dt.datetime.fromisoformat(text)

    def _date_fromiso(self, text: Any) -> dt.date:
        if not isinstance(text, str) or len(text) > 64:
            raise SafeEvalError("fromisoformat() needs a short string.")
        return dt.date.fromisoformat(text)

    def _abs(self, value: Any) -> Any:
        if _kind(value) not in _NUMERIC and _kind(value) != _TIMEDELTA:
            raise SafeEvalError(f"abs() needs a number, not {_kind(value)}.")
        return abs(value)

    def _round(self, value: Any, ndigits: Any = None) -> Any:
        if _kind(value) not in _NUMERIC:
            raise SafeEvalError(f"round() needs a number, not {_kind(value)}.")
        if ndigits is None:
            return round(value)
        digits = self._int_arg(ndigits, "round() ndigits")
        if abs(digits) > self.limits.max_round_digits:
            raise SafeEvalError(f"round() ndigits must be within ±{self.limits.max_round_digits}.")
        return round(value, digits)

    def _extreme(self, fn: Callable[..., Any], name: str, values: tuple[Any, ...]) -> Any:
        kinds = {(_NUM if _kind(v) == _BOOL else _kind(v)) for v in values}
        if len(kinds) != 1 or not kinds <= {_NUM, _STR, _DATE, _DATETIME, _TIMEDELTA}:
            raise SafeEvalError(f"{name}() needs values of one kind (numbers, strings or dates).")
        return fn(values)

    def _min(self, *values: Any) -> Any:
        return self._extreme(min, "min", values)

    def _max(self, *values: Any) -> Any:
        return self._extreme(max, "max", values)


def _short(text: Any, n: int = 80) -> str:
    text = str(text)
    return text if len(text) <= n else text[: n - 3] + "..."


def safe_eval(source: str, *, now: dt.datetime | None = None, limits: EvalLimits | None = None) -> Any:
    """Evaluate ``source`` with a fresh :class:`SafeEvaluator`."""
    return SafeEvaluator(now=now, limits=limits).evaluate(source)
