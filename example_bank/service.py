"""The bank's operations as plain functions returning JSON-ready dicts: the CLI
(``sqlgenie bank list | show | search | add``) and the server's routes both call
these, so they answer the same thing."""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np
import psycopg

from sqlgenie.errors import InputError

Encode = Callable[[list[str]], np.ndarray]


def example_to_dict(example: Any, *, full: bool = False) -> dict[str, Any]:
    out = {
        "id": example.id,
        "question": example.question,
        "masked_question": example.masked_question,
        "sql": example.sql,
        "status": example.status,
        "source": example.source,
        "tables": example.tables,
        "use_count": example.use_count,
        "merge_count": example.merge_count,
        "created_at": example.created_at,
    }
    if full:
        out.update(
            columns=example.columns,
            skeleton=example.skeleton,
            sql_normalized=example.sql_normalized,
            updated_at=example.updated_at,
            last_used_at=example.last_used_at,
            spans=example.spans,
            metrics=[{"metric": m.metric, "formula": m.formula, "columns": m.columns} for m in example.metrics],
        )
    return out


def list_examples(store: psycopg.Connection, *, status: str | None = None, source: str | None = None,
                  table: str | None = None, limit: int = 50, offset: int = 0) -> dict[str, Any]:
    """``{"total", "examples"}``: examples oldest first."""
    from example_bank.store import BankStore

    bank = BankStore(store)
    examples = bank.list(status=status, source=source, table=table, limit=limit, offset=offset)
    return {"total": bank.count(), "examples": [example_to_dict(e) for e in examples]}


def show_example(store: psycopg.Connection, example_id: int) -> dict[str, Any]:
    from example_bank.store import BankStore

    example = BankStore(store).get(example_id)
    if example is None:
        raise InputError(f"No example with id {example_id}.", hint="`sqlgenie bank list` shows the ids.")
    return example_to_dict(example, full=True)


def search_examples(store: psycopg.Connection, target: psycopg.Connection | None, question: str, *,
                    encode: Encode, threshold: float, k: int = 5, statuses: Sequence[str] = ("verified",),
                    filter_tables: bool = True) -> dict[str, Any]:
    """The examples closest to ``question``: exact masked match first, then cosine
    similarity of masked embeddings at least ``threshold``."""
    from example_bank.retrieval import Retriever

    if not (question or "").strip():
        raise InputError("The question is empty.", hint='e.g. sqlgenie bank search "orders in 2024"')
    retriever = Retriever(store, target, encode=encode, threshold=threshold, statuses=tuple(statuses),
                          filter_tables=filter_tables)
    result = retriever.retrieve(question, k=k, threshold=threshold)
    return {
        "question": question,
        "masked_question": result.masked.text,
        "spans": [s.__dict__ for s in result.masked.spans],
        "threshold": threshold,
        "elapsed_ms": round(result.elapsed_ms, 1),
        "matches": [{"score": round(m.score, 4), "exact": m.exact, **example_to_dict(m.example)} for m in result.matches],
    }


def add_example(store: psycopg.Connection, target: psycopg.Connection | None, target_url: str | None,
                question: str, sql: str, *, encode: Encode, model_name: str | None, dialect: str = "postgres",
                status: str = "verified", source: str = "user") -> dict[str, Any]:
    """Validate and add one pair (a duplicate is merged); ``{"id", "merged", ...}``."""
    from example_bank.importer import BankContext, add_pair

    ctx = BankContext.load(store, target, target_url)
    try:
        result, masked, analysis = add_pair(ctx, question, sql, encode=encode, dialect=dialect, status=status,
                                            source=source, model_name=model_name)
    finally:
        ctx.close()
    return {
        "id": result.id,
        "merged": result.merged,
        "masked_question": masked.text,
        "spans": [s.__dict__ for s in masked.spans],
        "sql": analysis.sql,
        "skeleton": analysis.skeleton,
        "tables": analysis.tables,
    }


def import_question_pairs(settings: Any, url: str, pairs: Sequence[tuple[str, str]]) -> Any:
    """Import ``(question, SQL)`` pairs (ids 1..n in order) into the bank of the store
    ``settings`` name, checked against the database at ``url`` and encoded with the
    settings' embedding model; the :class:`~example_bank.importer.ImportReport`
    (rejected pairs are in it, not raised)."""
    from example_bank.embedder import get_embedder
    from example_bank.importer import BankContext, import_pairs
    from sqlgenie.store import connect_store, open_connection

    with connect_store(settings) as store, open_connection(url, autocommit=True) as target:
        ctx = BankContext.load(store, target, url)
        try:
            return import_pairs(ctx, [(i, q, s) for i, (q, s) in enumerate(pairs, 1)],
                                encode=get_embedder(settings.embedding_model).encode)
        finally:
            ctx.close()
