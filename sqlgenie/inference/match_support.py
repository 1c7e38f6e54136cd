"""Evidence from the bank itself behind a match-route answer (issue 13, helper support15).

The word-level refusals (:mod:`sqlgenie.inference.verify` and the rule modules hooked into
:meth:`sqlgenie.inference.pipeline.Asker._adapt`) read the two questions. This module reads
the *bank* around the chosen answer instead: how many verified candidates adapt to the same
SQL (support), whether the example is worded exactly as the question (masked), how far the
next candidate of another query is, how many paraphrases the example's group holds and
whether the bank holds examples of the same masked wording with another query (template
inconsistency).

:func:`features` computes these for the answer ``_adapt`` is about to return. They are
attached to the adaptation (``AdaptedSQL.evidence``, then ``rec["evidence"]`` of
``eval bank``) only when :data:`DUMP` is on (env ``SQLGENIE_MATCH_EVIDENCE=1``): a
measuring aid, off by default, that never changes an answer.
"""

from __future__ import annotations

import os
from typing import Any, Sequence

from example_bank.skeleton import normalized_or_text as _norm

__all__ = ["DUMP", "features", "dump_enabled", "mark_path"]

#: On: every match-route answer carries its evidence features (measurements only).
DUMP = os.environ.get("SQLGENIE_MATCH_EVIDENCE", "") not in ("", "0")


def dump_enabled() -> bool:
    return DUMP


def mark_path(answer: tuple[Any, Any, list[str]], path: str) -> tuple[Any, Any, list[str]]:
    """``answer`` of ``_adapt`` with ``path`` (the way it was found) put before its evidence's path."""
    adapted = answer[0]
    if adapted is not None and getattr(adapted, "evidence", None) is not None:
        inner = adapted.evidence.get("path", "top")
        adapted.evidence["path"] = path if inner == "top" else f"{path}/{inner}"
    return answer


def _group_key(groups: Any, example: Any) -> tuple | None:
    """The example's query as the groups read it: skeleton and intent constants."""
    try:
        me = groups.member(example)
    except Exception:
        return None
    if me is None:
        return None
    return (example.skeleton, me.key)


def _jaccard(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a | b else 1.0


def features(asker: Any, retrieval: Any, asked: Any, pool: Sequence[Any], grouped: Sequence[Any],
             outcomes: Sequence[tuple[Any, Any]], exact_of: dict[int, bool], vetoed: Sequence[Any],
             cand: Any, best: Any, path: str, known_values: Any = None, word_ties: Any = None) -> dict[str, Any]:
    """The evidence behind answering ``best`` (adapted from ``cand``); see module doc."""
    from sqlgenie.inference import groups as groups_mod

    out: dict[str, Any] = {"path": path, "exact": bool(exact_of.get(cand.example.id)),
                           "retrieval_exact": bool(getattr(cand, "exact", False)),
                           "sim": round(float(cand.score), 4),
                           "rank": next((i for i, m in enumerate(pool) if m.example.id == cand.example.id), -1),
                           "n_pool": len(pool), "n_verified": len(outcomes), "n_vetoed": len(vetoed),
                           "n_subs": len(getattr(best, "substitutions", []) or []),
                           "n_spans": len(getattr(retrieval.masked, "spans", []) or []),
                           "confidence": round(float(best.confidence), 3),
                           "wording_differs": any(str(n).startswith("wording differs") for n in best.notes)}
    mine = _norm(best.sql)
    same = [c for c, a in outcomes if _norm(a.sql) == mine]
    out["support_verified"] = len({c.example.id for c in same})
    out["disagree_verified"] = len({c.example.id for c, a in outcomes if _norm(a.sql) != mine})
    out["support_exact"] = sum(1 for c in same if exact_of.get(c.example.id))
    apart = [float(c.score) for c, a in outcomes if _norm(a.sql) != mine]
    out["disagree_gap"] = None if not apart else round(float(cand.score) - max(apart), 4)
    try:
        gs = groups_mod.groups_of(asker.retriever, asker.catalog)
    except Exception:
        gs = None
    my_key = _group_key(gs, cand.example) if gs is not None else None
    other_scores = [float(m.score) for m in pool if gs is not None and _group_key(gs, m.example) != my_key]
    out["margin_other_query"] = None if not other_scores else round(float(cand.score) - max(other_scores), 4)
    out["pool_groups"] = len({_group_key(gs, m.example) for m in pool}) if gs is not None else None
    asked_words = groups_mod.content_words(asked.text)
    group = next((g for c, g in grouped if c.example.id == cand.example.id), None)
    if group is not None and group.members:
        out["group_n"] = len(group.members)
        out["group_same_key"] = sum(1 for m in group.members if m.masked.key == asked.key)
        jac = [_jaccard(m.words, asked_words) for m in group.members]
        out["group_best_jaccard"] = round(max(jac), 3)
        out["group_words_equal"] = sum(1 for m in group.members if m.words == asked_words)
    else:
        out.update(group_n=0, group_same_key=0, group_best_jaccard=None, group_words_equal=0)
    if gs is not None:
        others = [gs.member(m.example) for m in pool if _group_key(gs, m.example) != my_key]
        others = [o for o in others if o is not None]
        out["other_best_jaccard"] = round(max((_jaccard(o.words, asked_words) for o in others), default=0.0), 3)
    if group is not None and len(group.members) > 1:
        out.update(group_support(asker, retrieval, asked, group, cand, mine, known_values, word_ties, pool))
    r = asker.retriever
    try:
        same_wording = r.bank.exact_matches(asked.key, allowed_tables=r.allowed, statuses=r.statuses, limit=50)
        keys = {_group_key(gs, e) for e in same_wording} if gs is not None else set()
        out["bank_same_wording"] = len(same_wording)
        out["bank_same_wording_queries"] = len(keys)
        out["bank_same_wording_other"] = sum(1 for e in same_wording if gs is not None
                                             and _group_key(gs, e) != my_key)
        ex_key = r.mask(cand.example.question).key
        ex_wording = r.bank.exact_matches(ex_key, allowed_tables=r.allowed, statuses=r.statuses, limit=50)
        out["bank_example_wording"] = len(ex_wording)
        out["bank_example_wording_other"] = sum(1 for e in ex_wording if gs is not None
                                                and _group_key(gs, e) != my_key)
    except Exception as exc:  # a measuring aid
        out["bank_error"] = type(exc).__name__
    return out


#: Members of the example's group adapted to the question at most (besides the pool's).
GROUP_SUPPORT_MEMBERS = 8


def group_support(asker: Any, retrieval: Any, asked: Any, group: Any, cand: Any, mine: str, known_values: Any,
                  word_ties: Any, pool: Sequence[Any]) -> dict[str, Any]:
    """The other members of the example's group (the bank's paraphrases of its query, outside the pool)
    adapted to the question by the core verification (:func:`sqlgenie.inference.verify.adapt_verified`):
    how many verify, and how many of those give the answer's SQL."""
    from sqlgenie.inference.verify import adapt_verified

    in_pool = {m.example.id for m in pool}
    others = [m for m in group.members if m.example.id != cand.example.id and m.example.id not in in_pool]
    tried = verified = same = 0
    for m in others[:GROUP_SUPPORT_MEMBERS]:
        tried += 1
        try:
            license = group.license(m.example.id, asked.text)
            a = adapt_verified(m.example.sql, m.masked.text, m.masked.spans, asked.text, asked.spans,
                               question=retrieval.question, catalog=asker.catalog, value_columns=asker.value_columns,
                               exact=m.masked.key == asked.key, similarity=float(cand.score),
                               schema_words=asker._schema_word, known_values=known_values, group=license,
                               own_directions=True, word_ties=word_ties)
        except Exception:
            continue
        if a.ok:
            verified += 1
            same += _norm(a.sql) == mine
    return {"group_tried": tried, "group_verified": verified, "group_same_sql": same}
