"""Plain data types shared by every provider."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Role = Literal["user", "assistant"]
_ROLES = ("user", "assistant")


@dataclass(frozen=True)
class ChatMessage:
    """One conversation turn. System prompts are passed separately (``system=``)."""

    role: Role
    content: str

    def __post_init__(self) -> None:
        if self.role not in _ROLES:
            raise ValueError(f"ChatMessage.role must be 'user' or 'assistant', not {self.role!r} (pass system= instead)")
        if not isinstance(self.content, str):
            raise TypeError(f"ChatMessage.content must be a str, not {type(self.content).__name__}")

    @classmethod
    def user(cls, content: str) -> ChatMessage:
        return cls("user", content)

    @classmethod
    def assistant(cls, content: str) -> ChatMessage:
        return cls("assistant", content)


@dataclass(frozen=True)
class Usage:
    """Token counts as reported by the provider (0 when it reports none)."""

    input_tokens: int = 0
    output_tokens: int = 0

    @property
    def total_tokens(self) -> int:
        return self.input_tokens + self.output_tokens


@dataclass(frozen=True)
class LLMResponse:
    """A completed call.

    ``latency_ms`` is the wall time of the whole :meth:`LLMProvider.complete` call,
    retries and backoff included (what the caller waited).
    """

    text: str
    usage: Usage
    model: str
    latency_ms: float
    stop_reason: str | None = None
