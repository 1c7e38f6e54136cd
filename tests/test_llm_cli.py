"""``sqlgenie llm status`` / ``llm ping`` as a user runs them (subprocess), against a local stub."""

from __future__ import annotations

import json
import re
import os
import subprocess
import sys

import pytest
from llm_stub import LLMStub, Reply, openai_completion, openai_error

from prompts import load_prompt

KEY = "sk-cli-SECRET-9876543210fedcba"


@pytest.fixture
def stub():
    s = LLMStub().start()
    yield s
    s.stop()


def run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    full_env = {**os.environ, "COLUMNS": "200", "NO_COLOR": "1", **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "sqlgenie", "llm", *args], capture_output=True, text=True, env=full_env, timeout=60
    )


def openai_env(stub: LLMStub, **extra: str) -> dict[str, str]:
    return {
        "SQLGENIE_LLM_PROVIDER": "openai",
        "SQLGENIE_LLM_BASE_URL": f"{stub.url}/v1",
        "SQLGENIE_LLM_MODEL": "qwen2.5-coder:7b",
        "SQLGENIE_LLM_API_KEY": KEY,
        "SQLGENIE_LLM_MAX_RETRIES": "0",
        **extra,
    }


def test_status_json_reports_config_and_masks_key(stub):
    proc = run("status", "--json", env=openai_env(stub))
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["provider"] == "openai"
    assert report["model"] == "qwen2.5-coder:7b"
    assert report["base_url"] == f"{stub.url}/v1"
    assert report["api_key_present"] is True
    assert report["configured"] is True and report["problem"] is None
    assert KEY not in proc.stdout + proc.stderr and "SECRET" not in proc.stdout
    assert stub.requests == []  # status never calls the provider


def test_status_text_unconfigured_and_key_never_printed():
    proc = run("status", env={"SQLGENIE_LLM_PROVIDER": "anthropic", "SQLGENIE_LLM_API_KEY": ""})
    assert proc.returncode == 0
    assert "not configured" in proc.stdout and "ANTHROPIC_API_KEY" in proc.stdout
    proc = run("status", env={"SQLGENIE_LLM_PROVIDER": "anthropic", "ANTHROPIC_API_KEY": KEY})
    assert proc.returncode == 0 and "configured" in proc.stdout and "not configured" not in proc.stdout
    assert re.search(r"api key\s+set", proc.stdout)
    assert KEY not in proc.stdout + proc.stderr and KEY[:8] not in proc.stdout


def test_status_warns_about_claude_model_on_openai_endpoint(stub):
    env = openai_env(stub)
    del env["SQLGENIE_LLM_MODEL"]
    report = json.loads(run("status", "--json", env=env).stdout)
    assert report["model"].startswith("claude") and any("SQLGENIE_LLM_MODEL" in w for w in report["warnings"])


def test_ping_json_against_stub(stub):
    stub.plan(Reply(200, openai_completion("pong", prompt_tokens=14, completion_tokens=1)))
    proc = run("ping", "--json", env=openai_env(stub))
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["ok"] is True
    assert (report["input_tokens"], report["output_tokens"], report["reply"]) == (14, 1, "pong")
    assert report["latency_ms"] > 0 and report["attempts"] == 1
    req = stub.requests[0]
    assert req.path == "/v1/chat/completions"
    assert req.headers["authorization"] == f"Bearer {KEY}"
    body = req.json
    assert body["model"] == "qwen2.5-coder:7b"
    assert body["messages"] == [{"role": "user", "content": load_prompt("llm_ping.txt").substitute().strip()}]
    assert body["max_tokens"] == 64


def test_ping_text_reports_latency_and_tokens(stub):
    stub.plan(Reply(200, openai_completion("pong", prompt_tokens=14, completion_tokens=1)))
    proc = run("ping", env=openai_env(stub))
    assert proc.returncode == 0, proc.stderr
    assert "pong" in proc.stdout and "14 input + 1 output tokens" in proc.stdout and " ms" in proc.stdout


def test_ping_unconfigured_exits_nonzero_with_hint():
    proc = run("ping")
    assert proc.returncode == 5
    assert "No LLM provider is configured" in proc.stderr
    assert "SQLGENIE_LLM_PROVIDER=anthropic" in proc.stderr  # the hint
    assert "Traceback" not in proc.stderr + proc.stdout
    proc = run("ping", "--json")
    assert proc.returncode == 5
    out = json.loads(proc.stdout)
    assert out["ok"] is False and out["error"] == "LLMNotConfiguredError" and "SQLGENIE_LLM_BASE_URL" in out["hint"]


def test_ping_auth_error_is_clean_and_redacted(stub):
    stub.plan(Reply(401, openai_error(f"Incorrect API key provided: {KEY}", code="invalid_api_key")))
    proc = run("ping", env=openai_env(stub))
    assert proc.returncode == 5
    assert "401" in proc.stderr and "Incorrect API key provided" in proc.stderr
    assert KEY not in proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr


def test_every_llm_command_has_an_example():
    from sqlgenie.cli import llm_cmd

    commands = llm_cmd.app.registered_commands
    assert {c.name for c in commands} == {"status", "ping"}
    for c in commands:
        assert "Example: sqlgenie llm " + c.name in (c.callback.__doc__ or "")
