#!/usr/bin/env python
"""Match verification (issue 13): bank-hit latency in a warm process, and what the
verification adds to the adaptation of one candidate.

    SQLGENIE_DATA_DIR=/tmp/sg-match-verify .venv/bin/sqlgenie demo      # once: demo + seed bank
    SQLGENIE_DATA_DIR=/tmp/sg-match-verify .venv/bin/python scripts/bench_match_verify.py --rounds 5

Asks QUESTIONS (demo questions the seed bank answers: values, limits, a dropped
filter, a renamed alias) ``--rounds`` times in one warm ``Asker`` scoped to schema
``demo`` (retrieval, adaptation, verification, autocorrection, execution and the
query-log insert), after one warm-up round. Then times, per question and best
candidate, ``adapt_sql`` alone against ``adapt_verified`` (adaptation + verification).
Times depend on machine load: the output gives the 1-minute load average. Last stdout
line: one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

QUESTIONS = (
    "How many orders were placed in 2023?",
    "How many customers live in Denver?",
    "How many stores are in France?",
    "Which 3 cities have the most customers?",
    "What are the 3 most expensive products?",
    "What share of orders were cancelled in 2024?",
    "How many units of Rockpot headphones were sold?",
    "Revenue by region in 2024",
    "Number of orders by status",
    "Total revenue in 2024",
    "How many orders came through the online channel in 2025?",
    "How many products does the brand Nordhaus sell?",
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()

    from sqlgenie.inference.adapt import adapt_sql
    from sqlgenie.inference.pipeline import Asker
    from sqlgenie.inference.verify import adapt_verified, bank_values

    with Asker.open(provider=None, schemas=["demo"]) as asker:
        for q in QUESTIONS:  # warm-up
            asker.ask(q)
        times, answered = [], 0
        for _ in range(args.rounds):
            for q in QUESTIONS:
                start = time.perf_counter()
                r = asker.ask(q)
                times.append((time.perf_counter() - start) * 1000.0)
                answered += r.status == "ok"
        cases = []
        for q in QUESTIONS:
            retrieval = asker._retrieve(q, "auto")
            ex = retrieval.matches[0].example
            cases.append((ex, asker.retriever.mask(ex.question), retrieval.masked, q))
        known = bank_values(asker.retriever)
        adapt_ms, verified_ms = [], []
        for _ in range(args.rounds * 4):
            for ex, em, nm, q in cases:
                exact = em.key == nm.key
                start = time.perf_counter()
                adapt_sql(ex.sql, em.spans, nm.spans, catalog=asker.catalog, value_columns=asker.value_columns,
                          example_masked=em.text, new_masked=nm.text, exact=exact, schema_words=asker._schema_word)
                adapt_ms.append((time.perf_counter() - start) * 1000.0)
                start = time.perf_counter()
                adapt_verified(ex.sql, em.text, em.spans, nm.text, nm.spans, question=q, catalog=asker.catalog,
                               value_columns=asker.value_columns, exact=exact, schema_words=asker._schema_word,
                               known_values=known)
                verified_ms.append((time.perf_counter() - start) * 1000.0)
    times.sort()
    print(json.dumps({
        "asks": len(times), "answered": answered,
        "bank_hit_p50_ms": round(statistics.median(times), 2),
        "bank_hit_p95_ms": round(times[int(0.95 * (len(times) - 1))], 2),
        "adapt_p50_ms": round(statistics.median(adapt_ms), 3),
        "adapt_verified_p50_ms": round(statistics.median(verified_ms), 3),
        "load1": round(os.getloadavg()[0], 2),
    }))


if __name__ == "__main__":
    main()
