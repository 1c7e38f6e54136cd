#!/usr/bin/env python
"""Kill `sqlgenie worker` processes with kill -9 in the middle of regeneration jobs,
again and again, and check that nothing is lost or written twice.

    SQLGENIE_DATA_DIR=/tmp/sg-x .venv/bin/python scripts/bench_worker_kill.py --kills 20

Set-up (a fresh database on the embedded server of the current settings, dropped
at the end): schema ``shop`` onboarded without an LLM, four bank pairs, ``--jobs``
distinct questions asked through the real pipeline and each given a thumbs-down
(one ``regenerate`` job each, as `sqlgenie feedback ID down` queues it).

Then ``--workers`` worker processes (``sqlgenie worker``, lease ``--lease`` seconds)
run the queue while a supervisor kills each worker process with SIGKILL (no
clean-up) in the middle of a job: its first job (cold: the model still loads; a
random 0..``--cold-delay`` s in) or one of its next two (warm; 0..``--warm-delay``
s in); when the job ends before the delay, no kill: the worker's next job is the
target, and starts a replacement; until
``--kills`` mid-job kills are done. A job is only killed
while it has attempts to spare (attempts < max_attempts - 1), so the kills test
recovery, not the retry cap. After the kills the workers drain the queue and stop
(SIGTERM); every pending review item is then accepted (its pair enters the bank).

Figures (last stdout line, JSON): ``kills_mid_job`` (kill -9 of a worker whose job
was still running under its lease afterwards: it died mid-job), ``kills`` (all
kill -9, including those that came just after the job committed), ``jobs``, ``jobs_done``, ``jobs_lost`` (not done at the end, or done without
its review item), ``review_items_per_job_max``, ``duplicate_results`` (jobs whose
result was committed by more than one attempt: done rows vs review items),
``retried_jobs`` (jobs that ran more than once), ``attempts_max``,
``accepted``, ``duplicate_bank_entries`` (bank rows with the same question and
SQL as another row), ``seconds``.
"""

from __future__ import annotations

import argparse
import json
import random
import signal
import sys
import time
from pathlib import Path

import psycopg

sys.path.insert(0, str(Path(__file__).resolve().parent))
import feedback_bench_common as common  # noqa: E402


#: Running jobs with attempts to spare, their holder's pid and how many jobs that holder has taken.
RUNNING = """
SELECT j.id, j.attempts, split_part(j.locked_by, ':', 2),
       (SELECT count(*) FROM sqlgenie.job_runs r WHERE r.worker = j.locked_by)
FROM sqlgenie.jobs j
WHERE j.status = 'running' AND j.lease_until > now() AND j.attempts < j.max_attempts - 1
"""


def _still_running(conn: psycopg.Connection, job_id: int, pid: int) -> bool:
    row = conn.execute("SELECT status, locked_by FROM sqlgenie.jobs WHERE id = %s", (job_id,)).fetchone()
    return row[0] == "running" and str(row[1]).split(":")[1:2] == [str(pid)]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kills", type=int, default=20, help="kill -9 this many times (default 20)")
    ap.add_argument("--jobs", type=int, default=128, help="regeneration jobs (distinct questions, max 128)")
    ap.add_argument("--workers", type=int, default=1, help="worker processes at a time (each one is killed in turn)")
    ap.add_argument("--lease", type=float, default=3.0, help="job lease in seconds (SQLGENIE_JOB_LEASE_S)")
    ap.add_argument("--cold-delay", type=float, default=1.5,
                    help="kill 0..this many seconds into a worker's first job (the model loads)")
    ap.add_argument("--warm-delay", type=float, default=0.05, help="kill 0..this many seconds into a later job")
    ap.add_argument("--seed", type=int, default=16)
    ap.add_argument("--timeout", type=float, default=1200.0, help="give up after this many seconds")
    ap.add_argument("--keep", action="store_true", help="keep the bench database")
    ap.add_argument("--verbose", action="store_true", help="log the supervisor's view now and then")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    started = time.perf_counter()
    with common.bench_database(keep=args.keep) as url:
        common.log("set-up: schema, onboarding, bank")
        settings = common.create_shop(url)
        qs = common.questions(args.jobs)
        common.log(f"asking and downvoting {len(qs)} questions")
        job_ids = common.ask_and_downvote(settings, url, qs)
        wenv = {"SQLGENIE_JOB_LEASE_S": str(args.lease), "SQLGENIE_JOB_BACKOFF_S": "0.5"}
        workers = {}
        for _ in range(args.workers):
            p = common.start_worker(url, "--poll", "0.2", **wenv)
            workers[p.pid] = p
        kills = mid_job = 0
        killed_jobs: list[int] = []
        kill_runs: list[int] = []  # which job of the worker's life the kill hit (1 = its first, cold)
        # each worker process is killed during its (target+1)-th job: the first (model still loading) or a
        # later, warm one; the delay into the job is random
        targets = {pid: rng.randrange(3) for pid in workers}
        t_kill = time.perf_counter()
        deadline = time.monotonic() + args.timeout
        polls = 0
        with psycopg.connect(url, autocommit=True) as conn:
            while mid_job < args.kills and time.monotonic() < deadline:
                polls += 1
                if polls % 2000 == 0 and args.verbose:
                    common.log(f"poll {polls}: workers {sorted(workers)} targets {targets} running "
                               f"{conn.execute(RUNNING).fetchall()} states {common.job_states(conn, job_ids)}")
                if polls % 500 == 0 and common.job_states(conn, job_ids).get("done", 0) == len(job_ids):
                    common.log("every job finished before enough kills: re-run with more --jobs")
                    break
                hit = None
                for job_id, attempts, pid_text, runs in conn.execute(RUNNING).fetchall():
                    pid = int(pid_text) if pid_text.isdigit() else -1
                    if pid in workers and runs >= targets[pid] + 1:
                        hit = (int(job_id), int(attempts), pid, int(runs))
                        break
                if hit is None:
                    time.sleep(0.002)
                    continue
                job_id, attempts, pid, runs = hit
                # wait a random time into the job; if the job ends first, no kill (wait for the next one)
                end = time.monotonic() + rng.uniform(0.0, args.cold_delay if runs == 1 else args.warm_delay)
                while time.monotonic() < end and _still_running(conn, job_id, pid):
                    time.sleep(0.003)
                if not _still_running(conn, job_id, pid):
                    continue
                proc = workers.pop(pid)
                proc.send_signal(signal.SIGKILL)
                proc.wait()
                kills += 1
                # mid-job: the job is still running under the dead worker's lease (else it finished first)
                state, holder = conn.execute("SELECT status, locked_by FROM sqlgenie.jobs WHERE id = %s",
                                             (job_id,)).fetchone()
                hit_mid = state == "running" and str(holder).split(":")[1:2] == [str(pid)]
                if hit_mid:
                    mid_job += 1
                    killed_jobs.append(job_id)
                    kill_runs.append(runs)
                common.log(f"kill {kills}: worker {pid}, job {job_id} (attempt {attempts}, the worker's job #{runs}):"
                           f" {'mid-job' if hit_mid else 'the job had finished'}; job now {state}")
                p = common.start_worker(url, "--poll", "0.2", **wenv)
                workers[p.pid] = p
                targets[p.pid] = rng.randrange(3)
            kill_seconds = time.perf_counter() - t_kill
            common.log("kills done; draining")
            common.wait_for(lambda: common.job_states(conn, job_ids).get("done", 0)
                            + common.job_states(conn, job_ids).get("dead", 0) == len(job_ids),
                            max(1.0, deadline - time.monotonic()), step=0.5)
            for p in workers.values():
                p.send_signal(signal.SIGTERM)
            for p in workers.values():
                try:
                    p.wait(timeout=120)
                except Exception:
                    p.kill()
            states = common.job_states(conn, job_ids)
            done_without_item = conn.execute(
                "SELECT count(*) FROM sqlgenie.jobs j WHERE j.id = ANY(%s) AND j.status = 'done'"
                " AND NOT EXISTS (SELECT 1 FROM sqlgenie.review_items r WHERE r.job_id = j.id)", (job_ids,)).fetchone()[0]
            items_per_job = conn.execute(
                "SELECT coalesce(max(n), 0) FROM (SELECT job_id, count(*) AS n FROM sqlgenie.review_items"
                " WHERE job_id = ANY(%s) GROUP BY job_id) t", (job_ids,)).fetchone()[0]
            # A result committed by two attempts would show as a result naming another worker than the
            # job's last run, or as two review items; the item's job and the job's result must agree.
            mismatched = conn.execute(
                "SELECT count(*) FROM sqlgenie.jobs j JOIN sqlgenie.review_items r ON r.job_id = j.id"
                " WHERE j.id = ANY(%s) AND (j.result->>'review_item_id')::bigint IS DISTINCT FROM r.id",
                (job_ids,)).fetchone()[0]
            runs = conn.execute("SELECT job_id, count(*) FROM sqlgenie.job_runs WHERE job_id = ANY(%s)"
                                " GROUP BY job_id", (job_ids,)).fetchall()
            attempts_max = conn.execute("SELECT max(attempts) FROM sqlgenie.jobs WHERE id = ANY(%s)",
                                        (job_ids,)).fetchone()[0]
            lease_expiries = conn.execute(
                "SELECT count(*) FROM sqlgenie.jobs j, jsonb_array_elements(j.history) h"
                " WHERE j.id = ANY(%s) AND h->>'error' LIKE 'lease expired%%'", (job_ids,)).fetchone()[0]
            # every pending regeneration item is accepted: its pair enters the bank
            from sqlgenie.feedback import review

            pending = [r[0] for r in conn.execute(
                "SELECT id FROM sqlgenie.review_items WHERE job_id = ANY(%s) AND state = 'pending'"
                " AND sql IS NOT NULL ORDER BY id", (job_ids,)).fetchall()]
            accepted = 0
            for item_id in pending:
                if review.get_item(conn, item_id).state == "pending":
                    review.accept(conn, item_id, user="bench", settings=settings)
                    accepted += 1
            duplicate_bank = conn.execute(
                "SELECT coalesce(sum(n - 1), 0) FROM (SELECT count(*) AS n FROM sqlgenie.bank_examples"
                " WHERE status <> 'rejected' GROUP BY lower(question), sql HAVING count(*) > 1) t").fetchone()[0]
            review_items = conn.execute("SELECT count(*) FROM sqlgenie.review_items WHERE job_id = ANY(%s)",
                                        (job_ids,)).fetchone()[0]
    out = {
        "bench": "worker_kill", "kills_mid_job": mid_job, "kills": kills, "distinct_jobs_killed": len(set(killed_jobs)),
        "kills_in_first_job": sum(1 for r in kill_runs if r == 1), "kills_in_later_jobs": sum(1 for r in kill_runs if r > 1),
        "jobs": len(job_ids), "jobs_done": states.get("done", 0), "jobs_dead": states.get("dead", 0),
        "jobs_lost": len(job_ids) - states.get("done", 0) + int(done_without_item),
        "review_items": int(review_items), "review_items_per_job_max": int(items_per_job),
        "duplicate_results": int(mismatched) + max(0, int(review_items) - len(job_ids)),
        "retried_jobs": sum(1 for _, n in runs if n > 1), "lease_expiries": int(lease_expiries),
        "attempts_max": attempts_max, "accepted": accepted, "duplicate_bank_entries": int(duplicate_bank),
        "workers": args.workers, "lease_s": args.lease, "kill_phase_seconds": round(kill_seconds, 1),
        "seconds": round(time.perf_counter() - started, 1),
    }
    print(json.dumps(out))
    return 0 if out["jobs_lost"] == 0 and out["duplicate_bank_entries"] == 0 and mid_job >= args.kills else 1


if __name__ == "__main__":
    sys.exit(main())
