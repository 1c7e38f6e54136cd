"""Safe executor round trips: one pipeline per run against statement by statement.

In one warm process, on the demo store (`sqlgenie demo` first):

* ``queries``: ``--queries`` trivial bank-style queries through ``SafeExecutor.run``
  (a one-row count on ``demo.stores``), alternating between an executor that sends the
  run as one psycopg pipeline (``pipeline=True``, the default: one round trip) and one
  that sends it statement by statement (``pipeline=False``: setup, DECLARE, Describe,
  FETCH, ROLLBACK = five round trips). Both executors have their own connection.
* ``asks``: ``--asks`` bank-hit asks through one :class:`~sqlgenie.inference.pipeline.Asker`
  (the demo seed bank's 48 questions and the quickstart's, cycled; no LLM), alternating
  the same asker's executor between the two modes; ``total_ms`` of each answer (as the
  server reports it) and its ``execute`` stage. Every ask must answer ``ok`` and both
  modes must return the same rows for a question, else it counts as an error.

Alternating run by run keeps both modes under the same machine load. ``--idle-ms``
sleeps between runs (a server's backend goes idle between asks). Usage::

    SQLGENIE_DATA_DIR=/tmp/sg-executor SQLGENIE_LLM_PROVIDER=none \\
        nice -n 10 .venv/bin/python scripts/bench_executor.py [--queries 2000] [--asks 500]

The last stdout line is one JSON object with p50/p99 ms per mode.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

QUERY = "SELECT count(*) AS stores FROM demo.stores WHERE country = 'Germany'"


def percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, int(round(q * (len(ordered) - 1)))))
    return round(ordered[index], 3)


def summary(values: list[float]) -> dict:
    return {
        "n": len(values),
        "p50_ms": percentile(values, 0.50),
        "p99_ms": percentile(values, 0.99),
        "mean_ms": round(statistics.fmean(values), 3) if values else None,
    }


def bench_queries(url: str, n: int, idle_s: float) -> dict:
    from sqlgenie.executor import SafeExecutor

    times: dict[str, list[float]] = {"pipeline": [], "step": []}
    errors = 0
    with SafeExecutor(url, pipeline=True) as piped, SafeExecutor(url, pipeline=False) as step:
        if not piped.pipeline:
            raise SystemExit("psycopg pipeline mode is not supported by this libpq (needs >= 14)")
        expected = step.run(QUERY).rows
        piped.run(QUERY)
        for i in range(2 * n):
            mode, executor = ("pipeline", piped) if i % 2 == 0 else ("step", step)
            if idle_s:
                time.sleep(idle_s)
            start = time.perf_counter()
            rows = executor.run(QUERY).rows
            times[mode].append((time.perf_counter() - start) * 1000.0)
            errors += rows != expected
        pipelined_runs = piped.pipelined_runs
    return {mode: summary(v) for mode, v in times.items()} | {
        "errors": errors, "pipelined_runs": pipelined_runs, "sql": QUERY
    }


def bench_asks(n: int, idle_s: float) -> dict:
    from sqlgenie.config import get_settings
    from sqlgenie.inference.pipeline import Asker
    from sqlgenie.quickstart import DEMO_QUESTIONS, seed_pairs
    from sqlgenie.store.connection import open_connection, store_url

    settings = get_settings()
    questions = [p["question"] for p in seed_pairs()] + list(DEMO_QUESTIONS[:-1])
    store = open_connection(store_url(settings), autocommit=True)
    store.execute("SET synchronous_commit = off")  # as the server's askers log asks
    asker = Asker(settings, store=store)
    total: dict[str, list[float]] = {"pipeline": [], "step": []}
    execute: dict[str, list[float]] = {"pipeline": [], "step": []}
    answers: dict[str, list] = {}
    errors: list[str] = []
    try:
        for mode in ("step", "pipeline"):  # warm-up: every question once in each mode
            asker.executor.pipeline = mode == "pipeline"
            for q in questions:
                asker.ask(q)
        for i in range(2 * n):
            mode = "pipeline" if i % 2 == 0 else "step"
            question = questions[(i // 2) % len(questions)]
            asker.executor.pipeline = mode == "pipeline"
            if idle_s:
                time.sleep(idle_s)
            result = asker.ask(question)
            if result.status != "ok":
                errors.append(f"{mode}: {question!r} -> {result.status}")
                continue
            rows = [list(r) for r in (result.rows or [])]
            if answers.setdefault(question, rows) != rows:
                errors.append(f"{mode}: {question!r} -> rows differ between modes")
            total[mode].append(result.total_ms)
            execute[mode].append(result.timings_ms.get("execute", 0.0))
        pipelined_runs = asker.executor.pipelined_runs
    finally:
        asker.close()
        store.close()
    out = {mode: summary(v) for mode, v in total.items()}
    out["execute_stage"] = {mode: summary(v) for mode, v in execute.items()}
    out |= {"errors": len(errors), "error_examples": errors[:5], "pipelined_runs": pipelined_runs,
            "questions": len(questions)}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--queries", type=int, default=2000, help="trivial queries per mode")
    parser.add_argument("--asks", type=int, default=500, help="bank-hit asks per mode")
    parser.add_argument("--idle-ms", type=float, default=0.0, help="sleep between runs")
    args = parser.parse_args()
    os.environ.setdefault("SQLGENIE_LLM_PROVIDER", "none")

    from sqlgenie.config import get_settings
    from sqlgenie.store.connection import target_url

    settings = get_settings()
    load_before = os.getloadavg()[0]
    started = time.perf_counter()
    out: dict = {"idle_ms": args.idle_ms}
    if args.queries:
        out["queries"] = bench_queries(target_url(settings), args.queries, args.idle_ms / 1000.0)
        q = out["queries"]
        print(f"queries  pipeline p50 {q['pipeline']['p50_ms']} p99 {q['pipeline']['p99_ms']} ms | "
              f"step p50 {q['step']['p50_ms']} p99 {q['step']['p99_ms']} ms | errors {q['errors']}", file=sys.stderr)
    if args.asks:
        out["asks"] = bench_asks(args.asks, args.idle_ms / 1000.0)
        a = out["asks"]
        print(f"asks     pipeline p50 {a['pipeline']['p50_ms']} p99 {a['pipeline']['p99_ms']} ms | "
              f"step p50 {a['step']['p50_ms']} p99 {a['step']['p99_ms']} ms | errors {a['errors']}", file=sys.stderr)
    out["load_avg"] = [round(load_before, 1), round(os.getloadavg()[0], 1)]
    out["seconds"] = round(time.perf_counter() - started, 1)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
