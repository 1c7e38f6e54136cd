"""Match route, sqlgenie/inference/sides.py ``HEADLESS`` (issue 13, helper atis12), on a real PostgreSQL with
the real MiniLM model: an example that names no answer ("in flight meal BOSTON to DENVER") against a
question that does ("what flights from X to Y with a meal") is refused when its query returns another
table's rows than the question's thing."""

from __future__ import annotations

import psycopg
import pytest
from bank_fixture import AIR_ROUTE, bank_asker, create_air

from sqlgenie.autocorrect.base import parse_sql
from sqlgenie.inference import sides

CITIES = ["BOSTON", "DENVER", "ATLANTA", "DALLAS"]
MEALS = ("SELECT DISTINCT m.meal_code FROM air.flight AS f, air.city AS a, air.city AS b, air.meal AS m "
         "WHERE f.from_city = a.city_code AND f.to_city = b.city_code AND m.flight_id = f.flight_id "
         "AND a.city_name = '{x}' AND b.city_name = '{y}'")
FLIGHTS = "SELECT DISTINCT f.flight_id " + AIR_ROUTE + " AND a.city_name = '{x}' AND b.city_name = '{y}'"
BANK = [("in flight meal BOSTON to DENVER", MEALS.format(x="BOSTON", y="DENVER")),
        ("BOSTON to DENVER", FLIGHTS.format(x="BOSTON", y="DENVER"))]


def _create(conn: psycopg.Connection) -> None:
    create_air(CITIES)(conn)
    conn.execute("CREATE TABLE air.meal (flight_id integer NOT NULL REFERENCES air.flight, meal_code text NOT NULL)")
    conn.execute("INSERT INTO air.meal SELECT flight_id, CASE WHEN flight_id % 2 = 0 THEN 'B' ELSE 'D' END"
                 " FROM air.flight")
    conn.execute("ANALYZE air.meal")


@pytest.fixture(scope="module")
def asker(module_db_url):
    with bank_asker(module_db_url, "air", _create, BANK) as a:
        yield a


def _check(asker, sql: str, example: str, asked: str) -> list[str]:
    return sides.answer_entity_mismatch(parse_sql(sql), example, asked, ["text", "text"], ["text", "text"],
                                        asker._schema_word, asker.catalog)


def test_a_headless_example_returning_another_table_is_refused(asker, monkeypatch):
    sql = MEALS.format(x="ATLANTA", y="DALLAS")
    got = _check(asker, sql, "in flight meal [MASK] to [MASK]", "what flights from [MASK] to [MASK] with a meal")
    assert got and "flight" in got[0] and "names no answer" in got[0], got
    monkeypatch.setattr(sides, "HEADLESS", False)
    assert _check(asker, sql, "in flight meal [MASK] to [MASK]", "what flights from [MASK] to [MASK] with a meal") == []


def test_a_headless_example_returning_the_asked_thing_passes(asker):
    sql = FLIGHTS.format(x="ATLANTA", y="DALLAS")
    assert _check(asker, sql, "[MASK] to [MASK]", "what flights go from [MASK] to [MASK]") == []


def test_the_route_refuses_the_meal_answer_for_flights(asker):
    r = asker.ask("what flights from ATLANTA to DALLAS with a meal", route="match", execute=False)
    assert r.status != "ok" or "meal_code" not in (r.sql or "").split("FROM")[0], r.sql


@pytest.mark.parametrize("asked", ["next flight from [MASK] to [MASK] when is a meal served",
                                   "what time next flight from [MASK] to [MASK] has a meal"])
def test_a_head_that_is_no_asked_thing_does_not_refuse(asker, monkeypatch, asked):
    """A noun fronted before the wh-word ("next semester when is 430 offered ?") or after another "what X" is
    no thing the question asks for: the example is not refused for returning other rows."""
    sql = MEALS.format(x="ATLANTA", y="DALLAS")
    assert _check(asker, sql, "in flight meal [MASK] to [MASK]", asked) == []
    monkeypatch.setattr(sides, "_asks_another_thing", lambda words, head: False)
    got = _check(asker, sql, "in flight meal [MASK] to [MASK]", asked)
    assert got and "names no answer" in got[0], got


def test_a_relative_which_after_the_head_still_refuses(asker):
    got = _check(asker, MEALS.format(x="ATLANTA", y="DALLAS"), "in flight meal [MASK] to [MASK]",
                 "show me all flights from [MASK] to [MASK] which serve a meal")
    assert got and "names no answer" in got[0], got
