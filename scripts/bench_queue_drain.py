#!/usr/bin/env python
"""Drain 1,000 queued jobs with 4 `sqlgenie worker` processes; check none ran twice.

    SQLGENIE_DATA_DIR=/tmp/sg-x .venv/bin/python scripts/bench_queue_drain.py --jobs 1000 --workers 4

A fresh database on the embedded server of the current settings (dropped at the
end) gets ``--jobs`` ``probe`` jobs (each runs one small SELECT through the safe
executor and keeps its row count: the queue's own work, no model). ``--workers``
processes of ``sqlgenie worker --once`` (each ``--concurrency`` threads) start
together and exit when no job is ready. Every claim writes a ``job_runs`` row in
the claim's transaction, so a job taken twice shows as two rows.

Figures (last stdout line, JSON): ``jobs``, ``done``, ``not_done``, ``ran_twice``
(jobs with more than one run), ``runs`` (all claims), ``per_worker`` (jobs done by
each process: every process took part), ``wall_seconds`` (start of the processes
to the last exit), ``drain_seconds`` (first claim to last completion, store
clock), ``jobs_per_s`` (jobs / drain_seconds), ``enqueue_seconds``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

import psycopg

sys.path.insert(0, str(Path(__file__).resolve().parent))
import feedback_bench_common as common  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--jobs", type=int, default=1000)
    ap.add_argument("--workers", type=int, default=4, help="worker processes")
    ap.add_argument("--concurrency", type=int, default=1, help="threads per worker process")
    ap.add_argument("--timeout", type=float, default=1200.0)
    ap.add_argument("--keep", action="store_true", help="keep the bench database")
    args = ap.parse_args()
    from sqlgenie.feedback import queue
    from sqlgenie.store.migrations import ensure_migrated

    with common.bench_database(keep=args.keep) as url:
        ensure_migrated(url)
        t0 = time.perf_counter()
        with psycopg.connect(url) as conn:
            ids = [queue.enqueue(conn, "probe", {"sql": f"SELECT {i} AS n, {i} * 2 AS twice"})
                   for i in range(args.jobs)]
            conn.commit()
        enqueue_s = time.perf_counter() - t0
        common.log(f"{len(ids)} jobs queued in {enqueue_s:.1f} s; starting {args.workers} workers")
        t1 = time.perf_counter()
        procs = [subprocess.Popen(["nice", "-n", "10", sys.executable, "-m", "sqlgenie", "worker", "--once", "--json",
                                   "--concurrency", str(args.concurrency)],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=common.env(url))
                 for _ in range(args.workers)]
        outs = []
        for p in procs:
            out, err = p.communicate(timeout=args.timeout)
            if p.returncode != 0:
                common.log(f"worker {p.pid} exited {p.returncode}: {err[-2000:]}")
            lines = out.strip().splitlines()
            outs.append(json.loads(lines[-1]) if lines else {})
        wall = time.perf_counter() - t1
        with psycopg.connect(url, autocommit=True) as conn:
            states = common.job_states(conn, ids)
            ran_twice = conn.execute("SELECT count(*) FROM (SELECT job_id FROM sqlgenie.job_runs WHERE job_id = ANY(%s)"
                                     " GROUP BY job_id HAVING count(*) > 1) t", (ids,)).fetchone()[0]
            runs = conn.execute("SELECT count(*) FROM sqlgenie.job_runs WHERE job_id = ANY(%s)", (ids,)).fetchone()[0]
            wrong_result = conn.execute("SELECT count(*) FROM sqlgenie.jobs WHERE id = ANY(%s) AND status = 'done'"
                                        " AND (result->>'rows')::int IS DISTINCT FROM 1", (ids,)).fetchone()[0]
            span = conn.execute("SELECT extract(epoch FROM max(j.finished_at) - min(r.started_at)) FROM sqlgenie.jobs j"
                                " JOIN sqlgenie.job_runs r ON r.job_id = j.id WHERE j.id = ANY(%s)", (ids,)).fetchone()[0]
            per_worker = dict(conn.execute(
                "SELECT split_part(worker, ':', 2), count(*) FROM sqlgenie.job_runs WHERE job_id = ANY(%s)"
                " GROUP BY 1 ORDER BY 1", (ids,)).fetchall())
    drain = float(span or 0.0)
    out = {
        "bench": "queue_drain", "jobs": len(ids), "workers": args.workers, "concurrency": args.concurrency,
        "done": states.get("done", 0), "not_done": len(ids) - states.get("done", 0), "ran_twice": int(ran_twice),
        "runs": int(runs), "wrong_results": int(wrong_result),
        "per_worker": {k: int(v) for k, v in per_worker.items()},
        "worker_reports_done": sum(int(o.get("done", 0)) for o in outs),
        "enqueue_seconds": round(enqueue_s, 2), "wall_seconds": round(wall, 2), "drain_seconds": round(drain, 2),
        "jobs_per_s": round(len(ids) / drain, 1) if drain else None,
    }
    print(json.dumps(out))
    return 0 if out["not_done"] == 0 and out["ran_twice"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
