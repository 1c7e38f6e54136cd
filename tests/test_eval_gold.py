"""Gold SQL transpilation SQLite -> PostgreSQL (pure: sqlglot only, no database)."""

from __future__ import annotations

import pytest
import sqlglot

from sqlgenie.eval.gold import (
    TranspileError,
    has_top_level_order_by,
    keyed_unlimited,
    transpile_sqlite,
    unlimited,
)
from sqlgenie.eval.identifiers import fold_identifier, schema_name_for

TYPES = {
    "customer": {"id": "integer", "name": "text", "city": "text", "zip": "text"},
    "order": {"order id": "integer", "customer name": "text", "amount": "double precision", "created": "timestamp", "mixed": "text"},
    "select": {"cid": "integer", "order id": "integer", "note": "text"},
}
AFFINITIES = {("order", "mixed"): "INTEGER", ("customer", "zip"): "TEXT"}


def pg(sql: str) -> str:
    out = transpile_sqlite(sql, TYPES, AFFINITIES).sql
    sqlglot.parse_one(out, read="postgres")  # always valid PostgreSQL syntax
    return out


def test_identifiers_fold_like_the_loader():
    assert fold_identifier("Customer Name") == "customer name"
    assert fold_identifier("CAFÉ") == "cafÉ"  # ASCII only, as SQLite and PostgreSQL fold
    long = "X" * 80
    assert len(fold_identifier(long).encode()) <= 63 and fold_identifier(long) != fold_identifier(long + "y")
    assert schema_name_for("concert_singer") == "concert_singer"
    assert schema_name_for("Mixed Case") != schema_name_for("mixed_case")
    assert schema_name_for("public").startswith("db_")
    out = pg('SELECT "Customer Name" FROM "ORDER" AS T1 JOIN CUSTOMER ON T1."Order ID" = Customer.ID')
    assert '"customer name"' in out and '"order"' in out and '"customer"."id"' in out and '"t1"."order id"' in out


def test_double_quoted_strings_become_literals():
    out = pg('SELECT name FROM customer WHERE city = "Paris" AND name = "name"')
    assert "'Paris'" in out
    assert '"customer"."name" = "customer"."name"' in out  # a real column stays a column


def test_like_is_case_insensitive_and_keeps_not():
    assert "ILIKE '%par%'" in pg("SELECT name FROM customer WHERE city LIKE '%par%'")
    out = pg("SELECT name FROM customer WHERE city NOT LIKE '%par%'")
    assert "NOT" in out and "ILIKE" in out


def test_bare_columns_are_wrapped():
    out = pg("SELECT T1.name, count(*) FROM customer AS T1 JOIN `select` AS T2 ON T1.id = T2.cid GROUP BY T1.id")
    assert 'MIN("t1"."name")' in out
    out = pg("SELECT name, max(id) FROM customer")
    assert 'ARRAY_AGG("customer"."name" ORDER BY "customer"."id" DESC NULLS LAST)' in out
    # grouped columns and aliases are left alone
    out = pg("SELECT city, count(*) AS n FROM customer GROUP BY city ORDER BY n DESC")
    assert "MIN(" not in out


def test_text_number_comparisons_follow_sqlite_affinity():
    # number literal vs TEXT-affinity column: compared as text
    assert "\"customer\".\"zip\" = '75001'" in pg("SELECT name FROM customer WHERE zip = 75001")
    # numeric-affinity column loaded as text (mixed values): SQLite's mixed comparison
    out = pg('SELECT count(*) FROM "order" WHERE mixed > 1')
    assert "PG_INPUT_IS_VALID" in out and "ELSE TRUE" in out
    # column vs column of different types: numeric comparison
    out = pg("SELECT count(*) FROM customer JOIN `select` ON customer.zip = `select`.cid")
    assert "PG_INPUT_IS_VALID" in out


def test_string_functions_and_dates():
    out = pg('SELECT substr(amount, 1, 2), created FROM "order" WHERE created LIKE \'2020%\'')
    assert 'CAST("order"."amount" AS TEXT)' in out and 'CAST("order"."created" AS TEXT) ILIKE' in out
    out = pg("SELECT julianday(created) FROM \"order\"")
    assert "EPOCH" in out and "2440587.5" in out
    out = pg("SELECT strftime('%Y', created) FROM \"order\"")
    assert "TO_CHAR" in out


def test_distinct_order_by_unselected_column():
    out = pg("SELECT DISTINCT name FROM customer ORDER BY id DESC")
    assert "DISTINCT" not in out and "GROUP BY" in out and 'MAX("customer"."id")' in out


def test_without_schema_and_errors():
    assert transpile_sqlite("SELECT a FROM t WHERE b = \"x\"").sql == "SELECT \"a\" FROM \"t\" WHERE \"b\" = 'x'"
    with pytest.raises(TranspileError):
        transpile_sqlite("SELECT FROM WHERE (")


def test_order_by_detection_and_keyed_queries():
    assert has_top_level_order_by("SELECT a FROM t ORDER BY a LIMIT 1", "sqlite")
    assert not has_top_level_order_by("SELECT a FROM (SELECT a FROM t ORDER BY a) AS s", "sqlite")
    assert has_top_level_order_by("SELECT a FROM t UNION SELECT b FROM u ORDER BY 1", "sqlite")
    keyed = keyed_unlimited("SELECT a AS x, count(*) FROM t GROUP BY a ORDER BY count(*) DESC, x LIMIT 3", "postgres")
    assert keyed is not None
    sql, nkeys, limit = keyed
    assert nkeys == 2 and limit == 3 and "LIMIT" not in sql and "__order_key_1" in sql
    assert unlimited("SELECT a FROM t ORDER BY a LIMIT 2", "sqlite") == "SELECT a FROM t ORDER BY a"
