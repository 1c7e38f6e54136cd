"""``sqlgenie eval critic`` on the tiny Spider-layout fixture: recorded (SQLite
dialect) predictions scored by the eval harness before and after the critic's
exact repairs, through the command (last stdout line JSON, --out JSONL)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from test_eval_fixtures import make_spider_dataset, missing_predictions_error

PREDICTIONS = [
    {"index": 0, "db_id": "shop", "sql": "SELECT count(*) FROM customers", "dialect": "sqlite"},  # no such table
    {"index": 1, "db_id": "shop", "sql": "SELECT name FROM customer WHERE city = 'PARIS'", "dialect": "sqlite"},
    {"index": 3, "db_id": "shop", "sql": 'SELECT "Order ID", amount FROM "Order" ORDER BY amount DESC LIMIT 1',
     "dialect": "sqlite"},  # right
    {"index": 5, "db_id": "shop", "sql": 'SELECT count(*) FROM "Order"', "dialect": "sqlite"},  # wrong, unflagged
]


def test_eval_critic_command(tmp_path, fresh_db_url):
    data = make_spider_dataset(tmp_path / "spider")
    preds = tmp_path / "preds.jsonl"
    preds.write_text("\n".join(json.dumps(p) for p in PREDICTIONS) + "\n", encoding="utf-8")
    out = tmp_path / "critic.jsonl"
    env = dict(os.environ, SQLGENIE_DATABASE_URL=fresh_db_url)
    proc = subprocess.run(
        [sys.executable, "-m", "sqlgenie", "eval", "critic", "--dataset", str(data), "--predictions", str(preds),
         "--out", str(out)],
        capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    s = json.loads(proc.stdout.strip().splitlines()[-1])
    assert s["task"] == "critic" and s["questions"] == 4 and s["catalog_keys"] == "keep"
    assert s["ex_before"] == 0.25 and s["ex_after"] == 0.75
    assert s["flagged"] == 2 and s["flag_precision"] == 1.0 and s["flag_recall"] == round(2 / 3, 4)
    assert s["i2c"] == 2 and s["c2i"] == 0 and s["repaired"] == 2
    assert s["by_check"]["empty_result_value"]["flagged"] == 1 and s["by_check"]["binds"]["precision"] == 1.0
    records = {r["index"]: r for r in (json.loads(line) for line in out.read_text().splitlines()) if "outcome_before" in r}
    assert records[1]["outcome_before"] == "incorrect" and records[1]["outcome_after"] == "correct"
    assert "'Paris'" in records[1]["repaired_sql"] and records[1]["checks"] == ["empty_result_value"]
    assert records[0]["checks"] == ["binds", "executes"] and "customer" in records[0]["repaired_sql"]
    assert records[3]["flagged"] is False and records[3]["outcome_after"] == "correct"
    assert records[5]["flagged"] is False and records[5]["outcome_after"] == "incorrect"
    assert "EX 0.2500 -> 0.7500" in proc.stderr


def test_eval_critic_bad_input_is_a_clear_error(tmp_path, fresh_db_url):
    assert "does not exist" in missing_predictions_error("critic", tmp_path, fresh_db_url)


def test_eval_critic_library(tmp_path, settings):
    from sqlgenie.eval.datasets import open_dataset
    from sqlgenie.inference.critic.evaluate import eval_critic

    data = make_spider_dataset(tmp_path / "spider")
    preds = tmp_path / "preds.jsonl"
    preds.write_text("\n".join(json.dumps(p) for p in PREDICTIONS) + "\n", encoding="utf-8")
    done = []
    result = eval_critic(open_dataset(data), preds, settings=settings, progress=lambda d, n: done.append((d, n)))
    s = result.summary
    assert (s["questions"], s["ex_before"], s["ex_after"], s["flagged"], s["i2c"], s["c2i"]) == (4, 0.25, 0.75, 2, 2, 0)
    assert s["flag_precision"] == 1.0 and s["by_check"]["repair:values"]["i2c"] == 1
    assert s["by_check"]["repair:identifiers"]["i2c"] == 1 and done[-1] == (4, 4)
    # the ghost database has no file: its question is skipped, not scored
    assert any(r.get("skipped") for r in result.records)
