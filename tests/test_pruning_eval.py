"""``sqlgenie eval schema`` on the tiny Spider-layout fixture (awkward identifiers):
load + onboard + prune + metrics, through the library and the command."""

from __future__ import annotations

import json

import typer
from typer.testing import CliRunner

from test_eval_fixtures import make_spider_dataset


def test_eval_schema_library_and_command(tmp_path, settings):
    from sqlgenie.cli.eval_schema_cmd import schema
    from sqlgenie.inference.eval_schema import eval_schema, gold_items

    data = make_spider_dataset(tmp_path / "spider")
    result = eval_schema(data, settings=settings, dbs={"shop"}, curve=(0.05, 0.3, 0.9))
    s = result.summary
    assert s["task"] == "schema" and s["questions"] == 11 and s["databases"] == 1
    for key in ("column_recall", "column_precision", "table_recall", "kept_fraction", "full_coverage_rate"):
        assert 0.0 <= s[key] <= 1.0, key
    assert s["threshold"] == settings.prune_threshold
    # the pruned schema prompt is shorter than the whole schema's, never longer
    assert 0.0 < s["prompt_tokens_ratio"] <= 1.0
    assert s["kept_fraction"] < 1.0 and s["prompt_tokens_ratio"] < 1.0
    kept = [c["kept_fraction"] for c in s["curve"]]
    recall = [c["column_recall"] for c in s["curve"]]
    assert kept == sorted(kept, reverse=True) and recall == sorted(recall, reverse=True)
    records = [r for r in result.records if "recall" in r]
    assert sorted(r["index"] for r in records) == list(range(11))
    assert all(r["kept_columns"] <= r["total_columns"] for r in records)
    # "Customers in Paris": the value cache points at City
    paris = next(r for r in records if r["index"] == 1)
    assert paris["full_coverage"] and "shop.customer.city" in paris["value_hits"]

    # gold items through qualify: aliases resolved, quoted names folded like the loader
    from sqlgenie.catalog import load_catalog
    from sqlgenie.store import connect_store

    with connect_store(settings) as conn:
        catalog = load_catalog(conn, schemas=["shop"], search_path=("shop",))
    tables, columns = gold_items(
        'SELECT T1.Name, count(*) FROM Customer AS T1 JOIN "ORDER" AS T2 ON T1.id = T2."Customer ID" GROUP BY T1.id',
        catalog)
    assert tables == {"shop.customer", "shop.order"}
    assert columns == {("shop.customer", "name"), ("shop.customer", "id"), ("shop.order", "customer id")}

    # the command: same contract as the other eval commands (last stdout line is JSON)
    app = typer.Typer()
    app.command("schema")(schema)
    app.command("noop")(lambda: None)  # a group, so "schema" is a sub-command as under `sqlgenie eval`
    out = tmp_path / "schema.jsonl"
    run = CliRunner().invoke(app, ["schema", "--dataset", str(data), "--dbs", "shop", "--threshold", "0.5",
                                   "--out", str(out)])
    assert run.exit_code == 0, run.output
    summary = json.loads(run.stdout.strip().splitlines()[-1])
    assert summary["task"] == "schema" and summary["threshold"] == 0.5 and summary["llm"] is False
    lines = [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines() if x.strip()]
    assert len([r for r in lines if "recall" in r]) == 11
    bad = CliRunner().invoke(app, ["schema", "--dataset", str(data), "--keys", "maybe"])
    assert bad.exit_code != 0


def test_prompt_tokens_counts_words_numbers_and_marks():
    from sqlgenie.inference.eval_schema import prompt_tokens

    assert prompt_tokens("singer(singer_id integer, name text) PK(singer_id)") == 16
    assert prompt_tokens("") == 0


def test_fit_pipeline_on_fixture(tmp_path, settings):
    """cross_validate / choose_threshold / recentre on the fixture (its one database
    counted twice, so two folds by database exist)."""
    import dataclasses

    from sqlgenie.eval.datasets import open_dataset
    from sqlgenie.inference import eval_schema as es
    from sqlgenie.inference.pruning import FEATURES

    dataset = open_dataset(make_spider_dataset(tmp_path / "spider"))
    questions, _ = es._questions(dataset, None, {"shop"}, None)
    catalogs = es.prepare_catalogs(dataset, settings, {"shop"})
    pruners = es._make_pruners(catalogs, settings, None)
    items, _ = es.collect(dataset, questions, pruners, catalogs)
    twin = [dataclasses.replace(s, db_id="shop2") for s in items]
    pruners["shop2"] = pruners["shop"]
    weights = es.fit_weights(items + twin, pruners, size_weight=0.0)
    assert set(weights) == {"bias", *FEATURES} and weights["is_join"] == 0.0
    raised = es.fit_weights(items + twin, pruners, size_weight=1.0)
    assert abs(raised["log_db_cols"] - weights["log_db_cols"] - 1.0) < 1e-9
    oof, folds = es.cross_validate(items + twin, pruners, folds=2)
    assert sorted(set(folds)) == [0, 1] and len(oof) == 2 * len(items)
    assert all(len(sc) == len(pruners["shop"].cols) and ((0 <= sc) & (sc <= 1)).all() for sc in oof)
    delta, at = es.choose_threshold(items + twin, pruners, oof, 0.5)
    assert at["column_recall"] >= 0.5 and 0.0 < delta < 1.0
    # re-centring maps the chosen δ onto the default: the same columns are kept
    moved = es.recentre(raised, delta, 0.3)
    before = es.model_scores(items, raised)
    after = es.model_scores(items, moved)
    assert all(((b >= delta) == (a >= 0.3 - 1e-9)).all() for b, a in zip(before, after))


def test_rank_features_order_columns_overall_and_within_their_table():
    import numpy as np

    from sqlgenie.inference.pruning import FEATURES, WEIGHTS, _group_ranks, _ranks

    x = np.asarray([0.2, 0.9, 0.5, 0.9, 0.1], dtype=np.float32)
    assert _ranks(x).tolist() == [3.0, 0.0, 2.0, 1.0, 4.0]  # ties by position
    groups = np.asarray([1, 0, 1, 0, 1])
    assert _group_ranks(x, groups).tolist() == [1.0, 0.0, 0.0, 1.0, 2.0]
    # fitted, and a better rank never lowers the score (-log(1 + rank) has positive weights)
    for f in ("emb_rank", "tab_rank", "col_rank_in_tab"):
        assert f in FEATURES and WEIGHTS[f] > 0.0
