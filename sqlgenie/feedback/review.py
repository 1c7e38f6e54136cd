"""The review queue (``sqlgenie review list | show | accept | reject``).

Items come from a thumbs-down with a corrected SQL (``kind = correction``) and from
every finished regeneration job (``kind = regeneration``: the winner, the runner-up
and the evidence; ``differs = false`` when no candidate differs from the answer that
got the thumbs-down).

- **accept** puts the pair into the bank (verified, provenance in
  ``details.feedback``) and supersedes the downvoted answer: other pending items of
  the same ask are ``superseded``, and the bank example the downvoted answer came
  from is retired (``rejected``) when it is the same question template, else keeps
  its status with ``details.superseded_by``.
- **reject** closes the item; ``restore_example`` also puts a disputed source
  example back into use (the reviewer judged the original answer right).

Until an item is reviewed, the same question asked again gets the item's SQL,
marked unreviewed (:func:`apply_pending`, called by ``Asker.ask``).
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

STATES = ("pending", "accepted", "rejected", "superseded")

_COLUMNS = ("id, kind, state, ask_id, feedback_id, job_id, question, question_key, sql, downvoted_sql, runner_up_sql,"
            " differs, evidence, source_example_id, bank_example_id, decided_by, decided_at, reason, created_at")


@dataclass
class ReviewItem:
    id: int
    kind: str
    state: str
    ask_id: int
    feedback_id: int | None
    job_id: int | None
    question: str
    question_key: str | None
    sql: str | None
    downvoted_sql: str | None
    runner_up_sql: str | None
    differs: bool
    evidence: dict[str, Any] = field(default_factory=dict)
    source_example_id: int | None = None
    bank_example_id: int | None = None
    decided_by: str | None = None
    decided_at: dt.datetime | None = None
    reason: str | None = None
    created_at: dt.datetime | None = None

    def to_dict(self, *, full: bool = True) -> dict[str, Any]:
        out = {
            "id": self.id, "kind": self.kind, "state": self.state, "ask_id": self.ask_id,
            "question": self.question, "sql": self.sql, "downvoted_sql": self.downvoted_sql,
            "runner_up_sql": self.runner_up_sql, "differs": self.differs, "feedback_id": self.feedback_id,
            "job_id": self.job_id, "source_example_id": self.source_example_id,
            "bank_example_id": self.bank_example_id, "decided_by": self.decided_by,
            "decided_at": self.decided_at.isoformat() if self.decided_at else None, "reason": self.reason,
            "created_at": self.created_at.isoformat() if self.created_at else None,
        }
        if full:
            out["evidence"] = self.evidence
        return out


def _item(row: Any) -> ReviewItem:
    return ReviewItem(*row[:12], evidence=row[12] or {}, source_example_id=row[13], bank_example_id=row[14],
                      decided_by=row[15], decided_at=row[16], reason=row[17], created_at=row[18])


def create_item(store: psycopg.Connection, *, kind: str, ask_id: int, question: str, sql: str | None,
                feedback_id: int | None = None, job_id: int | None = None, question_key: str | None = None,
                downvoted_sql: str | None = None, runner_up_sql: str | None = None, differs: bool = True,
                evidence: dict[str, Any] | None = None, source_example_id: int | None = None) -> int:
    """Insert one pending item; a job's item is written once (``job_id`` unique: a
    second insert for the same job returns the first item's id)."""
    if question_key is None:
        from sqlgenie.feedback.service import question_key as key

        question_key = key(question)
    row = store.execute(
        "INSERT INTO sqlgenie.review_items (kind, ask_id, feedback_id, job_id, question, question_key, sql,"
        " downvoted_sql, runner_up_sql, differs, evidence, source_example_id)"
        " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s::jsonb, %s)"
        " ON CONFLICT (job_id) DO NOTHING RETURNING id",
        (kind, ask_id, feedback_id, job_id, question, question_key, sql, downvoted_sql, runner_up_sql, differs,
         json.dumps(evidence or {}, default=str), source_example_id),
    ).fetchone()
    if row is None:  # this job's item exists already
        row = store.execute("SELECT id FROM sqlgenie.review_items WHERE job_id = %s", (job_id,)).fetchone()
    return int(row[0])


def list_items(store: psycopg.Connection, *, state: str | None = None, limit: int = 100) -> list[ReviewItem]:
    """Items newest first (``state``: pending, accepted, rejected, superseded)."""
    if state is not None and state not in STATES:
        raise InputError(f"Unknown review state {state!r}.", hint=f"Use one of: {', '.join(STATES)}.")
    rows = store.execute(
        f"SELECT {_COLUMNS} FROM sqlgenie.review_items WHERE (%s::text IS NULL OR state = %s)"
        " ORDER BY id DESC LIMIT %s",
        (state, state, max(1, int(limit))),
    ).fetchall()
    return [_item(r) for r in rows]


def get_item(store: psycopg.Connection, item_id: Any) -> ReviewItem:
    try:
        ident = int(item_id)
    except (TypeError, ValueError):
        raise InputError(f"{item_id!r} is not a review item id.", hint="`sqlgenie review list` shows the ids.")
    row = store.execute(f"SELECT {_COLUMNS} FROM sqlgenie.review_items WHERE id = %s", (ident,)).fetchone()
    if row is None:
        raise InputError(f"No review item with id {ident}.", hint="`sqlgenie review list` shows the ids.")
    return _item(row)


def _pending(item: ReviewItem) -> None:
    if item.state != "pending":
        raise InputError(f"Review item {item.id} is {item.state} already.", hint="Only pending items can be decided.")


def accept(store: psycopg.Connection, item_id: Any, *, user: str | None = None, settings: Settings | None = None,
           encode: Callable[[list[str]], np.ndarray] | None = None, sql: str | None = None) -> ReviewItem:
    """Accept an item (optionally with an edited ``sql``): its pair enters the bank
    and supersedes the downvoted answer (see module doc)."""
    from sqlgenie.feedback.service import add_verified_pair

    settings = settings or get_settings()
    with store.transaction():
        item = get_item(store, item_id)
        store.execute("SELECT 1 FROM sqlgenie.review_items WHERE id = %s FOR UPDATE", (item.id,))
        item = get_item(store, item.id)
        _pending(item)
        final_sql = (sql or item.sql or "").strip()
        if not final_sql:
            raise InputError(f"Review item {item.id} has no SQL to accept (no candidate was found).",
                             hint="Reject it, or accept with a SQL of your own: sqlgenie review accept ID --sql \"...\"")
        provenance = {"review_item_id": item.id, "ask_id": item.ask_id, "user": user, "kind": item.kind,
                      "at": dt.datetime.now(dt.timezone.utc).isoformat(), "source_example_id": item.source_example_id,
                      "verdict": "review-accept", "edited": sql is not None}
        example_id, _merged = add_verified_pair(store, settings, item.question, final_sql, provenance, encode=encode)
        store.execute(
            "UPDATE sqlgenie.review_items SET state = 'accepted', sql = %s, bank_example_id = %s, decided_by = %s,"
            " decided_at = now() WHERE id = %s",
            (final_sql, example_id, user, item.id),
        )
        store.execute(
            "UPDATE sqlgenie.review_items SET state = 'superseded', decided_by = %s, decided_at = now(),"
            " reason = %s WHERE state = 'pending' AND id <> %s AND (ask_id = %s OR question_key = %s)",
            (user, f"review item {item.id} accepted", item.id, item.ask_id, item.question_key),
        )
        if item.source_example_id is not None and item.source_example_id != example_id:
            _supersede_example(store, item.source_example_id, example_id, item.question)
    return get_item(store, item.id)


def _supersede_example(store: psycopg.Connection, old_id: int, new_id: int, question: str) -> None:
    """Retire the downvoted answer's example when it is the same question template as
    the accepted pair (it would compete with it); otherwise note the supersession."""
    row = store.execute(
        "SELECT o.masked_key = n.masked_key FROM sqlgenie.bank_examples o, sqlgenie.bank_examples n"
        " WHERE o.id = %s AND n.id = %s",
        (old_id, new_id),
    ).fetchone()
    same_template = bool(row and row[0])
    store.execute(
        "UPDATE sqlgenie.bank_examples SET details = details || jsonb_build_object('superseded_by', %s::bigint,"
        " 'feedback_reviewed_at', now()), status = CASE WHEN %s THEN 'rejected' ELSE status END, updated_at = now()"
        " WHERE id = %s",
        (new_id, same_template, old_id),
    )


def reject(store: psycopg.Connection, item_id: Any, *, user: str | None = None, reason: str | None = None,
           restore_example: bool = False) -> ReviewItem:
    """Reject an item; with ``restore_example`` a disputed source example is used again."""
    with store.transaction():
        item = get_item(store, item_id)
        store.execute("SELECT 1 FROM sqlgenie.review_items WHERE id = %s FOR UPDATE", (item.id,))
        item = get_item(store, item.id)
        _pending(item)
        store.execute(
            "UPDATE sqlgenie.review_items SET state = 'rejected', decided_by = %s, decided_at = now(), reason = %s"
            " WHERE id = %s",
            (user, reason, item.id),
        )
        if restore_example and item.source_example_id is not None:
            store.execute(
                "UPDATE sqlgenie.bank_examples SET status = CASE WHEN status = 'disputed' THEN 'verified' ELSE status END,"
                " details = details || jsonb_build_object('feedback_reviewed_at', now()), updated_at = now()"
                " WHERE id = %s",
                (item.source_example_id,),
            )
    return get_item(store, item.id)


# --- the next asker --------------------------------------------------------------------


def pending_answer(store: psycopg.Connection, question: str) -> ReviewItem | None:
    """The newest pending item with a SQL that differs from the downvoted answer, for
    this same question (lower-cased, spaces collapsed)."""
    try:
        row = store.execute(*pending_answer_query(question)).fetchone()
    except psycopg.errors.UndefinedTable:
        if not store.autocommit:
            store.rollback()
        return None
    return pending_item(row)


def pending_answer_query(question: str) -> tuple[str, tuple[str, str]]:
    """The statement and parameters :func:`pending_answer` runs (the ask's opening round trip sends
    it together with the bank's version: ``sqlgenie.inference.ask_opening``)."""
    from sqlgenie.feedback.service import question_key

    key = question_key(question)
    return (f"SELECT {_COLUMNS} FROM sqlgenie.review_items WHERE state = 'pending' AND differs AND sql IS NOT NULL"
            " AND md5(question_key) = md5(%s) AND question_key = %s ORDER BY id DESC LIMIT 1", (key, key))


def pending_item(row: Any) -> ReviewItem | None:
    """The :class:`ReviewItem` of a row of :func:`pending_answer_query`, None for no row."""
    return _item(row) if row else None


#: ``apply_pending(item=...)``: the item was not read with the ask's opening (read it here).
NOT_READ: Any = object()


def apply_pending(asker: Any, result: Any, *, execute: bool = True, limit: int | None = None,
                  item: Any = NOT_READ) -> bool:
    """Asker hook: when the question has a pending reviewed-to-be answer, answer with
    it (run by the safe executor), marked unreviewed. Returns whether it did. ``item``: the
    pending item (or None) this ask already read in its opening round trip."""
    from sqlgenie.errors import SQLError

    if item is NOT_READ:
        item = pending_answer(asker.store, result.question)
    if item is None or item.sql is None:
        return False
    previous = result.sql
    result.sql = item.sql
    result.method = "regenerated"
    result.route = result.route or "match"
    result.unreviewed = True
    result.review_id = item.id
    result.status = "ok"
    result.message = None
    result.hint = None
    result.error = None
    result.explanation = (f"Unreviewed: regenerated after a thumbs-down on answer {item.ask_id} (review item "
                          f"{item.id}); a reviewer has not confirmed it yet."
                          + (" The answer before it was: " + previous if previous and previous != item.sql else ""))
    result.columns, result.rows, result.row_count, result.truncated, result.executed = [], [], None, False, False
    if execute:
        try:
            run = asker.executor.run(item.sql, row_cap=limit or None)
        except SQLError as exc:
            result.status = "error"
            result.message = exc.message
            result.hint = exc.hint
            result.error = type(exc).__name__
            return True
        result.executed = True
        result.columns = run.columns
        result.rows = run.rows
        result.row_count = len(run.rows)
        result.truncated = run.truncated
    return True
