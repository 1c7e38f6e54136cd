"""The ask's opening round trip (issue 13, perf19b; ``sqlgenie.inference.ask_opening``): the bank's version,
the masked question's stored embedding and the question's pending reviewed answer are read in one pipelined
round trip at the start of the ask instead of three. Nothing read there outlives the ask: a bank example or a
pending item another connection adds is seen by the next ask, an embedding read for an ask is used by that
ask only, and the answers are those of the reads made one by one. Real PostgreSQL, real embedder."""

from __future__ import annotations

import psycopg
import pytest

from tests.bank_fixture import bank_asker, create_lib

PAPERS_BY = ("SELECT DISTINCT w.paperid FROM lib.author AS a, lib.writes AS w "
             "WHERE a.authorid = w.authorid AND a.authorname = '{}'")
BANK = [
    ("papers by Dan Klein", PAPERS_BY.format("Dan Klein")),
    ("papers written by Ray Mooney", PAPERS_BY.format("Ray Mooney")),
]
#: No exact masked match in BANK: retrieval needs the question's vector.
NEAR = "which papers were written by Percy Liang"
OPENING_READS = ("sqlgenie.bank_version", "sqlgenie.review_items", "sqlgenie.ask_embedding_cache")


@pytest.fixture(scope="module")
def asker(module_db_url: str):
    with bank_asker(module_db_url, "lib", create_lib, BANK) as made:
        yield made


def _store_reads(asker, monkeypatch) -> list[tuple[str, bool]]:
    """(statement, sent inside a pipeline) of every statement the asker's store connection runs."""
    seen: list[tuple[str, bool]] = []
    store = asker.store
    real = psycopg.Cursor.execute

    def counted(self, query, *args, **kwargs):
        if self.connection is store:
            seen.append((str(query), store._pipeline is not None))
        return real(self, query, *args, **kwargs)

    monkeypatch.setattr(psycopg.Cursor, "execute", counted)
    return seen


def _forget_vector(asker, question: str) -> str:
    from example_bank.retrieval import embedding_text

    text = embedding_text(asker.retriever.mask(question))
    asker.encode._cache.pop(text, None)
    return text


def test_the_opening_reads_in_one_round_trip_what_the_ask_read_one_by_one(asker, monkeypatch) -> None:
    from sqlgenie.inference import ask_opening

    asker.encode([_forget_vector(asker, NEAR)])  # computed and stored: the ask below reads it
    _forget_vector(asker, NEAR)
    seen = _store_reads(asker, monkeypatch)
    got = asker.ask(NEAR, execute=False)
    assert got.status == "ok" and "'Percy Liang'" in got.sql, got.message
    opening = [q for q, piped in seen if any(t in q for t in OPENING_READS)]
    assert len(opening) == 3, seen
    assert all(piped for q, piped in seen if any(t in q for t in OPENING_READS)), seen  # one Sync: one round trip
    assert "open" in got.timings_ms

    seen.clear()
    monkeypatch.setattr(ask_opening, "PIPELINED", False)  # the reads one by one, each its own round trip
    _forget_vector(asker, NEAR)
    again = asker.ask(NEAR, execute=False)
    assert (again.status, again.sql, again.example_id) == (got.status, got.sql, got.example_id)
    alone = [q for q, piped in seen if any(t in q for t in OPENING_READS)]
    assert len(alone) == 3 and not any(piped for _, piped in seen), seen


def test_a_pending_item_another_connection_adds_is_answered_by_the_next_ask(asker) -> None:
    from sqlgenie.feedback.review import create_item
    from sqlgenie.inference import query_log

    question = "papers by Ray Mooney"
    first = asker.ask(question, execute=False)
    assert first.status == "ok" and not first.unreviewed
    proposed = PAPERS_BY.format("Ray Mooney") + " ORDER BY w.paperid"
    url = asker.settings.database_url.get_secret_value()
    with psycopg.connect(url, autocommit=True) as other:
        ask_id = query_log.record(other, question=question, status="ok", sql=first.sql)
        item = create_item(other, kind="correction", ask_id=ask_id, question=question, sql=proposed)
        try:
            pending = asker.ask(question, execute=False)
            assert pending.unreviewed and pending.review_id == item and pending.sql == proposed
        finally:
            other.execute("DELETE FROM sqlgenie.review_items WHERE id = %s", (item,))
    after = asker.ask(question, execute=False)
    assert not after.unreviewed and after.sql == first.sql


def test_the_ask_sees_the_bank_version_of_its_opening_and_a_new_one_next(asker, monkeypatch) -> None:
    from example_bank.service import import_question_pairs
    from sqlgenie.inference import verify

    stamps: list[tuple | None] = []
    real = verify.one_bank_stamp

    def fresh() -> tuple | None:
        return verify._read_bank_stamp(asker.store, asker.retriever.allowed)

    def record_stamp(*args, **kwargs):
        if verify._ASK_STAMPS.get() is not None:  # _answer's block, inside the ask's (the ask's own: not yet)
            stamps.append(verify.bank_stamp(asker.retriever))  # what this ask's per-bank caches compare with
        return real(*args, **kwargs)

    from sqlgenie.inference import pipeline

    monkeypatch.setattr(pipeline, "one_bank_stamp", record_stamp)
    asker.ask("papers by Dan Klein", execute=False)
    assert stamps[-1] is not None and stamps[-1] == fresh()
    added = "which papers did Mirella Lapata write"
    url = asker.settings.database_url.get_secret_value()
    report = import_question_pairs(asker.settings, url, [(added, PAPERS_BY.format("Mirella Lapata"))])
    assert not report.rejected, report.rejected
    try:
        got = asker.ask(added, execute=False)
        assert stamps[-1] == fresh() and stamps[-1] != stamps[0]
        assert got.status == "ok" and got.decision.exact and "'Mirella Lapata'" in got.sql  # the new example
    finally:
        with psycopg.connect(url, autocommit=True) as other:
            other.execute("DELETE FROM sqlgenie.bank_examples WHERE question = %s", (added,))
    asker.ask("papers by Dan Klein", execute=False)
    assert stamps[-1] == fresh() and stamps[-1] != stamps[-2]


def test_a_vector_read_by_the_opening_is_the_stored_one_and_is_not_kept_past_the_ask(asker) -> None:
    import numpy as np

    text = _forget_vector(asker, NEAR)
    asker.encode([text])  # stored (it was asked before), now in memory
    stored = asker.encode._from_store(text)
    assert stored is not None
    _forget_vector(asker, NEAR)
    calls = asker.encode.model_calls
    got = asker.ask(NEAR, execute=False)
    assert got.status == "ok"
    assert asker.encode.model_calls == calls  # the opening's row, not the model
    assert np.array_equal(asker.encode._cache[text], stored)
    assert asker.encode._ask_read == {}

    exact = "papers by Dan Klein"  # an exact match needs no vector: the row read is forgotten
    exact_text = _forget_vector(asker, exact)
    asker.encode._to_store(exact_text, asker.encode._model_encode([exact_text])[0])
    got = asker.ask(exact, execute=False)
    assert got.decision.exact and exact_text not in asker.encode._cache and asker.encode._ask_read == {}


def test_inside_a_callers_transaction_the_reads_stay_where_they_were(asker) -> None:
    from sqlgenie.feedback.review import NOT_READ
    from sqlgenie.inference import ask_opening
    from sqlgenie.inference.verify import one_bank_stamp

    asker.store.autocommit = False
    try:
        with one_bank_stamp():
            opened = ask_opening.open_ask(asker, "papers by Dan Klein")
        assert opened.pending is NOT_READ and not opened.stamp_seeded and not opened.embedding_read
    finally:
        asker.store.rollback()
        asker.store.autocommit = True
