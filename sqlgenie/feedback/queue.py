"""A durable job queue in the store (``sqlgenie.jobs``, migrations 0001 and 0008).

    job_id = enqueue(store, "regenerate", {"ask_id": 7})
    job = claim(store, worker="w1", lease_s=300)     # FOR UPDATE SKIP LOCKED
    ... work ...
    complete(store, job, result)                      # or fail(store, job, error)

States: ``queued`` -> ``running`` (leased until ``lease_until``) -> ``done``; a failure
goes back to ``queued`` with an exponential back-off (``run_after``) until
``max_attempts``, then ``dead`` keeping the error. A worker killed mid-job leaves
its job ``running`` with a lease that runs out; :func:`claim` takes such a job
again (the attempt counts). :func:`complete` only succeeds for the holder of the
current lease, so a job finished twice writes its result once (the handler's own
writes are idempotent too: see ``review_items.job_id UNIQUE``).
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass, field
from typing import Any

import psycopg

from sqlgenie.errors import InputError

STATES = ("queued", "running", "done", "dead")

_COLUMNS = ("id, kind, status, payload, result, error, attempts, max_attempts, locked_by, lease_until, run_after,"
            " created_at, updated_at, finished_at, history")


@dataclass
class Job:
    id: int
    kind: str
    state: str
    payload: dict[str, Any]
    result: dict[str, Any] | None = None
    error: str | None = None
    attempts: int = 0
    max_attempts: int = 5
    locked_by: str | None = None
    lease_until: dt.datetime | None = None
    run_after: dt.datetime | None = None
    created_at: dt.datetime | None = None
    updated_at: dt.datetime | None = None
    finished_at: dt.datetime | None = None
    history: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id, "kind": self.kind, "state": self.state, "attempts": self.attempts,
            "max_attempts": self.max_attempts, "payload": self.payload, "result": self.result, "error": self.error,
            "locked_by": self.locked_by, "lease_until": _iso(self.lease_until), "run_after": _iso(self.run_after),
            "created_at": _iso(self.created_at), "updated_at": _iso(self.updated_at),
            "finished_at": _iso(self.finished_at), "history": self.history,
        }


def _iso(value: dt.datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def _job(row: Any) -> Job:
    return Job(id=row[0], kind=row[1], state=row[2], payload=row[3] or {}, result=row[4], error=row[5],
               attempts=row[6], max_attempts=row[7], locked_by=row[8], lease_until=row[9], run_after=row[10],
               created_at=row[11], updated_at=row[12], finished_at=row[13], history=row[14] or [])


def _commit(conn: psycopg.Connection) -> None:
    if not conn.autocommit:
        conn.commit()


def enqueue(conn: psycopg.Connection, kind: str, payload: dict[str, Any], *, max_attempts: int = 5) -> int:
    """Queue one job; returns its id (the caller's transaction, when there is one,
    decides whether it is kept: feedback and its job commit together)."""
    row = conn.execute(
        "INSERT INTO sqlgenie.jobs (kind, status, payload, max_attempts) VALUES (%s, 'queued', %s::jsonb, %s)"
        " RETURNING id",
        (kind, json.dumps(payload, default=str), max_attempts),
    ).fetchone()
    return int(row[0])


def claim(conn: psycopg.Connection, *, worker: str, lease_s: float, kinds: tuple[str, ...] | None = None) -> Job | None:
    """Take the oldest ready job (queued and past its back-off, or running with an
    expired lease) and lease it to ``worker``; None when there is none. A job whose
    lease ran out after its last allowed attempt becomes ``dead`` instead."""
    while True:
        with conn.transaction():
            row = conn.execute(
                f"""
                SELECT {_COLUMNS} FROM sqlgenie.jobs
                WHERE ((status = 'queued' AND run_after <= now())
                       OR (status = 'running' AND lease_until < now()))
                  AND (%(kinds)s::text[] IS NULL OR kind = ANY(%(kinds)s::text[]))
                ORDER BY id
                LIMIT 1
                FOR UPDATE SKIP LOCKED
                """,
                {"kinds": list(kinds) if kinds else None},
            ).fetchone()
            if row is None:
                return None
            job = _job(row)
            if job.state == "running":
                note = f"lease expired (worker {job.locked_by} stopped during attempt {job.attempts})"
                dead = job.attempts >= job.max_attempts
                conn.execute(
                    "UPDATE sqlgenie.jobs SET error = %s, history = history || jsonb_build_array(jsonb_build_object("
                    "'attempt', attempts, 'worker', locked_by, 'error', %s::text, 'at', now())),"
                    " status = CASE WHEN %s THEN 'dead' ELSE status END,"
                    " finished_at = CASE WHEN %s THEN now() ELSE finished_at END,"
                    " locked_by = CASE WHEN %s THEN NULL ELSE locked_by END WHERE id = %s",
                    (note, note, dead, dead, dead, job.id),
                )
                if dead:
                    continue  # look for another job
            row = conn.execute(
                f"""
                UPDATE sqlgenie.jobs SET status = 'running', attempts = attempts + 1, locked_by = %s,
                       lease_until = now() + make_interval(secs => %s), heartbeat_at = now(), updated_at = now()
                WHERE id = %s RETURNING {_COLUMNS}
                """,
                (worker, float(lease_s), job.id),
            ).fetchone()
            conn.execute("INSERT INTO sqlgenie.job_runs (job_id, attempt, worker) VALUES (%s, %s, %s)",
                         (job.id, row[6], worker))
        return _job(row)


def heartbeat(conn: psycopg.Connection, job: Job, *, lease_s: float) -> bool:
    """Extend the lease of a job this worker still holds (False: lost it)."""
    cur = conn.execute(
        "UPDATE sqlgenie.jobs SET lease_until = now() + make_interval(secs => %s), heartbeat_at = now()"
        " WHERE id = %s AND status = 'running' AND locked_by = %s AND attempts = %s",
        (float(lease_s), job.id, job.locked_by, job.attempts),
    )
    _commit(conn)
    return cur.rowcount == 1


def complete(conn: psycopg.Connection, job: Job, result: dict[str, Any] | None = None) -> bool:
    """Mark the job done if this worker still holds this attempt's lease; returns
    whether it did. Call inside the transaction that wrote the job's result, so the
    result and the state change commit together (or not at all)."""
    cur = conn.execute(
        "UPDATE sqlgenie.jobs SET status = 'done', result = %s::jsonb, error = NULL, locked_by = NULL,"
        " lease_until = NULL, finished_at = now(), updated_at = now()"
        " WHERE id = %s AND status = 'running' AND locked_by = %s AND attempts = %s",
        (json.dumps(result or {}, default=str), job.id, job.locked_by, job.attempts),
    )
    return cur.rowcount == 1


def fail(conn: psycopg.Connection, job: Job, error: str, *, backoff_s: float = 5.0) -> str:
    """Record a failed attempt: back to ``queued`` after ``backoff_s * 2**(attempts-1)``
    seconds, or ``dead`` after the last attempt. Returns the new state."""
    dead = job.attempts >= job.max_attempts
    delay = float(backoff_s) * (2 ** max(0, job.attempts - 1))
    row = conn.execute(
        "UPDATE sqlgenie.jobs SET status = %s, error = %s, locked_by = NULL, lease_until = NULL,"
        " run_after = now() + make_interval(secs => %s), updated_at = now(),"
        " finished_at = CASE WHEN %s THEN now() ELSE NULL END,"
        " history = history || jsonb_build_array(jsonb_build_object('attempt', attempts, 'worker', locked_by,"
        " 'error', %s::text, 'at', now()))"
        " WHERE id = %s AND status = 'running' AND locked_by = %s AND attempts = %s RETURNING status",
        ("dead" if dead else "queued", error[:4000], delay, dead, error[:4000], job.id, job.locked_by, job.attempts),
    ).fetchone()
    _commit(conn)
    return row[0] if row else "lost"


def get_job(conn: psycopg.Connection, job_id: int) -> Job:
    row = conn.execute(f"SELECT {_COLUMNS} FROM sqlgenie.jobs WHERE id = %s", (job_id,)).fetchone()
    if row is None:
        raise InputError(f"No job with id {job_id}.", hint="`sqlgenie jobs list` shows the jobs.")
    return _job(row)


def list_jobs(conn: psycopg.Connection, *, state: str | None = None, limit: int = 100) -> list[Job]:
    """Jobs newest first (``state``: queued, running, done or dead)."""
    if state is not None and state not in STATES:
        raise InputError(f"Unknown job state {state!r}.", hint=f"Use one of: {', '.join(STATES)}.")
    rows = conn.execute(
        f"SELECT {_COLUMNS} FROM sqlgenie.jobs WHERE (%s::text IS NULL OR status = %s) ORDER BY id DESC LIMIT %s",
        (state, state, max(1, int(limit))),
    ).fetchall()
    return [_job(r) for r in rows]


def counts(conn: psycopg.Connection) -> dict[str, int]:
    rows = conn.execute("SELECT status, count(*) FROM sqlgenie.jobs GROUP BY status").fetchall()
    out = {s: 0 for s in STATES}
    out.update({r[0]: int(r[1]) for r in rows})
    return out


def retry_job(conn: psycopg.Connection, job_id: int) -> Job:
    """Put a dead job back in the queue with fresh attempts."""
    job = get_job(conn, job_id)
    if job.state != "dead":
        raise InputError(f"Job {job_id} is {job.state}, not dead.", hint="Only dead jobs can be retried.")
    conn.execute(
        "UPDATE sqlgenie.jobs SET status = 'queued', attempts = 0, run_after = now(), finished_at = NULL,"
        " updated_at = now() WHERE id = %s",
        (job_id,),
    )
    _commit(conn)
    return get_job(conn, job_id)
