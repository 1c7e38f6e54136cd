"""Match-and-generate with an LLM (design 3.2.2): one call for a typical bank hit.

The prompt (``prompts/ask_match_system.txt`` and ``prompts/ask_match_user.txt``)
holds the task, general guidelines, the pruned schema, the instructions (dates and
arithmetic as ``<python>…</python>`` expressions, the user's domain rules and
formulas from the instructions file) and the k nearest verified examples. The
answer's SQL is taken from its ```sql block (or the whole answer when it has
none); the pipeline then runs the autocorrectors, which evaluate the
``<python>`` spans.
"""

from __future__ import annotations

import datetime as dt
import re
import time
from dataclasses import dataclass, field
from typing import Any, Sequence

from prompts import load_prompt
from sqlgenie.errors import LLMResponseError
from sqlgenie.llm import ChatMessage

STAGE = "ask_match"
_FENCE = re.compile(r"```[ \t]*(?:sql|postgresql|postgres|pgsql)?[ \t]*\n(.*?)```", re.S | re.I)
_OPEN_FENCE = re.compile(r"```[ \t]*(?:sql|postgresql|postgres|pgsql)?[ \t]*\n(.*)$", re.S | re.I)


@dataclass
class GeneratedSQL:
    sql: str
    raw: str
    input_tokens: int = 0
    output_tokens: int = 0
    latency_ms: float = 0.0
    calls: int = 1
    prompt_chars: int = 0
    examples: list[int] = field(default_factory=list)  # bank ids shown to the LLM


def format_examples(examples: Sequence[Any]) -> str:
    """Numbered ``question -> SQL`` blocks (ScoredExample or BankExample objects)."""
    blocks = []
    for i, item in enumerate(examples, 1):
        ex = getattr(item, "example", item)
        score = getattr(item, "score", None)
        head = f"Example {i}" + (f" (similarity {float(score):.2f})" if score is not None else "")
        blocks.append(f"{head}\nQuestion: {ex.question}\nSQL:\n{ex.sql.strip()}")
    return "\n\n".join(blocks) if blocks else "(none)"


def build_prompt(
    question: str,
    *,
    schema: str,
    examples: Sequence[Any],
    instructions: str = "",
    today: dt.date | None = None,
) -> tuple[str, str]:
    """(system, user) texts of the match-and-generate prompt."""
    system = load_prompt("ask_match_system.txt").substitute().strip()
    user = load_prompt("ask_match_user.txt").substitute(
        question=question.strip(),
        schema=schema.strip() or "(no onboarded tables)",
        examples=format_examples(examples),
        instructions=instructions.strip() or "(none)",
        today=(today or dt.date.today()).isoformat(),
    )
    return system, user


def extract_sql(answer: str) -> str:
    """The SQL of an LLM answer: its first ```sql block, else the text itself
    (a trailing semicolon removed). Raises LLMResponseError when empty."""
    text = answer.strip()
    m = _FENCE.search(text) or _OPEN_FENCE.search(text)
    sql = (m.group(1) if m else text).strip()
    while sql.endswith(";"):
        sql = sql[:-1].rstrip()
    if not sql:
        raise LLMResponseError("The LLM answered without any SQL.", hint="Ask again, or rephrase the question.")
    return sql


def generate_match(
    provider: Any,
    question: str,
    *,
    schema: str,
    examples: Sequence[Any],
    instructions: str = "",
    today: dt.date | None = None,
) -> GeneratedSQL:
    """One LLM call: the prompt above, the SQL extracted from the answer."""
    system, user = build_prompt(question, schema=schema, examples=examples, instructions=instructions, today=today)
    started = time.perf_counter()
    response = provider.complete([ChatMessage.user(user)], system=system, stage=STAGE)
    sql = extract_sql(response.text)
    return GeneratedSQL(
        sql=sql, raw=response.text, input_tokens=response.usage.input_tokens,
        output_tokens=response.usage.output_tokens, latency_ms=(time.perf_counter() - started) * 1000.0,
        prompt_chars=len(system) + len(user),
        examples=[getattr(getattr(e, "example", e), "id", None) for e in examples],
    )
