"""`eval autocorrect` on a tiny Spider-layout dataset (real sqlite file, real PostgreSQL)."""

from __future__ import annotations

import json
import random
import sqlite3

from sqlgenie.autocorrect.eval_autocorrect import PERTURBATION_KINDS, eval_autocorrect, perturb, simple_onboard
from sqlgenie.eval.datasets import SpiderDataset


def test_perturbations_are_deterministic_and_cover_the_kinds():
    a = perturb("United Airlines", random.Random("0:1"))
    assert a == perturb("United Airlines", random.Random("0:1"))
    assert [k for k, _ in a] == list(PERTURBATION_KINDS)
    got = dict(a)
    assert got["case"] == "united airlines" and got["plural"] == "United Airline" and got["space"] == "United Airlines "
    assert got["word"] in ("United", "Airlines") and got["typo"] != "United Airlines" and len(got["typo"]) == 15
    assert dict(perturb("dog", random.Random(1)))["plural"] == "dogs"
    assert dict(perturb("dog", random.Random(1)))["word"].startswith("dog ")
    assert perturb("1970", random.Random(1)) == []  # no letters: not perturbed


def _dataset(root):
    db_dir = root / "database" / "pets"
    db_dir.mkdir(parents=True)
    conn = sqlite3.connect(db_dir / "pets.sqlite")
    conn.executescript(
        """
        CREATE TABLE owner (owner_id INTEGER PRIMARY KEY, name TEXT, city TEXT);
        CREATE TABLE pet (pet_id INTEGER PRIMARY KEY, owner_id INTEGER, kind TEXT, weight REAL);
        INSERT INTO owner VALUES (1, 'Alice Martin', 'Paris'), (2, 'Bob Stone', 'Lyon'), (3, 'Carla Diaz', 'Nice ');
        INSERT INTO pet VALUES (1, 1, 'Dog', 12.5), (2, 1, 'Cat', 4.0), (3, 2, 'Dog', 30.0), (4, 3, 'Parrot', 0.4);
        """
    )
    conn.commit()
    conn.close()
    tables = [{
        "db_id": "pets",
        "table_names_original": ["owner", "pet"],
        "table_names": ["owner", "pet"],
        "column_names_original": [[-1, "*"], [0, "owner_id"], [0, "name"], [0, "city"], [1, "pet_id"],
                                  [1, "owner_id"], [1, "kind"], [1, "weight"]],
        "column_names": [[-1, "*"], [0, "owner id"], [0, "name"], [0, "city"], [1, "pet id"], [1, "owner id"],
                         [1, "kind"], [1, "weight"]],
        "column_types": ["text", "number", "text", "text", "number", "number", "text", "number"],
        "primary_keys": [1, 4],
        "foreign_keys": [[5, 1]],
    }]
    (root / "tables.json").write_text(json.dumps(tables))
    questions = [
        {"db_id": "pets", "question": "Pets of Alice Martin?",
         "query": "SELECT T2.kind FROM owner AS T1 JOIN pet AS T2 ON T1.owner_id = T2.owner_id WHERE T1.name = 'Alice Martin'"},
        {"db_id": "pets", "question": "How many dogs?", "query": "SELECT count(*) FROM pet WHERE kind = 'Dog'"},
        {"db_id": "pets", "question": "Owners in Nice?", "query": "SELECT name FROM owner WHERE city = 'Nice'"},
        {"db_id": "pets", "question": "Heavy pets?", "query": "SELECT pet_id FROM pet WHERE weight > 10"},
    ]
    (root / "dev.json").write_text(json.dumps(questions))
    return SpiderDataset(root)


def test_eval_autocorrect_end_to_end(tmp_path, fresh_db_url):
    ds = _dataset(tmp_path / "spider")
    records: list[dict] = []
    m = eval_autocorrect(ds, fresh_db_url, onboard=simple_onboard, records=records, seed=0)
    assert m["task"] == "autocorrect" and m["catalog_source"] == "simple_onboard"
    assert m["evaluated"] == 4 and m["gold_errors"] == 0
    # 'Nice' is stored as 'Nice ': the gold filter matches nothing; the chain fixes it, which changes the result.
    assert m["gold_missing_literal"] == 1 and m["gold_unchanged"] == 3
    assert m["gold_unchanged_rate"] == 0.75 and m["gold_unchanged_rate_existing_values"] == 1.0
    [gold] = [r for r in records if r["kind"] == "gold"]
    assert "'Nice '" in gold["corrected"] and gold["missing_literal"]
    assert m["perturbed"] >= 8 and m["restored_rate"] >= 0.75
    assert set(m["by_kind"]) == set(PERTURBATION_KINDS)
    assert all("restored" in r for r in records if r["kind"].startswith("perturb:"))
