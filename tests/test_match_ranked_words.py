"""Match route coverage (issue 13, helper cover19a): a word the bank ranks with only beside a ranking
word ("*most* cited") is no ranking modifier for a question that says none
(sqlgenie/inference/ranked_words.py). Real embedded PostgreSQL and the real MiniLM model, the
scholar-like ``lib`` schema of tests/bank_fixture.py."""

from __future__ import annotations

import pytest
from bank_fixture import bank_asker, create_lib

from sqlgenie.inference import precision, ranked_words

_MOST = ("SELECT p.paperid, COUNT(c.citingpaperid) FROM lib.paper AS p, lib.venue AS v, lib.cite AS c "
         "WHERE v.venueid = p.venueid AND v.venuename = '{}' AND c.citedpaperid = p.paperid "
         "GROUP BY p.paperid ORDER BY COUNT(c.citingpaperid) DESC")
_CITATIONS = ("SELECT COUNT(c.citingpaperid) FROM lib.author AS a, lib.writes AS w, lib.cite AS c "
              "WHERE a.authorname = '{}' AND w.authorid = a.authorid AND c.citedpaperid = w.paperid")
_POPULAR = ("SELECT p.paperid, COUNT(c.citingpaperid) FROM lib.paper AS p, lib.venue AS v, lib.cite AS c "
            "WHERE v.venueid = p.venueid AND v.venuename = '{}' AND c.citedpaperid = p.paperid "
            "GROUP BY p.paperid ORDER BY COUNT(c.citingpaperid) DESC LIMIT 1")

BANK = [
    ("most cited papers at ACL", _MOST.format("ACL")),
    ("which paper at EMNLP was cited the most", _MOST.format("EMNLP")),
    ("what is the most cited paper at NAACL", _MOST.format("NAACL")),
    ("how many citations does Dan Klein have", _CITATIONS.format("Dan Klein")),
    ("how many citations does Ray Mooney have", _CITATIONS.format("Ray Mooney")),
    ("number of citations of Mirella Lapata", _CITATIONS.format("Mirella Lapata")),
    # "popular" ranks on its own
    ("popular paper at ACL", _POPULAR.format("ACL")),
    ("the popular paper at CVPR", _POPULAR.format("CVPR")),
    ("which paper at EMNLP is popular", _POPULAR.format("EMNLP")),
]


@pytest.fixture(scope="module")
def asker(module_db_url):
    with bank_asker(module_db_url, "lib", create_lib, BANK) as a:
        yield a


def _modifiers(asker):
    return precision.modifier_words(asker.retriever, asker.catalog)


def test_a_word_ranked_only_beside_most_does_not_rank_alone(asker):
    mods = _modifiers(asker)
    assert mods.modifiers(["cited"]) == {"cited": frozenset({precision._ORDER})}  # 3 of 3 uses rank
    assert not mods.ranks_alone("cited")  # none of them without "most"
    assert mods.ranks_alone("popular")  # ranks with no other ranking word
    assert ranked_words.question_ranks("the most cited paper") and not ranked_words.question_ranks("cited papers")


def test_a_question_without_a_ranking_word_is_answered(asker, monkeypatch):
    question = "how many times was Percy Liang cited"
    monkeypatch.setattr(ranked_words, "ENABLED", False)
    r = asker.ask(question, route="match")
    assert r.status == "refused", r.sql
    assert "ranking" in (r.think.reason or ""), r.think.reason
    monkeypatch.setattr(ranked_words, "ENABLED", True)
    r = asker.ask(question, route="match")
    assert r.status == "ok", r.think and r.think.reason
    assert "'Percy Liang'" in r.sql and "ORDER" not in r.sql.upper()
