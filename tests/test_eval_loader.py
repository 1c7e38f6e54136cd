"""Loader and evaluation tasks on a tiny Spider-layout dataset, against a real
embedded PostgreSQL (never mocked)."""

from __future__ import annotations

import json

import psycopg
import pytest
from test_eval_fixtures import make_defog_dataset, make_spider_dataset

from sqlgenie.eval.datasets import open_dataset
from sqlgenie.eval.tasks import execution_accuracy, gold_check, load_dataset, make_predictions, read_predictions


@pytest.fixture(scope="module")
def spider_dir(tmp_path_factory):
    return make_spider_dataset(tmp_path_factory.mktemp("spider"))


def _columns(url: str, schema: str, table: str) -> dict[str, str]:
    with psycopg.connect(url) as conn:
        rows = conn.execute(
            "SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = %s AND table_name = %s",
            (schema, table),
        ).fetchall()
    return dict(rows)


def _constraints(url: str, schema: str) -> set[tuple[str, str]]:
    with psycopg.connect(url) as conn:
        rows = conn.execute(
            "SELECT c.conrelid::regclass::text, c.contype::text FROM pg_constraint c"
            " JOIN pg_namespace n ON n.oid = c.connamespace WHERE n.nspname = %s",
            (schema,),
        ).fetchall()
    return set(rows)


def test_load_types_identifiers_keys_and_cache(spider_dir, fresh_db_url):
    ds = open_dataset(spider_dir)
    first = load_dataset(ds, fresh_db_url, keys="keep")
    by_db = {r["db_id"]: r for r in first.records}
    assert by_db["shop"]["status"] == "loaded" and by_db["shop"]["rows"] == 15
    assert by_db["ghost"]["status"] == "schema_only"
    assert first.summary["task"] == "load" and first.summary["databases"] == 2

    order = _columns(fresh_db_url, "shop", "order")
    assert order == {
        "order id": "integer",
        "customer id": "integer",
        "amount": "double precision",
        "qty": "integer",
        "group": "text",
        "created": "timestamp without time zone",
        "day": "date",
        "mixed": "text",  # INT column holding '' -> text, as SQLite stores it
        "price": "numeric",
        "naïve": "text",
    }
    assert _columns(fresh_db_url, "shop", "café menu") == {"prix €": "double precision", "Élan": "text"}
    assert "note" in _columns(fresh_db_url, "shop", "select")
    # missing database: empty tables from tables.json
    assert _columns(fresh_db_url, "ghost", "things") == {"thing id": "numeric", "owner": "numeric"}

    keys = _constraints(fresh_db_url, "shop")
    assert ('shop."order"', "p") in keys and ("shop.customer", "p") in keys
    assert ('shop."order"', "f") in keys and ('shop."select"', "f") in keys

    with psycopg.connect(fresh_db_url) as conn:
        rows = conn.execute('SELECT "naïve", mixed FROM shop."order" ORDER BY "order id"').fetchall()
        assert rows[0] == ("ü", "5") and rows[2] == (None, "")
        cached = conn.execute("SELECT count(*) FROM sqlgenie.eval_loads").fetchone()[0]
        assert cached == 2

    again = load_dataset(ds, fresh_db_url, keys="keep")
    assert {r["status"] for r in again.records} == {"cached"}
    assert again.summary["cached"] == 2

    dropped = load_dataset(ds, fresh_db_url, keys="drop", dbs={"shop"})
    assert dropped.records[0]["status"] == "loaded"
    assert _constraints(fresh_db_url, "shop") == set()
    assert _columns(fresh_db_url, "shop", "order")["mixed"] == "text"

    # the store migration that owns the same table stays applicable afterwards
    from sqlgenie.store.migrations import migrate

    with psycopg.connect(fresh_db_url, autocommit=True) as conn:
        migrate(conn)
        assert conn.execute("SELECT max(version) FROM sqlgenie.schema_migrations").fetchone()[0] >= 2


def test_gold_check_ex_and_shuffled(spider_dir, fresh_db_url, tmp_path):
    ds = open_dataset(spider_dir)
    load_dataset(ds, fresh_db_url, keys="drop")
    gc = gold_check(ds, fresh_db_url, timeout_ms=10_000)
    s = gc.summary
    assert s["task"] == "gold-check" and s["questions"] == 11 and s["skipped"] == 1
    bad = [r for r in gc.records if r.get("agree") is False]
    assert s["agree"] == 11, bad
    assert {r["index"] for r in gc.records} == set(range(12))

    gold = make_predictions(ds, fresh_db_url)
    pred_file = tmp_path / "gold.json"
    pred_file.write_text(json.dumps(gold.records), encoding="utf-8")
    result = execution_accuracy(ds, fresh_db_url, read_predictions(pred_file))
    assert result.summary["ex"] == 1.0 and result.summary["questions"] == 11
    assert result.summary["soft_f1"] == 1.0

    shuffled = make_predictions(ds, fresh_db_url, shuffle=True, seed=1)
    low = execution_accuracy(ds, fresh_db_url, {p["question_index"]: p for p in shuffled.records})
    assert low.summary["ex"] < 0.5
    assert low.summary["correct_rate"] + low.summary["incorrect_rate"] + low.summary["error_rate"] == pytest.approx(1.0)

    # predictions in SQLite dialect are transpiled; errors are bucketed; transitions
    raw = {q.index: {"question_index": q.index, "sql": q.gold_sql, "dialect": "sqlite"} for q in ds.questions() if q.db_id == "shop"}
    raw[0] = {"question_index": 0, "sql": "SELECT nope FROM customer"}
    raw[1] = {"question_index": 1, "sql": "SELECT count(*) FROM missing_table"}
    mixed = execution_accuracy(ds, fresh_db_url, raw, baseline={p["question_index"]: p for p in gold.records})
    ms = mixed.summary
    assert ms["correct"] == 9 and ms["errors"] == 2
    assert ms["error_buckets"]["no_such_column"] == 1 and ms["error_buckets"]["no_such_table"] == 1
    assert ms["transitions"]["correct_to_error_count"] == 2


def test_defog_load_gold_check_and_ex(tmp_path, fresh_db_url):
    ds = open_dataset(make_defog_dataset(tmp_path / "defog"))
    loaded = load_dataset(ds, fresh_db_url)
    schemas = {r["db_id"]: r["schema"] for r in loaded.records}
    assert schemas == {"tiny": "defog_tiny", "wallet": "consumer_div"}
    assert {r["status"] for r in load_dataset(ds, fresh_db_url).records} == {"cached"}
    gc = gold_check(ds, fresh_db_url)
    assert gc.summary["agree_rate"] == 1.0
    gold = make_predictions(ds, fresh_db_url)
    assert execution_accuracy(ds, fresh_db_url, {p["question_index"]: p for p in gold.records}).summary["ex"] == 1.0
    # any alternative counts: the second ';' alternative, and the {aid} subset
    preds = {
        0: {"question_index": 0, "sql": "SELECT DISTINCT aid FROM author WHERE oid IS NULL"},
        1: {"question_index": 1, "sql": "SELECT oid, COUNT(aid) FROM author GROUP BY oid"},
        2: {"question_index": 2, "sql": "SELECT 3"},
    }
    r = execution_accuracy(ds, fresh_db_url, preds)
    assert [rec["outcome"] for rec in r.records] == ["correct", "correct", "incorrect"]
