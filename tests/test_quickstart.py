"""The quickstart (`sqlgenie demo`) end to end on a real database."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from sqlgenie.quickstart import SAMPLE_QUERIES, run_quickstart


def test_quickstart_loads_once_and_answers_samples(settings):
    messages: list[str] = []
    first = run_quickstart(settings, scale=2000, progress=messages.append)
    assert first.demo["loaded_now"] is True
    assert first.demo["tables"]["order_items"] == 2000
    assert [a.question for a in first.samples] == [q for q, _ in SAMPLE_QUERIES]
    revenue = first.samples[0]
    assert revenue.columns == ["region_name", "revenue"] and 1 <= len(revenue.rows) <= 6
    assert all(row[1] > 0 for row in revenue.rows)
    assert len(first.samples[1].rows) == 5
    assert any("ロックポット" in row[0] for row in first.samples[2].rows)
    later: list[str] = []
    second = run_quickstart(settings, progress=later.append)  # reuses the loaded demo
    assert second.demo["loaded_now"] is False
    assert any("already loaded" in m for m in later)
    assert any("loading the demo" in m for m in messages)


def test_cli_demo_quickstart_json(fresh_db_url):
    env = dict(os.environ, SQLGENIE_DATABASE_URL=fresh_db_url)
    proc = subprocess.run([sys.executable, "-m", "sqlgenie", "demo", "--scale", "2000", "--json"],
                          capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    assert report["store"]["mode"] == "external"
    assert report["demo"]["tables"]["orders"] > 0
    assert len(report["samples"]) == len(SAMPLE_QUERIES)
