"""`sqlgenie bank ...` through a real subprocess on a fresh database (real model)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import psycopg
import pytest

TIMEOUT = 240


def run(url: str, *args: str, ok: bool = True) -> subprocess.CompletedProcess:
    env = dict(os.environ, SQLGENIE_DATABASE_URL=url, COLUMNS="200")
    proc = subprocess.run(
        [sys.executable, "-m", "sqlgenie", "bank", *args], capture_output=True, text=True, env=env, timeout=TIMEOUT
    )
    if ok:
        assert proc.returncode == 0, proc.stderr
    return proc


def last_json(proc: subprocess.CompletedProcess) -> dict:
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.fixture
def db(fresh_db_url):
    with psycopg.connect(fresh_db_url, autocommit=True) as conn:
        conn.execute("CREATE TABLE orders (id int PRIMARY KEY, customer text, amount numeric, placed_at date)")
    return fresh_db_url


def test_help_has_examples():
    from typer.testing import CliRunner

    from sqlgenie.cli import app

    runner = CliRunner()
    for command in ("add", "import", "list", "show", "search", "remove", "export"):
        result = runner.invoke(app, ["bank", command, "--help"], env={"COLUMNS": "200"})
        assert result.exit_code == 0 and "Example:" in result.output, (command, result.output)
    proc = subprocess.run(
        [sys.executable, "-m", "sqlgenie", "bank", "--help"], capture_output=True, text=True, timeout=TIMEOUT
    )
    assert proc.returncode == 0 and "search" in proc.stdout


def test_add_errors_are_clear(db):
    proc = run(db, "add", "Remove orders", "DELETE FROM orders", ok=False)
    assert proc.returncode == 4 and "DELETE" in proc.stderr and "hint" in proc.stderr
    proc = run(db, "add", "Unknown", "SELECT * FROM nowhere", ok=False)
    assert proc.returncode == 2 and "nowhere" in proc.stderr
    proc = run(db, "add", "Broken", "SELECT FROM (", ok=False)
    assert proc.returncode == 4 and "does not parse" in proc.stderr


def test_import_list_show_search_export_remove(db, tmp_path):
    source = tmp_path / "pairs.jsonl"
    source.write_text(
        "\n".join(
            json.dumps(r)
            for r in [
                {"question": "How many orders did customer 'Acme' place?",
                 "sql": "SELECT count(*) FROM orders WHERE customer = 'Acme'"},
                {"question": "Total amount of orders placed in 2023",
                 "sql": "SELECT sum(amount) AS total FROM orders WHERE placed_at >= DATE '2023-01-01' "
                        "AND placed_at < DATE '2024-01-01'"},
                {"question": "Drop it", "sql": "DROP TABLE orders"},
            ]
        )
        + "\n"
    )
    rejected = tmp_path / "rejected.jsonl"
    proc = run(db, "import", str(source), "--json", "--rejected", str(rejected))
    report = last_json(proc)
    assert (report["rows"], report["added"], report["rejected"]) == (3, 2, 1)
    assert report["rejected_rows"][0]["row"] == 3
    assert json.loads(rejected.read_text())["error"] == "UnsafeSQLError"

    listing = last_json(run(db, "list", "--json"))
    assert listing["total"] == 2
    first = listing["examples"][0]
    assert first["masked_question"] == "How many orders did customer [MASK] place?"

    shown = last_json(run(db, "show", str(first["id"]), "--json"))
    assert shown["skeleton"] == "SELECT COUNT(*) FROM orders WHERE customer = ?"
    assert shown["tables"] == ["orders"]

    found = last_json(run(db, "search", "How many orders did customer 'Globex' place?", "--json"))
    assert found["masked_question"] == "How many orders did customer [MASK] place?"
    assert found["threshold"] == 0.75
    assert found["matches"][0]["id"] == first["id"] and found["matches"][0]["exact"]
    assert found["matches"][0]["score"] == 1.0

    out = tmp_path / "export.csv"
    assert last_json(run(db, "export", str(out), "--json"))["exported"] == 2
    assert "How many orders did customer 'Acme' place?" in out.read_text()

    assert last_json(run(db, "remove", str(first["id"]), "--json"))["removed"] == first["id"]
    proc = run(db, "show", str(first["id"]), ok=False)
    assert proc.returncode == 2 and "No example" in proc.stderr
    assert last_json(run(db, "list", "--json"))["total"] == 1
