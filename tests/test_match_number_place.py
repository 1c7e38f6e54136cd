"""Match route, sqlgenie/inference/number_place.py (issue 13, helper atis14c), on a real PostgreSQL with the
real MiniLM model: a number the question gives as a time ("at 1524", "an 819 flight") that the adapted query
compares with a flight number, or the other way round, is refused; a year or a cost after "before" / "less
than" is left alone."""

from __future__ import annotations

import pytest
from bank_fixture import AIR_ROUTE, bank_asker, create_air, refused_then_answered_without

from sqlgenie.autocorrect.base import parse_sql
from sqlgenie.inference import number_place
from sqlgenie.inference.number_place import misplaced_numbers, number_roles, reason_code

CITIES = ["BOSTON", "DENVER", "ATLANTA", "PITTSBURGH", "DALLAS"]


def _numbered(x: str, y: str, n: str) -> str:
    return f"SELECT DISTINCT f.flight_id {AIR_ROUTE} AND a.city_name = '{x}' AND b.city_name = '{y}' AND f.flight_number = '{n}'"


def _timed(x: str, y: str, t: int) -> str:
    return f"SELECT DISTINCT f.flight_id {AIR_ROUTE} AND a.city_name = '{x}' AND b.city_name = '{y}' AND f.departure_time = {t}"


BANK = [
    ("flight 417 from BOSTON to DENVER", _numbered("BOSTON", "DENVER", "417")),
    ("show me flight 201 from ATLANTA to DALLAS", _numbered("ATLANTA", "DALLAS", "201")),
    ("i want a flight from DENVER to PITTSBURGH at 1700", _timed("DENVER", "PITTSBURGH", 1700)),
]


_create = create_air(CITIES, [("flight_number", "text", lambda i: str(100 + i * 7)),
                              ("departure_time", "integer", lambda i: (i * 97) % 2400)], rows=120)


@pytest.fixture(scope="module")
def asker(module_db_url):
    with bank_asker(module_db_url, "air", _create, BANK) as a:
        yield a


def test_a_number_before_flight_is_no_flight_number(asker, monkeypatch):
    """ATIS seed 12: "do you have an 819 flight from DENVER to SAN FRANCISCO" (gold: departure_time = 819)."""
    sql = refused_then_answered_without(asker, monkeypatch, "an 819 flight from DALLAS to BOSTON", "number_place",
                                        reason_code, [(number_place, "ENABLED")])
    assert "flight_number = '819'" in sql, sql


def test_a_flight_number_still_answers(asker):
    r = asker.ask("flight 733 from DALLAS to BOSTON", route="match")
    assert r.status == "ok" and "flight_number = '733'" in r.sql, r.think and r.think.reason


def test_a_time_is_no_flight_number():
    """ATIS seed 13: "... on 8 20 at 1524" answered from "... flight 324 on 8 20"."""
    numbered = parse_sql("SELECT f.flight_id FROM flight AS f WHERE f.flight_number = '1524'")
    reasons = misplaced_numbers(numbered, "i would like a flight from WASHINGTON to BOSTON on 8 20 at 1524")
    assert len(reasons) == 1 and reason_code(reasons[0]) == "number_place", reasons
    timed = parse_sql("SELECT f.flight_id FROM flight AS f WHERE f.departure_time = 1524")
    assert misplaced_numbers(timed, "a flight from WASHINGTON to BOSTON at 1524") == []
    assert misplaced_numbers(timed, "show me flight 1524 from WASHINGTON") != []


def test_years_and_costs_are_left_alone():
    year = parse_sql("SELECT p.paperid FROM paper AS p WHERE p.year < 2010")
    assert misplaced_numbers(year, "character recognition papers before 2010") == []
    cost = parse_sql("SELECT f.fare_id FROM fare AS f WHERE f.round_trip_cost < 1000")
    assert misplaced_numbers(cost, "round trip fares from BALTIMORE less than 1000 dollars") == []
    assert number_roles("flights at 5 pm on 3 5", "5") == {"time", None}
