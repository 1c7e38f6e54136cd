"""A local HTTP stub of LLM provider APIs for tests (no network exists).

The stub records every request (path, headers, JSON body) and answers from a
queue of planned replies; when the queue is empty it answers with
``default`` (or 500 if there is none). Each test checks what the adapter sent.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    status: int = 200
    body: Any = None  # dict/list -> JSON; str/bytes -> sent as is
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0
    content_type: str = "application/json"


@dataclass
class Recorded:
    method: str
    path: str
    headers: dict[str, str]  # lower-cased names
    raw: bytes

    @property
    def json(self) -> Any:
        return json.loads(self.raw.decode("utf-8"))


class LLMStub:
    def __init__(self) -> None:
        self.requests: list[Recorded] = []
        self.replies: list[Reply] = []
        self.default: Reply | None = None
        self._lock = threading.Lock()
        stub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:  # noqa: N802
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length) if length else b""
                rec = Recorded("POST", self.path, {k.lower(): v for k, v in self.headers.items()}, raw)
                with stub._lock:
                    stub.requests.append(rec)
                    reply = stub.replies.pop(0) if stub.replies else stub.default
                reply = reply or Reply(500, {"error": {"message": "stub: no reply planned"}})
                if reply.delay_s:
                    time.sleep(reply.delay_s)
                if isinstance(reply.body, (dict, list)):
                    data = json.dumps(reply.body).encode()
                elif isinstance(reply.body, str):
                    data = reply.body.encode()
                else:
                    data = reply.body or b""
                try:
                    self.send_response(reply.status)
                    self.send_header("content-type", reply.content_type)
                    self.send_header("content-length", str(len(data)))
                    for k, v in reply.headers.items():
                        self.send_header(k, v)
                    self.end_headers()
                    self.wfile.write(data)
                except OSError:  # the client gave up (timeout tests)
                    pass

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.server.block_on_close = False
        self.port = self.server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self._thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    def start(self) -> LLMStub:
        self._thread.start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self._thread.join(timeout=5)

    def plan(self, *replies: Reply) -> None:
        with self._lock:
            self.replies.extend(replies)


# --- realistic bodies ---------------------------------------------------------------


def anthropic_message(text: str, *, input_tokens: int = 25, output_tokens: int = 7, model: str = "claude-sonnet-4-5-20250929", stop_reason: str = "end_turn") -> dict:
    """The shape of a real Anthropic Messages API response."""
    return {
        "id": "msg_01XFDUDYJgAACzvnptvVoYEL",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [{"type": "text", "text": text}],
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": {
            "input_tokens": input_tokens,
            "output_tokens": output_tokens,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
            "service_tier": "standard",
        },
    }


def anthropic_error(error_type: str, message: str) -> dict:
    return {"type": "error", "error": {"type": error_type, "message": message}, "request_id": "req_011CSHoEeqs5C35K2UUqR7Fy"}


def openai_completion(text: str, *, prompt_tokens: int | None = 20, completion_tokens: int | None = 5, model: str = "qwen2.5-coder:7b", finish_reason: str = "stop") -> dict:
    """The shape of a real OpenAI ``chat.completion`` object (as vLLM / Ollama return it)."""
    body: dict[str, Any] = {
        "id": "chatcmpl-9x3kQ2",
        "object": "chat.completion",
        "created": 1727000000,
        "model": model,
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": text}, "logprobs": None, "finish_reason": finish_reason}
        ],
        "system_fingerprint": "fp_44709d6fcb",
    }
    if prompt_tokens is not None:
        body["usage"] = {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + (completion_tokens or 0),
        }
    return body


def openai_error(message: str, *, type_: str = "invalid_request_error", code: str | None = None) -> dict:
    return {"error": {"message": message, "type": type_, "param": None, "code": code}}
