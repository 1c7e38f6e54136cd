"""The match route's per-bank caches (issue 13, a bank hit in a warm process): one bank
stamp per ask (:func:`sqlgenie.inference.verify.one_bank_stamp`), the bank's constants
searched in memory (:class:`~sqlgenie.inference.verify.BankValues`) and the caches seeing
an example added to the bank. Real PostgreSQL, real embedder."""

from __future__ import annotations

import pytest

from tests.bank_fixture import LIB_AUTHORS_AT, bank_asker, create_lib

BANK = [
    ("authors who published at ACL", LIB_AUTHORS_AT.format("ACL")),
    ("who published papers at EMNLP", LIB_AUTHORS_AT.format("EMNLP")),
    ("which authors have papers at NAACL", LIB_AUTHORS_AT.format("NAACL")),
    ("papers by Dan Klein",
     "SELECT DISTINCT w.paperid FROM lib.author AS a, lib.writes AS w "
     "WHERE a.authorid = w.authorid AND a.authorname = 'Dan Klein'"),
]


@pytest.fixture(scope="module")
def asker(module_db_url: str):
    with bank_asker(module_db_url, "lib", create_lib, BANK) as made:
        yield made


def _add_example(asker, question: str, sql: str) -> None:
    from example_bank.service import import_question_pairs

    report = import_question_pairs(asker.settings, asker.settings.database_url.get_secret_value(), [(question, sql)])
    assert not report.rejected, report.rejected


def _store_values(retriever, texts):
    """What the store's ``ILIKE`` lookup answers (memory not used)."""
    from sqlgenie.inference.verify import BankValues

    values = BankValues(retriever.store, getattr(retriever, "allowed", None))
    values._memory_read = True  # as if the bank could not be held in memory
    return values.many(texts)


TEXTS = ["acl", "emnlp", "naacl", "dan klein", "DAN KLEIN", "klein", "cvpr", "a_l", "%", "", "ray mooney"]


def test_the_bank_values_in_memory_equal_the_stores(asker) -> None:
    from sqlgenie.inference.verify import BankValues

    retriever = asker.retriever
    memory = BankValues(retriever.store, getattr(retriever, "allowed", None))
    assert memory._sql_in_memory(["acl"]) is not None  # searched in memory, not in the store
    got = memory.many(TEXTS)
    assert got == _store_values(retriever, TEXTS)
    assert got["acl"] == {"venuename"} and got["dan klein"] == {"authorname"} and got["cvpr"] == set()


def test_more_rows_than_the_store_returns_go_to_the_store(asker, monkeypatch) -> None:
    from sqlgenie.inference.verify import BankValues

    retriever = asker.retriever
    values = BankValues(retriever.store, getattr(retriever, "allowed", None))
    assert values._sql_in_memory(["lib"]) is not None  # every bank SQL names the schema
    monkeypatch.setattr(BankValues, "VALUE_ROWS", 2)
    assert values._sql_in_memory(["lib"]) is None  # the store's LIMIT would cut the rows: it answers
    assert values._sql_in_memory(["klein"]) is not None


def test_one_stamp_per_ask_and_a_new_one_for_the_next(asker) -> None:
    from sqlgenie.inference.verify import bank_stamp, one_bank_stamp

    retriever = asker.retriever
    before = bank_stamp(retriever)
    with one_bank_stamp():
        assert bank_stamp(retriever) == before
        _add_example(asker, "authors who published at CVPR", LIB_AUTHORS_AT.format("CVPR"))
        assert bank_stamp(retriever) == before  # read once in the block: one ask sees one bank
    after = bank_stamp(retriever)
    assert after != before  # the next ask sees the new example


def test_an_added_example_is_seen_by_the_per_bank_caches(asker) -> None:
    from sqlgenie.inference.verify import _bank_values

    retriever = asker.retriever
    asker.ask("who published papers at EMNLP", route="match")  # the per-bank caches are made
    assert _bank_values(retriever)("mirella lapata") == set()
    _add_example(asker, "papers by Mirella Lapata",
                 "SELECT DISTINCT w.paperid FROM lib.author AS a, lib.writes AS w "
                 "WHERE a.authorid = w.authorid AND a.authorname = 'Mirella Lapata'")
    assert _bank_values(retriever)("mirella lapata") == {"authorname"}
    before = asker.ask("how many papers were written in total", route="match")
    assert before.status == "refused" or "count" not in (before.sql or "").lower()
    _add_example(asker, "how many papers were written in total", "SELECT count(*) FROM lib.paper")
    r = asker.ask("how many papers were written in total", route="match")
    assert r.status == "ok", r.think and r.think.reason
    assert r.examples[0]["question"] == "how many papers were written in total" and "count" in r.sql.lower()


def test_normalize_sql_of_a_text_is_that_of_its_tree() -> None:
    from example_bank.skeleton import normalize_sql, parse_sql

    sql = "select A.x from T as a where a.Y = 'Q' order by 1"
    assert normalize_sql(sql) == normalize_sql(parse_sql(sql)) == normalize_sql(sql)
