"""`sqlgenie sql` and `sqlgenie db create-reader` as a user runs them (subprocess)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

import psycopg
import pytest
from psycopg import sql as pgsql


@pytest.fixture
def target(fresh_db_url: str) -> str:
    with psycopg.connect(fresh_db_url, autocommit=True) as conn:
        conn.execute(
            "CREATE TABLE sentinel (id int, note text); INSERT INTO sentinel VALUES (1, 'keep'), (2, '[bold]x[/]')"
        )
    return fresh_db_url


def run_cli(url: str, *args: str, stdin: str | None = None, extra_env: dict[str, str] | None = None):
    env = dict(os.environ, SQLGENIE_DATABASE_URL=url, COLUMNS="200", **(extra_env or {}))
    return subprocess.run(
        [sys.executable, "-m", "sqlgenie", *args], input=stdin, capture_output=True, text=True, env=env, timeout=60
    )


def sentinel_rows(url: str) -> list[tuple]:
    with psycopg.connect(url) as conn:
        return conn.execute("SELECT id, note FROM sentinel ORDER BY id").fetchall()


def test_sql_json_success(target: str):
    proc = run_cli(target, "sql", "SELECT id, note, 1.5::numeric AS n FROM sentinel ORDER BY id", "--json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["columns"] == ["id", "note", "n"]
    assert out["rows"] == [[1, "keep", 1.5], [2, "[bold]x[/]", 1.5]]
    assert out["truncated"] is False
    assert isinstance(out["elapsed_ms"], (int, float)) and out["elapsed_ms"] >= 0
    assert proc.stdout.count("\n") == 1  # one JSON object


def test_sql_table_output_from_stdin_with_row_cap(target: str):
    proc = run_cli(target, "sql", "-", "--row-cap", "1", stdin="SELECT id, note FROM sentinel ORDER BY id DESC\n")
    assert proc.returncode == 0, proc.stderr
    assert "note" in proc.stdout
    assert "[bold]x[/]" in proc.stdout  # cell text is shown literally, not read as rich markup
    assert "keep" not in proc.stdout  # row cap 1
    assert "1 row(s), truncated" in proc.stdout


def test_sql_from_file_with_limit_alias_and_timeout(target: str, tmp_path: Path):
    query = tmp_path / "q.sql"
    query.write_text("-- report\nSELECT generate_series(1, 5) AS n;\n")
    proc = run_cli(target, "sql", "--file", str(query), "--limit", "2", "--json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["rows"] == [[1], [2]] and out["truncated"] is True
    slow = run_cli(target, "sql", "SELECT count(*) FROM generate_series(1, 1e9)", "--timeout-ms", "200")
    assert slow.returncode == 4
    assert "timeout" in slow.stderr.lower()
    assert "Traceback" not in slow.stderr


@pytest.mark.parametrize(
    ("query", "reason"),
    [
        ("COMMIT; DROP TABLE sentinel; SELECT 1", "Only one statement"),
        ("WITH d AS (DELETE FROM sentinel RETURNING *) SELECT * FROM d", "Data-modifying"),
    ],
)
def test_sql_rejected_statement_exits_nonzero_without_traceback(target: str, query: str, reason: str):
    proc = run_cli(target, "sql", query, "--json")
    assert proc.returncode == 4  # SQLError exit code
    assert reason in proc.stderr
    assert "hint" in proc.stderr.lower()
    assert "Traceback" not in proc.stderr
    assert proc.stdout == ""
    assert sentinel_rows(target) == [(1, "keep"), (2, "[bold]x[/]")]


def test_sql_unknown_table(target: str):
    proc = run_cli(target, "sql", "SELECT * FROM nope")
    assert proc.returncode == 4
    assert "Unknown table or view nope" in proc.stderr.replace('"', "")
    assert "Traceback" not in proc.stderr


def test_read_sql_inputs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    import io

    from sqlgenie.cli.sql_cmd import _read_sql
    from sqlgenie.errors import InputError

    with pytest.raises(InputError, match="No SQL given"):
        _read_sql(None, None)
    with pytest.raises(InputError, match="not both"):
        _read_sql("SELECT 1", tmp_path / "q.sql")
    with pytest.raises(InputError, match="Cannot read"):
        _read_sql(None, tmp_path / "missing.sql")
    monkeypatch.setattr("sys.stdin", io.StringIO("SELECT 42"))
    assert _read_sql("-", None) == "SELECT 42"
    assert _read_sql("SELECT 1", None) == "SELECT 1"


def test_db_create_reader_prints_a_working_url(target: str):
    role = "cli_reader_" + uuid.uuid4().hex[:6]
    try:
        proc = run_cli(target, "db", "create-reader", role, "--password", "pw 1", "--schema", "public", "--json")
        assert proc.returncode == 0, proc.stderr
        out = json.loads(proc.stdout)
        assert out["role"] == role and out["schemas"] == ["public"]
        query = run_cli(
            target,
            "sql",
            "SELECT current_user, count(*) FROM sentinel GROUP BY 1",
            "--json",
            extra_env={"SQLGENIE_TARGET_DATABASE_URL": out["url"]},
        )
        assert query.returncode == 0, query.stderr
        assert json.loads(query.stdout)["rows"] == [[role, 2]]
        human = run_cli(target, "db", "create-reader", role)  # idempotent, generated password
        assert human.returncode == 0, human.stderr
        assert "SQLGENIE_TARGET_DATABASE_URL=postgresql://" + role in human.stdout
    finally:
        with psycopg.connect(target, autocommit=True) as conn:
            if conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (role,)).fetchone():
                conn.execute(pgsql.SQL("DROP OWNED BY {r}; DROP ROLE {r}").format(r=pgsql.Identifier(role)))
