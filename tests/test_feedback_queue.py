"""The durable job queue with real worker processes on a real PostgreSQL: a worker
killed with kill -9 mid-job loses nothing (the job is retried after its lease),
failures back off and end dead with their error, SIGTERM stops a worker cleanly."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import psycopg
import pytest

from sqlgenie.config import load_settings
from sqlgenie.feedback import queue
from sqlgenie.store.migrations import ensure_migrated


@pytest.fixture
def store_url(fresh_db_url):
    ensure_migrated(fresh_db_url)
    return fresh_db_url


def _env(url: str, **extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update(SQLGENIE_DATABASE_URL=url, SQLGENIE_LLM_PROVIDER="none", SQLGENIE_SERVER_URL="off", **extra)
    return env


def _worker(url: str, *args: str, **extra: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "sqlgenie", "worker", "--json", "--poll", "0.1", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env(url, **extra))


def _wait(pred, timeout: float = 60.0) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if pred():
            return
        time.sleep(0.05)
    raise AssertionError("timed out")


def _job(url: str, job_id: int) -> queue.Job:
    with psycopg.connect(url, autocommit=True) as conn:
        return queue.get_job(conn, job_id)


def test_kill_9_mid_job_retried_after_lease(store_url):
    with psycopg.connect(store_url, autocommit=True) as conn:
        job_id = queue.enqueue(conn, "probe", {"sql": "SELECT 1", "sleep_s": 30})
    proc = _worker(store_url, SQLGENIE_JOB_LEASE_S="2")
    _wait(lambda: _job(store_url, job_id).state == "running")
    proc.kill()  # SIGKILL: no clean-up at all
    proc.wait()
    assert _job(store_url, job_id).state == "running"
    with psycopg.connect(store_url, autocommit=True) as conn:
        conn.execute("UPDATE sqlgenie.jobs SET payload = payload - 'sleep_s' WHERE id = %s", (job_id,))
        # another worker does not take it while the lease holds
        assert queue.claim(conn, worker="early", lease_s=5) is None
    time.sleep(2.2)
    out = subprocess.run([sys.executable, "-m", "sqlgenie", "worker", "--once", "--json"], capture_output=True,
                         text=True, env=_env(store_url), timeout=300)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout.strip().splitlines()[-1])["done"] == 1
    job = _job(store_url, job_id)
    assert job.state == "done" and job.attempts == 2 and job.result["rows"] == 1
    assert "lease expired" in job.history[0]["error"]
    with psycopg.connect(store_url, autocommit=True) as conn:
        assert conn.execute("SELECT count(*) FROM sqlgenie.job_runs WHERE job_id = %s", (job_id,)).fetchone()[0] == 2


def test_failures_back_off_then_dead_with_error(store_url):
    with psycopg.connect(store_url, autocommit=True) as conn:
        job_id = queue.enqueue(conn, "probe", {"sql": "DELETE FROM sqlgenie.jobs"}, max_attempts=3)
        job = queue.claim(conn, worker="t", lease_s=30)
        assert queue.fail(conn, job, "boom", backoff_s=60) == "queued"
        assert queue.claim(conn, worker="t", lease_s=30) is None  # backing off
        conn.execute("UPDATE sqlgenie.jobs SET run_after = now() WHERE id = %s", (job_id,))
    out = subprocess.run([sys.executable, "-m", "sqlgenie", "worker", "--once", "--json"], capture_output=True,
                         text=True, env=_env(store_url, SQLGENIE_JOB_BACKOFF_S="0"), timeout=300)
    assert out.returncode == 0, out.stderr
    job = _job(store_url, job_id)
    assert job.state == "dead" and job.attempts == 3
    assert "UnsafeSQLError" in job.error and len(job.history) == 3
    with psycopg.connect(store_url, autocommit=True) as conn:
        assert conn.execute("SELECT count(*) FROM sqlgenie.jobs").fetchone()[0] == 1  # the DELETE never ran
        listed = subprocess.run([sys.executable, "-m", "sqlgenie", "jobs", "list", "--state", "dead", "--json"],
                                capture_output=True, text=True, env=_env(store_url), timeout=120)
        items = json.loads(listed.stdout.strip().splitlines()[-1])["jobs"]
        assert [(j["id"], j["state"], j["attempts"]) for j in items] == [(job_id, "dead", 3)]


def test_sigterm_finishes_running_job_and_stops(store_url):
    with psycopg.connect(store_url, autocommit=True) as conn:
        job_id = queue.enqueue(conn, "probe", {"sql": "SELECT 1", "sleep_s": 2})
        later = queue.enqueue(conn, "probe", {"sql": "SELECT 2"})
    proc = _worker(store_url)
    _wait(lambda: _job(store_url, job_id).state == "running")
    with psycopg.connect(store_url, autocommit=True) as conn:  # keep the second job out of reach meanwhile
        conn.execute("UPDATE sqlgenie.jobs SET run_after = now() + interval '1 hour' WHERE id = %s", (later,))
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    stats = json.loads(out.strip().splitlines()[-1])
    assert stats["stopped"] is True and stats["done"] == 1
    assert _job(store_url, job_id).state == "done"
    assert _job(store_url, later).state == "queued"
