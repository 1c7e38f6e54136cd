"""Close verified candidates of twin queries, resolved where the bank's groups show the separating word
(sqlgenie/inference/tie_words.py; issue 13, helper atis10), on a real PostgreSQL with the real MiniLM model."""

from __future__ import annotations

import pytest
from bank_fixture import AIR_ROUTE as _ROUTE, air_asker

from sqlgenie.inference import tie_words

CITIES = ["BOSTON", "DENVER", "ATLANTA", "PITTSBURGH", "DALLAS", "MEMPHIS"]


def _flights(x: str, y: str) -> str:
    return f"SELECT DISTINCT f.flight_id {_ROUTE} AND a.city_name = '{x}' AND b.city_name = '{y}'"


def _schedules(x: str, y: str) -> str:
    return f"SELECT DISTINCT f.flight_id, f.from_city, f.to_city {_ROUTE} AND a.city_name = '{x}' AND b.city_name = '{y}'"


BANK = [
    ("please give me flights from BOSTON to DENVER", _flights("BOSTON", "DENVER")),
    ("i need a flight from ATLANTA to DALLAS", _flights("ATLANTA", "DALLAS")),
    ("please give me flight schedules from BOSTON to ATLANTA", _schedules("BOSTON", "ATLANTA")),
    ("show me the flight schedules from DENVER to DALLAS", _schedules("DENVER", "DALLAS")),
]


@pytest.fixture(scope="module")
def asker(module_db_url):
    with air_asker(module_db_url, CITIES, BANK) as a:
        yield a


QUESTION = "please give me flight listings from PITTSBURGH to MEMPHIS"


def test_the_twin_whose_paraphrases_all_say_schedule_is_dropped(asker, monkeypatch):
    monkeypatch.setattr(tie_words, "ENABLED", False)  # the tie refuses
    r = asker.ask(QUESTION, route="match")
    assert r.status == "refused" and "match equally well" in r.think.reason, r.sql
    monkeypatch.setattr(tie_words, "ENABLED", True)
    r = asker.ask(QUESTION, route="match")
    assert r.status == "ok", r.think and r.think.reason
    assert "F.FROM_CITY" not in r.sql.upper().split("FROM")[0], r.sql  # the flights, not the schedules
    assert any("separate them from your question" in n for n in r.adaptation["notes"]), r.adaptation


def test_separating_words():
    flights = ({"flight"}, {"flight", "need", "give", "please"})
    schedules = ({"flight", "schedule"}, {"flight", "schedule", "show", "give", "please"})
    asked = {"flight", "give", "please"}
    assert tie_words.separating_words(schedules, flights, asked) == ["schedule"]
    assert tie_words.separating_words(flights, schedules, asked) == []
    # the question says the word every schedule paraphrase says: the flights twin is dropped instead
    assert tie_words.separating_words(flights, schedules, asked | {"schedule"}) == ["schedule"]


def test_a_word_only_the_dropped_twins_paraphrases_say_keeps_the_tie():
    one_way = ({"cost", "ticket"}, {"cost", "ticket", "what"})
    round_trip = ({"cost", "round", "trip"}, {"cost", "round", "trip", "back", "ticket"})
    asked = {"cost", "ticket", "back"}
    assert tie_words.separating_words(round_trip, one_way, asked) == ["round", "trip"]
    assert tie_words.favoured(round_trip, one_way, asked) == ["back"]  # "and back": not one-sided
    assert tie_words.favoured(round_trip, one_way, {"cost", "ticket"}) == []
