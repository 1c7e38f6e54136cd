"""The question names the example's own values in the other roles ("from DENVER to BOSTON" against the bank's
"from BOSTON to DENVER"): values are paired by their direction words, not by their equal text
(sqlgenie/inference/direction_pairing.py; issue 13, helper atis10), on a real PostgreSQL with the real MiniLM model."""

from __future__ import annotations

import pytest
from bank_fixture import create_air, onboard_with_bank

from sqlgenie.inference import direction_pairing
from sqlgenie.inference.pipeline import Asker

CITIES = ["BOSTON", "DENVER", "ATLANTA", "PITTSBURGH", "DALLAS"]
_ROUTE = "FROM air.flight AS f, air.city AS a, air.city AS b WHERE f.from_city = a.city_code AND f.to_city = b.city_code"


def _route(x: str, y: str) -> str:
    return f"SELECT DISTINCT f.flight_id {_ROUTE} AND a.city_name = '{x}' AND b.city_name = '{y}'"


BANK = [
    ("show me round trip flights from BOSTON to DENVER", _route("BOSTON", "DENVER")),
    ("which flights go from ATLANTA to DALLAS", _route("ATLANTA", "DALLAS")),
]


@pytest.fixture(scope="module")
def air(module_db_url):
    return onboard_with_bank(module_db_url, "air", create_air(CITIES), BANK, measure_indexes=False, top_values=10)


@pytest.fixture(scope="module")
def asker(air):
    with Asker.open(air, provider=None, log=False) as a:
        yield a


def test_swapped_values_pair_by_direction(asker, monkeypatch):
    monkeypatch.setattr(direction_pairing, "ENABLED", True)
    r = asker.ask("show me round trip flights from DENVER to BOSTON", route="match")
    assert r.status == "ok", r.think and r.think.reason
    sql = r.sql.upper()
    assert "A.CITY_NAME = 'DENVER'" in sql and "B.CITY_NAME = 'BOSTON'" in sql, r.sql
    assert len(r.rows) == len(asker.executor.run(_route("DENVER", "BOSTON")).rows)
    monkeypatch.setattr(direction_pairing, "ENABLED", False)  # the same text pairs first: reversed, refused
    r = asker.ask("show me round trip flights from DENVER to BOSTON", route="match")
    assert r.status == "refused", r.sql


def test_one_shared_value_keeps_its_direction(asker, monkeypatch):
    """A value said after the same direction word in both questions still pairs with itself."""
    monkeypatch.setattr(direction_pairing, "ENABLED", True)
    r = asker.ask("which flights go from ATLANTA to PITTSBURGH", route="match")
    assert r.status == "ok", r.think and r.think.reason
    sql = r.sql.upper()
    assert "A.CITY_NAME = 'ATLANTA'" in sql and "B.CITY_NAME = 'PITTSBURGH'" in sql, r.sql


def test_identity_counts():
    assert direction_pairing.identity_counts("from", "from")
    assert direction_pairing.identity_counts("", "to")
    assert not direction_pairing.identity_counts("from", "to")
