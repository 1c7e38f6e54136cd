"""The onboarding commands through the real CLI (subprocess, real embedded PostgreSQL)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import psycopg
import pytest

DDL = """
CREATE SCHEMA shop;
CREATE TABLE shop.customers (cust_id integer PRIMARY KEY, city text NOT NULL);
INSERT INTO shop.customers SELECT i, (ARRAY['München','Zürich','Paris'])[1 + i % 3] FROM generate_series(1, 60) i;
CREATE TABLE shop."Order Items" (item_id integer NOT NULL, cust_id integer NOT NULL, qty integer, total_amt numeric(8,2));
INSERT INTO shop."Order Items" SELECT i, 1 + i % 60, 1 + i % 4, i * 1.5 FROM generate_series(1, 200) i;
ANALYZE;
"""


def _cli(url: str, *args: str, width: int = 200) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SQLGENIE_")}
    env.update(SQLGENIE_DATABASE_URL=url, SQLGENIE_DATA_DIR=os.environ["SQLGENIE_DATA_DIR"], COLUMNS=str(width))
    return subprocess.run([sys.executable, "-m", "sqlgenie", *args], capture_output=True, text=True, env=env, timeout=120)


def _json(proc: subprocess.CompletedProcess):
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.fixture
def shop_url(fresh_db_url: str) -> str:
    with psycopg.connect(fresh_db_url, autocommit=True) as conn:
        conn.execute(DDL)
    return fresh_db_url


def test_cli_onboard_inspect_and_edit(shop_url: str):
    out = _json(_cli(shop_url, "onboard", "schema", "shop", "--json", "--no-index-benefit"))
    assert [t["table"] for t in out["tables"]] == ["Order Items", "customers"]
    proc = _cli(shop_url, "onboard", "table", 'shop."Order Items"', "--top-values", "5")
    assert proc.returncode == 0 and "shop.Order Items" in proc.stdout and "7/7" in proc.stderr  # progress bar on stderr

    tables = _json(_cli(shop_url, "tables", "list", "--json"))["tables"]
    assert {(t["schema"], t["table"]) for t in tables} == {("shop", "customers"), ("shop", "Order Items")}
    show = _json(_cli(shop_url, "tables", "show", "shop.customers", "--json"))
    city = [c for c in show["columns"] if c["column"] == "city"][0]
    assert city["searchable"] and city["top_values"][0]["value"] == "München" and show["primary_key"] == ["cust_id"]
    assert "Example:" in _cli(shop_url, "tables", "show", "--help").stdout

    joins = _json(_cli(shop_url, "joins", "list", "--status", "accepted", "--json"))["joins"]
    fk = [j for j in joins if j["from"] == "shop.Order Items" and j["from_columns"] == ["cust_id"]][0]
    assert fk["to"] == "shop.customers" and fk["decided_by"] == "score" and fk["evidence"]["inclusion"] == 1.0
    rejected = _json(_cli(shop_url, "joins", "reject", str(fk["id"]), "--json"))
    assert rejected["status"] == "rejected" and rejected["decided_by"] == "human"
    assert _json(_cli(shop_url, "joins", "accept", str(fk["id"]), "--json"))["status"] == "accepted"

    edited = _json(_cli(shop_url, "columns", "set", 'shop."Order Items".qty', "--synonyms", "units, pieces",
                        "--aggregation", "sum", "--mandatory", "--json"))
    assert edited["synonyms"] == ["units", "pieces"] and edited["mandatory"] and "synonyms" in edited["human_fields"]
    _json(_cli(shop_url, "onboard", "table", 'shop."Order Items"', "--json", "--no-index-benefit"))
    again = _json(_cli(shop_url, "tables", "show", 'shop."Order Items"', "--json"))
    assert [c for c in again["columns"] if c["column"] == "qty"][0]["synonyms"] == ["units", "pieces"]


def test_cli_errors(shop_url: str):
    proc = _cli(shop_url, "onboard", "table", "shop.custmers")
    assert proc.returncode == 2 and "shop.customers" in proc.stderr
    proc = _cli(shop_url, "tables", "show", "nosuch")
    assert proc.returncode == 2 and "not onboarded" in proc.stderr
    proc = _cli(shop_url, "joins", "list", "--status", "maybe")
    assert proc.returncode == 2 and "--status" in proc.stderr


def test_cli_tables_readable_in_an_80_column_terminal(shop_url: str):
    _json(_cli(shop_url, "onboard", "schema", "shop", "--json", "--no-index-benefit"))
    for args in (("tables", "show", 'shop."Order Items"'), ("tables", "list"), ("joins", "list")):
        proc = _cli(shop_url, *args, width=80)
        assert proc.returncode == 0, proc.stderr
        assert "…" not in proc.stdout, args  # folded, never cut
        assert max(len(line) for line in proc.stdout.splitlines()) <= 80, args
    show = _cli(shop_url, "tables", "show", 'shop."Order Items"', width=80).stdout
    assert "total_amt" in show and "synonyms total_amt: total amt, total amount" in show
    assert "synonyms total_amt" not in _cli(shop_url, "tables", "show", 'shop."Order Items"', width=160).stdout
