"""Result comparison rules of the evaluation harness (pure functions, no database)."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest

from sqlgenie.eval.compare import (
    normalize_value,
    r_ves_reward,
    results_match,
    soft_f1,
    tie_consistent,
    ves_reward,
)


def test_rows_are_multisets_without_order_by():
    gold = [(1, "a"), (2, "b"), (2, "b")]
    assert results_match(gold, [(2, "b"), (1, "a"), (2, "b")], ordered=False)
    # duplicates count: a set-equal result with a different multiplicity is wrong
    assert not results_match(gold, [(1, "a"), (2, "b")], ordered=False)
    assert not results_match(gold, [(1, "a"), (1, "a"), (2, "b")], ordered=False)


def test_order_matters_only_when_asked():
    gold = [(1,), (2,), (3,)]
    assert results_match(gold, [(3,), (2,), (1,)], ordered=False)
    assert not results_match(gold, [(3,), (2,), (1,)], ordered=True)
    assert results_match(gold, [(1,), (2,), (3,)], ordered=True)


def test_float_tolerance_and_numeric_types():
    assert results_match([(1 / 3,)], [(Decimal("0.3333333333333333333"),)])
    assert results_match([(2.5,)], [(Decimal("2.50"),)])
    assert results_match([(10,)], [(10.0,)])
    assert results_match([(10,)], [(Decimal("10"),)])
    assert results_match([(True,)], [(1,)])
    assert not results_match([(1.0,)], [(1.01,)])
    # tolerant multiset matching when rounding keys differ
    assert results_match([(0.1 + 0.2, "x"), (5.0000000001, "y")], [(5, "y"), (0.3, "x")])


def test_nulls_equal_only_nulls():
    assert results_match([(None, 1)], [(None, 1)])
    assert not results_match([(None,)], [(0,)])
    assert not results_match([(None,)], [("",)])
    assert not results_match([(None,)], [("NULL",)])


def test_dates_and_iso_strings():
    assert results_match([(dt.date(2020, 1, 2),)], [("2020-01-02",)])
    assert results_match([(dt.datetime(2020, 1, 2, 3, 4, 5),)], [("2020-01-02 03:04:05",)])
    assert results_match([("2020-01-02T03:04:05",)], [("2020-01-02 03:04:05",)])
    assert not results_match([(dt.date(2020, 1, 2),)], [("2020-01-03",)])


def test_numeric_strings_equal_numbers():
    # SQLite returns '7' from a text column where PostgreSQL may return 7
    assert normalize_value("7") == 7
    assert results_match([("7", "x")], [(7, "x")])
    assert not results_match([("7a",)], [(7,)])


def test_column_permutation():
    gold = [(1, "a"), (2, "b")]
    pred = [("a", 1), ("b", 2)]
    assert results_match(gold, pred)
    assert not results_match(gold, pred, column_order=True)
    assert not results_match(gold, [(1,), (2,)])  # column count must match


def test_row_count_and_empty_results():
    assert results_match([], [])
    assert not results_match([], [(1,)])
    assert not results_match([(1,)], [])


def test_soft_f1():
    assert soft_f1([(1, "a")], [(1, "a")]) == 1.0
    assert soft_f1([], []) == 1.0
    assert soft_f1([(1, "a")], []) == 0.0
    half = soft_f1([(1, "a")], [(1, "b")])
    assert 0.4 < half < 0.6
    assert soft_f1([(1,), (2,)], [(1,)]) == pytest.approx(2 / 3)


def test_ves_rewards():
    assert ves_reward(10, 10) == 1.0
    assert ves_reward(40, 10) == 2.0
    assert r_ves_reward(30, 10) == 1.25
    assert r_ves_reward(10, 10) == 1.0
    assert r_ves_reward(7, 10) == 0.75
    assert r_ves_reward(1, 10) == 0.25


def test_tie_consistent():
    # full ordered result with one order key appended: b and c tie
    keyed = [("a", 3), ("b", 2), ("c", 2), ("d", 1)]
    assert tie_consistent([("a",), ("b",)], keyed, 1)
    assert tie_consistent([("a",), ("c",)], keyed, 1)  # LIMIT 2 cut through the tie
    assert tie_consistent([("a",), ("c",), ("b",), ("d",)], keyed, 1)
    assert not tie_consistent([("a",), ("d",)], keyed, 1)  # skipped a whole group
    assert not tie_consistent([("b",), ("a",)], keyed, 1)  # wrong order across keys
