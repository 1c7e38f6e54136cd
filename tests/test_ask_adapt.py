"""Deterministic adaptation of bank SQL (no database: masking + sqlglot only) and routing."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from types import SimpleNamespace

import pytest
import sqlglot

from example_bank.masking import mask_question
from sqlgenie.catalog import Catalog, ColumnInfo, TableInfo
from sqlgenie.errors import InputError
from sqlgenie.inference.adapt import adapt_sql, parse_date_span, parse_number, question_diff
from sqlgenie.inference.router import decide_route

CATALOG = Catalog(tables=(
    TableInfo("shop", "orders", (ColumnInfo("id", "integer"), ColumnInfo("order_date", "date"),
                                 ColumnInfo("amount", "numeric"), ColumnInfo("status", "text", searchable=True),
                                 ColumnInfo("city", "text", searchable=True))),
    TableInfo("shop", "customers", (ColumnInfo("id", "integer"), ColumnInfo("name", "text", searchable=True),
                                    ColumnInfo("segment", "text", searchable=True))),
))
CACHE = {"boston": {"shop.orders.city"}, "palo alto": {"shop.orders.city"}, "delivered": {"shop.orders.status"},
         "returned": {"shop.orders.status"}, "corporate": {"shop.customers.segment"},
         "consumer": {"shop.customers.segment"}, "alice": {"shop.customers.name"}}


def values(text: str) -> set[str]:
    return CACHE.get(" ".join(text.split()).lower(), set())


def lookup(text: str):
    found = values(text)
    return min(found) if found else None


def adapt(example_q: str, example_sql: str, question: str, **kw):
    a, b = mask_question(example_q, value_lookup=lookup), mask_question(question, value_lookup=lookup)
    kw.setdefault("similarity", 0.9)
    return adapt_sql(example_sql, a.spans, b.spans, catalog=CATALOG, value_columns=values,
                     example_masked=a.text, new_masked=b.text, exact=a.key == b.key, **kw)


def same_sql(a: str, b: str) -> bool:
    return sqlglot.parse_one(a, read="postgres").sql("postgres") == sqlglot.parse_one(b, read="postgres").sql("postgres")


def test_year_becomes_a_range_of_two_literals():
    r = adapt("How many orders were placed in 2024?",
              "SELECT count(*) FROM shop.orders WHERE order_date >= DATE '2024-01-01' AND order_date < DATE '2025-01-01'",
              "How many orders were placed in 2023?")
    assert r.ok and r.confidence == 1.0
    assert same_sql(r.sql, "SELECT count(*) FROM shop.orders WHERE order_date >= DATE '2023-01-01' AND order_date < DATE '2024-01-01'")
    assert [s.derivation for s in r.substitutions] == ["date:year_start", "date:year_next"]


def test_month_full_dates_and_quarters():
    r = adapt("Orders between 2024-01-01 and 2024-06-30",
              "SELECT * FROM shop.orders WHERE order_date >= '2024-01-01' AND order_date < '2024-07-01'",
              "Orders between 2025-02-01 and 2025-02-28")
    assert r.ok and "'2025-02-01'" in r.sql and "'2025-03-01'" in r.sql
    r = adapt("Revenue in March 2024",
              "SELECT sum(amount) FROM shop.orders WHERE order_date >= '2024-03-01' AND order_date < '2024-04-01'",
              "Revenue in December 2025")
    assert r.ok and "'2025-12-01'" in r.sql and "'2026-01-01'" in r.sql
    r = adapt("Revenue in Q2 2024",
              "SELECT sum(amount) FROM shop.orders WHERE order_date >= '2024-04-01' AND order_date < '2024-07-01'",
              "Revenue in Q4 2023")
    assert r.ok and "'2023-10-01'" in r.sql and "'2024-01-01'" in r.sql
    # a number in a function argument is not the quarter: round(x, 2) stays
    r = adapt("Revenue in Q2 2024",
              "SELECT round(sum(amount), 2) FROM shop.orders WHERE order_date >= '2024-04-01' AND order_date < '2024-07-01'",
              "Revenue in Q3 2025")
    assert r.ok and "ROUND(SUM(amount), 2)" in r.sql and "'2025-07-01'" in r.sql
    r = adapt("Orders in March 2024",
              "SELECT count(*) FROM shop.orders WHERE extract(month FROM order_date) = 3 AND extract(year FROM order_date) = 2024",
              "Orders in May 2025")
    assert r.ok and "= 5" in r.sql and "= 2025" in r.sql


def test_numbers_limits_and_money():
    r = adapt("Top 5 cities by revenue", "SELECT city, sum(amount) AS r FROM shop.orders GROUP BY city ORDER BY r DESC LIMIT 5",
              "Top 3 cities by revenue")
    assert r.ok and r.sql.endswith("LIMIT 3")
    r = adapt("How many orders are above $500?", "SELECT count(*) FROM shop.orders WHERE amount > 500",
              "How many orders are above $1,250.50?")
    assert r.ok and "amount > 1250.5" in r.sql
    r = adapt("How many orders are above 500?", "SELECT count(*) FROM shop.orders WHERE amount > 500",
              "How many orders are above two?")
    assert r.ok and "amount > 2" in r.sql


def test_values_quoted_strings_and_like_patterns():
    r = adapt("How many orders were shipped to Boston?", "SELECT count(*) FROM shop.orders WHERE city = 'Boston'",
              "How many orders were shipped to Palo Alto?")
    assert r.ok and "city = 'Palo Alto'" in r.sql and r.substitutions[0].verified is True
    r = adapt("Customers named 'Bob'", "SELECT * FROM shop.customers WHERE name = 'Bob'", "Customers named \"Alice\"")
    assert r.ok and "name = 'Alice'" in r.sql
    r = adapt("Customers whose name starts with 'bo'", "SELECT * FROM shop.customers WHERE name ILIKE 'bo%'",
              "Customers whose name starts with 'al'")
    assert r.ok and "ILIKE 'al%'" in r.sql
    # an apostrophe in the new value stays one literal (sqlglot escapes it)
    r = adapt("Orders from Boston", "SELECT * FROM shop.orders WHERE city = 'Boston'", "Orders from O'Hare")
    assert r.ok and "'O''Hare'" in r.sql


def test_values_are_paired_by_their_column_not_only_by_order():
    r = adapt("Delivered orders from Boston", "SELECT * FROM shop.orders WHERE status = 'delivered' AND city = 'Boston'",
              "Orders from Palo Alto that were returned")
    assert r.ok, r.unaccounted
    assert "status = 'returned'" in r.sql and "city = 'Palo Alto'" in r.sql


def test_refusals_instead_of_guesses():
    # a value the example's SQL does not use
    r = adapt("Show the orders of Boston stores", "SELECT * FROM shop.orders", "Show the orders of Palo Alto stores")
    assert not r.ok and "does not use" in r.unaccounted[0]
    # one more value than the example accounts for
    r = adapt("How many orders from Boston?", "SELECT count(*) FROM shop.orders WHERE city = 'Boston'",
              "How many orders from Boston above 300?")
    assert not r.ok
    # a value of another column than the literal it would replace
    r = adapt("How many orders from Boston?", "SELECT count(*) FROM shop.orders WHERE city = 'Boston'",
              "How many orders from Corporate?")
    assert not r.ok and "not of shop.orders.city" in r.unaccounted[0]
    # meaning words differ
    r = adapt("What is the average amount of orders from Boston?", "SELECT avg(amount) FROM shop.orders WHERE city = 'Boston'",
              "What is the maximum amount of orders from Boston?")
    assert not r.ok and "MAX" in r.unaccounted[0]
    # one number in two roles (a filter and the LIMIT)
    r = adapt("List 20 orders above 20", "SELECT id FROM shop.orders WHERE amount > 20 LIMIT 20", "List 20 orders above 30")
    assert not r.ok and "several roles" in r.unaccounted[0]


def test_unchanged_template_keeps_the_example_sql_verbatim():
    sql = "SELECT count(*)  FROM shop.orders WHERE city = 'Boston'"
    r = adapt("How many orders from Boston?", sql, "how many orders from boston")
    assert r.ok and r.sql == sql and not r.substitutions


def test_parsers():
    assert parse_number("$1,000.50").value == Decimal("1000.50")
    assert parse_number("15%").percent and parse_number("10k").value == 10_000
    assert parse_number("third").value == 3 and parse_number("abc") is None
    assert parse_date_span("in 2024").kind == "year"
    assert parse_date_span("March 2024").month == 3
    assert parse_date_span("2024-03-05").day == dt.date(2024, 3, 5)
    assert parse_date_span("last 6 weeks").n == 6
    assert parse_date_span("Q3 2025").quarter == 3


def test_question_diff_ignores_fillers_but_not_meaning():
    assert not question_diff("How many singers do we have?", "What is the total number of singers?").critical
    assert question_diff("singers older than [MASK]", "singers younger than [MASK]").cue_changes == ["GT", "LT"]
    assert "NOT" in question_diff("stadiums with a concert", "stadiums without a concert").cue_changes


@pytest.mark.parametrize(
    ("scores", "route", "expected"),
    [([1.0], "auto", "match"), ([0.8], "auto", "match"), ([0.74], "auto", "think"), ([], "auto", "think"),
     ([0.3], "match", "match"), ([0.99], "think", "think"), ([], "match", "think")],
)
def test_routing_thresholds(scores, route, expected):
    matches = [SimpleNamespace(score=s, exact=s == 1.0) for s in scores]
    decision = decide_route(matches, 0.75, route)
    assert decision.route == expected
    if scores and route == "auto":
        assert (decision.similarity or 0) == scores[0]


def test_routing_at_exactly_t_and_bad_route():
    assert decide_route([SimpleNamespace(score=0.75, exact=False)], 0.75).route == "match"
    with pytest.raises(InputError):
        decide_route([], 0.75, "guess")
