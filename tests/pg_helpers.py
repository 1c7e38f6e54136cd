"""Helpers shared by tests that drive a real PostgreSQL backend."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Iterator
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


def onboard_fixture_schema(url: str, schema: str, ddl: Iterable[str],
                           fill: Callable[[psycopg.Connection], None] | None = None) -> str:
    """Migrate the store at ``url``, run ``ddl``, let ``fill`` insert the rows, and
    onboard ``schema`` with no LLM and no index measurement (target and store are the
    same connection); ``url``."""
    from onboarding.service import OnboardOptions, onboard_schema
    from sqlgenie.store.migrations import ensure_migrated

    ensure_migrated(url)
    with psycopg.connect(url, autocommit=True) as conn:
        for statement in ddl:
            conn.execute(statement)
        if fill is not None:
            fill(conn)
        onboard_schema(schema, target=conn, store=conn, options=OnboardOptions(llm=None, measure_indexes=False))
    return url
