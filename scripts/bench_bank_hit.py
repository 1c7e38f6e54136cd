#!/usr/bin/env python
"""Bank hits in a warm process (issue 13: "a bank hit stays p50 <= 15 ms in a warm process").

    SQLGENIE_DATA_DIR=/tmp/sg-x .venv/bin/python scripts/bench_bank_hit.py \\
        --records /tmp/sg-x/runs/scholar-s12/scholar.jsonl --rounds 3

Run it in the data dir where ``scripts/bench_match.py`` wrote ``--records`` (its bank is the
one asked). Every question of the records the match route answered is asked once to warm
the process, then ``--rounds`` more times, timed: wall time and process CPU time per ask
(the process's CPU counts every thread: a loaded machine inflates wall time, not CPU time).
The asker is the one ``eval bank`` uses (no LLM, query log on). Each answer's SQL is
compared with the record's (``sql_differs``: answers must not change). Progress goes to
stderr; the last stdout line is one JSON object with the figures and the 1-minute load.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def _quantile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))], 2)


def _schema_of(sql: str) -> str | None:
    """The schema the answered SQL's tables are qualified with (``eval bank`` qualifies them)."""
    import sqlglot
    from sqlglot import exp

    try:
        tree = sqlglot.parse_one(sql, read="postgres")
    except Exception:
        return None
    return next((t.db for t in tree.find_all(exp.Table) if t.db), None)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", required=True, help="a bench_match JSONL of this data dir")
    parser.add_argument("--rounds", type=int, default=3, help="timed asks of every hit")
    args = parser.parse_args(argv)

    from sqlgenie.autocorrect import AutocorrectSettings
    from sqlgenie.config import get_settings
    from sqlgenie.inference.pipeline import Asker
    from sqlgenie.store.connection import open_connection, store_url, target_url

    settings = get_settings()
    records = [json.loads(line) for line in Path(args.records).read_text(encoding="utf-8").splitlines() if line.strip()]
    hits = [r for r in records if r.get("answered") and r.get("route") == "match" and r.get("sql")]
    by_schema: dict[str, list[dict]] = {}
    for rec in hits:
        schema = _schema_of(rec["sql"])
        if schema:
            by_schema.setdefault(schema, []).append(rec)
    ac = AutocorrectSettings.from_settings(settings).without_defaults()
    url = target_url(settings)
    wall: list[float] = []
    cpu: list[float] = []
    differs: list[str] = []
    refused = 0
    with open_connection(store_url(settings)) as store:
        store.autocommit = True
        for schema, recs in by_schema.items():
            with Asker(settings, store=store, target_url=url, schemas=[schema], search_path=[schema],
                       provider=None, log=True, log_kind="eval", autocorrect=ac, encode=None) as asker:
                for rec in recs:  # warm-up: embeddings, per-bank caches, parses
                    asker.ask(rec["question"], execute=True)
                for _ in range(args.rounds):
                    for rec in recs:
                        w0, c0 = time.perf_counter(), time.process_time()
                        result = asker.ask(rec["question"], execute=True)
                        wall.append((time.perf_counter() - w0) * 1000)
                        cpu.append((time.process_time() - c0) * 1000)
                        if result.route != "match" or result.status != "ok":
                            refused += 1
                        if result.sql != rec["sql"] and rec["question"] not in differs:
                            differs.append(rec["question"])
            print(f"[{schema}] {len(recs)} hits", file=sys.stderr, flush=True)
    out = {"bench": "bank_hit", "records": args.records, "hits": len(hits), "asks": len(wall), "rounds": args.rounds,
           "wall_p50_ms": _quantile(wall, 0.5), "wall_p90_ms": _quantile(wall, 0.9),
           "cpu_p50_ms": _quantile(cpu, 0.5), "cpu_p90_ms": _quantile(cpu, 0.9),
           "not_answered": refused, "sql_differs": len(differs), "sql_differs_questions": differs[:5],
           "loadavg_1m_end": round(os.getloadavg()[0], 2)}
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
