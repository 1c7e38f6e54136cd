"""Gold literals that occur in no row (issue 13, measurement; ``sqlgenie.eval.gold_literals``).

A Spider-layout fixture loaded into the real embedded PostgreSQL: ``flights`` stores
airport codes with a leading space (``' APG'``, as Spider's ``flight_2`` does) and
``addresses`` stores ``'Haiti'`` while its golds say ``'APG'`` and ``'haiti'``. Such a gold
returns nothing, so an answer that filters on the stored value is wrong by execution; the
separate repaired reading rewrites the gold to the one stored value and scores again.
No repair when the literal is stored, nor when two stored values fold equal to it.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

DB = "air"


def _make(root: Path):
    from sqlgenie.eval.datasets import SpiderDataset

    db_dir = root / "database" / DB
    db_dir.mkdir(parents=True)
    conn = sqlite3.connect(db_dir / f"{DB}.sqlite")
    conn.executescript(
        """
        CREATE TABLE flights (flightno INTEGER PRIMARY KEY, sourceairport TEXT, destairport TEXT);
        CREATE TABLE addresses (address_id INTEGER PRIMARY KEY, country TEXT, city TEXT);
        INSERT INTO flights VALUES (1, ' APG', ' AHD'), (2, ' APG', ' ATO'), (3, ' AHD', ' APG'), (4, ' ATO', ' AHD');
        INSERT INTO addresses VALUES (1, 'Haiti', 'Paris'), (2, 'France', 'PARIS'), (3, 'Haiti', 'Lyon'),
                                     (4, 'Chad', 'Nice');
        """
    )
    conn.commit()
    conn.close()
    cols = [[-1, "*"], [0, "flightno"], [0, "sourceairport"], [0, "destairport"],
            [1, "address_id"], [1, "country"], [1, "city"]]
    (root / "tables.json").write_text(json.dumps([{
        "db_id": DB, "table_names_original": ["flights", "addresses"], "table_names": ["flights", "addresses"],
        "column_names_original": cols, "column_names": cols,
        "column_types": ["text", "number", "text", "text", "number", "text", "text"],
        "primary_keys": [1, 4], "foreign_keys": [],
    }]))
    questions = [
        {"db_id": DB, "question": "How many flights depart from APG?",
         "query": 'SELECT count(*) FROM flights WHERE sourceairport = "APG"'},
        {"db_id": DB, "question": "Which addresses are in haiti?",
         "query": "SELECT address_id FROM addresses WHERE country = 'haiti'"},
        {"db_id": DB, "question": "Which addresses are in Chad?",
         "query": "SELECT address_id FROM addresses WHERE country = 'Chad'"},
        {"db_id": DB, "question": "Which addresses are in paris?",
         "query": "SELECT address_id FROM addresses WHERE city = 'paris'"},
    ]
    (root / "dev.json").write_text(json.dumps(questions))
    return SpiderDataset(root)


@pytest.fixture()
def air(tmp_path: Path, settings):
    from sqlgenie.eval.runners import PostgresRunner
    from sqlgenie.eval.tasks import load_dataset
    from sqlgenie.store.connection import target_url

    ds = _make(tmp_path / "spider")
    url = target_url(settings)
    load_dataset(ds, url, accept_any_keys=True)
    pg = PostgresRunner(url, timeout_ms=10_000)
    yield ds, pg
    pg.close()


def _verdict(ds, pg, index: int, answer: str) -> dict:
    """The raw execution verdict and the repaired reading of ``answer`` (PostgreSQL)."""
    from sqlgenie.eval.gold_literals import repaired_verdict
    from sqlgenie.eval.tasks import _references, _score_prediction, run_gold
    from sqlgenie.eval.runners import SQLiteRunner

    q = ds.questions()[index]
    lite = SQLiteRunner(timeout_ms=10_000)
    refs = _references(ds, q, run_gold(ds, q, pg), lite)
    correct = _score_prediction(ds, q, {"sql": answer}, refs, pg, False, 1)["outcome"] == "correct"
    out = repaired_verdict(ds, q, answer, refs, pg, correct=correct)
    lite.close()
    return {"correct": correct, **out}


def test_a_gold_literal_stored_with_a_space_or_another_case_is_repaired(air):
    ds, pg = air
    schema = ds.schema_name(DB)
    v = _verdict(ds, pg, 0, "SELECT COUNT(*) FROM flights WHERE sourceairport = ' APG'")
    assert v["correct"] is False  # the gold's 'APG' is in no row: it counts 0 flights
    assert v["correct_gold_repaired"] is True
    [absent] = v["gold_literals_absent"]
    assert absent == {"column": "flights.sourceairport", "operator": "=", "literal": "APG", "stored": " APG",
                      "folded_matches": 1}

    v = _verdict(ds, pg, 1, "SELECT address_id FROM addresses WHERE country = 'Haiti'")
    assert v["correct"] is False and v["correct_gold_repaired"] is True
    assert v["gold_literals_absent"][0]["stored"] == "Haiti"

    # the repaired reading never rescues an answer that is wrong for another reason
    v = _verdict(ds, pg, 1, "SELECT address_id FROM addresses WHERE country = 'France'")
    assert v["correct"] is False and v["correct_gold_repaired"] is False

    # the rewrite is on the AST: the literal is replaced, nothing else
    from sqlgenie.eval.gold_literals import repair_gold

    fixed, _ = repair_gold("SELECT COUNT(*) FROM flights AS t WHERE t.sourceairport IN ('APG', 'x') "
                           "AND t.destairport <> 'AHD'", schema, pg)
    assert "' APG'" in fixed and "' AHD'" in fixed and "'x'" in fixed


def test_no_repair_when_the_literal_is_stored_or_two_stored_values_fold_equal(air):
    ds, pg = air
    from sqlgenie.eval.gold_literals import absent_literals, repair_gold

    schema = ds.schema_name(DB)
    # 'Chad' is stored as written: nothing is absent, nothing repaired
    v = _verdict(ds, pg, 2, "SELECT address_id FROM addresses WHERE country = 'France'")
    assert v == {"correct": False, "correct_gold_repaired": False}
    assert absent_literals("SELECT address_id FROM addresses WHERE country = 'Chad'", schema, pg) == []

    # 'paris' is in no row, but 'Paris' and 'PARIS' both fold to it: which one is unknown
    v = _verdict(ds, pg, 3, "SELECT address_id FROM addresses WHERE city = 'Paris'")
    assert v["correct"] is False and v["correct_gold_repaired"] is False
    [absent] = v["gold_literals_absent"]
    assert absent["stored"] is None and absent["folded_matches"] == 2
    assert repair_gold("SELECT address_id FROM addresses WHERE city = 'paris'", schema, pg)[0] is None

    # a LIKE pattern with a wildcard is a pattern, not a value
    assert absent_literals("SELECT address_id FROM addresses WHERE country LIKE 'hait%'", schema, pg) == []


def test_summary_keeps_the_raw_precision_and_adds_the_repaired_one():
    from sqlgenie.eval.gold_literals import gold_repaired_summary

    answered = [
        {"correct": True, "correct_gold_repaired": True},
        {"correct": False, "correct_gold_repaired": True,
         "gold_literals_absent": [{"literal": "APG", "stored": " APG"}]},
        {"correct": False, "correct_gold_repaired": False,
         "gold_literals_absent": [{"literal": "paris", "stored": None}]},
        {"correct": False, "correct_gold_repaired": False},
    ]
    s = gold_repaired_summary(answered, answered)
    assert s == {"gold_literal_absent": 1, "precision_gold_repaired": 0.5}
