"""Store: embedded server lifecycle, migrations, configuration."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path

import psycopg
import pytest

from sqlgenie.config import load_settings
from sqlgenie.errors import ConfigError, DatabaseConnectionError
from sqlgenie.store import connect_store, embedded, open_connection
from sqlgenie.store.migrations import available_migrations, migrate


def test_migrations_apply_once_and_record(fresh_db_url: str):
    with open_connection(fresh_db_url, autocommit=True) as conn:
        first = migrate(conn)
        second = migrate(conn)
        versions = [r[0] for r in conn.execute("SELECT version FROM sqlgenie.schema_migrations ORDER BY 1")]
        exts = {r[0] for r in conn.execute("SELECT extname FROM pg_extension")}
        tables = {r[0] for r in conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'sqlgenie'")}
    assert [m.version for m in first] == [m.version for m in available_migrations()]
    assert second == []
    assert versions == [m.version for m in available_migrations()]
    assert {"vector", "pg_trgm"} <= exts
    assert {"schema_migrations", "query_log", "jobs"} <= tables


def test_concurrent_migrations_are_serialized(fresh_db_url: str):
    results: list[int] = []
    errors: list[BaseException] = []

    def run():
        try:
            with open_connection(fresh_db_url, autocommit=True) as conn:
                results.append(len(migrate(conn)))
        except BaseException as exc:  # noqa: BLE001 - surfaced by the assert below
            errors.append(exc)

    threads = [threading.Thread(target=run) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    # Exactly one runner applied everything; the others found nothing to do.
    assert sorted(results) == [0, 0, 0, len(available_migrations())]


def test_connect_store_uses_configured_url(settings):
    with connect_store(settings) as conn:
        db = conn.execute("SELECT current_database()").fetchone()[0]
        assert conn.execute("SELECT count(*) FROM sqlgenie.schema_migrations").fetchone()[0] >= 1
    assert db.startswith("t_")


def test_unreachable_url_gives_clear_error(monkeypatch):
    monkeypatch.setenv("SQLGENIE_DATABASE_URL", "postgresql://nobody:pw@127.0.0.1:1/none")
    with pytest.raises(DatabaseConnectionError) as info:
        with connect_store(load_settings()):
            pass
    assert "Cannot connect" in str(info.value)
    assert "Hint:" in str(info.value)


def test_embedded_server_start_status_stop(tmp_path_factory):
    data = Path("/tmp") / f"sg-embed-{tmp_path_factory.getbasetemp().name[-8:]}"
    pgdata = data / "pgdata"
    try:
        assert embedded.status(pgdata).running is False
        url = embedded.ensure_running(pgdata)
        st = embedded.status(pgdata)
        assert st.running and st.pid and st.uri == url
        assert embedded.ensure_running(pgdata) == url  # reused, not restarted
        assert embedded.status(pgdata).pid == st.pid
        with psycopg.connect(url) as conn:
            assert conn.execute("SELECT 1").fetchone() == (1,)
        assert embedded.stop(pgdata) is True
        assert embedded.status(pgdata).running is False
        assert embedded.stop(pgdata) is False
    finally:
        embedded.stop(pgdata)
        import shutil

        shutil.rmtree(data, ignore_errors=True)


def test_settings_from_toml_and_env(tmp_path, monkeypatch):
    cfg = tmp_path / "custom.toml"
    cfg.write_text('default_limit = 42\nrow_cap = 7\nllm_provider = "openai"\n')
    monkeypatch.setenv("SQLGENIE_CONFIG", str(cfg))
    monkeypatch.setenv("SQLGENIE_ROW_CAP", "9")  # env beats the file
    s = load_settings()
    assert (s.default_limit, s.row_cap, s.llm_provider) == (42, 9, "openai")


def test_invalid_settings_raise_config_error(monkeypatch):
    monkeypatch.setenv("SQLGENIE_DEFAULT_LIMIT", "-5")
    with pytest.raises(ConfigError, match="default_limit"):
        load_settings()
    monkeypatch.delenv("SQLGENIE_DEFAULT_LIMIT")
    monkeypatch.setenv("SQLGENIE_CONFIG", "/nonexistent/sqlgenie.toml")
    with pytest.raises(ConfigError, match="does not exist"):
        load_settings()


def test_secrets_are_masked(monkeypatch):
    monkeypatch.setenv("SQLGENIE_DATABASE_URL", "postgresql://alice:hunter2pass@db.example:5432/sales")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-verysecretvalue")
    shown = json.dumps(load_settings().masked())
    assert "hunter2pass" not in shown and "verysecretvalue" not in shown
    assert "alice:****@db.example" in shown


def _cli(*args: str, env_extra: dict | None = None) -> subprocess.CompletedProcess:
    import os

    env = dict(os.environ, **(env_extra or {}))
    return subprocess.run([sys.executable, "-m", "sqlgenie", *args], capture_output=True, text=True, env=env, timeout=120)


def test_cli_db_status_json_reports_embedded_server(pg_server_url):
    proc = _cli("db", "status", "--json")
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    assert report["mode"] == "embedded" and report["running"] is True
    assert report["extensions"].keys() == {"vector", "pg_trgm"}
    assert report["migrations"] == [m.version for m in available_migrations()]


def test_cli_config_show_masks_and_exits_zero():
    proc = _cli("config", "show", "--json", env_extra={"SQLGENIE_LLM_API_KEY": "topsecretkey123"})
    assert proc.returncode == 0, proc.stderr
    values = json.loads(proc.stdout)
    assert values["llm_api_key"] != "topsecretkey123" and "topsecretkey123" not in proc.stdout


def test_cli_error_exit_code_and_hint():
    proc = _cli("db", "status", env_extra={"SQLGENIE_DATABASE_URL": "postgresql://x:y@127.0.0.1:1/z"})
    assert proc.returncode == DatabaseConnectionError.exit_code
    assert "hint" in proc.stderr.lower() and "Traceback" not in proc.stderr


def test_ensure_migrated_applies_a_lower_numbered_missing_migration(fresh_db_url):
    from sqlgenie.store import migrations

    with open_connection(fresh_db_url, autocommit=True) as conn:
        migrate(conn)
        # Pretend version 2 never ran although later ones did (branches landing out of order).
        conn.execute("DELETE FROM sqlgenie.schema_migrations WHERE version = 2")
        conn.execute("DROP TABLE IF EXISTS sqlgenie.eval_loads")
    migrations._checked_urls.discard(fresh_db_url)
    migrations.ensure_migrated(fresh_db_url)
    with open_connection(fresh_db_url) as conn:
        assert 2 in migrations.applied_versions(conn)
        assert conn.execute("SELECT to_regclass('sqlgenie.eval_loads')").fetchone()[0] is not None
