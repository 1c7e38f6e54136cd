"""LLM enrichment of column synonyms (prompt ``prompts/onboarding_synonyms.txt``).

The dictionary synonyms of :mod:`onboarding.names` always come first; the LLM adds
business words (``qty`` -> ``units``). Any provider error leaves the dictionary
synonyms alone: onboarding never fails because of the LLM.
"""

from __future__ import annotations

import json
from typing import Any

from onboarding.profile import TableProfile

MAX_SYNONYMS = 12


def llm_synonyms(provider: Any, prof: TableProfile) -> tuple[dict[str, list[str]], str | None]:
    """(column -> synonyms from the LLM, error message or None)."""
    from prompts import load_prompt
    from sqlgenie.errors import LLMError
    from sqlgenie.llm import ChatMessage

    lines = []
    for c in prof.columns:
        examples = ", ".join(str(v)[:40] for v, _ in c.mcv[:3])
        if not examples and c.min_value is not None:
            examples = f"{str(c.min_value)[:40]} .. {str(c.max_value)[:40]}"
        lines.append(f"- {c.name} ({c.data_type})" + (f": {examples}" if examples else ""))
    prompt = load_prompt("onboarding_synonyms.txt").safe_substitute(table=f"{prof.schema}.{prof.name}", columns="\n".join(lines))
    try:
        resp = provider.complete([ChatMessage("user", prompt)], stage="onboarding")
    except LLMError as exc:
        return {}, f"{type(exc).__name__}: {exc.message}"
    return parse_synonyms(resp.text, [c.name for c in prof.columns]), None


def parse_synonyms(text: str, columns: list[str]) -> dict[str, list[str]]:
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end <= start:
        return {}
    try:
        data = json.loads(text[start:end + 1])
    except json.JSONDecodeError:
        return {}
    if not isinstance(data, dict):
        return {}
    lower = {c.lower(): c for c in columns}
    out: dict[str, list[str]] = {}
    for key, value in data.items():
        col = key if key in columns else lower.get(str(key).lower())
        if col is None or not isinstance(value, list):
            continue
        words = [" ".join(str(v).split()).lower() for v in value if isinstance(v, (str, int, float))]
        out[col] = [w for w in words if w and w != col.lower()][:MAX_SYNONYMS]
    return out


def merge_synonyms(base: list[str], extra: list[str], limit: int = MAX_SYNONYMS) -> list[str]:
    out: list[str] = []
    for s in base + extra:
        if s and s not in out:
            out.append(s)
    return out[:limit]
