"""The user-editable instructions file: domain rules and formulas for the LLM prompt.

Where it lives: ``settings.instructions_file`` when that setting exists, else the
environment variable ``SQLGENIE_INSTRUCTIONS_FILE``, else
``<data_dir>/instructions.md``. Plain text (Markdown is fine); everything in it
goes into the match-and-generate prompt under "Domain rules". Lines starting
with ``<!--`` ... ``-->`` comments are dropped, so the default file's guidance
costs no tokens.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ENV_VAR = "SQLGENIE_INSTRUCTIONS_FILE"
DEFAULT_NAME = "instructions.md"
_COMMENT = re.compile(r"<!--.*?-->", re.S)


@dataclass(frozen=True)
class Instructions:
    path: Path
    text: str  # comments removed, stripped ("" when the file is missing or empty)
    exists: bool


def instructions_path(settings: Any) -> Path:
    configured = getattr(settings, "instructions_file", None)
    if configured:
        return Path(configured).expanduser()
    env = os.environ.get(ENV_VAR)
    if env:
        return Path(env).expanduser()
    return Path(settings.data_dir) / DEFAULT_NAME


def load_instructions(settings: Any) -> Instructions:
    path = instructions_path(settings)
    if not path.is_file():
        return Instructions(path, "", False)
    raw = path.read_text(encoding="utf-8", errors="replace")
    return Instructions(path, _COMMENT.sub("", raw).strip(), True)


def ensure_instructions_file(settings: Any) -> Path:
    """Create the instructions file from the packaged template when it is missing."""
    path = instructions_path(settings)
    if not path.exists():
        from prompts import prompt_path

        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(prompt_path("ask_instructions_default.txt").read_text(encoding="utf-8"), encoding="utf-8")
    return path
