"""``sqlgenie mcp`` through the MCP SDK's own stdio client: the real command as a
subprocess, on a real embedded PostgreSQL holding the demo (onboarded, seed bank).
The tools call the same library functions as the CLI, so their results are compared
with those functions' results on the same store."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from typing import Any

import psycopg
import pytest

from serve_fixtures import demo_store
from sqlgenie.config import Settings

mcp = pytest.importorskip("mcp")

QUESTION = "How many orders were placed in 2023?"


@pytest.fixture(scope="module")
def demo_settings(module_db_url: str) -> Settings:
    return demo_store(module_db_url)


def _params(db_url: str, tmp_path) -> Any:
    from mcp.client.stdio import StdioServerParameters

    env = {k: v for k, v in os.environ.items() if not k.startswith("SQLGENIE_")}
    env.update(SQLGENIE_DATABASE_URL=db_url, SQLGENIE_DATA_DIR=os.environ["SQLGENIE_DATA_DIR"],
               SQLGENIE_MCP_USER="mcp-test", SQLGENIE_SERVER_URL="http://127.0.0.1:9")
    return StdioServerParameters(command=sys.executable, args=["-m", "sqlgenie", "mcp"], env=env, cwd=str(tmp_path))


def _data(result) -> Any:
    """A tool result's JSON (structured content, else its text)."""
    if getattr(result, "structured_content", None) is not None:
        return result.structured_content
    if getattr(result, "structuredContent", None) is not None:
        return result.structuredContent
    return json.loads(result.content[0].text)


def _text(result) -> str:
    return " ".join(getattr(c, "text", "") for c in result.content)


async def _session(params, steps):
    from mcp import Client

    async with Client(params, read_timeout_seconds=300) as client:
        return await steps(client)


def test_mcp_tools_over_stdio(demo_settings: Settings, module_db_url: str, tmp_path):
    from onboarding.catalog_admin import list_tables, show_table

    async def steps(client):
        out: dict[str, Any] = {}
        tools = await client.list_tools()
        out["tools"] = {t.name: t for t in tools.tools}
        out["tables"] = await client.call_tool("list_tables", {"schema": "demo"})
        out["describe"] = await client.call_tool("describe_table", {"name": "demo.orders", "values": 3})
        out["missing"] = await client.call_tool("describe_table", {"name": "no_such_table"})
        out["ask"] = await client.call_tool("ask", {"question": QUESTION})
        out["novel"] = await client.call_tool("ask", {"question": "Which warehouse manager has the best morale?"})
        out["empty"] = await client.call_tool("ask", {"question": "   "})
        ask_id = _data(out["ask"])["id"]
        out["feedback"] = await client.call_tool("feedback", {"ask_id": ask_id, "verdict": "down",
                                                              "comment": "count distinct orders"})
        out["bad_feedback"] = await client.call_tool("feedback", {"ask_id": 987654321, "verdict": "up"})
        return out

    out = asyncio.run(_session(_params(module_db_url, tmp_path), steps))

    assert set(out["tools"]) == {"ask", "feedback", "list_tables", "describe_table"}
    ask_schema = out["tools"]["ask"].input_schema if hasattr(out["tools"]["ask"], "input_schema") \
        else out["tools"]["ask"].inputSchema
    assert ask_schema["required"] == ["question"]

    with psycopg.connect(module_db_url, autocommit=True) as store:
        expected_tables = json.loads(json.dumps(list_tables(store, "demo"), default=str))
        expected_orders = show_table(store, "demo.orders", values=3)
    tables = _data(out["tables"])["tables"]
    assert [(t["schema"], t["table"], t["primary_key"]) for t in tables] == \
        [(t["schema"], t["table"], t["primary_key"]) for t in expected_tables]
    assert ("demo", "orders") in {(t["schema"], t["table"]) for t in tables}

    described = _data(out["describe"])
    assert [(c["column"], c["type"]) for c in described["columns"]] == \
        [(c["column"], c["type"]) for c in expected_orders["columns"]]
    assert "order_id" in {c["column"] for c in described["columns"]}

    def is_error(r) -> bool:
        return bool(getattr(r, "is_error", None) or getattr(r, "isError", None))

    assert is_error(out["missing"]) and "no_such_table" in _text(out["missing"])

    answer = _data(out["ask"])
    assert not is_error(out["ask"])
    assert answer["status"] == "ok" and answer["route"] == "match" and answer["rows"]
    assert "2023" in answer["sql"] and isinstance(answer["id"], int)

    novel = _data(out["novel"])
    assert novel["status"] == "refused" and novel["message"]

    assert is_error(out["empty"]) and "empty" in _text(out["empty"])

    fb = _data(out["feedback"])
    assert not is_error(out["feedback"]) and fb["verdict"] == "down" and fb["ask_id"] == answer["id"]
    with psycopg.connect(module_db_url, autocommit=True) as store:
        row = store.execute("SELECT verdict, comment, user_name FROM sqlgenie.feedback WHERE ask_id = %s",
                            (answer["id"],)).fetchone()
    assert row == ("down", "count distinct orders", "mcp-test")
    assert is_error(out["bad_feedback"]) and "987654321" in _text(out["bad_feedback"])
