"""Test fixtures on a real embedded PostgreSQL (never a mock).

One server per test session under a temporary data directory (or
``SQLGENIE_TEST_DATA_DIR`` to reuse one between runs); each test that needs
isolation gets its own database from :func:`fresh_db_url`.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import uuid
from pathlib import Path

import psycopg
import pytest
from psycopg.conninfo import make_conninfo

from sqlgenie.config import load_settings, reset_settings
from sqlgenie.store import embedded


@pytest.fixture(scope="session")
def pg_data_dir() -> Path:
    reuse = os.environ.get("SQLGENIE_TEST_DATA_DIR")
    if reuse:
        path = Path(reuse).resolve()
        path.mkdir(parents=True, exist_ok=True)
        yield path
        return
    # Short path under /tmp: Unix socket paths are limited to ~100 characters.
    path = Path(tempfile.mkdtemp(prefix="sqlgenie-test-", dir="/tmp"))
    yield path
    embedded.stop(path / "pgdata")
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture(scope="session")
def pg_server_url(pg_data_dir: Path) -> str:
    """URI of the session's embedded server (database ``postgres``)."""
    return embedded.ensure_running(pg_data_dir / "pgdata")


@pytest.fixture(autouse=True)
def _isolated_env(monkeypatch: pytest.MonkeyPatch, pg_data_dir: Path, tmp_path: Path):
    """Every test sees the session's data dir and no user configuration."""
    for key in list(os.environ):
        if key.startswith("SQLGENIE_") or key in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY"):
            monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("SQLGENIE_DATA_DIR", str(pg_data_dir))
    monkeypatch.setenv("SQLGENIE_CONFIG", str(tmp_path / "absent.toml"))
    monkeypatch.delenv("SQLGENIE_CONFIG")
    monkeypatch.chdir(tmp_path)  # no stray sqlgenie.toml from the repo
    reset_settings()
    yield
    reset_settings()


def _create_database(server_url: str) -> tuple[str, str]:
    name = "t_" + uuid.uuid4().hex[:12]
    with psycopg.connect(server_url, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    return name, make_conninfo(server_url, dbname=name)


def _drop_database(server_url: str, name: str) -> None:
    with psycopg.connect(server_url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
def fresh_db_url(pg_server_url: str):
    """Conninfo of a brand-new empty database, dropped after the test."""
    name, url = _create_database(pg_server_url)
    yield url
    _drop_database(pg_server_url, name)


@pytest.fixture(scope="module")
def module_db_url(pg_server_url: str):
    """A database shared by the tests of one module (for expensive setup)."""
    name, url = _create_database(pg_server_url)
    yield url
    _drop_database(pg_server_url, name)


@pytest.fixture
def settings(fresh_db_url: str, monkeypatch: pytest.MonkeyPatch):
    """Settings whose store (and target) is a fresh database."""
    monkeypatch.setenv("SQLGENIE_DATABASE_URL", fresh_db_url)
    reset_settings()
    return load_settings()
