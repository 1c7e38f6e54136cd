"""Build the configured provider from :class:`~sqlgenie.config.Settings`."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from sqlgenie.config import Settings, get_settings
from sqlgenie.errors import LLMNotConfiguredError
from sqlgenie.llm.base import BaseProvider, LLMProvider
from sqlgenie.llm.usage import UsageTracker, default_tracker


def config_problem(settings: Settings) -> str | None:
    """Why ``settings`` cannot make a provider, or None when they can."""
    provider = settings.llm_provider
    key = settings.llm_api_key.get_secret_value() if settings.llm_api_key else ""
    if provider == "none":
        return "No LLM provider is configured (SQLGENIE_LLM_PROVIDER is 'none')."
    if not settings.llm_model:
        return "SQLGENIE_LLM_MODEL is empty."
    if provider == "anthropic" and not key:
        return "SQLGENIE_LLM_PROVIDER=anthropic but no API key is set (ANTHROPIC_API_KEY or SQLGENIE_LLM_API_KEY)."
    if provider == "openai" and not settings.llm_base_url:
        return "SQLGENIE_LLM_PROVIDER=openai but SQLGENIE_LLM_BASE_URL is not set (e.g. http://localhost:11434/v1)."
    return None


def get_provider(
    settings: Settings | None = None,
    tracker: UsageTracker | None = None,
    *,
    script: Iterable[Any] | Callable[..., str] | None = None,
    backoff_base_s: float | None = None,
    sleep: Callable[[float], None] | None = None,
) -> LLMProvider:
    """The provider named by ``settings.llm_provider`` (default: :func:`get_settings`).

    ``tracker`` defaults to the process-wide :func:`default_tracker`. ``script``
    is required for ``llm_provider="scripted"``. ``backoff_base_s`` and ``sleep``
    tune retries (tests make them fast).

    Raises LLMNotConfiguredError (with a hint) when the provider is ``none`` or
    its configuration is incomplete.
    """
    settings = settings or get_settings()
    problem = config_problem(settings)
    if problem:
        raise LLMNotConfiguredError(problem)
    common: dict[str, Any] = {
        "model": settings.llm_model,
        "timeout_s": settings.llm_timeout_s,
        "max_retries": settings.llm_max_retries,
        "temperature": settings.llm_temperature,
        "max_tokens": settings.llm_max_tokens,
        "tracker": tracker if tracker is not None else default_tracker(),
    }
    if backoff_base_s is not None:
        common["backoff_base_s"] = backoff_base_s
    if sleep is not None:
        common["sleep"] = sleep
    key = settings.llm_api_key.get_secret_value() if settings.llm_api_key else None
    provider: BaseProvider
    if settings.llm_provider == "anthropic":
        from sqlgenie.llm.anthropic_provider import AnthropicProvider

        provider = AnthropicProvider(api_key=key or "", base_url=settings.llm_base_url, **common)
    elif settings.llm_provider == "openai":
        from sqlgenie.llm.openai_provider import OpenAICompatibleProvider

        provider = OpenAICompatibleProvider(base_url=settings.llm_base_url or "", api_key=key, **common)
    elif settings.llm_provider == "scripted":
        if script is None:
            raise LLMNotConfiguredError(
                "SQLGENIE_LLM_PROVIDER=scripted needs a script, which only code can supply.",
                hint="Construct ScriptedProvider([...]) in tests, or call get_provider(settings, script=[...]).",
            )
        from sqlgenie.llm.scripted import ScriptedProvider

        common["model"] = "scripted" if settings.llm_model == Settings.model_fields["llm_model"].default else settings.llm_model
        provider = ScriptedProvider(script, **common)
    else:  # pragma: no cover - Settings validates the literal
        raise LLMNotConfiguredError(f"Unknown LLM provider {settings.llm_provider!r}.")
    return provider
