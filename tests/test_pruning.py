"""Schema pruning on a small onboarded schema (real PostgreSQL, real MiniLM)."""

from __future__ import annotations

import psycopg
import pytest

from sqlgenie.catalog import Catalog, ColumnInfo, JoinInfo, TableInfo, load_catalog
from sqlgenie.inference.join_paths import JoinGraph, connect
from sqlgenie.inference.pruning import FEATURES, PrunedSchema, SchemaPruner, ValueIndex

SCHEMA = "shop"

DDL = """
CREATE SCHEMA shop;
CREATE TABLE shop.customers (
    customer_id integer PRIMARY KEY, first_name text, last_name text, city text, email text);
CREATE TABLE shop.products (
    product_id integer PRIMARY KEY, product_name text, category text, unit_price numeric(10,2));
CREATE TABLE shop.orders (
    order_id integer PRIMARY KEY, customer_id integer REFERENCES shop.customers, order_date date,
    total_amount numeric(10,2), status text);
CREATE TABLE shop.order_items (
    order_id integer REFERENCES shop.orders, product_id integer REFERENCES shop.products, quantity integer,
    PRIMARY KEY (order_id, product_id));
CREATE TABLE shop.suppliers (
    supplier_id integer PRIMARY KEY, supplier_name text, country text, rating integer);
CREATE TABLE shop.employees (
    employee_id integer PRIMARY KEY, full_name text, hire_date date, salary numeric(10,2), department text);
CREATE TABLE shop.warehouses (
    warehouse_id integer PRIMARY KEY, location text, capacity integer, manager text);
INSERT INTO shop.customers
SELECT g, (ARRAY['Ana','Bob','Chloe','Dmitri','Eve','Farid'])[1 + g % 6],
       (ARRAY['Martin','Okafor','Tanaka','Silva'])[1 + g % 4],
       (ARRAY['Lyon','Paris','Berlin','Osaka','Lagos'])[1 + g % 5], 'user' || g || '@example.com'
FROM generate_series(1, 60) g;
INSERT INTO shop.products
SELECT g, (ARRAY['Widget','Gadget','Sprocket','Gizmo','Doohickey'])[1 + g % 5],
       (ARRAY['tools','toys','garden'])[1 + g % 3], 5 + g
FROM generate_series(1, 25) g;
INSERT INTO shop.orders
SELECT g, 1 + g % 60, date '2024-01-01' + g, 10 + (g * 7) % 300,
       (ARRAY['shipped','pending','cancelled'])[1 + g % 3]
FROM generate_series(1, 300) g;
INSERT INTO shop.order_items
SELECT o, 1 + (o * k) % 25, 1 + k FROM generate_series(1, 300) o, generate_series(1, 2) k
ON CONFLICT DO NOTHING;
INSERT INTO shop.suppliers
SELECT g, 'Supplier ' || g, (ARRAY['Norway','Chile','Kenya'])[1 + g % 3], 1 + g % 5
FROM generate_series(1, 12) g;
INSERT INTO shop.employees
SELECT g, 'Employee ' || g, date '2015-01-01' + g * 30, 30000 + g * 1000,
       (ARRAY['sales','logistics','support'])[1 + g % 3]
FROM generate_series(1, 40) g;
INSERT INTO shop.warehouses
SELECT g, (ARRAY['Rotterdam','Antwerp','Hamburg'])[1 + g % 3], 1000 * g, 'Manager ' || g
FROM generate_series(1, 6) g;
ANALYZE;
"""


@pytest.fixture(scope="session")
def embedder():
    from example_bank.embedder import get_embedder

    return get_embedder()


@pytest.fixture(scope="module")
def shop(module_db_url: str, pg_data_dir):
    """The shop schema, onboarded (no LLM) into the same database; yields (conn, catalog)."""
    import os

    from onboarding.service import OnboardOptions, onboard_schema
    from sqlgenie.config import load_settings
    from sqlgenie.store.migrations import ensure_migrated

    os.environ["SQLGENIE_DATA_DIR"] = str(pg_data_dir)
    settings = load_settings(database_url=module_db_url)
    ensure_migrated(module_db_url)
    with psycopg.connect(module_db_url, autocommit=True) as conn:
        conn.execute(DDL)
        onboard_schema(SCHEMA, settings=settings, target=conn, store=conn, provider=None,
                       options=OnboardOptions(llm=None, measure_indexes=False))
        catalog = load_catalog(conn, schemas=[SCHEMA], search_path=(SCHEMA,))
        yield conn, catalog


@pytest.fixture(scope="module")
def pruner(shop, embedder):
    conn, catalog = shop
    return SchemaPruner(catalog, embedder=embedder, value_matcher=conn, threshold=0.3)


def kept(result: PrunedSchema) -> set[str]:
    return {f"{t.split('.')[1]}.{c}" for t, c in result.kept_columns()}


def test_catalog_is_onboarded(shop):
    _conn, catalog = shop
    assert {t.name for t in catalog.tables} == {
        "customers", "products", "orders", "order_items", "suppliers", "employees", "warehouses"}
    accepted = {(j.from_table, j.to_table) for j in catalog.accepted_joins()}
    assert ("shop.orders", "shop.customers") in accepted
    assert ("shop.order_items", "shop.products") in accepted


def test_relevant_columns_kept_irrelevant_dropped(pruner):
    result = pruner.prune("What is the email of each customer?")
    assert {"customers.email"} <= kept(result)
    assert not any(c.startswith("suppliers.") for c in kept(result))
    assert "products.unit_price" not in kept(result)
    # scores are ordered and carry their signals
    top = result.scores[0]
    assert result.scores == sorted(result.scores, key=lambda s: -s.score)
    assert {"embedding", "lexical", "value", "example", "join"} <= set(top.signals)
    assert 0.0 <= result.scores[-1].score <= top.score <= 1.0


def test_value_hit_keeps_its_column(pruner):
    result = pruner.prune("How many people live in Osaka?")
    assert "customers.city" in kept(result)
    assert result.value_hits.get("shop.customers.city") == ["Osaka"]
    city = next(s for s in result.scores if s.table == "shop.customers" and s.column == "city")
    assert city.signals["value"] == 1.0
    # the same question without a value index: no value signal
    plain = SchemaPruner(pruner.catalog, embedder=pruner.embedder, threshold=0.3)
    city_plain = next(s for s in plain.prune("How many people live in Osaka?").scores if s.column == "city")
    assert city_plain.score < city.score


def test_value_index_from_mapping_and_fuzzy():
    index = ValueIndex({"s.t.name": ["Rockpot LLC", "Anthony Stabile"], "s.t.kind": ["tools"]})
    hits = {(h.key, h.value) for h in index.hits("Orders of rockpot llc and Stabile")}
    assert ("s.t.name", "Rockpot LLC") in hits  # exact after case folding
    assert ("s.t.name", "Anthony Stabile") in hits  # one distinctive word of the value
    assert index.hits("What about the") == []


def test_example_tables_boost(pruner):
    question = "List the names and ratings."
    before = pruner.prune(question)
    after = pruner.prune(question, example_tables=["shop.suppliers"])
    assert "shop.suppliers" in after.tables
    score = lambda r, col: next(s.score for s in r.scores if s.table == "shop.suppliers" and s.column == col)
    assert score(after, "supplier_name") >= score(before, "supplier_name")
    assert "suppliers.supplier_id" in kept(after)
    cols = pruner.prune(question, example_columns=[("suppliers", "country")])
    assert "suppliers.country" in kept(cols)
    assert next(s for s in cols.scores if s.column == "country" and s.table == "shop.suppliers").signals["example"] == 1.0


def test_join_columns_added_along_cheapest_path(pruner):
    result = pruner.prune("Which customers in Paris bought a Widget?")
    k = kept(result)
    assert {"customers.city", "products.product_name"} <= k
    # customers -> orders -> order_items -> products: the tables in between and their join columns
    assert {"orders.customer_id", "customers.customer_id", "order_items.order_id", "orders.order_id",
            "order_items.product_id", "products.product_id"} <= k
    pairs = {(j.from_table, j.to_table) for j in result.joins}
    assert {("shop.orders", "shop.customers"), ("shop.order_items", "shop.orders"),
            ("shop.order_items", "shop.products")} <= pairs
    assert all(j.status == "accepted" for j in result.joins)


def test_render_has_what_the_prompt_needs(pruner, shop):
    _conn, catalog = shop
    result = pruner.prune("Which customers in Paris bought a Widget?", threshold=0.6)
    text = result.render(catalog)
    lines = text.splitlines()
    assert any(line.startswith("customers(") and "city text" in line and "PK(customer_id)" in line for line in lines)
    assert any(line.startswith("order_items(") for line in lines)
    assert "orders.customer_id = customers.customer_id" in text
    assert "values in question:" in text and "customers.city = 'Paris'" in text
    assert "products.product_name = 'Widget'" in text
    # one line per kept table, then joins and values; dropped tables are not shown
    table_lines = [line for line in lines if not line.startswith(("joins:", "values in question:"))]
    assert len(table_lines) == len(result.tables)
    dropped = {t.name for t in catalog.tables} - {q.split(".")[1] for q in result.tables}
    assert dropped and not any(line.startswith(f"{name}(") for name in dropped for line in lines)


def test_threshold_monotone(shop, embedder):
    conn, catalog = shop
    questions = [
        "Which customers in Paris bought a Widget?",
        "What is the average total amount of shipped orders per city?",
        "List supplier names from Kenya with rating above 3.",
        "How many orders were placed in 2024?",
    ]
    pruner = SchemaPruner(catalog, embedder=embedder, value_matcher=conn, threshold=0.3)
    for q in questions:
        previous = None
        for delta in (0.01, 0.05, 0.1, 0.3, 0.5, 0.8, 0.95):
            now = pruner.prune(q, threshold=delta).kept_columns()
            if previous is not None:
                assert now <= previous, (q, delta, now - previous)
            previous = now
    low = SchemaPruner(catalog, embedder=embedder, value_matcher=conn, threshold=0.05).prune(questions[1])
    high = SchemaPruner(catalog, embedder=embedder, value_matcher=conn, threshold=0.6).prune(questions[1])
    assert high.kept_columns() <= low.kept_columns() and len(high.kept_columns()) < len(low.kept_columns())


def test_prune_is_fast_after_setup(pruner):
    import time

    pruner.prune("warm up the question embedding")
    t0 = time.perf_counter()
    for _ in range(5):
        pruner.prune("What is the total amount of shipped orders per customer city?")
    assert (time.perf_counter() - t0) / 5 < 0.25  # generous: shared 2-core machine


def _join(a: str, b: str, cost: float, score: float = 0.9, col: str = "id") -> JoinInfo:
    return JoinInfo(a, (f"{b.split('.')[1]}_{col}",), b, (col,), score, "accepted", cost)


def test_cheapest_path_by_cost():
    joins = [
        _join("s.a", "s.b", 1.0), _join("s.b", "s.d", 1.0),  # a-b-d: 2
        _join("s.a", "s.c", 0.2), _join("s.c", "s.d", 0.3),  # a-c-d: 0.5
        JoinInfo("s.a", ("x",), "s.d", ("y",), 0.9, "rejected", 0.01),  # rejected: never used
    ]
    graph = JoinGraph.from_joins(joins)
    path = graph.shortest_path("s.a", "s.d")
    assert [(j.from_table, j.to_table) for j in path] == [("s.a", "s.c"), ("s.c", "s.d")]
    tree = connect(["s.a", "s.d"], joins)
    assert tree.tables == {"s.a", "s.c", "s.d"} and tree.unconnected == frozenset()
    ordered = connect(["s.d", "s.a", "s.b"], joins, in_order=True)
    assert {"s.a", "s.b", "s.d"} <= ordered.tables
    # a low-confidence join costs more than a sure one of the same cost
    unsure = [_join("s.a", "s.b", 1.0, score=0.3), _join("s.a", "s.c", 1.0), _join("s.c", "s.b", 0.5)]
    assert len(JoinGraph.from_joins(unsure).shortest_path("s.a", "s.b")) == 2
    # unreachable terminals are reported
    assert connect(["s.a", "s.z"], joins).unconnected == {"s.z"}


def test_parallel_joins_listed():
    joins = [
        JoinInfo("s.flights", ("sourceairport",), "s.airports", ("code",), 0.9, "accepted", 0.6),
        JoinInfo("s.flights", ("destairport",), "s.airports", ("code",), 0.9, "accepted", 0.6),
    ]
    graph = JoinGraph.from_joins(joins)
    assert len(graph.connect(["s.flights", "s.airports"]).joins) == 1
    assert {j.from_columns for j in graph.joins_between("s.airports", "s.flights")} == {("sourceairport",), ("destairport",)}




def test_proposed_join_is_a_last_resort():
    joins = [
        JoinInfo("s.a", ("b_id",), "s.b", ("id",), 0.9, "accepted", 1.0),
        JoinInfo("s.a", ("b_ref",), "s.b", ("id",), 0.9, "proposed", 0.1),  # cheaper, but only proposed
        JoinInfo("s.c", ("d_id",), "s.d", ("id",), 0.5, "proposed", 0.3),  # the only link of c and d
        JoinInfo("s.a", ("c_id",), "s.c", ("id",), 0.9, "rejected", 0.1),  # never used
    ]
    accepted_only = JoinGraph.from_joins(joins)
    assert accepted_only.shortest_path("s.c", "s.d") is None
    graph = JoinGraph.from_joins(joins, proposed=True)
    assert [j.from_columns for j in graph.shortest_path("s.a", "s.b")] == [("b_id",)]
    assert [j.status for j in graph.shortest_path("s.c", "s.d")] == ["proposed"]
    assert graph.shortest_path("s.a", "s.c") is None
    assert {j.status for j in graph.joins_between("s.a", "s.b")} == {"accepted", "proposed"}


def _catalog(*tables: tuple[str, tuple[tuple[str, str], ...]]) -> Catalog:
    return Catalog(tuple(TableInfo("s", name, tuple(ColumnInfo(c, t) for c, t in cols), (cols[0][0],))
                         for name, cols in tables))


EMPLOYEES = ("employees", (("employee_id", "integer"), ("full_name", "text"), ("salary", "numeric"),
                           ("hire_date", "date"), ("department", "text")))
WAREHOUSES = ("warehouses", (("warehouse_id", "integer"), ("location", "text"), ("capacity", "integer"),
                             ("manager", "text")))
ACCOUNTS = ("accounts", (("account_id", "integer"), ("account_details", "text"), ("opened", "date")))


def test_unexplained_words(embedder):
    pruner = SchemaPruner(_catalog(EMPLOYEES, WAREHOUSES), embedder=embedder, threshold=0.3)
    f = {name: i for i, name in enumerate(FEATURES)}
    col = {key.split(".", 1)[1]: i for i, key in enumerate(pruner.col_keys)}
    # every content word is explained: unclaimed columns are flagged as such
    X, _signals, _hits = pruner.features("What is the salary of each employee?")
    assert X[col["employees.full_name"], f["unclaimed_explained"]] == 1.0
    assert X[col["employees.salary"], f["unclaimed_explained"]] == 0.0
    assert X[:, f["unclaimed_unexplained"]].max() == 0.0
    # "store" and "goods" name nothing: the closest column names get the embedding signal
    X, _signals, _hits = pruner.features("Which warehouses can store the most goods?")
    assert X[:, f["unclaimed_explained"]].max() == 0.0
    assert X[col["warehouses.manager"], f["unclaimed_unexplained"]] > 0.0
    assert X[:, f["uemb_best"]].sum() >= 1.0 and X[:, f["uemb"]].max() > 0.3
    kept = pruner.prune("Which warehouses can store the most goods?").kept_columns()
    assert ("s.warehouses", "capacity") in kept and not any(t == "s.employees" for t, _c in kept)


def test_whole_rows_unless_a_column_is_called_so(embedder):
    question = "Show the details of employees hired in 2020."
    plain = SchemaPruner(_catalog(EMPLOYEES, WAREHOUSES), embedder=embedder, threshold=0.3)
    assert plain._asks_whole_rows(question)
    assert plain._asks_whole_rows("What is all the employee information for the sales department?")
    assert not plain._asks_whole_rows("What is the salary of each employee?")
    assert {c for t, c in plain.prune(question).kept_columns() if t == "s.employees"} == {
        c for c, _t in EMPLOYEES[1]}
    with_details = SchemaPruner(_catalog(EMPLOYEES, WAREHOUSES, ACCOUNTS), embedder=embedder, threshold=0.3)
    assert not with_details._asks_whole_rows(question)  # "details" may mean accounts.account_details
