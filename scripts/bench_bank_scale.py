#!/usr/bin/env python
"""Example bank at scale: import throughput, retrieval latency and HNSW recall.

1. Creates a fresh database (store = target) with a synthetic schema of empty
   tables, synthesises N question->SQL pairs (fixed seed; varied templates,
   phrasings, tables, columns and values) into a JSONL file.
2. Imports them with the same code as ``sqlgenie bank import`` (validation,
   masking, real MiniLM embeddings of the unique masked questions, batched
   inserts, HNSW index maintained) and reports pairs/s.
3. In the same warm process, times :meth:`Retriever.retrieve` (masking, exact
   masked look-up, embedding of the question, HNSW search, ranking) on Q new
   questions with unseen values: p50 / p95, also for the queries that took the
   embedding path (no exact masked match).
4. HNSW recall@5 against exact search (sequential scan) for the same queries.

The last stdout line is one JSON object. Use a dedicated data directory:

    SQLGENIE_DATA_DIR=/tmp/sg-bank .venv/bin/python scripts/bench_bank_scale.py
    SQLGENIE_DATA_DIR=/tmp/sg-bank .venv/bin/sqlgenie db stop
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

ENTITIES = [
    ("customers", "customer"), ("orders", "order"), ("products", "product"), ("invoices", "invoice"),
    ("shipments", "shipment"), ("employees", "employee"), ("stores", "store"), ("suppliers", "supplier"),
    ("campaigns", "campaign"), ("tickets", "ticket"), ("subscriptions", "subscription"), ("payments", "payment"),
    ("vehicles", "vehicle"), ("flights", "flight"), ("patients", "patient"), ("claims", "claim"),
    ("listings", "listing"), ("reviews", "review"), ("devices", "device"), ("courses", "course"),
    ("loans", "loan"), ("accounts", "account"), ("projects", "project"), ("warehouses", "warehouse"),
    ("influencers", "influencer"), ("videos", "video"), ("restaurants", "restaurant"), ("hotels", "hotel"),
    ("players", "player"), ("matches", "match"), ("artists", "artist"), ("albums", "album"),
    ("books", "book"), ("authors", "author"), ("doctors", "doctor"), ("contracts", "contract"),
    ("leads", "lead"), ("events", "event"), ("trips", "trip"), ("policies", "policy"),
]
NUMERIC = [("amount", "amount"), ("price", "price"), ("quantity", "quantity"), ("score", "score"),
           ("revenue", "revenue"), ("cost", "cost"), ("duration_minutes", "duration in minutes"),
           ("rating", "rating"), ("age", "age"), ("discount", "discount")]
TEXTUAL = [("city", "city"), ("status", "status"), ("category", "category"), ("region", "region"),
           ("country", "country"), ("channel", "channel"), ("segment", "segment")]
DATE_COL = ("created_at", "created")
CITIES = ["San Francisco", "Tokyo", "Paris", "Berlin", "New York", "London", "Sydney", "Toronto", "Madrid",
          "Rome", "Chicago", "Boston", "Seattle", "Austin", "Denver", "Mumbai", "Seoul", "Lagos", "Lima",
          "Oslo", "Vienna", "Dublin", "Prague", "Cairo", "Nairobi", "Osaka", "Munich", "Milan", "Zurich", "Miami"]
WORDS = ["active", "closed", "pending", "premium", "basic", "online", "retail", "north", "south", "gold"]
AGGS = [("SUM", ["total", "sum of", "overall"]), ("AVG", ["average", "mean", "typical"]),
        ("MAX", ["highest", "maximum", "largest"]), ("MIN", ["lowest", "minimum", "smallest"])]
SHOW = ["Show", "List", "Give me", "Find", "Return", "Display", "What are"]
COUNT = ["How many", "What is the number of", "Count the", "Number of"]
COMPARE = [(">", ["above", "more than", "greater than", "over"]), ("<", ["below", "less than", "under"]),
           (">=", ["at least", "no less than"]), ("<=", ["at most", "no more than"])]
MONTHS = ["January", "February", "March", "April", "June", "July", "August", "September", "October", "November"]


def _value(rng: random.Random, col: str) -> tuple[str, str]:
    """(text in the question, SQL literal) for a text column."""
    if col == "city":
        v = rng.choice(CITIES)
        return v, v
    v = rng.choice(WORDS) + (str(rng.randint(1, 99)) if rng.random() < 0.3 else "")
    return f"'{v}'", v


def synthesize(n: int, seed: int) -> list[tuple[str, str]]:
    rng = random.Random(seed)
    out: list[tuple[str, str]] = []
    while len(out) < n:
        table, noun = rng.choice(ENTITIES)
        num, num_words = rng.choice(NUMERIC)
        txt, txt_words = rng.choice(TEXTUAL)
        num2, num2_words = rng.choice(NUMERIC)
        agg, agg_words = rng.choice(AGGS)
        op, op_words = rng.choice(COMPARE)
        shown, lit = _value(rng, txt)
        k = rng.choice([3, 5, 10, 20, 25, 50, 100])
        x = rng.choice([5, 10, 18, 25, 30, 100, 250, 1000, 4999, 12.5])
        year = rng.randint(2015, 2025)
        t = rng.randrange(8)
        aw = rng.choice(agg_words)
        if t == 0:
            q = f"{rng.choice(COUNT)} {table} have {txt_words} {shown}?"
            s = f"SELECT count(*) FROM {table} WHERE {txt} = '{lit}'"
        elif t == 1:
            q = f"{rng.choice(SHOW)} the top {k} {table} by {num_words} in {txt_words} {shown}"
            s = f"SELECT * FROM {table} WHERE {txt} = '{lit}' ORDER BY {num} DESC LIMIT {k}"
        elif t == 2:
            q = f"What is the {aw} {num_words} of {table} per {txt_words}?"
            s = f"SELECT {txt}, {agg}({num}) AS {agg.lower()}_{num} FROM {table} GROUP BY {txt}"
        elif t == 3:
            q = f"{rng.choice(SHOW)} {table} with {num_words} {rng.choice(op_words)} {x} and {num2_words} {rng.choice(op_words)} {x * 2}"
            s = f"SELECT * FROM {table} WHERE {num} {op} {x} AND {num2} {op} {x * 2}"
        elif t == 4:
            q = f"{aw.capitalize()} {num_words} of {table} {DATE_COL[1]} in {year} for {txt_words} {shown}"
            s = (f"SELECT {agg}({num}) FROM {table} WHERE {txt} = '{lit}' AND {DATE_COL[0]} >= DATE '{year}-01-01'"
                 f" AND {DATE_COL[0]} < DATE '{year + 1}-01-01'")
        elif t == 5:
            month = rng.randrange(len(MONTHS))
            q = f"{rng.choice(COUNT)} {table} were {DATE_COL[1]} in {MONTHS[month]} {year}?"
            s = (f"SELECT count(*) FROM {table} WHERE date_trunc('month', {DATE_COL[0]})"
                 f" = DATE '{year}-{month + 1 if month < 4 else month + 2:02d}-01'")
        elif t == 6:
            code = f"{noun[:3].upper()}-{rng.randint(100, 99999)}"
            q = f"{rng.choice(SHOW)} the {num_words} and {txt_words} of {noun} {code}"
            s = f"SELECT {num}, {txt} FROM {table} WHERE code = '{code}'"
        else:
            q = f"Which {txt_words} has the {aw} {num_words} of {table} {rng.choice(op_words)} {x}?"
            s = (f"SELECT {txt} FROM {table} WHERE {num} {op} {x} GROUP BY {txt} "
                 f"ORDER BY {agg}({num}) DESC LIMIT 1")
        out.append((q, s))
    return out


def create_schema(conn) -> None:
    from psycopg import sql as pgsql

    cols = ", ".join(
        [f"{c} numeric" for c, _ in NUMERIC] + [f"{c} text" for c, _ in TEXTUAL] + ["code text", "created_at date"]
    )
    for table, _ in ENTITIES:
        conn.execute(pgsql.SQL("CREATE TABLE {} (id bigint PRIMARY KEY, " + cols + ")").format(pgsql.Identifier(table)))


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    idx = min(len(ordered) - 1, max(0, round(p / 100 * (len(ordered) - 1))))
    return ordered[idx]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=100_000)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--database", default="bank_bench")
    ap.add_argument("--no-execute", action="store_true", help="Skip the LIMIT 0 run per imported SQL.")
    ap.add_argument("--ef-search", type=int, default=100)
    ap.add_argument("--reuse", action="store_true",
                    help="Reuse the bank already imported in --database: measure retrieval and recall only.")
    args = ap.parse_args()

    import numpy as np
    import psycopg
    from psycopg.conninfo import make_conninfo

    from example_bank.embedder import get_embedder
    from example_bank.importer import BankContext, import_pairs, read_pairs
    from example_bank.retrieval import Retriever, embedding_text
    from example_bank.store import BankStore
    from sqlgenie.config import load_settings
    from sqlgenie.store import connect_store, store_url

    log = lambda msg: print(msg, file=sys.stderr, flush=True)  # noqa: E731
    base = load_settings()
    server = store_url(base)
    if not args.reuse:
        with psycopg.connect(server, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{args.database}" WITH (FORCE)')
            admin.execute(f'CREATE DATABASE "{args.database}"')
    url = make_conninfo(server, dbname=args.database)
    settings = load_settings(database_url=url)

    pairs = synthesize(args.pairs, args.seed)
    tmp = Path(tempfile.mkdtemp(prefix="sg-bank-bench-"))
    data_file = tmp / "pairs.jsonl"
    if not args.reuse:
        with data_file.open("w", encoding="utf-8") as fh:
            for q, s in pairs:
                fh.write(json.dumps({"question": q, "sql": s}) + "\n")

    embedder = get_embedder(settings.embedding_model)
    t0 = time.perf_counter()
    embedder.encode(["warm up"])
    load_s = time.perf_counter() - t0
    log(f"model loaded in {load_s:.1f}s; importing {len(pairs)} pairs")

    with connect_store(settings) as store:
        import_s = import_cpu = 0.0
        report = None
        if not args.reuse:
            create_schema(store)
            store.commit()
            ctx = BankContext.load(store, store, url)
            done = [0]
            last = [time.perf_counter()]

            def progress(n: int) -> None:
                done[0] += n
                if time.perf_counter() - last[0] > 15:
                    last[0] = time.perf_counter()
                    log(f"  {done[0]} / {len(pairs)}")

            t0 = time.perf_counter()
            cpu0 = time.process_time()
            report = import_pairs(
                ctx, read_pairs(data_file), encode=embedder.encode, execute=not args.no_execute,
                model_name=settings.embedding_model, file_name=str(data_file), progress=progress,
            )
            import_s = time.perf_counter() - t0
            import_cpu = time.process_time() - cpu0
            ctx.close()
            store.execute("ANALYZE sqlgenie.bank_examples")
            store.commit()
            log(f"imported: {report.added} added, {report.merged} merged, "
                f"{len(report.rejected)} rejected, {report.embedded_texts} texts embedded in {import_s:.1f}s")
            if report.rejected:
                log(f"first rejected: {report.rejected[0]}")
        bank = BankStore(store)
        total = bank.count()
        topped_up = 0
        if args.reuse and total < args.pairs:
            # merged duplicates left fewer rows than pairs: add fresh pairs until the bank holds N rows
            ctx = BankContext.load(store, store, url)
            extra_seed = args.seed + 500
            while total < args.pairs:
                need = int((args.pairs - total) * 1.15) + 10
                extra = [(i + 1, q, s) for i, (q, s) in enumerate(synthesize(need, extra_seed))]
                import_pairs(ctx, extra, encode=embedder.encode, execute=not args.no_execute)
                topped_up += len(extra)
                extra_seed += 1
                total = bank.count()
            ctx.close()
            store.execute("ANALYZE sqlgenie.bank_examples")
            store.commit()
            log(f"topped up with {topped_up} pairs: {total} rows")

        # --- retrieval latency in a warm process
        queries = [q for q, _ in synthesize(args.queries, args.seed + 1000)]
        retriever = Retriever(store, store, encode=embedder.encode, threshold=settings.match_threshold,
                              ef_search=args.ef_search)
        for q in queries[:10]:
            retriever.retrieve(q, k=5)  # warm caches
        latencies, cpu_ms, exact_flags, hits = [], [], [], 0
        for q in queries:
            t, c = time.perf_counter(), time.process_time()
            result = retriever.retrieve(q, k=5)
            latencies.append((time.perf_counter() - t) * 1000)
            cpu_ms.append((time.process_time() - c) * 1000)
            exact_flags.append(bool(result.matches and result.matches[0].exact))
            hits += bool(result.matches)
        embed_path = [lat for lat, ex in zip(latencies, exact_flags) if not ex]

        # latency when no exact masked match exists (always embeds): unseen phrasing
        novel = [f"Please tell me: {q[0].lower()}{q[1:]}" for q in queries]
        novel_lat = []
        for q in novel:
            t = time.perf_counter()
            retriever.retrieve(q, k=5)
            novel_lat.append((time.perf_counter() - t) * 1000)

        # --- recall@5 of HNSW against exact search
        vectors = embedder.encode([embedding_text(retriever.mask(q)) for q in novel])
        # Identical masked questions share one embedding, so exact search has ties: besides the
        # id overlap, count an HNSW hit as right when it is no farther than the 5th exact hit.
        truth = [bank.nearest(v, k=5, allowed_tables=retriever.allowed, exact=True) for v in vectors]
        recalls, recalls_ties = {}, {}
        for ef in sorted({40, args.ef_search}):
            per, per_ties = [], []
            for v, exact in zip(vectors, truth):
                approx = bank.nearest(v, k=5, allowed_tables=retriever.allowed, ef_search=ef)
                ids = {h.example.id for h in exact}
                per.append(len({h.example.id for h in approx} & ids) / max(len(ids), 1))
                bound = min(h.score for h in exact) - 1e-6 if exact else 1.0
                per_ties.append(sum(h.score >= bound for h in approx) / max(len(exact), 1))
            recalls[ef] = float(np.mean(per))
            recalls_ties[ef] = float(np.mean(per_ties))
        store.commit()

    result = {
        "bench": "bank_scale",
        "pairs": len(pairs),
        "bank_rows": total,
        "topped_up_pairs": topped_up,
    }
    if report is not None:
        result.update({
            "added": report.added,
            "merged": report.merged,
            "rejected": len(report.rejected),
            "unique_masked_embedded": report.embedded_texts,
            "import_seconds": round(import_s, 1),
            "import_pairs_per_s": round(len(pairs) / import_s, 1),
            "import_execute_limit0": not args.no_execute,
            "import_process_cpu_s": round(import_cpu, 1),
            "import_pairs_per_process_cpu_s": round(len(pairs) / import_cpu, 1),
        })
    result.update({
        "model_load_s": round(load_s, 1),
        "queries": len(queries),
        "retrieval_p50_ms": round(statistics.median(latencies), 2),
        "retrieval_process_cpu_p50_ms": round(statistics.median(cpu_ms), 2),
        "retrieval_p95_ms": round(percentile(latencies, 95), 2),
        "exact_match_rate": round(sum(exact_flags) / len(queries), 3),
        "embed_path_p50_ms": round(statistics.median(embed_path), 2) if embed_path else None,
        "embed_path_p95_ms": round(percentile(embed_path, 95), 2) if embed_path else None,
        "novel_phrasing_p50_ms": round(statistics.median(novel_lat), 2),
        "novel_phrasing_p95_ms": round(percentile(novel_lat, 95), 2),
        "answered_rate": round(hits / len(queries), 3),
        "ef_search": args.ef_search,
        "recall_at5": round(recalls[args.ef_search], 4),
        "recall_at5_by_ef": {str(k): round(v, 4) for k, v in recalls.items()},
        "recall_at5_tie_aware_by_ef": {str(k): round(v, 4) for k, v in recalls_ties.items()},
        "note": "2-core machine shared with other engineers; wall-clock timings are noisy; process CPU"
                " times exclude the PostgreSQL server's CPU",
    })
    print(json.dumps(result))


if __name__ == "__main__":
    main()
