"""Match route refusal of sqlgenie/inference/value_reading.py (issue 13, helper matchx) on a real
PostgreSQL with the real MiniLM model: a value of several words ("DALLAS FORT WORTH") that adaptation
puts into the example's SQL as one constant, where the verified examples that say it compare its
parts ('DALLAS', 'FORT WORTH')."""

from __future__ import annotations

import pytest
from bank_fixture import AIR_ROUTE as _ROUTE, air_asker

from sqlgenie.autocorrect.base import parse_sql
from sqlgenie.inference import value_reading
from sqlgenie.inference.eval_bank import _reason_bucket
from sqlgenie.inference.value_reading import reason_code, split_readings

CITIES = ["BOSTON", "DENVER", "ATLANTA", "PITTSBURGH", "DALLAS", "FORT WORTH", "DALLAS FORT WORTH"]



def _between(x: str, y: str) -> str:
    return f"SELECT DISTINCT f.flight_id {_ROUTE} AND a.city_name = '{x}' AND b.city_name = '{y}'"


def _count_from_dfw(y: str) -> str:
    return (f"SELECT COUNT(DISTINCT f.flight_id) {_ROUTE} AND (a.city_name = 'DALLAS' OR a.city_name = 'FORT WORTH')"
            f" AND b.city_name = '{y}'")


BANK = [
    ("flights from BOSTON to DENVER", _between("BOSTON", "DENVER")),
    ("flights from ATLANTA to PITTSBURGH", _between("ATLANTA", "PITTSBURGH")),
    ("how many flights go from DALLAS FORT WORTH to BOSTON", _count_from_dfw("BOSTON")),
    ("count the flights leaving DALLAS FORT WORTH for DENVER", _count_from_dfw("DENVER")),
    ("number of flights out of DALLAS FORT WORTH into ATLANTA", _count_from_dfw("ATLANTA")),
]


@pytest.fixture(scope="module")
def asker(module_db_url):
    with air_asker(module_db_url, CITIES, BANK) as a:
        yield a


def test_a_value_the_bank_reads_as_its_parts_is_refused(asker, monkeypatch):
    r = asker.ask("flights from DENVER to PITTSBURGH", route="match")
    assert r.status == "ok", r.think and r.think.reason  # the plain route answers
    question = "flights from DALLAS FORT WORTH to DENVER"
    r = asker.ask(question, route="match")
    assert r.status == "refused", r.sql
    reason = r.think.reason if r.think else r.message
    assert "'DALLAS' and 'FORT WORTH'" in reason and _reason_bucket(reason) == "value reading", reason
    monkeypatch.setattr(value_reading, "ENABLED", False)  # the refusal is this rule's
    r = asker.ask(question, route="match")
    assert r.status == "ok" and "DALLAS FORT WORTH" in r.sql.upper(), r.think and r.think.reason


class _Readings:
    def __init__(self, table):
        self.table = table

    def reading(self, value):
        return self.table.get(value, (0, 0, 0, ()))


def test_split_readings_needs_the_bank_to_read_the_parts():
    tree = parse_sql(_between("DALLAS FORT WORTH", "DENVER"))
    q, ex = "flights from DALLAS FORT WORTH to DENVER", "flights from BOSTON to DENVER"
    parts = _Readings({"dallas fort worth": (26, 7, 19, ("dallas", "fort worth"))})
    found = split_readings(tree, ex, q, parts)
    assert found and reason_code(found[0]) == "value reading"
    # read as one constant as often as not, or too rarely said: no refusal
    assert split_readings(tree, ex, q, _Readings({"dallas fort worth": (10, 5, 5, ("dallas",))})) == []
    assert split_readings(tree, ex, q, _Readings({"dallas fort worth": (2, 0, 2, ("dallas",))})) == []
    # the example's own question says the value: copied with the example, not put in by adaptation
    assert split_readings(tree, "flights from DALLAS FORT WORTH to BOSTON", q, parts) == []
    # one-word values are never split
    assert split_readings(parse_sql(_between("BOSTON", "DENVER")), ex, "flights from BOSTON to DENVER", parts) == []
