"""``sqlgenie llm``: check the LLM configuration and connectivity."""

from __future__ import annotations

from typing import Any

import typer

from sqlgenie.cli.common import JSON_OPTION, console, print_json
from sqlgenie.config import get_settings
from sqlgenie.errors import LLMError, LLMNotConfiguredError

app = typer.Typer(help="LLM providers: check configuration and connectivity.", no_args_is_help=True)

PING_MAX_TOKENS = 64


def status_report() -> dict[str, Any]:
    """The effective LLM configuration; the API key is only reported as present or not."""
    from sqlgenie.llm.factory import config_problem

    settings = get_settings()
    problem = config_problem(settings)
    warnings: list[str] = []
    if settings.llm_provider == "openai" and settings.llm_model.startswith("claude"):
        warnings.append(
            f"llm_model is {settings.llm_model!r} (the Anthropic default) with an OpenAI-compatible endpoint; "
            "set SQLGENIE_LLM_MODEL to a model the endpoint serves."
        )
    return {
        "provider": settings.llm_provider,
        "model": settings.llm_model,
        "base_url": settings.llm_base_url,
        "api_key_present": bool(settings.llm_api_key and settings.llm_api_key.get_secret_value()),
        "timeout_s": settings.llm_timeout_s,
        "max_retries": settings.llm_max_retries,
        "temperature": settings.llm_temperature,
        "max_tokens": settings.llm_max_tokens,
        "configured": problem is None,
        "problem": problem,
        "hint": LLMNotConfiguredError.default_hint if problem else None,
        "warnings": warnings,
    }


@app.command("status")
def status(as_json: bool = JSON_OPTION) -> None:
    """Show the configured LLM provider, model, base URL and whether a key is set (never the key).

    Example: sqlgenie llm status --json
    """
    report = status_report()
    if as_json:
        print_json(report)
        return
    state = "[bold green]configured[/]" if report["configured"] else "[bold yellow]not configured[/]"
    console.print(f"LLM provider {report['provider']}: {state}", highlight=False)
    console.print(f"  {'model':<12} {report['model']}", highlight=False)
    console.print(f"  {'base_url':<12} {report['base_url'] or '(provider default)'}", highlight=False)
    console.print(f"  {'api key':<12} {'set' if report['api_key_present'] else 'not set'}", highlight=False)
    console.print(f"  {'timeout':<12} {report['timeout_s']:g} s, {report['max_retries']} retries", highlight=False)
    if report["problem"]:
        console.print(f"[yellow]{report['problem']}[/]", highlight=False)
        console.print(f"[dim]hint:[/] {report['hint']}", highlight=False)
    for warning in report["warnings"]:
        console.print(f"[yellow]warning:[/] {warning}", highlight=False)


@app.command("ping")
def ping(as_json: bool = JSON_OPTION) -> None:
    """Send a tiny prompt (prompts/llm_ping.txt) to the configured provider; report latency and tokens.

    Example: sqlgenie llm ping --json
    """
    from prompts import load_prompt
    from sqlgenie.llm import ChatMessage, UsageTracker, get_provider

    settings = get_settings()
    tracker = UsageTracker()
    try:
        provider = get_provider(settings, tracker)
        prompt = load_prompt("llm_ping.txt").substitute()
        try:
            response = provider.complete(
                [ChatMessage("user", prompt.strip())], max_tokens=PING_MAX_TOKENS, stage="ping"
            )
        finally:
            close = getattr(provider, "close", None)
            if close:
                close()
    except LLMError as exc:
        if as_json:
            print_json({"ok": False, **exc.to_dict(), "usage": tracker.summary()["total"]})
            raise typer.Exit(exc.exit_code) from None
        raise  # the CLI entry point prints message and hint, and exits with the error's code
    total = tracker.summary()["total"]
    report = {
        "ok": True,
        "provider": settings.llm_provider,
        "model": response.model,
        "base_url": settings.llm_base_url,
        "latency_ms": round(response.latency_ms, 1),
        "input_tokens": response.usage.input_tokens,
        "output_tokens": response.usage.output_tokens,
        "stop_reason": response.stop_reason,
        "reply": response.text[:200],
        "attempts": total["calls"],
    }
    if as_json:
        print_json(report)
        return
    console.print(
        f"[bold green]pong[/] from {report['provider']} ({report['model']}) in {report['latency_ms']:.0f} ms, "
        f"{report['input_tokens']} input + {report['output_tokens']} output tokens"
        + (f", {report['attempts']} attempts" if report["attempts"] > 1 else ""),
        highlight=False,
    )
    console.print(f"  reply: {report['reply']!r}", highlight=False)
