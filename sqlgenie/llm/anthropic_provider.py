"""Anthropic Messages API through the official ``anthropic`` SDK (2.x).

Notes on SDK 2.x, which this adapter follows rather than fights:

* The SDK's own retries are disabled (``max_retries=0``); :class:`BaseProvider`
  retries, so every attempt is counted and the backoff is ours.
* ``temperature`` is not sent by default. SDK 1.0 removed the sampling
  parameters from ``messages.create`` ("current models do not use these
  sampling parameters"), and SDK 2.x pins an API version that rejects them.
  Pass ``send_temperature=True`` for an older model that still honours them: it
  is then sent through ``extra_body`` as the SDK's migration guide recommends.
* The SDK authenticates itself (2.x sends the key as ``Authorization: Bearer``).
"""

from __future__ import annotations

from typing import Any

from sqlgenie.errors import LLMResponseError, LLMTimeoutError
from sqlgenie.llm.base import BaseProvider, CompletionRequest, RawCompletion, RetryableError


class AnthropicProvider(BaseProvider):
    name = "anthropic"
    display_name = "Anthropic API"

    def __init__(
        self,
        *,
        api_key: str,
        model: str,
        base_url: str | None = None,
        send_temperature: bool = False,
        **kwargs: Any,
    ) -> None:
        if not api_key:
            raise ValueError("AnthropicProvider needs an API key")
        super().__init__(model=model, secrets=(api_key,), **kwargs)
        import anthropic  # imported lazily: ~2 s, and only this provider needs it

        self._sdk = anthropic
        self.base_url = base_url
        self.send_temperature = send_temperature
        self._client = anthropic.Anthropic(
            api_key=api_key,
            base_url=base_url or None,
            timeout=self.timeout_s,
            max_retries=0,
        )

    def close(self) -> None:
        self._client.close()

    def _send(self, request: CompletionRequest) -> RawCompletion:
        sdk = self._sdk
        kwargs: dict[str, Any] = {
            "model": self.model,
            "max_tokens": request.max_tokens,
            "messages": [{"role": m.role, "content": m.content} for m in request.messages],
        }
        if request.system:
            kwargs["system"] = request.system
        if self.send_temperature:
            kwargs["extra_body"] = {"temperature": request.temperature}
        try:
            message = self._client.messages.create(**kwargs)
        except sdk.APITimeoutError as exc:
            raise LLMTimeoutError(
                f"{self.display_name} did not answer within {self.timeout_s:g} s (model {self.model})."
            ) from exc
        except sdk.APIConnectionError as exc:
            cause = exc.__cause__ or exc
            raise RetryableError("connection", self._redact(f"{type(cause).__name__}: {cause}")) from exc
        except sdk.APIStatusError as exc:
            raise self._status_error(exc.status_code, _status_message(exc), exc.response.headers) from exc
        except sdk.APIError as exc:  # e.g. APIResponseValidationError
            raise self._malformed(type(exc).__name__, getattr(exc, "message", exc)) from exc
        except ValueError as exc:  # the SDK lets json.JSONDecodeError through for a truncated JSON body
            raise self._malformed(f"{type(exc).__name__}: {exc}") from exc
        return self._parse(message)

    def _parse(self, message: Any) -> RawCompletion:
        content = getattr(message, "content", None)
        if not isinstance(content, list):
            raise self._malformed("no content list", message)
        texts = [getattr(block, "text", None) for block in content if getattr(block, "type", None) == "text"]
        texts = [t for t in texts if isinstance(t, str)]
        if not texts:
            kinds = sorted({str(getattr(b, "type", "?")) for b in content}) or ["none"]
            raise LLMResponseError(
                f"{self.display_name} returned no text content (blocks: {', '.join(kinds)}; "
                f"stop_reason: {getattr(message, 'stop_reason', None)})."
            )
        usage = getattr(message, "usage", None)
        return RawCompletion(
            text="".join(texts),
            input_tokens=_int(getattr(usage, "input_tokens", 0)),
            output_tokens=_int(getattr(usage, "output_tokens", 0)),
            model=getattr(message, "model", None) if isinstance(getattr(message, "model", None), str) else None,
            stop_reason=getattr(message, "stop_reason", None),
        )


def _status_message(exc: Any) -> str:
    """The provider's own explanation: ``error.type: error.message`` from the body."""
    body = getattr(exc, "body", None)
    if isinstance(body, dict) and isinstance(body.get("error"), dict):
        err = body["error"]
        text = str(err.get("message") or "")
        return f"{err['type']}: {text}" if err.get("type") else text
    api_message = getattr(exc, "api_message", None)
    if api_message:
        return str(api_message)
    if body is not None:
        return str(body)[:300]
    return str(getattr(exc, "message", exc))[:300]


def _int(value: Any) -> int:
    try:
        return int(value or 0)
    except (TypeError, ValueError):
        return 0
