"""The example's "between A and B" of two text values read as "from A to B" against a question that
says "from ... to ..." (sqlgenie/inference/between_ends.py ``rewrite_example``; issue 13, helper
matchx), on a real PostgreSQL with the real MiniLM model."""

from __future__ import annotations

import pytest
from bank_fixture import air_asker, air_route as _route

from sqlgenie.inference import between_ends

CITIES = ["BOSTON", "DENVER", "ATLANTA", "PITTSBURGH", "DALLAS"]


BANK = [
    ("is there a flight between BOSTON and DENVER", _route("BOSTON", "DENVER")),
    ("is there a flight between ATLANTA and DALLAS", _route("ATLANTA", "DALLAS")),
]


@pytest.fixture(scope="module")
def asker(module_db_url):
    with air_asker(module_db_url, CITIES, BANK) as a:
        yield a


def test_the_examples_between_is_read_as_from_to(asker, monkeypatch):
    monkeypatch.setattr(between_ends, "EXAMPLE_SIDE", True)
    question = "is there a flight from PITTSBURGH to BOSTON"
    r = asker.ask(question, route="match")
    assert r.status == "ok", r.think and r.think.reason
    sql = r.sql.upper()
    assert sql.index("'PITTSBURGH'") < sql.index("'BOSTON'") and "A.CITY_NAME = 'PITTSBURGH'" in sql, r.sql
    monkeypatch.setattr(between_ends, "EXAMPLE_SIDE", False)  # "between" against "from ... to": RANGE
    r = asker.ask(question, route="match")
    assert r.status == "refused", r.sql
