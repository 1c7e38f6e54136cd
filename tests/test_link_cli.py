"""``sqlgenie link``: kept tables and columns with reasons and linked values, as text
and as JSON (real PostgreSQL, real MiniLM); ``sqlgenie eval values`` on the Spider fixture."""

from __future__ import annotations

import json

import psycopg
import pytest
import typer
from typer.testing import CliRunner

from test_eval_fixtures import make_spider_dataset

DDL = """
CREATE TABLE public.singer (singer_id integer PRIMARY KEY, name text, country text, age integer);
CREATE TABLE public.concert (concert_id integer PRIMARY KEY, concert_name text, year text,
    singer_id integer REFERENCES public.singer);
INSERT INTO public.singer SELECT g, 'Singer ' || g, (ARRAY['France','Netherlands','United States'])[1 + g % 3], 20 + g
FROM generate_series(1, 30) g;
INSERT INTO public.concert SELECT g, 'Concert ' || g, (2010 + g % 6)::text, 1 + g % 30 FROM generate_series(1, 40) g;
ANALYZE;
"""


@pytest.fixture
def onboarded(settings, fresh_db_url):
    from onboarding.service import OnboardOptions, onboard_schema
    from sqlgenie.store.migrations import ensure_migrated

    ensure_migrated(fresh_db_url)
    with psycopg.connect(fresh_db_url, autocommit=True) as conn:
        conn.execute(DDL)
    onboard_schema("public", settings=settings, options=OnboardOptions(llm=None, measure_indexes=False))
    return settings


def test_link_command_json_and_text(onboarded):
    from sqlgenie.cli import app

    run = CliRunner().invoke(app, ["link", "Which French singers performed in concerts in 2013?", "--json"])
    assert run.exit_code == 0, run.output
    data = json.loads(run.stdout.strip().splitlines()[-1])
    assert 0 < data["kept_columns"] <= data["total_columns"] == 8
    assert data["situation"] == "values"  # the tables hold rows
    singer = {c["column"]: c["reason"] for c in data["tables"]["public.singer"]}
    assert singer["country"] in ("score", "value")
    assert {"score", "key", "join", "value", "all"} >= {c["reason"] for cols in data["tables"].values() for c in cols}
    best = {(l["span"], l["column"], l["value"]) for l in data["links"] if l["rank"] == 1}
    assert ("French", "public.singer.country", "France") in best
    assert ("2013", "public.concert.year", "2013") in best
    assert any("public.concert.singer_id = public.singer.singer_id" in j for j in data["joins"])

    text = CliRunner().invoke(app, ["link", "singers from the Netherlands", "--no-probes"])
    assert text.exit_code == 0, text.output
    assert "public.singer" in text.stdout and "'Netherlands'" in text.stdout and "linked values" in text.stdout


def test_eval_values_command_on_fixture(tmp_path, settings):
    from sqlgenie.cli.eval_values_cmd import values
    from sqlgenie.inference.eval_values import eval_values

    data = make_spider_dataset(tmp_path / "spider")
    result = eval_values(data, settings=settings, dbs={"shop"})
    s = result.summary
    assert s["task"] == "values" and s["questions"] > 0
    assert s["literals_in_db"] <= s["literals"]
    for key in ("recall_at_1", "recall_at_5", "naive_recall_at_5"):
        assert 0.0 <= s[key] <= 1.0
    assert s["recall_at_1"] <= s["recall_at_5"]
    app = typer.Typer()
    app.command("values")(values)
    app.command("noop")(lambda: None)
    run = CliRunner().invoke(app, ["values", "--dataset", str(data), "--dbs", "shop", "--no-probes"])
    assert run.exit_code == 0, run.output
    summary = json.loads(run.stdout.strip().splitlines()[-1])
    assert summary["task"] == "values" and summary["probes"] is False
