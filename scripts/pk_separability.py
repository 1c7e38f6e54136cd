"""Can anything in the data or the names tell Spider's key-less tables from declared ones?

Runs the onboarding of ``sqlgenie eval pk`` (every non-empty Spider database loaded with
``--keys drop``, no LLM) and compares the tables given an inferred key that declare one
in ``tables.json`` with those that declare none:

* chance uniqueness of every inferred composite key: exp(-n(n-1) / (2 * prod(distinct)))
  over its n rows, i.e. how likely the rows are unique by coincidence;
* the precision and recall of simple filters that would leave some tables key-less.

Usage: SQLGENIE_DATA_DIR=... python scripts/pk_separability.py [--dataset DIR]
Last stdout line: a JSON object with the figures.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
from pathlib import Path
from typing import Any, Callable

from psycopg import sql

from onboarding.eval_keys import gold_pks, run_onboarding, spider_splits
from sqlgenie.config import get_settings
from sqlgenie.store import open_connection, target_url


def _matches(gold: list[str], pred: list[str]) -> bool:
    """The loose match of ``eval pk`` (a composite matches the one column tables.json keeps)."""
    return bool(pred) and bool(gold) and (set(pred) == set(gold) or (len(gold) == 1 and len(pred) > 1 and pred[0] == gold[0]))


def _quartiles(xs: list[float]) -> dict[str, float]:
    if not xs:
        return {}
    q = statistics.quantiles(xs, n=4) if len(xs) > 1 else [xs[0]] * 3
    return {"n": len(xs), "q1": round(q[0], 3), "median": round(q[1], 3), "q3": round(q[2], 3)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dataset", default=str(get_settings().benchdata_dir / "spider"))
    args = ap.parse_args()
    dataset, runs, _meta = run_onboarding(args.dataset, collect_candidates=False)
    splits = spider_splits(Path(args.dataset))
    rows: list[dict[str, Any]] = []
    url = target_url(get_settings())
    with open_connection(url, autocommit=True) as conn:
        for run in runs:
            gold = gold_pks(dataset, run.db_id)
            refs_out = {(t, c) for t, c, _rt, _rc in run.predicted_fk}
            for table, n in run.tables.items():
                if n == 0:
                    continue
                pred = run.predicted_pk.get(table, [])
                chance = None
                if len(pred) > 1:
                    distinct = [
                        conn.execute(sql.SQL("SELECT count(DISTINCT {}) FROM {}.{}").format(
                            sql.Identifier(c), sql.Identifier(run.schema), sql.Identifier(table))).fetchone()[0]
                        for c in pred
                    ]
                    chance = math.exp(-n * (n - 1) / (2 * math.prod(max(d, 1) for d in distinct)))
                rows.append({
                    "db": run.db_id, "table": table, "rows": n, "gold": gold.get(table, []), "pred": pred,
                    "chance": chance, "referenced": any(t == table for _f, _fc, t, _tc in run.predicted_fk),
                    "single_is_reference": len(pred) == 1 and (table, pred[0]) in refs_out,
                    "split": next((s for s, ids in splits.items() if run.db_id in ids), "other"),
                })

    def score(keep: Callable[[dict[str, Any]], bool], among: list[dict[str, Any]] = rows) -> dict[str, float]:
        tp = pred = gold = 0
        for r in among:
            p = r["pred"] if r["pred"] and keep(r) else []
            gold += bool(r["gold"])
            pred += bool(p)
            tp += _matches(r["gold"], p)
        return {"precision": round(tp / pred, 4) if pred else 0.0, "recall": round(tp / gold, 4) if gold else 0.0,
                "predicted": pred}

    filters: dict[str, Callable[[dict[str, Any]], bool]] = {
        "as_inferred": lambda r: True,
        "no_composite": lambda r: len(r["pred"]) == 1,
        "composite_only_if_referenced": lambda r: len(r["pred"]) == 1 or r["referenced"],
        "min_5_rows": lambda r: r["rows"] >= 5,
        "min_8_rows": lambda r: r["rows"] >= 8,
        "no_single_reference_keys": lambda r: not r["single_is_reference"],
    }
    declared = [r["chance"] for r in rows if r["chance"] is not None and r["gold"] and _matches(r["gold"], r["pred"])]
    undeclared = [r["chance"] for r in rows if r["chance"] is not None and not r["gold"]]
    out = {
        "tables": len(rows),
        "undeclared_with_key": sum(1 for r in rows if r["pred"] and not r["gold"]),
        "chance_uniqueness_declared_composites": _quartiles(declared),
        "chance_uniqueness_undeclared_composites": _quartiles(undeclared),
        "filters": {name: score(f) for name, f in filters.items()},
        "dev_as_inferred": score(filters["as_inferred"], [r for r in rows if r["split"] == "dev"]),
    }
    for name, fig in out["filters"].items():
        print(f"{name:32s} P {fig['precision']:.4f}  R {fig['recall']:.4f}  ({fig['predicted']} keys)")
    print("chance uniqueness, declared composites:", out["chance_uniqueness_declared_composites"])
    print("chance uniqueness, undeclared composites:", out["chance_uniqueness_undeclared_composites"])
    print(json.dumps(out))


if __name__ == "__main__":
    main()
