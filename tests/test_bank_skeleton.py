"""SQL skeletons, normalisation, tables/columns and metrics (example_bank.skeleton)."""

from __future__ import annotations

import pytest

from example_bank.skeleton import (
    analyze_sql,
    extract_metrics,
    normalize_sql,
    sql_skeleton,
    tables_and_columns,
)
from sqlgenie.errors import SQLSyntaxError


def test_same_template_with_different_literals_has_the_same_skeleton():
    a = "SELECT name FROM influencers WHERE age = 18 AND city = 'San Francisco' ORDER BY reel_count DESC LIMIT 10"
    b = "select NAME from Influencers where AGE = 30 and city = 'Tokyo' order by reel_count desc limit 5"
    assert sql_skeleton(a) == sql_skeleton(b)
    assert sql_skeleton(a) == (
        "SELECT name FROM influencers WHERE age = ? AND city = ? ORDER BY reel_count DESC LIMIT ?"
    )
    assert normalize_sql(a) != normalize_sql(b)


def test_skeleton_keeps_structure():
    assert sql_skeleton("SELECT a FROM t WHERE x IN (1, 2, 3)") == sql_skeleton("SELECT a FROM t WHERE x IN (7)")
    assert sql_skeleton("SELECT a, b FROM t ORDER BY 2") != sql_skeleton("SELECT a, b FROM t ORDER BY 1")
    assert sql_skeleton("SELECT date_trunc('month', d) FROM t") != sql_skeleton("SELECT date_trunc('year', d) FROM t")
    assert sql_skeleton("SELECT x::numeric(10, 2) FROM t WHERE y > -5") == "SELECT CAST(x AS DECIMAL(10, 2)) FROM t WHERE y > ?"
    assert sql_skeleton("SELECT a FROM t WHERE x > 1") != sql_skeleton("SELECT a FROM t WHERE x < 1")


def test_normalize_sql_is_canonical():
    assert normalize_sql("select  count(*)\nfrom   Orders") == normalize_sql("SELECT COUNT(*) FROM orders")
    assert normalize_sql('SELECT "Name" FROM t') != normalize_sql("SELECT name FROM t")


def test_tables_columns_and_metrics():
    sql = (
        "WITH recent AS (SELECT * FROM sales.orders WHERE placed_at > DATE '2024-01-01') "
        "SELECT c.city, SUM(o.amount) AS revenue, AVG(o.amount * o.qty) FROM recent AS o "
        "JOIN customers AS c ON c.id = o.customer_id GROUP BY c.city"
    )
    tables, columns = tables_and_columns(sql)
    assert set(tables) == {"sales.orders", "customers"}  # the CTE is not a table
    assert "customers.city" in columns and "customers.id" in columns
    metrics = extract_metrics(sql)
    by_name = {m.metric: m for m in metrics}
    assert by_name["revenue"].formula == "SUM(o.amount)"
    assert any("AVG" in m.formula for m in metrics)


def test_single_table_columns_are_qualified():
    tables, columns = tables_and_columns("SELECT name FROM Products WHERE price > 3")
    assert tables == ["products"]
    assert set(columns) == {"products.name", "products.price"}


def test_sqlite_double_quoted_strings_become_literals():
    a = analyze_sql('SELECT name FROM wine WHERE grape = "Zinfandel"', "sqlite", known_columns={"name", "grape"})
    assert a.sql == "SELECT name FROM wine WHERE grape = 'Zinfandel'"
    assert a.skeleton == "SELECT name FROM wine WHERE grape = ?"
    b = analyze_sql("SELECT `name` FROM wine LIMIT 3", "mysql")
    assert b.sql == 'SELECT "name" FROM wine LIMIT 3'


@pytest.mark.parametrize("bad", ["SELEC 1", "SELECT FROM WHERE (", "", "SELECT 1; SELECT 2"])
def test_unparsable_sql_raises_a_clear_error(bad):
    with pytest.raises(SQLSyntaxError) as info:
        analyze_sql(bad)
    assert info.value.hint
