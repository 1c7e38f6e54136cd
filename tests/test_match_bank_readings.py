"""What a bank hit reads once more (issue 13, perf16): one example SQL's alignment with its question's
spans is remembered on its reading (``adapt.example_alignment``: groups, sides, other_query,
counterparts, implied constants and unbound slots read the same one), a reading keeps the remembered
parse itself (no copy), the exact matches of a question are looked up once per ask, and the query log
commits without waiting for its WAL flush (``query_log.ASYNC_COMMIT``). Answers are unchanged by
construction. Real PostgreSQL, real embedder."""

from __future__ import annotations

import pytest
import sqlglot

from tests.bank_fixture import LIB_AUTHORS_AT, bank_asker, create_lib

PAPERS_BY = ("SELECT DISTINCT w.paperid FROM lib.author AS a, lib.writes AS w "
             "WHERE a.authorid = w.authorid AND a.authorname = '{}'")
BANK = [
    ("authors who published at ACL", LIB_AUTHORS_AT.format("ACL")),
    ("papers by Dan Klein", PAPERS_BY.format("Dan Klein")),
    ("papers written by Ray Mooney", PAPERS_BY.format("Ray Mooney")),
]


@pytest.fixture(scope="module")
def asker(module_db_url: str):
    with bank_asker(module_db_url, "lib", create_lib, BANK) as made:
        yield made


def test_an_alignment_is_remembered_per_reading_and_spans(asker) -> None:
    from sqlgenie.inference import adapt

    sql = PAPERS_BY.format("Dan Klein")
    spans = asker.retriever.mask("papers by Dan Klein").spans
    slots, alignment = adapt.example_alignment(sql, spans, asker.catalog)
    assert adapt.example_alignment(sql, spans, asker.catalog)[1] is alignment  # remembered
    fresh = adapt.align([adapt.Span.of(s) for s in spans], slots)
    assert [(b.span, b.slot, b.render) for b in alignment.bindings] == \
        [(b.span, b.slot, b.render) for b in fresh.bindings] and alignment.bindings
    other = asker.retriever.mask("papers by Ray Mooney").spans  # other spans: their own alignment
    assert adapt.example_alignment(sql, other, asker.catalog)[1].bindings == []
    assert adapt.unbound_slots(sql, spans, asker.catalog) == []  # the text path reads the same alignment
    changed = PAPERS_BY.format("Ray Mooney")  # a corrected example is a new text: read anew
    assert adapt.example_alignment(changed, other, asker.catalog)[1].bindings


def test_the_alignments_of_a_reading_are_bounded(asker, monkeypatch) -> None:
    from sqlgenie.inference import adapt

    monkeypatch.setattr(adapt, "ALIGNMENTS_PER_READING", 2)
    sql = PAPERS_BY.format("Dan Klein")
    for name in ("papers by Dan Klein", "papers by Ray Mooney", "papers by Percy Liang", "papers by Mirella Lapata"):
        adapt.example_alignment(sql, asker.retriever.mask(name).spans, asker.catalog)
    assert len(adapt.example_sql_reading(sql, asker.catalog)._alignments) <= 2


def test_a_reading_keeps_the_remembered_parse_and_copies_stay_its_own(asker) -> None:
    from sqlgenie.autocorrect.base import parse_sql, parsed_read_only
    from sqlgenie.inference import adapt
    from sqlgenie.inference.adapt import example_sql_reading

    sql = PAPERS_BY.format("Percy Liang")
    reading = example_sql_reading(sql, asker.catalog)
    assert reading.tree is parsed_read_only(sql)
    copy = parse_sql(sql)
    assert copy is not reading.tree
    copy.set("distinct", None)  # a caller rewrites its copy
    assert "DISTINCT" in reading.tree.sql() and "Percy Liang" in parse_sql(sql).sql()
    spans = asker.retriever.mask("papers by Percy Liang").spans
    adapt.example_alignment(sql, spans, asker.catalog)  # every reading of it: resolver, slots, vocabulary
    reading.vocabulary()
    adapt.unbound_slots(sql, spans, asker.catalog)
    fresh = sqlglot.parse_one(sql, read="postgres")
    assert parsed_read_only(sql) == fresh  # the shared parse is left as parsed
    assert all(not (n._meta or {}).keys() - {"line", "col", "start", "end"} for n in parsed_read_only(sql).walk())


def test_the_exact_matches_are_looked_up_once_per_ask(asker, monkeypatch) -> None:
    bank = asker.retriever.bank
    calls = []
    real = bank.exact_matches

    def counted(*args, **kwargs):
        calls.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(bank, "exact_matches", counted)
    question = "papers that Mirella Lapata wrote"  # no exact match: the nearest examples
    got = asker._retrieve(question, "auto")
    assert len(calls) == 1
    monkeypatch.setattr(bank, "exact_matches", real)
    again = asker.retriever.retrieve(question, k=len(got.matches) or 5, threshold=0.0)
    assert [m.example.id for m in got.matches] == [m.example.id for m in again.matches][:len(got.matches)]


@pytest.mark.parametrize("async_commit", [True, False])
def test_a_query_log_entry_is_seen_at_once_and_the_setting_does_not_leak(asker, module_db_url, monkeypatch,
                                                                          async_commit) -> None:
    from sqlgenie.inference import query_log
    from sqlgenie.store.connection import open_connection

    monkeypatch.setattr(query_log, "ASYNC_COMMIT", async_commit)
    with open_connection(module_db_url, autocommit=True) as conn, open_connection(module_db_url, autocommit=True) as other:
        entry = query_log.record(conn, question="how many papers", status="ok", sql="SELECT 1", route="match",
                                 details={"k": 1})
        assert query_log.get(other, entry)["question"] == "how many papers"  # committed, seen by another session
        assert conn.execute("SHOW synchronous_commit").fetchone()[0] == "on"  # SET LOCAL: this entry only
    with open_connection(module_db_url) as conn:  # a caller's transaction: committed as before
        conn.autocommit = False
        entry = query_log.record(conn, question="in a transaction", status="ok")
        assert conn.execute("SHOW synchronous_commit").fetchone()[0] == "on"
    with open_connection(module_db_url, autocommit=True) as other:
        assert query_log.get(other, entry)["question"] == "in a transaction"
