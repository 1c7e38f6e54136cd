"""``sqlgenie eval bank``: how well the match route answers from a bank, with no LLM.

For every database of the evaluated questions the harness

1. loads it (cached, :func:`sqlgenie.eval.tasks.load_dataset`) and onboards its
   schema when the catalog has none of its tables (no LLM);
2. **replaces** the bank examples of that schema with the pairs of ``--bank`` for
   the database (gold SQL transpiled to PostgreSQL, tables qualified with the
   schema), validated and embedded by the bank importer;
3. asks every question through :class:`~sqlgenie.inference.pipeline.Asker` scoped
   to the schema (no LLM, autocorrector defaults such as LIMIT off, logged as
   ``kind = 'eval'``), and scores answered SQL by execution accuracy against the
   gold exactly as ``eval ex`` does.

Summary keys: ``questions``, ``answered``, ``coverage``, ``ex_answered`` (share of
answered questions that are correct), ``ex_overall`` (correct / questions),
``p50_ms`` / ``p95_ms`` (ask time per question, warm process, execution
included). Records: ``index``, ``answered``, ``correct``, ``route``,
``similarity`` and more.

Templated sets (gold variants, exact SQL metric): an answer that returns the gold's
rows on the dump without being equal is ``undecided`` and counted wrong; the
test-suite check (:mod:`sqlgenie.eval.test_suite`, ``suite=False`` to skip it) then
runs it against the gold variants on small key-respecting databases, records its
verdict in ``suite`` and adds ``undecided_equivalent``, ``undecided_distinguished``,
``undecided_suite_failed`` (of which ``undecided_unexercised``), ``correct_suite``, ``precision_suite``,
``right_seen_rate_suite``, ``wrong_novel_suite``, ``wrong_novel_rate_suite`` and
``suite_ms`` to the summary (the exact keys are unchanged).

Gold literals in no row (:mod:`sqlgenie.eval.gold_literals`): a wrong answer is also
scored against its gold with every string literal that no row holds replaced by the one
stored value equal to it once trimmed and case-folded (``correct_gold_repaired``,
``gold_literals_absent`` per record; ``gold_literal_absent`` and ``precision_gold_repaired``
in the summary). ``precision`` is unchanged: the repaired figure is a second reading.

Splits for development: ``python -m sqlgenie.inference.eval_bank split --dataset
DIR --out DIR`` writes bank/test question files (see :func:`make_splits`).
"""

from __future__ import annotations

import json
import random
import time
from collections import Counter
from pathlib import Path
from typing import Any, Callable, Sequence

import sqlglot
from sqlglot import exp

from sqlgenie.config import Settings, get_settings
from sqlgenie.inference.counterparts import REASON_CODES as COUNTERPARTS_CODES
from sqlgenie.inference.unasked_parts import REASON_CODES as UNASKED_CODES
from sqlgenie.inference.other_query import REASON_CODES as OTHER_QUERY_CODES
from sqlgenie.inference.answer_words import REASON_CODES as ANSWER_WORDS_CODES
from sqlgenie.inference.unclear_answers import REASON_CODES as UNCLEAR_CODES
from sqlgenie.inference.value_reading import REASON_CODES as VALUE_READING_CODES
from sqlgenie.inference.read_apart import REASON_CODES as READ_APART_CODES
from sqlgenie.inference.head_reading import REASON_CODES as HEAD_READING_CODES
from sqlgenie.inference.example_parts import REASON_CODES as EXAMPLE_PARTS_CODES
from sqlgenie.inference.example_sides import REASON_CODES as EXAMPLE_SIDES_CODES
from sqlgenie.inference.unmet_words import REASON_CODES as UNMET_WORDS_CODES
from sqlgenie.inference.number_place import REASON_CODES as NUMBER_PLACE_CODES
from sqlgenie.inference.clock_numbers import REASON_CODES as CLOCK_CODES
from sqlgenie.inference.unread_words import REASON_CODES as UNREAD_CODES
from sqlgenie.inference.route_ends import REASON_CODES as ROUTE_ENDS_CODES
from sqlgenie.inference.answer_items import REASON_CODES as ANSWER_ITEMS_CODES
from sqlgenie.inference.asked_returns import REASON_CODES as ASKED_RETURNS_CODES
from sqlgenie.inference.role_cues import REASON_CODES as ROLE_CUES_CODES
from sqlgenie.errors import InputError, SqlGenieError
from sqlgenie.eval.datasets import Dataset, Question, SpiderDataset
from sqlgenie.eval.gold import TranspileError
from sqlgenie.eval.gold_literals import gold_repaired_summary, repaired_verdict
from sqlgenie.eval.test_suite import suite_summary
from sqlgenie.eval.runners import PostgresRunner, SQLiteRunner
from sqlgenie.eval.tasks import (
    TaskResult,
    _references,
    _score_prediction,
    _short,
    load_dataset,
    run_gold,
    select_questions,
)

Progress = Callable[[int, int], None]


# --------------------------------------------------------------------------- helpers


def qualify_tables(sql: str, schema: str) -> str:
    """``sql`` (PostgreSQL) with every base table qualified by ``schema`` (CTE names left alone)."""
    tree = sqlglot.parse_one(sql, read="postgres")
    ctes = {cte.alias_or_name.lower() for cte in tree.find_all(exp.CTE)}
    for table in tree.find_all(exp.Table):
        if table.args.get("db") is None and table.name and table.name.lower() not in ctes:
            table.set("db", exp.to_identifier(schema))
    return tree.sql(dialect="postgres")


def _schema_tables(store, schema: str) -> list[str]:
    return [f"{schema.lower()}.{t.lower()}" for (t,) in store.execute(
        "SELECT table_name FROM sqlgenie.catalog_tables WHERE schema_name = %s", (schema,))]


def ensure_onboarded(settings: Settings, store, target, schema: str, *, force: bool = False) -> bool:
    """Onboard ``schema`` unless the catalog has its tables (``force``: the data was
    just (re)loaded, so the catalog's profile may be stale); True when onboarded now."""
    if not force and _schema_tables(store, schema):
        return False
    from onboarding.service import OnboardOptions, onboard_schema

    onboard_schema(schema, settings=settings, options=OnboardOptions(llm=None), target=target)
    return True


def replace_bank(
    settings: Settings, store, target, url: str, schema: str, pairs: Sequence[tuple[int, str, str]],
    *, encode: Callable,
) -> dict[str, Any]:
    """Delete the bank examples that only use ``schema``'s tables, then import ``pairs``
    (PostgreSQL SQL) masked exactly as the scoped Asker masks questions."""
    from example_bank.importer import BankContext, import_pairs
    from sqlgenie.inference.pipeline import load_value_columns, scoped_value_lookup, scoped_vocabulary

    tables = _schema_tables(store, schema)
    deleted = store.execute(
        "DELETE FROM sqlgenie.bank_examples WHERE cardinality(tables) > 0 AND tables <@ %s::text[]", (tables,)
    ).rowcount
    store.commit()
    ctx = BankContext(
        store=store, target=target, target_url=url, allowed=set(tables),
        vocabulary=scoped_vocabulary(store, [schema]),
        values=scoped_value_lookup(load_value_columns(store, [schema])), target_columns=set(),
    )
    try:
        report = import_pairs(ctx, pairs, encode=encode, status="verified", source="import",
                              model_name=settings.embedding_model, file_name=schema)
    finally:
        ctx.close()
    store.commit()
    return {"deleted": deleted, "added": report.added, "merged": report.merged, "rejected": len(report.rejected),
            "rejected_rows": [r.__dict__ for r in report.rejected]}


def _percentile(values: Sequence[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    k = max(0, min(len(ordered) - 1, int(round(q * (len(ordered) - 1)))))
    return ordered[k]


# --------------------------------------------------------------------------- the task


def eval_bank(
    dataset: Dataset,
    url: str,
    *,
    bank_file: str | Path,
    questions_file: str | Path | None = None,
    dbs: set[str] | None = None,
    limit: int | None = None,
    timeout_ms: int = 30_000,
    settings: Settings | None = None,
    progress: Progress | None = None,
    route: str = "auto",
    suite: bool = True,
) -> TaskResult:
    """Run the bank evaluation (see module doc). ``suite``: run the test-suite check
    (:mod:`sqlgenie.eval.test_suite`) on templated sets' undecided answers."""
    from example_bank.embedder import get_embedder
    from sqlgenie.autocorrect import AutocorrectSettings
    from sqlgenie.inference.pipeline import Asker
    from sqlgenie.store.connection import open_connection, store_url
    from sqlgenie.store.migrations import ensure_migrated

    settings = settings or get_settings()
    started = time.perf_counter()
    questions, skipped = select_questions(dataset, questions_file, dbs, limit)
    if not questions:
        raise InputError("No questions to evaluate.", hint="Check --questions, --dbs and --limit.")
    bank_questions = dataset.questions(bank_file)
    labels = question_labels(dataset, questions, bank_questions)
    needed = sorted({q.db_id for q in questions})
    loaded = load_dataset(dataset, url, dbs=set(needed), accept_any_keys=True)
    reloaded = {r["schema"] for r in loaded.records if r.get("status") == "loaded"}

    s_url = store_url(settings)
    ensure_migrated(s_url)
    embedder = get_embedder(settings.embedding_model)
    ac = AutocorrectSettings.from_settings(settings).without_defaults()
    pg = PostgresRunner(url, timeout_ms=timeout_ms)
    lite = SQLiteRunner(timeout_ms=timeout_ms)
    records: list[dict[str, Any]] = []
    bank_stats: dict[str, Any] = {"pairs": 0, "added": 0, "merged": 0, "rejected": 0, "transpile_errors": 0}
    onboarded_now = 0
    done = 0
    try:
        with open_connection(s_url) as store, open_connection(url, autocommit=True) as target:
            for db_id in needed:
                schema = dataset.schema_name(db_id)
                if ensure_onboarded(settings, store, target, schema, force=schema in reloaded):
                    onboarded_now += 1
                pairs: list[tuple[int, str, str]] = []
                for bq in bank_questions:
                    if bq.db_id != db_id:
                        continue
                    try:
                        if isinstance(dataset, SpiderDataset):
                            sql = pg.transpile(bq.gold_sql, schema).sql
                        else:
                            sql = bq.gold_sql.split(";")[0]
                        pairs.append((bq.index, bq.question, qualify_tables(sql, schema)))
                    except (TranspileError, sqlglot.errors.SqlglotError, SqlGenieError):
                        bank_stats["transpile_errors"] += 1
                bank_stats["pairs"] += len(pairs)
                rep = replace_bank(settings, store, target, url, schema, pairs, encode=embedder.encode)
                for key in ("added", "merged", "rejected"):
                    bank_stats[key] += rep[key]
                store.commit()
                store.autocommit = True
                try:
                    with Asker(settings, store=store, target_url=url, schemas=[schema], search_path=[schema],
                               provider=None, log=True, log_kind="eval", autocorrect=ac,
                               encode=None) as asker:
                        checker = (lambda sql, golds: _suite_check(s_url, asker, sql, golds)) if suite else None
                        for q in (q for q in questions if q.db_id == db_id):
                            rec = _ask_one(dataset, q, asker, pg, lite, route, checker)
                            rec["label"] = labels.get(q.index)
                            if q.template:
                                rec["template"] = q.template
                            records.append(rec)
                            done += 1
                            if progress:
                                progress(done, len(questions))
                finally:
                    store.autocommit = False
    finally:
        pg.close()
        lite.close()
    return TaskResult(_summary(dataset, records, skipped, bank_stats, onboarded_now, started, suite=suite),
                      records + skipped)


def _ask_one(dataset: Dataset, q: Question, asker: Any, pg: PostgresRunner, lite: SQLiteRunner, route: str,
             suite_checker: Callable[[str, list[str]], dict[str, Any]] | None = None) -> dict[str, Any]:
    cpu_started = time.process_time()
    result = asker.ask(q.question, route=route, execute=True)
    cpu_ms = (time.process_time() - cpu_started) * 1000.0  # this process only: reads through the machine's load
    rec: dict[str, Any] = {
        "index": q.index, "db_id": q.db_id, "question": q.question, "answered": result.status == "ok",
        "correct": False, "route": result.route, "method": result.method,
        "similarity": None if result.similarity is None else round(result.similarity, 4),
        "confidence": None if result.confidence is None else round(result.confidence, 3),
        "status": result.status, "sql": result.sql, "gold": q.gold_sql, "ms": round(result.total_ms, 2),
        "cpu_ms": round(cpu_ms, 2), "stage_ms": {k: round(v, 2) for k, v in result.timings_ms.items()}, "id": result.id,
    }
    best = result.examples[0] if result.examples else None
    used = next((e for e in result.examples if e["id"] == result.example_id), best)
    if used:
        rec["example"] = used["question"]
        rec["example_similarity"] = used["similarity"]
    if isinstance(result.adaptation, dict) and result.adaptation.get("evidence") is not None:
        rec["evidence"] = result.adaptation["evidence"]  # match_support.DUMP: the bank's evidence of the answer
    if result.status != "ok":
        rec["reason"] = (result.think.reason if result.think else result.message)
        code = _reason_code(result)
        if code:
            rec["reason_code"] = code
        if result.status == "error":
            rec["error"] = _short(result.message)
    gold = run_gold(dataset, q, pg)
    refs = _references(dataset, q, gold, lite)
    if not refs:
        rec["gold_error"] = gold.error or "gold runs nowhere"
        return rec
    if result.status == "ok" and result.sql:
        scored = _score_prediction(dataset, q, {"sql": result.sql}, refs, pg, False, 1)
        rec["outcome"] = scored["outcome"]
        rec["correct"] = scored["outcome"] == "correct"
        if scored.get("error"):
            rec["error"] = scored["error"]
        if q.golds:
            # templated sets: exact (canonical SQL equal to a gold variant); the dump's
            # result only says "undecided" when it agrees without the SQL being equal
            from sqlgenie.eval.text2sql import exact_match

            rec["exec_outcome"] = scored["outcome"]
            rec["exact"] = exact_match(result.sql, q.golds)
            rec["correct"] = rec["exact"]
            rec["outcome"] = "correct" if rec["exact"] else (
                "undecided" if scored["outcome"] == "correct" else scored["outcome"])
            if rec["outcome"] == "undecided" and suite_checker is not None:
                # the gold variants that run on the dump (one that fails there compares with nothing)
                rec["suite"] = suite_checker(result.sql, [ref.sql for ref in refs])
        # a second reading, separate from ``correct``: golds whose literal no row holds
        rec.update(repaired_verdict(dataset, q, result.sql, refs, pg, correct=rec["correct"]))
    elif result.status == "error":
        rec["outcome"] = "error"
    return rec


def _suite_check(s_url: str, asker: Any, sql: str, golds: Sequence[str]) -> dict[str, Any]:
    """The test-suite verdict of an undecided answer, on the schema's catalog (after the ask:
    the answer and its timing are untouched)."""
    from sqlgenie.eval.test_suite import SUITE_SEEDS, suite_check
    from sqlgenie.feedback.distinguish import Distinguisher

    return suite_check(Distinguisher(s_url, asker.catalog, seeds=SUITE_SEEDS, focus=True), sql, golds)


def _reason_code(result: Any) -> str | None:
    """A refusal's machine-readable reason when the pipeline gives one (verification)."""
    for holder in (result, result.adaptation or {}, result.think):
        if holder is None:
            continue
        value = holder.get("reason_code") if isinstance(holder, dict) else getattr(holder, "reason_code", None)
        if value:
            return str(value)
    return None


def question_labels(dataset: Dataset, questions: Sequence[Question], bank: Sequence[Question]) -> dict[int, str]:
    """``seen`` / ``novel`` per test question: the file's label when it has one (templated
    sets), else whether a bank question on the same database has the same normalised
    gold SQL (Spider: the paraphrase split's paired questions are seen, the coin-flipped
    singletons novel)."""
    dialect = "sqlite" if isinstance(dataset, SpiderDataset) else "postgres"
    keys: set[tuple[str, str]] | None = None
    out: dict[int, str] = {}
    for q in questions:
        if q.label:
            out[q.index] = q.label
            continue
        if keys is None:
            keys = {(b.db_id, _norm_sql(b.gold_sql, dialect)) for b in bank}
        out[q.index] = "seen" if (q.db_id, _norm_sql(q.gold_sql, dialect)) in keys else "novel"
    return out


def _summary(dataset: Dataset, records: list[dict[str, Any]], skipped: list, bank: dict[str, Any], onboarded: int,
             started: float, *, suite: bool = False) -> dict[str, Any]:
    scored = [r for r in records if "gold_error" not in r]
    n = len(scored)
    answered = [r for r in scored if r["answered"]]
    correct = [r for r in answered if r["correct"]]
    times = [r["ms"] for r in records]
    reasons = Counter()
    refusals = Counter()
    for r in scored:
        if not r["answered"] and r.get("reason"):
            reasons[_reason_bucket(r["reason"])] += 1
        if not r["answered"]:
            refusals[r.get("reason_code") or (_reason_bucket(r["reason"]) if r.get("reason") else r["status"])] += 1
    seen = [r for r in scored if r.get("label") == "seen"]
    novel = [r for r in scored if r.get("label") == "novel"]
    exact = any("exact" in r for r in scored)
    return {
        "task": "bank",
        "dataset": dataset.kind,
        "metric": "exact SQL (canonical, any gold variant)" if exact else "execution",
        "questions": n,
        "answered": len(answered),
        "coverage": len(answered) / n if n else 0.0,
        "correct": len(correct),
        "precision": round(len(correct) / len(answered), 4) if answered else 0.0,
        "seen_questions": len(seen),
        "seen_answered": sum(1 for r in seen if r["answered"]),
        "coverage_seen": round(sum(1 for r in seen if r["answered"]) / len(seen), 4) if seen else 0.0,
        "correct_seen": sum(1 for r in seen if r["correct"]),
        "novel_questions": len(novel),
        "answered_novel": sum(1 for r in novel if r["answered"]),
        "wrong_novel": sum(1 for r in novel if r["answered"] and not r["correct"]),
        "wrong_novel_rate": round(sum(1 for r in novel if r["answered"] and not r["correct"]) / len(novel), 4)
        if novel else 0.0,
        "undecided": sum(1 for r in answered if r.get("outcome") == "undecided"),
        **(suite_summary(answered, seen, novel) if exact and suite else {}),
        **gold_repaired_summary(answered, scored),
        "refusals": dict(refusals.most_common()),
        "ex_answered": len(correct) / len(answered) if answered else 0.0,
        "ex_overall": len(correct) / n if n else 0.0,
        "p50_ms": round(_percentile(times, 0.5), 2),
        "p95_ms": round(_percentile(times, 0.95), 2),
        "routes": dict(Counter(r["route"] for r in scored)),
        "errors": sum(1 for r in scored if r["status"] == "error"),
        "refusal_reasons": dict(reasons.most_common(12)),
        "gold_errors": len(records) - n,
        "skipped": len(skipped),
        "bank": {k: v for k, v in bank.items()},
        "onboarded_now": onboarded,
        "llm": False,
        "seconds": round(time.perf_counter() - started, 2),
    }


def _reason_bucket(reason: str) -> str:
    text = reason.lower()
    for key, label in (
        ("is not among the nearest examples", "deeper candidate refused"),  # sqlgenie.inference.deeper.REASON_CODES
        ("< t =", "below threshold"),
        ("meaning words", "meaning words differ"),
        ("constants its question implies", "implied constants"),
        ("other schema words", "schema words differ"),
        ("value(s)", "span count differs"),
        ("does not use as a value", "unbound span"),
        ("is a value of", "value of another column"),
        ("equally well", "examples disagree"),
        ("several roles", "ambiguous binding"),
        ("matches several values", "ambiguous binding"),
        ("confidence", "low confidence"),
        ("cannot tell which", "ambiguous pairing"),
        ("cannot replace", "cannot render"),
        ("no verified example", "no example"),
        ("your question asks how many", "answer type"),
        ("your question asks when", "answer type"),
        ("the examples translate", "missing modifier"),
        ("which in the examples puts", "value side"),  # sqlgenie.inference.sides.REASON_CODES
        ("your question is about", "answer entity"),
        ("your question asks how much", "answer type"),
        ("which other examples turn into a condition", "dropped condition"),
        *COUNTERPARTS_CODES.items(),
        *UNASKED_CODES.items(),
        *UNCLEAR_CODES.items(),
        *VALUE_READING_CODES.items(),
        *UNREAD_CODES.items(),
        *OTHER_QUERY_CODES.items(),
        *READ_APART_CODES.items(),
        *ANSWER_WORDS_CODES.items(),
        *HEAD_READING_CODES.items(),
        *EXAMPLE_PARTS_CODES.items(),
        *EXAMPLE_SIDES_CODES.items(),
        *UNMET_WORDS_CODES.items(),
        *NUMBER_PLACE_CODES.items(),
        *CLOCK_CODES.items(),
        *ROUTE_ENDS_CODES.items(),
        *ANSWER_ITEMS_CODES.items(),
        *ASKED_RETURNS_CODES.items(),
        *ROLE_CUES_CODES.items(),
    ):
        if key in text:
            return label
    return "other"


# --------------------------------------------------------------------------- splits


def _norm_sql(sql: str, dialect: str = "sqlite") -> str:
    from example_bank.skeleton import normalize_sql

    try:
        return normalize_sql(sql, dialect)
    except Exception:
        return " ".join(sql.lower().split())


def paraphrase_split(items: list[dict], seed: int = 0) -> tuple[list[dict], list[dict]]:
    """Questions grouped by (database, normalised gold SQL): one question of every
    group of two or more goes to test, the others to the bank; a question alone in
    its group goes to either side (coin flip): the test then holds questions the
    bank cannot answer, which should be refused."""
    rng = random.Random(seed)
    groups: dict[tuple[str, str], list[dict]] = {}
    for item in items:
        groups.setdefault((item["db_id"], _norm_sql(item["query"])), []).append(item)
    bank, test = [], []
    for key in sorted(groups):
        members = groups[key][:]
        rng.shuffle(members)
        if len(members) == 1:
            (bank if rng.random() < 0.5 else test).append(members[0])
        else:
            test.append(members[0])
            bank.extend(members[1:])
    return bank, test


def values_split(items: list[dict], seed: int = 0) -> tuple[list[dict], list[dict]]:
    """Templates with several value variants: questions grouped by (database, SQL
    skeleton); in groups holding two or more different SQL, the questions of one
    SQL go to the bank and those of the others to test (new values for a known
    template)."""
    from example_bank.skeleton import sql_skeleton

    rng = random.Random(seed)
    groups: dict[tuple[str, str], dict[str, list[dict]]] = {}
    for item in items:
        try:
            sk = sql_skeleton(item["query"], "sqlite")
        except Exception:
            continue
        groups.setdefault((item["db_id"], sk), {}).setdefault(_norm_sql(item["query"]), []).append(item)
    bank, test = [], []
    for key in sorted(groups):
        variants = groups[key]
        if len(variants) < 2:
            continue
        names = sorted(variants)
        rng.shuffle(names)
        bank.extend(variants[names[0]])
        for name in names[1:]:
            test.extend(variants[name])
    return bank, test


def make_splits(dataset_dir: str | Path, out_dir: str | Path, seed: int = 0) -> dict[str, Any]:
    """Write ``dev_paraphrase_{bank,test}.json`` (from dev.json) and
    ``train_values_{bank,test}.json`` (from train_spider_compact.json, when present)."""
    root, out = Path(dataset_dir), Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    report: dict[str, Any] = {}

    def write(name: str, rows: list[dict]) -> None:
        slim = [{"question": r["question"], "query": r["query"], "db_id": r["db_id"]} for r in rows]
        (out / name).write_text(json.dumps(slim, indent=0, ensure_ascii=False), encoding="utf-8")
        report[name] = len(slim)

    dev = json.loads((root / "dev.json").read_text(encoding="utf-8"))
    bank, test = paraphrase_split(dev, seed)
    write("dev_paraphrase_bank.json", bank)
    write("dev_paraphrase_test.json", test)
    train_path = root / "train_spider_compact.json"
    if train_path.is_file():
        train = json.loads(train_path.read_text(encoding="utf-8"))
        have = {p.name for p in (root / "database").iterdir()} if (root / "database").is_dir() else set()
        train = [t for t in train if t["db_id"] in have]
        bank, test = values_split(train, seed)
        write("train_values_bank.json", bank)
        write("train_values_test.json", test)
    return report


def _main(argv: Sequence[str] | None = None) -> None:
    import argparse

    parser = argparse.ArgumentParser(prog="python -m sqlgenie.inference.eval_bank")
    sub = parser.add_subparsers(dest="cmd", required=True)
    sp = sub.add_parser("split", help="write bank/test question files for eval bank")
    sp.add_argument("--dataset", default=str(get_settings().benchdata_dir / "spider"))
    sp.add_argument("--out", required=True)
    sp.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    print(json.dumps(make_splits(args.dataset, args.out, args.seed)))


if __name__ == "__main__":  # pragma: no cover
    _main()
