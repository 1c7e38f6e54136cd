"""The think loop end to end on a real embedded PostgreSQL with the demo warehouse
(onboarded, seed bank imported) and the real MiniLM model: plan, generate, the
deterministic critic and the LLM critic, each round's findings fed back, the m-round
and budget stops, once through the HTTP stub of each real provider, the ``--explain``
rendering and the replay provider. The only stand-ins are the scripted provider and
the HTTP stubs."""

from __future__ import annotations

import datetime as dt
import json

import pytest
from llm_stub import LLMStub, Reply, anthropic_message, openai_completion
from rich.console import Console

from sqlgenie.cli.ask_cmd import render_answer
from sqlgenie.config import load_settings
from sqlgenie.errors import LLMResponseError
from sqlgenie.inference import query_log
from sqlgenie.inference.pipeline import Asker
from sqlgenie.inference.think import NO_MATCH
from sqlgenie.inference.think.route import REFUSED, UNANSWERABLE
from sqlgenie.llm import ChatMessage, ScriptedProvider, approx_tokens
from sqlgenie.llm.replay import PLAN_TEXT, ReplayProvider

QUESTION = "Which region had the highest total revenue in 2024?"
JOINS = ("FROM demo.orders o JOIN demo.stores s ON s.store_id = o.store_id "
         "JOIN demo.regions r ON r.region_id = s.region_id")
IN_2024 = "WHERE o.order_date >= DATE '2024-01-01' AND o.order_date < DATE '2025-01-01'"
DIV_ZERO = f"SELECT r.region_name, sum(o.total_amt) / 0 AS revenue {JOINS} GROUP BY r.region_name"
BY_ID = f"SELECT r.region_id, sum(o.total_amt) AS revenue {JOINS} {IN_2024} GROUP BY r.region_id ORDER BY revenue DESC"
RIGHT = (f"SELECT r.region_name, sum(o.total_amt) AS revenue {JOINS} {IN_2024} "
         "GROUP BY r.region_name ORDER BY revenue DESC LIMIT 1")
PLAN = ("Tables: demo.orders, demo.stores, demo.regions\nJoins: orders-stores-regions\n"
        "Filters: order_date in 2024\nGrouping: region_name\nAggregates: sum(total_amt)\n"
        "Ordering: revenue DESC LIMIT 1\nOutput: region_name, revenue")
OBJECTION = "PROBLEM\nIt returns region_id; the question asks for the region's name.\nKeep only the top region (LIMIT 1)."


def sql_block(sql: str) -> str:
    return f"```sql\n{sql}\n```"


@pytest.fixture(scope="module")
def demo(module_db_url):
    """Settings of a database holding the demo warehouse, onboarded, with the seed bank."""
    from sqlgenie.quickstart import run_quickstart

    settings = load_settings(database_url=module_db_url, now=dt.datetime(2025, 6, 15, 12, 0))
    run_quickstart(settings, scale=2000, questions=())
    return settings


def staged(generations: list[str], *, plan: str = PLAN, critic: list[str] | None = None):
    """A script answering by stage: the plan, the generations in order, the critic verdicts in order."""
    gens = iter(generations)
    verdicts = iter(critic or [])

    def script(messages, system, stage):
        if stage == "think_plan":
            return plan
        if stage == "think_critic":
            return next(verdicts, "OK")
        text = next(gens)
        return text[4:] if text.startswith("RAW:") else sql_block(text)

    return script


def user_texts(llm: ScriptedProvider, stage: str) -> list[str]:
    return [r.last_user_message or "" for r in llm.requests if r.stage == stage]


def expected_top_region(demo) -> tuple[str, object]:
    from sqlgenie.store import open_connection

    with open_connection(demo.database_url.get_secret_value(), autocommit=True) as conn:
        return conn.execute(RIGHT).fetchone()


def test_plan_then_each_finding_fed_back_until_accepted(demo):
    llm = ScriptedProvider(staged([DIV_ZERO, BY_ID, RIGHT], critic=[OBJECTION, "OK"]))
    with Asker.open(demo, provider=llm) as asker:
        r = asker.ask(QUESTION, route="think")
        logged = query_log.get(asker.store, r.id)
    assert r.status == "ok" and r.route == "think" and r.method == "think", r.message
    assert r.executed and r.columns == ["region_name", "revenue"]
    assert [tuple(x) for x in r.rows] == [tuple(expected_top_region(demo))]
    loop = r.think.loop
    assert loop["stop_reason"] == "accepted" and loop["final_round"] == 3 and len(loop["rounds"]) == 3
    assert loop["plan"] == PLAN

    # the plan prompt: pruned schema, the JOIN planner's path with cardinality, the bank's examples
    [plan_prompt] = user_texts(llm, "think_plan")
    assert f"Question: {QUESTION}" in plan_prompt and "Database: demo" in plan_prompt
    assert "demo.regions(" in plan_prompt and "demo.stores(" in plan_prompt
    assert "demo.stores.region_id = demo.regions.region_id (n:1" in plan_prompt
    assert "Example 1 (similarity" in plan_prompt and "Revenue by region" in plan_prompt
    assert loop["context"]["examples"] and loop["context"]["kept_columns"] <= loop["context"]["total_columns"]

    # round 1: the deterministic critic's execution error goes back to the generator
    first, second, third = loop["rounds"]
    assert [f["check"] for f in first["findings"]] == ["executes"] and first["llm_critic"] is None
    assert "division by zero" in first["findings"][0]["message"]
    gen = user_texts(llm, "think_generate")
    assert len(gen) == 3 and "rejected" not in gen[0]
    assert "Attempt 1 was rejected" in gen[1] and "division by zero" in gen[1] and PLAN in gen[1]
    assert all(f["message"] in gen[1] for f in first["findings"] if not f["repaired"])
    # round 2: checks pass, the LLM critic objects; its problems go back too (with round 1's)
    assert second["findings"] == [] and second["llm_critic"] == "objection"
    assert second["llm_problems"][0].startswith("It returns region_id")
    assert "Attempt 2 was rejected" in gen[2] and "the question asks for the region's name" in gen[2]
    assert "division by zero" in gen[2]
    # round 3: accepted by both critics
    assert third["accepted"] and third["llm_critic"] == "ok" and third["row_count"] == 1
    critic = user_texts(llm, "think_critic")
    assert len(critic) == 2 and "region_id" in critic[0] and "1 row(s)" in critic[1]

    # tokens and calls counted per question, and logged
    assert r.llm["calls"] == len(llm.requests) == 6
    assert r.llm["by_stage"]["think_generate"]["calls"] == 3 and r.llm["by_stage"]["think_critic"]["calls"] == 2
    sent = sum(approx_tokens(q.system) + sum(approx_tokens(m.content) for m in q.messages) for q in llm.requests)
    assert r.llm["input_tokens"] == sent and r.llm["output_tokens"] > 0
    assert logged["llm_calls"] == 6 and logged["route"] == "think"


def test_m_rounds_then_refused_with_the_last_statement(demo):
    settings = demo.model_copy(update={"think_max_rounds": 2, "think_llm_critic": False})
    bad2 = DIV_ZERO.replace("/ 0", "/ (1 - 1)")
    llm = ScriptedProvider(staged([DIV_ZERO, bad2, RIGHT]))
    with Asker.open(settings, provider=llm) as asker:
        r = asker.ask(QUESTION, route="think")
    loop = r.think.loop
    assert r.status == "refused" and r.message == REFUSED and r.hint
    assert loop["stop_reason"] == "max_rounds" and len(loop["rounds"]) == 2
    assert [q.stage for q in llm.requests] == ["think_plan", "think_generate", "think_generate"]
    assert r.sql is None and not r.rows and "rounds ran out" in r.explanation
    assert "(1 - 1)" in loop["rounds"][-1]["sql"] and loop["final_round"] is None


def test_budget_of_calls_stops_the_loop(demo):
    settings = demo.model_copy(update={"think_max_calls": 2})
    llm = ScriptedProvider(staged([DIV_ZERO, RIGHT]))
    with Asker.open(settings, provider=llm) as asker:
        r = asker.ask(QUESTION, route="think")
    loop = r.think.loop
    assert loop["stop_reason"] == "budget" and "2 of 2 LLM calls" in loop["stop"]
    assert r.status == "refused" and r.llm["calls"] == 2 and len(loop["rounds"]) == 1


def test_budget_of_tokens_stops_before_a_call_would_pass_it(demo):
    llm = ScriptedProvider(staged([RIGHT]))
    with Asker.open(demo.model_copy(update={"think_max_tokens": 50}), provider=llm) as asker:
        r = asker.ask(QUESTION, route="think")
    assert r.think.loop["stop_reason"] == "budget" and "limit of 50" in r.think.loop["stop"]
    assert r.status == "refused" and llm.requests == [] and r.llm["calls"] == 0
    # a budget that covers the plan call (estimated as characters / 4) but not the generation after it
    probe = ScriptedProvider(staged([DIV_ZERO, RIGHT]))
    with Asker.open(demo, provider=probe) as asker:
        asker.ask(QUESTION, route="think")
    plan_request = probe.requests[0]
    budget = (len(plan_request.system or "") + len(plan_request.last_user_message or "")) // 4 + 10
    llm = ScriptedProvider(staged([DIV_ZERO, RIGHT]))
    with Asker.open(demo.model_copy(update={"think_max_tokens": budget}), provider=llm) as asker:
        r = asker.ask(QUESTION, route="think")
    assert [q.stage for q in llm.requests] == ["think_plan"] and r.status == "refused"
    assert r.think.loop["stop_reason"] == "budget" and r.llm["input_tokens"] + r.llm["output_tokens"] <= budget


def test_repeated_rejected_statement_stops_the_loop(demo):
    llm = ScriptedProvider(staged([DIV_ZERO, DIV_ZERO]))
    with Asker.open(demo, provider=llm) as asker:
        r = asker.ask(QUESTION, route="think")
    assert r.think.loop["stop_reason"] == "no_progress" and r.status == "refused"
    assert len(r.think.loop["rounds"]) == 1 and r.llm["calls"] == 3


def test_warning_is_fed_back_and_a_repeated_statement_with_only_warnings_is_answered(demo):
    fanout = ("SELECT r.region_name, sum(o.total_amt) AS revenue FROM demo.orders o "
              "JOIN demo.order_items oi ON oi.order_id = o.order_id " + JOINS.split("demo.orders o ", 1)[1]
              + " GROUP BY r.region_name")
    llm = ScriptedProvider(staged([fanout, fanout]))
    with Asker.open(demo, provider=llm) as asker:
        r = asker.ask("Total revenue per region", route="think")
    [first] = r.think.loop["rounds"]
    warnings = [f for f in first["findings"] if f["severity"] == "warning"]
    assert [f["check"] for f in warnings] == ["fanout_aggregate"] and first["llm_critic"] is None
    assert warnings[0]["message"] in user_texts(llm, "think_generate")[1]
    assert r.think.loop["stop_reason"] == "no_progress" and r.status == "ok" and r.row_count == 6
    assert "Critic warnings left open" in r.explanation and warnings[0]["message"] in r.explanation
    assert "Autocorrected: open-ended query: default row limit added" in r.explanation


def test_answer_without_sql_is_a_rejected_round_fed_back(demo):
    llm = ScriptedProvider(staged(["RAW:   ", RIGHT]))
    with Asker.open(demo, provider=llm) as asker:
        r = asker.ask(QUESTION, route="think")
    first, second = r.think.loop["rounds"]
    assert [f["check"] for f in first["findings"]] == ["no_sql"] and second["accepted"]
    assert "answer with one ```sql block" in user_texts(llm, "think_generate")[1]
    assert r.status == "ok" and r.row_count == 1


def test_llm_error_mid_loop_is_an_error_that_keeps_the_rounds(demo):
    from sqlgenie.errors import LLMRateLimitError

    gens = iter([sql_block(DIV_ZERO), LLMRateLimitError("scripted provider is rate limiting")])

    def script(messages, system, stage):
        if stage == "think_plan":
            return PLAN
        item = next(gens)
        if isinstance(item, Exception):
            raise item
        return item

    with Asker.open(demo, provider=ScriptedProvider(script)) as asker:
        r = asker.ask(QUESTION, route="think")
    assert r.status == "error" and r.error == "LLMRateLimitError" and "rate limiting" in r.message
    assert r.think.loop["stop_reason"] == "llm_error" and len(r.think.loop["rounds"]) == 1
    assert r.llm["calls"] == 2 and r.rows == []


def test_unanswerable_plan_refuses_without_generating(demo):
    llm = ScriptedProvider(staged([], plan="Unanswerable: no table holds employee salaries."))
    with Asker.open(demo, provider=llm) as asker:
        r = asker.ask("What is the average salary of employees?", route="think")
    assert r.status == "refused" and r.message == UNANSWERABLE
    assert r.think.loop["stop_reason"] == "unanswerable" and "salaries" in r.think.loop["stop"]
    assert [q.stage for q in llm.requests] == ["think_plan"] and r.sql is None


def test_without_an_llm_the_think_route_still_refuses(demo):
    with Asker.open(demo, provider=None) as asker:
        r = asker.ask(QUESTION, route="think")
    assert r.status == "refused" and r.message == NO_MATCH and r.think.loop is None


def test_explain_shows_plan_rounds_stop_and_rows(demo):
    llm = ScriptedProvider(staged([DIV_ZERO, RIGHT]))
    with Asker.open(demo, provider=llm) as asker:
        data = asker.ask(QUESTION, route="think").to_dict()
    assert json.loads(json.dumps(data, default=str))["think"]["loop"]["rounds"]
    console = Console(record=True, width=250, color_system=None)
    render_answer(data, explain=True, out=console)
    text = console.export_text()
    top = expected_top_region(demo)[0]
    assert "think loop: plan" in text and "Aggregates: sum(total_amt)" in text
    assert "round 1 (rejected" in text and "executes (error)" in text and "division by zero" in text
    assert "round 2 (accepted, 1 row(s))" in text and "LLM critic: ok" in text
    assert "stopped: the critic found no problem" in text and "4 LLM call(s) of 8" in text
    assert top in text and "1 row(s)" in text
    short = Console(record=True, width=250, color_system=None)
    render_answer(data, explain=False, out=short)
    assert "think loop: 2 round(s); stopped: the critic found no problem" in short.export_text()


def test_cli_ask_explain_on_the_think_route(demo, monkeypatch):
    """`sqlgenie ask --route think --explain` with the scripted provider as the configured LLM."""
    import sqlgenie.llm
    from typer.testing import CliRunner

    from sqlgenie.cli import app
    from sqlgenie.config import reset_settings

    llm = ScriptedProvider(staged([DIV_ZERO, RIGHT]))
    monkeypatch.setattr(sqlgenie.llm, "get_provider", lambda *a, **k: llm)
    monkeypatch.setenv("SQLGENIE_DATABASE_URL", demo.database_url.get_secret_value())
    monkeypatch.setenv("COLUMNS", "200")
    reset_settings()
    result = CliRunner().invoke(app, ["ask", QUESTION, "--route", "think", "--explain"])
    assert result.exit_code == 0, result.output
    out = result.output
    assert "route think (think)" in out and "think loop: plan" in out and "Grouping: region_name" in out
    assert "round 1 (rejected" in out and "division by zero" in out and "round 2 (accepted, 1 row(s))" in out
    assert "stopped: the critic found no problem" in out and expected_top_region(demo)[0] in out
    assert len(llm.requests) == 4


@pytest.mark.parametrize("kind", ["anthropic", "openai"])
def test_once_through_the_http_stub_of_each_real_provider(demo, kind):
    from sqlgenie.llm.anthropic_provider import AnthropicProvider
    from sqlgenie.llm.openai_provider import OpenAICompatibleProvider

    stub = LLMStub().start()
    try:
        if kind == "anthropic":
            body = lambda text: anthropic_message(text, input_tokens=300, output_tokens=20)  # noqa: E731
            llm = AnthropicProvider(api_key="sk-ant-test-key-0000", model="claude-test", base_url=stub.url,
                                    max_retries=0)
        else:
            body = lambda text: openai_completion(text, prompt_tokens=300, completion_tokens=20)  # noqa: E731
            llm = OpenAICompatibleProvider(base_url=stub.url + "/v1", model="qwen2.5-coder:7b", max_retries=0)
        stub.plan(Reply(body=body(PLAN)), Reply(body=body(sql_block(RIGHT))), Reply(body=body("OK")))
        with Asker.open(demo, provider=llm) as asker:
            r = asker.ask(QUESTION, route="think")
    finally:
        stub.stop()
    assert r.status == "ok" and r.think.loop["stop_reason"] == "accepted", r.message
    assert [tuple(x) for x in r.rows] == [tuple(expected_top_region(demo))]
    assert r.llm["calls"] == 3 and r.llm["input_tokens"] == 900 and r.llm["output_tokens"] == 60
    sent = [req.json for req in stub.requests]
    assert len(sent) == 3
    if kind == "anthropic":
        systems = [b["system"] if isinstance(b["system"], str) else b["system"][0]["text"] for b in sent]
        users = [b["messages"][-1]["content"] for b in sent]
    else:
        systems = [b["messages"][0]["content"] for b in sent]
        users = [b["messages"][-1]["content"] for b in sent]
    users = [u if isinstance(u, str) else u[0]["text"] for u in users]
    assert "query planner" in systems[0] and "one PostgreSQL SELECT" in systems[1] and "You review" in systems[2]
    assert f"Question: {QUESTION}" in users[0] and "Plan:\n" + PLAN in users[1] and "LIMIT 1" in users[2]


def test_replay_provider_answers_generation_from_recorded_predictions(tmp_path):
    path = tmp_path / "preds.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in [
        {"index": 0, "db_id": "concert_singer", "question": "How many singers do we have?",
         "sql": 'SELECT count(*) FROM singer WHERE country = "France";', "dialect": "sqlite"},
        {"index": 1, "db_id": "pets_1", "question": "How many pets?", "sql": "SELECT count(*) FROM pets"},
    ]) + "\n")
    llm = ReplayProvider(path, schemas={"concert_singer": "cs_schema"})
    assert len(llm) == 2

    def ask(stage: str, database: str, question: str) -> str:
        prompt = f"Database: {database}\nQuestion: {question}\nToday: 2025-01-01\n"
        return llm.complete([ChatMessage.user(prompt)], system="s", stage=stage).text

    answer = ask("think_generate", "cs_schema", "how many  singers do we have?")
    assert answer.startswith("```sql") and "'France'" in answer and '"France"' not in answer
    assert ask("think_generate", "pets_1", "How many pets?") == "```sql\nSELECT count(*) FROM pets\n```"
    assert ask("think_plan", "pets_1", "How many pets?") == PLAN_TEXT
    assert ask("think_critic", "pets_1", "How many pets?") == "OK"
    with pytest.raises(LLMResponseError, match="No recorded prediction"):
        ask("think_generate", "pets_1", "How many dogs?")
    assert llm.misses == 1
    from sqlgenie.errors import ConfigError

    with pytest.raises(ConfigError):  # an evaluation tool, never a configurable provider
        load_settings(llm_provider="replay")


def test_replay_through_the_loop_on_the_demo(demo, tmp_path):
    """A recorded prediction drives the loop: the checks run on it, and a rejected
    prediction ends the loop (the replay has one answer per question)."""
    path = tmp_path / "preds.jsonl"
    path.write_text(json.dumps({"db_id": "demo", "question": QUESTION, "sql": DIV_ZERO}) + "\n"
                    + json.dumps({"db_id": "demo", "question": "Top region by revenue in 2024", "sql": RIGHT}) + "\n")
    settings = demo.model_copy(update={"think_llm_critic": False})
    with Asker.open(settings, provider=ReplayProvider(path)) as asker:
        bad = asker.ask(QUESTION, route="think")
        good = asker.ask("Top region by revenue in 2024", route="think")
    assert bad.status == "refused" and bad.think.loop["stop_reason"] == "no_progress", (bad.message, bad.error)
    assert bad.think.loop["plan"] == PLAN_TEXT
    assert good.status == "ok" and good.think.loop["stop_reason"] == "accepted"
    assert [tuple(x) for x in good.rows] == [tuple(expected_top_region(demo))]
