"""The safe evaluator and <python> spans: values, hostile payloads, a property test."""

from __future__ import annotations

import datetime as dt
import pathlib

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from sqlgenie.autocorrect import (
    PythonSpanError,
    SafeEvalError,
    SafeEvaluator,
    find_python_spans,
    replace_python_spans,
    safe_eval,
)

NOW = dt.datetime(2024, 3, 15, 10, 30, 0)


@pytest.mark.parametrize(
    "source, expected",
    [
        ("(datetime.now()-relativedelta(weeks=6)).strftime('%Y-%m-%d')", "2024-02-02"),
        ("89.8*16/100", 89.8 * 16 / 100),
        ("round(89.8*16/100, 2)", 14.37),
        ("date.today() - timedelta(days=1)", dt.date(2024, 3, 14)),
        ("today() + relativedelta(months=1, day=1)", dt.date(2024, 4, 1)),
        ("now()", NOW),
        ("datetime.datetime.now().year - 1", 2023),
        ("datetime.date.today().strftime('%Y-%m')", "2024-03"),
        ("datetime(2024, 1, 31) + relativedelta(months=1)", dt.datetime(2024, 2, 29)),
        ("(date(2024, 3, 1) - date(2024, 1, 1)).days", 60),
        ("datetime.strptime('2020-01-02', '%Y-%m-%d').date()", dt.date(2020, 1, 2)),
        ("date.fromisoformat('2020-01-02').isoformat()", "2020-01-02"),
        ("now().replace(day=1).date()", dt.date(2024, 3, 1)),
        ("abs(-3) + max(1, 2, 3) - min([4, 5])", 2),
        ("2 ** 10", 1024),
        ("-(3 - 5) * 2 // 3 % 5", 1),
        ("1 < 2 <= 2", True),
        ("'a' + 'b'", "ab"),
        ("not 0 and 7", 7),
    ],
)
def test_evaluates_allowed_expressions(source, expected):
    assert safe_eval(source, now=NOW) == expected


def test_now_is_pinned_or_real():
    assert SafeEvaluator(now=NOW).evaluate("today()") == NOW.date()
    assert abs((SafeEvaluator().evaluate("now()") - dt.datetime.now()).total_seconds()) < 5


HOSTILE = [
    # imports and builtins
    "__import__('os').system('id')",
    "import os",
    "from os import system",
    "exec('print(1)')",
    "eval('1+1')",
    "compile('1', 'x', 'eval')",
    "open('/etc/passwd').read()",
    "globals()",
    "locals()",
    "vars()",
    "getattr(1, '__class__')",
    "setattr(datetime, 'x', 1)",
    "breakpoint()",
    "input()",
    "print('x')",
    "type(1)",
    "os.system('ls')",
    "sys.modules",
    "__builtins__",
    # dunder access and attribute walks
    "().__class__.__bases__[0].__subclasses__()",
    "(1).__class__",
    "datetime.__class__",
    "datetime.now().__class__.__mro__",
    "now().__reduce__()",
    "relativedelta.__init__.__globals__",
    "datetime.now.__self__",
    "date.today().__format__('x')",
    "datetime.now().tzinfo",
    "datetime.now().fold",
    "datetime.max",
    "timedelta.resolution",
    "'abc'.upper()",
    "'{0.__class__}'.format(1)",
    "datetime.now().astimezone()",
    "datetime.now().timestamp()",
    # huge numbers and exponents
    "9**9**9",
    "10**100",
    "2**64",
    "(10**8)**(10**8)",
    "0.5**-10000",
    "1e308*10",
    "99999999999999999999999",
    "timedelta(days=10**9)",
    "datetime(10**6, 1, 1)",
    "relativedelta(years=10**6)",
    "round(1.5, 10**6)",
    "1/0",
    "(-8)**(1/3)",
    # long loops and big strings
    "'a' * 10**9",
    "'x' * 100",
    "'%s' % 'a'",
    "[1] * 10**9",
    "max(range(10**9))",
    "sum(i for i in range(10**9))",
    "[x for x in range(10**9)]",
    "{x: 1 for x in range(10)}",
    "{1, 2}",
    "{'a': 1}",
    "'a' + 'b' * 1000",
    "+".join(["1"] * 400),
    "(" * 240 + "1" + ")" * 240,
    "-" * 400 + "1",
    # lambdas, f-strings, walrus, starred, subscripts, misc syntax
    "lambda: 1",
    "(lambda x: x)(1)",
    "f'{1+1}'",
    "f'{now().__class__}'",
    "(x := 5)",
    "max(*[1, 2])",
    "date(**{'year': 2020, 'month': 1, 'day': 1})",
    "[1, 2][0]",
    "'abc'[0]",
    "1 if True else 2",
    "1 in [1]",
    "1 is 1",
    "b'bytes'",
    "1j",
    "...",
    "await now()",
    "yield 1",
    "x",
    "datetime",
    "now",
    "1; 2",
    "",
    "   ",
    "1 +",
    "\x00",
    "datetime.now().strftime('%Y' * 50)",
    "timedelta(days='1')",
    "datetime('2020', 1, 1)",
    "relativedelta(years=1.5) + now()",
    "now() + 1",
    "'a' < 1",
]


def test_at_least_forty_hostile_payloads():
    assert len(HOSTILE) >= 40


@pytest.mark.parametrize("payload", HOSTILE)
def test_hostile_payloads_are_rejected(payload):
    with pytest.raises(SafeEvalError) as info:
        SafeEvaluator(now=NOW).evaluate(payload)
    assert info.value.message  # a clear message
    assert "<python>" in str(info.value) or info.value.hint


def test_the_package_never_calls_eval_exec_or_compile():
    import ast

    import sqlgenie.autocorrect as pkg

    for path in pathlib.Path(pkg.__file__).parent.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                assert node.func.id not in ("eval", "exec", "compile", "__import__"), (path.name, node.lineno)
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
                assert node.value.id != "builtins", (path.name, node.lineno)


_TOKENS = st.sampled_from(
    ["1", "2.5", "-", "+", "*", "/", "//", "%", "**", "(", ")", "'x'", "now()", "today()", "datetime", "date",
     "timedelta(days=1)", "relativedelta(months=1)", ".", "strftime('%Y')", "__class__", "year", ",", "max(", "min(",
     "abs(", "round(", "[", "]", "lambda", ":", "<", "==", "and", "or", "not", "9", "0", "1e308", "'%s'", "os"]
)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=120))
def test_property_arbitrary_text_raises_only_safe_eval_error(text):
    try:
        value = SafeEvaluator(now=NOW).evaluate(text)
    except SafeEvalError:
        return
    # Anything that evaluates is a plain value, never an object that escaped the sandbox.
    assert isinstance(value, (int, float, str, bool, dt.date, dt.timedelta)) or value is None or hasattr(value, "months")


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_TOKENS, min_size=1, max_size=25).map(" ".join))
def test_property_token_soup_raises_only_safe_eval_error(text):
    try:
        value = SafeEvaluator(now=NOW).evaluate(text)
    except SafeEvalError:
        return
    assert isinstance(value, (int, float, str, bool, dt.date, dt.timedelta)) or value is None or hasattr(value, "months")


# --- spans ------------------------------------------------------------------------


def test_spans_are_replaced_by_sql_literals():
    sql = (
        "SELECT * FROM t WHERE d >= '<python>(datetime.now()-relativedelta(weeks=6)).strftime('%Y-%m-%d')</python>'"
        " AND p < <python>89.8*16/100</python> AND x > <PYTHON>today()</PYTHON> AND n = <python>'it''s'</python>"
    )
    out, changes = replace_python_spans(sql, SafeEvaluator(now=NOW))
    assert out == (
        "SELECT * FROM t WHERE d >= '2024-02-02' AND p < 14.368 AND x > CAST('2024-03-15' AS DATE)"
        " AND n = 'its'"
    )
    assert [c.corrector for c in changes] == ["python_spans"] * 4
    assert changes[0].before.startswith("'<python>") and changes[0].after == "'2024-02-02'"


def test_span_value_kinds():
    ev = SafeEvaluator(now=NOW)
    assert replace_python_spans("SELECT <python>now()</python>", ev)[0] == "SELECT CAST('2024-03-15 10:30:00' AS TIMESTAMP)"
    assert replace_python_spans("SELECT <python>1 < 2</python>", ev)[0] == "SELECT TRUE"
    assert replace_python_spans("SELECT <python>-5</python>", ev)[0] == "SELECT -5"
    assert replace_python_spans("SELECT <python>timedelta(days=2)</python>", ev)[0] == "SELECT INTERVAL '2 days'"
    assert replace_python_spans("SELECT <python>relativedelta(months=1)</python>", ev)[0] == "SELECT INTERVAL '1 months'"
    assert replace_python_spans("SELECT 1", ev) == ("SELECT 1", [])


@pytest.mark.parametrize(
    "sql", ["SELECT <python>1", "SELECT 1</python>", "SELECT <python>1 <python>2</python></python>", "SELECT <python> </python>"]
)
def test_malformed_spans(sql):
    with pytest.raises(PythonSpanError):
        find_python_spans(sql)


def test_hostile_span_is_an_error_not_a_literal():
    with pytest.raises(SafeEvalError):
        replace_python_spans("SELECT <python>__import__('os')</python>", SafeEvaluator(now=NOW))
