"""Helpers shared by tests that drive a real PostgreSQL backend."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import psycopg


@contextmanager
def terminate_when_active(admin: psycopg.Connection, pid: int, tries: int = 250) -> Iterator[None]:
    """While the block runs, a thread polls ``pg_stat_activity`` every 20 ms (at most
    ``tries`` times) and terminates backend ``pid`` as soon as it is active; the thread
    is joined when the block ends, whatever it raised."""

    def kill_when_active() -> None:
        for _ in range(tries):
            row = admin.execute("SELECT state FROM pg_stat_activity WHERE pid = %s", (pid,)).fetchone()
            if row == ("active",):
                admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
                return
            time.sleep(0.02)

    killer = threading.Thread(target=kill_when_active)
    killer.start()
    try:
        yield
    finally:
        killer.join()
