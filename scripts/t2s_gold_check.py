#!/usr/bin/env python
"""Which converted gold queries of the templated sets run on their PostgreSQL databases (issue 13).

    SQLGENIE_DATA_DIR=/tmp/sg-x .venv/bin/python scripts/t2s_gold_check.py \\
        --benchdata /work/shared/benchdata --sets advising,scholar,atis --work /tmp/sg-x/goldcheck

Converts every sentence of every template (:func:`sqlgenie.eval.text2sql.write_splits`,
augmented databases as ``bench_match`` builds them), loads the databases and runs
every gold variant of every pair. Per set: ``pairs``, ``first_fails`` (pairs whose
first variant, the one the bank imports, fails: what bank import rejects),
``runs_nowhere`` (pairs no variant of which runs: a test question left out as a
``gold_error``), and the error messages with their counts. ``--no-rewrite`` turns the
MySQL-to-PostgreSQL meaning rewrites off (the "before").
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sets", default="advising,scholar,atis")
    parser.add_argument("--benchdata", default=None)
    parser.add_argument("--work", default="/tmp/sg-goldcheck")
    parser.add_argument("--timeout-ms", type=int, default=20_000)
    parser.add_argument("--no-rewrite", action="store_true")
    args = parser.parse_args(argv)

    import psycopg

    from sqlgenie.config import get_settings
    from sqlgenie.eval import text2sql
    from sqlgenie.eval.datasets import open_dataset
    from sqlgenie.eval.tasks import load_dataset
    from sqlgenie.store.connection import target_url

    text2sql.MYSQL_MEANING_REWRITES = not args.no_rewrite  # the rewrites are off by default in the library
    settings = get_settings()
    root = Path(args.benchdata) if args.benchdata else Path(settings.benchdata_dir)
    names = [s.strip() for s in args.sets.split(",") if s.strip()]
    report = text2sql.write_splits(root, names, args.work, seed=0)
    dataset = open_dataset(report["dataset"])
    url = target_url(settings)
    out: dict = {}
    for name in names:
        db_id = report["sets"][name]["db_id"]
        load_dataset(dataset, url, dbs={db_id})
        schema = dataset.schema_name(db_id)
        dump = root / "defog" / "defog-data" / name / f"{name}.sql"
        types = text2sql.dump_column_types(dump) if dump.is_file() else None
        pairs, _ = text2sql.concrete_pairs(text2sql.template_file(root, name), db_id=db_id, types=types)
        errors: Counter = Counter()
        examples: dict[str, str] = {}
        first_fails = nowhere = 0
        cache: dict[str, str | None] = {}
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(f"SET search_path TO {schema}")
            conn.execute(f"SET statement_timeout = {args.timeout_ms}")
            for p in pairs:
                fails = []
                for sql in p.golds:
                    if sql not in cache:
                        try:
                            with conn.transaction():
                                conn.execute("SET TRANSACTION READ ONLY")
                                conn.execute(sql).fetchmany(1)
                            cache[sql] = None
                        except psycopg.Error as exc:
                            cache[sql] = re.sub(r"\s+", " ", str(exc).splitlines()[0])[:120]
                    fails.append(cache[sql])
                if fails[0]:
                    first_fails += 1
                    errors[fails[0]] += 1
                    examples.setdefault(fails[0], f"{p.template}: {p.query}")
                if all(fails):
                    nowhere += 1
        out[name] = {"pairs": len(pairs), "first_fails": first_fails, "runs_nowhere": nowhere,
                     "errors": dict(errors.most_common()), "examples": examples}
        print(f"[{name}] pairs {len(pairs)} first_fails {first_fails} runs_nowhere {nowhere}", file=sys.stderr)
        for msg, n in errors.most_common():
            print(f"   {n:5d}  {msg}\n          e.g. {examples[msg][:300]}", file=sys.stderr)
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
