"""Shared by the server, web and MCP tests: the demo store (warehouse at scale
2000, onboarded, seed bank) and a real uvicorn server on a free port of 127.0.0.1."""

from __future__ import annotations

import socket
import threading
import time
from contextlib import contextmanager
from typing import Iterator

from sqlgenie.config import Settings


def demo_store(db_url: str) -> Settings:
    from sqlgenie.quickstart import run_quickstart

    settings = Settings(database_url=db_url)
    report = run_quickstart(settings, scale=2000, questions=())
    assert report.bank["pairs"] >= 40 and not report.bank.get("rejected")
    return settings


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def live_server(settings: Settings, *, askers: int = 2) -> Iterator[str]:
    """``sqlgenie serve``'s app under uvicorn in a thread; yields its base URL."""
    import uvicorn

    from sqlgenie.server import create_app

    port = free_port()
    server = uvicorn.Server(uvicorn.Config(create_app(settings, askers=askers), host="127.0.0.1", port=port,
                                           log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 120
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the test server did not start")
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=30)
