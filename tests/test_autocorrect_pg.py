"""Value matcher over sqlgenie.value_cache, dummy testing and `sqlgenie correct`, on the real embedded PostgreSQL."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import psycopg
import pytest

from sqlgenie.autocorrect import (
    AutocorrectSettings,
    DummyTester,
    PgValueMatcher,
    correct_values,
    run_chain,
)
from sqlgenie.autocorrect.base import parse_sql, to_sql
from sqlgenie.catalog import load_catalog
from sqlgenie.store.migrations import ensure_migrated

BRAND_VALUES = {"Rockpot LLC": 3, "Rockpot": 5, "Rockpot ロックポット": 2, "Soundwave": 4, "Sakura": 2, "Nordhaus": 1}
FILLER = [f"Brand {i:03d} Industries" for i in range(60)]


@pytest.fixture(scope="module")
def db(module_db_url):
    ensure_migrated(module_db_url)
    with psycopg.connect(module_db_url, autocommit=True) as conn:
        conn.execute("CREATE SCHEMA shop")
        conn.execute("CREATE TABLE shop.brands (brand_id int PRIMARY KEY, name text NOT NULL, country varchar(40))")
        conn.execute(
            "CREATE TABLE shop.products (product_id int PRIMARY KEY, brand_id int, title text, price numeric(10,2),"
            " launched date)"
        )
        names = list(BRAND_VALUES) + FILLER
        with conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO shop.brands VALUES (%s, %s, %s)",
                [(i + 1, n, "Japan" if i % 2 else "Germany") for i, n in enumerate(names)],
            )
            cur.executemany(
                "INSERT INTO shop.products VALUES (%s, %s, %s, %s, %s)",
                [(i, (i % len(names)) + 1, f"Product {i}", 10 + i, "2024-01-01") for i in range(1, 101)],
            )
        tables = {
            "brands": [("brand_id", "integer", False), ("name", "text", True), ("country", "character varying(40)", True)],
            "products": [("product_id", "integer", False), ("brand_id", "integer", False), ("title", "text", False),
                         ("price", "numeric(10,2)", False), ("launched", "date", False)],
        }
        col_ids = {}
        for table, cols in tables.items():
            tid = conn.execute(
                "INSERT INTO sqlgenie.catalog_tables (schema_name, table_name) VALUES ('shop', %s) RETURNING id", (table,)
            ).fetchone()[0]
            for i, (name, typ, searchable) in enumerate(cols):
                col_ids[(table, name)] = conn.execute(
                    "INSERT INTO sqlgenie.catalog_columns (table_id, column_name, ordinal, data_type, searchable, mandatory)"
                    " VALUES (%s, %s, %s, %s, %s, %s) RETURNING id",
                    (tid, name, i + 1, typ, searchable, name == "title"),
                ).fetchone()[0]
        with conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO sqlgenie.value_cache (column_id, value, frequency) VALUES (%s, %s, %s)",
                [(col_ids[("brands", "name")], v, f) for v, f in BRAND_VALUES.items()]
                + [(col_ids[("brands", "name")], v, 1) for v in FILLER]
                + [(col_ids[("brands", "country")], v, 30) for v in ("Japan", "Germany")],
            )
    return module_db_url


@pytest.fixture
def catalog(db):
    with psycopg.connect(db) as conn:
        return load_catalog(conn, search_path=("shop",))


ROCKPOT_SQL = "SELECT brand_id FROM brands WHERE name = 'rockpot'"
ROCKPOT_FIXED = "SELECT brand_id FROM brands WHERE name IN ('Rockpot', 'Rockpot LLC', 'Rockpot ロックポット')"


@pytest.mark.parametrize("memory_cache_max", [20_000, 5], ids=["in-memory", "pg_trgm-prefilter"])
def test_pg_matcher_rockpot_both_paths(db, catalog, memory_cache_max):
    s = AutocorrectSettings(memory_cache_max=memory_cache_max)
    with psycopg.connect(db, autocommit=True) as conn:
        matcher = PgValueMatcher(conn, s)
        tree, changes = correct_values(parse_sql(ROCKPOT_SQL), catalog, matcher, s)
        assert to_sql(tree) == ROCKPOT_FIXED
        assert changes[0].before == "name = 'rockpot'"
        tree, changes = correct_values(
            parse_sql("SELECT * FROM brands b WHERE b.name NOT IN ('sakura', 'Nordhaus') AND country = 'japan'"),
            catalog, matcher, s,
        )
        assert to_sql(tree) == "SELECT * FROM brands AS b WHERE NOT b.name IN ('Sakura', 'Nordhaus') AND country = 'Japan'"
        tree, changes = correct_values(parse_sql("SELECT * FROM brands WHERE name LIKE '%soundwav%'"), catalog, matcher, s)
        assert to_sql(tree).endswith("name = 'Soundwave'") or to_sql(tree).endswith("name IN ('Soundwave')")
        assert correct_values(parse_sql("SELECT * FROM brands WHERE name ILIKE '%ROCKPOT%'"), catalog, matcher, s)[1] == []


def test_pg_matcher_exact_literals_cost_one_query(db, catalog):
    with psycopg.connect(db, autocommit=True) as conn:
        matcher = PgValueMatcher(conn)
        sql = "SELECT * FROM brands WHERE name IN ('Rockpot', 'Sakura') AND country = 'Japan'"
        tree, changes = correct_values(parse_sql(sql), catalog, matcher)
        assert changes == [] and matcher.queries == 1


def test_chain_with_pg_matcher_keeps_exact_sql(db, catalog):
    with psycopg.connect(db, autocommit=True) as conn:
        sql = "select brand_id from brands where name = 'Rockpot'"
        r = run_chain(sql, catalog, PgValueMatcher(conn), AutocorrectSettings().without_defaults())
        assert r.sql == sql and r.changes == []


def _scratch_schemas(url: str) -> list[str]:
    with psycopg.connect(url) as conn:
        return [r[0] for r in conn.execute("SELECT nspname FROM pg_namespace WHERE nspname LIKE 'sqlgenie_dummy_%'")]


def test_dummy_test_catches_errors_on_copies_not_on_the_target(db):
    tester = DummyTester(db, db, search_path=["shop"])
    # Fine on the target (100 products), division by zero on the 9-row copy: proof it ran on the copy.
    sql = "SELECT 1 / (count(*) - 9) FROM products"
    with psycopg.connect(db) as conn:
        assert conn.execute("SELECT 1 / (count(*) - 9) FROM shop.products").fetchone()[0] == 0
    outcome = tester.check(parse_sql(sql))
    assert not outcome.ok and "division by zero" in outcome.error.message
    assert outcome.tables == ["shop.products"]
    # type error in the query itself; table names in the message are the real ones
    outcome = tester.check(parse_sql("SELECT b.name / 2 FROM brands b JOIN products p ON p.brand_id = b.brand_id"))
    assert not outcome.ok and "operator does not exist" in outcome.error.message
    assert "sqlgenie_dummy_" not in outcome.error.message
    # unknown table: reported without running
    outcome = tester.check(parse_sql("SELECT * FROM no_such_table"))
    assert not outcome.ok and "no_such_table" in outcome.error.message
    # a good query passes, CTEs and aliases included
    ok = tester.check(parse_sql(
        "WITH x AS (SELECT brand_id, name FROM brands) SELECT x.name, products.title FROM x JOIN products"
        " ON products.brand_id = x.brand_id WHERE products.launched >= DATE '2024-01-01' LIMIT 5"
    ))
    assert ok.ok, ok.error
    assert _scratch_schemas(db) == []  # nothing left behind
    with psycopg.connect(db) as conn:
        assert conn.execute("SELECT count(*) FROM shop.products").fetchone()[0] == 100


def test_dummy_test_correction_agent(db):
    from sqlgenie.llm import ScriptedProvider

    llm = ScriptedProvider(["Here you go:\n```sql\nSELECT b.name || '/2' FROM brands b\n```"])
    tester = DummyTester(db, db, search_path=["shop"], llm=llm)
    outcome = tester.check(parse_sql("SELECT b.name / 2 FROM brands b"), question="names halved")
    assert outcome.ok and outcome.attempts == 2
    [change] = outcome.changes
    assert change.corrector == "dummy_test" and change.after == "SELECT b.name || '/2' FROM brands AS b"
    prompt = llm.requests[0].last_user_message
    assert "operator does not exist" in prompt and "shop.brands: brand_id integer, name text" in prompt
    # an agent that fails again: the error is reported
    bad = ScriptedProvider(["```sql\nSELECT b.name / 3 FROM brands b\n```"])
    outcome = DummyTester(db, db, search_path=["shop"], llm=bad).check(parse_sql("SELECT b.name / 2 FROM brands b"))
    assert not outcome.ok and "operator does not exist" in outcome.error.message


def test_chain_with_dummy_test(db, catalog):
    with psycopg.connect(db, autocommit=True) as conn:
        tester = DummyTester(db, db, search_path=["shop"])
        r = run_chain("SELECT name / 2 FROM brands WHERE name = 'sakura'", catalog, PgValueMatcher(conn),
                      AutocorrectSettings(), dummy=tester)
    assert [c.corrector for c in r.changes] == ["values", "defaults"]
    assert r.errors and "operator does not exist" in r.errors[0].message


def _cli(db: str, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "SQLGENIE_DATABASE_URL": db, "COLUMNS": "200", "NO_COLOR": "1"}
    return subprocess.run([sys.executable, "-m", "sqlgenie", "correct", *args], capture_output=True, text=True,
                          env=env, timeout=120)


def test_cli_correct(db):
    proc = _cli(db, "SELECT brand_id FROM brands WHERE name = 'rockpot'", "--json", "--schema", "shop",
                "--question", "how many rockpot brands?")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["sql"] == ROCKPOT_FIXED
    assert [c["corrector"] for c in out["changes"]] == ["values"]
    proc = _cli(db, "SELECT titel FROM products", "--schema", "shop", "--dummy")
    assert proc.returncode == 0, proc.stderr
    assert "SELECT title FROM products LIMIT 500" in proc.stdout and "identifiers" in proc.stdout
    proc = _cli(db, "SELECT <python>__import__('os')</python>", "--schema", "shop")
    assert proc.returncode != 0 and "__import__" in proc.stderr


TV_TITLES = ["The Hanged Man", "Fall of the Blue Beetle!", "The Eyes of Despero!", "Evil Under the Sea!",
             "Day of the Dark Knight!", "Journey to the Center of the Bat!", "Enter the Outsiders!"]


@pytest.fixture(scope="module")
def tv_catalog(db):
    with psycopg.connect(db, autocommit=True) as conn:
        conn.execute("CREATE SCHEMA tv")
        conn.execute("CREATE TABLE tv.cartoon (id int PRIMARY KEY, title text)")
        tid = conn.execute("INSERT INTO sqlgenie.catalog_tables (schema_name, table_name) VALUES ('tv', 'cartoon')"
                           " RETURNING id").fetchone()[0]
        cid = conn.execute("INSERT INTO sqlgenie.catalog_columns (table_id, column_name, ordinal, data_type, searchable)"
                           " VALUES (%s, 'title', 2, 'text', true) RETURNING id", (tid,)).fetchone()[0]
        with conn.cursor() as cur:
            cur.executemany("INSERT INTO sqlgenie.value_cache (column_id, value, frequency) VALUES (%s, %s, 1)",
                            [(cid, t) for t in TV_TITLES])
        return load_catalog(conn, schemas=["tv"], search_path=("tv",))


@pytest.mark.parametrize("memory_cache_max", [20_000, 2], ids=["in-memory", "pg_trgm-prefilter"])
def test_pg_matcher_never_guesses_from_stop_words(db, tv_catalog, memory_cache_max):
    s = AutocorrectSettings(memory_cache_max=memory_cache_max)
    with psycopg.connect(db, autocommit=True) as conn:
        matcher = PgValueMatcher(conn, s)
        sql = "SELECT * FROM cartoon WHERE title = 'The Rise of the Blue Beetle'"
        tree, changes = correct_values(parse_sql(sql), tv_catalog, matcher, s)
        assert changes == [] and to_sql(tree) == to_sql(parse_sql(sql))
        tree, changes = correct_values(parse_sql("SELECT * FROM cartoon WHERE title = 'Fall of the Beetle!'"),
                                       tv_catalog, matcher, s)
        assert to_sql(tree).endswith("title = 'Fall of the Blue Beetle!'")
        tree, _ = correct_values(parse_sql("SELECT * FROM cartoon WHERE title = 'the eyes of desparo'"),
                                 tv_catalog, matcher, s)
        assert to_sql(tree).endswith("title = 'The Eyes of Despero!'")


def test_pg_matcher_typos_through_btree_head_and_tail(db, catalog):
    """Large-cache path: one slip is found by the head or tail btree scans (migration
    0007), without the trigram stages: prefetch, count, stage 1, stage 2 = 4 queries."""
    s = AutocorrectSettings(memory_cache_max=5)
    with psycopg.connect(db, autocommit=True) as conn:
        assert conn.execute("SELECT to_regclass('sqlgenie.value_cache_reverse_lower_idx')").fetchone()[0]
        for literal, fixed in [
            ("Brand 007 Industriex", "Brand 007 Industries"),  # head intact
            ("Xrand 007 Industries", "Brand 007 Industries"),  # tail intact
            ("Nordhuas", "Nordhaus"),  # swapped letters
            ("Soundwaves", "Soundwave"),  # plural
        ]:
            matcher = PgValueMatcher(conn, s)
            tree, changes = correct_values(parse_sql(f"SELECT * FROM brands WHERE name = '{literal}'"),
                                           catalog, matcher, s)
            assert to_sql(tree).endswith(f"name = '{fixed}'"), literal
            assert matcher.queries == 4, literal
        # nothing one slip away: on to the trigram stages, still corrected
        matcher = PgValueMatcher(conn, s)
        tree, _ = correct_values(parse_sql("SELECT * FROM brands WHERE name = 'Brnad 007 Industires'"),
                                 catalog, matcher, s)
        assert to_sql(tree).endswith("name = 'Brand 007 Industries'") and matcher.queries > 4
