#!/usr/bin/env python
"""Load test of `sqlgenie serve`: 16 concurrent clients for a bounded time against
127.0.0.1, asking bank-hit questions (the demo seed bank's and the quickstart's)
and questions the bank cannot answer (refused).

    .venv/bin/python scripts/bench_serve.py                       # starts a server on the demo store
    .venv/bin/python scripts/bench_serve.py --url http://127.0.0.1:8000 --token sg_...

Without --url it starts `sqlgenie serve` on a free port of 127.0.0.1 with the
current settings (SQLGENIE_DATA_DIR ...; run `sqlgenie demo` there first), makes
an asker token and stops the server at the end. Phases: a warm single client
(latency of one ask, client and server side), one-shot `sqlgenie ask` processes
(wall time, as from a shell), then the 16-client load. Progress
goes to stderr; the last stdout line is one JSON object with `requests`,
`errors`, `rps`, `p50_ms`, `p99_ms` (the load phase) and the details.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import threading
import time
from urllib.parse import urlsplit

#: Questions outside the demo seed bank's reach: answered by a refusal (think route, no LLM).
REFUSED = (
    "Which employees earn the highest salaries?",
    "What is the weather forecast for Paris tomorrow?",
    "List the suppliers with late deliveries last quarter",
    "Who manages the most warehouses?",
)


def bank_questions() -> list[str]:
    from sqlgenie.quickstart import DEMO_QUESTIONS, seed_pairs

    return [p["question"] for p in seed_pairs()] + list(DEMO_QUESTIONS[:-1])


def percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    values = sorted(values)
    k = min(len(values) - 1, max(0, round(q * (len(values) - 1))))
    return round(values[k], 2)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(port: int, askers: int | None) -> tuple[subprocess.Popen, str]:
    exe = os.path.join(os.path.dirname(sys.executable), "sqlgenie")
    made = subprocess.run([exe, "users", "add", "bench-serve", "--role", "asker", "--json"],
                          capture_output=True, text=True, check=True)
    token = json.loads(made.stdout.strip().splitlines()[-1])["token"]
    cmd = [exe, "serve", "--host", "127.0.0.1", "--port", str(port)]
    if askers:
        cmd += ["--askers", str(askers)]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"bench: the server exited: {proc.stderr.read()[-2000:]}")
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            conn.request("GET", "/api/health")
            if conn.getresponse().status == 200:
                return proc, token
        except OSError:
            pass
        time.sleep(0.3)
    proc.terminate()
    raise SystemExit("bench: the server did not answer /api/health within 120 s")


class Client:
    def __init__(self, host: str, port: int, token: str) -> None:
        self.conn = http.client.HTTPConnection(host, port, timeout=30)
        self.headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}

    def ask(self, question: str) -> tuple[int, dict | None, float]:
        body = json.dumps({"question": question})
        start = time.perf_counter()
        try:
            self.conn.request("POST", "/api/ask", body=body, headers=self.headers)
            resp = self.conn.getresponse()
            data = resp.read()
            status = resp.status
        except (OSError, http.client.HTTPException):
            self.conn.close()
            return 0, None, (time.perf_counter() - start) * 1000.0
        ms = (time.perf_counter() - start) * 1000.0
        try:
            return status, json.loads(data), ms
        except ValueError:
            return status, None, ms


def run_load(host: str, port: int, token: str, questions: list[tuple[str, str]], clients: int,
             seconds: float) -> dict:
    results: list[tuple[str, int, str | None, float, float | None]] = []
    lock = threading.Lock()
    stop = time.monotonic() + seconds

    def worker(seed: int) -> None:
        rng = random.Random(seed)
        client = Client(host, port, token)
        mine = []
        while time.monotonic() < stop:
            kind, q = rng.choice(questions)
            status, data, ms = client.ask(q)
            mine.append((kind, status, (data or {}).get("status"), ms, (data or {}).get("total_ms")))
        with lock:
            results.extend(mine)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(clients)]
    started = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - started
    ok = [r for r in results if r[1] == 200]
    errors = [r for r in results if r[1] != 200 or (r[0] == "bank" and r[2] != "ok")
              or (r[0] == "refused" and r[2] != "refused")]
    by_kind = {}
    for kind in ("bank", "refused"):
        rows = [r for r in ok if r[0] == kind]
        by_kind[kind] = {"requests": len(rows), "p50_ms": percentile([r[3] for r in rows], 0.5),
                         "p99_ms": percentile([r[3] for r in rows], 0.99),
                         "rps": round(len(rows) / elapsed, 1),
                         "server_p50_ms": percentile([r[4] for r in rows if r[4] is not None], 0.5)}
    return {
        "requests": len(results), "errors": len(errors), "rps": round(len(results) / elapsed, 1),
        "p50_ms": percentile([r[3] for r in results], 0.5), "p99_ms": percentile([r[3] for r in results], 0.99),
        "seconds": round(elapsed, 1), "by_kind": by_kind,
        "error_samples": [list(e[:3]) for e in errors[:5]],
    }


def run_single(host: str, port: int, token: str, questions: list[str], n: int) -> dict:
    client = Client(host, port, token)
    wall, server = [], []
    for i in range(n):
        status, data, ms = client.ask(questions[i % len(questions)])
        if status == 200 and data:
            wall.append(ms)
            server.append(data.get("total_ms"))
    return {"asks": n, "answered": len(wall), "p50_ms": percentile(wall, 0.5),
            "server_p50_ms": percentile([s for s in server if s is not None], 0.5)}


def run_oneshot(host: str, port: int, token: str, question: str, n: int) -> dict:
    """``sqlgenie ask QUESTION`` from a fresh process (the launcher, as a shell runs it)
    with the server running: wall time per run, and the client process's CPU time."""
    import resource

    exe = os.path.join(os.path.dirname(sys.executable), "sqlgenie")
    env = dict(os.environ, SQLGENIE_SERVER_URL=f"http://{host}:{port}", SQLGENIE_TOKEN=token)
    walls, cpus, failed = [], [], 0
    for _ in range(n):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        proc = subprocess.run([exe, "ask", question], capture_output=True, text=True, env=env, timeout=120)
        walls.append((time.perf_counter() - start) * 1000.0)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append((after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000.0)
        if proc.returncode != 0 or "route" not in proc.stdout:
            failed += 1
    return {"runs": n, "failed": failed, "wall_p50_ms": percentile(walls, 0.5), "wall_min_ms": round(min(walls), 1),
            "wall_max_ms": round(max(walls), 1), "cpu_p50_ms": percentile(cpus, 0.5), "question": question}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--url", help="A running server (default: start one on a free port of 127.0.0.1).")
    ap.add_argument("--token", help="An asker token for --url (default: make one with `sqlgenie users add`).")
    ap.add_argument("--clients", type=int, default=16)
    ap.add_argument("--seconds", type=float, default=20.0, help="Length of the load phase (bounded).")
    ap.add_argument("--refused-share", type=float, default=0.2, help="Share of refused questions in the load.")
    ap.add_argument("--single", type=int, default=100, help="Sequential asks of the warm single-client phase.")
    ap.add_argument("--askers", type=int, default=None, help="--askers of the started server.")
    ap.add_argument("--oneshot", type=int, default=10,
                    help="One-shot `sqlgenie ask` processes (the launcher) timed against the server.")
    args = ap.parse_args()
    if not 0 < args.seconds <= 600:
        ap.error("--seconds must be in (0, 600]")

    proc = None
    if args.url:
        parts = urlsplit(args.url)
        if parts.hostname not in ("127.0.0.1", "localhost", "::1"):
            ap.error("the load test only targets this machine (127.0.0.1)")
        host, port = parts.hostname, parts.port or 80
        token = args.token or os.environ.get("SQLGENIE_TOKEN")
        if not token:
            ap.error("--token (or SQLGENIE_TOKEN) is needed with --url")
    else:
        host, port = "127.0.0.1", free_port()
        print(f"bench: starting sqlgenie serve on {host}:{port}", file=sys.stderr)
        proc, token = start_server(port, args.askers)
    try:
        bank = bank_questions()
        mix = [("bank", q) for q in bank]
        n_refused = max(1, round(len(mix) * args.refused_share / (1 - args.refused_share)))
        mix += [("refused", REFUSED[i % len(REFUSED)]) for i in range(n_refused)]
        print("bench: warming up (every question once)", file=sys.stderr)
        warm = Client(host, port, token)
        for _, q in mix:
            status, data, _ = warm.ask(q)
            if status != 200:
                raise SystemExit(f"bench: warm-up ask failed with HTTP {status}: {data}")
        print(f"bench: single client, {args.single} bank-hit asks", file=sys.stderr)
        single = run_single(host, port, token, bank, args.single)
        print(f"bench: {args.clients} clients for {args.seconds:.0f} s", file=sys.stderr)
        print(f"bench: {args.oneshot} one-shot `sqlgenie ask` processes", file=sys.stderr)
        oneshot = run_oneshot(host, port, token, bank[0], args.oneshot) if args.oneshot > 0 else None
        load = run_load(host, port, token, mix, args.clients, args.seconds)
        bank_only = run_load(host, port, token, [("bank", q) for q in bank], args.clients, args.seconds / 2)
    finally:
        if proc is not None:
            proc.terminate()
            proc.wait(timeout=30)
    out = {**{k: load[k] for k in ("requests", "errors", "rps", "p50_ms", "p99_ms")},
           "clients": args.clients, "seconds": load["seconds"], "by_kind": load["by_kind"],
           "bank_only": {k: bank_only[k] for k in ("requests", "errors", "rps", "p50_ms", "p99_ms")},
           "single": single, "oneshot": oneshot, "error_samples": load["error_samples"] + bank_only["error_samples"],
           "loadavg": [round(x, 2) for x in os.getloadavg()], "cpus": os.cpu_count()}
    print(json.dumps(out))


if __name__ == "__main__":
    main()
