"""``sqlgenie eval select``: candidate selection alone, measured on recorded
predictions of several systems (each system's prediction one candidate per
question; ``--candidates`` adds a file with many candidates per question).

Every candidate runs on PostgreSQL through the harness (SQLite-dialect SQL is
transpiled as ``eval ex`` does) and is scored against the gold with the harness's
comparison (:func:`sqlgenie.eval.compare.results_match`). Reported, as fractions of
the questions with a usable gold:

- ``ex_selected``: the candidate :func:`.selection.select` picks is right;
- ``ex_best_single``: the best single file;
- ``ex_majority``: the largest group of equal results (ties to the first file);
- ``ex_oracle``: some candidate is right.

With ``distinguish=True`` (``--distinguish``) the close calls between the two best
clusters get a distinguishing database (:mod:`.distinguish`, on the critic's
catalogs); without an LLM the pick does not change and the summary's
``distinguish`` counts the calls and how many were told apart.

Selection sees only the candidates' SQL and results, never the gold. The
candidates' weights (``weights="agreement"``) are each system's reliability
estimated without the gold: how often its result equals the plurality of the
*other* systems over all questions (naive-Bayes log-odds, Dawid-Skene style).
"""

from __future__ import annotations

import math
import pickle
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

from sqlgenie.errors import InputError
from sqlgenie.feedback.selection import Candidate, cluster, majority, select, same_result

Progress = Callable[[int, int], None]
MIN_WEIGHT = 0.05


@dataclass
class _Run:
    rows: list[tuple] | None
    columns: list[str]
    error: str | None
    ordered: bool
    pg_sql: str | None = None


def _read_candidates(path: str | Path) -> dict[int, list[dict[str, Any]]]:
    from sqlgenie.eval.tasks import read_predictions

    out: dict[int, list[dict[str, Any]]] = {}
    for idx, rec in read_predictions(path).items():
        cands = rec.get("candidates")
        if not isinstance(cands, list):
            raise InputError(f"{path}: a candidates file needs \"candidates\": [{{\"sql\": ...}}, ...] per question.")
        out[idx] = [{"sql": c.get("sql") if isinstance(c, dict) else c, "dialect": rec.get("dialect", "postgres")}
                    for c in cands]
    return out


def _execute(pg: Any, schema: str, sql: str, dialect: str, cache: dict) -> _Run:
    from sqlgenie.eval.gold import TranspileError, has_top_level_order_by

    key = (schema, dialect, sql)
    if key in cache:
        return cache[key]
    run: _Run
    if not sql or not sql.strip():
        run = _Run(None, [], "empty", False)
    else:
        try:
            pg_sql = pg.transpile(sql, schema).sql if dialect == "sqlite" else sql
        except TranspileError as exc:
            run = _Run(None, [], f"transpile: {exc}", False)
        else:
            out = pg.run(pg_sql, schema)
            try:
                ordered = has_top_level_order_by(pg_sql, "postgres")
            except Exception:
                ordered = False
            run = _Run(None if not out.ok else [tuple(r) for r in out.rows], list(out.columns),
                       out.error_text(), ordered, pg_sql)
    cache[key] = run
    return run


def _reliabilities(per_question: list[list[Candidate]], systems: int) -> list[float]:
    """Each system's agreement with the plurality result of the other systems
    (questions where the others have a plurality), smoothed; gold never used."""
    agree = [1.0] * systems
    seen = [2.0] * systems
    for cands in per_question:
        base = cands[:systems]
        for s in range(systems):
            others = [c for j, c in enumerate(base) if j != s]
            clusters = cluster(others)
            if not clusters:
                continue
            sizes = sorted((len(c.members) for c in clusters), reverse=True)
            if len(sizes) > 1 and sizes[0] == sizes[1]:
                continue  # no plurality among the others
            top = max(clusters, key=lambda c: len(c.members))
            seen[s] += 1
            if base[s].ok and same_result(others[top.members[0]], base[s]):
                agree[s] += 1
    return [agree[s] / seen[s] for s in range(systems)]


def evaluate_selection(dataset: Any, url: str, files: Sequence[Path], *, candidates_file: Path | None = None,
                       questions_file: str | None = None, dbs: set[str] | None = None, limit: int | None = None,
                       timeout_ms: int = 30_000, weights: str = "agreement", cache_path: Path | None = None,
                       critic: bool = True, keys: str = "drop", distinguish: bool = False,
                       progress: Progress | None = None) -> Any:
    from sqlgenie.eval import compare
    from sqlgenie.eval.runners import PostgresRunner, SQLiteRunner
    from sqlgenie.eval.tasks import (TaskResult, _needed_dbs, _references, load_dataset, read_predictions, run_gold,
                                     select_questions)

    if not files:
        raise InputError("Give at least one predictions file: --predictions F1 F2 ...")
    if distinguish and not critic:
        raise InputError("--distinguish builds its databases from the critic's catalogs: drop --no-critic.")
    if weights not in ("agreement", "equal"):
        raise InputError(f"--weights must be agreement or equal, not {weights!r}.")
    preds = [read_predictions(f) for f in files]
    extra = _read_candidates(candidates_file) if candidates_file else {}
    questions, skipped = select_questions(dataset, questions_file, dbs, limit)
    # the critic's catalogs are onboarded from copies loaded with ``keys``; without the critic any copy will do
    load_dataset(dataset, url, dbs=_needed_dbs(questions), keys=keys, accept_any_keys=not critic)
    checker = _Checker(dataset, keys, {q.db_id for q in questions}) if critic else None
    cache: dict = {}
    if cache_path is not None and cache_path.exists():
        with cache_path.open("rb") as fh:
            cache = pickle.load(fh)
    pg = PostgresRunner(url, timeout_ms=timeout_ms)
    lite = SQLiteRunner(timeout_ms=timeout_ms)
    started = time.perf_counter()
    rows: list[dict[str, Any]] = []
    per_question: list[list[Candidate]] = []
    truth: list[list[bool]] = []
    asked: list[tuple[str, str]] = []
    try:
        for n, q in enumerate(questions):
            schema = dataset.schema_name(q.db_id)
            gkey = ("gold", schema, q.index)
            if gkey in cache:
                refs = cache[gkey]
            else:
                gold = run_gold(dataset, q, pg)
                refs = [(list(map(tuple, r.outcome.rows)), r.ordered) for r in _references(dataset, q, gold, lite)]
                cache[gkey] = refs
            if not refs:
                rows.append({"index": q.index, "db_id": q.db_id, "gold_error": True})
                continue
            cands: list[Candidate] = []
            for f, p in zip(files, preds):
                rec = p.get(q.index) or {}
                cands.append(_candidate(pg, schema, str(rec.get("sql") or ""),
                                        str(rec.get("dialect", "postgres")).lower(), Path(f).stem, cache))
            for k, c in enumerate(extra.get(q.index, [])):
                cands.append(_candidate(pg, schema, str(c["sql"] or ""), str(c["dialect"]).lower(),
                                        f"{Path(candidates_file).stem}#{k}", cache))
            if checker is not None and len(cluster(cands)) > 1:
                checker.check(pg, q, schema, cands, cache)
            right = [c.ok and any(compare.results_match(g, c.rows or [], ordered=o) for g, o in refs) for c in cands]
            per_question.append(cands)
            truth.append(right)
            asked.append((q.db_id, q.question))
            rows.append({"index": q.index, "db_id": q.db_id})
            if progress:
                progress(n + 1, len(questions))
    finally:
        pg.close()
        lite.close()
        if checker is not None:
            checker.close()
        if cache_path is not None:
            with cache_path.open("wb") as fh:
                pickle.dump(cache, fh)
    systems = len(files)
    rel = _reliabilities(per_question, systems) if weights == "agreement" else [0.75] * systems
    # log-odds of each system's reliability; one that agrees with the others less often than
    # not still votes for its own answer (a small positive floor, never against it)
    w = [max(MIN_WEIGHT, math.log(r / (1.0 - r))) if r < 1.0 else 5.0 for r in rel]
    extra_w = min(w) if w else 1.0
    selected = major = oracle = 0
    single = [0] * systems
    records = []
    scored = iter(r for r in rows if not r.get("gold_error"))
    dstats: Counter = Counter()
    dstore = None
    if distinguish:
        from sqlgenie.config import get_settings
        from sqlgenie.store.connection import store_url

        dstore = store_url(get_settings())
    for (db_id, text), cands, right in zip(asked, per_question, truth):
        rec = next(scored)
        for i, c in enumerate(cands):
            c.weight = w[i] if i < systems else extra_w / max(1, len(cands) - systems) * 1.0
        hook = None
        if dstore is not None and checker is not None and db_id in checker.catalogs:
            from sqlgenie.feedback.distinguish import Distinguisher

            judge = Distinguisher(dstore, checker.catalogs[db_id], question=text)
            hook = judge.hook
        sel = select(cands, distinguish=hook)
        if hook is not None and judge.evidence:
            ev = judge.evidence[0]
            dstats["calls"] += 1
            dstats["distinguished"] += bool(ev["distinguished"])
            dstats["not_in_catalog"] += "not in the catalog" in ev["note"]
            dstats["failed_on_rows"] += "failed on the built rows" in ev["note"] or "failed:" in ev["note"]
            dstats["ms"] += ev.get("ms", 0.0)
            rec["distinguish"] = {k: ev[k] for k in ("distinguished", "seed", "tries", "note")}
        maj = majority(cands)
        ok_sel = sel.winner is not None and right[sel.winner]
        ok_maj = maj is not None and right[maj]
        selected += ok_sel
        major += ok_maj
        oracle += any(right)
        for s in range(systems):
            single[s] += right[s]
        rec.update(selected=sel.winner, selected_source=None if sel.winner is None else cands[sel.winner].source,
                   selected_right=ok_sel, majority=maj, majority_right=ok_maj, oracle=any(right),
                   right=[c.source for c, r in zip(cands, right) if r], rule=sel.rule,
                   clusters=[c.to_dict() for c in sel.clusters])
        records.append(rec)
    nq = len(per_question)
    frac = (lambda k: round(k / nq, 4) if nq else 0.0)
    summary = {
        "task": "select", "dataset": dataset.kind, "weights": weights, "critic": critic,
        "critic_findings": sum(bool(c.findings) for cands in per_question for c in cands),
        "degenerate_losers": sum(1 for r in records for c in r["clusters"] if c.get("degenerate")),
        "systems": [Path(f).stem for f in files],
        "reliability": {Path(f).stem: round(r, 4) for f, r in zip(files, rel)},
        "ex_single": {Path(f).stem: frac(k) for f, k in zip(files, single)},
        "gold_errors": len(rows) - nq, "skipped": len(skipped),
        "seconds": round(time.perf_counter() - started, 1),
        "questions": nq,
        "candidates_per_question": round(sum(len(c) for c in per_question) / nq, 2) if nq else 0.0,
        "ex_selected": frac(selected), "ex_best_single": max((frac(k) for k in single), default=0.0),
        "ex_majority": frac(major), "ex_oracle": frac(oracle),
    }
    if distinguish:
        calls = dstats["calls"]
        summary["distinguish"] = {"calls": calls, "distinguished": dstats["distinguished"],
                                  "not_in_catalog": dstats["not_in_catalog"], "failed_on_rows": dstats["failed_on_rows"],
                                  "ms_mean": round(dstats["ms"] / calls, 1) if calls else 0.0, "llm_judge": False}
    return TaskResult(summary, records + skipped)


def _candidate(pg: Any, schema: str, sql: str, dialect: str, source: str, cache: dict) -> Candidate:
    run = _execute(pg, schema, sql, dialect, cache)
    pg_sql = getattr(run, "pg_sql", None)
    if pg_sql is None and run.error is None:
        pg_sql = sql if dialect != "sqlite" else pg.transpile(sql, schema).sql
    return Candidate(sql=sql, source=source, rows=run.rows, columns=run.columns, error=run.error,
                     ordered=run.ordered, meta={"pg_sql": pg_sql} if pg_sql else {})


class _Checker:
    """The critic's checks on the candidates of a question whose candidates disagree,
    on the catalog onboarded (no LLM) from the loaded copy of its database."""

    def __init__(self, dataset: Any, keys: str, db_ids: set[str]) -> None:
        from sqlgenie.autocorrect import AutocorrectSettings, PgValueMatcher
        from sqlgenie.config import get_settings
        from sqlgenie.inference.eval_schema import prepare_catalogs
        from sqlgenie.store import connect_store

        settings = get_settings()
        self.catalogs = prepare_catalogs(dataset, settings, db_ids, keys=keys)
        self._store_cm = connect_store(settings)
        store = self._store_cm.__enter__()
        store.commit()
        store.autocommit = True
        self.matcher = PgValueMatcher(store, AutocorrectSettings.from_settings(settings))

    def check(self, pg: Any, q: Any, schema: str, cands: Sequence[Candidate], cache: dict) -> None:
        from sqlgenie.inference.critic import ExecutionResult, run_checks

        for c in cands:
            if not c.ok or not c.meta.get("pg_sql"):
                continue
            key = ("critic", schema, q.question, c.meta["pg_sql"])
            if key not in cache:
                try:
                    found = run_checks(c.meta["pg_sql"], question=q.question, catalog=self.catalogs[q.db_id],
                                       executor=pg.executor, matcher=self.matcher, search_path=[schema],
                                       result=ExecutionResult(columns=c.columns, rows=c.rows or []))
                    cache[key] = [{"check": f.check, "severity": f.severity, "message": f.message} for f in found]
                except Exception as exc:  # a check that crashes must not stop the measurement
                    cache[key] = []
                    c.meta["critic_error"] = f"{type(exc).__name__}: {exc}"
            c.findings = cache[key]

    def close(self) -> None:
        self._store_cm.__exit__(None, None, None)


def _counter(values: Sequence[str]) -> dict[str, int]:
    return dict(Counter(values))
