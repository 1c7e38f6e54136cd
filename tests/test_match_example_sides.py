"""Match route, sqlgenie/inference/example_sides.py (issue 13, helper atis14c), on a real PostgreSQL with the
real MiniLM model: a value the question gives one side of a trip ("from X", "leaving X", "between X and Y")
that the adapted query binds on the other side is refused; the bank's example had its sides reversed
(ATIS "flights from OAK to SFO" with ``to_airport = 'OAK'``)."""

from __future__ import annotations

import pytest
from bank_fixture import air_asker, air_route, refused_then_answered_without

from sqlgenie.autocorrect.base import parse_sql
from sqlgenie.inference import example_sides
from sqlgenie.inference.example_sides import crossed_sides, cued_sides, reason_code

CITIES = ["BOSTON", "DENVER", "ATLANTA", "PITTSBURGH", "DALLAS", "CHICAGO"]

BANK = [
    ("flights from BOSTON to DENVER", air_route("DENVER", "BOSTON")),  # a reversed gold, as ATIS has some
    ("which flights go from ATLANTA to DALLAS", air_route("ATLANTA", "DALLAS")),
    ("list the flights between PITTSBURGH and CHICAGO", air_route("CHICAGO", "PITTSBURGH")),  # reversed too
]


@pytest.fixture(scope="module")
def asker(module_db_url):
    with air_asker(module_db_url, CITIES, BANK) as a:
        yield a


def _refused_then_answered_without(asker, monkeypatch, question: str, off=("ENABLED",)) -> str:
    return refused_then_answered_without(asker, monkeypatch, question, "example_sides", reason_code,
                                         [(example_sides, name) for name in off])


def test_a_reversed_example_is_refused(asker, monkeypatch):
    sql = _refused_then_answered_without(asker, monkeypatch, "flights from ATLANTA to PITTSBURGH")
    assert "b.city_name = 'ATLANTA'" in sql, sql  # what the rule keeps out: ATLANTA as the destination


def test_between_gives_the_first_city_as_origin(asker, monkeypatch):
    sql = _refused_then_answered_without(asker, monkeypatch, "list the flights between DALLAS and BOSTON",
                                         off=("BETWEEN_ORDER",))
    assert "b.city_name = 'DALLAS'" in sql, sql


def test_a_right_example_still_answers(asker):
    r = asker.ask("which flights go from BOSTON to PITTSBURGH", route="match")
    assert r.status == "ok", r.think and r.think.reason
    assert "a.city_name = 'BOSTON'" in r.sql and "b.city_name = 'PITTSBURGH'" in r.sql, r.sql


ATIS = ("SELECT DISTINCT f.flight_id FROM airport_service AS s0, airport_service AS s1, airport_service AS s2, "
        "city AS c0, city AS c1, city AS c2, flight AS f, flight_stop AS fs WHERE c0.city_code = s0.city_code "
        "AND c0.city_name = 'PITTSBURGH' AND f.from_airport = s0.airport_code AND c1.city_code = s1.city_code "
        "AND c1.city_name = 'ATLANTA' AND f.to_airport = s1.airport_code AND c2.city_code = s2.city_code "
        "AND c2.city_name = 'DENVER' AND fs.stop_airport = s2.airport_code AND f.flight_id = fs.flight_id")


def test_a_value_crossed_with_the_stop():
    """ATIS seed 14: "leaving DENVER ... stopping at PITTSBURGH" answered with Denver as the stop."""
    question = "a flight leaving DENVER traveling to ATLANTA and stopping at PITTSBURGH"
    reasons = crossed_sides(parse_sql(ATIS), question)
    assert len(reasons) == 2 and all(reason_code(r) == "example_sides" for r in reasons), reasons
    right = ATIS.replace("'PITTSBURGH'", "'X'").replace("'DENVER'", "'PITTSBURGH'").replace("'X'", "'DENVER'")
    assert crossed_sides(parse_sql(right), question) == []


def test_cues():
    assert cued_sides("flights from ST. LOUIS to DENVER", "St. Louis") == {"origin"}
    assert cued_sides("i want to arrive in DENVER", "DENVER") == {"destination"}
    assert cued_sides("from DALLAS to HOUSTON and from HOUSTON to DALLAS", "DALLAS") == {"origin", "destination"}
    assert cued_sides("ground transportation in DENVER", "DENVER") == {None}
