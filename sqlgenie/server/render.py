"""The answer as ``sqlgenie ask`` prints it, rendered by the server for a forwarded
one-shot ask (:func:`sqlgenie.server.client.terminal_style` says how the shell's
stdout would print): the CLI's own :func:`~sqlgenie.cli.ask_cmd.render_answer`,
already loaded here, so the shell process needs neither rich nor pygments."""

from __future__ import annotations

import io
from typing import Any, Literal

from pydantic import BaseModel, Field


class TerminalStyle(BaseModel):
    """The shell's terminal, as :func:`sqlgenie.server.client.terminal_style` reports it."""

    width: int = Field(80, ge=20, le=1000)
    terminal: bool = False
    color_system: Literal["standard", "256", "truecolor"] | None = None
    no_color: bool = False
    explain: bool = False


def render_text(data: dict[str, Any], style: TerminalStyle) -> str:
    """What ``render_answer(data)`` prints on a console like the shell's."""
    from rich.console import Console

    from sqlgenie.cli.ask_cmd import render_answer

    buffer = io.StringIO()
    console = Console(file=buffer, width=style.width, force_terminal=style.terminal,
                      color_system=style.color_system if style.terminal else None, no_color=style.no_color,
                      legacy_windows=False, force_jupyter=False, force_interactive=False)
    render_answer(data, explain=style.explain, out=console)
    return buffer.getvalue()
