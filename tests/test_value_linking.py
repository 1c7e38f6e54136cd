"""Value linking on a small onboarded schema (real PostgreSQL, real MiniLM): cache
matches of every kind, typed numbers, yes/no columns, bounded probes of uncached
values through the safe executor, column context, and pruning keeping linked columns."""

from __future__ import annotations

import psycopg
import pytest

from sqlgenie.catalog import load_catalog
from sqlgenie.inference.value_linking import (
    ValueLinker,
    fold,
    link_and_prune,
    link_values,
    question_spans,
    render_links,
)

SCHEMA = "vl"

DDL = """
CREATE SCHEMA vl;
CREATE TABLE vl.customers (
    customer_id integer PRIMARY KEY, full_name text, city text, country text, gender text, is_active text,
    signup_year text);
CREATE TABLE vl.suppliers (supplier_id integer PRIMARY KEY, supplier_name text, country text);
CREATE TABLE vl.people (person_id integer PRIMARY KEY, person_name text, notes text);
INSERT INTO vl.customers
SELECT g, 'Customer ' || g, (ARRAY['München','Berlin','Lyon','São Paulo','New York'])[1 + g % 5],
       (ARRAY['France','Germany','Brazil','United States'])[1 + g % 4], (ARRAY['F','M'])[1 + g % 2],
       (ARRAY['Y','N'])[1 + g % 2], (2015 + g % 8)::text
FROM generate_series(1, 80) g;
INSERT INTO vl.suppliers SELECT g, 'Supplier ' || g, (ARRAY['France','Chile','Kenya'])[1 + g % 3]
FROM generate_series(1, 12) g;
-- 3000 distinct names: the value cache keeps only the most frequent ones
INSERT INTO vl.people SELECT g, 'Person ' || lpad(g::text, 5, '0') || CASE WHEN g = 2999 THEN ' Zanzibar' ELSE '' END,
       repeat('free text ', 20) || g
FROM generate_series(1, 3000) g;
ANALYZE;
"""


@pytest.fixture(scope="module")
def db(module_db_url: str, pg_data_dir):
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
        yield conn, catalog, module_db_url


@pytest.fixture(scope="module")
def executor(db):
    from sqlgenie.executor import SafeExecutor

    with SafeExecutor(db[2], statement_timeout_ms=5000) as ex:
        yield ex


@pytest.fixture(scope="module")
def pruner(db):
    from example_bank.embedder import get_embedder
    from sqlgenie.inference.pruning import SchemaPruner

    conn, catalog, _url = db
    return SchemaPruner(catalog, embedder=get_embedder(), value_matcher=conn, threshold=0.3)


@pytest.fixture(scope="module")
def linker(db, executor, pruner):
    conn, catalog, _url = db
    return ValueLinker(catalog, conn, executor=executor, pruner=pruner)


def top(links, span_contains: str):
    """The best link of the first span containing ``span_contains``."""
    for link in links:
        if span_contains.lower() in link.span.lower() and link.rank == 1:
            return link
    raise AssertionError(f"no span with {span_contains!r} in {links}")


def test_spans_and_fold():
    assert fold("  São-Paulo ") == "sao paulo"
    spans = {s.text for s in question_spans("How many customers live in 'New York' or Berlin?")}
    assert {"New York", "Berlin", "customers"} <= spans
    assert "in" not in spans and "How many" not in spans
    assert "Kyle" in {s.text for s in question_spans("What is Kyle's id?")}


def test_exact_folded_and_accents(linker):
    links = linker.link("How many customers live in munchen?")
    best = top(links, "munchen")
    assert (best.column, best.value, best.method) == ("vl.customers.city", "München", "folded")
    exact = top(linker.link("Customers in Berlin"), "Berlin")
    assert (exact.value, exact.method) == ("Berlin", "exact")


def test_misspelling_alternates_codes_and_flags(linker):
    assert top(linker.link("customers in Berlln"), "Berlln").value == "Berlin"
    french = top(linker.link("How many French customers are there?"), "French")
    assert (french.column, french.value, french.method) == ("vl.customers.country", "France", "alternate")
    usa = top(linker.link("customers from the USA"), "USA")
    assert usa.value == "United States"
    female = top(linker.link("How many female customers are there?"), "female")
    assert (female.column, female.value) == ("vl.customers.gender", "F")
    active = [l for l in linker.link("List the active customers") if l.method == "flag"]
    assert [(l.column, l.value, l.rank) for l in active] == [("vl.customers.is_active", "Y", 1),
                                                            ("vl.customers.is_active", "N", 2)]


def test_number_in_text_column(linker):
    links = linker.link("Customers who signed up in year 2019")
    best = top(links, "2019")
    assert (best.column, best.value) == ("vl.customers.signup_year", "2019")


def test_column_context_ranks_the_named_table(linker):
    links = linker.link("Which suppliers are based in France?")
    france = [l for l in links if l.span == "France"]
    assert {l.column for l in france} == {"vl.suppliers.country", "vl.customers.country"}
    assert france[0].column == "vl.suppliers.country" and france[0].rank == 1
    links = linker.link("Which customers are based in France?")
    assert top(links, "France").column == "vl.customers.country"


def test_probe_finds_uncached_values_and_is_bounded(db, executor, pruner):
    conn, catalog, _url = db
    cached = {v for (v,) in conn.execute(
        "SELECT v.value FROM sqlgenie.value_cache v JOIN sqlgenie.catalog_columns c ON c.id = v.column_id"
        " WHERE c.column_name = 'person_name'")}
    assert cached and "Person 02999 Zanzibar" not in cached  # the cache does not hold it
    question = "What are the notes of Zanzibar?"
    without = ValueLinker(catalog, conn, executor=None, pruner=pruner)
    assert not [l for l in without.link(question) if l.value == "Person 02999 Zanzibar"]
    with_probes = ValueLinker(catalog, conn, executor=executor, pruner=pruner)
    links = with_probes.link(question)
    hit = [l for l in links if l.value == "Person 02999 Zanzibar"]
    assert hit and hit[0].method == "probe" and hit[0].column == "vl.people.person_name"
    assert with_probes.probe_queries == 1  # one UNION ALL statement per question
    # a question whose values are all cached sends no probe
    with_probes.link("customers in Berlin")
    assert with_probes.probe_queries == 1


def test_link_values_entry_point_and_render(db, executor, pruner):
    conn, catalog, _url = db
    links = link_values("customers in Lyon", catalog=catalog, store=conn, executor=executor, pruner=pruner,
                        limit_per_span=2)
    assert top(links, "Lyon").value == "Lyon"
    assert all(l.rank <= 2 for l in links)
    text = render_links(links)
    assert "vl.customers.city = 'Lyon'" in text


def test_linked_values_keep_their_columns_in_pruning(linker, pruner):
    question = "How many records mention Kenya?"
    links = linker.link(question)
    assert top(links, "Kenya").column == "vl.suppliers.country"
    strict = pruner.prune(question, threshold=0.999)
    assert ("vl.suppliers", "country") not in strict.kept_columns()
    kept = pruner.prune(question, threshold=0.999, value_links=links)
    assert ("vl.suppliers", "country") in kept.kept_columns()
    assert kept.reasons["vl.suppliers.country"] == "value"
    assert kept.value_hits["vl.suppliers.country"] == ["Kenya"]
    report = link_and_prune(question, pruner=pruner, linker=linker)
    reasons = {c["column"]: c["reason"] for c in report.tables["vl.suppliers"]}
    assert "country" in reasons and report.kept_columns < report.total_columns


def test_gold_literals_are_resolved_to_columns(db):
    from sqlgenie.inference.eval_values import GoldLiteral, gold_literals, stored_values

    conn, catalog, _url = db
    lits = gold_literals(
        "SELECT count(*) FROM customers AS T1 JOIN suppliers AS T2 ON T1.country = T2.country"
        " WHERE T1.city = 'Lyon' AND T2.country IN ('Chile', 'Kenya') AND T1.full_name LIKE '%ustomer 1%'",
        catalog, dialect="postgres")
    assert {(g.key, g.literal, g.op) for g in lits} == {
        ("vl.customers.city", "Lyon", "eq"), ("vl.suppliers.country", "Chile", "eq"),
        ("vl.suppliers.country", "Kenya", "eq"), ("vl.customers.full_name", "%ustomer 1%", "like")}
    assert stored_values(conn, GoldLiteral("vl.customers", "city", "lyon", "eq")) == ["Lyon"]
    assert stored_values(conn, GoldLiteral("vl.customers", "city", "Atlantis", "eq")) == []
