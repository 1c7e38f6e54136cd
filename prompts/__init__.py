"""Prompt templates, shipped as package data.

Every prompt SQLGenie sends to an LLM lives here as a template file; code loads
them with :func:`load_prompt` and never embeds prompt text.
"""

from __future__ import annotations

from importlib import resources
from string import Template


def prompt_path(name: str):
    """The packaged template file ``name`` (e.g. ``"llm_ping.txt"``)."""
    return resources.files(__name__).joinpath(name)


def load_prompt(name: str) -> Template:
    """Load template ``name`` as a :class:`string.Template` (``$placeholders``)."""
    path = prompt_path(name)
    if not path.is_file():
        available = sorted(p.name for p in resources.files(__name__).iterdir() if p.name.endswith((".txt", ".md")))
        raise FileNotFoundError(f"no prompt template {name!r}; available: {', '.join(available)}")
    return Template(path.read_text(encoding="utf-8"))
