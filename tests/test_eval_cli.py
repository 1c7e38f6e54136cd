"""CLI contract of ``sqlgenie eval``: the last stdout line is one JSON object with
"task"; ``--out`` writes JSONL records carrying the question index."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from test_eval_fixtures import make_spider_dataset


def _run(args: list[str], db_url: str, cwd) -> tuple[dict, str]:
    env = dict(os.environ, SQLGENIE_DATABASE_URL=db_url)
    proc = subprocess.run(
        [sys.executable, "-m", "sqlgenie", "eval", *args], capture_output=True, text=True, env=env, cwd=cwd, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    last = proc.stdout.strip().splitlines()[-1]
    return json.loads(last), proc.stderr


def _jsonl(path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_eval_cli_contract(tmp_path, fresh_db_url):
    data = make_spider_dataset(tmp_path / "spider")

    summary, _ = _run(["load", "--dataset", str(data), "--keys", "drop", "--out", str(tmp_path / "load.jsonl")], fresh_db_url, tmp_path)
    assert summary["task"] == "load" and summary["databases"] == 2 and summary["loaded"] == 1
    assert {r["db_id"] for r in _jsonl(tmp_path / "load.jsonl")} == {"shop", "ghost"}

    out = tmp_path / "gold.jsonl"
    summary, _ = _run(["gold-check", "--dataset", str(data), "--limit", "5", "--out", str(out)], fresh_db_url, tmp_path)
    assert summary["task"] == "gold-check"
    assert {"questions", "agree", "agree_rate"} <= set(summary)
    assert summary["questions"] == 5 and summary["agree_rate"] == 1.0
    records = _jsonl(out)
    assert [r["index"] for r in records if "agree" in r] == [0, 1, 2, 3, 4]

    preds = tmp_path / "preds.jsonl"
    summary, _ = _run(["preds", "--dataset", str(data), "--dbs", "shop", "--out", str(preds)], fresh_db_url, tmp_path)
    assert summary["task"] == "preds" and summary["questions"] == 11

    ex_out = tmp_path / "ex.jsonl"
    summary, _ = _run(["ex", "--dataset", str(data), "--pred", str(preds), "--out", str(ex_out)], fresh_db_url, tmp_path)
    assert summary["task"] == "ex"
    assert {"questions", "ex", "correct_rate", "incorrect_rate", "error_rate"} <= set(summary)
    assert summary["ex"] == 1.0 and summary["llm"] is False
    records = _jsonl(ex_out)
    scored = [r for r in records if "outcome" in r]
    assert len(scored) == 11 and all(r["outcome"] == "correct" for r in scored)
    assert sorted(r["index"] for r in scored) == list(range(11))


def test_eval_cli_errors_are_clear(tmp_path, fresh_db_url):
    env = dict(os.environ, SQLGENIE_DATABASE_URL=fresh_db_url)
    proc = subprocess.run(
        [sys.executable, "-m", "sqlgenie", "eval", "gold-check", "--dataset", str(tmp_path / "nowhere")],
        capture_output=True, text=True, env=env, cwd=tmp_path, timeout=60,
    )
    assert proc.returncode == 2
    assert "does not exist" in " ".join(proc.stderr.split())
