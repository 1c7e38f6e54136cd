"""Match route coverage (issue 13, helper cover19a): a schema word the bank says in many verified
questions and reads in none of their queries is no schema change (sqlgenie/inference/idle_schema_words.py).
Real embedded PostgreSQL and the real MiniLM model: a flight bank over ``air`` whose flights have a
``trip_kind`` column; five verified questions say "trips" and count flights (never reading
``trip_kind``), one says "kind" and reads it."""

from __future__ import annotations

import pytest
from bank_fixture import air_route, bank_asker, create_air

from sqlgenie.inference import idle_schema_words

CITIES = ["BOSTON", "DENVER", "ATLANTA", "PITTSBURGH", "DALLAS"]
_FROM = ("SELECT COUNT(DISTINCT f.flight_id) FROM air.flight AS f, air.city AS a "
         "WHERE f.from_city = a.city_code AND a.city_name = '{}'")

BANK = [
    ("show the flights from BOSTON to DENVER", air_route("BOSTON", "DENVER")),
    ("show the flights from ATLANTA to DALLAS", air_route("ATLANTA", "DALLAS")),
    ("list the flights from PITTSBURGH to BOSTON", air_route("PITTSBURGH", "BOSTON")),
    ("how many trips leave BOSTON", _FROM.format("BOSTON")),
    ("how many trips are there out of DENVER", _FROM.format("DENVER")),
    ("count the trips that depart ATLANTA", _FROM.format("ATLANTA")),
    ("number of trips leaving PITTSBURGH", _FROM.format("PITTSBURGH")),
    ("how many trips depart from DALLAS", _FROM.format("DALLAS")),
    ("what kind of flights go from DENVER to DALLAS", air_route("DENVER", "DALLAS", "f.flight_id, f.trip_kind")),
]


@pytest.fixture(scope="module")
def asker(module_db_url):
    create = create_air(CITIES, extra=[("trip_kind", "text", lambda i: "round" if i % 2 else "one way")])
    with bank_asker(module_db_url, "air", create, BANK) as a:
        yield a


@pytest.fixture(autouse=True)
def idle_words_on(monkeypatch):
    """The rule is off by default (sqlgenie/inference/idle_schema_words.py, ENABLED): on for these tests."""
    monkeypatch.setattr(idle_schema_words, "ENABLED", True)


def _idle(asker):
    return idle_schema_words.idle_words(asker.retriever, asker.catalog, asker._schema_word)


def test_a_schema_word_said_often_and_never_read_is_idle(asker, monkeypatch):
    assert asker._schema_word("trip") and asker._schema_word("kind")
    idle = _idle(asker)
    assert "trip" in idle  # five questions say it, no query reads trip_kind for it
    assert "kind" not in idle  # said once, and that query reads trip_kind
    assert "flight" not in idle  # every query reads the flight table
    monkeypatch.setattr(idle_schema_words, "ENABLED", False)
    assert not _idle(asker)


def test_a_word_read_by_one_query_is_never_idle(asker, monkeypatch):
    monkeypatch.setattr(idle_schema_words, "MIN_USES", 1)
    idle = idle_schema_words.IdleSchemaWords(asker.retriever, asker.catalog, asker._schema_word).words()
    assert "kind" not in idle and "trip" in idle


def test_an_idle_word_the_question_adds_is_no_schema_change(asker, monkeypatch):
    """'trip' is a word of ``trip_kind`` the nearest example's query does not read: refused with the
    rule off as a schema change, answered with the route's query when the bank shows it as wording."""
    question = "show the flights from DENVER to ATLANTA for my trip"
    monkeypatch.setattr(idle_schema_words, "ENABLED", False)
    r = asker.ask(question, route="match")
    assert r.status == "refused", r.sql
    assert "schema words" in (r.think.reason or ""), r.think.reason
    monkeypatch.setattr(idle_schema_words, "ENABLED", True)
    r = asker.ask(question, route="match")
    assert r.status == "ok", r.think and r.think.reason
    assert "'DENVER'" in r.sql and "'ATLANTA'" in r.sql and "trip_kind" not in r.sql and "COUNT" not in r.sql.upper()


def test_a_word_the_bank_writes_as_constants_is_never_idle(asker, monkeypatch):
    from sqlgenie.inference import word_constants

    class Written:
        def tied(self, word):
            return {"air.flight.flight_id": ("1",)} if word == "trip" else {}

        def usual(self, word):
            return {}

    monkeypatch.setattr(word_constants, "word_constants", lambda retriever, catalog: Written())
    assert "trip" not in idle_schema_words.IdleSchemaWords(asker.retriever, asker.catalog, asker._schema_word).words()


def test_an_idle_word_right_before_a_value_stays_a_schema_change(monkeypatch):
    idle = lambda: frozenset({"take", "term"})
    masked = "if i take [mask] , how many credits in the [mask] term ?"
    assert idle_schema_words.words_before_values(masked) == {"take", "the"}
    assert idle_schema_words.without_idle(["take", "term"], idle, masked) == ["take"]
    monkeypatch.setattr(idle_schema_words, "BEFORE_VALUE", False)
    assert idle_schema_words.without_idle(["take", "term"], idle, masked) == []
