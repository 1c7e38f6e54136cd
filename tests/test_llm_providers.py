"""LLM provider layer against a local HTTP stub (no network): requests sent, responses
parsed, retries, error mapping, usage accounting. Nothing here measures LLM quality."""

from __future__ import annotations

import email.utils
import threading
import time

import pytest
from llm_stub import (
    LLMStub,
    Reply,
    anthropic_error,
    anthropic_message,
    openai_completion,
    openai_error,
)

from sqlgenie.config import load_settings
from sqlgenie.errors import LLMError, LLMNotConfiguredError, LLMRateLimitError, LLMResponseError, LLMTimeoutError
from sqlgenie.llm import (
    CallRecord,
    ChatMessage,
    LLMProvider,
    LLMResponse,
    OpenAICompatibleProvider,
    ScriptedProvider,
    ScriptExhaustedError,
    Usage,
    UsageTracker,
    get_provider,
)
from sqlgenie.llm.base import RetryPolicy, parse_retry_after

API_KEY = "sk-test-SECRET-0123456789abcdef"
FAST = {"backoff_base_s": 0.001, "backoff_max_s": 0.01}


@pytest.fixture
def stub():
    s = LLMStub().start()
    yield s
    s.stop()


class SleepRecorder:
    """Stands in for time.sleep: records the backoff delays without waiting."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)


def _conversation() -> list[ChatMessage]:
    return [
        ChatMessage("user", "How many orders?"),
        ChatMessage("assistant", "Which year?"),
        ChatMessage("user", "2024"),
    ]


# --- Anthropic -------------------------------------------------------------------------


def _anthropic(stub: LLMStub, tracker: UsageTracker, **kw):
    from sqlgenie.llm.anthropic_provider import AnthropicProvider

    kw.setdefault("timeout_s", 5.0)
    kw.setdefault("max_retries", 2)
    return AnthropicProvider(api_key=API_KEY, model="claude-test-model", base_url=stub.url, tracker=tracker, **kw)


def test_anthropic_success_sends_messages_request_and_counts_usage(stub):
    stub.plan(Reply(200, anthropic_message("SELECT count(*) FROM orders", input_tokens=31, output_tokens=9)))
    tracker = UsageTracker()
    llm = _anthropic(stub, tracker)
    resp = llm.complete(_conversation(), system="You write PostgreSQL.", max_tokens=300, stage="generate")

    assert [r.path for r in stub.requests] == ["/v1/messages"]
    req = stub.requests[0]
    # SDK 2.x sends the key as a bearer token; older SDKs used x-api-key. Either way, the key, exactly.
    assert req.headers.get("x-api-key") == API_KEY or req.headers.get("authorization") == f"Bearer {API_KEY}"
    assert req.headers.get("anthropic-version")
    body = req.json
    assert body["model"] == "claude-test-model"
    assert body["system"] == "You write PostgreSQL."
    assert body["max_tokens"] == 300
    assert body["messages"] == [
        {"role": "user", "content": "How many orders?"},
        {"role": "assistant", "content": "Which year?"},
        {"role": "user", "content": "2024"},
    ]
    assert "temperature" not in body  # SDK 2.x API version rejects sampling parameters

    assert isinstance(resp, LLMResponse)
    assert resp.text == "SELECT count(*) FROM orders"
    assert resp.usage == Usage(31, 9)
    assert resp.model == "claude-sonnet-4-5-20250929"
    assert resp.stop_reason == "end_turn"
    assert resp.latency_ms > 0
    s = tracker.summary()
    assert s["stages"]["generate"]["calls"] == 1
    assert s["stages"]["generate"]["input_tokens"] == 31
    assert s["stages"]["generate"]["output_tokens"] == 9
    assert s["total"]["errors"] == 0


def test_anthropic_temperature_sent_only_when_enabled(stub):
    stub.plan(Reply(200, anthropic_message("ok")), Reply(200, anthropic_message("ok")))
    llm = _anthropic(stub, UsageTracker(), send_temperature=True, temperature=0.0)
    llm.complete([ChatMessage("user", "hi")], temperature=0.3)
    llm.complete([ChatMessage("user", "hi")])
    assert stub.requests[0].json["temperature"] == 0.3
    assert stub.requests[1].json["temperature"] == 0.0
    assert "system" not in stub.requests[1].json


def test_anthropic_429_with_retry_after_then_success(stub):
    stub.plan(
        Reply(429, anthropic_error("rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit"), {"retry-after": "2"}),
        Reply(200, anthropic_message("ok", input_tokens=4, output_tokens=1)),
    )
    tracker, sleep = UsageTracker(), SleepRecorder()
    resp = _anthropic(stub, tracker, sleep=sleep, **FAST).complete([ChatMessage("user", "hi")], stage="gen")
    assert resp.text == "ok"
    assert len(stub.requests) == 2  # the SDK's own retries are off: every attempt is ours
    assert sleep.delays == [pytest.approx(2.0)]  # retry-after honoured (longer than the fast backoff)
    g = tracker.summary()["stages"]["gen"]
    assert (g["calls"], g["errors"], g["retries"], g["input_tokens"]) == (2, 1, 1, 4)
    assert g["error_types"] == {"RateLimited": 1}


def test_anthropic_overloaded_529_is_retried(stub):
    stub.plan(Reply(529, anthropic_error("overloaded_error", "Overloaded")), Reply(200, anthropic_message("fine")))
    tracker = UsageTracker()
    assert _anthropic(stub, tracker, sleep=SleepRecorder(), **FAST).complete([ChatMessage("user", "x")]).text == "fine"
    assert tracker.summary()["total"]["retries"] == 1


def test_anthropic_persistent_429_raises_rate_limit_error(stub):
    stub.default = Reply(429, anthropic_error("rate_limit_error", "slow down"), {"retry-after": "0"})
    tracker, sleep = UsageTracker(), SleepRecorder()
    with pytest.raises(LLMRateLimitError) as info:
        _anthropic(stub, tracker, max_retries=2, sleep=sleep, **FAST).complete([ChatMessage("user", "x")])
    assert "3 attempts" in info.value.message and "slow down" in info.value.message
    assert len(stub.requests) == 3
    assert len(sleep.delays) == 2
    t = tracker.summary()["total"]
    assert (t["calls"], t["errors"], t["retries"]) == (3, 3, 2)


def test_anthropic_401_is_a_response_error_without_the_key(stub):
    stub.plan(Reply(401, anthropic_error("authentication_error", f"invalid x-api-key {API_KEY}")))
    tracker = UsageTracker()
    with pytest.raises(LLMResponseError) as info:
        _anthropic(stub, tracker, sleep=SleepRecorder()).complete([ChatMessage("user", "x")])
    text = str(info.value)
    assert "401" in text and "authentication_error" in text
    assert API_KEY not in text and "SECRET" not in text
    assert "API key" in info.value.hint
    assert len(stub.requests) == 1  # not retried
    assert tracker.summary()["total"]["errors"] == 1


def test_anthropic_400_reports_provider_message(stub):
    stub.plan(Reply(400, anthropic_error("invalid_request_error", "max_tokens: must be less than 64000")))
    with pytest.raises(LLMResponseError, match="max_tokens: must be less than 64000"):
        _anthropic(stub, UsageTracker()).complete([ChatMessage("user", "x")])


def test_anthropic_timeout(stub):
    stub.plan(Reply(200, anthropic_message("late"), delay_s=1.5))
    tracker = UsageTracker()
    t0 = time.perf_counter()
    with pytest.raises(LLMTimeoutError, match="0.3 s"):
        _anthropic(stub, tracker, timeout_s=0.3).complete([ChatMessage("user", "x")])
    assert time.perf_counter() - t0 < 1.4
    assert tracker.summary()["total"]["error_types"] == {"LLMTimeoutError": 1}


@pytest.mark.parametrize(
    "reply",
    [
        Reply(200, "<html>502 Bad Gateway</html>", content_type="text/html"),
        Reply(200, '{"id": "msg_1", "type": "message", "content": ', content_type="application/json"),
        Reply(200, {"id": "msg_1", "type": "message", "role": "assistant", "content": [], "stop_reason": "end_turn", "usage": {"input_tokens": 1, "output_tokens": 0}}),
    ],
    ids=["html", "truncated-json", "no-text-block"],
)
def test_anthropic_malformed_body(stub, reply):
    stub.plan(reply)
    tracker = UsageTracker()
    with pytest.raises(LLMResponseError):
        _anthropic(stub, tracker).complete([ChatMessage("user", "x")])
    assert tracker.summary()["total"]["errors"] == 1


# --- OpenAI-compatible -------------------------------------------------------------------


def _openai(stub: LLMStub, tracker: UsageTracker, **kw):
    kw.setdefault("timeout_s", 5.0)
    kw.setdefault("max_retries", 2)
    kw.setdefault("api_key", API_KEY)
    return OpenAICompatibleProvider(base_url=stub.url + "/v1/", model="qwen2.5-coder:7b", tracker=tracker, **kw)


def test_openai_success_sends_chat_completion(stub):
    stub.plan(Reply(200, openai_completion("SELECT 1", prompt_tokens=42, completion_tokens=3)))
    tracker = UsageTracker()
    resp = _openai(stub, tracker, temperature=0.0, max_tokens=2048).complete(
        _conversation(), system="You write PostgreSQL.", temperature=0.2, max_tokens=128, stage="repair"
    )
    req = stub.requests[0]
    assert req.path == "/v1/chat/completions"
    assert req.headers["authorization"] == f"Bearer {API_KEY}"
    assert req.headers["content-type"].startswith("application/json")
    body = req.json
    assert body["model"] == "qwen2.5-coder:7b"
    assert body["messages"] == [
        {"role": "system", "content": "You write PostgreSQL."},
        {"role": "user", "content": "How many orders?"},
        {"role": "assistant", "content": "Which year?"},
        {"role": "user", "content": "2024"},
    ]
    assert body["temperature"] == 0.2 and body["max_tokens"] == 128
    assert (resp.text, resp.usage, resp.stop_reason, resp.model) == ("SELECT 1", Usage(42, 3), "stop", "qwen2.5-coder:7b")
    r = tracker.summary()["stages"]["repair"]
    assert (r["calls"], r["input_tokens"], r["output_tokens"]) == (1, 42, 3)


def test_openai_defaults_no_key_no_system(stub):
    stub.plan(Reply(200, openai_completion("hi")))
    _openai(stub, UsageTracker(), api_key=None, temperature=0.7, max_tokens=99).complete([ChatMessage("user", "hello")])
    req = stub.requests[0]
    assert "authorization" not in req.headers
    assert req.json["messages"] == [{"role": "user", "content": "hello"}]
    assert (req.json["temperature"], req.json["max_tokens"]) == (0.7, 99)


def test_openai_missing_usage_counts_zero(stub):
    stub.plan(Reply(200, openai_completion("SELECT 2", prompt_tokens=None)))
    tracker = UsageTracker()
    resp = _openai(stub, tracker).complete([ChatMessage("user", "x")])
    assert resp.text == "SELECT 2" and resp.usage == Usage(0, 0)
    assert tracker.summary()["total"]["calls"] == 1


@pytest.mark.parametrize("status", [429, 500, 503])
def test_openai_transient_status_then_success(stub, status):
    stub.plan(
        Reply(status, openai_error("try again", type_="requests", code="rate_limit_exceeded"), {"retry-after": "1"}),
        Reply(200, openai_completion("ok")),
    )
    tracker, sleep = UsageTracker(), SleepRecorder()
    assert _openai(stub, tracker, sleep=sleep, **FAST).complete([ChatMessage("user", "x")]).text == "ok"
    assert len(stub.requests) == 2 and sleep.delays == [pytest.approx(1.0)]
    t = tracker.summary()["total"]
    assert (t["calls"], t["errors"], t["retries"]) == (2, 1, 1)


def test_openai_persistent_429_and_backoff_grows(stub):
    stub.default = Reply(429, openai_error("Rate limit reached for requests", type_="requests"))
    sleep = SleepRecorder()
    with pytest.raises(LLMRateLimitError, match="Rate limit reached"):
        _openai(stub, UsageTracker(), max_retries=3, sleep=sleep, backoff_base_s=1.0, backoff_max_s=100).complete(
            [ChatMessage("user", "x")]
        )
    assert len(stub.requests) == 4
    # exponential with jitter in [50%, 100%] of 1, 2, 4 s
    assert len(sleep.delays) == 3
    for attempt, d in enumerate(sleep.delays):
        assert 0.5 * 2**attempt <= d <= 2**attempt


def test_openai_persistent_5xx_is_a_response_error(stub):
    stub.default = Reply(502, "Bad Gateway", content_type="text/plain")
    with pytest.raises(LLMResponseError, match="502"):
        _openai(stub, UsageTracker(), max_retries=1, sleep=SleepRecorder()).complete([ChatMessage("user", "x")])
    assert len(stub.requests) == 2


def test_openai_retry_after_beyond_cap_fails_fast(stub):
    stub.default = Reply(429, openai_error("quota"), {"retry-after": "3600"})
    sleep = SleepRecorder()
    with pytest.raises(LLMRateLimitError, match="3600"):
        _openai(stub, UsageTracker(), sleep=sleep).complete([ChatMessage("user", "x")])
    assert sleep.delays == [] and len(stub.requests) == 1


def test_openai_401_redacts_key(stub):
    stub.plan(Reply(401, openai_error(f"Incorrect API key provided: {API_KEY}.", code="invalid_api_key")))
    with pytest.raises(LLMResponseError) as info:
        _openai(stub, UsageTracker()).complete([ChatMessage("user", "x")])
    assert "401" in info.value.message and "Incorrect API key provided" in info.value.message
    assert API_KEY not in str(info.value)
    assert len(stub.requests) == 1


def test_openai_404_model_hint(stub):
    stub.plan(Reply(404, {"error": "model 'qwen2.5-coder:7b' not found, try pulling it first"}))
    with pytest.raises(LLMResponseError, match="not found") as info:
        _openai(stub, UsageTracker()).complete([ChatMessage("user", "x")])
    assert "SQLGENIE_LLM_MODEL" in info.value.hint


def test_openai_timeout(stub):
    stub.plan(Reply(200, openai_completion("late"), delay_s=1.5))
    tracker = UsageTracker()
    t0 = time.perf_counter()
    with pytest.raises(LLMTimeoutError):
        _openai(stub, tracker, timeout_s=0.3).complete([ChatMessage("user", "x")], stage="s")
    assert time.perf_counter() - t0 < 1.4
    assert tracker.summary()["stages"]["s"]["errors"] == 1


@pytest.mark.parametrize(
    "reply, what",
    [
        (Reply(200, "I am not JSON", content_type="text/plain"), "not JSON"),
        (Reply(200, {"object": "chat.completion", "choices": []}), "no choices"),
        (Reply(200, {"choices": [{"index": 0, "message": {"role": "assistant", "content": None}}]}), "content"),
        (Reply(200, ["a", "list"]), "not a JSON object"),
    ],
)
def test_openai_malformed_body(stub, reply, what):
    stub.plan(reply)
    with pytest.raises(LLMResponseError, match=what):
        _openai(stub, UsageTracker()).complete([ChatMessage("user", "x")])
    assert len(stub.requests) == 1


def test_openai_unreachable_endpoint_retries_then_llm_error():
    probe = LLMStub()  # bind a port, then close it: nothing listens there
    url = probe.url
    probe.server.server_close()
    tracker = UsageTracker()
    llm = OpenAICompatibleProvider(base_url=url + "/v1", model="m", tracker=tracker, max_retries=2, timeout_s=2, **FAST)
    with pytest.raises(LLMError, match="Could not reach") as info:
        llm.complete([ChatMessage("user", "x")])
    assert not isinstance(info.value, (LLMRateLimitError, LLMTimeoutError))
    assert tracker.summary()["total"]["calls"] == 3


def test_anthropic_unreachable_endpoint_is_retried_then_llm_error():
    from sqlgenie.llm.anthropic_provider import AnthropicProvider

    probe = LLMStub()
    url = probe.url
    probe.server.server_close()
    tracker = UsageTracker()
    llm = AnthropicProvider(api_key=API_KEY, model="m", base_url=url, tracker=tracker, max_retries=1, timeout_s=2, **FAST)
    with pytest.raises(LLMError, match="Could not reach Anthropic API after 2 attempts"):
        llm.complete([ChatMessage("user", "x")])
    assert tracker.summary()["total"]["error_types"] == {"ConnectionError": 2}


# --- get_provider --------------------------------------------------------------------------


def test_get_provider_none_is_not_configured():
    with pytest.raises(LLMNotConfiguredError) as info:
        get_provider(load_settings(llm_provider="none"))
    assert "SQLGENIE_LLM_PROVIDER" in info.value.message
    assert "ANTHROPIC_API_KEY" in info.value.hint


def test_get_provider_default_settings_is_not_configured():
    with pytest.raises(LLMNotConfiguredError):
        get_provider()


def test_get_provider_anthropic_without_key():
    with pytest.raises(LLMNotConfiguredError, match="ANTHROPIC_API_KEY"):
        get_provider(load_settings(llm_provider="anthropic"))


def test_get_provider_openai_without_base_url():
    with pytest.raises(LLMNotConfiguredError, match="SQLGENIE_LLM_BASE_URL"):
        get_provider(load_settings(llm_provider="openai"))


def test_get_provider_scripted_needs_script():
    with pytest.raises(LLMNotConfiguredError, match="script"):
        get_provider(load_settings(llm_provider="scripted"))
    llm = get_provider(load_settings(llm_provider="scripted"), script=["a"])
    assert isinstance(llm, ScriptedProvider) and llm.complete([ChatMessage("user", "q")]).text == "a"


def test_get_provider_openai_from_environment(stub, monkeypatch):
    monkeypatch.setenv("SQLGENIE_LLM_PROVIDER", "openai")
    monkeypatch.setenv("SQLGENIE_LLM_BASE_URL", stub.url + "/v1")
    monkeypatch.setenv("SQLGENIE_LLM_MODEL", "llama3.1:8b")
    monkeypatch.setenv("OPENAI_API_KEY", API_KEY)
    monkeypatch.setenv("SQLGENIE_LLM_MAX_TOKENS", "77")
    stub.plan(Reply(200, openai_completion("pong")))
    tracker = UsageTracker()
    llm = get_provider(tracker=tracker)
    assert isinstance(llm, LLMProvider) and llm.name == "openai"
    assert llm.complete([ChatMessage("user", "ping")]).text == "pong"
    req = stub.requests[0]
    assert req.headers["authorization"] == f"Bearer {API_KEY}"
    assert (req.json["model"], req.json["max_tokens"]) == ("llama3.1:8b", 77)
    assert tracker.summary()["total"]["calls"] == 1


def test_get_provider_anthropic_uses_base_url_and_retry_settings(stub, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", API_KEY)  # load_settings(llm_api_key=...) is ignored (alias-only field)
    stub.plan(Reply(503, anthropic_error("api_error", "Internal server error")), Reply(200, anthropic_message("pong")))
    settings = load_settings(llm_provider="anthropic", llm_base_url=stub.url, llm_max_retries=1, llm_model="claude-x")
    tracker, sleep = UsageTracker(), SleepRecorder()
    llm = get_provider(settings, tracker, sleep=sleep, backoff_base_s=0.25)
    assert llm.name == "anthropic"
    assert llm.complete([ChatMessage("user", "ping")]).text == "pong"
    assert stub.requests[1].json["model"] == "claude-x"
    assert len(sleep.delays) == 1 and 0.125 <= sleep.delays[0] <= 0.25


# --- ScriptedProvider -----------------------------------------------------------------------


def test_scripted_answers_in_order_and_records_requests():
    tracker = UsageTracker()
    llm = ScriptedProvider(["SELECT 1", "SELECT  2 ;"], tracker=tracker)
    assert isinstance(llm, LLMProvider)
    r1 = llm.complete([ChatMessage("user", "one two three")], system="be brief", stage="gen", temperature=0.5)
    r2 = llm.complete([ChatMessage("user", "again")], stage="repair")
    assert (r1.text, r2.text) == ("SELECT 1", "SELECT  2 ;")
    # approximate tokens: whitespace-separated words (system + messages; answer)
    assert r1.usage == Usage(input_tokens=5, output_tokens=2)
    assert r2.usage == Usage(input_tokens=1, output_tokens=3)
    assert [(r.stage, r.system, r.temperature) for r in llm.requests] == [("gen", "be brief", 0.5), ("repair", None, 0.0)]
    assert llm.requests[0].last_user_message == "one two three"
    assert llm.remaining == 0
    with pytest.raises(ScriptExhaustedError, match="call #3.*only 2"):
        llm.complete([ChatMessage("user", "more")], stage="gen")
    s = tracker.summary()
    assert s["stages"]["gen"]["calls"] == 2 and s["stages"]["gen"]["errors"] == 1
    assert s["total"]["calls"] == 3


def test_scripted_exception_items_are_raised_not_retried():
    tracker = UsageTracker()
    llm = ScriptedProvider([LLMRateLimitError("scripted 429"), "after"], tracker=tracker, max_retries=3)
    with pytest.raises(LLMRateLimitError, match="scripted 429"):
        llm.complete([ChatMessage("user", "x")])
    assert llm.complete([ChatMessage("user", "x")]).text == "after"
    assert (tracker.summary()["total"]["calls"], tracker.summary()["total"]["errors"]) == (2, 1)


def test_scripted_callable():
    seen = []

    def script(messages, system, stage):
        seen.append((stage, system))
        return f"{stage}:{messages[-1].content.upper()}"

    llm = ScriptedProvider(script, tracker=UsageTracker())
    assert llm.complete([ChatMessage("user", "abc")], system="sys", stage="plan").text == "plan:ABC"
    assert seen == [("plan", "sys")] and llm.remaining is None
    with pytest.raises(TypeError):
        ScriptedProvider(lambda m, s, st: 42, tracker=UsageTracker()).complete([ChatMessage("user", "x")])


def test_request_validation():
    llm = ScriptedProvider(["x"], tracker=UsageTracker())
    with pytest.raises(ValueError):
        llm.complete([])
    with pytest.raises(TypeError):
        llm.complete("just a string")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="system="):
        ChatMessage("system", "nope")  # type: ignore[arg-type]
    assert llm.requests == []


# --- UsageTracker and retry helpers ----------------------------------------------------------


def _rec(stage, ok=True, i=0, o=0, ms=1.0, retried=False, error=None):
    return CallRecord(stage=stage, provider="p", model="m", ok=ok, latency_ms=ms, input_tokens=i, output_tokens=o, error=error, retried=retried)


def test_usage_tracker_summary_per_stage_and_reset():
    t = UsageTracker()
    t.record(_rec("generate", i=100, o=20, ms=10))
    t.record(_rec("generate", i=50, o=10, ms=30))
    t.record(_rec("repair", ok=False, ms=5, retried=True, error="RateLimited"))
    s = t.summary()
    g, r = s["stages"]["generate"], s["stages"]["repair"]
    assert (g["calls"], g["input_tokens"], g["output_tokens"], g["latency_ms"], g["avg_latency_ms"]) == (2, 150, 30, 40, 20)
    assert (r["calls"], r["errors"], r["retries"], r["error_types"]) == (1, 1, 1, {"RateLimited": 1})
    assert s["total"]["calls"] == 3 and s["total"]["input_tokens"] == 150 and s["total"]["latency_ms"] == 45
    assert len(t.records()) == 3
    t.reset()
    assert t.summary() == {"stages": {}, "total": {"calls": 0, "errors": 0, "retries": 0, "input_tokens": 0, "output_tokens": 0, "latency_ms": 0.0, "avg_latency_ms": 0.0, "error_types": {}}}


def test_usage_tracker_thread_safe():
    t = UsageTracker(keep_records=10)
    llm = ScriptedProvider(lambda m, s, st: "a b", tracker=t)

    def work(stage):
        for _ in range(200):
            llm.complete([ChatMessage("user", "w1 w2 w3")], stage=stage)

    threads = [threading.Thread(target=work, args=(f"s{i % 2}",)) for i in range(8)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    s = t.summary()
    assert s["total"]["calls"] == 1600
    assert s["total"]["input_tokens"] == 1600 * 3 and s["total"]["output_tokens"] == 1600 * 2
    assert s["stages"]["s0"]["calls"] == s["stages"]["s1"]["calls"] == 800
    assert len(t.records()) == 10 and len(llm.requests) == 1600


def test_retry_policy_delay_bounds():
    p = RetryPolicy(base_s=0.5, max_s=3.0, jitter=0.5)
    for attempt, full in [(0, 0.5), (1, 1.0), (2, 2.0), (3, 3.0), (8, 3.0)]:
        for _ in range(20):
            assert full * 0.5 <= p.delay(attempt, None) <= full
    assert p.delay(0, 7.0) == 7.0  # retry-after wins when longer
    assert p.delay(3, 0.1) >= 1.5  # backoff wins when longer


def test_parse_retry_after():
    assert parse_retry_after({"Retry-After": "3"}) == 3.0
    assert parse_retry_after({"retry-after": "1.5"}) == 1.5
    assert parse_retry_after({"retry-after-ms": "250", "retry-after": "9"}) == 0.25
    assert parse_retry_after({"retry-after": "soon"}) is None
    assert parse_retry_after({}) is None
    future = email.utils.formatdate(time.time() + 30, usegmt=True)
    assert 25 <= parse_retry_after({"retry-after": future}) <= 31
