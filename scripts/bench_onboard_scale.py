#!/usr/bin/env python
"""Onboarding speed and value-cache accuracy on the demo warehouse at scale.

    SQLGENIE_DATA_DIR=/tmp/sg-onb .venv/bin/python scripts/bench_onboard_scale.py --scale 10000000 --load

1. Makes sure schema ``demo`` holds ``--scale`` order_items rows (``--load`` loads it
   when it does not; loading 10M rows takes a few minutes, so reuse one data dir).
2. Onboards the whole demo schema once (so ``order_items`` is compared with the other
   tables, as ``onboard schema`` would), then times ``onboard table demo.order_items``
   ``--runs`` times (median reported; every phase included: statistics, keys,
   synonyms, value cache, joins with inclusion checks, index picks with their
   EXPLAIN benefit, the catalog write).
3. Times an *exact full-scan profile* of the same table: per column one full scan for
   ``count``, ``count(DISTINCT)``, ``min``, ``max`` (null count = rows - count) and one
   full-scan ``GROUP BY`` for the exact top-100 values.
4. Top-100 agreement: for every searchable column of the demo tables, the share of the
   exact top-100 values found in the cached top-100 (a cached value tied with the
   exact 100th frequency counts as found). ``order_items`` has no text columns, so
   the same sampled top-values code is also run on its categorical columns
   (product_id, qty, line_no, discount, unit_price) as a stress test.

Timings are wall-clock on a shared machine (other engineers' jobs run alongside):
expect noise. The last stdout line is one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from psycopg import sql  # noqa: E402

TABLE = "order_items"
STRESS_COLUMNS = ("product_id", "qty", "line_no", "discount", "unit_price")


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def exact_profile(conn, schema: str, table: str) -> tuple[float, dict]:
    """Full-scan profile: per column count/distinct/min/max, then exact top-100."""
    cols = [r[0] for r in conn.execute(
        "SELECT attname FROM pg_attribute WHERE attrelid = %s::regclass AND attnum > 0 AND NOT attisdropped ORDER BY attnum",
        (f"{schema}.{table}",))]
    t = sql.SQL("{}.{}").format(sql.Identifier(schema), sql.Identifier(table))
    out: dict = {}
    started = time.perf_counter()
    rows = conn.execute(sql.SQL("SELECT count(*) FROM {}").format(t)).fetchone()[0]
    for c in cols:
        ci = sql.Identifier(c)
        n, nd, lo, hi = conn.execute(
            sql.SQL("SELECT count({c}), count(DISTINCT {c}), min({c})::text, max({c})::text FROM {t}").format(c=ci, t=t)
        ).fetchone()
        top = conn.execute(
            sql.SQL("SELECT {c}::text, count(*) FROM {t} WHERE {c} IS NOT NULL GROUP BY {c} ORDER BY 2 DESC, 1 LIMIT 100").format(c=ci, t=t)
        ).fetchall()
        out[c] = {"nulls": rows - n, "distinct": nd, "min": lo, "max": hi, "top": top}
    return time.perf_counter() - started, {"rows": rows, "columns": out}


def exact_top(conn, schema: str, table: str, column: str, n: int = 100) -> list[tuple[str, int]]:
    return conn.execute(
        sql.SQL("SELECT {c}::text, count(*) FROM {t} WHERE {c} IS NOT NULL GROUP BY {c} ORDER BY 2 DESC, 1 LIMIT {n}").format(
            c=sql.Identifier(column), t=sql.SQL("{}.{}").format(sql.Identifier(schema), sql.Identifier(table)), n=sql.Literal(n))
    ).fetchall()


def agreement(conn, schema: str, table: str, column: str, cached: list[str], n: int = 100) -> float:
    """Share of the exact top-``n`` matched by the cached top-``n``: a cached value counts
    when its exact frequency reaches the exact ``n``-th frequency (ties count)."""
    exact = exact_top(conn, schema, table, column, n)
    if not exact:
        return 1.0
    floor = exact[-1][1] if len(exact) == n else 1
    t = sql.SQL("{}.{}").format(sql.Identifier(schema), sql.Identifier(table))
    freq = dict(conn.execute(
        sql.SQL("SELECT {c}::text, count(*) FROM {t} WHERE {c}::text = ANY(%s) GROUP BY 1").format(c=sql.Identifier(column), t=t),
        (list(cached[:n]),),
    ).fetchall())
    good = sum(1 for v in cached[:n] if freq.get(v, 0) >= floor)
    return min(good, len(exact)) / len(exact)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scale", type=int, default=10_000_000, help="order_items rows of the demo")
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--load", action="store_true", help="load the demo at --scale when it is not loaded")
    ap.add_argument("--runs", type=int, default=3, help="timed onboardings of demo.order_items (median reported)")
    ap.add_argument("--skip-exact", action="store_true", help="skip the exact full-scan profile")
    args = ap.parse_args()

    from onboarding import value_cache
    from onboarding.profile import profile_table
    from onboarding.service import OnboardOptions, onboard_schema, onboard_table
    from sqlgenie.config import get_settings
    from sqlgenie.demo import DEFAULT_SEED, demo_summary, load_demo
    from sqlgenie.store import connect_store, open_connection, target_url

    settings = get_settings()
    url = target_url(settings)
    summary = demo_summary(url)
    if summary.get(TABLE) != args.scale:
        if not args.load:
            sys.exit(f"demo has {summary.get(TABLE)} order_items rows, not {args.scale}; pass --load to load it")
        log(f"loading demo at scale {args.scale:,} (this takes a while)")
        t0 = time.perf_counter()
        load_demo(url, scale=args.scale, seed=args.seed if args.seed is not None else DEFAULT_SEED)
        log(f"  loaded in {time.perf_counter() - t0:.1f} s")

    opts = OnboardOptions(llm=None)
    log("onboarding schema demo once (warm-up, every table)")
    t0 = time.perf_counter()
    schema_results = onboard_schema("demo", settings=settings, options=opts)
    schema_seconds = time.perf_counter() - t0
    log(f"  {schema_seconds:.2f} s: " + ", ".join(f"{r.table} {r.seconds:.2f}s" for r in schema_results))

    runs = []
    last = None
    for i in range(args.runs):
        t0 = time.perf_counter()
        last = onboard_table(f"demo.{TABLE}", settings=settings, options=opts)
        runs.append(time.perf_counter() - t0)
        log(f"  onboard demo.{TABLE} run {i + 1}: {runs[-1]:.2f} s  phases {json.dumps({k: round(v, 2) for k, v in last.timings.items()})}")
    onboard_s = statistics.median(runs)

    result: dict = {
        "scale": args.scale, "table": f"demo.{TABLE}", "onboard_seconds": round(onboard_s, 3),
        "onboard_seconds_runs": [round(r, 3) for r in runs], "schema_onboard_seconds": round(schema_seconds, 3),
        "phases": {k: round(v, 3) for k, v in (last.timings if last else {}).items()},
        "searchable_columns_order_items": len(last.searchable) if last else None,
        "index_picks": [{"columns": p["columns"], "benefit": p["benefit"], "method": p["method"]} for p in (last.index_picks if last else [])],
    }

    with open_connection(url, autocommit=True) as conn:
        if not args.skip_exact:
            log(f"exact full-scan profile of demo.{TABLE}")
            exact_s, exact = exact_profile(conn, "demo", TABLE)
            result["exact_profile_seconds"] = round(exact_s, 3)
            result["speedup"] = round(exact_s / onboard_s, 1)
            log(f"  {exact_s:.1f} s (speed-up {exact_s / onboard_s:.1f}x)")
            # accuracy of the estimated profile
            prof = profile_table(conn, "demo", TABLE)
            errs = {}
            for c in prof.columns:
                ex = exact["columns"][c.name]["distinct"]
                errs[c.name] = round(abs((c.n_distinct or 0) - ex) / max(ex, 1), 4)
            result["distinct_relative_error"] = errs

        # top-100 agreement of the value cache (searchable columns of every demo table)
        agree: dict[str, float] = {}
        with connect_store(settings) as store:
            cached = store.execute(
                """
                SELECT t.table_name, c.column_name, (t.profile->>'exact')::boolean,
                       array(SELECT v.value FROM sqlgenie.value_cache v WHERE v.column_id = c.id
                             ORDER BY v.frequency DESC, v.value LIMIT 100)
                FROM sqlgenie.catalog_tables t JOIN sqlgenie.catalog_columns c ON c.table_id = t.id
                WHERE t.schema_name = 'demo' AND c.searchable ORDER BY 1, 2
                """
            ).fetchall()
        sampled_cols = []
        for table, column, exact_tbl, values in cached:
            agree[f"{table}.{column}"] = round(agreement(conn, "demo", table, column, list(values)), 4)
            if not exact_tbl:
                sampled_cols.append(f"{table}.{column}")
        result["top100_agreement"] = agree
        result["top100_agreement_min"] = min(agree.values()) if agree else None
        result["top100_sampled_columns"] = sampled_cols
        # stress test: the sampled top-values pass on order_items' categorical columns
        prof = profile_table(conn, "demo", TABLE)
        cols = [c for c in prof.columns if c.name in STRESS_COLUMNS]
        t0 = time.perf_counter()
        top = value_cache.top_values(conn, prof, cols, 100)
        stress_s = time.perf_counter() - t0
        stress = {}
        for c in cols:
            stress[c.name] = round(agreement(conn, "demo", TABLE, c.name, [v.value for v in top[c.name].values[:100]]), 4)
        result["stress_top100_agreement_order_items"] = stress
        result["stress_top100_seconds"] = round(stress_s, 3)
        result["stress_sample_fraction_pct"] = top[cols[0].name].sample_fraction if cols else None
    result["machine"] = {"cpus": os.cpu_count(), "note": "shared machine, timings noisy"}
    print(json.dumps(result))


if __name__ == "__main__":
    main()
