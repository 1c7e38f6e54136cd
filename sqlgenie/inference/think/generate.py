"""The think loop's generation and LLM-critic prompts.

* :func:`generate_prompt` - SQL from the plan (``prompts/think/generate_*.txt``),
  with every rejected attempt so far and the problems found in it
  (``prompts/think/feedback.txt``), so each round's findings reach the next;
* :func:`critic_prompt` - the LLM critic (``prompts/think/critic_*.txt``): the
  question, the plan, the SQL and its first rows;
* :func:`parse_verdict` - the critic's answer: ``OK`` or ``PROBLEM`` and one line
  per problem.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from prompts import load_prompt
from sqlgenie.inference.think.plan import ThinkContext

__all__ = ["Attempt", "critic_prompt", "generate_prompt", "parse_verdict"]

#: Rows of the result shown to the LLM critic.
CRITIC_ROWS = 5


@dataclass
class Attempt:
    """A rejected statement and the problems found in it (feedback for the next round)."""

    round: int
    sql: str
    problems: list[str]


def render_feedback(attempts: Sequence[Attempt]) -> str:
    template = load_prompt("think/feedback.txt")
    parts = [template.substitute(round=a.round, sql=a.sql.strip(),
                                 findings="\n".join(f"- {p}" for p in a.problems) or "- (none)")
             for a in attempts]
    return "".join(parts)


def generate_prompt(ctx: ThinkContext, plan: str, attempts: Sequence[Attempt] = ()) -> tuple[str, str]:
    """(system, user) of a generation call."""
    system = load_prompt("think/generate_system.txt").substitute().strip()
    user = load_prompt("think/generate_user.txt").substitute(
        ctx.fields(), plan=plan.strip() or "(none)", feedback=render_feedback(attempts)).strip()
    return system, user


def _cell(value: Any) -> str:
    text = "NULL" if value is None else str(value)
    return text if len(text) <= 60 else text[:57] + "..."


def critic_prompt(ctx: ThinkContext, plan: str, sql: str, columns: Sequence[str], rows: Sequence[Sequence[Any]],
                  row_count: int | None) -> tuple[str, str]:
    """(system, user) of the LLM critic call."""
    shown = "\n".join(" | ".join(_cell(v) for v in row) for row in list(rows)[:CRITIC_ROWS])
    system = load_prompt("think/critic_system.txt").substitute().strip()
    user = load_prompt("think/critic_user.txt").substitute(
        database=ctx.database, question=ctx.question, plan=plan.strip() or "(none)", sql=sql.strip(),
        row_count="not run" if row_count is None else row_count, columns=", ".join(columns) or "(none)",
        rows=shown or "(no rows)",
    ).strip()
    return system, user


def parse_verdict(answer: str) -> tuple[bool, list[str]]:
    """``(ok, problems)`` from the LLM critic's answer. Anything but a first line
    starting with OK is an objection (its lines are the problems)."""
    lines = [line.strip().lstrip("-*").strip() for line in answer.strip().splitlines() if line.strip()]
    if not lines:
        return False, ["the LLM critic gave no verdict"]
    head = lines[0]
    if head.upper().startswith("OK"):
        return True, []
    problems = lines[1:]
    if head.upper().startswith("PROBLEM"):
        rest = head[len("PROBLEM"):].lstrip(":- ").strip()
        if rest:
            problems.insert(0, rest)
    else:
        problems.insert(0, head)
    return False, problems or ["the LLM critic objected without saying why"]
