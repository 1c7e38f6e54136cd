"""Match route coverage (issue 13, helper cover19a): a relative year phrase ("this year") that every
verified question saying it writes as one year replaces an example's year value
(sqlgenie/inference/relative_years.py). Real embedded PostgreSQL and the real MiniLM model, the
scholar-like ``lib`` schema of tests/bank_fixture.py."""

from __future__ import annotations

from decimal import Decimal

import pytest
from bank_fixture import bank_asker, create_lib

from sqlgenie.inference import relative_years

_AT = ("SELECT DISTINCT p.paperid FROM lib.paper AS p, lib.venue AS v WHERE v.venueid = p.venueid "
       "AND v.venuename = '{}' AND p.year = {}")
_BY = ("SELECT COUNT(DISTINCT p.paperid) FROM lib.paper AS p, lib.writes AS w, lib.author AS a "
       "WHERE w.paperid = p.paperid AND w.authorid = a.authorid AND a.authorname = '{}' AND p.year = {}")

BANK = [
    ("papers at ACL in 2014", _AT.format("ACL", 2014)),
    ("papers at EMNLP in 2012", _AT.format("EMNLP", 2012)),
    ("which papers appeared at NAACL in 2013", _AT.format("NAACL", 2013)),
    # "this year": 2015 in every question saying it
    ("how many papers did Dan Klein write this year", _BY.format("Dan Klein", 2015)),
    ("number of papers Ray Mooney wrote this year", _BY.format("Ray Mooney", 2015)),
    # "last year": 2014 once, 2013 once: no reading
    ("how many papers did Percy Liang write last year", _BY.format("Percy Liang", 2014)),
    ("number of papers Mirella Lapata wrote last year", _BY.format("Mirella Lapata", 2013)),
]


@pytest.fixture(scope="module")
def asker(module_db_url):
    with bank_asker(module_db_url, "lib", create_lib, BANK) as a:
        yield a


def test_the_bank_reads_a_phrase_written_as_one_year(asker, monkeypatch):
    years = relative_years.year_phrases(asker.retriever, asker.catalog)
    assert years.get("this year") == Decimal(2015)
    assert "last year" not in years  # two years for one phrase: no reading
    assert relative_years.phrase_key("in the past year") == "past year"
    assert relative_years.phrase_key("2015") is None and relative_years.phrase_key("last 5 years") is None
    monkeypatch.setattr(relative_years, "ENABLED", False)
    assert not relative_years.year_phrases(asker.retriever, asker.catalog)


def test_this_year_replaces_the_example_year_with_the_bank_reading(asker, monkeypatch):
    question = "papers at EMNLP this year"
    monkeypatch.setattr(relative_years, "ENABLED", False)
    r = asker.ask(question, route="match")
    assert r.status == "refused", r.sql
    assert "gives no year" in (r.think.reason or ""), r.think.reason
    monkeypatch.setattr(relative_years, "ENABLED", True)
    r = asker.ask(question, route="match")
    assert r.status == "ok", r.think and r.think.reason
    assert "2015" in r.sql and "'EMNLP'" in r.sql and "COUNT" not in r.sql.upper()


def test_a_phrase_the_bank_writes_two_ways_is_refused(asker):
    r = asker.ask("papers at EMNLP last year", route="match")
    assert r.status == "refused", r.sql


def test_a_year_replaces_the_phrase_of_the_example(asker, monkeypatch):
    """The example says "this year" (its SQL: 2015, the bank's reading): the question's 2013 replaces it."""
    question = "how many papers did Dan Klein write in 2013"
    monkeypatch.setattr(relative_years, "EXAMPLE_PHRASES", False)
    r = asker.ask(question, route="match")
    assert r.status == "refused", r.sql
    assert "takes the place of" in (r.think.reason or ""), r.think.reason
    monkeypatch.setattr(relative_years, "EXAMPLE_PHRASES", True)
    r = asker.ask(question, route="match")
    assert r.status == "ok", r.think and r.think.reason
    assert "2013" in r.sql and "2015" not in r.sql and "'Dan Klein'" in r.sql


def test_a_calendar_reading_is_kept_only_today_or_for_a_data_set_with_a_now_of_its_own():
    from datetime import date

    # the calendar's reading today
    assert relative_years.follows_now("this year", Decimal(2026), [2026, 2026], date(2026, 11, 29))
    assert relative_years.follows_now("past year", Decimal(2025), [2026], date(2026, 1, 2))
    # written by the calendar of the year it was added, asked a year later: stale, no reading
    assert not relative_years.follows_now("this year", Decimal(2026), [2026, 2026], date(2027, 1, 2))
    assert not relative_years.follows_now("past year", Decimal(2025), [2026], date(2027, 1, 2))
    assert not relative_years.follows_now("this year", Decimal(2026), [2025, 2026], date(2027, 1, 2))
    # a data set with a "now" of its own (2016, added in 2026): kept
    assert relative_years.follows_now("this year", Decimal(2016), [2026, 2026], date(2027, 1, 2))
    assert relative_years.calendar_offset("next year") == 1 and relative_years.calendar_offset("this year") == 0


def test_a_bank_that_follows_the_calendar_is_not_read_in_a_later_year(asker, monkeypatch):
    """The two "this year" questions (2015) added in 2015: the calendar's reading then, a stale one today."""
    from datetime import date

    store = asker.retriever.store
    ids = [r[0] for r in store.execute(
        "SELECT id FROM sqlgenie.bank_examples WHERE question LIKE %s", ("%this year%",)).fetchall()]
    assert len(ids) == 2
    question = "papers at EMNLP this year"
    try:
        store.execute("UPDATE sqlgenie.bank_examples SET created_at = '2015-05-01' WHERE id = ANY(%s)", (ids,))
        if not store.autocommit:
            store.commit()
        monkeypatch.setattr(relative_years, "TODAY", lambda: date(2015, 12, 1))
        r = asker.ask(question, route="match")
        assert r.status == "ok" and "2015" in r.sql, r.think and r.think.reason
        monkeypatch.setattr(relative_years, "TODAY", lambda: date(2016, 1, 4))
        r = asker.ask(question, route="match")
        assert r.status == "refused", r.sql
        assert "gives no year" in (r.think.reason or ""), r.think.reason
    finally:
        store.execute("UPDATE sqlgenie.bank_examples SET created_at = now() WHERE id = ANY(%s)", (ids,))
        if not store.autocommit:
            store.commit()
