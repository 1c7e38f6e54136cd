#!/usr/bin/env python
"""Benchmark `sqlgenie demo load`: wall-clock seconds per scale.

Loads the demo into a scratch database (``sqlgenie_bench_demo``, dropped at the end
unless --keep) on the server of the target database: the embedded default, or
SQLGENIE_DATABASE_URL / SQLGENIE_TARGET_DATABASE_URL. With --in-place it loads
into the target database itself (replacing its demo schema).

Prints one line per run, and as the LAST stdout line one JSON object:
{"benchmark": "demo_load", "results": [{"scale": ..., "seconds": <median>, "runs": [...]}], ...}

Example: python scripts/bench_demo_load.py --scales 100000,1000000 --runs 3
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time

import psycopg
from psycopg import sql
from psycopg.conninfo import conninfo_to_dict, make_conninfo

from sqlgenie.config import get_settings
from sqlgenie.demo import DEFAULT_SEED, load_demo
from sqlgenie.store.connection import target_url

SCRATCH_DB = "sqlgenie_bench_demo"


def _scales(text: str) -> list[int]:
    return [int(float(part)) for part in text.split(",") if part.strip()]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scales", type=_scales, default=[100_000, 1_000_000],
                        help="comma-separated order_items counts (default 100000,1000000; 1e7 works)")
    parser.add_argument("--runs", type=int, default=3, help="runs per scale (median reported)")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--in-place", action="store_true", help="load into the target database itself")
    parser.add_argument("--keep", action="store_true", help="keep the scratch database")
    args = parser.parse_args(argv)

    base_url = target_url(get_settings())  # starts the embedded server when needed
    url = base_url
    if not args.in_place:
        with psycopg.connect(base_url, autocommit=True) as conn:
            conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(SCRATCH_DB)))
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(SCRATCH_DB)))
        url = make_conninfo(base_url, dbname=SCRATCH_DB)
    with psycopg.connect(url) as conn:
        server_version = conn.execute("SHOW server_version").fetchone()[0]
    host = conninfo_to_dict(url).get("host", "")

    results = []
    try:
        for scale in args.scales:
            runs = []
            for run in range(1, args.runs + 1):
                load_before = os.getloadavg()[0]
                t0 = time.perf_counter()
                report = load_demo(url, scale=scale, seed=args.seed)
                wall = time.perf_counter() - t0
                runs.append({
                    "seconds": round(wall, 3),
                    "tables": {name: info["seconds"] for name, info in report.tables.items()},
                    "phases": report.phases,
                    "loadavg_1m_before": round(load_before, 2),
                })
                rows = sum(info["rows"] for info in report.tables.values())
                print(f"scale {scale:>10,}  run {run}/{args.runs}  {wall:8.2f} s  ({rows:,} rows in all tables, "
                      f"order_items {report.tables['order_items']['seconds']:.2f} s, keys {report.phases['keys']:.2f} s, "
                      f"analyze {report.phases['analyze']:.2f} s; load avg before {load_before:.2f})", flush=True)
            seconds = [r["seconds"] for r in runs]
            results.append({
                "scale": scale,
                "seconds": round(statistics.median(seconds), 3),
                "min_seconds": min(seconds),
                "max_seconds": max(seconds),
                "rows_per_second": round(scale / statistics.median(seconds)),
                "runs": runs,
            })
            print(f"scale {scale:>10,}  median {statistics.median(seconds):.2f} s over {len(runs)} run(s)", flush=True)
    finally:
        if not args.in_place and not args.keep:
            with psycopg.connect(base_url, autocommit=True) as conn:
                conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(SCRATCH_DB)))

    print(json.dumps({
        "benchmark": "demo_load",
        "seed": args.seed,
        "results": results,
        "postgres": server_version,
        "server": "embedded" if get_settings().embedded else "external",
        "socket_or_host": host,
        "machine": {"cpus": os.cpu_count(), "platform": platform.platform(), "python": platform.python_version(),
                    "loadavg_after": [round(x, 2) for x in os.getloadavg()]},
    }))
    return 0


if __name__ == "__main__":
    sys.exit(main())
