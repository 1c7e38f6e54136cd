"""The regeneration job: after a thumbs-down, K candidates for the question, chosen
among by :mod:`.selection`, and one review item with the winner, the runner-up
and the evidence.

Candidates (``settings.feedback_candidates`` = K at most of each kind):

- the deterministic adaptations of the top bank neighbours (``verified`` examples
  only: a disputed example is out), each autocorrected by the chain, and the
  chain's alternatives (the adaptation with the value and identifier correctors
  off, when that differs);
- the user's corrected SQL from the thumbs-down, when there is one;
- with an LLM configured, K think-route runs with varied temperature and prompt
  variant (``Asker.ask(route="think", temperature=..., variant=...)`` when the think
  route supports it);
- the downvoted answer itself, last (so that the item can say when no candidate
  differs from it).

Every candidate runs through the asker's safe executor. Selection's close calls go
to a distinguishing database (:mod:`.distinguish`; with an LLM a pairwise judge
picks on it), and the review item's ``evidence.distinguish`` holds the rows on
which the proposed SQL and the runner-up (else the downvoted answer) differ. The review item is written
in the same transaction that marks the job done (``review_items.job_id`` is unique):
a job run again after its worker died writes it once.
"""

from __future__ import annotations

from typing import Any

from sqlgenie.feedback.selection import Candidate, Selection, select

TEMPERATURES = (0.0, 0.3, 0.6, 0.8, 1.0)
#: A person's corrected SQL counts as two votes (a generated candidate as one).
USER_WEIGHT = 2.0


def _run(asker: Any, cand: Candidate) -> Candidate:
    from sqlgenie.errors import SqlGenieError
    from sqlgenie.eval.gold import has_top_level_order_by

    try:
        run = asker.executor.run(cand.sql, row_cap=min(asker.settings.row_cap, 10_000))
    except SqlGenieError as exc:
        cand.error = exc.message
        return cand
    cand.rows = [tuple(r) for r in run.rows]
    cand.columns = list(run.columns)
    try:
        cand.ordered = has_top_level_order_by(cand.sql, "postgres")
    except Exception:
        cand.ordered = False
    return cand


def _critic(asker: Any, cand: Candidate, question: str) -> None:
    """Critic findings of one candidate on its result (when the critic is installed)."""
    try:
        from sqlgenie.inference.critic import run_checks
    except ImportError:
        return
    try:
        findings = run_checks(cand.sql, question=question, catalog=asker.catalog, executor=asker.executor,
                              matcher=asker.matcher, result=_as_result(cand))
    except Exception as exc:  # a half-finished critic must not fail the job
        cand.meta["critic_error"] = f"{type(exc).__name__}: {exc}"
        return
    cand.findings = [{"check": f.check, "severity": f.severity, "message": f.message} for f in findings]


def _as_result(cand: Candidate) -> Any:
    from sqlgenie.inference.critic import ExecutionResult

    return ExecutionResult(columns=cand.columns, rows=cand.rows or [])


def adaptation_candidates(asker: Any, question: str, k: int) -> list[Candidate]:
    """Adapt the top-k verified bank neighbours of ``question`` and autocorrect them."""
    from sqlgenie.autocorrect import run_chain
    from sqlgenie.inference.adapt import adapt_sql

    retrieval = asker.retriever.retrieve(question, k=k, threshold=0.0)
    new_masked = retrieval.masked
    out: list[Candidate] = []
    seen: set[str] = set()
    for match in retrieval.matches[:k]:
        ex = match.example
        ex_masked = asker.retriever.mask(ex.question)
        try:
            adapted = adapt_sql(ex.sql, ex_masked.spans, new_masked.spans, catalog=asker.catalog,
                                value_columns=asker.value_columns, example_masked=ex_masked.text,
                                new_masked=new_masked.text, exact=ex_masked.key == new_masked.key,
                                similarity=float(match.score), schema_words=asker._schema_word)
        except Exception as exc:  # one neighbour that cannot be adapted is no reason to fail
            out.append(Candidate(sql="", source=f"adapt#{ex.id}", error=f"adaptation failed: {exc}"))
            continue
        if not adapted.sql:
            continue
        base = adapted.tree if adapted.substitutions and adapted.tree is not None else adapted.sql
        variants = [("", asker.autocorrect)]
        for off in ("values", "identifiers"):
            variants.append((f" without {off} corrector", asker.autocorrect.model_copy(update={off: False})))
        for label, settings in variants:
            try:
                corrected = run_chain(base, asker.catalog, asker.matcher, settings, question=question)
            except Exception:
                continue
            if corrected.ast is None or corrected.sql in seen:
                continue
            seen.add(corrected.sql)
            out.append(Candidate(sql=corrected.sql, source=f"adapt#{ex.id}{label}",
                                 meta={"example_id": ex.id, "similarity": round(float(match.score), 4),
                                       "adapted_ok": adapted.ok, "confidence": round(adapted.confidence, 3)}))
    return out


def think_candidates(asker: Any, question: str, k: int) -> list[Candidate]:
    """K think-route runs with varied temperature and prompt variant (LLM only)."""
    if getattr(asker, "provider", None) is None:
        return []
    out: list[Candidate] = []
    for i in range(k):
        temperature = TEMPERATURES[i % len(TEMPERATURES)]
        try:
            result = asker.ask(question, route="think", temperature=temperature, variant=i, log=False, execute=False)
        except TypeError:  # the think route does not take variations (yet): one run
            if i:
                break
            result = asker.ask(question, route="think", log=False, execute=False)
        except Exception as exc:
            out.append(Candidate(sql="", source=f"think#{i}", error=f"{type(exc).__name__}: {exc}"))
            continue
        if result.sql:
            out.append(Candidate(sql=result.sql, source=f"think#{i}", meta={"temperature": temperature, "variant": i}))
    return out


def regenerate(asker: Any, store: Any, payload: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Build, run and select candidates for the ask in ``payload``; returns
    (review item fields, job result). Writes nothing."""
    from sqlgenie.feedback.service import load_ask, question_key

    entry = load_ask(store, payload["ask_id"])
    question = entry["question"]
    downvoted = (entry.get("sql") or "").strip() or None
    k = asker.settings.feedback_candidates
    corrected = None
    if payload.get("feedback_id"):
        row = store.execute("SELECT corrected_sql FROM sqlgenie.feedback WHERE id = %s",
                            (payload["feedback_id"],)).fetchone()
        corrected = row[0] if row else None
    cands = adaptation_candidates(asker, question, k)
    cands += think_candidates(asker, question, k)
    if corrected:
        cands.append(Candidate(sql=corrected, source="user correction", weight=USER_WEIGHT))
    pool = [_run(asker, c) if not c.error and c.sql else c for c in cands]
    down = None
    if downvoted:
        down = _run(asker, Candidate(sql=downvoted, source="downvoted answer", weight=0.0))
        pool.append(down)
    for c in pool:
        if c.ok:
            _critic(asker, c, question)
    # the downvoted answer has no vote (weight 0) but sits in the clusters, so a
    # candidate returning the same rows is recognised as no different
    judge = _distinguisher(asker, question)
    try:
        selection = select(pool, distinguish=judge.hook if judge is not None else None)
    except Exception as exc:  # a failing distinguishing database leaves the pick to the support
        selection = select(pool)
        selection.notes.append(f"the distinguishing database failed: {type(exc).__name__}: {exc}")
    winner, runner, differs, note = _pick(pool, selection, down)
    evidence = {
        "candidates": [c.to_dict() for c in pool], "selection": selection.to_dict(), "note": note,
        "k": k, "llm": getattr(asker, "provider", None) is not None,
    }
    if judge is not None:
        try:
            evidence["distinguish"] = _distinguish_evidence(judge, winner, runner, down)
        except Exception as exc:  # evidence is a help to the reviewer: never a reason to fail the job
            evidence["distinguish"] = {"error": f"{type(exc).__name__}: {exc}"}
    item = {
        "ask_id": entry["id"], "feedback_id": payload.get("feedback_id"), "question": question,
        "question_key": question_key(question), "sql": winner.sql if winner else None,
        "runner_up_sql": runner.sql if runner else None, "downvoted_sql": downvoted, "differs": differs,
        "evidence": evidence, "source_example_id": entry.get("example_id"),
    }
    result = {"candidates": len(pool), "ran": sum(1 for c in pool if c.ok), "clusters": len(selection.clusters),
              "winner": winner.source if winner else None, "differs": differs, "note": note}
    return item, result


def _distinguisher(asker: Any, question: str) -> Any:
    """A :class:`.distinguish.Distinguisher` for the question (linked values, the
    asker's LLM as the pairwise judge), or None when one cannot be built."""
    from sqlgenie.feedback.distinguish import Distinguisher
    from sqlgenie.store.connection import store_url

    links: list[Any] = []
    try:
        from sqlgenie.inference.value_linking import link_values

        links = [l for l in link_values(question, catalog=asker.catalog, store=asker.store)
                 if l.rank <= 2 and l.score >= 0.5]
    except Exception:  # no linked values: the cached ones and the profile still fill the pools
        links = []
    try:
        return Distinguisher(store_url(asker.settings), asker.catalog, question=question, linked=links,
                             llm=getattr(asker, "provider", None))
    except Exception:
        return None


def _distinguish_evidence(judge: Any, winner: Candidate | None, runner: Candidate | None,
                          down: Candidate | None) -> dict[str, Any] | None:
    """Why the proposed SQL and the runner-up (else the downvoted answer) differ: a
    small database on which they give different answers (see :mod:`.distinguish`)."""
    other = runner if runner is not None else (down if down is not None and down.ok else None)
    if winner is None or other is None:
        return None
    ev = judge.distinguish(winner.sql, other.sql, labels=(winner.source, other.source))
    judged = [e for e in judge.evidence if e.get("judge")]
    out = dict(ev)
    if judged:
        out["selection_judge"] = {"pair": judged[0]["pair"], **judged[0]["judge"]}
    return out


def _pick(pool: list[Candidate], selection: Selection, down: Candidate | None
          ) -> tuple[Candidate | None, Candidate | None, bool, str]:
    """Winner and runner-up among the clusters that do not hold the downvoted answer."""
    from sqlgenie.feedback.selection import same_result

    ranked = [pool[c.members[0]] for c in selection.clusters]
    others = [c for c in ranked if c is not down and not (down is not None and down.ok and same_result(c, down))]
    if not others:
        if not any(c.ok for c in pool if c is not down):
            return None, None, False, "no candidate ran; nothing to propose"
        return None, None, False, "no candidate differs from the answer that got the thumbs-down"
    winner = others[0]
    runner = others[1] if len(others) > 1 else None
    return winner, runner, True, f"winner {winner.source} (rule: {selection.rule})"
