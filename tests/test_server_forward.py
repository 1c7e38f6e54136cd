"""`sqlgenie ask` with a server running: forwarded (same JSON, same printed answer)
without importing the model, psycopg or the other commands; answered locally when
the server is another store's, switched off, or absent."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest

from serve_fixtures import demo_store, live_server
from sqlgenie.server.client import parse_ask_args
from sqlgenie.server.users import add_user
from sqlgenie.store.connection import open_connection

QUESTION = "Total revenue from stores in Palo Alto"
HEAVY_PACKAGES = {"psycopg", "pydantic_settings", "onnxruntime", "sqlglot", "numpy", "typer"}
HEAVY_MODULES = {"sqlgenie.cli", "sqlgenie.config", "sqlgenie.cli.db", "sqlgenie.inference.pipeline"}


@pytest.fixture(scope="module")
def server(module_db_url):
    settings = demo_store(module_db_url)
    with live_server(settings) as url:
        yield url, settings


def run_cli(*args: str, env_extra: dict[str, str], importtime: bool = False) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SQLGENIE_")}
    env.update({"COLUMNS": "200"} | env_extra)
    cmd = [sys.executable] + (["-X", "importtime"] if importtime else []) + ["-m", "sqlgenie", *args]
    return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=180)


def base_env(url: str, settings, db_url: str) -> dict[str, str]:
    return {"SQLGENIE_DATABASE_URL": db_url, "SQLGENIE_DATA_DIR": str(settings.data_dir),
            "SQLGENIE_SERVER_PORT": url.rsplit(":", 1)[1]}


def imported(stderr: str) -> set[str]:
    return {line.split("|")[-1].strip() for line in stderr.splitlines() if line.startswith("import time:")}


def test_ask_json_is_forwarded_without_heavy_imports(server, module_db_url):
    url, settings = server
    proc = run_cli("ask", QUESTION, "--json", env_extra=base_env(url, settings, module_db_url), importtime=True)
    assert proc.returncode == 0, proc.stderr[-3000:]
    data = json.loads(proc.stdout)
    assert data["status"] == "ok" and "'Palo Alto'" in data["sql"] and data["rows"]
    modules = imported(proc.stderr)
    assert "sqlgenie.server.client" in modules
    assert not [m for m in modules if m.split(".")[0] in HEAVY_PACKAGES or m in HEAVY_MODULES]
    with open_connection(module_db_url) as conn:  # the server answered and logged it
        row = conn.execute("SELECT question, status FROM sqlgenie.query_log WHERE id = %s", (data["id"],)).fetchone()
    assert row == (QUESTION, "ok")


ANSI = re.compile(r"\x1b\[[0-9;]*m")


def _comparable(text: str) -> str:
    text = re.sub(r"(\x1b\[[0-9;]*m|\b)id \d+", r"\1id N", text)
    lines = text.splitlines()
    timing = next((i for i, line in enumerate(lines) if ANSI.sub("", line).startswith("ms:")), len(lines))
    return "\n".join(lines[:timing])  # the time per stage (last, maybe wrapped) differs from run to run


def test_forwarded_answer_prints_like_a_local_one(server, module_db_url):
    url, settings = server
    env = base_env(url, settings, module_db_url)
    for args in (("ask", QUESTION, "--explain"), ("ask", "Which employees earn the highest salaries?")):
        remote = run_cli(*args, env_extra=env, importtime=True)
        local = run_cli(*args, env_extra=env | {"SQLGENIE_SERVER_URL": "off"}, importtime=True)
        assert remote.returncode == local.returncode == 0, (remote.stderr[-2000:], local.stderr[-2000:])
        assert "psycopg" not in imported(remote.stderr) and "psycopg" in imported(local.stderr)
        assert not {m.split(".")[0] for m in imported(remote.stderr)} & {"rich", "pygments", "typer"}
        assert _comparable(remote.stdout) == _comparable(local.stdout)
        assert "route" in remote.stdout


@pytest.mark.parametrize("term", [{"FORCE_COLOR": "1", "COLORTERM": "truecolor"}, {"FORCE_COLOR": "1", "TERM": "xterm-256color"},
                                  {"FORCE_COLOR": "1", "TERM": "xterm"}, {"FORCE_COLOR": "1", "NO_COLOR": "1"},
                                  {"COLUMNS": "60"}])
def test_forwarded_answer_keeps_the_terminal_style(server, module_db_url, term):
    """Colours and width as rich would choose them in this shell (the server renders)."""
    url, settings = server
    env = base_env(url, settings, module_db_url) | term
    remote = run_cli("ask", QUESTION, env_extra=env)
    local = run_cli("ask", QUESTION, env_extra=env | {"SQLGENIE_SERVER_URL": "off"})
    assert remote.returncode == local.returncode == 0, (remote.stderr[-2000:], local.stderr[-2000:])
    assert _comparable(remote.stdout) == _comparable(local.stdout)
    assert ("\x1b[" in remote.stdout) == ("FORCE_COLOR" in term)  # NO_COLOR keeps bold and dim
    assert ("\x1b[94m" in remote.stdout) == ("FORCE_COLOR" in term and "NO_COLOR" not in term)  # keywords' colour


def test_explicit_url_with_token_and_a_refused_token(server, module_db_url):
    url, settings = server
    with open_connection(module_db_url, autocommit=True) as store:
        _, token = add_user(store, "forward-user", "asker")
    env = {"SQLGENIE_DATABASE_URL": module_db_url, "SQLGENIE_DATA_DIR": "/nonexistent-dir",
           "SQLGENIE_SERVER_URL": url, "SQLGENIE_TOKEN": token}
    proc = run_cli("ask", QUESTION, "--json", "--limit", "1", env_extra=env)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["status"] == "ok"
    bad = run_cli("ask", QUESTION, env_extra=env | {"SQLGENIE_TOKEN": "sg_wrong"})
    assert bad.returncode == 1 and "refused the token" in bad.stderr and not bad.stdout


def test_a_server_on_another_store_is_not_used(server, fresh_db_url):
    url, settings = server
    env = {"SQLGENIE_DATABASE_URL": fresh_db_url, "SQLGENIE_DATA_DIR": str(settings.data_dir),
           "SQLGENIE_SERVER_PORT": url.rsplit(":", 1)[1]}
    proc = run_cli("ask", QUESTION, "--json", env_extra=env, importtime=True)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "psycopg" in imported(proc.stderr)  # answered locally: an empty store refuses
    assert json.loads(proc.stdout.strip().splitlines()[-1])["status"] == "refused"


def test_parse_ask_args_declines_what_the_full_cli_should_handle():
    assert parse_ask_args(["q", "--json", "--limit=3", "--route", "match"]).limit == 3
    got = parse_ask_args(["--explain", "--no-execute", "--", "--weird question"])
    assert got.question == "--weird question" and got.explain and not got.execute
    for argv in (["--help"], ["q", "--limit", "0"], ["q", "--route", "guess"], [], ["   "], ["a", "b"],
                 ["q", "--unknown"], ["q", "--limit"]):
        assert parse_ask_args(argv) is None, argv


def test_plain_socket_client_reads_chunked_and_refuses_garbage():
    import socket
    import threading

    from sqlgenie.server.client import HTTPError, _dechunk, _request

    assert _dechunk(b"4\r\nWiki\r\n6;x=1\r\npedia \r\n0\r\n\r\n") == b"Wikipedia "
    replies = [b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\n{}\n\r\n0\r\n\r\n", b"SSH-2.0-OpenSSH\r\n\r\n"]
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]

        def serve() -> None:
            for reply in replies:
                conn, _ = listener.accept()
                with conn:
                    conn.recv(65536)
                    conn.sendall(reply)

        thread = threading.Thread(target=serve, daemon=True)
        thread.start()
        assert _request("http", "127.0.0.1", port, "GET", "/api/health", timeout=5) == (200, b"{}\n")
        with pytest.raises(HTTPError, match="not an HTTP response"):
            _request("http", "127.0.0.1", port, "GET", "/", timeout=5)
        thread.join(timeout=5)
