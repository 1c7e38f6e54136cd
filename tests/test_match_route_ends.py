"""Match route, sqlgenie/inference/route_ends.py (issue 13, helper atis16), on a real PostgreSQL with the real
MiniLM model: a direction verb right before a place ("leaving BOSTON", "arrive in DENVER", "into DENVER") is
read as the end of the route "from" / "to" says, when the example's SQL reads no departure or arrival column;
the adapted query must then bind the place on that end."""

from __future__ import annotations

import pytest
from bank_fixture import air_asker, air_route

from sqlgenie.autocorrect.base import parse_sql
from sqlgenie.inference import route_ends
from sqlgenie.inference.adapt import Span, adapt_sql, question_diff
from sqlgenie.inference.eval_bank import _reason_bucket

CITIES = ["BOSTON", "DENVER", "ATLANTA", "PITTSBURGH", "DALLAS", "CHICAGO"]

BANK = [
    ("i need a flight leaving BOSTON bound for DENVER", air_route("BOSTON", "DENVER")),
    # a reversed gold, as ATIS has some (no DISTINCT: another query than the first, so not its paraphrase)
    ("show me flights from PITTSBURGH to CHICAGO", air_route("CHICAGO", "PITTSBURGH").replace("DISTINCT ", "")),
]


@pytest.fixture(scope="module")
def asker(module_db_url):
    with air_asker(module_db_url, CITIES, BANK) as a:
        yield a


def test_from_read_as_the_example_s_leaving(asker, monkeypatch):
    r = asker.ask("i need a flight from ATLANTA bound for DALLAS", route="match")
    assert r.status == "ok", r.think and r.think.reason
    assert "a.city_name = 'ATLANTA'" in r.sql and "b.city_name = 'DALLAS'" in r.sql, r.sql
    monkeypatch.setattr(route_ends, "ENABLED", False)
    r = asker.ask("i need a flight from ATLANTA bound for DALLAS", route="match")
    assert r.status == "refused", r.sql
    assert "meaning words: OUTBOUND" in (r.think.reason or ""), r.think.reason


def test_the_question_s_leaving_must_be_bound_on_the_origin(monkeypatch):
    """A reversed example ("from PITTSBURGH to CHICAGO" with CHICAGO as the origin) binds the question's
    "leaving" place on the destination: refused as route_ends (with the rule off: as a meaning word)."""
    ex, question = "show me flights from [MASK] to [MASK]", "show me flights leaving [MASK] to [MASK]"

    def adapt(sql: str):
        return adapt_sql(sql, _spans(ex, ["PITTSBURGH", "CHICAGO"]), _spans(question, ["DALLAS", "ATLANTA"]),
                         example_masked=ex, new_masked=question)

    right = adapt(air_route("PITTSBURGH", "CHICAGO"))
    assert right.ok and "a.city_name = 'DALLAS'" in right.sql and "b.city_name = 'ATLANTA'" in right.sql, right
    reasons = adapt(air_route("CHICAGO", "PITTSBURGH")).unaccounted
    assert reasons and route_ends.reason_code(reasons[0]) == "route_ends", reasons
    assert _reason_bucket(reasons[0]) == "route_ends", reasons
    monkeypatch.setattr(route_ends, "ENABLED", False)
    reasons = adapt(air_route("PITTSBURGH", "CHICAGO")).unaccounted
    assert reasons and "meaning words: OUTBOUND" in reasons[0], reasons


ROUTE = air_route("BOSTON", "DENVER")
TIMED = ROUTE + " AND f.departure_time > 1200"


def _spans(masked: str, values: list[str]) -> list[Span]:
    at = [i for i in range(len(masked)) if masked.startswith("[MASK]", i)]
    return [Span(start, start + 6, value, "value") for start, value in zip(at, values)]


def _licensed(example: str, ex_values: list[str], question: str, values: list[str], sql: str = ROUTE):
    diff = question_diff(example, question, None)
    assert diff.cue_changes, diff
    kept, ends = route_ends.filter_diff(diff, parse_sql(sql), example, question, _spans(example, ex_values),
                                        _spans(question, values))
    return kept.cue_changes, ends


def test_what_is_read_as_a_route_end():
    ex = "flights from [MASK] to [MASK]"
    assert _licensed(ex, ["A", "B"], "flights leaving [MASK] to [MASK]", ["X", "Y"]) == ([], [("X", "origin")])
    assert _licensed(ex, ["A", "B"], "flights from [MASK] arriving in [MASK]", ["X", "Y"]) == \
        ([], [("Y", "destination")])
    assert _licensed(ex, ["A", "B"], "flights leaves from [MASK] into [MASK]", ["X", "Y"])[0] == []
    # a time of day, a part of the day, a time column in the SQL: the word keeps its meaning
    assert _licensed(ex, ["A", "B"], "flights from [MASK] to [MASK] arriving in the afternoon",
                     ["X", "Y"])[0] == ["INBOUND"]
    assert _licensed("flights from [MASK] to [MASK] at [MASK]", ["A", "B", "C"],
                     "flights from [MASK] to [MASK] leaving at [MASK]", ["X", "Y", "5pm"])[0] == ["OUTBOUND"]
    assert _licensed(ex, ["A", "B"], "flights leaving [MASK] to [MASK]", ["X", "Y"], TIMED)[0] == ["OUTBOUND"]
    # the other question must say the plain preposition of that end
    assert _licensed("flights [MASK] [MASK]", ["A", "B"], "flights leaving [MASK] [MASK]", ["X", "Y"])[0] == \
        ["OUTBOUND"]


def test_an_end_bound_elsewhere_is_refused():
    assert route_ends.unbound_ends(parse_sql(ROUTE), [("BOSTON", "origin"), ("DENVER", "destination")]) == []
    reasons = route_ends.unbound_ends(parse_sql(ROUTE), [("DENVER", "origin")])
    assert len(reasons) == 1 and route_ends.reason_code(reasons[0]) == "route_ends", reasons
