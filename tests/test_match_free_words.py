"""Match route coverage of sqlgenie/inference/free_words.py (issue 13, helper atis12) on a real PostgreSQL
with the real MiniLM model: a word the bank's paraphrases of several queries say in some members and
leave out in others ("i would like ...") is free: the deeper candidates' license neither counts it as a
word the question adds nor as one it drops. Words most paraphrases keep, schema words and superlatives
are never free."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from bank_fixture import AIR_ROUTE, air_asker, air_route

from sqlgenie.inference import deeper, free_words, worded_apart

CITIES = ["BOSTON", "DENVER", "ATLANTA", "PITTSBURGH", "DALLAS", "CHICAGO"]


def _count(x: str, y: str) -> str:
    return f"SELECT COUNT(DISTINCT f.flight_id) {AIR_ROUTE} AND a.city_name = '{x}' AND b.city_name = '{y}'"


def _from(x: str) -> str:
    return f"SELECT DISTINCT f.flight_id {AIR_ROUTE} AND a.city_name = '{x}'"


def _to(y: str) -> str:
    return f"SELECT DISTINCT f.flight_id {AIR_ROUTE} AND b.city_name = '{y}'"


def _cheapest(x: str, y: str) -> str:
    return f"SELECT f.flight_id {AIR_ROUTE} AND a.city_name = '{x}' AND b.city_name = '{y}' ORDER BY f.flight_id LIMIT 1"


BANK = [
    # four queries, each said with and without "i would like" (and "please" once): "like" is optional in four groups
    ("show me flights from BOSTON to DENVER", air_route("BOSTON", "DENVER")),
    ("i would like flights from ATLANTA to DALLAS", air_route("ATLANTA", "DALLAS")),
    ("how many flights go from BOSTON to ATLANTA", _count("BOSTON", "ATLANTA")),
    ("i would like to know how many flights go from DENVER to DALLAS", _count("DENVER", "DALLAS")),
    ("list flights leaving PITTSBURGH", _from("PITTSBURGH")),
    ("i would like the flights leaving CHICAGO", _from("CHICAGO")),
    ("list flights arriving in DALLAS", _to("DALLAS")),
    ("i would like the flights arriving in BOSTON please", _to("BOSTON")),
    # a fifth query that no paraphrase says with "like"
    ("where do flights from BOSTON go", _from("BOSTON").replace("f.flight_id", "f.flight_id, f.to_city")),
    ("where do the flights from DALLAS go", _from("DALLAS").replace("f.flight_id", "f.flight_id, f.to_city")),
    # a query said once, with "like"
    ("i would like the number of flights leaving DENVER",
     _from("DENVER").replace("DISTINCT f.flight_id", "COUNT(DISTINCT f.flight_id)")),
    # "cheapest" said by some paraphrases of one query only: a superlative, never free
    ("the cheapest flight from BOSTON to DALLAS", _cheapest("BOSTON", "DALLAS")),
    ("the first flight from DENVER to CHICAGO by number", _cheapest("DENVER", "CHICAGO")),
]


@pytest.fixture(scope="module")
def asker(module_db_url):
    with air_asker(module_db_url, CITIES, BANK) as a:
        yield a


def test_words_optional_in_several_queries_are_free(asker, monkeypatch):
    words = free_words.FreeWords(asker.retriever, asker.catalog).words()
    assert {"like", "would"} <= words
    assert "flight" not in words and "cheapest" not in words  # a schema word, a superlative
    monkeypatch.setattr(free_words, "MIN_GROUPS", 5)  # optional in four groups only
    assert "like" not in free_words.FreeWords(asker.retriever, asker.catalog).words()


def _cand(asker, question: str):
    row = asker.store.execute("SELECT id, sql FROM sqlgenie.bank_examples WHERE question = %s", (question,)).fetchone()
    return SimpleNamespace(example=SimpleNamespace(id=row[0], question=question, sql=row[1],
                                                   skeleton=asker.store.execute(
                                                       "SELECT skeleton FROM sqlgenie.bank_examples WHERE id = %s",
                                                       (row[0],)).fetchone()[0]))


def test_a_free_word_is_no_unlicensed_addition_of_a_deeper_candidate(asker, monkeypatch):
    cand = _cand(asker, "where do flights from BOSTON go")
    retrieval = SimpleNamespace(masked=asker.retriever.mask("i would like where flights from ATLANTA go"))
    assert deeper.added_words(asker, retrieval, cand) == []
    monkeypatch.setattr(free_words, "ENABLED", False)
    assert set(deeper.added_words(asker, retrieval, cand)) >= {"like"}


def test_a_free_word_the_example_says_is_no_dropped_word(asker, monkeypatch):
    cand = _cand(asker, "i would like the number of flights leaving DENVER")
    retrieval = SimpleNamespace(masked=asker.retriever.mask("the number of flights leaving BOSTON"))
    assert worded_apart.dropped_words(asker, retrieval, cand) == []
    monkeypatch.setattr(free_words, "ENABLED", False)
    assert "like" in worded_apart.dropped_words(asker, retrieval, cand)
