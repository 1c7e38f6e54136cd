"""Defog alternative-gold expansion and the metric helpers (pure)."""

from __future__ import annotations

import pytest

from sqlgenie.errors import QueryTimeoutError, SQLSyntaxError, UnknownIdentifierError
from sqlgenie.eval.defog import dump_schema, expand_gold, plan_dump, split_alternatives
from sqlgenie.eval.metrics import (
    Cost,
    cost_summary,
    error_bucket,
    outcome_rates,
    prf,
    schema_selection_scores,
    transition_rates,
    used_schema_items,
)


def test_expand_column_alternatives_and_group_by():
    gold = "SELECT {a.name, a.id}, COUNT(*) FROM a GROUP BY {} ORDER BY 2"
    assert expand_gold(gold) == [
        "SELECT a.name, COUNT(*) FROM a GROUP BY a.name ORDER BY 2",
        "SELECT a.id, COUNT(*) FROM a GROUP BY a.id ORDER BY 2",
        "SELECT a.name, a.id, COUNT(*) FROM a GROUP BY a.name, a.id ORDER BY 2",
    ]


def test_semicolon_alternatives_respect_quotes():
    gold = "SELECT 'a;b' AS x;SELECT {p, q} FROM t;;SELECT 'I''m; here'"
    assert split_alternatives(gold) == ["SELECT 'a;b' AS x", "SELECT {p, q} FROM t", "SELECT 'I''m; here'"]
    assert expand_gold(gold) == ["SELECT 'a;b' AS x", "SELECT p FROM t", "SELECT q FROM t", "SELECT p, q FROM t", "SELECT 'I''m; here'"]


def test_braces_inside_strings_are_not_alternatives():
    assert expand_gold("SELECT '{x, y}' FROM t") == ["SELECT '{x, y}' FROM t"]


def test_options_with_function_calls():
    out = expand_gold("SELECT {COALESCE(a, b), c} FROM t")
    assert out == ["SELECT COALESCE(a, b) FROM t", "SELECT c FROM t", "SELECT COALESCE(a, b), c FROM t"]


def test_dump_rewrite_to_schema():
    dump = "CREATE TABLE public.t (a int);\nINSERT INTO public.t (a) VALUES (1), (2);\n-- public.x in a comment\nSELECT 'public.t';"
    plan = plan_dump(dump, "defog_x")
    assert 'CREATE TABLE "defog_x".t' in plan.sql
    assert 'INSERT INTO "defog_x".t' in plan.sql
    assert "'public.t'" in plan.sql and "-- public.x" in plan.sql  # strings and comments untouched
    assert plan.schema == "defog_x" and not plan.own_schema
    own = plan_dump("CREATE SCHEMA IF NOT EXISTS consumer_div;\nCREATE TABLE consumer_div.users (uid bigint);", "defog_e")
    assert own.schema == "consumer_div" and own.own_schema
    assert dump_schema("CREATE TABLE t (a int);") is None


def test_error_buckets():
    e = UnknownIdentifierError("Unknown column x")
    e.kind = "column"
    assert error_bucket(e) == "no_such_column"
    t = UnknownIdentifierError("Unknown table x")
    t.kind = "table or view"
    assert error_bucket(t) == "no_such_table"
    f = UnknownIdentifierError("Unknown function f")
    f.kind = "function"
    assert error_bucket(f) == "function"
    assert error_bucket(SQLSyntaxError("bad")) == "syntax"
    assert error_bucket(QueryTimeoutError("slow")) == "timeout"
    assert error_bucket("no such table: x") == "no_such_table"
    assert error_bucket(ValueError("boom")) == "other"


def test_rates_and_transitions():
    assert outcome_rates(["correct", "incorrect", "error", "correct"]) == {
        "correct_rate": 0.5,
        "incorrect_rate": 0.25,
        "error_rate": 0.25,
    }
    tr = transition_rates(["incorrect", "error", "correct", "correct"], ["correct", "correct", "incorrect", "error"])
    assert tr["incorrect_to_correct"] == 0.25 and tr["error_to_correct"] == 0.25
    assert tr["correct_to_incorrect"] == 0.25 and tr["correct_to_error"] == 0.25
    assert tr["net_gain"] == 0.0
    with pytest.raises(ValueError):
        transition_rates(["correct"], [])


def test_schema_items_resolve_aliases_and_scopes():
    tables = {"singer": ["singer_id", "name", "age"], "concert": ["concert_id", "singer_id", "year"]}
    sql = (
        "SELECT t1.name FROM singer AS t1 JOIN concert AS t2 ON t1.singer_id = t2.singer_id "
        "WHERE t2.year > (SELECT MAX(year) FROM concert) AND age > 3"
    )
    items = used_schema_items(sql, tables)
    assert items.tables == {"singer", "concert"}
    assert items.columns == {("singer", "name"), ("singer", "singer_id"), ("concert", "singer_id"), ("concert", "year"), ("singer", "age")}
    star = used_schema_items("SELECT * FROM singer", tables)
    assert star.columns == {("singer", c) for c in tables["singer"]}
    scores = schema_selection_scores(star, items)
    assert scores["table_precision"] == 1.0 and scores["table_recall"] == 0.5
    assert prf([], []) == {"precision": 1.0, "recall": 1.0, "f1": 1.0}


def test_cost_accounting():
    a = Cost.from_record({"llm_calls": 2, "input_tokens": 100, "output_tokens": 20, "stage_ms": {"generate": 50.0}})
    b = Cost.from_record({"latency_ms": 30})
    b.add_call(10, 5)
    b.add_stage("generate", 10)
    s = cost_summary([a, b])
    assert s["llm_calls"] == 3 and s["input_tokens"] == 110 and s["output_tokens"] == 25
    assert s["mean_stage_ms"] == {"generate": 30.0, "total": 15.0}
    assert a.merge(b).total_ms == 90.0
