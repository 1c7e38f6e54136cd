"""The question names the example's own values in the other roles ("from DENVER to BOSTON" against the bank's
"from BOSTON to DENVER"): values are paired by their direction words, not by their equal text
(sqlgenie/inference/direction_pairing.py; issue 13, helper atis10), on a real PostgreSQL with the real MiniLM model."""

from __future__ import annotations

import pytest
from bank_fixture import air_asker, air_route as _route

from sqlgenie.inference import direction_pairing

CITIES = ["BOSTON", "DENVER", "ATLANTA", "PITTSBURGH", "DALLAS"]


BANK = [
    ("show me round trip flights from BOSTON to DENVER", _route("BOSTON", "DENVER")),
    ("which flights go from ATLANTA to DALLAS", _route("ATLANTA", "DALLAS")),
]


@pytest.fixture(scope="module")
def asker(module_db_url):
    with air_asker(module_db_url, CITIES, BANK) as a:
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
    assert direction_pairing.identity_counts("from", "to", own=False)  # a rewrite's words: "between" has no order



def test_between_rewrite_is_not_paired_by_direction(asker, monkeypatch):
    """"between DENVER and BOSTON" is rewritten "from DENVER to BOSTON" for adaptation; those direction
    words are the rewrite's, not the asker's, so the pairing by direction does not apply: the equal texts
    pair first and the question is decided as before the rule (refused as reversed against the bank's
    "from BOSTON to DENVER"), not answered in a direction nobody said."""
    monkeypatch.setattr(direction_pairing, "ENABLED", True)
    r = asker.ask("show me round trip flights between DENVER and BOSTON", route="match")
    assert r.status == "refused", r.sql
    assert "reversed" in (r.think.reason if r.think else ""), r.think
