"""Pruning's operating point per situation: a database whose tables hold no rows (schema only)
scores with NO_VALUES_BIAS; one with rows does not (real PostgreSQL, real MiniLM)."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import psycopg
import pytest

from sqlgenie.catalog import Catalog, load_catalog
from sqlgenie.inference.pruning import (
    FEATURES,
    NO_VALUES_BIAS,
    WEIGHTS,
    SchemaPruner,
    holds_no_rows,
    situation,
)

DDL = """
CREATE SCHEMA {s};
CREATE TABLE {s}.singer (
    singer_id integer PRIMARY KEY, name text, country text, age integer, is_male boolean);
CREATE TABLE {s}.concert (
    concert_id integer PRIMARY KEY, concert_name text, theme text, year integer, stadium_id integer);
CREATE TABLE {s}.singer_in_concert (
    concert_id integer REFERENCES {s}.concert, singer_id integer REFERENCES {s}.singer,
    PRIMARY KEY (concert_id, singer_id));
CREATE TABLE {s}.stadium (
    stadium_id integer PRIMARY KEY, location text, name text, capacity integer, highest integer, average integer);
"""

ROWS = """
INSERT INTO {s}.singer SELECT g, 'Singer ' || g, (ARRAY['France','Chile','Japan'])[1 + g % 3], 20 + g, g % 2 = 0
FROM generate_series(1, 30) g;
INSERT INTO {s}.stadium SELECT g, 'Town ' || g, 'Stadium ' || g, 1000 * g, 900 * g, 500 * g FROM generate_series(1, 8) g;
INSERT INTO {s}.concert SELECT g, 'Concert ' || g, (ARRAY['Rock','Jazz'])[1 + g % 2], 2010 + g % 8, 1 + g % 8
FROM generate_series(1, 20) g;
INSERT INTO {s}.singer_in_concert SELECT 1 + g % 20, 1 + g % 30 FROM generate_series(1, 40) g ON CONFLICT DO NOTHING;
ANALYZE;
"""

QUESTIONS = [
    "What are the names of the vocalists from France?",
    "How many concerts took place in each year?",
    "Which stadium has the largest capacity?",
    "Show the performers of the gig named Concert 3 and how old they are.",
]


@pytest.fixture(scope="module")
def embedder():
    from example_bank.embedder import get_embedder

    return get_embedder()


@pytest.fixture(scope="module")
def catalogs(module_db_url: str, pg_data_dir):
    """The same four tables onboarded twice (no LLM): ``music`` with rows, ``music_so`` empty."""
    import os

    from onboarding.service import OnboardOptions, onboard_schema
    from sqlgenie.config import load_settings
    from sqlgenie.store.migrations import ensure_migrated

    os.environ["SQLGENIE_DATA_DIR"] = str(pg_data_dir)
    settings = load_settings(database_url=module_db_url)
    ensure_migrated(module_db_url)
    out = {}
    with psycopg.connect(module_db_url, autocommit=True) as conn:
        for schema, rows in (("music", True), ("music_so", False)):
            conn.execute(DDL.format(s=schema) + (ROWS.format(s=schema) if rows else ""))
            onboard_schema(schema, settings=settings, target=conn, store=conn, provider=None,
                           options=OnboardOptions(llm=None, measure_indexes=False))
            out[schema] = load_catalog(conn, schemas=[schema], search_path=(schema,))
        yield conn, out


def _logit(p: np.ndarray) -> np.ndarray:
    p = np.clip(p.astype(np.float64), 1e-9, 1 - 1e-9)
    return np.log(p / (1 - p))


def test_schema_only_database_takes_the_no_values_operating_point(catalogs, embedder):
    conn, cats = catalogs
    empty = cats["music_so"]
    assert all(t.row_estimate == 0 for t in empty.tables)  # onboarding's profile of empty tables
    assert holds_no_rows(empty)
    pruner = SchemaPruner(empty, embedder=embedder, value_matcher=conn, threshold=0.3)
    assert pruner.situation == "no_values"
    assert pruner.values is not None and pruner.values.count == 0  # no value cache either
    # the same catalog scored without the shift (bias moved back by hand): every logit is
    # exactly NO_VALUES_BIAS higher, and the default keeps a subset of what it keeps
    unshifted = SchemaPruner(empty, embedder=embedder, value_matcher=conn, threshold=0.3,
                             weights={**WEIGHTS, "bias": WEIGHTS["bias"] - NO_VALUES_BIAS})
    assert unshifted.situation == "no_values"
    smaller = False
    for q in QUESTIONS:
        X, _signals, _hits = pruner.features(q)
        diff = _logit(pruner.score(X)) - _logit(unshifted.score(X))
        assert np.allclose(diff, NO_VALUES_BIAS, atol=1e-3)
        for delta in (0.3, 0.4, 0.5):  # the default and two cuts above it (the shift moves every cut)
            a = pruner.prune(q, threshold=delta).kept_columns()
            b = unshifted.prune(q, threshold=delta).kept_columns()
            assert a <= b
            smaller |= len(a) < len(b)
    assert NO_VALUES_BIAS < 0 and smaller  # the shift keeps fewer columns on some question


def test_database_with_rows_keeps_the_default_operating_point(catalogs, embedder):
    conn, cats = catalogs
    full = cats["music"]
    assert all((t.row_estimate or 0) > 0 for t in full.tables)
    assert not holds_no_rows(full)
    pruner = SchemaPruner(full, embedder=embedder, value_matcher=conn, threshold=0.3)
    assert pruner.situation == "values"
    X, _signals, _hits = pruner.features(QUESTIONS[0])
    z = X.astype(np.float64) @ np.asarray([WEIGHTS.get(f, 0.0) for f in FEATURES]) + WEIGHTS["bias"]
    assert np.allclose(_logit(pruner.score(X)), z, atol=1e-3)  # no shift
    # its value cache feeds the value signal: "France" is a stored country
    assert any(h.key.endswith("singer.country") for h in pruner.features(QUESTIONS[0])[2])


def test_link_report_names_the_situation(catalogs, embedder):
    from sqlgenie.inference.value_linking import ValueLinker, link_and_prune

    conn, cats = catalogs
    for schema, situation in (("music_so", "no_values"), ("music", "values")):
        pruner = SchemaPruner(cats[schema], embedder=embedder, value_matcher=conn, threshold=0.3)
        report = link_and_prune(QUESTIONS[0], pruner=pruner, linker=ValueLinker(cats[schema], conn))
        assert report.situation == situation and report.to_json()["situation"] == situation
        if situation == "values":  # rows: "France" links to the stored country
            assert any(l.value == "France" for l in report.links)
        else:
            assert not report.links


def test_empty_tables_without_any_join_are_not_shifted(catalogs, embedder):
    """Several empty tables and no join at all (no declared keys: nothing to infer joins from):
    the join tree cannot add join columns, so the shift (chosen where it can) is not applied."""
    conn, cats = catalogs
    empty = cats["music_so"]
    assert empty.accepted_joins()  # declared keys: joins without rows
    assert situation(empty) == "no_values"
    bare = Catalog(empty.tables, (), empty.search_path)
    assert situation(bare) == "no_values_no_joins"
    pruner = SchemaPruner(bare, embedder=embedder, threshold=0.3)
    assert pruner.situation == "no_values_no_joins"
    X, _signals, _hits = pruner.features(QUESTIONS[1])
    z = X.astype(np.float64) @ np.asarray([WEIGHTS.get(f, 0.0) for f in FEATURES]) + WEIGHTS["bias"]
    assert np.allclose(_logit(pruner.score(X)), z, atol=1e-3)
    one = Catalog(empty.tables[:1], (), empty.search_path)  # one empty table: nothing to join
    assert situation(one) == "no_values"


def test_only_a_wholly_empty_catalog_counts_as_no_values(catalogs):
    _conn, cats = catalogs
    empty = cats["music_so"]
    one_filled = Catalog((replace(empty.tables[0], row_estimate=12),) + tuple(empty.tables[1:]),
                         empty.joins, empty.search_path)
    assert not holds_no_rows(one_filled)
    unknown = Catalog(tuple(replace(t, row_estimate=None) for t in empty.tables), empty.joins, empty.search_path)
    assert not holds_no_rows(unknown)  # an unknown estimate counts as rows
    assert not holds_no_rows(Catalog((), (), ()))
    assert math.isfinite(NO_VALUES_BIAS)


def test_no_values_bias_rule_on_fixture(tmp_path, settings):
    """eval_schema.no_values_bias (what `python -m sqlgenie.inference.eval_schema no-values`
    prints) on the tiny Spider fixture and its schema-only copy: the shift it returns makes
    the copy keep no more than the originals at δ*, and the copy's pruners are no-values ones."""
    import dataclasses

    from test_eval_fixtures import make_spider_dataset

    from sqlgenie.eval.datasets import open_dataset
    from sqlgenie.inference import eval_schema as es
    from sqlgenie.inference.eval_variants import schema_only_dataset

    dataset = open_dataset(make_spider_dataset(tmp_path / "spider"))
    questions, _ = es._questions(dataset, None, {"shop"}, None)
    catalogs = es.prepare_catalogs(dataset, settings, {"shop"})
    pruners = es._make_pruners(catalogs, settings, None)
    assert pruners["shop"].situation == "values"
    items, _ = es.collect(dataset, questions, pruners, catalogs)
    so_data = schema_only_dataset(dataset)
    so_catalogs = es.prepare_catalogs(so_data, settings, {"shop"}, keys="keep", schema_only=True)
    so_pruners = es._make_pruners(so_catalogs, settings, None)
    assert so_pruners["shop"].situation == "no_values"
    so_items, _ = es.collect(so_data, questions, so_pruners, so_catalogs)
    twin = [dataclasses.replace(s, db_id="shop2") for s in items]
    pruners["shop2"] = pruners["shop"]
    weights, fold_of = es.fold_weights(items + twin, pruners, folds=2)
    assert len(weights) == 2 and set(fold_of) == {"shop", "shop2"}
    out = es.no_values_bias(items, pruners, so_items, so_pruners, weights, fold_of, target_recall=0.9)
    ref = out["originals"]["kept_fraction"]
    assert out["schema_only_with_shift"]["kept_fraction"] <= ref
    if out["schema_only_no_shift"]["kept_fraction"] > ref:
        assert out["no_values_bias"] < 0
    else:
        assert out["no_values_bias"] > -1e-3  # already within the budget: no downward shift
