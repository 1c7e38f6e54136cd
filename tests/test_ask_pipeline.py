"""The ask pipeline end to end on a real PostgreSQL with the real MiniLM model: a
small onboarded schema, a small verified bank, the match route (deterministic and
with a scripted LLM), refusals, the query log and ``sqlgenie ask --json``."""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
import sys

import psycopg
import pytest

from sqlgenie.config import load_settings
from sqlgenie.inference import query_log
from sqlgenie.inference.pipeline import Asker
from sqlgenie.inference.think import NO_MATCH
from sqlgenie.llm import ScriptedProvider

BANK = [
    ("How many orders were placed in 2024?",
     "SELECT count(*) AS orders FROM shop.orders WHERE order_date >= DATE '2024-01-01' AND order_date < DATE '2025-01-01'"),
    ("Total amount of orders shipped to Boston",
     "SELECT sum(o.amount) AS total FROM shop.orders o WHERE o.city = 'Boston'"),
    ("How many customers are in the Consumer segment?",
     "SELECT count(*) AS customers FROM shop.customers WHERE segment = 'Consumer'"),
    ("Top 3 customers by total amount",
     "SELECT c.name, sum(o.amount) AS total FROM shop.orders o JOIN shop.customers c ON c.id = o.customer_id "
     "GROUP BY c.name ORDER BY total DESC LIMIT 3"),
    ("How many returned orders were there?",
     "SELECT count(*) AS orders FROM shop.orders WHERE status = 'returned'"),
    ("Average order amount by city",
     "SELECT city, round(avg(amount), 2) AS avg_amount FROM shop.orders GROUP BY city ORDER BY city"),
]
CITIES = ["Boston", "Palo Alto", "Chicago", "Denver"]
SEGMENTS = ["Consumer", "Corporate", "Small Business"]


def _create_schema(url: str) -> None:
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("CREATE SCHEMA shop")
        conn.execute("CREATE TABLE shop.customers (id integer PRIMARY KEY, name text NOT NULL, segment text NOT NULL)")
        conn.execute(
            "CREATE TABLE shop.orders (id integer PRIMARY KEY, customer_id integer NOT NULL REFERENCES shop.customers(id),"
            " order_date date NOT NULL, amount numeric(10,2) NOT NULL, status text NOT NULL, city text NOT NULL)"
        )
        with conn.cursor() as cur:
            cur.executemany("INSERT INTO shop.customers VALUES (%s, %s, %s)",
                            [(i, f"Customer {i:02d}", SEGMENTS[i % 3]) for i in range(1, 31)])
            rows = []
            for i in range(1, 401):
                rows.append((i, 1 + i % 30, dt.date(2023, 1, 1) + dt.timedelta(days=(i * 7) % 1000),
                             10 + (i * 37) % 500, "returned" if i % 9 == 0 else "delivered", CITIES[i % 4]))
            cur.executemany("INSERT INTO shop.orders VALUES (%s, %s, %s, %s, %s, %s)", rows)
        conn.execute("ANALYZE shop.customers")
        conn.execute("ANALYZE shop.orders")


@pytest.fixture(scope="module")
def shop(module_db_url):
    """A database with schema shop onboarded and BANK imported; its settings."""
    from example_bank.service import import_question_pairs
    from onboarding.service import OnboardOptions, onboard_schema

    _create_schema(module_db_url)
    settings = load_settings(database_url=module_db_url, now=dt.datetime(2025, 6, 15, 12, 0))
    onboard_schema("shop", settings=settings, options=OnboardOptions(llm=None))
    report = import_question_pairs(settings, module_db_url, BANK)
    assert not report.rejected, report.rejected
    return settings


@pytest.fixture(scope="module")
def asker(shop):
    with Asker.open(shop, provider=None) as a:
        yield a


def test_new_value_is_adapted_autocorrected_executed_and_logged(asker, shop):
    r = asker.ask("How many orders were placed in 2023?")
    assert r.status == "ok" and r.route == "match" and r.method == "adapt"
    assert "'2023-01-01'" in r.sql and "'2024-01-01'" in r.sql
    assert r.rows[0][0] > 0 and r.similarity == 1.0 and r.confidence == 1.0
    assert {"retrieve", "route", "adapt", "autocorrect", "execute", "log"} <= set(r.timings_ms)
    assert r.id is not None
    entry = query_log.get(asker.store, r.id)
    assert entry["kind"] == "ask" and entry["status"] == "ok" and entry["route"] == "match"
    assert entry["sql"] == r.sql and entry["row_count"] == 1 and entry["example_id"] == r.example_id
    assert entry["details"]["adaptation"]["substitutions"][0]["derivation"] == "date:year_start"
    assert entry["details"]["timings_ms"]["execute"] >= 0


def test_lowercase_value_is_corrected_and_limit_applies(asker):
    r = asker.ask("Total amount of orders shipped to palo alto")
    assert r.status == "ok", r.message
    assert "'Palo Alto'" in r.sql and any(c["corrector"] == "values" for c in r.corrections)
    assert r.rows[0][0] > 0
    r = asker.ask("Top 2 customers by total amount", limit=1)
    assert r.status == "ok" and r.sql.rstrip().endswith("LIMIT 2") and len(r.rows) == 1 and r.truncated


def test_unanswerable_question_is_refused_clearly(asker):
    r = asker.ask("Which suppliers deliver the most pallets per warehouse?")
    assert r.status == "refused" and r.route == "think" and r.sql is None and not r.rows
    assert r.message == NO_MATCH and "SQLGENIE_LLM_PROVIDER" in r.hint
    assert r.think.nearest and all("similarity" in e for e in r.think.nearest)
    entry = query_log.get(asker.store, r.id)
    assert entry["status"] == "refused" and entry["route"] == "think" and entry["sql"] is None


def test_adaptation_that_cannot_account_for_the_question_refuses(asker):
    r = asker.ask("How many orders were placed in 2024 in Boston?", route="match")
    assert r.status == "refused" and r.sql is None
    assert "does not fully account" in r.message and r.think.reason
    r = asker.ask("How many returned orders were there?", route="think")
    assert r.status == "refused" and r.decision.requested == "think"


def test_no_execute_returns_sql_only(asker):
    r = asker.ask("How many customers are in the Corporate segment?", execute=False)
    assert r.status == "ok" and "'Corporate'" in r.sql and not r.executed and r.rows == []


def test_llm_match_path_one_call_with_pruned_schema_examples_and_python_span(shop, tmp_path, monkeypatch):
    rules = tmp_path / "instructions.md"
    rules.write_text("<!-- ignored comment -->\n- Returned orders have status 'returned'.\n", encoding="utf-8")
    monkeypatch.setenv("SQLGENIE_INSTRUCTIONS_FILE", str(rules))
    answer = ("```sql\nSELECT count(*) AS orders FROM shop.orders o WHERE o.status = 'returned' "
              "AND o.order_date >= <python>date(2025, 6, 15) - relativedelta(months=6)</python>\n```")
    llm = ScriptedProvider([answer])
    with Asker.open(shop, provider=llm) as a:
        r = a.ask("How many orders were returned in the last 6 months?", route="match")
    assert r.status == "ok" and r.method == "llm", r.message
    assert len(llm.requests) == 1 and r.llm["calls"] == 1
    prompt = llm.requests[0].last_user_message
    assert "shop.orders" in prompt or "orders(" in prompt  # the pruned schema
    assert "How many returned orders were there?" in prompt  # a bank example with its SQL
    assert "status = 'returned'" in prompt
    assert "<python>" in prompt  # the instructions
    assert "Returned orders have status 'returned'." in prompt and "ignored comment" not in prompt  # domain rules
    assert "'2024-12-15'" in r.sql and "<python>" not in r.sql
    assert any(c["corrector"] == "python_spans" for c in r.corrections)
    assert r.rows and r.llm["input_tokens"] > 0


def test_llm_is_skipped_for_an_exact_complete_adaptation(shop):
    llm = ScriptedProvider([])
    with Asker.open(shop, provider=llm) as a:
        r = a.ask("How many customers are in the Small Business segment?")
    assert r.status == "ok" and r.method == "adapt" and not llm.requests


def _cli(args: list[str], db_url: str) -> subprocess.CompletedProcess:
    from sqlgenie.cli import app

    registered = any(c.name == "ask" for c in app.registered_commands)
    runner = ["-m", "sqlgenie"] if registered else [
        "-c", "from sqlgenie.cli import app, main, ask_cmd; app.command('ask')(ask_cmd.ask); main()"]
    env = {k: v for k, v in os.environ.items() if not k.startswith("SQLGENIE_")}
    env.update(SQLGENIE_DATABASE_URL=db_url, SQLGENIE_DATA_DIR=os.environ["SQLGENIE_DATA_DIR"])
    return subprocess.run([sys.executable, *runner, *args], capture_output=True, text=True, env=env, timeout=240)


def test_cli_ask_json(shop, module_db_url):
    proc = _cli(["ask", "How many customers are in the Corporate segment?", "--json"], module_db_url)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout.strip().splitlines()[-1])
    assert data["status"] == "ok" and data["route"] == "match" and data["id"] > 0
    assert data["rows"] == [[10]] and data["columns"] == ["customers"]
    assert data["examples"][0]["similarity"] == 1.0 and "timings_ms" in data and data["explanation"]
    proc = _cli(["ask", "Which suppliers deliver the most pallets per warehouse?", "--json"], module_db_url)  # embedding cached above
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout.strip().splitlines()[-1])
    assert data["status"] == "refused" and data["message"] == NO_MATCH and data["think"]["nearest"]
