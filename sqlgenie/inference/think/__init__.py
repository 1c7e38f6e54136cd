"""The think route (design 3.2.2, issue 15).

With an LLM configured, questions no verified example matches go through the
think loop (:mod:`.loop`: plan, generate, critic, up to m rounds; :mod:`.route`
fills the Asker's answer). Without one this route does not guess: it answers that
no verified example matches, says what would make the question answerable, and
shows the nearest examples with their similarity (:func:`think_route`). The match
route falls back to this refusal when it cannot account for every difference
between the question and its example.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

NO_MATCH = "No verified example matches this question; configure an LLM for novel questions."
NO_MATCH_WITH_LLM = (
    "No verified example matches this question, and the think route for novel questions "
    "(plan, generate, critique) is not available yet."
)
NOT_ADAPTABLE = "The nearest verified example does not fully account for this question, so SQLGenie will not guess."


@dataclass
class ThinkAnswer:
    message: str
    reason: str
    hint: str
    nearest: list[dict[str, Any]] = field(default_factory=list)
    loop: dict[str, Any] | None = None  # the think loop's plan, rounds and stop (ThinkRun.to_dict)

    def to_dict(self) -> dict[str, Any]:
        return {"message": self.message, "reason": self.reason, "hint": self.hint, "nearest": self.nearest,
                "loop": self.loop}


def example_summary(scored: Any) -> dict[str, Any]:
    """``{"id", "question", "sql", "similarity", "exact"}`` of a ScoredExample."""
    ex = scored.example
    return {"id": ex.id, "question": ex.question, "sql": ex.sql, "similarity": round(float(scored.score), 4),
            "exact": bool(getattr(scored, "exact", False))}


def think_route(
    nearest: Sequence[Any],
    *,
    reason: str,
    llm_configured: bool,
    adaptation_failed: bool = False,
    details: Sequence[str] = (),
    k: int = 3,
) -> ThinkAnswer:
    """The interim answer of the think route (see module doc)."""
    if adaptation_failed:
        message = NOT_ADAPTABLE
    else:
        message = NO_MATCH_WITH_LLM if llm_configured else NO_MATCH
    if llm_configured:
        hint = ("Add a verified example for this kind of question (`sqlgenie bank add`), "
                "or ask with --route match to have the LLM adapt the nearest examples.")
    else:
        hint = ("Set SQLGENIE_LLM_PROVIDER (anthropic with ANTHROPIC_API_KEY, or openai with SQLGENIE_LLM_BASE_URL) "
                "for novel questions, or add a verified example (`sqlgenie bank add`).")
    full_reason = reason if not details else reason + ": " + "; ".join(details)
    return ThinkAnswer(message, full_reason, hint, [example_summary(s) for s in list(nearest)[:k]])
