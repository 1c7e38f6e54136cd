"""The provider interface and the behaviour every provider shares.

Adapters implement one method, :meth:`BaseProvider._send`: send one request and
either return a :class:`RawCompletion` or raise

* :class:`RetryableError` for transient failures (HTTP 408/409/429/5xx/529,
  connection errors): :meth:`BaseProvider.complete` retries them with
  exponential backoff and jitter, honouring ``retry-after``;
* an :class:`~sqlgenie.errors.LLMError` (timeout, rejected request, malformed
  body), raised to the caller at once.

Every attempt, success or failure, is recorded in the provider's
:class:`~sqlgenie.llm.usage.UsageTracker`.
"""

from __future__ import annotations

import email.utils
import random
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from sqlgenie.errors import LLMError, LLMRateLimitError, LLMResponseError
from sqlgenie.llm.types import ChatMessage, LLMResponse, Usage
from sqlgenie.llm.usage import CallRecord, UsageTracker, default_tracker

RETRYABLE_STATUS = frozenset({408, 409, 429})  # plus every status >= 500 (529 = Anthropic "overloaded")
RATE_LIMIT_STATUS = frozenset({429, 529})


@runtime_checkable
class LLMProvider(Protocol):
    """What pipeline code depends on. Every provider in this package satisfies it."""

    name: str

    def complete(
        self,
        messages: list[ChatMessage],
        *,
        system: str | None = None,
        temperature: float | None = None,
        max_tokens: int | None = None,
        stage: str = "default",
    ) -> LLMResponse: ...


@dataclass(frozen=True)
class CompletionRequest:
    """A validated request as handed to an adapter."""

    messages: tuple[ChatMessage, ...]
    system: str | None
    temperature: float
    max_tokens: int
    stage: str


@dataclass(frozen=True)
class RawCompletion:
    """What an adapter extracts from a successful provider answer."""

    text: str
    input_tokens: int
    output_tokens: int
    model: str | None = None
    stop_reason: str | None = None


class RetryableError(Exception):
    """A transient failure of one attempt (internal: never escapes ``complete``)."""

    def __init__(self, kind: str, message: str, *, status: int | None = None, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.kind = kind  # "rate_limit" | "server" | "connection"
        self.message = message
        self.status = status
        self.retry_after = retry_after


@dataclass(frozen=True)
class RetryPolicy:
    """Backoff for transient failures.

    Attempt ``n`` (0-based) waits ``min(max_s, base_s * 2**n)`` scaled by a random
    factor in ``[1 - jitter, 1]``; a ``retry-after`` from the provider is honoured
    when it asks for longer. A ``retry-after`` above ``retry_after_cap_s`` stops
    retrying at once (the caller should not hang for minutes).
    """

    max_retries: int = 3
    base_s: float = 0.5
    max_s: float = 20.0
    jitter: float = 0.5
    retry_after_cap_s: float = 60.0

    def delay(self, attempt: int, retry_after: float | None, rng: random.Random | None = None) -> float:
        exp = min(self.max_s, self.base_s * (2**attempt))
        r = (rng or random).random()
        delay = exp * (1.0 - self.jitter * r)
        if retry_after is not None:
            delay = max(delay, retry_after)
        return delay


def parse_retry_after(headers: Mapping[str, str] | None) -> float | None:
    """Seconds to wait from ``retry-after-ms`` / ``retry-after`` (seconds or HTTP date)."""
    if not headers:
        return None
    lower = {str(k).lower(): str(v) for k, v in headers.items()}
    ms = lower.get("retry-after-ms")
    if ms is not None:
        try:
            return max(0.0, float(ms) / 1000.0)
        except ValueError:
            pass
    value = lower.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when is None:
        return None
    return max(0.0, when.timestamp() - time.time())


def redact(text: str, secrets: Sequence[str | None]) -> str:
    """Replace every occurrence of each (non-trivial) secret in ``text``."""
    for secret in secrets:
        if secret and len(secret) >= 4:
            text = text.replace(secret, "****")
    return text


def _ms(start: float) -> float:
    return (time.perf_counter() - start) * 1000.0


class BaseProvider(ABC):
    """Validation, retries, error mapping and usage accounting shared by all providers."""

    name: str = "base"
    display_name: str = "LLM provider"

    def __init__(
        self,
        *,
        model: str,
        timeout_s: float = 60.0,
        max_retries: int = 3,
        temperature: float = 0.0,
        max_tokens: int = 2048,
        backoff_base_s: float = 0.5,
        backoff_max_s: float = 20.0,
        tracker: UsageTracker | None = None,
        sleep: Callable[[float], None] = time.sleep,
        secrets: Sequence[str | None] = (),
    ) -> None:
        if not model:
            raise ValueError("model must be a non-empty string")
        self.model = model
        self.timeout_s = float(timeout_s)
        self.temperature = float(temperature)
        self.max_tokens = int(max_tokens)
        self.retry_policy = RetryPolicy(max_retries=max_retries, base_s=backoff_base_s, max_s=backoff_max_s)
        self.tracker = tracker if tracker is not None else default_tracker()
        self._sleep = sleep
        self._secrets = tuple(s for s in secrets if s)

    # --- to implement --------------------------------------------------------------

    @abstractmethod
    def _send(self, request: CompletionRequest) -> RawCompletion:
        """Send one request; raise RetryableError or LLMError on failure."""

    def close(self) -> None:
        """Release connections (optional)."""

    def __enter__(self):
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- shared helpers for adapters ----------------------------------------------

    def _redact(self, text: str) -> str:
        return redact(text, self._secrets)

    def _status_error(self, status: int, provider_message: str, headers: Mapping[str, str] | None) -> Exception:
        """Map an HTTP error status to RetryableError or LLMResponseError."""
        message = self._redact(_one_line(provider_message) or "(no message)")
        if status in RETRYABLE_STATUS or status >= 500:
            kind = "rate_limit" if status in RATE_LIMIT_STATUS else "server"
            return RetryableError(kind, f"HTTP {status}: {message}", status=status, retry_after=parse_retry_after(headers))
        hint = None
        if status in (401, 403):
            hint = "Check the API key (SQLGENIE_LLM_API_KEY, ANTHROPIC_API_KEY or OPENAI_API_KEY) and its permissions."
        elif status == 404:
            hint = "Check the model name (SQLGENIE_LLM_MODEL) and the base URL (SQLGENIE_LLM_BASE_URL)."
        return LLMResponseError(f"{self.display_name} rejected the request (HTTP {status}): {message}", hint=hint)

    def _malformed(self, what: str, raw: object = None) -> LLMResponseError:
        detail = ""
        if raw is not None:
            detail = ": " + self._redact(_one_line(str(raw))[:200])
        return LLMResponseError(f"{self.display_name} returned a malformed response ({what}){detail}")

    # --- the public call ---------------------------------------------------------------

    def complete(
        self,
        messages: list[ChatMessage],
        *,
        system: str | None = None,
        temperature: float | None = None,
        max_tokens: int | None = None,
        stage: str = "default",
    ) -> LLMResponse:
        """Send ``messages`` and return the model's answer.

        Raises LLMTimeoutError, LLMRateLimitError (still rate limited after the
        retries), LLMResponseError (rejected request, malformed answer) or LLMError
        (endpoint unreachable).
        """
        request = self._build_request(messages, system, temperature, max_tokens, stage)
        policy = self.retry_policy
        started = time.perf_counter()
        attempt = 0
        while True:
            t0 = time.perf_counter()
            try:
                raw = self._send(request)
            except RetryableError as exc:
                latency = _ms(t0)
                too_long = exc.retry_after is not None and exc.retry_after > policy.retry_after_cap_s
                retry = attempt < policy.max_retries and not too_long
                self._record(request, latency, ok=False, error=_error_name(exc), retried=retry)
                if not retry:
                    raise self._final_error(exc, attempts=attempt + 1, too_long=too_long) from exc
                self._sleep(policy.delay(attempt, exc.retry_after))
                attempt += 1
                continue
            except Exception as exc:
                self._record(request, _ms(t0), ok=False, error=type(exc).__name__, retried=False)
                raise
            latency = _ms(t0)
            usage = Usage(max(0, int(raw.input_tokens or 0)), max(0, int(raw.output_tokens or 0)))
            self._record(request, latency, ok=True, usage=usage)
            return LLMResponse(
                text=raw.text,
                usage=usage,
                model=raw.model or self.model,
                latency_ms=_ms(started),
                stop_reason=raw.stop_reason,
            )

    # --- internals -----------------------------------------------------------------

    def _build_request(
        self,
        messages: Sequence[ChatMessage],
        system: str | None,
        temperature: float | None,
        max_tokens: int | None,
        stage: str,
    ) -> CompletionRequest:
        if isinstance(messages, (str, ChatMessage)):
            raise TypeError("messages must be a list of ChatMessage")
        msgs = tuple(messages)
        if not msgs:
            raise ValueError("messages must not be empty")
        for m in msgs:
            if not isinstance(m, ChatMessage):
                raise TypeError(f"messages must be ChatMessage instances, got {type(m).__name__}")
        tokens = self.max_tokens if max_tokens is None else int(max_tokens)
        if tokens <= 0:
            raise ValueError("max_tokens must be positive")
        return CompletionRequest(
            messages=msgs,
            system=system or None,
            temperature=self.temperature if temperature is None else float(temperature),
            max_tokens=tokens,
            stage=stage or "default",
        )

    def _record(
        self,
        request: CompletionRequest,
        latency_ms: float,
        *,
        ok: bool,
        usage: Usage | None = None,
        error: str | None = None,
        retried: bool = False,
    ) -> None:
        self.tracker.record(
            CallRecord(
                stage=request.stage,
                provider=self.name,
                model=self.model,
                ok=ok,
                latency_ms=latency_ms,
                input_tokens=usage.input_tokens if usage else 0,
                output_tokens=usage.output_tokens if usage else 0,
                error=error,
                retried=retried,
            )
        )

    def _final_error(self, exc: RetryableError, *, attempts: int, too_long: bool) -> LLMError:
        tries = f"after {attempts} attempt{'s' if attempts != 1 else ''}"
        if too_long:
            tries = f"and asks to retry after {exc.retry_after:.0f} s ({tries})"
        if exc.kind == "rate_limit":
            return LLMRateLimitError(f"{self.display_name} is rate limiting or overloaded {tries}: {exc.message}")
        if exc.kind == "server":
            return LLMResponseError(
                f"{self.display_name} kept failing {tries}: {exc.message}",
                hint="The provider has a server-side problem; retry later or raise SQLGENIE_LLM_MAX_RETRIES.",
            )
        return LLMError(
            f"Could not reach {self.display_name} {tries}: {exc.message}",
            hint="Check that the endpoint is running and SQLGENIE_LLM_BASE_URL is right.",
        )


def _error_name(exc: RetryableError) -> str:
    return {"rate_limit": "RateLimited", "server": "ServerError", "connection": "ConnectionError"}.get(exc.kind, exc.kind)


def _one_line(text: str) -> str:
    return " ".join(str(text).split())
