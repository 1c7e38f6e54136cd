"""Test-suite check of ``undecided`` answers on templated sets (issue 13, measurement).

On the templated sets an answer is right only when its canonical SQL equals a gold
variant (:func:`sqlgenie.eval.text2sql.exact_match`); an answer that returns the
gold's rows on the dump without being equal is ``undecided`` and counted wrong. Some
are equivalent SQL written differently (``COUNT`` against ``COUNT(DISTINCT key)``,
``BETWEEN`` against two bounds, a join against ``IN``), others wrong answers that
agree only because the dump is sparse (both empty, a filter every row passes).

In the spirit of Zhong et al. 2020 ("distilled test suites"), the answer and each
gold variant are run on small databases built from the catalog that respect its keys
(:class:`sqlgenie.feedback.distinguish.Distinguisher`: up to ``seeds`` random
databases, values from both queries' constants, the value cache and the profile):

* ``equivalent``: for at least one gold variant no built database tells them apart,
  every seed ran both queries and the gold gave at least two different results over
  the seeds (it was *exercised*: databases on which the gold is always empty, or its
  ``COUNT(*) > 0`` always false, agree with anything, the very sparse-data agreement
  this check is for). A test suite can only fail to find a difference, so this is
  evidence of equivalence, not a proof;
* ``distinguished``: every gold variant is told apart (first differing seed, rows per
  table, both results truncated, in ``evidence``); also when the gold orders its rows
  and the answer does not (its order is then unspecified), without running anything;
* ``unexercised``: not told apart, but the gold gave the same result on every built
  database; ``failed``: neither (a table the catalog lacks, a query failing on the
  built rows, unparsable SQL). Both are counted apart, **never as equivalent**.

The databases come from the distinguisher with ``focus`` on: every third seed, columns
the queries compare with constants mostly take those constants, so that rows pass a
query's whole conjunction of filters (``department = 'SI' AND number = '546'``).

String constants are compared without case (:func:`fold_case`), as the exact metric does.

Row order: results are compared as ordered lists only when both queries order their
rows at the top level (as the distinguisher does). Under ``ORDER BY ... LIMIT`` ties
can make two equivalent queries keep different rows; such a difference still counts
as distinguished (the conservative side) and its evidence says ``limit: true``.
"""

from __future__ import annotations

import time
from typing import Any, Sequence

__all__ = ["SUITE_SEEDS", "suite_check", "suite_summary"]

#: Built databases tried per (answer, gold variant) pair (later seeds have more rows:
#: 4 + 2 per 4 seeds). On seed 0's ATIS answers, 30 seeds called three wrong answers
#: equivalent that 120 told apart (a flight number read as a departure time, the first
#: flight by departure instead of arrival): deep joins need many and larger databases.
SUITE_SEEDS = 120
#: Rows of each result kept in a record's evidence.
EVIDENCE_ROWS = 3


def _ordered(sql: str) -> bool:
    from sqlgenie.eval.gold import has_top_level_order_by

    try:
        return has_top_level_order_by(sql, "postgres")
    except Exception:
        return False


def _limited(sql: str) -> bool:
    import sqlglot
    from sqlglot import exp

    try:
        tree = sqlglot.parse_one(sql, read="postgres")
    except Exception:
        return False
    return isinstance(tree, exp.Query) and tree.args.get("limit") is not None


def fold_case(sql: str) -> str:
    """``sql`` with its string literals lower-cased, as the exact metric's canonical form
    does (:func:`sqlgenie.eval.text2sql.canonical_sql`: the sets were written for MySQL,
    whose default collation compares strings without case; the gold variants mix
    ``'ATLANTA'`` and ``'Atlanta'``). Both queries of a pair are folded the same way, so
    the built databases judge structure, not the case of a constant."""
    import sqlglot

    from sqlgenie.autocorrect.base import lower_string_literal

    try:
        tree = sqlglot.parse_one(sql, read="postgres")
    except Exception:
        return sql
    return tree.transform(lower_string_literal).sql(dialect="postgres")


def _evidence(ev: dict[str, Any], gold_index: int, limit: bool) -> dict[str, Any]:
    """A short, JSON-able summary of the distinguisher's evidence for one pair."""
    results = ev.get("results") or []
    return {
        "gold": gold_index,
        "seed": ev.get("seed"),
        "table_rows": {q.rsplit(".", 1)[-1]: len(t.get("rows") or []) for q, t in (ev.get("tables") or {}).items()},
        "answer_rows": results[0].get("row_count") if results else None,
        "gold_rows": results[1].get("row_count") if len(results) > 1 else None,
        "answer_result": (results[0].get("rows") or [])[:EVIDENCE_ROWS] if results else [],
        "gold_result": (results[1].get("rows") or [])[:EVIDENCE_ROWS] if len(results) > 1 else [],
        "limit": limit,
    }


def suite_check(distinguisher: Any, answer_sql: str, golds: Sequence[str]) -> dict[str, Any]:
    """The verdict for one undecided answer (see module doc): ``verdict``
    (``equivalent`` / ``distinguished`` / ``failed``), ``gold`` (the index of the
    equivalent variant, and ``gold_sql`` its text), ``evidence`` (per distinguished
    variant), ``failures`` (notes) and ``ms``."""
    started = time.perf_counter()
    evidence: list[dict[str, Any]] = []
    failures: list[str] = []
    unexercised: list[str] = []
    verdict: dict[str, Any] = {"verdict": "failed", "gold": None}
    answer_ordered = _ordered(answer_sql)
    folded_answer = fold_case(answer_sql)
    for i, gold in enumerate(golds):
        if _ordered(gold) and not answer_ordered:
            evidence.append({"gold": i, "seed": None, "reason": "the gold orders its rows, the answer does not"})
            continue
        ev = distinguisher.distinguish(folded_answer, fold_case(gold), labels=("answer", f"gold{i}"))
        if ev.get("distinguished"):
            limit = _ordered(gold) and answer_ordered and (_limited(gold) or _limited(answer_sql))
            evidence.append(_evidence(ev, i, limit))
        elif not (ev.get("compared", 0) == ev.get("tries", -1) and ev.get("tries", 0) > 0):
            failures.append(f"gold {i}: {ev.get('note') or 'no database compared'}")
        elif (ev.get("distinct_results") or [0, 0])[1] < 2:
            unexercised.append(f"gold {i}: the same result on all {ev['tries']} built databases (never exercised)")
        else:
            verdict = {"verdict": "equivalent", "gold": i, "gold_sql": gold, "seeds": ev["tries"],
                       "gold_results": ev["distinct_results"][1]}
            break
    else:
        if not failures and not unexercised and evidence:
            verdict = {"verdict": "distinguished", "gold": None}
        elif unexercised and not failures:
            verdict = {"verdict": "unexercised", "gold": None}
        failures += unexercised
    verdict["evidence"] = evidence
    if failures:
        verdict["failures"] = failures
    verdict["ms"] = round((time.perf_counter() - started) * 1000, 1)
    return verdict


def suite_summary(answered: Sequence[dict[str, Any]], seen: Sequence[dict[str, Any]],
                  novel: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Summary keys next to the exact metric's: an answer is right by the test suite
    when it is exact or its undecided SQL came out ``equivalent``. ``right_seen_rate_suite``
    is the share of seen questions answered *right* by that measure (``coverage_seen``
    counts every answer, right or not, so it has no suite version; its exact
    counterpart is ``correct_seen`` / ``seen_questions``)."""

    def verdict(r: dict[str, Any]) -> str | None:
        return (r.get("suite") or {}).get("verdict")

    def right(r: dict[str, Any]) -> bool:
        return bool(r.get("correct")) or verdict(r) == "equivalent"

    undecided = [r for r in answered if r.get("outcome") == "undecided"]
    wrong_novel = sum(1 for r in novel if r.get("answered") and not right(r))
    return {
        "undecided_equivalent": sum(1 for r in undecided if verdict(r) == "equivalent"),
        "undecided_distinguished": sum(1 for r in undecided if verdict(r) == "distinguished"),
        "undecided_suite_failed": sum(1 for r in undecided if verdict(r) not in ("equivalent", "distinguished")),
        "undecided_unexercised": sum(1 for r in undecided if verdict(r) == "unexercised"),
        "correct_suite": sum(1 for r in answered if right(r)),
        "precision_suite": round(sum(1 for r in answered if right(r)) / len(answered), 4) if answered else 0.0,
        "right_seen_rate_suite": round(sum(1 for r in seen if r.get("answered") and right(r)) / len(seen), 4)
        if seen else 0.0,
        "wrong_novel_suite": wrong_novel,
        "wrong_novel_rate_suite": round(wrong_novel / len(novel), 4) if novel else 0.0,
        "suite_ms": round(sum((r.get("suite") or {}).get("ms", 0.0) for r in undecided), 1),
    }
