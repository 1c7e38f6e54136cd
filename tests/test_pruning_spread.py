"""How far a benchmark of a few databases lands from the pruning operating point
(:mod:`sqlgenie.inference.operating_spread`): databases are resampled whole, recall is micro
over gold columns and kept the mean over questions, as ``eval schema`` reports them."""

from __future__ import annotations

import pytest

from test_eval_fixtures import make_spider_dataset


def _records(db: str, questions: int, gold: int, hits: int, kept: int, total: int) -> list[dict]:
    return [{"db_id": db, "gold_columns": gold, "recall": hits / gold if gold else 1.0,
             "kept_columns": kept, "total_columns": total} for _ in range(questions)]


def test_whole_figures_are_micro_recall_and_mean_kept_per_question():
    from sqlgenie.inference.operating_spread import database_spread

    # a: 3 questions, 2 of 2 gold kept, 5 of 10 columns; b: 1 question, 1 of 4 gold kept, 1 of 20 columns
    recs = _records("a", 3, 2, 2, 5, 10) + _records("b", 1, 4, 1, 1, 20)
    out = database_spread(recs, samples=50)
    assert out["databases"] == 2 and out["per_sample"] == 2 and out["replace"] is True
    assert out["column_recall"] == round(7 / 10, 4)
    assert out["kept_fraction"] == round((3 * 0.5 + 0.05) / 4, 4)


def test_drawing_every_database_without_replacement_has_no_spread():
    from sqlgenie.inference.operating_spread import database_spread

    recs = _records("a", 3, 2, 2, 5, 10) + _records("b", 1, 4, 1, 1, 20) + _records("c", 2, 3, 3, 9, 30)
    out = database_spread(recs, databases=3, replace=False, samples=20)
    assert out["column_recall_sd"] == 0.0 and out["kept_fraction_sd"] == 0.0
    assert out["column_recall_p5_p50_p95"] == [out["column_recall"]] * 3
    with pytest.raises(ValueError):
        database_spread(recs, databases=4, replace=False)


def test_spread_grows_when_databases_differ_and_target_share_follows():
    from sqlgenie.inference.operating_spread import database_spread

    alike = [r for i in range(10) for r in _records(f"d{i}", 5, 3, 3, 3, 10)]
    out = database_spread(alike, databases=4, replace=False, samples=200, target_recall=0.985, max_kept=0.35)
    assert out["column_recall_sd"] == 0.0 and out["meets_target"] == 1.0  # recall 1.0 at kept 0.30

    # half the databases miss a gold column and keep 0.5: samples mostly miss the target
    mixed = [r for i in range(10) for r in (_records(f"d{i}", 5, 3, 3, 3, 10) if i % 2 else _records(f"d{i}", 5, 3, 2, 5, 10))]
    out = database_spread(mixed, databases=4, replace=False, samples=500)
    assert out["column_recall_sd"] > 0.0 and out["kept_fraction_sd"] > 0.0
    lo, mid, hi = out["kept_fraction_p5_p50_p95"]
    assert lo < hi
    assert 0.0 <= out["meets_target"] < 0.2  # only the samples drawing no missing database meet it
    # records without a database (skipped questions) are ignored; none at all is an error
    assert database_spread(mixed + [{"index": 7, "skipped": "gold not parsed"}], samples=10)["databases"] == 10
    with pytest.raises(ValueError):
        database_spread([{"index": 7, "skipped": "gold not parsed"}])


def test_eval_schema_reports_the_spread_over_its_own_databases(tmp_path, settings):
    from sqlgenie.inference.eval_schema import eval_schema

    data = make_spider_dataset(tmp_path / "spider")
    s = eval_schema(data, settings=settings, dbs={"shop"}, curve=(0.3,)).summary
    spread = s["database_spread"]
    # one database, resampled with replacement: every sample is the run itself
    assert spread["databases"] == 1 and spread["replace"] is True
    assert spread["column_recall"] == s["column_recall"] and spread["kept_fraction"] == s["kept_fraction"]
    assert spread["column_recall_sd"] == 0.0 and spread["kept_fraction_sd"] == 0.0
    assert spread["target"] == {"column_recall": 0.985, "kept_fraction": 0.35}  # Spider's own target


def test_each_evaluation_set_is_read_against_its_own_target():
    from sqlgenie.inference.operating_spread import database_spread, target_for

    assert target_for("none") == {"target_recall": 0.985, "max_kept": 0.35}
    assert target_for("synonyms-aiksaurus") == target_for("synonyms") == {"target_recall": 0.97, "max_kept": 0.40}
    assert target_for("schema-only") == {"target_recall": 0.97, "max_kept": 0.40}
    assert target_for("none", defog=True) == {"target_recall": 0.97, "max_kept": 1.0}
    # recall 1.0 at kept 0.38: Spider dev's target missed, the synonym variant's met
    recs = _records("a", 2, 2, 2, 38, 100) + _records("b", 2, 2, 2, 38, 100)
    assert database_spread(recs, samples=20, **target_for("none"))["meets_target"] == 0.0
    assert database_spread(recs, samples=20, **target_for("synonyms"))["meets_target"] == 1.0


def test_fit_reports_how_a_benchmark_of_its_databases_would_read_the_point(tmp_path, settings):
    """``eval_schema fit``'s ``spread_of_benchmarks`` on the fixture (its one database counted
    twice): both drawn whole, so every sample is the whole set."""
    import dataclasses

    from sqlgenie.eval.datasets import open_dataset
    from sqlgenie.inference import eval_schema as es

    dataset = open_dataset(make_spider_dataset(tmp_path / "spider"))
    questions, _ = es._questions(dataset, None, {"shop"}, None)
    catalogs = es.prepare_catalogs(dataset, settings, {"shop"})
    pruners = es._make_pruners(catalogs, settings, None)
    items, _ = es.collect(dataset, questions, pruners, catalogs)
    twin = [dataclasses.replace(s, db_id="shop2") for s in items]
    pruners["shop2"] = pruners["shop"]
    scores = [pruners["shop"].score(s.features) for s in items + twin]
    spread = es.benchmark_spread(items + twin, pruners, 0.3, scores)
    whole = es.summarize(items + twin, pruners, 0.3, scores)
    assert spread["databases"] == 2 and spread["per_sample"] == 2 and spread["replace"] is False
    assert spread["column_recall"] == whole["column_recall"] and spread["kept_fraction"] == whole["kept_fraction"]
    assert spread["kept_fraction_sd"] == 0.0
