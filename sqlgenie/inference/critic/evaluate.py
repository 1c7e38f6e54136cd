"""``sqlgenie eval critic``: the critic and its exact repairs on recorded predictions.

For each question of a Spider-layout dataset with a prediction (recorded model
output, e.g. ``benchdata/predictions/*.jsonl``; ``"dialect": "sqlite"`` is honoured
as in ``eval ex``), the eval harness scores the prediction against the gold
(:mod:`sqlgenie.eval.tasks`: transpilation, SafeExecutor, result comparison); then
:func:`~sqlgenie.inference.critic.critique` checks and repairs the (transpiled)
prediction on the onboarded catalog of its database, and a repaired statement is
scored again by the same harness.

Summary keys: ``questions`` (scored: gold runs), ``ex_before`` / ``ex_after``
(fractions), ``flagged`` (questions with at least one finding on the prediction),
``flag_precision`` (flagged that were wrong before), ``flag_recall`` (wrong that
were flagged), ``i2c`` / ``c2i`` (wrong made right / right made wrong, counts),
``repaired`` (questions whose SQL an exact repair changed), ``by_check`` (per
check: questions flagged, of which wrong, precision; repairs kept, i2c, c2i),
``catalog_keys`` (which keys the loaded copies and so onboarding used).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Callable

from sqlgenie.errors import InputError
from sqlgenie.eval.tasks import TaskResult

__all__ = ["eval_critic"]

Progress = Callable[[int, int], None]


def _rate(a: int, b: int) -> float | None:
    return round(a / b, 4) if b else None


def eval_critic(
    dataset: Any,
    predictions_path: str | Path,
    *,
    settings: Any = None,
    dbs: set[str] | None = None,
    limit: int | None = None,
    keys: str = "keep",
    timeout_ms: int = 30_000,
    progress: Progress | None = None,
) -> TaskResult:
    from sqlgenie.autocorrect import AutocorrectSettings, PgValueMatcher
    from sqlgenie.config import get_settings
    from sqlgenie.eval.runners import PostgresRunner, SQLiteRunner
    from sqlgenie.eval.tasks import _references, _score_prediction, read_predictions, run_gold, select_questions
    from sqlgenie.inference.critic.critique import critique
    from sqlgenie.inference.eval_schema import prepare_catalogs
    from sqlgenie.store import connect_store, target_url

    settings = settings or get_settings()
    started = time.perf_counter()
    predictions = read_predictions(predictions_path)
    questions, skipped = select_questions(dataset, None, dbs, None)
    questions = [q for q in questions if q.index in predictions]
    if limit is not None:
        questions = questions[: max(0, limit)]
    if not questions:
        raise InputError(f"No question of the dataset has a prediction in {predictions_path}.")
    catalogs = prepare_catalogs(dataset, settings, {q.db_id for q in questions}, keys=keys)
    url = target_url(settings)
    pg = PostgresRunner(url, timeout_ms=timeout_ms)
    lite = SQLiteRunner(timeout_ms=timeout_ms)
    ac_settings = AutocorrectSettings.from_settings(settings)
    records: list[dict[str, Any]] = []
    critic_ms: list[float] = []
    with connect_store(settings) as store:
        store.commit()
        store.autocommit = True
        matcher = PgValueMatcher(store, ac_settings)
        try:
            for n, q in enumerate(questions):
                records.append(_one(dataset, q, predictions[q.index], catalogs[q.db_id], pg, lite, matcher,
                                    ac_settings, critic_ms, run_gold, _references, _score_prediction, critique))
                if progress:
                    progress(n + 1, len(questions))
        finally:
            pg.close()
            lite.close()
    return TaskResult(_summary(records, skipped, critic_ms, keys, started, predictions_path), records + skipped)


def _one(dataset, q, pred, catalog, pg, lite, matcher, ac_settings, critic_ms, run_gold, references_of, score,
         critique) -> dict[str, Any]:
    schema = dataset.schema_name(q.db_id)
    rec: dict[str, Any] = {"index": q.index, "db_id": q.db_id, "question": q.question}
    gold = run_gold(dataset, q, pg)
    refs = references_of(dataset, q, gold, lite)
    if not refs:
        rec.update(outcome_before=None, gold_error=gold.error or "gold runs nowhere")
        return rec
    before = score(dataset, q, pred, refs, pg, False, 1)
    sql = before.get("pred_pg_sql") or str(pred.get("sql") or "")
    t0 = time.perf_counter()
    report = critique(sql, question=q.question, catalog=catalog, executor=pg.executor, matcher=matcher,
                      search_path=[schema], settings=ac_settings)
    critic_ms.append((time.perf_counter() - t0) * 1000.0)
    after = before
    if report.repaired:
        after = score(dataset, q, {"sql": report.sql, "dialect": "postgres"}, refs, pg, False, 1)
    # Findings on the prediction as written: the report keeps those a repair removed.
    checks = sorted({f.check for f in report.findings})
    rec.update(
        outcome_before=before["outcome"], outcome_after=after["outcome"], sql=sql,
        flagged=bool(checks), checks=checks,
        findings=[f.to_dict() for f in report.findings],
        repaired=report.repaired, repairs=report.repairs, repaired_sql=report.sql if report.repaired else None,
        error_before=before.get("error"), error_after=after.get("error") if report.repaired else None,
    )
    return rec


def _summary(records, skipped, critic_ms, keys, started, predictions_path) -> dict[str, Any]:
    scored = [r for r in records if r.get("outcome_before")]
    n = len(scored)
    right_before = sum(r["outcome_before"] == "correct" for r in scored)
    right_after = sum(r["outcome_after"] == "correct" for r in scored)
    wrong = [r for r in scored if r["outcome_before"] != "correct"]
    flagged = [r for r in scored if r["flagged"]]
    flagged_wrong = [r for r in flagged if r["outcome_before"] != "correct"]
    i2c = sum(r["outcome_before"] != "correct" and r["outcome_after"] == "correct" for r in scored)
    c2i = sum(r["outcome_before"] == "correct" and r["outcome_after"] != "correct" for r in scored)
    by_check: dict[str, dict[str, Any]] = {}
    for r in scored:
        for check in r["checks"]:
            c = by_check.setdefault(check, {"flagged": 0, "wrong": 0})
            c["flagged"] += 1
            c["wrong"] += r["outcome_before"] != "correct"
        for change in r.get("repairs") or []:
            name = change.get("corrector", "?")
            c = by_check.setdefault(f"repair:{name}", {"flagged": 0, "wrong": 0, "i2c": 0, "c2i": 0})
            c["flagged"] += 1
            c["wrong"] += r["outcome_before"] != "correct"
            c["i2c"] = c.get("i2c", 0) + (r["outcome_before"] != "correct" and r["outcome_after"] == "correct")
            c["c2i"] = c.get("c2i", 0) + (r["outcome_before"] == "correct" and r["outcome_after"] != "correct")
    for c in by_check.values():
        c["precision"] = _rate(c["wrong"], c["flagged"])
    ms = sorted(critic_ms)
    return {
        "task": "critic",
        "predictions": str(predictions_path),
        "questions": n,
        "ex_before": round(right_before / n, 4) if n else 0.0,
        "ex_after": round(right_after / n, 4) if n else 0.0,
        "flagged": len(flagged),
        "flag_precision": _rate(len(flagged_wrong), len(flagged)),
        "flag_recall": _rate(len(flagged_wrong), len(wrong)),
        "i2c": i2c,
        "c2i": c2i,
        "wrong_before": len(wrong),
        "repaired": sum(1 for r in scored if r["repaired"]),
        "by_check": dict(sorted(by_check.items())),
        "critic_ms_p50": round(ms[len(ms) // 2], 2) if ms else None,
        "critic_ms_p95": round(ms[int(0.95 * (len(ms) - 1))], 2) if ms else None,
        "gold_errors": len(records) - n,
        "skipped": len(skipped),
        "catalog_keys": keys,
        "seconds": round(time.perf_counter() - started, 3),
    }
