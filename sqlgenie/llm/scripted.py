"""A provider that answers from a script: for tests of control flow, never for accuracy.

Token counts are an approximation: the number of whitespace-separated words
(``len(text.split())``) of the system prompt plus every message for input, and of
the answer for output. They are deterministic, not what a real tokenizer gives.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Union

from sqlgenie.llm.base import BaseProvider, CompletionRequest, RawCompletion
from sqlgenie.llm.types import ChatMessage

ScriptFn = Callable[[list[ChatMessage], Union[str, None], str], str]
ScriptItem = Union[str, BaseException]


class ScriptExhaustedError(RuntimeError):
    """The script has no answer left. Deliberately not an LLMError: it is a bug in
    the test, and pipeline code that handles provider failures must not hide it."""


@dataclass(frozen=True)
class ScriptedRequest:
    """A request the scripted provider received."""

    messages: tuple[ChatMessage, ...]
    system: str | None
    stage: str
    temperature: float
    max_tokens: int

    @property
    def last_user_message(self) -> str | None:
        for m in reversed(self.messages):
            if m.role == "user":
                return m.content
        return None


def approx_tokens(text: str | None) -> int:
    """Whitespace word count: the scripted provider's stand-in for a tokenizer."""
    return len(text.split()) if text else 0


class ScriptedProvider(BaseProvider):
    """Answers from ``script``: a list consumed in order, or a callable.

    * list items are strings (the answer) or exceptions (raised for that call,
      e.g. ``LLMRateLimitError(...)`` to test error handling);
    * a callable gets ``(messages, system, stage)`` and returns the answer (it may
      raise).

    Every request is kept in :attr:`requests`. When a list runs out the call
    raises :class:`ScriptExhaustedError`. Exceptions raised by the script are not
    retried.
    """

    name = "scripted"
    display_name = "scripted provider"

    def __init__(self, script: Iterable[ScriptItem] | ScriptFn, *, model: str = "scripted", **kwargs: Any) -> None:
        kwargs.setdefault("max_retries", 0)
        super().__init__(model=model, **kwargs)
        self._lock = threading.Lock()
        self._fn: ScriptFn | None = None
        self._items: list[ScriptItem] = []
        if callable(script):
            self._fn = script
        else:
            self._items = list(script)
            for item in self._items:
                if not isinstance(item, (str, BaseException)):
                    raise TypeError(f"script items must be str or exceptions, got {type(item).__name__}")
        self._next = 0
        self.requests: list[ScriptedRequest] = []

    @property
    def remaining(self) -> int | None:
        """Answers left in a list script (None for a callable script)."""
        with self._lock:
            return None if self._fn is not None else len(self._items) - self._next

    def _send(self, request: CompletionRequest) -> RawCompletion:
        rec = ScriptedRequest(request.messages, request.system, request.stage, request.temperature, request.max_tokens)
        with self._lock:
            self.requests.append(rec)
            n = len(self.requests)
            if self._fn is None:
                if self._next >= len(self._items):
                    raise ScriptExhaustedError(
                        f"ScriptedProvider script exhausted: call #{n} (stage {request.stage!r}) but the script "
                        f"has only {len(self._items)} answer(s). Last user message: {rec.last_user_message!r:.200}"
                    )
                item: ScriptItem | None = self._items[self._next]
                self._next += 1
            else:
                item = None
        if self._fn is not None:
            item = self._fn(list(request.messages), request.system, request.stage)
            if not isinstance(item, str):
                raise TypeError(f"script callable must return str, got {type(item).__name__}")
        if isinstance(item, BaseException):
            raise item
        assert isinstance(item, str)
        prompt_tokens = approx_tokens(request.system) + sum(approx_tokens(m.content) for m in request.messages)
        return RawCompletion(
            text=item,
            input_tokens=prompt_tokens,
            output_tokens=approx_tokens(item),
            model=self.model,
            stop_reason="end_turn",
        )
