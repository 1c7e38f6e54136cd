"""Distinguishing databases (:mod:`sqlgenie.feedback.distinguish`) on a real
PostgreSQL: a tiny onboarded schema (catalog, keys, frequent-value cache), two
candidates that agree on the real data but not on the built rows are told apart
with evidence, equivalent ones are not, the scripted judge's pick is used by
selection, and no scratch schema is left behind."""

from __future__ import annotations

import os
import subprocess
import sys

import psycopg
import pytest

from sqlgenie.config import load_settings
from sqlgenie.executor import SafeExecutor
from sqlgenie.feedback.distinguish import SCRATCH_PREFIX, Distinguisher, parse_verdict
from sqlgenie.feedback.selection import Candidate, same_result, select
from sqlgenie.llm.scripted import ScriptedProvider

CITIES = ["Boston", "Chicago", "Denver", "Austin"]


def _create_schema(url: str) -> None:
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("CREATE SCHEMA shop")
        conn.execute("CREATE TABLE shop.customers (id integer PRIMARY KEY, name text NOT NULL, city text NOT NULL)")
        conn.execute("CREATE TABLE shop.orders (id integer PRIMARY KEY,"
                     " customer_id integer NOT NULL REFERENCES shop.customers (id),"
                     " amount numeric(10,2) NOT NULL, status text NOT NULL)")
        with conn.cursor() as cur:
            cur.executemany("INSERT INTO shop.customers VALUES (%s, %s, %s)",
                            [(i, f"Customer {i}", CITIES[i % 4]) for i in range(1, 41)])
            # one order per customer, every order delivered: count(*) = count(DISTINCT customer_id),
            # and a filter on status keeps every row
            cur.executemany("INSERT INTO shop.orders VALUES (%s, %s, %s, %s)",
                            [(i, i, 10 + (i * 37) % 500, "delivered") for i in range(1, 41)])
        conn.execute("ANALYZE shop.customers")
        conn.execute("ANALYZE shop.orders")


@pytest.fixture(scope="module")
def shop(module_db_url):
    from onboarding.service import OnboardOptions, onboard_schema
    from sqlgenie.catalog import load_catalog
    from sqlgenie.store import connect_store

    _create_schema(module_db_url)
    settings = load_settings(database_url=module_db_url)
    onboard_schema("shop", settings=settings, options=OnboardOptions(llm=None))
    with connect_store(settings) as store:
        catalog = load_catalog(store, schemas=["shop"], search_path=("shop", "public"))
    assert catalog.table("orders") is not None and catalog.accepted_joins()
    return module_db_url, catalog


def _scratch_left(url: str) -> list[str]:
    with psycopg.connect(url, autocommit=True) as conn:
        return [r[0] for r in conn.execute("SELECT nspname FROM pg_namespace WHERE nspname LIKE %s",
                                           (SCRATCH_PREFIX + "%",)).fetchall()]


def _real(url: str, sql: str, source: str, weight: float = 1.0) -> Candidate:
    with SafeExecutor(url) as ex:
        run = ex.run(sql, search_path=["shop", "public"])
    return Candidate(sql=sql, source=source, rows=[tuple(r) for r in run.rows], columns=list(run.columns),
                     weight=weight)


def test_count_star_and_count_distinct_told_apart_on_rows_that_respect_the_keys(shop):
    url, catalog = shop
    a = "SELECT count(DISTINCT o.customer_id) FROM shop.orders o"
    b = "SELECT count(*) FROM orders o JOIN customers c ON c.id = o.customer_id"
    assert same_result(_real(url, a, "a"), _real(url, b, "b"))  # 40 = 40 on the real data
    d = Distinguisher(url, catalog, question="How many customers placed an order?")
    ev = d.distinguish(a, b, labels=("distinct", "star"))
    assert ev["distinguished"] is True and ev["pair"] == ["distinct", "star"], ev
    (ra,), (rb,) = ev["results"][0]["rows"], ev["results"][1]["rows"]
    assert ra[0] < rb[0]  # repeated customers in the built orders
    customers, orders = ev["tables"]["shop.customers"], ev["tables"]["shop.orders"]
    ids = [r[customers["columns"].index("id")] for r in customers["rows"]]
    assert len(ids) == len(set(ids)) and None not in ids  # primary key
    oid = [r[orders["columns"].index("id")] for r in orders["rows"]]
    refs = [r[orders["columns"].index("customer_id")] for r in orders["rows"]]
    assert len(oid) == len(set(oid)) and set(refs) <= set(ids)  # foreign key respected (NOT NULL: no NULL)
    assert len(orders["rows"]) >= 2 and ra[0] == len(set(refs)) and rb[0] == len(refs)
    assert _scratch_left(url) == []


def test_filter_on_an_always_true_column_is_told_apart(shop):
    url, catalog = shop
    a = "SELECT count(*) FROM shop.orders WHERE status = 'delivered'"
    b = "SELECT count(*) FROM shop.orders"
    assert same_result(_real(url, a, "a"), _real(url, b, "b"))
    d = Distinguisher(url, catalog, question="How many orders were delivered?")
    ev = d.distinguish(a, b)
    assert ev["distinguished"] is True, ev
    orders = ev["tables"]["shop.orders"]
    statuses = {r[orders["columns"].index("status")] for r in orders["rows"]}
    assert statuses - {"delivered"}  # a status the real data never has
    (ra,), (rb,) = ev["results"][0]["rows"], ev["results"][1]["rows"]
    assert ra[0] == sum(1 for r in orders["rows"] if r[orders["columns"].index("status")] == "delivered")
    assert rb[0] == len(orders["rows"]) > ra[0]
    assert _scratch_left(url) == []


def test_query_constants_split_a_strict_and_a_loose_comparison(shop):
    url, catalog = shop
    # no amount is exactly 260 on the real data: > and >= agree there
    a = "SELECT count(*) FROM shop.orders WHERE amount > 260"
    b = "SELECT count(*) FROM shop.orders AS o WHERE o.amount >= 260"
    with psycopg.connect(url) as conn:
        assert conn.execute("SELECT count(*) FROM shop.orders WHERE amount = 260").fetchone()[0] == 0
    assert same_result(_real(url, a, "a"), _real(url, b, "b"))
    ev = Distinguisher(url, catalog, question="How many orders are over 260?").distinguish(a, b)
    assert ev["distinguished"] is True, ev
    orders = ev["tables"]["shop.orders"]
    amounts = [r[orders["columns"].index("amount")] for r in orders["rows"]]
    assert any(str(v) in ("260", "260.00") for v in amounts)  # the constant itself separates them


def test_pools_hold_linked_values_constants_cached_values_and_an_outsider(shop):
    url, catalog = shop
    from sqlgenie.autocorrect.base import parse_sql
    from sqlgenie.feedback.distinguish import _query_literals

    d = Distinguisher(url, catalog, question="orders of customers in Denver over 100",
                      linked=[("shop.customers.city", "Denver"), ("shop.orders.amount", "100")])
    trees = [parse_sql("SELECT c.name FROM shop.customers c WHERE c.name LIKE 'Cust%' AND c.id IN (3, 4)")]
    tables, missing = d._tables(trees)
    assert not missing and set(tables) == {"shop.customers"}
    tables.update(d._tables([parse_sql("SELECT 1 FROM shop.orders")])[0])
    pools = d._pools(tables, _query_literals(catalog, trees, tables))
    city = pools[("shop.customers", "city")]
    assert city[0] == "Denver" and set(CITIES) <= set(city) and "other city" in city  # linked, cached, outsider
    assert {99, 100, 101} <= {int(v) for v in pools[("shop.orders", "amount")]}  # linked number and neighbours
    assert {3, 4} <= set(pools[("shop.customers", "id")]) and "Cust" in pools[("shop.customers", "name")]
    assert "delivered" in pools[("shop.orders", "status")] and "other status" in pools[("shop.orders", "status")]


@pytest.mark.parametrize("a, b", [
    ("SELECT count(*) FROM shop.orders", "SELECT count(id) FROM shop.orders"),
    ("SELECT id FROM shop.orders WHERE amount > 100", "SELECT o.id FROM shop.orders AS o WHERE NOT o.amount <= 100"),
    ("SELECT c.name FROM shop.customers c WHERE c.id IN (SELECT customer_id FROM shop.orders)",
     "SELECT c.name FROM shop.customers c WHERE EXISTS (SELECT 1 FROM shop.orders o WHERE o.customer_id = c.id)"),
])
def test_equivalent_queries_give_no_distinction(shop, a, b):
    url, catalog = shop
    d = Distinguisher(url, catalog, question="q", seeds=12)
    ev = d.distinguish(a, b)
    assert ev["distinguished"] is False and ev["tries"] == 12, ev
    assert "probably equivalent" in ev["note"] and ev["results"] == []
    assert _scratch_left(url) == []


def test_scripted_judge_pick_is_used_by_selection(shop):
    url, catalog = shop
    cands = [_real(url, "SELECT count(*) FROM shop.orders o JOIN shop.customers c ON c.id = o.customer_id", "star"),
             _real(url, "SELECT count(DISTINCT o.customer_id) FROM shop.orders o", "distinct")]
    cands[1].rows = [(39,)]  # pretend the real data told them apart (two clusters, equal support)
    assert select(cands).winner == 0  # without a judge: the earliest of two equal clusters

    # asked twice, the second time with the queries swapped: "B" then "A" both name the DISTINCT query
    llm = ScriptedProvider(["B\nThe question counts customers, so duplicates must not count.", "A"])
    d = Distinguisher(url, catalog, question="How many customers placed an order?", llm=llm)
    sel = select(cands, distinguish=d.hook)
    assert sel.winner == 1 and sel.runner_up == 0 and sel.rule == "distinguishing database"
    assert len(llm.requests) == 2
    first, second = (r.last_user_message for r in llm.requests)
    assert "count(DISTINCT o.customer_id)" in first and "How many customers placed an order?" in first
    assert "shop.orders (" in first and "customer_id" in first  # the distinguishing rows
    # the second prompt shows the DISTINCT query first
    assert first.index("count(DISTINCT") > first.index("count(*)") and second.index("count(DISTINCT") < second.index("count(*)")
    assert d.evidence[0]["judge"]["pick"] == "B" and d.evidence[0]["judge"]["consistent"]

    # the judge confirming A keeps A; a judge that names the same position twice (a
    # position bias) or neither query leaves the support's pick
    for answers, winner, calls in ((["A - it joins the customers", "B"], 0, 2), (["B", "B"], 0, 2),
                                   (["NEITHER"], 0, 1)):
        judge_llm = ScriptedProvider(answers)
        d = Distinguisher(url, catalog, question="How many customers placed an order?", llm=judge_llm)
        sel = select(cands, distinguish=d.hook)
        assert sel.winner == winner and sel.rule == "best-supported cluster" and len(judge_llm.requests) == calls
    # no LLM: evidence but no pick
    d = Distinguisher(url, catalog, question="How many customers placed an order?")
    sel = select(cands, distinguish=d.hook)
    assert sel.winner == 0 and d.evidence[0]["distinguished"] and "judge" not in d.evidence[0]
    assert _scratch_left(url) == []


def test_failures_are_reported_and_scratch_schemas_dropped(shop):
    url, catalog = shop
    d = Distinguisher(url, catalog, question="q", seeds=3)
    ev = d.distinguish("SELECT count(*) FROM shop.orders", "SELECT 1 / (count(*) - count(*)) FROM shop.orders")
    assert ev["distinguished"] is False and "failed on the built rows" in ev["note"] and ev["tries"] == 3
    ev = d.distinguish("SELECT count(*) FROM shop.orders", "SELECT count(*) FROM shop.nowhere")
    assert ev["distinguished"] is False and "not in the catalog: shop.nowhere" in ev["note"]
    ev = d.distinguish("SELECT count(*) FROM shop.orders", "SELEC nonsense (")
    assert ev["distinguished"] is False and ev["note"]
    assert _scratch_left(url) == []


BANK = [
    # a wrong pair: a typical amount is asked, the maximum is computed (no word of the question says
    # "average", so the unclear-answers refusal of an uncomputed average does not catch it)
    ("Typical order amount of customers in Boston",
     "SELECT max(o.amount) AS avg_amount FROM shop.orders o JOIN shop.customers c ON c.id = o.customer_id"
     " WHERE c.city = 'Boston'"),
    ("How many orders were delivered?", "SELECT count(*) AS orders FROM shop.orders WHERE status = 'delivered'"),
]


def test_regeneration_review_item_carries_the_distinguishing_evidence(shop):
    from example_bank.service import import_question_pairs
    from sqlgenie.feedback.regenerate import regenerate
    from sqlgenie.feedback.review import create_item, get_item
    from sqlgenie.feedback.service import give_feedback
    from sqlgenie.inference.pipeline import Asker

    url, _catalog = shop
    settings = load_settings(database_url=url)
    report = import_question_pairs(settings, url, BANK)
    assert not report.rejected, report.rejected
    asker = Asker(settings, provider=None)
    try:
        question = "Typical order amount of customers in Chicago"
        answer = asker.ask(question)
        assert answer.id and "max(" in (answer.sql or "").lower()
        right = ("SELECT avg(o.amount) AS avg_amount FROM shop.orders o JOIN shop.customers c"
                 " ON c.id = o.customer_id WHERE c.city = 'Chicago'")
        fb = give_feedback(asker.store, answer.id, "down", sql=right, settings=settings)
        item, result = regenerate(asker, asker.store, {"ask_id": answer.id, "feedback_id": fb.feedback_id})
        assert item["differs"] and "avg(" in item["sql"].lower()
        ev = item["evidence"]["distinguish"]
        # no runner-up differs from the downvoted answer: the proposal is set against the downvoted answer
        assert ev["pair"][0] == "user correction" and ev["distinguished"] is True, ev
        ((avg,),), ((mx,),) = ev["results"][0]["rows"], ev["results"][1]["rows"]
        assert float(avg) < float(mx)  # two Chicago orders of different amounts
        cities = {r[ev["tables"]["shop.customers"]["columns"].index("city")]
                  for r in ev["tables"]["shop.customers"]["rows"]}
        assert "Chicago" in cities
        with asker.store.transaction():
            item_id = create_item(asker.store, kind="regeneration", job_id=None, **item)
        shown = get_item(asker.store, item_id).to_dict()
        assert shown["evidence"]["distinguish"]["distinguished"] is True
        assert shown["evidence"]["distinguish"]["tables"]["shop.orders"]["rows"]
        env = {**os.environ, "SQLGENIE_DATABASE_URL": url, "SQLGENIE_LLM_PROVIDER": "none",
               "SQLGENIE_SERVER_URL": "off", "COLUMNS": "200"}
        out = subprocess.run([sys.executable, "-m", "sqlgenie", "review", "show", str(item_id)], env=env,
                             capture_output=True, text=True, timeout=300)
        assert out.returncode == 0, out.stderr
        assert "why they differ: user correction and downvoted answer on these rows" in out.stdout
        assert "shop.orders (id, customer_id, amount, status):" in out.stdout and "'Chicago'" in out.stdout
    finally:
        asker.close()
    assert _scratch_left(url) == []


def test_query_join_conditions_hold_like_references(shop):
    url, catalog = shop
    from sqlgenie.autocorrect.base import parse_sql

    d = Distinguisher(url, catalog, question="q")
    # orders.id = customers.id is no accepted join: the query's condition still links the rows
    tables, _ = d._tables([parse_sql("SELECT c.name FROM shop.orders o JOIN shop.customers c ON o.id = c.id")])
    assert tables["shop.orders"].refs["customer_id"] == ("shop.customers", "id")  # the accepted join
    assert tables["shop.orders"].refs["id"] == ("shop.customers", "id")  # the query's own condition
    assert not tables["shop.customers"].refs  # no cycle of two
    a = "SELECT c.city FROM shop.orders o JOIN shop.customers c ON o.id = c.id"
    b = "SELECT DISTINCT c.city FROM shop.orders o JOIN shop.customers c ON o.id = c.id"
    assert same_result(_real(url, a, "a"), _real(url, "SELECT c.city FROM shop.customers c", "b"))
    ev = d.distinguish(a, b)
    assert ev["distinguished"] is True, ev
    customers, orders = ev["tables"]["shop.customers"], ev["tables"]["shop.orders"]
    assert {r[0] for r in orders["rows"]} <= {r[0] for r in customers["rows"]}


def test_eval_select_distinguish_reports_close_calls(tmp_path, fresh_db_url):
    import json

    from test_eval_fixtures import make_spider_dataset
    from test_feedback_select import SYSTEMS, _files

    data = make_spider_dataset(tmp_path / "spider")
    files = _files(tmp_path)
    dev = json.loads((tmp_path / "spider" / "dev.json").read_text())
    (tmp_path / "spider" / "three.json").write_text(json.dumps([dev[i] for i in sorted(SYSTEMS)]), encoding="utf-8")
    env = dict(os.environ, SQLGENIE_DATABASE_URL=fresh_db_url)
    summaries = []
    for extra in ([], ["--distinguish"]):
        proc = subprocess.run(
            [sys.executable, "-m", "sqlgenie", "eval", "select", "--dataset", str(data), "--predictions",
             str(files[0]), str(files[2]), "--questions", "three.json", "--weights", "equal", *extra],
            capture_output=True, text=True, env=env, cwd=tmp_path, timeout=600)
        assert proc.returncode == 0, proc.stderr
        summaries.append(json.loads(proc.stdout.strip().splitlines()[-1]))
    plain, dist = summaries
    assert "distinguish" not in plain and dist["ex_selected"] == plain["ex_selected"]
    # two systems, one vote each: ORDER BY amount DESC LIMIT 1 against ASC is a tie, told apart
    assert dist["distinguish"]["calls"] == 1 and dist["distinguish"]["distinguished"] == 1
    assert dist["distinguish"]["llm_judge"] is False
    proc = subprocess.run(
        [sys.executable, "-m", "sqlgenie", "eval", "select", "--dataset", str(data), "--predictions",
         *map(str, files), "--questions", "three.json", "--no-critic", "--distinguish"],
        capture_output=True, text=True, env=env, cwd=tmp_path, timeout=600)
    assert proc.returncode != 0 and "drop --no-critic" in " ".join(proc.stderr.split())
    with psycopg.connect(fresh_db_url) as conn:
        assert not conn.execute("SELECT 1 FROM pg_namespace WHERE nspname LIKE %s", (SCRATCH_PREFIX + "%",)).fetchall()


def test_scratch_schemas_left_by_a_killed_process_are_dropped_later(shop):
    import time

    url, catalog = shop
    old, recent = f"{SCRATCH_PREFIX}{int(time.time()) - 7200}_dead", f"{SCRATCH_PREFIX}{int(time.time())}_busy"
    with psycopg.connect(url, autocommit=True) as conn:
        for name in (old, recent):
            conn.execute(f'CREATE SCHEMA "{name}"')
            conn.execute(f'CREATE TABLE "{name}".t (x int)')
    try:
        Distinguisher(url, catalog, question="q", seeds=1).distinguish(
            "SELECT count(*) FROM shop.orders", "SELECT count(id) FROM shop.orders")
        assert _scratch_left(url) == [recent]  # one in use elsewhere is kept
    finally:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA IF EXISTS "{recent}" CASCADE')
            conn.execute(f'DROP SCHEMA IF EXISTS "{old}" CASCADE')


def test_parse_verdict():
    assert parse_verdict("B\nbecause") == 1 and parse_verdict("Answer: A") == 0
    assert parse_verdict("**A**") == 0 and parse_verdict("NEITHER") is None and parse_verdict("") is None
