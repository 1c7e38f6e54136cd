"""Feedback on an answer (``sqlgenie feedback ASK_ID up|down``; the server calls
:func:`give_feedback` too).

- **up**: the (question, SQL) pair of the answer enters the bank as verified, with
  its provenance (ask id, user, time, route, source example) in the example's
  ``details.feedback``; a pair already there (same masked question, same
  normalised SQL) is merged by the bank, not repeated.
- **down**: recorded with its comment. The bank example the answer was adapted
  from is marked; after ``settings.feedback_down_limit`` downs it becomes
  ``disputed`` (the match route only uses ``verified`` examples) until a reviewer
  decides (:mod:`.review`). A corrected SQL (``sql=``) is first run by the safe
  executor and goes to the review queue. A regeneration job is queued.

Everything is checked before anything is written, and the writes of one call
commit together: a call that fails changes nothing.
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np
import psycopg

from sqlgenie.config import Settings, get_settings
from sqlgenie.errors import InputError

VERDICTS = ("up", "down")
REGENERATE = "regenerate"


@dataclass
class FeedbackResult:
    feedback_id: int
    ask_id: int
    verdict: str
    job_id: int | None = None
    bank_example_id: int | None = None
    merged: bool | None = None
    review_item_id: int | None = None
    source_example_id: int | None = None
    example_disputed: bool = False
    messages: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "feedback_id": self.feedback_id, "ask_id": self.ask_id, "verdict": self.verdict, "job_id": self.job_id,
            "bank_example_id": self.bank_example_id, "merged": self.merged, "review_item_id": self.review_item_id,
            "source_example_id": self.source_example_id, "example_disputed": self.example_disputed,
            "messages": self.messages,
        }


# --- checks --------------------------------------------------------------------------


def load_ask(store: psycopg.Connection, ask_id: Any) -> dict[str, Any]:
    """The query-log entry ``ask_id`` or a clear error."""
    from sqlgenie.inference import query_log

    try:
        ident = int(ask_id)
    except (TypeError, ValueError):
        raise InputError(f"{ask_id!r} is not an answer id.", hint="Ids are numbers: `sqlgenie ask --json` prints `id`.")
    entry = query_log.get(store, ident)
    if entry is None:
        raise InputError(f"No answer with id {ident}.",
                         hint="Use the id that `sqlgenie ask` printed (`ask --json` prints it as `id`).")
    return entry


def check_verdict(verdict: str) -> str:
    v = (verdict or "").strip().lower()
    if v not in VERDICTS:
        raise InputError(f"Unknown verdict {verdict!r}.", hint="Use up (the answer is right) or down (it is wrong).")
    return v


def check_sql_on_target(sql: str, settings: Settings, *, executor: Any = None) -> dict[str, Any]:
    """Run a user's SQL through the safe executor (allow-list, read-only, timeout,
    row cap, rolled back). Raises the executor's typed errors: a malformed statement
    (SQLSyntaxError), one that is not a read-only query (UnsafeSQLError), unknown
    names (UnknownIdentifierError)... Returns a small summary of the result."""
    from sqlgenie.errors import SQLSyntaxError

    if not sql or not sql.strip():
        raise SQLSyntaxError("The corrected SQL is empty.", sql=sql, hint='Give a SELECT: --sql "SELECT ..."')
    own = executor is None
    if own:
        from sqlgenie.executor import SafeExecutor
        from sqlgenie.store.connection import target_url

        executor = SafeExecutor(target_url(settings), statement_timeout_ms=settings.statement_timeout_ms,
                                row_cap=min(settings.row_cap, 1000))
    try:
        run = executor.run(sql)
    finally:
        if own:
            executor.close()
    return {"columns": run.columns, "row_count": len(run.rows), "truncated": run.truncated,
            "rows": [list(r) for r in run.rows[:5]]}


# --- bank ----------------------------------------------------------------------------


def _default_encoder(settings: Settings) -> Callable[[list[str]], np.ndarray]:
    from example_bank.embedder import get_embedder

    return get_embedder(settings.embedding_model).encode


def prepare_pair(store: psycopg.Connection, settings: Settings, question: str, sql: str):
    """Validate a pair as the bank does (parse, allow-list, onboarded tables, LIMIT 0
    on the target); returns (context, analysis) or raises. The caller closes ctx."""
    from example_bank.importer import BankContext, validate_pair
    from sqlgenie.store.connection import open_connection, store_url, target_url

    url = target_url(settings)
    target = store if url == store_url(settings) else open_connection(url, autocommit=True)
    ctx = BankContext.load(store, target, url)
    try:
        analysis = validate_pair(ctx, question, sql)
    except Exception:
        _close_ctx(ctx, store)
        raise
    return ctx, analysis


def _close_ctx(ctx: Any, store: psycopg.Connection) -> None:
    ctx.close()
    if ctx.target is not None and ctx.target is not store:
        ctx.target.close()


def add_verified_pair(store: psycopg.Connection, settings: Settings, question: str, sql: str,
                      provenance: dict[str, Any], *, encode: Callable[[list[str]], np.ndarray] | None = None,
                      source: str = "feedback") -> tuple[int, bool]:
    """Add (or merge) a verified pair with its provenance appended to
    ``details.feedback``; returns (example id, merged). Runs in the caller's
    transaction; raises before writing when the pair is not valid."""
    from example_bank.retrieval import embedding_text
    from example_bank.store import BankStore, NewExample

    ctx, analysis = prepare_pair(store, settings, question, sql)
    try:
        masked = ctx.mask(question.strip())
    finally:
        _close_ctx(ctx, store)
    vector = (encode or _default_encoder(settings))([embedding_text(masked)])[0]
    added = BankStore(store).add(NewExample(question.strip(), masked, analysis, vector, status="verified",
                                            source=source, embedding_model=settings.embedding_model))
    store.execute(
        "UPDATE sqlgenie.bank_examples SET details = jsonb_set(details, '{feedback}',"
        " coalesce(details->'feedback', '[]'::jsonb) || %s::jsonb), updated_at = now() WHERE id = %s",
        (json.dumps([provenance], default=str), added.id),
    )
    return added.id, added.merged


# --- feedback ----------------------------------------------------------------------


def give_feedback(store: psycopg.Connection, ask_id: Any, verdict: str, *, comment: str | None = None,
                  sql: str | None = None, user: str | None = None, settings: Settings | None = None,
                  encode: Callable[[list[str]], np.ndarray] | None = None, executor: Any = None) -> FeedbackResult:
    """Record feedback on answer ``ask_id`` (see module doc). Raises InputError /
    SQLError with a clear message and writes nothing when the input is wrong."""
    settings = settings or get_settings()
    verdict = check_verdict(verdict)
    entry = load_ask(store, ask_id)
    comment = comment.strip() if comment and comment.strip() else None
    if verdict == "up":
        if sql is not None:
            raise InputError("--sql goes with down (a correction of a wrong answer).",
                             hint="For a right answer: sqlgenie feedback ID up")
        return _thumbs_up(store, entry, comment, user, settings, encode)
    correction = None
    if sql is not None:
        correction = check_sql_on_target(sql, settings, executor=executor)
    return _thumbs_down(store, entry, comment, sql, correction, user, settings)


def _provenance(entry: dict[str, Any], user: str | None, verdict: str) -> dict[str, Any]:
    return {"ask_id": entry["id"], "user": user, "at": dt.datetime.now(dt.timezone.utc).isoformat(),
            "route": entry.get("route"), "source_example_id": entry.get("example_id"), "verdict": verdict}


def _thumbs_up(store, entry, comment, user, settings, encode) -> FeedbackResult:
    if not entry.get("sql") or entry.get("status") != "ok":
        raise InputError(f"Answer {entry['id']} has no SQL that ran ({entry.get('status')}): nothing to confirm.",
                         hint="Thumbs up confirms an answered question; for a wrong or refused one use down.")
    with store.transaction():
        example_id, merged = add_verified_pair(store, settings, entry["question"], entry["sql"],
                                               _provenance(entry, user, "up"), encode=encode)
        fid = _insert_feedback(store, entry, "up", comment, None, user, bank_example_id=example_id, merged=merged)
    result = FeedbackResult(fid, entry["id"], "up", bank_example_id=example_id, merged=merged,
                            source_example_id=entry.get("example_id"))
    result.messages.append(f"{'merged into' if merged else 'added to the bank as'} example #{example_id}")
    return result


def _thumbs_down(store, entry, comment, sql, correction, user, settings) -> FeedbackResult:
    from sqlgenie.feedback import queue, review

    source = entry.get("example_id")
    result: FeedbackResult
    with store.transaction():
        fid = _insert_feedback(store, entry, "down", comment, sql, user,
                               details={"correction_result": correction} if correction else None)
        job_id = queue.enqueue(store, REGENERATE, {"ask_id": entry["id"], "feedback_id": fid},
                               max_attempts=settings.job_max_attempts)
        store.execute("UPDATE sqlgenie.feedback SET job_id = %s WHERE id = %s", (job_id, fid))
        result = FeedbackResult(fid, entry["id"], "down", job_id=job_id, source_example_id=source)
        if sql is not None:
            result.review_item_id = review.create_item(
                store, kind="correction", ask_id=entry["id"], feedback_id=fid, question=entry["question"],
                sql=sql.strip(), downvoted_sql=entry.get("sql"), source_example_id=source,
                question_key=question_key(entry["question"]), evidence={"executed": correction, "comment": comment, "user": user},
            )
        if source is not None:
            result.example_disputed = _mark_example(store, source, settings.feedback_down_limit, fid)
    result.messages.append(f"regeneration job {result.job_id} queued")
    if result.review_item_id:
        result.messages.append(f"your SQL ran and is review item {result.review_item_id}")
    if result.example_disputed:
        result.messages.append(f"bank example #{source} is disputed (no longer used for matching until reviewed)")
    return result


def question_key(question: str) -> str:
    """The question lower-cased, spaces collapsed, trailing punctuation dropped (the
    same question asked again finds its pending regenerated answer)."""
    from example_bank.masking import masked_key

    return masked_key(question or "")


def _insert_feedback(store, entry, verdict, comment, sql, user, *, bank_example_id=None, merged=None,
                     details=None) -> int:
    row = store.execute(
        "INSERT INTO sqlgenie.feedback (ask_id, verdict, comment, corrected_sql, user_name, source_example_id,"
        " bank_example_id, merged, details) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s::jsonb) RETURNING id",
        (entry["id"], verdict, comment, sql.strip() if sql else None, user, entry.get("example_id"),
         bank_example_id, merged, json.dumps(details or {}, default=str)),
    ).fetchone()
    return int(row[0])


def down_count(store: psycopg.Connection, example_id: int) -> int:
    """Thumbs-down on answers from ``example_id`` since it was last reviewed."""
    row = store.execute(
        "SELECT count(*) FROM sqlgenie.feedback f WHERE f.verdict = 'down' AND f.source_example_id = %s"
        " AND f.created_at > coalesce((SELECT (e.details->>'feedback_reviewed_at')::timestamptz"
        "   FROM sqlgenie.bank_examples e WHERE e.id = %s), '-infinity'::timestamptz)",
        (example_id, example_id),
    ).fetchone()
    return int(row[0])


def _mark_example(store: psycopg.Connection, example_id: int, limit: int, feedback_id: int) -> bool:
    """Count the down on the example (``details.downs``); dispute it at ``limit``.
    Returns whether it is disputed now."""
    downs = down_count(store, example_id)
    row = store.execute(
        "UPDATE sqlgenie.bank_examples SET details = details || jsonb_build_object('downs', %s::int,"
        " 'last_down_feedback', %s::bigint),"
        " status = CASE WHEN status = 'verified' AND %s::int >= %s::int THEN 'disputed' ELSE status END,"
        " updated_at = now() WHERE id = %s RETURNING status",
        (downs, feedback_id, downs, limit, example_id),
    ).fetchone()
    return bool(row and row[0] == "disputed")
