"""Key-inference evaluation on Spider-layout datasets (``sqlgenie eval fk`` / ``eval pk``).

Both tasks load every non-empty database with ``--keys drop`` (the eval harness's
loader, cached), onboard all its tables with no LLM into the store (each schema on
its own: joins are only looked for inside a schema), and compare:

* ``fk``: the pairs accepted by score (``status = 'accepted'``, ``decided_by =
  'score'``; a composite pair counts as its column pairs) with ``tables.json``'s
  ``foreign_keys`` as ordered (referencing -> referenced) column pairs,
  micro-averaged over all databases;
* ``pk``: the primary key of every non-empty table with ``tables.json``'s
  ``primary_keys`` (table level: precision over tables given a key, recall over
  tables that declare one; ``precision_declared`` only counts tables that declare a
  key, ``predicted_without_declared`` the keys inferred for the others, mostly link
  tables whose unique column pair Spider leaves undeclared). ``tables.json`` lists one column per table: for a composite key
  it keeps only the first column (checked against the ``PRIMARY KEY`` clauses of the
  sqlite files: 112 of 112 such tables), so a predicted composite key matches when
  its first column is that column. ``strict_*`` metrics require the exact column set
  and ``ddl_*`` metrics compare with the sqlite files' own ``PRIMARY KEY`` clauses.

Identifiers are compared after the loader's fold (:func:`fold_identifier`).
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable

from sqlgenie.config import Settings, get_settings
from sqlgenie.errors import InputError
from sqlgenie.eval.datasets import SpiderDataset, open_dataset
from sqlgenie.eval.identifiers import fold_identifier
from sqlgenie.eval.tasks import TaskResult

Progress = Callable[[int, int], None]


def _prf(tp: int, predicted: int, gold: int) -> dict[str, float]:
    p = tp / predicted if predicted else 0.0
    r = tp / gold if gold else 0.0
    f = 2 * p * r / (p + r) if p + r else 0.0
    return {"precision": round(p, 4), "recall": round(r, 4), "f1": round(f, 4)}


def spider_splits(root: Path) -> dict[str, set[str]]:
    """db ids of the train and dev question files (disjoint in Spider)."""
    out: dict[str, set[str]] = {}
    for split, name in (("train", "train_spider_compact.json"), ("dev", "dev.json")):
        path = root / name
        if path.is_file():
            out[split] = {q["db_id"] for q in json.loads(path.read_text(encoding="utf-8"))}
    return out


def gold_fks(dataset: SpiderDataset, db_id: str, existing: set[str]) -> set[tuple[str, str, str, str]]:
    entry = dataset.tables_entry(db_id)
    out = set()
    if entry is None:
        return out
    for t in entry.tables:
        for fk in t.foreign_keys:
            for a, b in zip(fk.columns, fk.ref_columns):
                key = (fold_identifier(t.name), fold_identifier(a), fold_identifier(fk.ref_table), fold_identifier(b))
                if key[0] in existing and key[2] in existing:
                    out.add(key)
    return out


def gold_pks(dataset: SpiderDataset, db_id: str) -> dict[str, list[str]]:
    entry = dataset.tables_entry(db_id)
    if entry is None:
        return {}
    return {fold_identifier(t.name): [fold_identifier(c) for c in t.primary_key] for t in entry.tables}


def ddl_pks(dataset: SpiderDataset, db_id: str) -> dict[str, list[str]]:
    from sqlgenie.eval.sqlite_loader import inspect_sqlite, open_sqlite

    path = dataset.sqlite_path(db_id)
    if path is None:
        return {}
    with open_sqlite(path) as conn:
        return {fold_identifier(p.name): [fold_identifier(c) for c in p.primary_key] for p in inspect_sqlite(conn)}


@dataclass
class DbRun:
    db_id: str
    schema: str
    tables: dict[str, int]  # table -> rows
    predicted_fk: set[tuple[str, str, str, str]]
    predicted_pk: dict[str, list[str]]
    pk_source: dict[str, str]
    candidates: list[dict[str, Any]] = field(default_factory=list)
    seconds: float = 0.0


def _select_dbs(dataset: SpiderDataset, dbs: set[str] | None, split: str) -> list[str]:
    ids = [d for d in dataset.db_ids() if dataset.sqlite_path(d) is not None]
    if dbs is not None:
        unknown = sorted(dbs - set(dataset.db_ids()))
        if unknown:
            raise InputError(f"Unknown database(s): {', '.join(unknown)}.")
        ids = [d for d in ids if d in dbs]
    if split != "all":
        splits = spider_splits(dataset.root)
        if split not in splits:
            raise InputError(f"--split {split}: no questions file for it in {dataset.root}.")
        ids = [d for d in ids if d in splits[split]]
    return ids


def run_onboarding(
    dataset_dir: str | Path,
    *,
    settings: Settings | None = None,
    dbs: set[str] | None = None,
    split: str = "all",
    progress: Progress | None = None,
    keep_catalog: bool = False,
    collect_candidates: bool = False,
) -> tuple[SpiderDataset, list[DbRun], dict[str, Any]]:
    """Load (keys dropped) and onboard every selected non-empty database."""
    from onboarding import catalog_writer
    from onboarding.service import OnboardOptions, onboard_schema
    from sqlgenie.eval.tasks import load_dataset
    from sqlgenie.store import connect_store, open_connection, target_url

    settings = settings or get_settings()
    dataset = open_dataset(dataset_dir)
    if not isinstance(dataset, SpiderDataset):
        raise InputError("eval fk / eval pk need a Spider-layout dataset (tables.json with foreign_keys and primary_keys).")
    ids = _select_dbs(dataset, dbs, split)
    started = time.perf_counter()
    url = target_url(settings)
    load_dataset(dataset, url, dbs=set(ids), keys="drop")
    with open_connection(url, autocommit=True) as conn:
        rows_by_schema = dict(conn.execute("SELECT schema_name, rows FROM sqlgenie.eval_loads").fetchall())
    non_empty = [d for d in ids if rows_by_schema.get(dataset.schema_name(d), 0) > 0]
    runs: list[DbRun] = []
    options = OnboardOptions(llm=None, measure_indexes=False, join_scope="schema", top_values=100)
    with connect_store(settings) as store, open_connection(url, autocommit=True) as target:
        store.commit()
        store.autocommit = True
        for i, db_id in enumerate(non_empty):
            schema = dataset.schema_name(db_id)
            t0 = time.perf_counter()
            catalog_writer.forget_tables(store, schema)
            results = onboard_schema(schema, settings=settings, options=options, target=target, store=store, provider=None)
            run = DbRun(db_id, schema, {r.table: r.rows for r in results}, set(), {}, {})
            for r in results:
                run.predicted_pk[r.table] = list(r.primary_key)
                run.pk_source[r.table] = r.pk_source
                if collect_candidates:
                    for c in r.candidates:
                        if "name_only" in c.features:
                            continue  # from names alone (tables without rows): never decided by the model
                        run.candidates.append({
                            "src": [c.src.table, list(c.from_columns)], "dst": [c.dst.table, list(c.to_columns)],
                            "features": c.features, "score": c.score, "inclusion": c.inclusion,
                        })
            for ft, fcols, tt, tcols in store.execute(
                """
                SELECT a.table_name, j.from_columns, b.table_name, j.to_columns
                FROM sqlgenie.catalog_joins j
                JOIN sqlgenie.catalog_tables a ON a.id = j.from_table_id
                JOIN sqlgenie.catalog_tables b ON b.id = j.to_table_id
                WHERE a.schema_name = %s AND b.schema_name = %s AND j.status = 'accepted' AND j.decided_by = 'score'
                """,
                (schema, schema),
            ):
                for fc, tc in zip(fcols, tcols):
                    run.predicted_fk.add((ft, fc, tt, tc))
            if not keep_catalog:
                catalog_writer.forget_tables(store, schema)
            run.seconds = time.perf_counter() - t0
            runs.append(run)
            if progress:
                progress(i + 1, len(non_empty))
    meta = {"seconds": round(time.perf_counter() - started, 2), "split": split,
            "skipped_empty": sorted(set(ids) - set(non_empty))}
    return dataset, runs, meta


def fk_metrics(dataset: SpiderDataset, runs: list[DbRun]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    tp = pred = gold = 0
    records = []
    for run in runs:
        g = gold_fks(dataset, run.db_id, set(run.tables))
        p = run.predicted_fk
        hit = g & p
        tp, pred, gold = tp + len(hit), pred + len(p), gold + len(g)
        records.append({
            "db_id": run.db_id, "gold": len(g), "predicted": len(p), "tp": len(hit),
            "false_positives": sorted(".".join(x[:2]) + " -> " + ".".join(x[2:]) for x in p - g),
            "misses": sorted(".".join(x[:2]) + " -> " + ".".join(x[2:]) for x in g - p),
            "seconds": round(run.seconds, 3),
        })
    summary = {"task": "fk", "dbs": len(runs), "gold": gold, "predicted": pred, "tp": tp, **_prf(tp, pred, gold)}
    return summary, records


def pk_metrics(dataset: SpiderDataset, runs: list[DbRun]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    n_tables = 0
    loose = {"tp": 0, "pred": 0, "gold": 0}
    strict = {"tp": 0, "pred": 0, "gold": 0}
    ddl = {"tp": 0, "pred": 0, "gold": 0}
    records = []
    pred_on_declared = 0
    for run in runs:
        gold = gold_pks(dataset, run.db_id)
        gold_ddl = ddl_pks(dataset, run.db_id)
        for table, rows in run.tables.items():
            if rows == 0:
                continue
            n_tables += 1
            g = gold.get(table, [])
            gd = gold_ddl.get(table, [])
            p = run.predicted_pk.get(table, [])
            match_strict = bool(p) and set(p) == set(g)
            match_loose = bool(p) and bool(g) and (set(p) == set(g) or (len(g) == 1 and len(p) > 1 and p[0] == g[0]))
            match_ddl = bool(p) and set(p) == set(gd)
            pred_on_declared += int(bool(p) and bool(g))
            for acc, ok, gg in ((loose, match_loose, g), (strict, match_strict, g), (ddl, match_ddl, gd)):
                acc["tp"] += int(ok)
                acc["pred"] += int(bool(p))
                acc["gold"] += int(bool(gg))
            if not match_loose:
                records.append({"db_id": run.db_id, "table": table, "rows": rows, "gold": g, "ddl": gd,
                                "predicted": p, "source": run.pk_source.get(table)})
    lp = _prf(loose["tp"], loose["pred"], loose["gold"])
    sp = _prf(strict["tp"], strict["pred"], strict["gold"])
    dp = _prf(ddl["tp"], ddl["pred"], ddl["gold"])
    summary = {
        "task": "pk", "dbs": len(runs), "tables": n_tables, "gold": loose["gold"], "predicted": loose["pred"],
        "tp": loose["tp"], "precision": lp["precision"], "recall": lp["recall"], "f1": lp["f1"],
        "precision_declared": round(loose["tp"] / pred_on_declared, 4) if pred_on_declared else 0.0,
        "predicted_without_declared": loose["pred"] - pred_on_declared,
        "strict_precision": sp["precision"], "strict_recall": sp["recall"],
        "ddl_precision": dp["precision"], "ddl_recall": dp["recall"],
    }
    return summary, records


def eval_fk(dataset_dir: str | Path, *, settings: Settings | None = None, dbs: set[str] | None = None,
            split: str = "all", progress: Progress | None = None, keep_catalog: bool = False) -> TaskResult:
    """``sqlgenie eval fk``: summary keys dbs, gold, predicted, precision, recall, f1."""
    dataset, runs, meta = run_onboarding(dataset_dir, settings=settings, dbs=dbs, split=split, progress=progress,
                                         keep_catalog=keep_catalog)
    summary, records = fk_metrics(dataset, runs)
    summary.update(meta)
    return TaskResult(summary, records)


def eval_pk(dataset_dir: str | Path, *, settings: Settings | None = None, dbs: set[str] | None = None,
            split: str = "all", progress: Progress | None = None, keep_catalog: bool = False) -> TaskResult:
    """``sqlgenie eval pk``: summary keys tables, precision, recall (plus strict_* and ddl_*)."""
    dataset, runs, meta = run_onboarding(dataset_dir, settings=settings, dbs=dbs, split=split, progress=progress,
                                         keep_catalog=keep_catalog)
    summary, records = pk_metrics(dataset, runs)
    summary.update(meta)
    return TaskResult(summary, records)


# --- fitting the join score (offline) -------------------------------------------------------


def _sigmoid(z: float) -> float:
    return 1.0 / (1.0 + math.exp(-z)) if z >= 0 else math.exp(z) / (1.0 + math.exp(z))


def fit_logistic(xs: list[list[float]], ys: list[int], l2: float = 1.0, iters: int = 50) -> list[float]:
    """L2-regularised logistic regression by Newton's method (intercept first, not penalised)."""
    import numpy as np

    X = np.array([[1.0] + x for x in xs])
    y = np.array(ys, dtype=float)
    w = np.zeros(X.shape[1])
    reg = np.eye(X.shape[1]) * l2
    reg[0, 0] = 0.0
    for _ in range(iters):
        p = 1.0 / (1.0 + np.exp(-np.clip(X @ w, -30, 30)))
        g = X.T @ (p - y) + reg @ w
        H = (X.T * (p * (1 - p))) @ X + reg
        step = np.linalg.solve(H, g)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    return [float(v) for v in w]


def add_group_features(cands: list[dict[str, Any]]) -> None:
    """Features that depend on the other candidates of the same referencing column."""
    from onboarding.joins import group_features

    groups: dict[tuple, list[dict[str, Any]]] = {}
    for c in cands:
        if "composite" in c["features"]:
            continue
        groups.setdefault((c["src"][0], tuple(c["src"][1])), []).append(c)
    for group in groups.values():
        extra = group_features([g["features"] for g in group])
        for g, e in zip(group, extra):
            g["features"].update(e)


def decide_offline(run: DbRun, weights: dict[str, float], threshold: float) -> set[tuple[str, str, str, str]]:
    """Accepted pairs of one database under new weights (same storing and resolution rules)."""
    from onboarding.joins import KEEP_FLOOR, JoinRow, resolve, score

    rows = []
    add_group_features(run.candidates)
    for c in run.candidates:
        f = c["features"]
        s = c["score"] if "composite" in f else score(f, weights)
        if not (s >= KEEP_FLOOR or f.get("same_name", 0) > 0 or f.get("names_table", 0) > 0 or f.get("suffix_match", 0) > 0):
            continue
        rows.append(JoinRow(key=(c["src"][0], tuple(c["src"][1]), c["dst"][0], tuple(c["dst"][1])), score=s,
                            status="proposed", decided_by="score", chance_only=bool(f.get("chance_inclusion"))))
    out = set()
    for key, (status, _by) in resolve(rows, threshold).items():
        if status == "accepted":
            for a, b in zip(key[1], key[3]):
                out.add((key[0], a, key[2], b))
    return out


def fit_weights(dataset: SpiderDataset, runs: list[DbRun], features: list[str], *, l2: float = 1.0) -> dict[str, Any]:
    """Fit the logistic join score on ``runs`` (labels from tables.json) and pick the
    threshold with the best micro F1 after resolution."""
    xs, ys = [], []
    for run in runs:
        gold = gold_fks(dataset, run.db_id, set(run.tables))
        add_group_features(run.candidates)
        for c in run.candidates:
            f = c["features"]
            if "composite" in f:
                continue
            label = int(all((c["src"][0], a, c["dst"][0], b) in gold for a, b in zip(c["src"][1], c["dst"][1])))
            xs.append([float(f.get(k, 0.0)) for k in features])
            ys.append(label)
    w = fit_logistic(xs, ys, l2=l2)
    weights = {"bias": w[0], **{k: v for k, v in zip(features, w[1:])}}
    best = None
    for t in [x / 100 for x in range(10, 91, 2)]:
        tp = pred = gold_n = 0
        for run in runs:
            g = gold_fks(dataset, run.db_id, set(run.tables))
            p = decide_offline(run, weights, t)
            tp, pred, gold_n = tp + len(g & p), pred + len(p), gold_n + len(g)
        m = _prf(tp, pred, gold_n)
        if best is None or m["f1"] > best[1]["f1"]:
            best = (t, m)
    return {"weights": {k: round(v, 4) for k, v in weights.items()}, "threshold": best[0], "train": best[1],
            "candidates": len(ys), "positives": sum(ys)}


def offline_metrics(dataset: SpiderDataset, runs: Iterable[DbRun], weights: dict[str, float], threshold: float) -> dict[str, float]:
    tp = pred = gold_n = 0
    for run in runs:
        g = gold_fks(dataset, run.db_id, set(run.tables))
        p = decide_offline(run, weights, threshold)
        tp, pred, gold_n = tp + len(g & p), pred + len(p), gold_n + len(g)
    return {**_prf(tp, pred, gold_n), "gold": gold_n, "predicted": pred, "tp": tp}


def main(argv: list[str] | None = None) -> None:
    """``python -m onboarding.eval_keys fit --dataset DIR``: refit WEIGHTS on the train split."""
    import argparse

    from onboarding.joins import FEATURES, THRESHOLD, WEIGHTS

    ap = argparse.ArgumentParser(prog="python -m onboarding.eval_keys")
    ap.add_argument("command", choices=["fit"])
    ap.add_argument("--dataset", default=str(get_settings().benchdata_dir / "spider"))
    ap.add_argument("--l2", type=float, default=1.0)
    args = ap.parse_args(argv)
    dataset, runs, _ = run_onboarding(args.dataset, collect_candidates=True)
    splits = spider_splits(Path(args.dataset))
    train = [r for r in runs if r.db_id in splits.get("train", set())]
    dev = [r for r in runs if r.db_id in splits.get("dev", set())]
    fitted = fit_weights(dataset, train, FEATURES, l2=args.l2)
    out = {
        "fitted": fitted,
        "current": {"train": offline_metrics(dataset, train, WEIGHTS, THRESHOLD),
                    "dev": offline_metrics(dataset, dev, WEIGHTS, THRESHOLD),
                    "all": offline_metrics(dataset, runs, WEIGHTS, THRESHOLD)},
        "refit": {"dev": offline_metrics(dataset, dev, fitted["weights"], fitted["threshold"]),
                  "all": offline_metrics(dataset, runs, fitted["weights"], fitted["threshold"])},
    }
    print(json.dumps(out))


if __name__ == "__main__":
    main()
