"""LLM provider layer: one interface, three providers, retries and usage accounting.

    from sqlgenie.llm import ChatMessage, get_provider
    llm = get_provider()                      # from settings; LLMNotConfiguredError if none
    resp = llm.complete([ChatMessage("user", "...")], system="...", stage="generate")
    resp.text, resp.usage.input_tokens, resp.latency_ms

Providers: ``anthropic`` (official SDK), ``openai`` (any OpenAI-compatible
``/chat/completions`` endpoint over httpx) and ``scripted`` (tests).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sqlgenie.llm.base import BaseProvider, LLMProvider, RetryPolicy
from sqlgenie.llm.factory import config_problem, get_provider
from sqlgenie.llm.openai_provider import OpenAICompatibleProvider
from sqlgenie.llm.scripted import ScriptedProvider, ScriptedRequest, ScriptExhaustedError, approx_tokens
from sqlgenie.llm.types import ChatMessage, LLMResponse, Usage
from sqlgenie.llm.usage import CallRecord, UsageTracker, default_tracker

if TYPE_CHECKING:
    from sqlgenie.llm.anthropic_provider import AnthropicProvider

__all__ = [
    "AnthropicProvider",
    "BaseProvider",
    "CallRecord",
    "ChatMessage",
    "LLMProvider",
    "LLMResponse",
    "OpenAICompatibleProvider",
    "RetryPolicy",
    "ScriptExhaustedError",
    "ScriptedProvider",
    "ScriptedRequest",
    "Usage",
    "UsageTracker",
    "approx_tokens",
    "config_problem",
    "default_tracker",
    "get_provider",
]


def __getattr__(name: str) -> Any:
    # AnthropicProvider is loaded on first use: importing the SDK takes ~2 s.
    if name == "AnthropicProvider":
        from sqlgenie.llm.anthropic_provider import AnthropicProvider

        return AnthropicProvider
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
