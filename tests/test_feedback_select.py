"""Candidate selection (:mod:`sqlgenie.feedback.selection`) and ``sqlgenie eval
select`` on the tiny Spider-layout fixture (real PostgreSQL, recorded SQLite-dialect
predictions of three "systems")."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from decimal import Decimal

from test_eval_fixtures import make_spider_dataset, missing_predictions_error

from sqlgenie.feedback.selection import Candidate, degenerate, majority, select


def _c(rows, source, weight=1.0, findings=None, error=None):
    return Candidate(sql=f"-- {source}", source=source, rows=rows, error=error, weight=weight, findings=findings)


def test_degenerate_results():
    assert degenerate([]) and degenerate(None) and degenerate([(None, None)])
    assert degenerate([(0,)]) and degenerate([(Decimal("0"), None)])
    assert not degenerate([(3,)]) and not degenerate([(0,), (1,)]) and not degenerate([("0",)])
    assert not degenerate([(False,)])  # a boolean answer is an answer


def test_degenerate_cluster_loses_whatever_its_support():
    cands = [_c([(0,)], "a"), _c([(0,)], "b"), _c([(0,)], "c"), _c([(7,)], "d")]
    sel = select(cands)
    assert sel.winner == 3 and sel.runner_up == 0
    assert sel.clusters[1].degenerate and "zero result" in sel.clusters[1].reasons[0]
    assert majority(cands) == 0  # the plain vote takes the three zeros


def test_a_stray_answer_does_not_demote_a_well_supported_empty_result():
    # 20 samples agree on "no rows"; one odd sample returns a row: not a contender
    cands = [_c([], f"s{i}", 0.05) for i in range(20)] + [_c([(1,)], "odd", 0.05)]
    assert select(cands).winner == 0
    # a contender with a tenth of the support or more does demote it
    cands = [_c([], f"s{i}", 0.05) for i in range(9)] + [_c([(1,)], "other", 0.05)]
    assert select(cands).winner == 9


def test_all_degenerate_is_a_plain_vote_and_failed_candidates_are_out():
    cands = [_c([], "a"), _c([(None,)], "b"), _c([(None,)], "c"), _c(None, "d", error="boom")]
    sel = select(cands)
    assert sel.winner == 1 and not any(c.degenerate for c in sel.clusters)
    assert all(3 not in c.members for c in sel.clusters)
    assert select([_c(None, "x", error="boom")]).winner is None


def test_weights_and_critic_findings_score_clusters():
    # two weak votes against one strong one
    assert select([_c([(1,)], "a", 0.5), _c([(1,)], "b", 0.5), _c([(2,)], "c", 1.5)]).winner == 2
    # a warning shared by every member of the bigger cluster costs it the tie-break
    warn = [{"check": "fanout_aggregate", "severity": "warning", "message": "m"}]
    cands = [_c([(1,)], "a", 1.0, warn), _c([(2,)], "b", 1.0, [])]
    sel = select(cands)
    assert sel.winner == 1 and "critic warning: fanout_aggregate" in sel.clusters[1].reasons
    # a finding on one member only does not count against the cluster
    cands = [_c([(1,)], "a", 1.0, warn), _c([(1,)], "b", 1.0, []), _c([(2,)], "c", 1.0, [])]
    assert select(cands).winner == 0


# index -> SQL of three systems on the fixture (gold: tests/test_eval_fixtures.py QUESTIONS)
SYSTEMS = {
    0: ["SELECT count(*) FROM customer", "SELECT count(*) FROM Customer", "SELECT count(id) FROM customer"],
    # two systems filter on a year with no orders (a zero count); the third is right
    5: ["SELECT count(*) FROM \"Order\" WHERE Created LIKE '2019%'", "SELECT count(*) FROM \"Order\" WHERE Created LIKE '2018%'",
        "SELECT count(*) FROM \"Order\" WHERE Created LIKE '2021%'"],
    # the vote is right: two right, one wrong
    3: ['SELECT "Order ID", amount FROM "Order" ORDER BY amount DESC LIMIT 1',
        'SELECT "Order ID", amount FROM "Order" ORDER BY amount DESC LIMIT 1',
        'SELECT "Order ID", amount FROM "Order" ORDER BY amount ASC LIMIT 1'],
}


def _files(tmp_path):
    """One predictions file per system, indexed by position in the questions file of
    the three questions (dev order 0, 3, 5)."""
    paths = []
    for s in range(3):
        p = tmp_path / f"sys{s}.jsonl"
        p.write_text("\n".join(json.dumps({"index": pos, "db_id": "shop", "sql": SYSTEMS[i][s], "dialect": "sqlite"})
                               for pos, i in enumerate(sorted(SYSTEMS))) + "\n", encoding="utf-8")
        paths.append(p)
    return paths


def test_eval_select_command(tmp_path, fresh_db_url):
    data = make_spider_dataset(tmp_path / "spider")
    files = _files(tmp_path)
    questions = tmp_path / "spider" / "three.json"
    dev = json.loads((tmp_path / "spider" / "dev.json").read_text())
    questions.write_text(json.dumps([dev[i] for i in sorted(SYSTEMS)]), encoding="utf-8")
    out = tmp_path / "select.jsonl"
    env = dict(os.environ, SQLGENIE_DATABASE_URL=fresh_db_url)
    proc = subprocess.run(
        [sys.executable, "-m", "sqlgenie", "eval", "select", "--dataset", str(data), "--predictions", *map(str, files),
         "--questions", "three.json", "--weights", "equal", "--out", str(out)], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    s = json.loads(proc.stdout.strip().splitlines()[-1])
    assert s["task"] == "select" and s["questions"] == 3 and s["candidates_per_question"] == 3.0
    assert s["ex_selected"] == 1.0 and s["ex_majority"] == round(2 / 3, 4) and s["ex_oracle"] == 1.0
    assert s["ex_best_single"] == round(2 / 3, 4) and s["critic"] is True and s["degenerate_losers"] == 1
    records = [json.loads(line) for line in out.read_text().splitlines()]
    zero = next(r for r in records if r.get("selected_right") is not None and not r["majority_right"])
    assert zero["selected_source"] == "sys2" and zero["rule"] == "best-supported cluster"


def test_eval_select_bad_input_is_a_clear_error(tmp_path, fresh_db_url):
    assert "does not exist" in missing_predictions_error("select", tmp_path, fresh_db_url)
