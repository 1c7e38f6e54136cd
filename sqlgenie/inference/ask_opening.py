"""The ask's opening round trip (issue 13, perf19b): what an ask reads from the store in any case, sent
together in one psycopg pipeline (one Sync, one round trip) before anything else of the ask.

A bank hit made about six round trips, three of them small reads on the store connection, each its own
round trip: the bank's version (:func:`sqlgenie.inference.verify.bank_stamp`, once per ask, at the first
look at the held bank), the question's stored embedding (``sqlgenie.ask_embedding_cache``, when the
masked question has no exact match and its vector is not in the process's in-memory cache) and the
question's pending reviewed-to-be answer (:func:`sqlgenie.feedback.review.pending_answer`, after the
answer). None of them depends on another or on anything the ask computes but the masked question, so
:func:`open_ask` sends the same statements, unchanged, at the start of the ask in one pipeline:

* the version becomes this ask's bank stamp (:func:`sqlgenie.inference.verify.seed_ask_stamp`), as the
  first :func:`bank_stamp` of the ask would have read it (one ask sees one bank, as before);
* the embedding row is handed to the encoder for this ask only (``_CachedEncoder.take_read``): the encoder
  uses it, when it is asked for that text in this ask, instead of reading the store (a missing row: the
  model, as before); it is read only when the masked question's vector is not in the in-memory cache
  (also for a question with an exact match, which needs none: an unused row costs the server a lookup,
  no round trip) and forgotten at the end of the ask (``end_ask``): nothing read here outlives the ask;
* the pending item is handed to :func:`sqlgenie.feedback.review.apply_pending`, read at the start of the ask
  instead of its end (an item that turns pending while the ask runs is seen by the next ask, as an item
  that turned pending just after the ask always was).

Nothing is held across asks: every ask reads the store afresh, one round trip instead of up to three.
Only on an idle autocommit store (inside a caller's transaction the reads stay where they were); any error
of the pipeline and the ask reads each value on its own way, as before. :data:`PIPELINED` False: the
reads where they were (the A/B and the tests).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import psycopg
from psycopg.pq import TransactionStatus

__all__ = ["PIPELINED", "AskOpening", "open_ask"]

#: On: the ask's first store reads in one round trip; off: each where it was read before.
PIPELINED = True


@dataclass
class AskOpening:
    """What the opening read: ``pending`` is :data:`sqlgenie.feedback.review.NOT_READ` when not read."""

    pending: Any
    stamp_seeded: bool = False
    embedding_read: bool = False


def open_ask(asker: Any, question: str, *, pending: bool = True) -> AskOpening:
    """Read, in one round trip on ``asker.store``, the bank's version (seeded as this ask's stamp: call
    within :func:`sqlgenie.inference.verify.one_bank_stamp`), the masked question's stored embedding
    when the ask may need it and, with ``pending``, the question's pending reviewed answer."""
    from sqlgenie.feedback.review import NOT_READ, pending_answer_query, pending_item
    from sqlgenie.inference.verify import BANK_VERSION_SQL, seed_ask_stamp

    nothing = AskOpening(NOT_READ)
    store = getattr(asker, "store", None)
    retriever = getattr(asker, "retriever", None)
    if not PIPELINED or store is None or retriever is None or getattr(retriever, "store", None) is not store:
        return nothing
    if store.closed or not store.autocommit or store.info.transaction_status != TransactionStatus.IDLE:
        return nothing
    embedding = _embedding_query(asker, question)
    try:
        with store.pipeline():
            version = store.execute(BANK_VERSION_SQL)
            pending_cursor = store.execute(*pending_answer_query(question)) if pending else None
            embedding_cursor = store.execute(*embedding[1]) if embedding is not None else None
        version_row = version.fetchone()
        pending_row = pending_cursor.fetchone() if pending_cursor is not None else None
        embedding_row = embedding_cursor.fetchone() if embedding_cursor is not None else None
    except psycopg.Error:  # e.g. a store without the review table: each read on its own way
        return nothing
    opened = AskOpening(pending_item(pending_row) if pending else NOT_READ)
    if version_row is not None:  # no version row: bank_stamp reads (and answers None) as before
        opened.stamp_seeded = seed_ask_stamp(store, getattr(retriever, "allowed", None), version_row[0])
    if embedding is not None:
        asker.encode.take_read(embedding[0], embedding_row)
        opened.embedding_read = True
    return opened


def _embedding_query(asker: Any, question: str) -> tuple[str, tuple] | None:
    """(text, (statement, parameters)) of the masked question's stored vector, when the encoder would read
    the store for it (not in its in-memory cache). Read whether or not the question has an exact match
    (which needs no vector; knowing it takes the bank's version first): an unused row is forgotten."""
    from example_bank.retrieval import embedding_text

    encoder = getattr(asker, "encode", None)
    if encoder is None or not hasattr(encoder, "store_query"):
        return None
    retriever = asker.retriever
    masked = retriever.mask(question)
    text = embedding_text(masked)
    query = encoder.store_query(text)
    if query is None or encoder.held(text):
        return None
    return text, query
