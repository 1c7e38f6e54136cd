"""`sqlgenie eval retrieval`: template retrieval quality on Spider train.

For each question of ``train_spider_compact.json`` (7000 pairs over 140 databases)
the other pairs of the same database form the bank; the top-1 example is a hit
when its SQL skeleton equals the gold skeleton. Retrieval is done in memory with
numpy per database (exact cosine, what pgvector's exact search computes).

Rankings reported:

* ``skeleton_at1_masked`` - the bank's ranking (:class:`example_bank.retrieval.Retriever`):
  exact masked match first, then cosine of masked embeddings plus the small
  shared-value bonus (:func:`example_bank.retrieval.rank_score`);
* ``skeleton_at1_masked_cosine_only`` - exact masked match, then masked cosine only;
* ``skeleton_at1_unmasked`` - cosine of raw-question embeddings;
* ``skeleton_at1_unmasked_value_bonus`` - raw cosine plus the same value bonus (control);
* ``template_subset`` - questions whose gold template exists among the other pairs
  only with *different* SQL (different values): pairs with the identical SQL, i.e.
  Spider's paraphrases that repeat the same literal values, are excluded from the
  bank. This is the situation the bank exists for (same template, new values).

Register in the harness (owner of sqlgenie/cli/eval_cmd.py)::

    from example_bank.eval_retrieval import retrieval_command
    app.command("retrieval")(retrieval_command)

The last stdout line is one JSON object with ``questions``,
``skeleton_at1_masked``, ``skeleton_at1_unmasked``, ``margin`` and more.
"""

from __future__ import annotations

import json
import sys
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np
import typer

from example_bank.masking import SchemaVocabulary, mask_question
from example_bank.retrieval import VALUE_BONUS, embedding_text, span_values, value_overlap
from example_bank.skeleton import normalize_sql, parse_sql, sql_skeleton, sqlite_strings_to_literals
from sqlgenie.errors import InputError


@dataclass
class SpiderSchema:
    vocabulary: SchemaVocabulary
    columns: set[str]


def load_spider_schemas(tables_file: Path) -> dict[str, SpiderSchema]:
    """Schema vocabulary (original and natural names) and column names per db_id."""
    out: dict[str, SpiderSchema] = {}
    for db in json.loads(Path(tables_file).read_text(encoding="utf-8")):
        names = list(db.get("table_names_original", [])) + list(db.get("table_names", []))
        cols = [c[1] for c in db.get("column_names_original", []) if c[0] >= 0]
        names += cols + [c[1] for c in db.get("column_names", []) if c[0] >= 0]
        out[db["db_id"]] = SpiderSchema(SchemaVocabulary.from_names(names), {c.lower() for c in cols})
    return out


def spider_sql(sql: str, schema: SpiderSchema | None) -> tuple[str | None, str | None]:
    """(skeleton, normalised SQL) of a Spider gold query (SQLite), or Nones."""
    try:
        tree = parse_sql(sql, "sqlite")
        sqlite_strings_to_literals(tree, schema.columns if schema else None)
        return sql_skeleton(tree), normalize_sql(tree)
    except Exception:
        return None, None


def _ranked_top1(
    vectors: np.ndarray,
    keys: list[str] | None,
    values: list[set[str]] | None,
    bonus: float,
    excluded: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Best other item per row: exact key match first, then cosine + value bonus.
    Returns (index, cosine of the chosen item, with +2 when it was an exact match)."""
    sims = vectors @ vectors.T
    np.fill_diagonal(sims, -np.inf)
    if excluded is not None:
        sims[excluded] = -np.inf
    score = sims.copy()
    n = len(vectors)
    if values is not None and bonus:
        for i in range(n):
            if values[i]:
                for j in range(n):
                    if i != j and values[j]:
                        score[i, j] += bonus * value_overlap(values[i], values[j])
    if keys is not None:
        index: dict[str, list[int]] = defaultdict(list)
        for i, key in enumerate(keys):
            index[key].append(i)
        for members in index.values():
            for i in members:
                for j in members:
                    if i != j and np.isfinite(sims[i, j]):
                        score[i, j] = 3.0 + sims[i, j]  # an exact masked match outranks any score
    top = score.argmax(axis=1)
    chosen = score[np.arange(n), top]
    return top, chosen


def evaluate_retrieval(
    questions_file: Path,
    tables_file: Path,
    *,
    limit: int | None = None,
    encode: Callable[[list[str]], np.ndarray] | None = None,
    threshold: float = 0.75,
    value_bonus: float = VALUE_BONUS,
    progress: Callable[[str], None] | None = None,
) -> dict:
    """Compute skeleton@1 with and without masking (see the module docstring)."""
    started = time.perf_counter()
    if encode is None:
        from example_bank.embedder import get_embedder

        encode = get_embedder().encode
    pairs = json.loads(Path(questions_file).read_text(encoding="utf-8"))
    if limit:
        keep = set(sorted({p["db_id"] for p in pairs})[:limit])
        pairs = [p for p in pairs if p["db_id"] in keep]
    schemas = load_spider_schemas(tables_file)
    say = progress or (lambda _m: None)

    t0 = time.perf_counter()
    parsed = [spider_sql(p["query"], schemas.get(p["db_id"])) for p in pairs]
    skeletons = [x[0] for x in parsed]
    normalized = [x[1] for x in parsed]
    masked = [mask_question(p["question"], schemas[p["db_id"]].vocabulary if p["db_id"] in schemas else None) for p in pairs]
    mask_ms = (time.perf_counter() - t0) * 1000 / max(len(pairs), 1)
    say(f"masked and parsed {len(pairs)} pairs")
    unique_masked = sorted({embedding_text(m) for m in masked})
    vec_m = dict(zip(unique_masked, encode(unique_masked)))
    say("embedded masked questions")
    vec_u = encode([p["question"] for p in pairs])
    say("embedded raw questions")
    masked_values = [span_values(m.spans) for m in masked]

    by_db: dict[str, list[int]] = defaultdict(list)
    for i, p in enumerate(pairs):
        by_db[p["db_id"]].append(i)

    names = ("masked", "masked_cosine_only", "unmasked", "unmasked_value_bonus")
    hits = dict.fromkeys(names, 0)
    sub_hits = dict.fromkeys(("masked", "unmasked"), 0)
    counted = oracle = identical = exact = sub_n = above_t = above_t_hits = 0
    for members in by_db.values():
        if len(members) < 2:
            continue
        mv = np.stack([vec_m[embedding_text(masked[i])] for i in members])
        uv = vec_u[members]
        keys = [masked[i].key for i in members]
        vals = [masked_values[i] for i in members]
        sk = [skeletons[i] for i in members]
        nm = [normalized[i] for i in members]
        tops = {
            "masked": _ranked_top1(mv, keys, vals, value_bonus),
            "masked_cosine_only": _ranked_top1(mv, keys, None, 0.0),
            "unmasked": _ranked_top1(uv, None, None, 0.0),
            "unmasked_value_bonus": _ranked_top1(uv, None, vals, value_bonus),
        }
        # template subset: the identical SQL (paraphrases with the same values) is excluded
        same_sql = np.array([[a is not None and a == b for b in nm] for a in nm])
        sub = {
            "masked": _ranked_top1(mv, keys, None, 0.0, excluded=same_sql),
            "unmasked": _ranked_top1(uv, None, None, 0.0, excluded=same_sql),
        }
        for row, i in enumerate(members):
            counted += 1
            gold = sk[row]
            if gold is None:
                continue
            others = [s for c, s in enumerate(sk) if c != row]
            oracle += gold in others
            identical += any(nm[c] == nm[row] for c in range(len(members)) if c != row)
            for name in names:
                hits[name] += sk[tops[name][0][row]] == gold
            top_m, score_m = tops["masked"]
            exact += score_m[row] >= 3.0
            cosine = score_m[row] - 3.0 if score_m[row] >= 3.0 else float(mv[row] @ mv[top_m[row]])
            if cosine >= threshold or score_m[row] >= 3.0:
                above_t += 1
                above_t_hits += sk[top_m[row]] == gold
            if any(sk[c] == gold and not same_sql[row, c] for c in range(len(members)) if c != row):
                sub_n += 1
                for name in sub_hits:
                    sub_hits[name] += sk[sub[name][0][row]] == gold
    n = max(counted, 1)
    rate = lambda x, d=n: round(x / max(d, 1), 4)  # noqa: E731
    return {
        "task": "retrieval",
        "questions": counted,
        "databases": len(by_db),
        "skeleton_at1_masked": rate(hits["masked"]),
        "skeleton_at1_unmasked": rate(hits["unmasked"]),
        "margin": rate(hits["masked"] - hits["unmasked"]),
        "skeleton_at1_masked_cosine_only": rate(hits["masked_cosine_only"]),
        "skeleton_at1_unmasked_value_bonus": rate(hits["unmasked_value_bonus"]),
        "value_bonus": value_bonus,
        "template_subset": {
            "questions": sub_n,
            "skeleton_at1_masked": rate(sub_hits["masked"], sub_n),
            "skeleton_at1_unmasked": rate(sub_hits["unmasked"], sub_n),
            "margin": rate(sub_hits["masked"] - sub_hits["unmasked"], sub_n),
        },
        "skeleton_oracle": rate(oracle),
        "identical_sql_partner_rate": rate(identical),
        "exact_masked_match_rate": rate(exact),
        "threshold": threshold,
        "coverage_at_threshold_masked": rate(above_t),
        "precision_at_threshold_masked": rate(above_t_hits, above_t),
        "questions_changed_by_masking": rate(sum(bool(m.spans) for m in masked), len(masked)),
        "unparsed_gold": sum(s is None for s in skeletons),
        "prep_ms_per_question": round(mask_ms, 3),  # gold SQL parse + masking
        "seconds": round(time.perf_counter() - started, 1),
    }


def retrieval_command(
    dataset: Path = typer.Option(
        None, "--dataset", help="Spider directory (default: <benchdata_dir>/spider)."
    ),
    questions: str = typer.Option("train_spider_compact.json", "--questions", help="Questions file in the dataset."),
    limit: int = typer.Option(0, "--limit", help="Only the first N databases (0: all)."),
) -> None:
    """Template retrieval quality: top-1 skeleton match with and without noun masking.

    Example: sqlgenie eval retrieval --limit 20
    """
    from sqlgenie.cli.common import err_console, print_json
    from sqlgenie.config import get_settings

    folder = dataset or (get_settings().benchdata_dir / "spider")
    qfile, tfile = folder / questions, folder / "tables.json"
    for f in (qfile, tfile):
        if not f.is_file():
            raise InputError(f"{f} does not exist.", hint="Pass --dataset DIR with a Spider layout (tables.json, questions).")
    result = evaluate_retrieval(qfile, tfile, limit=limit or None, progress=lambda m: err_console.print(f"[dim]{m}[/]"))
    err_console.print(
        f"skeleton@1 masked {result['skeleton_at1_masked']:.3f} vs unmasked {result['skeleton_at1_unmasked']:.3f} "
        f"(margin {result['margin']:+.3f}, oracle {result['skeleton_oracle']:.3f}) over {result['questions']} questions"
    )
    print_json(result)


def main() -> None:  # python -m example_bank.eval_retrieval
    typer.run(retrieval_command)


if __name__ == "__main__":
    sys.exit(main())
