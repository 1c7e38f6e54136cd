"""``sqlgenie worker``: run queued jobs (:mod:`.queue`) until stopped.

Each of ``concurrency`` threads holds its own store connection and, for
regeneration jobs, its own warm :class:`~sqlgenie.inference.pipeline.Asker`. A
job's lease is renewed by a heartbeat while it runs. SIGTERM / SIGINT stop the
worker cleanly: no new job is taken and the running ones finish. A worker killed
outright (``kill -9``) leaves its jobs ``running``; they are taken again when the
lease runs out, and the result is written once (the handler's writes and the
``done`` mark commit in one transaction that only the lease holder can commit).

Job kinds:

- ``regenerate`` (a thumbs-down): :func:`.regenerate.regenerate`, then one review item;
- ``probe``: run ``payload["sql"]`` through the safe executor and keep its row
  count (the queue's own benchmarks and health checks).
"""

from __future__ import annotations

import os
import signal
import socket
import threading
import time
from typing import Any, Callable

import psycopg

from sqlgenie.config import Settings, get_settings
from sqlgenie.feedback import queue


class LostLease(Exception):
    """The job was taken by another worker (this one's lease ran out)."""


class _Heartbeat:
    def __init__(self, url: str, job: queue.Job, lease_s: float) -> None:
        self.url, self.job, self.lease_s = url, job, lease_s
        self.stop = threading.Event()
        self.lost = False
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        from sqlgenie.store.connection import open_connection

        with open_connection(self.url, autocommit=True) as conn:
            while not self.stop.wait(max(0.2, self.lease_s / 3.0)):
                if not queue.heartbeat(conn, self.job, lease_s=self.lease_s):
                    self.lost = True
                    return

    def __enter__(self) -> _Heartbeat:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join(timeout=5)


class Worker:
    """One job loop (one thread)."""

    def __init__(self, settings: Settings, name: str, *, log: Callable[[str], None] | None = None) -> None:
        from sqlgenie.store.connection import open_connection, store_url

        self.settings = settings
        self.name = name
        self.url = store_url(settings)
        self.store = open_connection(self.url, autocommit=True)
        self.log = log or (lambda m: None)
        self._asker = None
        self.done = 0
        self.failed = 0
        self.lost = 0

    @property
    def asker(self):
        if self._asker is None:
            from sqlgenie.inference.pipeline import Asker

            self._asker = Asker(self.settings, log=False)
        return self._asker

    def close(self) -> None:
        if self._asker is not None:
            self._asker.close()
        self.store.close()

    def run_once(self) -> bool:
        """Take and run one job; False when none was ready."""
        job = queue.claim(self.store, worker=self.name, lease_s=self.settings.job_lease_s)
        if job is None:
            return False
        self.log(f"{self.name}: job {job.id} ({job.kind}) attempt {job.attempts}")
        try:
            with _Heartbeat(self.url, job, self.settings.job_lease_s) as beat:
                work = self._handle(job)
                if beat.lost:
                    raise LostLease()
                with self.store.transaction():
                    result = work(self.store)
                    if not queue.complete(self.store, job, result):
                        raise LostLease()
            self.done += 1
        except LostLease:
            self.lost += 1
            self.log(f"{self.name}: job {job.id} was taken by another worker (lease ran out); result not written")
        except Exception as exc:  # the job failed: back-off or dead, with the error kept
            if not self.store.closed and self.store.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
                self.store.rollback()
            state = queue.fail(self.store, job, f"{type(exc).__name__}: {exc}", backoff_s=self.settings.job_backoff_s)
            self.failed += 1
            self.log(f"{self.name}: job {job.id} failed ({type(exc).__name__}: {exc}); now {state}")
        return True

    def _handle(self, job: queue.Job) -> Callable[[psycopg.Connection], dict[str, Any]]:
        """Do the job's work (no writes) and return the function that writes its
        result inside the completing transaction."""
        if job.kind == "regenerate":
            from sqlgenie.feedback.regenerate import regenerate
            from sqlgenie.feedback.review import create_item

            item, result = regenerate(self.asker, self.store, job.payload)

            def write(conn: psycopg.Connection) -> dict[str, Any]:
                result["review_item_id"] = create_item(conn, kind="regeneration", job_id=job.id, **item)
                return result

            return write
        if job.kind == "probe":
            from sqlgenie.executor import SafeExecutor
            from sqlgenie.store.connection import target_url

            delay = float(job.payload.get("sleep_s", 0) or 0)
            if delay:
                time.sleep(min(delay, 60.0))
            with SafeExecutor(target_url(self.settings), statement_timeout_ms=self.settings.statement_timeout_ms,
                              row_cap=1000) as ex:
                run = ex.run(str(job.payload.get("sql") or "SELECT 1"))
            rows = len(run.rows)
            return lambda conn: {"rows": rows, "worker": self.name}
        raise ValueError(f"unknown job kind {job.kind!r}")


def run_worker(*, once: bool = False, concurrency: int = 1, poll_s: float = 1.0, max_jobs: int | None = None,
               settings: Settings | None = None, log: Callable[[str], None] | None = None,
               install_signals: bool = True) -> dict[str, Any]:
    """Run ``concurrency`` job loops until stopped (``once``: until no job is ready).
    Returns counts (done, failed, lost)."""
    from sqlgenie.store.connection import store_url
    from sqlgenie.store.migrations import ensure_migrated

    settings = settings or get_settings()
    ensure_migrated(store_url(settings))
    stop = threading.Event()
    if install_signals and threading.current_thread() is threading.main_thread():
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, lambda *_: stop.set())
    base = f"{socket.gethostname()}:{os.getpid()}"
    budget = {"left": max_jobs}
    lock = threading.Lock()
    workers: list[Worker] = []
    errors: list[str] = []

    def take() -> bool:
        with lock:
            if budget["left"] is None:
                return True
            if budget["left"] <= 0:
                return False
            budget["left"] -= 1
            return True

    def loop(i: int) -> None:
        try:
            w = Worker(settings, f"{base}:{i}", log=log)
        except Exception as exc:
            errors.append(f"{type(exc).__name__}: {exc}")
            stop.set()
            return
        workers.append(w)
        try:
            while not stop.is_set():
                if not take():
                    break
                if not w.run_once():
                    with lock:
                        if budget["left"] is not None:
                            budget["left"] += 1
                    if once:
                        break
                    stop.wait(poll_s)
        finally:
            w.close()

    threads = [threading.Thread(target=loop, args=(i,), daemon=True) for i in range(concurrency)]
    for t in threads:
        t.start()
    while any(t.is_alive() for t in threads):
        for t in threads:
            t.join(timeout=0.2)
    if errors:
        from sqlgenie.errors import StoreError

        raise StoreError(f"The worker could not start: {errors[0]}")
    return {"done": sum(w.done for w in workers), "failed": sum(w.failed for w in workers),
            "lost": sum(w.lost for w in workers), "worker": base, "stopped": stop.is_set()}
