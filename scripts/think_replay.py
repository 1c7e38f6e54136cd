"""The think loop over recorded predictions (replay): its deterministic parts on real model output.

For each Spider dev question with a prediction in ``--predictions`` (JSON lines of a
published system, ``benchdata/predictions/*.jsonl``), the think loop runs with the
:class:`~sqlgenie.llm.replay.ReplayProvider` as its LLM: the plan call gets a fixed
text, every generation call the recorded SQL (transpiled from SQLite as ``eval ex``
does), the LLM critic is off (no opinion was recorded). What is measured is what
the loop adds to a model's SQL without any further model call: the context, the
autocorrectors, the deterministic critic with its exact repairs, and the stop rule
(right or refused: a statement with an open error finding is refused, since the
replay has no second answer to give).

Both the recorded SQL as written (``raw``) and the loop's answer are scored by the
eval harness against the gold (result comparison through the safe executor).

Summary keys: ``questions`` (gold runs), ``ex_raw`` (fraction right as recorded),
``answered`` / ``refused`` (counts), ``ex_loop`` (fraction answered and right: a
refusal is never right), ``answered_precision`` (right among answered),
``refused_wrong`` (refusals of predictions that were wrong: silent wrong answers
avoided), ``refused_right`` (refusals of right predictions: answers lost),
``i2c`` / ``c2i`` (answered statements the loop changed: wrong made right / right
made wrong), ``changed``, ``stops`` (stop reasons), ``loop_ms_p50`` / ``p95``.

Usage: SQLGENIE_DATA_DIR=/tmp/sg-x python scripts/think_replay.py --predictions FILE.jsonl [--limit N]
Last stdout line: a JSON object with the figures.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from typing import Any


def _pct(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))], 1)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--predictions", required=True, help="JSON lines: index, db_id, question, sql, dialect.")
    parser.add_argument("--dataset", default=None, help="Spider-layout directory (default: benchdata spider).")
    parser.add_argument("--limit", type=int, default=None, help="First N questions with a prediction.")
    parser.add_argument("--records", default=None, help="Write one JSON line per question here.")
    args = parser.parse_args(argv)

    from sqlgenie.autocorrect import AutocorrectSettings, PgValueMatcher
    from sqlgenie.config import get_settings
    from sqlgenie.eval.datasets import open_dataset
    from sqlgenie.eval.runners import PostgresRunner, SQLiteRunner
    from sqlgenie.eval.tasks import _references, _score_prediction, read_predictions, run_gold, select_questions
    from sqlgenie.inference.eval_schema import _make_pruners, prepare_catalogs
    from sqlgenie.inference.think.loop import ThinkLoop
    from sqlgenie.inference.think.plan import build_context
    from sqlgenie.inference.value_linking import ValueLinker
    from sqlgenie.llm.replay import ReplayProvider, load_predictions
    from sqlgenie.store import connect_store, target_url

    base = get_settings()
    settings = base.model_copy(update={"think_llm_critic": False})
    started = time.perf_counter()
    dataset = open_dataset(args.dataset or settings.benchdata_dir / "spider")
    predictions = read_predictions(args.predictions)
    questions, skipped = select_questions(dataset, None, None, None)
    questions = [q for q in questions if q.index in predictions]
    if args.limit is not None:
        questions = questions[: args.limit]
    db_ids = {q.db_id for q in questions}
    catalogs = prepare_catalogs(dataset, settings, db_ids, keys="keep")
    pruners = _make_pruners(catalogs, settings, None)
    with connect_store(settings) as store:
        linkers = {db: ValueLinker(cat, store) for db, cat in catalogs.items()}
    for linker in linkers.values():
        linker.store = None
    replay = ReplayProvider(load_predictions(args.predictions),
                            schemas={db: dataset.schema_name(db) for db in db_ids}, catalogs=catalogs)
    pg = PostgresRunner(target_url(settings), timeout_ms=30_000)
    lite = SQLiteRunner(timeout_ms=30_000)
    ac = AutocorrectSettings.from_settings(settings)
    records: list[dict[str, Any]] = []
    loop_ms: list[float] = []
    out = open(args.records, "w", encoding="utf-8") if args.records else None
    try:
        with connect_store(settings) as store:
            store.commit()
            store.autocommit = True
            matcher = PgValueMatcher(store, ac)
            for n, q in enumerate(questions):
                pred = predictions[q.index]
                gold = run_gold(dataset, q, pg)
                refs = _references(dataset, q, gold, lite)
                if not refs:
                    continue
                raw = _score_prediction(dataset, q, pred, refs, pg, False, 1)
                catalog, pruner = catalogs[q.db_id], pruners[q.db_id]
                schema = dataset.schema_name(q.db_id)
                loop = ThinkLoop(replay, catalog=catalog, executor=pg.executor, matcher=matcher, pruner=pruner,
                                 settings=settings, autocorrect=ac, search_path=[schema], link_values=False)
                t0 = time.perf_counter()
                links = linkers[q.db_id].link(q.question, column_scores=pruner.column_scores(q.question))
                ctx = build_context(q.question, catalog=catalog, pruner=pruner, links=links)
                run = loop.run(q.question, context=ctx)
                loop_ms.append((time.perf_counter() - t0) * 1000.0)
                rec: dict[str, Any] = {"index": q.index, "db_id": q.db_id, "raw": raw["outcome"],
                                       "status": run.status, "stop": run.stop_reason,
                                       "raw_sql": raw.get("pred_pg_sql"), "loop_sql": run.sql,
                                       "findings": [f["check"] for r in run.rounds for f in r.findings],
                                       "repairs": [c.get("corrector") for r in run.rounds for c in r.repairs],
                                       "corrections": [c.get("corrector") for r in run.rounds for c in r.corrections]}
                if run.status == "ok" and run.sql:
                    after = _score_prediction(dataset, q, {"sql": run.sql, "dialect": "postgres"}, refs, pg, False, 1)
                    rec["loop"] = after["outcome"]
                    rec["changed"] = _norm(run.sql) != _norm(raw.get("pred_pg_sql") or "")
                else:
                    rec["loop"] = "refused"
                    rec["changed"] = False
                records.append(rec)
                if out:
                    out.write(json.dumps(rec, default=str) + "\n")
                if (n + 1) % 100 == 0:
                    print(f"{n + 1}/{len(questions)}", file=sys.stderr, flush=True)
    finally:
        pg.close()
        lite.close()
        if out:
            out.close()

    n = len(records)
    right_raw = sum(r["raw"] == "correct" for r in records)
    answered = [r for r in records if r["status"] == "ok"]
    right_loop = sum(r["loop"] == "correct" for r in answered)
    refused = [r for r in records if r["status"] != "ok"]
    changed = [r for r in answered if r["changed"]]
    summary = {
        "task": "think_replay",
        "predictions": args.predictions,
        "questions": n,
        "ex_raw": round(right_raw / n, 4) if n else None,
        "answered": len(answered),
        "refused": len(refused),
        "ex_loop": round(right_loop / n, 4) if n else None,
        "answered_precision": round(right_loop / len(answered), 4) if answered else None,
        "refused_wrong": sum(r["raw"] != "correct" for r in refused),
        "refused_right": sum(r["raw"] == "correct" for r in refused),
        "changed": len(changed),
        "i2c": sum(r["raw"] != "correct" and r["loop"] == "correct" for r in changed),
        "c2i": sum(r["raw"] == "correct" and r["loop"] != "correct" for r in changed),
        "stops": dict(Counter(r["stop"] for r in records)),
        "refusal_findings": dict(Counter(f for r in refused for f in set(r["findings"]))),
        "llm_critic": False,
        "loop_ms_p50": _pct(loop_ms, 0.5),
        "loop_ms_p95": _pct(loop_ms, 0.95),
        "gold_errors": len(questions) - n,
        "seconds": round(time.perf_counter() - started, 1),
    }
    print(json.dumps(summary))


def _norm(sql: str) -> str:
    import sqlglot

    try:
        return sqlglot.parse_one(sql, read="postgres").sql(dialect="postgres", normalize=True)
    except Exception:  # noqa: BLE001
        return " ".join(sql.split()).lower()


if __name__ == "__main__":
    main()
