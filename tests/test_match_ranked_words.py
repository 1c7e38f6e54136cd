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
_CITED_BY = ("SELECT COUNT(DISTINCT c.citedpaperid) FROM lib.author AS a, lib.writes AS w, lib.cite AS c "
             "WHERE a.authorname = '{}' AND w.authorid = a.authorid AND c.citingpaperid = w.paperid")
_CITED_FROM = ("SELECT DISTINCT c.citedpaperid FROM lib.paper AS p, lib.venue AS v, lib.cite AS c "
               "WHERE v.venueid = p.venueid AND v.venuename = '{}' AND c.citingpaperid = p.paperid")
_POPULAR = ("SELECT p.paperid, COUNT(c.citingpaperid) FROM lib.paper AS p, lib.venue AS v, lib.cite AS c "
            "WHERE v.venueid = p.venueid AND v.venuename = '{}' AND c.citedpaperid = p.paperid "
            "GROUP BY p.paperid ORDER BY COUNT(c.citingpaperid) DESC LIMIT 1")
_VENUES = ("ACL", "EMNLP", "NAACL", "CVPR")

BANK = [
    # "cited" ranks in 12 of 15 questions (80 %: a ranking modifier), always beside "most"
    # (worded with "cited" far from the value: no role cue, tests/test_match_role_cues.py)
    *[(f"most cited paper among all the papers at {v}", _MOST.format(v)) for v in _VENUES],
    *[(f"which paper was cited the most among all papers published at {v}", _MOST.format(v)) for v in _VENUES],
    *[(f"what is the most cited one of the papers published at {v}", _MOST.format(v)) for v in _VENUES],
    # ... and in none of the three that say no ranking word
    *[(f"list the papers cited by any of the papers published at {v}", _CITED_FROM.format(v)) for v in _VENUES[:3]],
    ("how many papers did Dan Klein cite", _CITED_BY.format("Dan Klein")),
    ("how many papers does Ray Mooney cite", _CITED_BY.format("Ray Mooney")),
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
    assert mods.modifiers(["cited"]) == {"cited": frozenset({precision._ORDER})}  # 12 of 15 uses rank
    assert not mods.ranks_alone("cited")  # none of them without "most"
    assert mods.ranks_alone("popular")  # ranks with no other ranking word
    assert ranked_words.question_ranks("the most cited paper") and not ranked_words.question_ranks("cited papers")


def test_a_question_without_a_ranking_word_is_answered(asker, monkeypatch):
    question = "how many papers has Percy Liang cited"
    monkeypatch.setattr(ranked_words, "ENABLED", False)
    r = asker.ask(question, route="match")
    assert r.status == "refused", r.sql
    assert "ranking" in (r.think.reason or ""), r.think.reason
    monkeypatch.setattr(ranked_words, "ENABLED", True)
    r = asker.ask(question, route="match")
    assert r.status == "ok", r.think and r.think.reason
    assert "'Percy Liang'" in r.sql and "ORDER" not in r.sql.upper()
