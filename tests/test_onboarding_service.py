"""Onboarding on a real embedded PostgreSQL with awkward identifiers and data:
profiles, keys, joins, value cache, index picks, human edits, failures, LLM path."""

from __future__ import annotations

import json

import psycopg
import pytest

from onboarding import catalog_admin, catalog_writer, joins
from onboarding.cost import CostModel
from onboarding.service import OnboardOptions, calibrate_costs, onboard_schema, onboard_table
from onboarding.value_cache import search_values
from sqlgenie.config import load_settings
from sqlgenie.errors import InputError, UnknownTableError
from sqlgenie.llm import ScriptedProvider
from sqlgenie.store import connect_store

SHOP_DDL = '''
CREATE SCHEMA shop;
CREATE TABLE shop."Customers" (cust_id integer NOT NULL, "Full Name" text, email text, city text, segment text,
                               notes text, fax text);
INSERT INTO shop."Customers"
SELECT i, 'Person ' || i, 'user' || i || '@example.com',
       (ARRAY['München','München','München','Zürich','Zürich','São Paulo','New York','Berlin','Paris'])[1 + i % 9],
       (ARRAY['Consumer','Corporate','Small Business'])[1 + i % 3],
       CASE WHEN i % 10 = 0 THEN repeat('huge text ', 2000) END, NULL
FROM generate_series(1, 300) i;
CREATE TABLE shop.orders (order_no integer PRIMARY KEY, cust_id integer, order_dt date, total_amt numeric(10,2), status text);
INSERT INTO shop.orders SELECT i, 1 + (i * 7) % 290, DATE '2024-01-01' + (i % 365), (i % 97) * 3.5,
       (ARRAY['shipped','delivered','cancelled'])[1 + i % 3] FROM generate_series(1, 600) i;
CREATE TABLE shop."Order Items" (order_no integer NOT NULL, line_no smallint NOT NULL, qty integer, unit_price numeric(8,2),
                                 "Product Code" text);
INSERT INTO shop."Order Items" SELECT 1 + (i / 3), 1 + i % 3, 1 + i % 5, 9.99, 'P-' || (i % 40) FROM generate_series(0, 1499) i;
CREATE TABLE shop."select" ("from" integer, "where" text, "say ""hi""" text);
INSERT INTO shop."select" SELECT i, 'w' || (i % 4), 'hi' FROM generate_series(1, 20) i;
CREATE TABLE shop."Bücher" ("Titel" text, "Preis €" numeric(6,2));
INSERT INTO shop."Bücher" VALUES ('Faust', 12.50), ('Die Räuber', 9.90), ('Emil', 7.00);
CREATE TABLE shop.empty_table (id integer, label text);
'''


def _settings(url: str):
    return load_settings(database_url=url)


def _build(url: str) -> None:
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(SHOP_DDL)
        conn.execute("ANALYZE")


@pytest.fixture(scope="module")
def shop(module_db_url: str):
    """The shop schema, onboarded once (no LLM); read-only tests share it."""
    _build(module_db_url)
    s = _settings(module_db_url)
    results = onboard_schema("shop", settings=s, options=OnboardOptions(llm=None))
    return s, {r.table: r for r in results}


def _catalog(settings, spec: str) -> dict:
    with connect_store(settings) as store:
        return catalog_admin.show_table(store, spec, values=1000)


def test_every_table_onboarded_with_awkward_names(shop):
    settings, res = shop
    assert set(res) == {"Customers", "orders", "Order Items", "select", "Bücher", "empty_table"}
    sel = _catalog(settings, 'shop."select"')
    assert [c["column"] for c in sel["columns"]] == ["from", "where", 'say "hi"']
    assert [c["column"] for c in _catalog(settings, "shop.Bücher")["columns"]] == ["Titel", "Preis €"]
    empty = res["empty_table"]
    assert empty.rows == 0 and empty.primary_key == [] and empty.pk_source == "none" and empty.cached_values == 0


def test_profile_figures_exact_on_small_tables(shop):
    settings, _ = shop
    info = _catalog(settings, 'shop."Customers"')
    cols = {c["column"]: c for c in info["columns"]}
    assert info["rows"] == 300 and info["exact_profile"] is True
    assert cols["city"]["distinct"] == 6 and cols["city"]["null_frac"] == 0
    assert cols["fax"]["null_frac"] == 1.0 and cols["fax"]["distinct"] == 0
    assert cols["notes"]["null_frac"] == pytest.approx(0.9)
    assert cols["cust_id"]["min"] == "1" and cols["cust_id"]["max"] == "300"


def test_primary_keys_declared_inferred_and_composite(shop):
    _, res = shop
    assert (res["orders"].primary_key, res["orders"].pk_source) == (["order_no"], "declared")
    assert (res["Customers"].primary_key, res["Customers"].pk_source) == (["cust_id"], "inferred")
    assert (res["Order Items"].primary_key, res["Order Items"].pk_source) == (["order_no", "line_no"], "inferred")


def test_synonyms_and_aggregations(shop):
    settings, _ = shop
    items = {c["column"]: c for c in _catalog(settings, 'shop."Order Items"')["columns"]}
    orders = {c["column"]: c for c in _catalog(settings, "shop.orders")["columns"]}
    assert "quantity" in items["qty"]["synonyms"] and items["qty"]["aggregation"] == "SUM"
    assert items["unit_price"]["aggregation"] == "AVG"
    assert "total amount" in orders["total_amt"]["synonyms"] and orders["total_amt"]["aggregation"] == "SUM"
    assert "order date" in orders["order_dt"]["synonyms"] and orders["order_dt"]["aggregation"] == "MAX"
    assert "customer" in orders["cust_id"]["synonyms"] and orders["cust_id"]["aggregation"] == "COUNT"
    assert orders["status"]["aggregation"] == "STRING_AGG"


def test_foreign_keys_found_with_evidence(shop):
    settings, _ = shop
    with connect_store(settings) as store:
        rows = catalog_admin.list_joins(store, schema="shop")
    by_pair = {(j["from"], tuple(j["from_columns"]), j["to"], tuple(j["to_columns"])): j for j in rows}
    fk = by_pair[("shop.orders", ("cust_id",), "shop.Customers", ("cust_id",))]
    assert fk["status"] == "accepted" and fk["decided_by"] == "score" and fk["score"] >= joins.THRESHOLD
    assert fk["evidence"]["inclusion"] == 1.0 and fk["evidence"]["features"]["same_name"] == 1.0
    assert fk["cost"] == pytest.approx(CostModel().cost(600, 300), rel=1e-3)
    items = by_pair[("shop.Order Items", ("order_no",), "shop.orders", ("order_no",))]
    assert items["status"] == "accepted"
    # small quantities fall inside order numbers, but that is no foreign key
    qty = by_pair.get(("shop.Order Items", ("qty",), "shop.orders", ("order_no",)))
    assert qty is not None and qty["status"] == "rejected" and qty["evidence"]["inclusion"] == 1.0
    for j in rows:  # statuses follow the documented thresholds
        if j["decided_by"] == "score" and j["status"] == "rejected":
            assert j["score"] < joins.REVIEW_FLOOR or j["score"] < joins.THRESHOLD
    accepted_from = [(j["from"], tuple(j["from_columns"])) for j in rows if j["status"] == "accepted"]
    assert len(accepted_from) == len(set(accepted_from))  # one referenced column per referencing column


def test_value_cache_and_trigram_search(shop):
    settings, res = shop
    info = _catalog(settings, 'shop."Customers"')
    cols = {c["column"]: c for c in info["columns"]}
    assert sorted(res["Customers"].searchable) == ["Full Name", "city", "segment"]
    with psycopg.connect(settings.database_url.get_secret_value()) as conn:
        exact = dict(conn.execute('SELECT city, count(*) FROM shop."Customers" GROUP BY city').fetchall())
    assert {v["value"]: v["frequency"] for v in cols["city"]["top_values"]} == exact
    assert cols["city"]["top_values"][0]["value"] == "München"
    assert "e-mail" in cols["email"]["searchable_reason"] or "email" in cols["email"]["searchable_reason"]
    assert "long free text" in cols["notes"]["searchable_reason"]
    assert "NULL" in cols["fax"]["searchable_reason"]
    assert not cols["cust_id"]["searchable"]
    with connect_store(settings) as store:
        hits = search_values(store, "Munchen")
        assert hits[0]["value"] == "München" and hits[0]["column"] == "city"
        assert search_values(store, "zurich", table="shop.Customers")[0]["value"] == "Zürich"
        plan = store.execute("EXPLAIN SELECT value FROM sqlgenie.value_cache WHERE value % 'Munchen'").fetchall()
        assert plan  # the trigram operator is usable (GIN index value_cache_value_trgm_idx)


def test_unknown_table_names_closest(shop):
    settings, _ = shop
    with pytest.raises(UnknownTableError) as err:
        onboard_table("shop.custmers", settings=settings, options=OnboardOptions(llm=None))
    assert "shop.Customers" in err.value.hint
    with pytest.raises(UnknownTableError) as err:
        onboard_schema("shopp", settings=settings, options=OnboardOptions(llm=None))
    assert "shop" in err.value.hint
    with pytest.raises(InputError):
        onboard_table("shop.orders", settings=settings, options=OnboardOptions(llm=None, priority_metric="status"))


def test_quoted_and_case_insensitive_names(shop):
    settings, _ = shop
    res = onboard_table('shop."Order Items"', settings=settings, options=OnboardOptions(llm=None, measure_indexes=False))
    assert res.table == "Order Items"
    res = onboard_table("SHOP.ORDERS", settings=settings, options=OnboardOptions(llm=None, measure_indexes=False))
    assert res.table == "orders"


def _snapshot(settings) -> dict:
    with connect_store(settings) as store:
        return {
            "tables": store.execute("SELECT schema_name, table_name, row_estimate, primary_key, profile->'rows' FROM sqlgenie.catalog_tables ORDER BY 1, 2").fetchall(),
            "columns": store.execute("SELECT table_id, column_name, synonyms, n_distinct FROM sqlgenie.catalog_columns ORDER BY 1, 2").fetchall(),
            "values": store.execute("SELECT column_id, value, frequency FROM sqlgenie.value_cache ORDER BY 1, 2").fetchall(),
            "joins": store.execute("SELECT id, status, decided_by, score FROM sqlgenie.catalog_joins ORDER BY 1").fetchall(),
        }


def test_human_decisions_kept_and_interrupted_onboarding_leaves_catalog(settings, fresh_db_url, monkeypatch):
    _build(fresh_db_url)
    opts = OnboardOptions(llm=None, measure_indexes=False)
    onboard_schema("shop", settings=settings, options=opts)
    with connect_store(settings) as store:
        rows = {(j["from"], j["from_columns"][0], j["to"]): j for j in catalog_admin.list_joins(store, schema="shop")}
        fk = rows[("shop.orders", "cust_id", "shop.Customers")]
        qty = rows[("shop.Order Items", "qty", "shop.orders")]
        catalog_admin.decide_join(store, fk["id"], "rejected")
        catalog_admin.decide_join(store, qty["id"], "accepted")
        edited = catalog_admin.set_column(store, "shop.orders.total_amt", synonyms=["order value", "revenue"],
                                          aggregation="avg", mandatory=True)
    assert edited["human_fields"] == ["aggregation", "mandatory", "synonyms"] and edited["aggregation"] == "AVG"

    onboard_schema("shop", settings=settings, options=opts)  # re-onboarding is idempotent and keeps decisions
    with connect_store(settings) as store:
        after = {j["id"]: j for j in catalog_admin.list_joins(store, schema="shop")}
        cols = {c["column"]: c for c in catalog_admin.show_table(store, "shop.orders")["columns"]}
    assert (after[fk["id"]]["status"], after[fk["id"]]["decided_by"]) == ("rejected", "human")
    assert (after[qty["id"]]["status"], after[qty["id"]]["decided_by"]) == ("accepted", "human")
    assert cols["total_amt"]["synonyms"] == ["order value", "revenue"] and cols["total_amt"]["aggregation"] == "AVG"
    assert cols["total_amt"]["mandatory"] is True

    # interrupted onboarding: data changed, the write fails half-way -> previous catalog intact
    before = _snapshot(settings)
    with psycopg.connect(fresh_db_url, autocommit=True) as conn:
        conn.execute("""INSERT INTO shop."Customers" (cust_id, city) SELECT i, 'Wien' FROM generate_series(301, 400) i""")
        conn.execute('ANALYZE shop."Customers"')

    def boom(*args, **kwargs):
        raise RuntimeError("simulated crash while writing joins")

    monkeypatch.setattr(catalog_writer, "_write_joins", boom)
    with pytest.raises(RuntimeError):
        onboard_table('shop."Customers"', settings=settings, options=opts)
    assert _snapshot(settings) == before
    monkeypatch.undo()
    res = onboard_table('shop."Customers"', settings=settings, options=opts)
    assert res.rows == 400
    with connect_store(settings) as store:
        assert any(h["value"] == "Wien" for h in search_values(store, "Wien"))


def test_index_picks_benefit_nothing_applied_without_apply(settings, fresh_db_url):
    _build(fresh_db_url)
    with psycopg.connect(fresh_db_url, autocommit=True) as conn:
        conn.execute("""
            CREATE TABLE shop.events (event_id bigint PRIMARY KEY, cust_id integer NOT NULL, happened_at timestamp NOT NULL,
                                      kind text NOT NULL);
            INSERT INTO shop.events SELECT i, 1 + (i * 31) % 300, TIMESTAMP '2024-01-01' + i * INTERVAL '1 minute',
                   (ARRAY['view','click','buy'])[1 + i % 3] FROM generate_series(1, 30000) i;
            ANALYZE shop.events;
        """)
    opts = OnboardOptions(llm=None)
    onboard_table('shop."Customers"', settings=settings, options=opts)
    res = onboard_table("shop.events", settings=settings, options=opts)
    picks = {p["columns"][0]: p for p in res.index_picks}
    pick = picks["cust_id"]
    assert pick["ddl"] == 'CREATE INDEX CONCURRENTLY IF NOT EXISTS "sg_events_cust_id_idx" ON "shop"."events" ("cust_id")'
    assert pick["method"] == "rolled_back_build" and pick["benefit"] > 0.5 and pick["recommended"]
    assert pick["cost_after"] < pick["cost_before"] and "foreign-key join column" in pick["reasons"]
    assert res.partition["column"] == "happened_at" and res.partition["kind"] == "range"
    assert res.partition["recommended"] is False  # 30k rows: too small to benefit
    assert "PARTITION BY RANGE" in res.partition["ddl"]

    def indexes() -> list[str]:
        with psycopg.connect(fresh_db_url) as conn:
            return [r[0] for r in conn.execute("SELECT indexname FROM pg_indexes WHERE tablename = 'events'")]

    assert indexes() == ["events_pkey"]  # nothing applied silently, the measuring index was rolled back
    res = onboard_table("shop.events", settings=settings, options=OnboardOptions(llm=None, apply_indexes=True))
    assert "sg_events_cust_id_idx" in indexes()
    assert any(d.startswith("CREATE INDEX CONCURRENTLY") for d in res.applied_indexes)


def test_big_table_path_uses_statistics_and_tablesample(settings, fresh_db_url):
    _build(fresh_db_url)
    with psycopg.connect(fresh_db_url, autocommit=True) as conn:
        conn.execute("""
            CREATE TABLE shop.clicks (click_id bigint NOT NULL, cust_id integer NOT NULL, page text NOT NULL);
            INSERT INTO shop.clicks SELECT i, 1 + i % 300, 'page-' || (i % 50) FROM generate_series(1, 40000) i;
        """)
    opts = OnboardOptions(llm=None, exact_max_rows=1000, measure_indexes=False, top_values=20)
    onboard_table('shop."Customers"', settings=settings, options=OnboardOptions(llm=None, measure_indexes=False))
    res = onboard_table("shop.clicks", settings=settings, options=opts)
    assert not res.exact and res.rows == pytest.approx(40000, rel=0.05)
    # priority metric: values holding 99.9 % of the metric, largest first, with their metric sums
    pri = onboard_table("shop.orders", settings=settings,
                        options=OnboardOptions(llm=None, measure_indexes=False, priority_metric="total_amt"))
    with connect_store(settings) as store:
        cached = store.execute(
            "SELECT v.value, v.metric FROM sqlgenie.value_cache v JOIN sqlgenie.catalog_columns c ON c.id = v.column_id"
            " JOIN sqlgenie.catalog_tables t ON t.id = c.table_id WHERE t.table_name = 'orders' AND c.column_name = 'status'"
            " ORDER BY v.rank"
        ).fetchall()
    with psycopg.connect(fresh_db_url) as conn:
        exact = conn.execute("SELECT status, sum(total_amt)::float8 FROM shop.orders GROUP BY 1 ORDER BY 2 DESC").fetchall()
    assert pri.searchable == ["status"] and [v for v, _ in cached] == [v for v, _ in exact]
    assert [m for _, m in cached] == pytest.approx([m for _, m in exact])
    info = _catalog(settings, "shop.clicks")
    cols = {c["column"]: c for c in info["columns"]}
    assert info["sample_fraction"] is not None and info["sample_fraction"] <= 100
    assert cols["page"]["distinct"] == pytest.approx(50, rel=0.1) and cols["page"]["cached_values"] == 20
    assert res.primary_key == ["click_id"] and "estimated" in res.key_evidence["reason"]
    assert any(j["from"] == "shop.clicks" and j["from_columns"] == ["cust_id"] and j["status"] == "accepted"
               for j in res.joins)


def test_llm_synonyms_and_join_judge_with_scripted_provider(settings, fresh_db_url):
    _build(fresh_db_url)
    seen: list[str] = []

    def script(messages, system, stage):
        text = messages[-1].content
        seen.append(stage)
        if "synonyms" in text:
            return json.dumps({"qty": ["units", "pieces"], "unit_price": ["price each"]})
        if "candidate foreign keys" in text:
            lines = [json.loads(line) for line in text.splitlines() if line.startswith("{")]
            return json.dumps([
                {"id": c["id"], "verdict": "accept" if c["referencing"].endswith("order_no") and c["referenced"] == "orders.order_no"
                 else "reject", "reason": "scripted"} for c in lines
            ])
        return "{}"

    provider = ScriptedProvider(script)
    opts = OnboardOptions(measure_indexes=False)
    onboard_table("shop.orders", settings=settings, options=OnboardOptions(llm=None, measure_indexes=False))
    res = onboard_table('shop."Order Items"', settings=settings, options=opts, provider=provider)
    assert res.llm and set(seen) == {"onboarding"}
    items = {c["column"]: c for c in _catalog(settings, 'shop."Order Items"')["columns"]}
    assert "units" in items["qty"]["synonyms"] and "quantity" in items["qty"]["synonyms"]
    judged = {(j["from_columns"][0], j["to"]): j for j in res.joins if j["decided_by"] == "llm"}
    assert judged[("order_no", "shop.orders")]["status"] == "accepted"
    assert all(j["status"] == "rejected" for k, j in judged.items() if k != ("order_no", "shop.orders"))
    with connect_store(settings) as store:
        ev = [j["evidence"] for j in catalog_admin.list_joins(store) if j["decided_by"] == "llm"]
    assert ev and all(e["llm"]["reason"] == "scripted" for e in ev)


def test_calibrate_stores_model_and_recomputes_costs(settings, fresh_db_url):
    _build(fresh_db_url)
    onboard_schema("shop", settings=settings, options=OnboardOptions(llm=None, measure_indexes=False))
    cal = calibrate_costs(settings, sizes=(200, 1000, 4000), repeats=1)
    assert cal.model.source == "calibrated" and cal.model.k1 >= 0 and len([s for s in cal.samples if "ms" in s]) >= 6
    with connect_store(settings) as store:
        stored = store.execute("SELECT value FROM sqlgenie.store_settings WHERE key = 'join_cost_model'").fetchone()[0]
        j = store.execute(
            "SELECT j.cost, a.row_estimate, b.row_estimate FROM sqlgenie.catalog_joins j"
            " JOIN sqlgenie.catalog_tables a ON a.id = j.from_table_id JOIN sqlgenie.catalog_tables b ON b.id = j.to_table_id"
            " WHERE j.status = 'accepted' LIMIT 1"
        ).fetchone()
    assert stored["k1"] == pytest.approx(cal.model.k1)
    assert j[0] == pytest.approx(cal.model.cost(j[1], j[2]), rel=1e-6)
