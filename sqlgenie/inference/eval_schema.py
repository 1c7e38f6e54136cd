"""``sqlgenie eval schema``: how well schema pruning keeps the columns a question needs.

For each question of a Spider-layout dataset (default ``dev.json``) the gold query's
tables and columns (sqlglot ``qualify`` via :func:`sqlgenie.eval.metrics.used_schema_items`,
on the gold transpiled to PostgreSQL) are compared with what
:class:`~sqlgenie.inference.pruning.SchemaPruner` keeps. Every database is loaded by
the eval harness (``--keys keep`` by default, as ``eval load``: the databases as
published, whose declared primary and foreign keys onboarding reads first; ``--keys
drop`` leaves every key to onboarding's inference, the harder variant) and onboarded
with no LLM (synonyms from names, joins with costs,
value caches) unless its catalog already exists. No example bank is used (Spider
dev databases have no examples).

Summary keys: ``questions``, ``column_recall`` (micro: kept gold columns / gold columns),
``column_precision`` (micro), ``table_recall`` (micro), ``kept_fraction`` (mean over
questions of kept columns / columns of the database), ``full_coverage_rate`` (share of
questions with every gold column kept), ``prompt_tokens_ratio`` (mean over questions of
the pruned schema prompt's tokens over the full schema prompt's), their per-question
means (``*_macro``), timings, and ``curve``: the same figures for a few other δ (scores are computed once).

``python -m sqlgenie.inference.eval_schema fit`` refits the pruning weights on Spider
*train* (``train_spider_compact.json``, plus a copy of its questions with schema words
replaced by WordNet synonyms unless ``--no-synonyms``; needs the WordNet files, see
:mod:`~sqlgenie.inference.eval_variants`): a weighted logistic regression (join columns
left out), with the ``log_db_cols`` weight then raised by :data:`SIZE_WEIGHT` (see
:func:`fit_weights`). The operating point is chosen on *out-of-fold* train scores
(5 folds by database, so every score comes from a model that never saw that
database): the largest δ whose column recall on the original questions reaches
:data:`TARGET_RECALL`, the questions pruned *with* their value links as asking prunes them
(:func:`design_items`; ``--no-value-links`` for the items without, the behaviour before);
the bias is
then re-centred so that the default δ (0.30) is that point. It prints the weights for
``pruning.WEIGHTS``, the out-of-fold figures (overall and per fold) and curve, and how
far a benchmark of 20 train databases would read that point
(:mod:`~sqlgenie.inference.operating_spread`; ``eval schema``'s ``database_spread`` is the
same over the run's own databases, resampled with replacement).
"""

from __future__ import annotations

import json
import math
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

import numpy as np

from sqlgenie.config import Settings, get_settings
from sqlgenie.errors import InputError
from sqlgenie.eval.tasks import TaskResult

Progress = Callable[[int, int], None]

DEFAULT_CURVE = (0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5, 0.6, 0.7)
#: Added to the fitted ``log_db_cols`` weight. ``kept_fraction`` averages kept / all
#: columns over questions, so a column of an n-column schema costs 1/n of it; with
#: calibrated scores the best columns to keep for a given recall are those with
#: p ≥ c / n, i.e. the logit plus ln n above a constant: one more unit of weight on
#: ln(columns). (Cross-validated on train: 0.75, 1 and 1.25 are within 0.003 kept.)
SIZE_WEIGHT = 1.0
#: Column recall the default δ reaches on out-of-fold train scores. Chosen on train so
#: that recall (≥ 0.98) and kept fraction (≤ 0.40) clear their targets by about the same
#: number of fold-to-fold standard deviations (recall ±0.0035, kept ±0.016 across the 5
#: folds): out of fold, recall 0.98 keeps 0.336, 0.984 keeps 0.373 (0.381 before the rank features).
TARGET_RECALL = 0.984

__all__ = ["eval_schema", "prepare_catalogs", "gold_items", "collect", "design_items", "summarize"]


# --- data preparation ----------------------------------------------------------------------


def prepare_catalogs(dataset: Any, settings: Settings, db_ids: Iterable[str], *, keys: str = "drop",
                     reonboard: bool = False, progress: Progress | None = None,
                     schema_only: bool = False) -> dict[str, Any]:
    """Load the databases (cached by the harness) and onboard (no LLM) every schema
    whose catalog is missing or whose data was just (re)loaded; returns db_id -> Catalog."""
    from onboarding import catalog_writer
    from onboarding.service import OnboardOptions, onboard_schema
    from sqlgenie.catalog import load_catalog
    from sqlgenie.eval.tasks import load_dataset
    from sqlgenie.store import connect_store, open_connection, target_url

    ids = sorted(set(db_ids))
    url = target_url(settings)
    loaded = load_dataset(dataset, url, dbs=set(ids), keys=keys)
    fresh = {r["db_id"] for r in loaded.records if r["status"] != "cached"}
    options = OnboardOptions(llm=None, measure_indexes=False)
    catalogs: dict[str, Any] = {}
    with connect_store(settings) as store, open_connection(url, autocommit=True) as target:
        store.commit()
        store.autocommit = True
        for i, db_id in enumerate(ids):
            schema = dataset.schema_name(db_id)
            if schema_only:
                from sqlgenie.inference.eval_variants import empty_schema

                if empty_schema(target, schema):
                    fresh.add(db_id)
            have = store.execute("SELECT count(*) FROM sqlgenie.catalog_tables WHERE schema_name = %s",
                                 (schema,)).fetchone()[0]
            if reonboard or db_id in fresh or not have:
                catalog_writer.forget_tables(store, schema)
                onboard_schema(schema, settings=settings, options=options, target=target, store=store, provider=None)
            catalogs[db_id] = load_catalog(store, schemas=[schema], search_path=(schema,))
            if progress:
                progress(i + 1, len(ids))
    return catalogs


def gold_items(gold_sql: str, catalog: Any, *, dialect: str = "sqlite") -> tuple[set[str], set[tuple[str, str]]] | None:
    """Qualified tables and (qualified table, column) pairs the gold query uses; None
    when it cannot be transpiled or parsed."""
    from sqlgenie.eval.gold import TranspileError, transpile_sqlite
    from sqlgenie.eval.metrics import used_schema_items

    schema = catalog.tables[0].schema if catalog.tables else "public"
    types = {t.name: {c.name: c.data_type for c in t.columns} for t in catalog.tables}
    sql = gold_sql
    if dialect == "sqlite":
        try:
            sql = transpile_sqlite(gold_sql, types).sql
        except TranspileError:
            return None
    try:
        items = used_schema_items(sql, {t: list(cols) for t, cols in types.items()})
    except ValueError:
        return None
    tables = {f"{schema}.{t}" for t in items.tables}
    columns = {(f"{schema}.{t}", c) for t, c in items.columns}
    return tables, columns


# --- scoring once, selecting at many thresholds ------------------------------------------------------


@dataclass
class Scored:
    index: int
    db_id: str
    question: str
    gold_tables: set[str]
    gold_columns: set[tuple[str, str]]
    total_columns: int
    features: np.ndarray
    signals: dict[str, np.ndarray]
    hits: list
    ms: float  # features + scoring time (+ value linking when linked)
    links: list = field(default_factory=list)  # value links (kept columns of linked values)
    alternatives: list = field(default_factory=list)  # other acceptable gold (tables, columns) (Defog)


def collect(dataset: Any, questions: Sequence[Any], pruners: dict[str, Any], catalogs: dict[str, Any],
            progress: Progress | None = None, linkers: dict[str, Any] | None = None,
            ) -> tuple[list[Scored], list[dict[str, Any]]]:
    """Features of every question (one question embedding each) and its gold items;
    with ``linkers`` (db_id -> :class:`ValueLinker`) also its value links, ranked by
    the pruner's column scores."""
    out: list[Scored] = []
    skipped: list[dict[str, Any]] = []
    for n, q in enumerate(questions):
        catalog = catalogs[q.db_id]
        alternatives = []
        if q.gold_dialect == "postgres":
            from sqlgenie.eval.defog import expand_gold

            golds = [g for g in (gold_items(x, catalog, dialect="postgres") for x in expand_gold(q.gold_sql))
                     if g is not None and g[1]]
            gold, alternatives = (golds[0], golds[1:]) if golds else (None, [])
        else:
            gold = gold_items(q.gold_sql, catalog, dialect=q.gold_dialect)
        if gold is None:
            skipped.append({"index": q.index, "db_id": q.db_id, "skipped": "gold not parsed"})
            continue
        pruner = pruners[q.db_id]
        t0 = time.perf_counter()
        X, signals, hits = pruner.features(q.question)
        links: list = []
        if linkers is not None and q.db_id in linkers:
            prior = dict(zip(pruner.col_keys, (float(x) for x in pruner.score(X))))
            links = linkers[q.db_id].link(q.question, column_scores=prior)
        ms = (time.perf_counter() - t0) * 1000
        out.append(Scored(q.index, q.db_id, q.question, gold[0], gold[1],
                          sum(len(t.columns) for t in catalog.tables), X, signals, hits, ms, links, alternatives))
        if progress:
            progress(n + 1, len(questions))
    return out, skipped


def design_items(dataset: Any, questions: Sequence[Any], pruners: dict[str, Any], catalogs: dict[str, Any],
                 settings: Settings, *, value_links: bool = True, progress: Progress | None = None,
                 ) -> tuple[list[Scored], list[dict[str, Any]]]:
    """The fit's design items (:func:`collect`), by default *with* value links, as asking
    (:func:`~sqlgenie.inference.value_linking.link_and_prune`) and ``eval schema`` prune: a
    linked value keeps its column and protects its table from the admission rule, so the
    operating point δ read on these items is the one asking meets. The links do not
    change the features (the weights fitted on them are the same), only what
    :meth:`SchemaPruner.select` keeps at a δ. ``value_links=False``: the items without
    links (``fit --no-value-links``, the behaviour before)."""
    linkers = _make_linkers(catalogs, settings) if value_links else None
    return collect(dataset, questions, pruners, catalogs, progress=progress, linkers=linkers)


def _select(pruner: Any, s: Scored, scores: np.ndarray, delta: float):
    return pruner.select(s.question, scores, s.signals, s.hits, delta, value_links=s.links)


_TOKEN = re.compile(r"[A-Za-z]+|[0-9]+|[^\sA-Za-z0-9]")


def prompt_tokens(text: str) -> int:
    """Tokens of a prompt text, counted as a BPE tokenizer roughly does on schema text:
    each run of letters, each run of digits and each punctuation mark is one (identifiers
    split at ``_``). Only ratios of such counts are reported."""
    return len(_TOKEN.findall(text))


def full_schema_tokens(pruner: Any, cache: dict[str, int]) -> int:
    """Tokens of the schema prompt with every table, column and join of the catalog."""
    from sqlgenie.inference.pruning import PrunedSchema

    key = id(pruner)
    if key not in cache:
        cat = pruner.catalog
        full = PrunedSchema(tables={t.qualified: [c.name for c in t.columns] for t in cat.tables},
                            scores=[], joins=[j for j in cat.joins if j.status == "accepted"], value_hits={})
        cache[key] = prompt_tokens(full.render(cat))
    return cache[key]


def summarize(items: Sequence[Scored], pruners: dict[str, Any], delta: float,
              scores: Sequence[np.ndarray] | None = None, *, records: list | None = None,
              tokens: bool = False) -> dict[str, Any]:
    """Metrics at threshold ``delta`` (``scores``: per-item column scores, default the pruners' model);
    with ``tokens`` also ``prompt_tokens_ratio``: mean over questions of the pruned schema
    prompt's tokens (:meth:`PrunedSchema.render`, without the question's values) over the
    full schema prompt's (every table, column and accepted join)."""
    tp = gold_n = kept_n = t_tp = t_gold = full = full_t = 0
    fracs, recalls, precisions, ms, ratios = [], [], [], [], []
    full_tokens: dict[str, int] = {}
    for k, s in enumerate(items):
        pruner = pruners[s.db_id]
        sc = scores[k] if scores is not None else pruner.score(s.features)
        t0 = time.perf_counter()
        pruned = _select(pruner, s, sc, delta)
        ms.append(s.ms + (time.perf_counter() - t0) * 1000)
        kept = {(t.lower(), c.lower()) for t, c in pruned.kept_columns()}
        gold = {(t.lower(), c.lower()) for t, c in s.gold_columns}
        kept_t = {t.lower() for t in pruned.tables}
        if s.alternatives:  # any acceptable gold query: the one whose columns are best kept
            options = [(s.gold_tables, s.gold_columns)] + list(s.alternatives)
            best = max(options, key=lambda o: (len({(t.lower(), c.lower()) for t, c in o[1]} & kept)
                                               / max(len(o[1]), 1), -len(o[1])))
            gold = {(t.lower(), c.lower()) for t, c in best[1]}
            gold_t = {t.lower() for t in best[0]}
        else:
            gold_t = {t.lower() for t in s.gold_tables}
        hit = len(gold & kept)
        tp += hit
        gold_n += len(gold)
        kept_n += len(kept)
        t_tp += len(gold_t & kept_t)
        t_gold += len(gold_t)
        ok = gold <= kept
        full += ok
        full_t += ok and gold_t <= kept_t
        fracs.append(len(kept) / s.total_columns if s.total_columns else 0.0)
        if tokens:
            from dataclasses import replace as _replace

            whole = full_schema_tokens(pruner, full_tokens)
            ratios.append(prompt_tokens(_replace(pruned, value_hits={}).render(pruner.catalog)) / whole
                          if whole else 1.0)
        recalls.append(hit / len(gold) if gold else 1.0)
        precisions.append(hit / len(kept) if kept else (1.0 if not gold else 0.0))
        if records is not None:
            records.append({
                "index": s.index, "db_id": s.db_id, "question": s.question,
                "gold_columns": len(gold), "kept_columns": len(kept), "total_columns": s.total_columns,
                "recall": round(recalls[-1], 4), "full_coverage": ok,
                "missed": sorted(f"{t}.{c}" for t, c in s.gold_columns if (t.lower(), c.lower()) not in kept),
                "missed_tables": sorted(t for t in s.gold_tables if t.lower() not in kept_t),
                "kept": {t: cols for t, cols in pruned.tables.items()},
                "value_hits": pruned.value_hits,
                "ms": round(ms[-1], 2),
            })
    n = len(items)
    mean = (lambda xs: sum(xs) / len(xs)) if n else (lambda xs: 0.0)
    return {
        "threshold": round(delta, 4),
        "questions": n,
        "column_recall": round(tp / gold_n, 4) if gold_n else 1.0,
        "column_precision": round(tp / kept_n, 4) if kept_n else 0.0,
        "table_recall": round(t_tp / t_gold, 4) if t_gold else 1.0,
        "kept_fraction": round(mean(fracs), 4),
        "full_coverage_rate": round(full / n, 4) if n else 0.0,
        "full_coverage_rate_with_tables": round(full_t / n, 4) if n else 0.0,
        "column_recall_macro": round(mean(recalls), 4),
        "column_precision_macro": round(mean(precisions), 4),
        "kept_fraction_micro": round(kept_n / sum(s.total_columns for s in items), 4) if n else 0.0,
        "prune_ms_p50": round(float(np.percentile(ms, 50)), 2) if ms else 0.0,
        "prune_ms_p95": round(float(np.percentile(ms, 95)), 2) if ms else 0.0,
        **({"prompt_tokens_ratio": round(mean(ratios), 4)} if tokens else {}),
    }


def _make_pruners(catalogs: dict[str, Any], settings: Settings, threshold: float | None,
                  weights: dict[str, float] | None = None) -> dict[str, Any]:
    from example_bank.embedder import get_embedder
    from sqlgenie.inference.pruning import SchemaPruner
    from sqlgenie.store import connect_store

    embedder = get_embedder(settings.embedding_model)
    out = {}
    with connect_store(settings) as store:
        for db_id, catalog in catalogs.items():
            out[db_id] = SchemaPruner(catalog, embedder=embedder, value_matcher=store, threshold=threshold,
                                      settings=settings, weights=weights)
            if out[db_id].values is not None:
                out[db_id].values.conn = None  # caches are loaded; no per-question store round trip
    return out


def with_defog_descriptions(dataset: Any, db_id: str, catalog: Any) -> Any:
    """The catalog with the column descriptions of Defog's ``<db>.json`` (as a person
    would set them with ``sqlgenie columns set --description``)."""
    import json as _json
    from dataclasses import replace

    from sqlgenie.catalog import Catalog

    path = Path(dataset.root) / "defog-data" / db_id / f"{db_id}.json"
    if not path.is_file():
        return catalog
    meta = _json.loads(path.read_text(encoding="utf-8")).get("table_metadata", {})
    desc = {t.lower(): {c["column_name"].lower(): (c.get("column_description") or "").strip() for c in cols}
            for t, cols in meta.items()}
    tables = []
    for t in catalog.tables:
        d = desc.get(t.name.lower(), {})
        cols = tuple(replace(c, description=d.get(c.name.lower()) or c.description) for c in t.columns)
        tables.append(replace(t, columns=cols))
    return Catalog(tuple(tables), catalog.joins, catalog.search_path)


def _make_linkers(catalogs: dict[str, Any], settings: Settings) -> dict[str, Any]:
    """Value linkers (cache only, no probes: the pruning figures stay independent of
    the target database's speed)."""
    from sqlgenie.inference.value_linking import ValueLinker
    from sqlgenie.store import connect_store

    with connect_store(settings) as store:
        out = {db_id: ValueLinker(catalog, store) for db_id, catalog in catalogs.items()}
    for linker in out.values():
        linker.store = None  # caches are loaded
    return out


def _questions(dataset: Any, questions_file: str | None, dbs: set[str] | None, limit: int | None):
    from sqlgenie.eval.datasets import SpiderDataset
    from sqlgenie.eval.tasks import select_questions

    from sqlgenie.eval.datasets import DefogDataset

    if not isinstance(dataset, (SpiderDataset, DefogDataset)):
        raise InputError("eval schema needs a Spider- or Defog-layout dataset.")
    return select_questions(dataset, questions_file, dbs, limit)


def eval_schema(
    dataset_dir: str | Path | None = None,
    *,
    settings: Settings | None = None,
    questions_file: str | None = None,
    dbs: set[str] | None = None,
    limit: int | None = None,
    threshold: float | None = None,
    keys: str = "keep",
    reonboard: bool = False,
    curve: Sequence[float] = DEFAULT_CURVE,
    progress: Progress | None = None,
    values: bool = True,
    variant: str = "none",
) -> TaskResult:
    """Run the pruning evaluation; summary keys listed in the module doc, one record
    per question (``index`` = position in the questions file)."""
    from sqlgenie.eval.datasets import open_dataset

    settings = settings or get_settings()
    if keys not in ("keep", "drop"):
        raise InputError(f"--keys must be keep or drop, not {keys!r}.")
    started = time.perf_counter()
    dataset = open_dataset(dataset_dir if dataset_dir is not None else settings.benchdata_dir / "spider")
    from sqlgenie.inference.eval_variants import SYNONYM_VARIANTS, VARIANTS, schema_only_dataset, synonym_questions

    if variant not in VARIANTS:
        raise InputError(f"--variant must be one of {', '.join(VARIANTS)}, not {variant!r}.")
    wordnet = None
    if variant in SYNONYM_VARIANTS:
        # before any loading: a missing thesaurus stops at once, with what to install
        wordnet = SYNONYM_VARIANTS[variant]()
    questions, skipped = _questions(dataset, questions_file, dbs, limit)
    needed = {q.db_id for q in questions}
    if variant == "schema-only":
        dataset = schema_only_dataset(dataset)
    catalogs = prepare_catalogs(dataset, settings, needed, keys=keys, reonboard=reonboard,
                                schema_only=variant == "schema-only")
    from sqlgenie.eval.datasets import DefogDataset

    if isinstance(dataset, DefogDataset):
        catalogs = {db: with_defog_descriptions(dataset, db, cat) for db, cat in catalogs.items()}
    variant_info: dict[str, Any] = {"variant": variant}
    if variant in SYNONYM_VARIANTS:
        questions, changed, words = synonym_questions(questions, catalogs, wordnet)
        variant_info.update(questions_changed=changed, words_replaced=words)
    prep_s = time.perf_counter() - started
    t0 = time.perf_counter()
    pruners = _make_pruners(catalogs, settings, threshold)
    setup_s = time.perf_counter() - t0
    linkers = _make_linkers(catalogs, settings) if values else None
    items, not_parsed = collect(dataset, questions, pruners, catalogs, progress=progress, linkers=linkers)
    delta = float(threshold if threshold is not None else settings.prune_threshold)
    records: list[dict[str, Any]] = []
    summary = {"task": "schema", **summarize(items, pruners, delta, records=records, tokens=True)}
    if records:  # bootstrap over the run's own databases: how much its figures could move
        from sqlgenie.inference.operating_spread import database_spread, target_for

        summary["database_spread"] = database_spread(
            records, **target_for(variant, defog=isinstance(dataset, DefogDataset)))
    summary["curve"] = [
        {k: v for k, v in summarize(items, pruners, d).items()
         if k in ("threshold", "column_recall", "column_precision", "table_recall", "kept_fraction", "full_coverage_rate")}
        for d in curve
    ]
    summary.update({
        **variant_info,
        "values": values,
        "keys": keys,
        "databases": len(needed),
        "skipped": len(skipped) + len(not_parsed),
        "prepare_seconds": round(prep_s, 2),
        "pruner_setup_seconds": round(setup_s, 2),
        "seconds": round(time.perf_counter() - started, 2),
    })
    return TaskResult(summary, records + skipped + not_parsed)


# --- fitting (offline, Spider train) -----------------------------------------------------------------


def _gold_mask(pruner: Any, s: Scored) -> np.ndarray:
    gold = {(t.lower(), c.lower()) for t, c in s.gold_columns}
    return np.asarray([(t.qualified.lower(), c.name.lower()) in gold for t, c in pruner.cols], dtype=bool)


def _logistic(X: np.ndarray, y: np.ndarray, sample_weight: np.ndarray, l2: float, iters: int = 60) -> np.ndarray:
    """L2-regularised weighted logistic regression by Newton's method (intercept first, not penalised)."""
    Xb = np.hstack([np.ones((len(X), 1)), X])
    w = np.zeros(Xb.shape[1])
    reg = np.eye(Xb.shape[1]) * l2
    reg[0, 0] = 0.0
    for _ in range(iters):
        p = 1.0 / (1.0 + np.exp(-np.clip(Xb @ w, -30, 30)))
        g = Xb.T @ (sample_weight * (p - y)) + reg @ w
        H = (Xb.T * (sample_weight * p * (1 - p))) @ Xb + reg
        step = np.linalg.solve(H, g)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    return w


def fit_weights(items: Sequence[Scored], pruners: dict[str, Any], *, positive_weight: float = 3.0,
                l2: float = 1.0, size_weight: float = SIZE_WEIGHT) -> dict[str, float]:
    """Logistic regression of "the gold query uses this column" on the pruning features.

    Join columns (``is_join``) are left out of the fit: the join tree adds the ones a
    query needs between kept tables, and fitting them too would teach the model to
    keep every key. Gold columns weigh ``positive_weight`` (recall matters more).
    ``size_weight`` is then added to the ``log_db_cols`` weight (:data:`SIZE_WEIGHT`)."""
    from sqlgenie.inference.pruning import FEATURES

    ij = FEATURES.index("is_join")
    use = [i for i, f in enumerate(FEATURES) if f != "is_join"]
    xs, ys = [], []
    for s in items:
        keep = s.features[:, ij] == 0
        xs.append(s.features[keep][:, use])
        ys.append(_gold_mask(pruners[s.db_id], s)[keep])
    X = np.concatenate(xs).astype(np.float64)
    y = np.concatenate(ys).astype(np.float64)
    w = _logistic(X, y, np.where(y > 0, positive_weight, 1.0), l2)
    out = {"bias": float(w[0]), **{f: 0.0 for f in FEATURES}}
    out.update({FEATURES[i]: float(v) for i, v in zip(use, w[1:])})
    out["log_db_cols"] += size_weight
    return out


def cross_validate(items: Sequence[Scored], pruners: dict[str, Any], *, folds: int = 5, seed: int = 0,
                   **fit_options: Any) -> tuple[list[np.ndarray], list[int]]:
    """Out-of-fold column scores: the databases are dealt into ``folds`` groups and each
    group is scored by weights fitted on the others. Returns the scores and each
    item's fold."""
    dbs = sorted({s.db_id for s in items})
    np.random.RandomState(seed).shuffle(dbs)
    fold_of = {db: i % folds for i, db in enumerate(dbs)}
    item_fold = [fold_of[s.db_id] for s in items]
    scores: list[np.ndarray] = [np.zeros(0)] * len(items)
    for f in range(folds):
        weights = fit_weights([s for s, k in zip(items, item_fold) if k != f], pruners, **fit_options)
        held = [i for i, k in enumerate(item_fold) if k == f]
        for i, sc in zip(held, model_scores([items[i] for i in held], weights)):
            scores[i] = sc
    return scores, item_fold


def fold_weights(items: Sequence[Scored], pruners: dict[str, Any], *, folds: int = 5, seed: int = 0,
                 **fit_options: Any) -> tuple[list[dict[str, float]], dict[str, int]]:
    """The weights of each fold of :func:`cross_validate` (same folds) and each database's fold."""
    dbs = sorted({s.db_id for s in items})
    np.random.RandomState(seed).shuffle(dbs)
    fold_of = {db: i % folds for i, db in enumerate(dbs)}
    return [fit_weights([s for s in items if fold_of[s.db_id] != f], pruners, **fit_options)
            for f in range(folds)], fold_of


def no_values_bias(items: Sequence[Scored], pruners: dict[str, Any], so_items: Sequence[Scored],
                   so_pruners: dict[str, Any], weights: list[dict[str, float]], fold_of: dict[str, int],
                   target_recall: float = TARGET_RECALL) -> dict[str, Any]:
    """The no-values bias shift (:data:`~sqlgenie.inference.pruning.NO_VALUES_BIAS`), out of fold:
    δ* is where the original questions reach ``target_recall`` (as :func:`main` ``fit``); the
    shift is the one at which the same questions over schema-only copies (``so_items``: rows
    removed) keep the share the originals keep at δ* (rule: the same kept share as with values)."""
    from sqlgenie.inference.pruning import SITUATION_BIAS

    def scores(xs: Sequence[Scored], b: float, shifted: Callable[[str], bool] = lambda db: True) -> list[np.ndarray]:
        out = []
        for s in xs:
            w = weights[fold_of[s.db_id]]
            out.append(model_scores([s], {**w, "bias": w["bias"] + (b if shifted(s.db_id) else 0.0)})[0])
        return out

    # only the situation the shift is for: copies without any join between several tables
    # keep their own (fixed) bias, SITUATION_BIAS["no_values_no_joins"]
    assert SITUATION_BIAS["no_values_no_joins"] == 0.0
    no_joins = {db for db, p in so_pruners.items() if getattr(p, "situation", "no_values") == "no_values_no_joins"}

    keep = ("column_recall", "kept_fraction", "full_coverage_rate")
    delta, at = choose_threshold(items, pruners, scores(items, 0.0), target_recall)
    ref = at["kept_fraction"]
    shifted = lambda db: db not in no_joins  # noqa: E731
    before = summarize(so_items, so_pruners, delta, scores(so_items, 0.0))
    lo, hi = -2.0, 2.0  # kept falls as the shift goes down
    for _ in range(14):
        mid = (lo + hi) / 2
        if summarize(so_items, so_pruners, delta, scores(so_items, mid, shifted))["kept_fraction"] <= ref:
            lo = mid
        else:
            hi = mid
    after = summarize(so_items, so_pruners, delta, scores(so_items, lo, shifted))
    return {"delta": round(delta, 4), "originals": {k: at[k] for k in keep},
            "schema_only_no_shift": {k: before[k] for k in keep}, "no_values_bias": round(lo, 4),
            "schema_only_with_shift": {k: after[k] for k in keep},
            "databases": len(so_pruners), "databases_without_joins": len(no_joins)}


def model_scores(items: Sequence[Scored], weights: dict[str, float]) -> list[np.ndarray]:
    from sqlgenie.inference.pruning import FEATURES

    w = np.asarray([weights.get(f, 0.0) for f in FEATURES], dtype=np.float64)
    return [1.0 / (1.0 + np.exp(-np.clip(s.features @ w + weights["bias"], -30, 30))) for s in items]


def choose_threshold(items: Sequence[Scored], pruners: dict[str, Any], scores: Sequence[np.ndarray],
                     target_recall: float) -> tuple[float, dict[str, Any]]:
    """Largest δ whose column recall on ``items`` is at least ``target_recall``
    (bisection on the logit scale; recall falls as δ rises)."""
    lo, hi = math.log(0.001 / 0.999), math.log(0.95 / 0.05)
    best = None
    for _ in range(16):
        mid = (lo + hi) / 2
        d = 1.0 / (1.0 + math.exp(-mid))
        r = summarize(items, pruners, d, scores)
        if r["column_recall"] >= target_recall:
            best, lo = (d, r), mid
        else:
            hi = mid
    if best is None:
        raise ValueError(f"no threshold reaches column recall {target_recall}")
    return best


def benchmark_spread(items: Sequence[Scored], pruners: dict[str, Any], delta: float,
                     scores: Sequence[np.ndarray]) -> dict[str, Any]:
    """How far a benchmark of :data:`~sqlgenie.inference.operating_spread.BENCHMARK_DATABASES`
    of these databases (drawn whole, without replacement) would read the point δ
    (:func:`~sqlgenie.inference.operating_spread.database_spread`)."""
    from sqlgenie.inference.operating_spread import BENCHMARK_DATABASES, database_spread

    records: list[dict[str, Any]] = []
    summarize(items, pruners, delta, scores, records=records)
    return database_spread(records, databases=min(BENCHMARK_DATABASES, len({s.db_id for s in items})),
                           replace=False)


def recentre(weights: dict[str, float], delta: float, default: float) -> dict[str, float]:
    """Shift the bias so that a score of ``default`` means what ``delta`` meant (monotone)."""
    out = dict(weights)
    out["bias"] = weights["bias"] + math.log(default / (1 - default)) - math.log(delta / (1 - delta))
    return out


def main(argv: list[str] | None = None) -> None:
    """``python -m sqlgenie.inference.eval_schema fit``: refit WEIGHTS on Spider train,
    choose δ on out-of-fold scores for the target recall and re-centre the bias so that
    ``--default`` (the settings' ``prune_threshold``) is that operating point; prints
    WEIGHTS, the out-of-fold figures and curve. ``no-values``: the same folds, then
    :func:`no_values_bias` over schema-only copies of the same databases (declared keys)."""
    import argparse

    ap = argparse.ArgumentParser(prog="python -m sqlgenie.inference.eval_schema")
    ap.add_argument("command", choices=["fit", "no-values"],
                    help="fit: WEIGHTS and δ; no-values: NO_VALUES_BIAS on schema-only copies (declared keys)")
    ap.add_argument("--dataset", default=None)
    ap.add_argument("--questions", default="train_spider_compact.json")
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--l2", type=float, default=1.0)
    ap.add_argument("--positive-weight", type=float, default=3.0)
    ap.add_argument("--size-weight", type=float, default=SIZE_WEIGHT)
    ap.add_argument("--target-recall", type=float, default=TARGET_RECALL)
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--default", type=float, default=0.30)
    ap.add_argument("--keys", default="drop")
    ap.add_argument("--value-links", action=argparse.BooleanOptionalAction, default=True,
                    help="collect the design items with value links, as asking prunes (design_items); "
                         "--no-value-links: without, the behaviour before")
    ap.add_argument("--synonyms", action=argparse.BooleanOptionalAction, default=True,
                    help="also fit on a copy of the questions with schema words replaced by WordNet "
                         "synonyms (eval_variants); δ is still chosen on the original questions")
    args = ap.parse_args(argv)
    from sqlgenie.eval.datasets import open_dataset

    keep = ("threshold", "column_recall", "kept_fraction", "full_coverage_rate", "column_precision", "table_recall")
    settings = get_settings()
    dataset = open_dataset(args.dataset or settings.benchdata_dir / "spider")
    questions, _ = _questions(dataset, args.questions, None, args.limit)
    catalogs = prepare_catalogs(dataset, settings, {q.db_id for q in questions}, keys=args.keys)
    pruners = _make_pruners(catalogs, settings, None)
    links = args.value_links
    items, _ = design_items(dataset, questions, pruners, catalogs, settings, value_links=links)
    extra: list[Scored] = []
    if args.synonyms:
        from sqlgenie.inference.eval_variants import synonym_questions

        extra, _ = design_items(dataset, synonym_questions(questions, catalogs)[0], pruners, catalogs, settings,
                                value_links=links)
    options = {"positive_weight": args.positive_weight, "l2": args.l2, "size_weight": args.size_weight}
    if args.command == "no-values":
        from sqlgenie.inference.eval_variants import schema_only_dataset

        weights_f, fold_of = fold_weights(items + extra, pruners, folds=args.folds, **options)
        so_data = schema_only_dataset(dataset)
        # declared keys: without rows onboarding infers no join at all (as `eval schema --variant schema-only`)
        so_catalogs = prepare_catalogs(so_data, settings, {q.db_id for q in questions}, keys="keep", schema_only=True)
        so_pruners = _make_pruners(so_catalogs, settings, None)
        so_items, _ = design_items(so_data, questions, so_pruners, so_catalogs, settings, value_links=links)
        print(json.dumps({**no_values_bias(items, pruners, so_items, so_pruners, weights_f, fold_of,
                                           args.target_recall), "value_links": links}))
        return
    oof, item_fold = cross_validate(items + extra, pruners, folds=args.folds, **options)
    syn_oof = oof[len(items):]
    oof, item_fold = oof[:len(items)], item_fold[:len(items)]
    delta, at = choose_threshold(items, pruners, oof, args.target_recall)
    spread = benchmark_spread(items, pruners, delta, oof)
    per_fold = []
    for f in range(args.folds):
        idx = [i for i, k in enumerate(item_fold) if k == f]
        r = summarize([items[i] for i in idx], pruners, delta, [oof[i] for i in idx])
        per_fold.append({k: r[k] for k in ("questions",) + keep})
    logit = math.log(delta / (1 - delta))
    around = [1.0 / (1.0 + math.exp(-(logit + k))) for k in (-1.0, -0.5, -0.25, 0.0, 0.25, 0.5, 1.0)]
    oof_curve = [{k: v for k, v in summarize(items, pruners, d, oof).items() if k in keep} for d in around]
    weights = recentre(fit_weights(items + extra, pruners, **options), delta, args.default)
    scores = model_scores(items, weights)
    print(json.dumps({
        "value_links": links,
        "weights": {k: round(v, 4) for k, v in weights.items()},
        "out_of_fold": {**{k: at[k] for k in keep}, "folds": per_fold,
                        "curve": oof_curve, "spread_of_benchmarks": spread},
        **({"out_of_fold_synonyms": {k: v for k, v in summarize(extra, pruners, delta, syn_oof).items()
                                     if k in keep}} if extra else {}),
        "train_at_default": {k: v for k, v in summarize(items, pruners, args.default, scores).items() if k in keep},
        "curve": [{k: v for k, v in summarize(items, pruners, d, scores).items() if k in keep} for d in DEFAULT_CURVE],
    }))


if __name__ == "__main__":
    main()
