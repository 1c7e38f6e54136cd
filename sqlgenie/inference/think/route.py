"""The think route inside the Asker: run the loop, fill the answer.

The Asker (:mod:`sqlgenie.inference.pipeline`) calls :func:`answer_think` when a
question takes the think route and an LLM is configured; without one it keeps the
interim refusal (:func:`sqlgenie.inference.think.think_route`).
"""

from __future__ import annotations

from typing import Any, Sequence

from sqlgenie.inference.think import ThinkAnswer, example_summary
from sqlgenie.inference.think.loop import ThinkLoop, ThinkRun

__all__ = ["answer_think", "loop_for"]

REFUSED = "SQLGenie could not write a query that passes its checks for this question, so it will not guess."
UNANSWERABLE = "The schema does not seem to hold what this question asks for."


def loop_for(asker: Any, clock: Any = None) -> ThinkLoop:
    """A :class:`ThinkLoop` over the Asker's catalog, executor, matcher, pruner and provider."""
    from sqlgenie.inference.instructions import load_instructions

    settings = asker.settings
    today = settings.now.date() if settings.now else None
    return ThinkLoop(
        asker.provider, catalog=asker.catalog, executor=asker.executor, matcher=asker.matcher,
        pruner=asker.pruner, store=asker.store, settings=settings, autocorrect=asker.autocorrect,
        search_path=None, instructions=load_instructions(settings).text, today=today,
        stage=clock.stage if clock is not None else None,
    )


def answer_think(asker: Any, result: Any, clock: Any, matches: Sequence[Any], reason: str, *,
                 execute: bool = True, limit: int | None = None) -> ThinkRun:
    """Run the think loop for ``result.question`` and fill ``result`` (an AskResult)."""
    loop = loop_for(asker, clock)
    run = loop.run(result.question, examples=matches, execute=execute, limit=limit)
    final = run.answer or run.last
    result.route = "think"
    result.method = "think"
    result.example_id = None
    result.confidence = None
    result.llm = {"calls": run.usage["calls"], "input_tokens": run.usage["input_tokens"],
                  "output_tokens": run.usage["output_tokens"], "by_stage": run.usage.get("by_stage", {}),
                  "max_calls": run.usage.get("max_calls"), "max_tokens": run.usage.get("max_tokens")}
    answered = run.status == "ok" and final is not None
    if answered:  # a refused or failed loop answers no SQL: its rejected statements stay in think.loop
        result.sql = final.sql or None
        result.corrections = final.corrections
    message = None if answered else (UNANSWERABLE if run.stop_reason == "unanswerable" else REFUSED)
    hint = None if answered else ("Rephrase the question, add a verified example (`sqlgenie bank add`), "
                                  "or raise think_max_rounds / the LLM budget (SQLGENIE_THINK_MAX_CALLS, "
                                  "SQLGENIE_THINK_MAX_TOKENS).")
    result.think = ThinkAnswer(message or "", reason, hint or "", [example_summary(m) for m in list(matches)[:3]],
                               loop=run.to_dict())
    if run.status == "error" and run.error is not None:
        result.status = "error"
        result.message = getattr(run.error, "message", str(run.error))
        result.hint = getattr(run.error, "hint", None)
        result.error = type(run.error).__name__
        result.think.message, result.think.hint = result.message, result.hint or ""
        result.explanation = f"Failed: {result.message} Loop stopped: {run.stop_text}."
    elif answered:
        assert final is not None
        result.status = "ok"
        result.executed = final.executed
        if final.executed:
            result.columns = final.columns
            result.rows = final.rows
            result.row_count = len(final.rows)
            cap = limit or asker.settings.row_cap
            result.truncated = len(final.rows) >= cap
        warnings = [f["message"] for f in final.open_findings]
        fixes = [c["reason"] for c in final.corrections] + [c.get("reason", "") for c in final.repairs]
        result.explanation = (_explain(run)
                              + (" Autocorrected: " + "; ".join(f for f in fixes if f) + "." if fixes else "")
                              + (" Critic warnings left open: " + "; ".join(warnings) + "." if warnings else ""))
    else:
        result.status = "refused"
        result.message = message
        result.hint = hint
        result.explanation = f"{message} Loop stopped: {run.stop_text}."
    return run


def _explain(run: ThinkRun) -> str:
    n = len(run.rounds)
    u = run.usage
    return (f"Written by the think loop: a plan, {n} generation round(s) checked by the critic; stopped because "
            f"{run.stop_text}. LLM: {u['calls']} call(s), {u['input_tokens']} in / {u['output_tokens']} out tokens.")
