"""The quickstart (`sqlgenie demo`) end to end on a real database: demo, onboarding,
seed bank, then questions that are not in the bank answered with no LLM."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from sqlgenie.quickstart import DEMO_QUESTIONS, run_quickstart


def test_quickstart_onboards_imports_and_answers_new_questions(settings):
    messages: list[str] = []
    first = run_quickstart(settings, scale=2000, progress=messages.append)
    assert first.demo["loaded_now"] is True and first.demo["tables"]["order_items"] == 2000
    assert first.onboarding["onboarded_now"] is True and first.onboarding["tables"] == 6
    assert first.bank["imported_now"] is True and first.bank["pairs"] >= 40 and not first.bank["rejected"]
    answers = {a["question"]: a for a in first.answers}
    assert list(answers) == list(DEMO_QUESTIONS)
    for question in DEMO_QUESTIONS[:-1]:
        a = answers[question]
        assert a["status"] == "ok" and a["route"] == "match" and a["method"] == "adapt", (question, a["message"])
        assert a["executed"] and a["id"] > 0 and a["examples"]
    assert "'2023-01-01'" in answers["How many orders were placed in 2023?"]["sql"]
    assert "'Palo Alto'" in answers["Total revenue from stores in Palo Alto"]["sql"]
    rockpot = answers["How many units of rockpot headphone were sold?"]
    assert "'Rockpot'" in rockpot["sql"] and any(c["corrector"] == "values" for c in rockpot["corrections"])
    assert answers["Which 3 products sold the most units in 2024?"]["sql"].rstrip().endswith("LIMIT 3")
    assert answers["Give me the number of customers in the Corporate segment"]["similarity"] < 1.0
    refused = answers[DEMO_QUESTIONS[-1]]
    assert refused["status"] == "refused" and refused["route"] == "think" and refused["think"]["nearest"]

    later: list[str] = []
    second = run_quickstart(settings, progress=later.append)  # reuses everything
    assert second.demo["loaded_now"] is False and second.onboarding["onboarded_now"] is False
    assert second.bank["imported_now"] is False
    assert [a["sql"] for a in second.answers] == [a["sql"] for a in first.answers]
    assert any("already loaded" in m for m in later) and any("already onboarded" in m for m in later)
    assert any("loading the demo" in m for m in messages)
    assert Path(first.instructions_file).is_file()  # the user-editable LLM instructions


def test_cli_demo_quickstart_json(fresh_db_url):
    env = dict(os.environ, SQLGENIE_DATABASE_URL=fresh_db_url)
    proc = subprocess.run([sys.executable, "-m", "sqlgenie", "demo", "--scale", "2000", "--json"],
                          capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    assert report["store"]["mode"] == "external"
    assert report["demo"]["tables"]["orders"] > 0
    assert len(report["answers"]) == len(DEMO_QUESTIONS)
    assert sum(a["status"] == "ok" for a in report["answers"]) == len(DEMO_QUESTIONS) - 1
