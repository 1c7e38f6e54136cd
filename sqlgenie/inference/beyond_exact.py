"""Beyond exact matches: when every bank example with the question's own masked text is refused,
try the nearest examples as any other question would.

Retrieval short-cuts a question whose masked text equals a bank question's
(``Asker._retrieve``): only those exact matches are tried, no embedding is computed. The
masked text hides *which column* each value belongs to, so an exact match is often an example
of another query: "papers about [MASK]" is the masked text of a keyphrase query ("papers about
Deep Learning") and of a dataset query ("papers about ImageNet"). When the exact matches are all
refused (the value is of another column, say), the question was left to the deeper path
(:mod:`sqlgenie.inference.deeper`), which only tries *distant* examples under its stricter
license, while the examples of its own query ("Papers on [MASK]" with a dataset name) are the
nearest ones a non-exact question would have been given (issue 13, seed-3 records of scholar).

:func:`retry` gives the question the ordinary pool: the nearest examples above the match
threshold, ranked as retrieval ranks them, without the exact matches already refused, adapted
and verified with every check and the tie rule of the usual pool; when none of those verifies,
the deeper path runs as for any question. Nothing changes for a question an exact match answers.
"""

from __future__ import annotations

from typing import Any, Sequence

__all__ = ["ENABLED", "retry"]

#: Off: refused exact matches go straight to the deeper path (A/B measurements).
ENABLED = True


def retry(asker: Any, retrieval: Any, tried: Sequence[Any], decision: Any, failures: list[str]
          ) -> tuple[Any, Any, list[str]] | None:
    """``Asker._adapt``'s answer from the nearest non-exact examples after the exact matches
    ``tried`` were all refused; None when this does not apply (not an exact retrieval, or off)."""
    if not ENABLED or not tried or not all(getattr(m, "exact", False) for m in tried):
        return None
    from sqlgenie.inference.pipeline import RETRIEVE_K
    from sqlgenie.inference.router import decide_route

    seen = {m.example.id for m in tried}
    try:
        nearest = asker.retriever.retrieve(retrieval.question, k=RETRIEVE_K + len(seen), threshold=0.0)
    except Exception:  # a retrieval aid: never a reason to fail an answer
        return None
    rest = [m for m in nearest.matches if m.example.id not in seen and not getattr(m, "exact", False)][:RETRIEVE_K]
    if not rest:
        return None
    retrieval_rest = type(retrieval)(retrieval.question, retrieval.masked, retrieval.threshold, rest,
                                     retrieval.elapsed_ms)
    rest_decision = decide_route(rest, asker.settings.match_threshold, getattr(decision, "requested", "auto"))
    if rest_decision.route != "match":
        return None
    adapted, cand, more = asker._adapt(retrieval_rest, rest, rest_decision, extend=True)
    return adapted, cand, list(failures) + list(more)
