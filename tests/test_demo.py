"""The demo warehouse (`sqlgenie demo load`), on a real embedded PostgreSQL."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import psycopg
import pytest

from sqlgenie.demo import demo_checksum, demo_summary, load_demo, make_plan
from sqlgenie.errors import InputError

SCALE = 10_000


def _rows(url: str, query: str, params=None) -> list[tuple]:
    with psycopg.connect(url) as conn:
        return conn.execute(query, params).fetchall()


def _one(url: str, query: str, params=None):
    return _rows(url, query, params)[0][0]


@pytest.fixture(scope="module")
def demo_url(module_db_url: str) -> str:
    """A database holding the demo at SCALE, seed 42 (shared by read-only tests)."""
    report = load_demo(module_db_url, scale=SCALE, seed=42)
    assert report.tables["order_items"]["rows"] == SCALE
    return module_db_url


def test_tables_and_row_counts(demo_url: str):
    expected = make_plan(SCALE, 42).counts()
    assert demo_summary(demo_url) == expected
    assert expected["orders"] == SCALE * 2 // 5
    assert expected["regions"] == 6
    assert 50 <= expected["stores"] <= 200 and 200 <= expected["products"] <= 3000
    regions = {r[0] for r in _rows(demo_url, "SELECT region_name FROM demo.regions")}
    assert regions == {"West", "East", "North", "South", "Central", "International"}


def test_keys_declared_and_valid(demo_url: str):
    kinds = _rows(
        demo_url,
        "SELECT contype, count(*) FROM pg_constraint WHERE connamespace = 'demo'::regnamespace GROUP BY 1",
    )
    counts = dict(kinds)
    assert counts.get("p") == 6 and counts.get("f") == 5
    # every item joins through to every dimension (FKs hold; nothing dropped or duplicated)
    joined = _one(
        demo_url,
        "SELECT count(*) FROM demo.order_items i"
        " JOIN demo.orders o ON o.order_id = i.order_id"
        " JOIN demo.products p ON p.product_id = i.product_id"
        " JOIN demo.customers c ON c.cust_id = o.cust_id"
        " JOIN demo.stores s ON s.store_id = o.store_id"
        " JOIN demo.regions r ON r.region_id = s.region_id",
    )
    assert joined == SCALE
    # orders.total_amt is the sum of its lines; orders never precede the customer's signup
    assert _one(
        demo_url,
        "SELECT count(*) FROM demo.orders o WHERE total_amt <> (SELECT sum(round(qty * unit_price * (1 - discount), 2))"
        " FROM demo.order_items i WHERE i.order_id = o.order_id)",
    ) == 0
    assert _one(
        demo_url,
        "SELECT count(*) FROM demo.orders o JOIN demo.customers c USING (cust_id) WHERE o.order_date < c.signup_date",
    ) == 0
    # ANALYZE ran
    assert _one(demo_url, "SELECT reltuples FROM pg_class WHERE oid = 'demo.order_items'::regclass") == SCALE


def test_messy_values_present(demo_url: str):
    rockpot = {r[0] for r in _rows(demo_url, "SELECT DISTINCT brand FROM demo.products WHERE brand ILIKE 'rockpot%'")}
    assert len(rockpot) >= 3
    assert any(not b.isascii() for b in rockpot)
    acme = {r[0] for r in _rows(demo_url, "SELECT DISTINCT brand FROM demo.products WHERE brand ILIKE '%acme%'")}
    assert len(acme) >= 3
    assert _one(demo_url, "SELECT count(*) FROM demo.products WHERE brand IN ('Müller GmbH', 'Muller')") > 0
    headphone = {r[0] for r in _rows(demo_url, "SELECT DISTINCT category FROM demo.products WHERE category ILIKE 'headphone%'")}
    assert len(headphone) >= 3
    assert _one(demo_url, "SELECT count(*) FROM demo.products WHERE product_name ~ '[0-9]'") > 50
    names = {r[0] for r in _rows(demo_url, "SELECT product_name FROM demo.products")}
    assert {"1300 Headphone", "Headphone Pro 2", "Wireless Earbuds X2 (Black)", "USB-C Cable 2m",
            "Kaffeemaschine KM-500"} <= names
    sizes = {r[0] for r in _rows(demo_url, "SELECT DISTINCT size FROM demo.products")}
    assert {"M", "One Size"} <= sizes and sizes & {"500 ml", "1 L"} and sizes & {"1m", "2m"}
    cities = {r[0] for r in _rows(demo_url, "SELECT city FROM demo.stores UNION SELECT city FROM demo.customers")}
    assert {"Palo Alto", "San Francisco", "Tokyo", "São Paulo", "München", "New York"} <= cities
    assert _one(demo_url, "SELECT count(*) FROM demo.customers WHERE last_name || first_name !~ '^[ -~]*$'") > 0
    assert {r[0] for r in _rows(demo_url, "SELECT DISTINCT segment FROM demo.customers")} == {
        "Consumer", "Corporate", "Small Business"}
    status = dict(_rows(demo_url, "SELECT status, count(*) FROM demo.orders GROUP BY 1"))
    assert set(status) == {"delivered", "shipped", "cancelled", "returned"}
    assert status["delivered"] > 0.7 * sum(status.values())
    assert {r[0] for r in _rows(demo_url, "SELECT DISTINCT channel FROM demo.orders")} == {"online", "store"}


def test_dates_seasonality_and_skew(demo_url: str):
    lo, hi = _rows(demo_url, "SELECT min(order_date), max(order_date) FROM demo.orders")[0]
    assert lo.year == 2023 and hi.year == 2025 and hi.month == 12
    by_month = dict(_rows(demo_url, "SELECT extract(month FROM order_date)::int, count(*) FROM demo.orders GROUP BY 1"))
    assert by_month[12] > 1.3 * (sum(by_month.values()) / 12)
    # Zipf-like popularity: the best seller sells far more than an average product
    top, avg = _rows(
        demo_url,
        "SELECT max(n), avg(n) FROM (SELECT product_id, count(*) n FROM demo.order_items GROUP BY 1) s",
    )[0]
    assert top > 5 * avg


def test_deterministic_and_reload_replaces(demo_url: str, fresh_db_url: str):
    reference = demo_checksum(demo_url)
    load_demo(fresh_db_url, scale=SCALE, seed=42)
    assert demo_checksum(fresh_db_url) == reference
    load_demo(fresh_db_url, scale=SCALE, seed=7)  # reload: replaces, does not append
    assert demo_summary(fresh_db_url) == make_plan(SCALE, 7).counts()
    assert demo_checksum(fresh_db_url) != reference
    assert _one(fresh_db_url, "SELECT count(*) FROM pg_namespace WHERE nspname LIKE '%demo%'") == 1


def test_failed_load_leaves_previous_demo(demo_url: str, fresh_db_url: str):
    load_demo(fresh_db_url, scale=SCALE, seed=42)
    before = demo_checksum(fresh_db_url)

    def interrupt(stage: str, done: int, total: int) -> None:
        if stage == "orders" and done:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        load_demo(fresh_db_url, scale=2 * SCALE, seed=1, progress=interrupt)
    assert demo_checksum(fresh_db_url) == before
    assert _one(fresh_db_url, "SELECT count(*) FROM pg_namespace WHERE nspname LIKE '%demo%'") == 1


def test_refuses_to_replace_foreign_demo_schema(fresh_db_url: str):
    with psycopg.connect(fresh_db_url, autocommit=True) as conn:
        conn.execute("CREATE SCHEMA demo")
        conn.execute("CREATE TABLE demo.mine (x int)")
    with pytest.raises(InputError, match="not created by"):
        load_demo(fresh_db_url, scale=SCALE)
    assert _one(fresh_db_url, "SELECT to_regclass('demo.mine') IS NOT NULL")


@pytest.mark.parametrize("scale,seed", [(0, 1), (999, 1), (10_000_001, 1), (10_000, -1)])
def test_invalid_arguments(scale: int, seed: int):
    with pytest.raises(InputError):
        load_demo("postgresql:///never-connected", scale=scale, seed=seed)


def _cli(*args: str, url: str | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    if url:
        env["SQLGENIE_DATABASE_URL"] = url
    return subprocess.run([sys.executable, "-m", "sqlgenie", "demo", *args], env=env, capture_output=True,
                          text=True, timeout=120)


def test_cli_load_json(fresh_db_url: str):
    result = _cli("load", "--scale", str(SCALE), "--seed", "3", "--json", url=fresh_db_url)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report["scale"] == SCALE and report["seed"] == 3
    assert {name: t["rows"] for name, t in report["tables"].items()} == make_plan(SCALE, 3).counts()
    assert report["seconds"] > 0
    assert demo_summary(fresh_db_url)["order_items"] == SCALE


def test_cli_bad_scale(fresh_db_url: str):
    result = _cli("load", "--scale", "12", url=fresh_db_url)
    assert result.returncode != 0
    message = " ".join(result.stderr.split())  # rich wraps long lines
    assert "must be between 1,000 and 10,000,000; got 12" in message
    assert "Traceback" not in result.stderr
    assert demo_summary(fresh_db_url) == {}
