"""Task runners behind ``sqlgenie eval``. Each returns a :class:`TaskResult`: a
summary dict (with ``"task"`` and its metrics) and per-item records for JSONL.

Tasks here: ``load``, ``gold-check``, ``ex`` and ``preds`` (writes gold or shuffled
gold as a predictions file, to check the harness itself). Later capabilities add
their own tasks on the same pieces.
"""

from __future__ import annotations

import json
import random
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

from sqlgenie.errors import InputError
from sqlgenie.eval import compare
from sqlgenie.eval.datasets import Dataset, DefogDataset, Question, SpiderDataset
from sqlgenie.eval.defog import expand_gold
from sqlgenie.eval.gold import TranspileError, has_top_level_order_by, keyed_unlimited, unlimited
from sqlgenie.eval.metrics import (
    Cost,
    bucket_counts,
    cost_summary,
    error_bucket,
    outcome_rates,
    schema_selection_scores,
    transition_rates,
    used_schema_items,
)
from sqlgenie.eval.runners import DEFAULT_EVAL_ROW_CAP, PostgresRunner, RunOutcome, SQLiteRunner

Progress = Callable[[int, int], None]  # (done, total)


@dataclass
class TaskResult:
    summary: dict[str, Any]
    records: list[dict[str, Any]] = field(default_factory=list)


def _tick(progress: Progress | None, done: int, total: int) -> None:
    if progress is not None:
        progress(done, total)


# --- load ---------------------------------------------------------------------------


def load_dataset(
    dataset: Dataset,
    url: str,
    *,
    dbs: set[str] | None = None,
    keys: str = "keep",
    force: bool = False,
    progress: Progress | None = None,
    accept_any_keys: bool = False,
) -> TaskResult:
    """Load every (selected) database of ``dataset`` into the target at ``url``."""
    from sqlgenie.eval.sqlite_loader import (
        cached_fingerprints,
        ensure_cache_table,
        load_defog_db,
        load_spider_db,
        spider_fingerprint,
    )
    from sqlgenie.store.connection import open_connection

    if keys not in ("keep", "drop"):
        raise InputError(f"--keys must be keep or drop, not {keys!r}.")
    ids = dataset.db_ids()
    if dbs is not None:
        unknown = sorted(dbs - set(ids))
        if unknown:
            raise InputError(f"Unknown database(s) for this dataset: {', '.join(unknown)}.")
        ids = [d for d in ids if d in dbs]
    started = time.perf_counter()
    records = []
    with open_connection(url, autocommit=True) as conn:
        ensure_cache_table(conn)
        cache = cached_fingerprints(conn)
        for i, db_id in enumerate(ids):
            if isinstance(dataset, SpiderDataset):
                mode = keys
                if accept_any_keys and not force:
                    other = "drop" if keys == "keep" else "keep"
                    if cache.get(dataset.schema_name(db_id)) == spider_fingerprint(dataset, db_id, other):
                        mode = other
                result = load_spider_db(conn, dataset, db_id, keys=mode, force=force, cache=cache)  # type: ignore[arg-type]
            else:
                path = dataset.dump_path(db_id)
                assert path is not None
                result = load_defog_db(
                    conn, path.read_text(encoding="utf-8"), db_id, dataset.schema_name(db_id), force=force, cache=cache
                )
            records.append(
                {
                    "db_id": result.db_id,
                    "schema": result.schema,
                    "status": result.status,
                    "keys": result.keys,
                    "tables": result.tables,
                    "rows": result.rows,
                    "seconds": round(result.seconds, 4),
                    "warnings": result.warnings,
                }
            )
            _tick(progress, i + 1, len(ids))
    statuses = [r["status"] for r in records]
    summary = {
        "task": "load",
        "dataset": dataset.kind,
        "databases": len(records),
        "loaded": statuses.count("loaded"),
        "cached": statuses.count("cached"),
        "schema_only": statuses.count("schema_only"),
        "tables": sum(r["tables"] for r in records),
        "rows": sum(r["rows"] for r in records),
        "warnings": sum(len(r["warnings"]) for r in records),
        "keys": keys if isinstance(dataset, SpiderDataset) else "dump",
        "seconds": round(time.perf_counter() - started, 3),
    }
    return TaskResult(summary, records)


# --- question selection ----------------------------------------------------------------


def select_questions(
    dataset: Dataset, questions_file: str | Path | None, dbs: set[str] | None, limit: int | None
) -> tuple[list[Question], list[dict[str, Any]]]:
    """Questions to evaluate (filtered by ``dbs``, Spider questions whose database file
    is missing skipped) and records of the skipped ones. ``limit`` applies last."""
    selected, skipped = [], []
    for q in dataset.questions(questions_file):
        if dbs is not None and q.db_id not in dbs:
            continue
        if isinstance(dataset, SpiderDataset) and dataset.sqlite_path(q.db_id) is None:
            skipped.append({"index": q.index, "db_id": q.db_id, "skipped": "database file missing"})
            continue
        if isinstance(dataset, DefogDataset) and dataset.dump_path(q.db_id) is None:
            skipped.append({"index": q.index, "db_id": q.db_id, "skipped": "database dump missing"})
            continue
        selected.append(q)
    if limit is not None:
        selected = selected[: max(0, limit)]
    return selected, skipped


def _needed_dbs(questions: Sequence[Question]) -> set[str]:
    return {q.db_id for q in questions}


# --- gold SQL per question --------------------------------------------------------------


@dataclass
class GoldRun:
    """Gold result(s) of one question on PostgreSQL (one per Defog alternative)."""

    sqls: list[str]
    outcomes: list[RunOutcome]
    ordered: list[bool]
    fixes: list[str] = field(default_factory=list)
    error: str | None = None  # transpile error
    source: str = "postgres"  # or "sqlite" when the PostgreSQL gold failed

    def usable(self) -> list[int]:
        return [i for i, o in enumerate(self.outcomes) if o.ok]


def gold_sqls(dataset: Dataset, q: Question, runner: PostgresRunner) -> tuple[list[str], list[str]]:
    """PostgreSQL gold alternatives of ``q`` and the transpilation fixes applied."""
    if q.golds:
        return list(q.golds), []
    if isinstance(dataset, DefogDataset):
        return expand_gold(q.gold_sql), []
    t = runner.transpile(q.gold_sql, dataset.schema_name(q.db_id))
    return [t.sql], t.fixes


def run_gold(dataset: Dataset, q: Question, runner: PostgresRunner, *, iterations: int = 1) -> GoldRun:
    schema = dataset.schema_name(q.db_id)
    try:
        sqls, fixes = gold_sqls(dataset, q, runner)
    except TranspileError as exc:
        return GoldRun([], [], [], error=str(exc))
    outcomes = [runner.run(s, schema, iterations=iterations) for s in sqls]
    ordered = [has_top_level_order_by(s, "postgres") for s in sqls]
    return GoldRun(sqls, outcomes, ordered, fixes)


# --- gold-check -----------------------------------------------------------------------


def _short(text: str | None, n: int = 300) -> str | None:
    if text is None:
        return None
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1] + "…"


def gold_check(
    dataset: Dataset,
    url: str,
    *,
    questions_file: str | Path | None = None,
    dbs: set[str] | None = None,
    limit: int | None = None,
    timeout_ms: int = 30_000,
    row_cap: int = DEFAULT_EVAL_ROW_CAP,
    progress: Progress | None = None,
) -> TaskResult:
    """Transpiled gold on PostgreSQL vs the original gold on SQLite (Spider layout), or
    every gold alternative runs on PostgreSQL (Defog layout)."""
    questions, skipped = select_questions(dataset, questions_file, dbs, limit)
    load_dataset(dataset, url, dbs=_needed_dbs(questions), accept_any_keys=True)
    pg = PostgresRunner(url, timeout_ms=timeout_ms, row_cap=row_cap)
    lite = SQLiteRunner(timeout_ms=timeout_ms, row_cap=row_cap)
    records: list[dict[str, Any]] = []
    started = time.perf_counter()
    try:
        for i, q in enumerate(questions):
            records.append(_gold_check_one(dataset, q, pg, lite))
            _tick(progress, i + 1, len(questions))
    finally:
        pg.close()
        lite.close()
    agree = sum(1 for r in records if r["agree"])
    ties = sum(1 for r in records if r.get("tie"))
    reasons: dict[str, int] = {}
    for r in records:
        if not r["agree"]:
            reasons[r["reason"]] = reasons.get(r["reason"], 0) + 1
    summary = {
        "task": "gold-check",
        "dataset": dataset.kind,
        "questions": len(records),
        "agree": agree,
        "agree_rate": agree / len(records) if records else 0.0,
        "agree_by_tie": ties,
        "strict_agree_rate": (agree - ties) / len(records) if records else 0.0,
        "disagree_reasons": dict(sorted(reasons.items(), key=lambda kv: -kv[1])),
        "skipped": len(skipped),
        "seconds": round(time.perf_counter() - started, 3),
    }
    return TaskResult(summary, records + skipped)


def _gold_check_one(dataset: Dataset, q: Question, pg: PostgresRunner, lite: SQLiteRunner) -> dict[str, Any]:
    rec: dict[str, Any] = {"index": q.index, "db_id": q.db_id, "question": q.question, "gold": q.gold_sql}
    gold = run_gold(dataset, q, pg)
    rec["pg_sql"] = gold.sqls[0] if len(gold.sqls) == 1 else gold.sqls
    rec["fixes"] = gold.fixes
    if gold.error:
        rec.update(agree=False, reason="transpile_error", detail=_short(gold.error))
        return rec
    if isinstance(dataset, DefogDataset):
        failed = [o.error_text() for o in gold.outcomes if not o.ok]
        rec.update(alternatives=len(gold.sqls), agree=not failed)
        if failed:
            rec.update(reason="pg_error", detail=_short(failed[0]))
        return rec
    pg_out = gold.outcomes[0]
    path = dataset.sqlite_path(q.db_id)
    assert path is not None
    lite_out = lite.run(q.gold_sql, path)
    ordered = has_top_level_order_by(q.gold_sql, "sqlite")
    rec.update(ordered=ordered, sqlite_rows=len(lite_out.rows), pg_rows=len(pg_out.rows))
    if not lite_out.ok:
        rec.update(agree=False, reason="sqlite_error", detail=_short(lite_out.error_text()))
    elif not pg_out.ok:
        rec.update(agree=False, reason=f"pg_error:{error_bucket(pg_out.error)}", detail=_short(pg_out.error_text()))
    elif compare.results_match(lite_out.rows, pg_out.rows, ordered=ordered, column_order=True):
        rec.update(agree=True)
    elif ordered and _ties_explain(q.gold_sql, rec["pg_sql"], path, dataset.schema_name(q.db_id), lite_out, pg_out, lite, pg):
        rec.update(agree=True, tie=True)
    else:
        if len(lite_out.rows) != len(pg_out.rows):
            reason = "row_count_mismatch"
        elif ordered and compare.results_match(lite_out.rows, pg_out.rows, ordered=False, column_order=True):
            reason = "order_mismatch"
        else:
            reason = "value_mismatch"
        rec.update(
            agree=False,
            reason=reason,
            sqlite_sample=[list(r) for r in lite_out.rows[:3]],
            pg_sample=[list(r) for r in pg_out.rows[:3]],
        )
    return rec


def _ties_explain(
    sqlite_sql: str,
    pg_sql: str,
    path: Path,
    schema: str,
    lite_out: RunOutcome,
    pg_out: RunOutcome,
    lite: SQLiteRunner,
    pg: PostgresRunner,
) -> bool:
    """True when both engines return the same rows without LIMIT and each answer is
    a valid ordering of them under the PostgreSQL query's ORDER BY keys: the two
    differ only in how ties of the order keys are broken."""
    keyed_pg = keyed_unlimited(pg_sql, "postgres")
    unlimited_lite = unlimited(sqlite_sql, "sqlite")
    if keyed_pg is None or unlimited_lite is None:
        return False
    full_pg = pg.run(keyed_pg[0], schema)
    full_lite = lite.run(unlimited_lite, path)
    if not (full_lite.ok and full_pg.ok):
        return False
    nkeys = keyed_pg[1]
    projected = [row[:-nkeys] for row in full_pg.rows]
    if not compare.results_match(full_lite.rows, projected, ordered=False, column_order=True):
        return False
    return compare.tie_consistent(lite_out.rows, full_pg.rows, nkeys) and compare.tie_consistent(
        pg_out.rows, full_pg.rows, nkeys
    )


# --- predictions ------------------------------------------------------------------------


def read_predictions(path: str | Path) -> dict[int, dict[str, Any]]:
    """``[{"question_index": i, "sql": "..."}...]`` -> {i: record} (``index`` is accepted
    for ``question_index``, as in the recorded predictions of benchdata). Optional fields:
    ``dialect`` (``postgres`` default, or ``sqlite``: transpiled before running), ``llm_calls``, ``input_tokens``,
    ``output_tokens``, ``stage_ms`` / ``latency_ms``. JSONL (one object per line) is
    accepted too."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError as exc:
        raise InputError(f"Predictions file {p} does not exist.") from exc
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        try:
            data = [json.loads(line) for line in text.splitlines() if line.strip()]
        except json.JSONDecodeError as exc:
            raise InputError(f"{p} is neither a JSON list nor JSONL: {exc}") from exc
    if not isinstance(data, list):
        raise InputError(f"{p} must hold a JSON list of {{\"question_index\": i, \"sql\": \"...\"}} objects.")
    out: dict[int, dict[str, Any]] = {}
    for item in data:
        if not isinstance(item, dict) or ("question_index" not in item and "index" not in item):
            raise InputError(f"{p}: every prediction needs 'question_index' (or 'index') and 'sql'.")
        out[int(item["question_index"] if "question_index" in item else item["index"])] = item
    return out


def make_predictions(
    dataset: Dataset,
    url: str,
    *,
    questions_file: str | Path | None = None,
    dbs: set[str] | None = None,
    limit: int | None = None,
    shuffle: bool = False,
    seed: int = 0,
    progress: Progress | None = None,
) -> TaskResult:
    """Gold as predictions (PostgreSQL dialect; Defog: the first alternative), or with
    ``shuffle`` the same SQL given to other questions of the same database where
    possible: a harness check (gold scores 1.0, shuffled scores low)."""
    questions, _skipped = select_questions(dataset, questions_file, dbs, limit)
    load_dataset(dataset, url, dbs=_needed_dbs(questions), accept_any_keys=True)
    pg = PostgresRunner(url, timeout_ms=30_000)
    preds: list[dict[str, Any]] = []
    try:
        for i, q in enumerate(questions):
            try:
                sqls, _ = gold_sqls(dataset, q, pg)
                sql = sqls[0]
            except TranspileError:
                sql = q.gold_sql
            preds.append({"question_index": q.index, "sql": sql, "db_id": q.db_id})
            _tick(progress, i + 1, len(questions))
    finally:
        pg.close()
    if shuffle:
        rng = random.Random(seed)
        by_db: dict[str, list[int]] = {}
        for k, p in enumerate(preds):
            by_db.setdefault(p["db_id"], []).append(k)
        sqls = [p["sql"] for p in preds]
        for members in by_db.values():
            if len(members) < 2:
                continue
            rotated = members[:]
            rng.shuffle(rotated)
            # a rotation of a shuffled order: nobody keeps its own SQL
            for a, b in zip(rotated, rotated[1:] + rotated[:1]):
                preds[a]["sql"] = sqls[b]
    summary = {"task": "preds", "dataset": dataset.kind, "questions": len(preds), "shuffled": shuffle, "seed": seed}
    return TaskResult(summary, preds)


# --- ex -----------------------------------------------------------------------------------


def execution_accuracy(
    dataset: Dataset,
    url: str,
    predictions: dict[int, dict[str, Any]],
    *,
    questions_file: str | Path | None = None,
    dbs: set[str] | None = None,
    limit: int | None = None,
    timeout_ms: int = 30_000,
    row_cap: int = DEFAULT_EVAL_ROW_CAP,
    column_order: bool = False,
    ves_iterations: int = 1,
    baseline: dict[int, dict[str, Any]] | None = None,
    progress: Progress | None = None,
) -> TaskResult:
    """Execution accuracy of ``predictions`` against the gold (see :mod:`compare`).

    The reference result is the gold run on PostgreSQL (Defog: every expanded
    alternative; a prediction is correct if it matches any). When the transpiled gold
    fails on PostgreSQL, the SQLite result of the original gold is the reference; a
    question whose gold runs nowhere is left out (``gold_errors``).
    """
    questions, skipped = select_questions(dataset, questions_file, dbs, limit)
    load_dataset(dataset, url, dbs=_needed_dbs(questions), accept_any_keys=True)
    pg = PostgresRunner(url, timeout_ms=timeout_ms, row_cap=row_cap)
    lite = SQLiteRunner(timeout_ms=timeout_ms, row_cap=row_cap)
    records: list[dict[str, Any]] = []
    baseline_outcomes: list[str] = []
    started = time.perf_counter()
    try:
        for i, q in enumerate(questions):
            gold = run_gold(dataset, q, pg, iterations=ves_iterations)
            references = _references(dataset, q, gold, lite)
            rec: dict[str, Any] = {"index": q.index, "db_id": q.db_id, "question": q.question}
            if not references:
                rec.update(outcome=None, gold_error=gold.error or _short(_first_error(gold)))
                records.append(rec)
                _tick(progress, i + 1, len(questions))
                continue
            pred = predictions.get(q.index)
            rec.update(_score_prediction(dataset, q, pred, references, pg, column_order, ves_iterations))
            if pred is not None:
                rec["cost"] = Cost.from_record(pred).to_dict()
            if baseline is not None:
                base = _score_prediction(dataset, q, baseline.get(q.index), references, pg, column_order, 1)
                rec["baseline_outcome"] = base["outcome"]
                baseline_outcomes.append(base["outcome"])
            records.append(rec)
            _tick(progress, i + 1, len(questions))
    finally:
        pg.close()
        lite.close()
    scored = [r for r in records if r.get("outcome")]
    outcomes = [r["outcome"] for r in scored]
    n = len(scored)
    rates = outcome_rates(outcomes)
    correct = [r for r in scored if r["outcome"] == "correct"]
    schema_scores = [r["schema"] for r in scored if r.get("schema")]
    summary: dict[str, Any] = {
        "task": "ex",
        "dataset": dataset.kind,
        "questions": n,
        "ex": rates["correct_rate"],
        **rates,
        "correct": len(correct),
        "incorrect": outcomes.count("incorrect"),
        "errors": outcomes.count("error"),
        "error_buckets": bucket_counts(r["error_bucket"] for r in scored if r["outcome"] == "error"),
        "soft_f1": sum(r["soft_f1"] for r in scored) / n if n else 0.0,
        "ves": sum(r.get("ves", 0.0) for r in scored) / n if n else 0.0,
        "r_ves": sum(r.get("r_ves", 0.0) for r in scored) / n if n else 0.0,
        "schema": {
            k: sum(s[k] for s in schema_scores) / len(schema_scores)
            for k in ("table_precision", "table_recall", "table_f1", "column_precision", "column_recall", "column_f1")
        }
        if schema_scores
        else None,
        "cost": cost_summary([Cost.from_record(predictions[r["index"]]) for r in scored if r["index"] in predictions]),
        "missing_predictions": sum(1 for r in scored if r.get("error_bucket") == "missing"),
        "gold_errors": len(records) - n,
        "skipped": len(skipped),
        "seconds": round(time.perf_counter() - started, 3),
    }
    if baseline is not None:
        summary["transitions"] = transition_rates(baseline_outcomes, outcomes)
    return TaskResult(summary, records + skipped)


def _first_error(gold: GoldRun) -> str | None:
    for o in gold.outcomes:
        if not o.ok:
            return o.error_text()
    return None


@dataclass
class _Reference:
    sql: str
    outcome: RunOutcome
    ordered: bool
    dialect: str = "postgres"  # "sqlite" when the SQLite result of the original gold stands in


def _references(dataset: Dataset, q: Question, gold: GoldRun, lite: SQLiteRunner) -> list[_Reference]:
    refs = [_Reference(s, o, ordered) for s, o, ordered in zip(gold.sqls, gold.outcomes, gold.ordered) if o.ok]
    if refs or not isinstance(dataset, SpiderDataset):
        return refs
    path = dataset.sqlite_path(q.db_id)
    if path is None:
        return []
    out = lite.run(q.gold_sql, path)
    if not out.ok:
        return []
    return [_Reference(q.gold_sql, out, has_top_level_order_by(q.gold_sql, "sqlite"), "sqlite")]


def _score_prediction(
    dataset: Dataset,
    q: Question,
    pred: dict[str, Any] | None,
    references: list[_Reference],
    pg: PostgresRunner,
    column_order: bool,
    ves_iterations: int,
) -> dict[str, Any]:
    schema = dataset.schema_name(q.db_id)
    if pred is None or not str(pred.get("sql") or "").strip():
        return {"outcome": "error", "error_bucket": "missing", "error": "no prediction", "soft_f1": 0.0}
    sql = str(pred["sql"])
    rec: dict[str, Any] = {"pred_sql": sql}
    if str(pred.get("dialect", "postgres")).lower() == "sqlite":
        try:
            sql = pg.transpile(sql, schema).sql
            rec["pred_pg_sql"] = sql
        except TranspileError as exc:
            rec.update(outcome="error", error_bucket="syntax", error=_short(str(exc)), soft_f1=0.0)
            return rec
    out = pg.run(sql, schema, iterations=ves_iterations)
    if not out.ok:
        rec.update(outcome="error", error_bucket=error_bucket(out.error), error=_short(out.error_text()), soft_f1=0.0)
        return rec
    matched = None
    for ref in references:
        if compare.results_match(ref.outcome.rows, out.rows, ordered=ref.ordered, column_order=column_order):
            matched = ref
            break
    rec["soft_f1"] = max(compare.soft_f1(ref.outcome.rows, out.rows) for ref in references)
    rec["pred_rows"] = len(out.rows)
    rec["gold_rows"] = len(references[0].outcome.rows)
    if matched is not None:
        rec["outcome"] = "correct"
        rec["ves"] = compare.ves_reward(matched.outcome.elapsed_ms, out.elapsed_ms)
        rec["r_ves"] = compare.r_ves_reward(matched.outcome.elapsed_ms, out.elapsed_ms)
    else:
        rec["outcome"] = "incorrect"
    if references[0].dialect == "postgres":
        try:
            types = pg.table_types(schema)
            tables = {t: list(cols) for t, cols in types.items()}
            gold_items = used_schema_items(references[0].sql, tables)
            pred_items = used_schema_items(sql, tables)
            rec["schema"] = schema_selection_scores(pred_items, gold_items)
        except ValueError:
            pass
    return rec
