"""OpenAI-compatible chat completions over plain HTTP (vLLM, Ollama, llama.cpp server, OpenAI).

``POST {base_url}/chat/completions`` with the system prompt as the first
message; ``Authorization: Bearer`` only when a key is configured.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

import httpx

from sqlgenie.config import mask_secret
from sqlgenie.errors import LLMTimeoutError
from sqlgenie.llm.base import BaseProvider, CompletionRequest, RawCompletion, RetryableError


class OpenAICompatibleProvider(BaseProvider):
    name = "openai"
    display_name = "OpenAI-compatible endpoint"

    def __init__(
        self,
        *,
        base_url: str,
        model: str,
        api_key: str | None = None,
        transport: httpx.BaseTransport | None = None,
        **kwargs: Any,
    ) -> None:
        if not base_url:
            raise ValueError("OpenAICompatibleProvider needs a base URL, e.g. http://localhost:11434/v1")
        super().__init__(model=model, secrets=(api_key, urlsplit(base_url).password), **kwargs)
        self.base_url = base_url.rstrip("/")
        self.url = f"{self.base_url}/chat/completions"
        self.display_name = f"OpenAI-compatible endpoint {mask_secret('llm_base_url', self.base_url)}"
        headers = {"Accept": "application/json"}
        if api_key:
            headers["Authorization"] = f"Bearer {api_key}"
        self._client = httpx.Client(timeout=self.timeout_s, headers=headers, transport=transport)

    def close(self) -> None:
        self._client.close()

    def _payload(self, request: CompletionRequest) -> dict[str, Any]:
        messages: list[dict[str, str]] = []
        if request.system:
            messages.append({"role": "system", "content": request.system})
        messages.extend({"role": m.role, "content": m.content} for m in request.messages)
        return {
            "model": self.model,
            "messages": messages,
            "temperature": request.temperature,
            "max_tokens": request.max_tokens,
        }

    def _send(self, request: CompletionRequest) -> RawCompletion:
        try:
            response = self._client.post(self.url, json=self._payload(request))
        except httpx.TimeoutException as exc:
            raise LLMTimeoutError(
                f"{self.display_name} did not answer within {self.timeout_s:g} s (model {self.model})."
            ) from exc
        except httpx.TransportError as exc:
            raise RetryableError("connection", self._redact(f"{type(exc).__name__}: {exc}")) from exc
        if response.status_code >= 400:
            raise self._status_error(response.status_code, _error_message(response), response.headers)
        try:
            body = response.json()
        except ValueError:
            raise self._malformed("body is not JSON", response.text) from None
        return self._parse(body)

    def _parse(self, body: Any) -> RawCompletion:
        if not isinstance(body, dict):
            raise self._malformed("body is not a JSON object", body)
        choices = body.get("choices")
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
            raise self._malformed("no choices", body)
        message = choices[0].get("message")
        content = message.get("content") if isinstance(message, dict) else None
        if not isinstance(content, str):
            raise self._malformed("choices[0].message.content is not a string", body)
        usage = body.get("usage") if isinstance(body.get("usage"), dict) else {}
        model = body.get("model")
        return RawCompletion(
            text=content,
            input_tokens=_int(usage.get("prompt_tokens")),
            output_tokens=_int(usage.get("completion_tokens")),
            model=model if isinstance(model, str) and model else None,
            stop_reason=choices[0].get("finish_reason"),
        )


def _error_message(response: httpx.Response) -> str:
    """The server's explanation: OpenAI ``{"error": {"message"}}``, ``{"detail"}``, ``{"message"}`` or text."""
    try:
        body = response.json()
    except ValueError:
        return response.text[:300]
    if isinstance(body, dict):
        err = body.get("error")
        if isinstance(err, dict) and err.get("message"):
            return str(err["message"])
        for key in ("error", "detail", "message"):
            if isinstance(body.get(key), str):
                return body[key]
    return str(body)[:300]


def _int(value: Any) -> int:
    try:
        return int(value or 0)
    except (TypeError, ValueError):
        return 0
