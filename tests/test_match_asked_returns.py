"""Match route, sqlgenie/inference/asked_returns.py (issue 13, helper atis17): the thing a listing question names
("what *venues* are X 's papers in ?") must be what the adapted query returns; "venue articles by Y" asks for
articles (its last word, which names no table), so its query, returning papers, answers no question about venues. On a real PostgreSQL
with the real MiniLM model."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from bank_fixture import bank_asker, create_lib, refused_then_answered_without

from sqlgenie.autocorrect.base import parse_sql
from sqlgenie.inference import asked_returns
from sqlgenie.inference.asked_returns import asked_table, reason_code, returned_words

_PAPERS_OF = ("SELECT DISTINCT w.paperid FROM lib.author AS a, lib.writes AS w "
              "WHERE a.authorname = '{}' AND w.authorid = a.authorid")

BANK = [
    ("venue articles by Dan Klein", _PAPERS_OF.format("Dan Klein")),
    ("venue articles by Ray Mooney", _PAPERS_OF.format("Ray Mooney")),
]

_LIB = SimpleNamespace(tables=[SimpleNamespace(name=n, columns=[]) for n in
                               ("author", "venue", "paper", "writes", "keyphrase", "journal")],
                       table=lambda *a: None)


@pytest.fixture(scope="module")
def asker(module_db_url):
    with bank_asker(module_db_url, "lib", create_lib, BANK) as a:
        yield a


def test_venues_are_not_venue_papers(asker, monkeypatch):
    sql = refused_then_answered_without(asker, monkeypatch, "what venues are Mirella Lapata 's articles in ?",
                                        "asked_table", reason_code, [(asked_returns, "ASKED_TABLE")])
    assert "paperid" in sql and "venueid" not in sql


def test_the_same_thing_asked_is_answered(asker):
    r = asker.ask("venue articles by Percy Liang", route="match")
    assert r.status == "ok", r.think and r.think.reason


# --------------------------------------------------------------------------- the reading alone

_JOURNAL_PAPERS = ("SELECT DISTINCT p.paperid FROM author AS a, paper AS p, writes AS w WHERE a.authorname = 'X' "
                   "AND p.journalid >= 0 AND w.authorid = a.authorid AND w.paperid = p.paperid")


def test_journals_asked_papers_returned():
    tree = parse_sql(_JOURNAL_PAPERS)
    found = asked_table(tree, "journal articles by [MASK]", "what journals are [MASK] 's articles published in ?",
                        _LIB)
    assert found and reason_code(found[0]) == "asked_table"


def test_a_column_that_names_the_table_returns_it():
    tree = parse_sql(_JOURNAL_PAPERS.replace("SELECT DISTINCT p.paperid", "SELECT DISTINCT p.journalid"))
    assert "journal" in returned_words(tree, _LIB)
    assert asked_table(tree, "journal articles by [MASK]", "what journals did [MASK] publish in ?", _LIB) == []


def test_a_modifier_or_a_verb_last_is_not_the_asked_thing():
    tree = parse_sql(_JOURNAL_PAPERS)
    assert asked_table(tree, "papers by [MASK]", "journal papers by [MASK]", _LIB) == []  # the head is "papers"
    assert asked_table(tree, "papers by [MASK]", "which authors wrote with [MASK]", _LIB) == []  # runs into a clause
    assert asked_table(tree, "papers by [MASK]", "who are the authors of [MASK]", _LIB) == []  # who: not read here


def test_a_table_named_in_the_plural_is_returned_by_its_columns():
    """Spider seed 3: "Which professionals have operated a treatment ..." against "What are the first name and last
    name of the professionals who ..." returns ``professionals.first_name``: the table, named in the plural."""
    catalog = SimpleNamespace(tables=[SimpleNamespace(name="professionals", columns=[]),
                                      SimpleNamespace(name="treatments", columns=[])], table=lambda *a: None)
    tree = parse_sql("SELECT DISTINCT t1.first_name, t1.last_name FROM professionals AS t1 JOIN treatments AS t2 ON TRUE")
    assert "professional" in returned_words(tree, catalog)
    assert asked_table(tree, "what are the first name and last name of the professionals who have done treatment",
                       "which professionals have operated a treatment", catalog) == []
