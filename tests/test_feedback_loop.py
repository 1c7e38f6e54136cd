"""Feedback and regeneration end to end on a real PostgreSQL, the real MiniLM model
and real worker processes: ask, thumbs-down, job, candidates, review, accept, and
the next ask answers from the bank; feedback errors change nothing."""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
import sys

import psycopg
import pytest

from sqlgenie.config import load_settings
from sqlgenie.errors import InputError, SQLError
from sqlgenie.feedback import queue, review
from sqlgenie.feedback.service import give_feedback
from sqlgenie.inference.pipeline import Asker

BANK = [
    ("How many returned orders were there?", "SELECT count(*) AS orders FROM shop.orders WHERE status = 'returned'"),
    ("Total amount of orders shipped to Boston",
     "SELECT sum(o.amount) AS total FROM shop.orders o WHERE o.city = 'Boston'"),
    # a wrong pair: a typical amount is asked, the maximum is computed ("average" would be refused:
    # the unclear-answers rule refuses an asked average the query does not compute)
    ("Typical order amount in Boston", "SELECT max(amount) AS avg_amount FROM shop.orders WHERE city = 'Boston'"),
]
CITIES = ["Boston", "Palo Alto", "Chicago", "Denver"]
RIGHT_SQL = "SELECT round(avg(amount), 2) AS avg_amount FROM shop.orders WHERE city = 'Chicago'"


def _create_schema(url: str) -> None:
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("CREATE SCHEMA shop")
        conn.execute("CREATE TABLE shop.orders (id integer PRIMARY KEY, order_date date NOT NULL,"
                     " amount numeric(10,2) NOT NULL, status text NOT NULL, city text NOT NULL)")
        with conn.cursor() as cur:
            cur.executemany("INSERT INTO shop.orders VALUES (%s, %s, %s, %s, %s)",
                            [(i, dt.date(2023, 1, 1) + dt.timedelta(days=(i * 7) % 900), 10 + (i * 37) % 500,
                              "returned" if i % 9 == 0 else "delivered", CITIES[i % 4]) for i in range(1, 401)])
        conn.execute("ANALYZE shop.orders")


@pytest.fixture(scope="module")
def shop(module_db_url):
    from example_bank.service import import_question_pairs
    from onboarding.service import OnboardOptions, onboard_schema

    _create_schema(module_db_url)
    settings = load_settings(database_url=module_db_url)
    onboard_schema("shop", settings=settings, options=OnboardOptions(llm=None))
    report = import_question_pairs(settings, module_db_url, BANK)
    assert not report.rejected, report.rejected
    return settings


def _env(url: str, **extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env["SQLGENIE_DATABASE_URL"] = url
    env["SQLGENIE_LLM_PROVIDER"] = "none"
    env["SQLGENIE_SERVER_URL"] = "off"
    env.update(extra)
    return env


def _cli(url: str, *args: str, **extra: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "sqlgenie", *args], capture_output=True, text=True,
                          env=_env(url, **extra), timeout=600)


def _counts(conn: psycopg.Connection) -> tuple:
    return tuple(conn.execute(f"SELECT count(*) FROM sqlgenie.{t}").fetchone()[0]
                 for t in ("feedback", "jobs", "review_items", "bank_examples")) + (
        conn.execute("SELECT string_agg(id || status, ',' ORDER BY id) FROM sqlgenie.bank_examples").fetchone()[0],)


def test_whole_loop(shop, module_db_url):
    question = "Typical order amount in Chicago"
    asked = _cli(module_db_url, "ask", question, "--json")
    assert asked.returncode == 0, asked.stderr
    answer = json.loads(asked.stdout.strip().splitlines()[-1])
    assert isinstance(answer["id"], int) and answer["status"] == "ok"
    assert "max(" in answer["sql"].lower()  # adapted from the wrong pair
    wrong_example = answer["example_id"]

    down = _cli(module_db_url, "feedback", str(answer["id"]), "down", "--comment", "average, not maximum",
                "--sql", RIGHT_SQL, "--user", "ana", "--json")
    assert down.returncode == 0, down.stderr
    fb = json.loads(down.stdout.strip().splitlines()[-1])
    assert fb["feedback_id"] and fb["job_id"] and fb["review_item_id"]

    jobs = json.loads(_cli(module_db_url, "jobs", "list", "--json").stdout.strip().splitlines()[-1])["jobs"]
    assert [(j["id"], j["state"], j["attempts"]) for j in jobs if j["id"] == fb["job_id"]] == [(fb["job_id"], "queued", 0)]

    worked = _cli(module_db_url, "worker", "--once", "--json")
    assert worked.returncode == 0, worked.stderr
    assert json.loads(worked.stdout.strip().splitlines()[-1])["done"] == 1
    jobs = json.loads(_cli(module_db_url, "jobs", "list", "--json").stdout.strip().splitlines()[-1])["jobs"]
    job = next(j for j in jobs if j["id"] == fb["job_id"])
    assert job["state"] == "done" and job["attempts"] == 1

    items = json.loads(_cli(module_db_url, "review", "list", "--json").stdout.strip().splitlines()[-1])["items"]
    regen = [i for i in items if i["kind"] == "regeneration"]
    assert len(regen) == 1 and regen[0]["ask_id"] == answer["id"] and regen[0]["question"] == question
    assert regen[0]["state"] == "pending" and regen[0]["differs"] is True
    assert "avg(" in regen[0]["sql"].lower()  # the user's correction outvotes the adaptations
    with psycopg.connect(module_db_url) as conn:
        item = review.get_item(conn, regen[0]["id"])
    cands = item.evidence["candidates"]
    assert len(cands) >= 3 and any(c["source"].startswith("adapt#") for c in cands)
    assert any(c["source"] == "downvoted answer" for c in cands)

    # until review, the same question gets the regenerated answer, marked unreviewed
    again = json.loads(_cli(module_db_url, "ask", question, "--json").stdout.strip().splitlines()[-1])
    assert again["unreviewed"] is True and again["review_id"] == regen[0]["id"] and "avg(" in again["sql"].lower()

    accepted = _cli(module_db_url, "review", "accept", str(regen[0]["id"]), "--json")
    assert accepted.returncode == 0, accepted.stderr
    acc = json.loads(accepted.stdout.strip().splitlines()[-1])
    assert acc["state"] == "accepted" and acc["bank_example_id"]
    with psycopg.connect(module_db_url) as conn:
        status = conn.execute("SELECT status, details->'superseded_by' FROM sqlgenie.bank_examples WHERE id = %s",
                              (wrong_example,)).fetchone()
        assert status[0] == "rejected" and int(status[1]) == acc["bank_example_id"]
        states = dict(conn.execute("SELECT kind, state FROM sqlgenie.review_items WHERE ask_id = %s",
                                   (answer["id"],)).fetchall())
        assert states == {"regeneration": "accepted", "correction": "superseded"}
        prov = conn.execute("SELECT source, status, details->'feedback' FROM sqlgenie.bank_examples WHERE id = %s",
                            (acc["bank_example_id"],)).fetchone()
        assert prov[0] == "feedback" and prov[1] == "verified" and prov[2][0]["review_item_id"] == regen[0]["id"]

    final = json.loads(_cli(module_db_url, "ask", question, "--json").stdout.strip().splitlines()[-1])
    assert final["unreviewed"] is False and final["example_id"] == acc["bank_example_id"]
    assert final["method"] == "adapt" and "avg(" in final["sql"].lower()
    other = json.loads(_cli(module_db_url, "ask", "Typical order amount in Denver", "--json").stdout.strip().splitlines()[-1])
    assert other["example_id"] == acc["bank_example_id"] and "denver" in other["sql"].lower()


def test_thumbs_up_adds_and_merges(shop, module_db_url):
    with Asker.open(shop) as asker:
        first = asker.ask("How many returned orders were there?")
        second = asker.ask("How many returned orders were there?")
    with psycopg.connect(module_db_url, autocommit=True) as conn:
        before = conn.execute("SELECT count(*) FROM sqlgenie.bank_examples").fetchone()[0]
        a = give_feedback(conn, first.id, "up", user="bo", settings=shop)
        b = give_feedback(conn, second.id, "up", user="cy", settings=shop)
        assert a.bank_example_id == b.bank_example_id and b.merged is True and a.job_id is None
        assert conn.execute("SELECT count(*) FROM sqlgenie.bank_examples").fetchone()[0] == before
        prov = conn.execute("SELECT details->'feedback' FROM sqlgenie.bank_examples WHERE id = %s",
                            (a.bank_example_id,)).fetchone()[0]
        assert [(p["ask_id"], p["user"], p["route"]) for p in prov[-2:]] == [(first.id, "bo", "match"),
                                                                              (second.id, "cy", "match")]


def test_repeated_downs_dispute_the_example(shop, module_db_url):
    with Asker.open(shop) as asker:
        answers = [asker.ask("Total amount of orders shipped to Denver") for _ in range(2)]
    example = answers[0].example_id
    assert example is not None
    with psycopg.connect(module_db_url, autocommit=True) as conn:
        r1 = give_feedback(conn, answers[0].id, "down", settings=shop)
        assert not r1.example_disputed
        r2 = give_feedback(conn, answers[1].id, "down", settings=shop)
        assert r2.example_disputed
        assert conn.execute("SELECT status FROM sqlgenie.bank_examples WHERE id = %s", (example,)).fetchone()[0] == "disputed"
    with Asker.open(shop) as asker:
        later = asker.ask("Total amount of orders shipped to Denver")
    assert later.example_id != example  # no longer used for matching
    # a reviewer restores it
    with psycopg.connect(module_db_url, autocommit=True) as conn:
        item = review.create_item(conn, kind="correction", ask_id=answers[0].id, question="q", sql="SELECT 1",
                                  source_example_id=example)
        review.reject(conn, item, user="rev", reason="the sum was right", restore_example=True)
        assert conn.execute("SELECT status FROM sqlgenie.bank_examples WHERE id = %s", (example,)).fetchone()[0] == "verified"


@pytest.mark.parametrize("args, error, says", [
    (("999999", "down"), InputError, "no answer with id 999999"),
    (("abc", "down"), InputError, "not an answer id"),
    (("ASK", "sideways"), InputError, "unknown verdict"),
    (("ASK", "down", "SELEC count(* FROM shop.orders"), SQLError, "read-only"),
    (("ASK", "down", "SELECT count(* FROM shop.orders"), SQLError, "does not parse"),
    (("ASK", "down", "DELETE FROM shop.orders"), SQLError, "select"),
    (("ASK", "down", "UPDATE shop.orders SET amount = 0"), SQLError, "select"),
    (("ASK", "down", "SELECT nope FROM shop.orders"), SQLError, "nope"),
    (("ASK", "down", "   "), SQLError, "empty"),
    (("ASK", "up", "SELECT 1"), InputError, "--sql goes with down"),
])
def test_feedback_errors_change_nothing(shop, module_db_url, args, error, says):
    with Asker.open(shop) as asker:
        ask_id = asker.ask("How many returned orders were there?").id
    ident = str(ask_id) if args[0] == "ASK" else args[0]
    with psycopg.connect(module_db_url, autocommit=True) as conn:
        before = _counts(conn)
        with pytest.raises(error) as info:
            give_feedback(conn, ident, args[1], sql=args[2] if len(args) > 2 else None, settings=shop)
        assert says in (info.value.message + " " + (info.value.hint or "")).lower(), info.value.message
        assert _counts(conn) == before
    out = _cli(module_db_url, "feedback", ident, args[1], *(("--sql", args[2]) if len(args) > 2 else ()))
    assert out.returncode != 0 and "error" in out.stderr.lower()
    with psycopg.connect(module_db_url, autocommit=True) as conn:
        assert _counts(conn) == before
        assert conn.execute("SELECT count(*) FROM shop.orders").fetchone()[0] == 400


def test_review_commands_show_reject_and_decided_items(shop, module_db_url):
    """The review commands' contract: list (id, ask_id, question, sql, state), show,
    reject; a decided item cannot be decided again; rejecting writes nothing to the bank."""
    asked = json.loads(_cli(module_db_url, "ask", "How many orders were shipped to Denver?", "--json")
                       .stdout.strip().splitlines()[-1])
    fixed = "SELECT count(*) AS orders FROM shop.orders WHERE city = 'Denver' AND status = 'delivered'"
    down = _cli(module_db_url, "feedback", str(asked["id"]), "down", "--sql", fixed, "--json")
    assert down.returncode == 0, down.stderr
    fb = json.loads(down.stdout.strip().splitlines()[-1])
    assert isinstance(fb["feedback_id"], int) and isinstance(fb["job_id"], int)
    items = json.loads(_cli(module_db_url, "review", "list", "--json").stdout.strip().splitlines()[-1])["items"]
    mine = [i for i in items if i["ask_id"] == asked["id"]]
    assert len(mine) == 1 and {"id", "ask_id", "question", "sql", "state"} <= set(mine[0])
    assert mine[0]["sql"] == fixed and mine[0]["state"] == "pending" and mine[0]["kind"] == "correction"
    shown = json.loads(_cli(module_db_url, "review", "show", str(mine[0]["id"]), "--json").stdout.strip().splitlines()[-1])
    assert shown["id"] == mine[0]["id"] and shown["question"] == "How many orders were shipped to Denver?"
    with psycopg.connect(module_db_url) as conn:
        bank_before = _counts(conn)[3:]
    rejected = _cli(module_db_url, "review", "reject", str(mine[0]["id"]), "--reason", "only delivered ones", "--json")
    assert rejected.returncode == 0, rejected.stderr
    assert json.loads(rejected.stdout.strip().splitlines()[-1])["state"] == "rejected"
    again = _cli(module_db_url, "review", "accept", str(mine[0]["id"]))
    assert again.returncode != 0 and "rejected already" in " ".join(again.stderr.split())
    missing = _cli(module_db_url, "review", "reject", "987654")
    assert missing.returncode != 0 and "no review item with id 987654" in " ".join(missing.stderr.split()).lower()
    with psycopg.connect(module_db_url) as conn:
        assert _counts(conn)[3:] == bank_before
