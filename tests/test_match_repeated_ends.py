"""Match route, sqlgenie/inference/repeated_ends.py (issue 13, helper atis17): a place said again after a verb of
its end of the trip ("from KANSAS CITY to LOS ANGELES that *arrives in LOS ANGELES* in the afternoon") is no second
value; a place said on two ends (a round trip) still counts twice. On a real PostgreSQL with the real MiniLM model."""

from __future__ import annotations

import pytest
from bank_fixture import AIR_ROUTE, bank_asker, create_air

from example_bank.masking import MaskedQuestion, MaskedSpan
from sqlgenie.inference import repeated_ends
from sqlgenie.inference.repeated_ends import repeated_mentions, rewrite

CITIES = ["BOSTON", "DENVER", "ATLANTA", "PITTSBURGH", "DALLAS"]


def _afternoon(x: str, y: str) -> str:
    return (f"SELECT DISTINCT f.flight_id {AIR_ROUTE} AND a.city_name = '{x}' AND b.city_name = '{y}' "
            "AND f.arrival_time BETWEEN 1200 AND 1800")


BANK = [("show me the flights from BOSTON to DENVER that arrive in the afternoon", _afternoon("BOSTON", "DENVER"))]

_create = create_air(CITIES, [("arrival_time", "integer", lambda i: (i * 97) % 2400)], rows=120)


@pytest.fixture(scope="module")
def asker(module_db_url):
    with bank_asker(module_db_url, "air", _create, BANK) as a:
        yield a


def test_a_destination_said_again_after_arrive_is_one_value(asker, monkeypatch):
    question = "show me the flights from ATLANTA to DALLAS that arrive in DALLAS in the afternoon"
    monkeypatch.setattr(repeated_ends, "ENABLED", True)  # off by default (no answer changed on ATIS seeds 12 / 13)
    r = asker.ask(question, route="match")
    assert r.status == "ok", r.think and r.think.reason
    assert "'ATLANTA'" in r.sql and "'DALLAS'" in r.sql and "BETWEEN 1200 AND 1800" in r.sql, r.sql
    monkeypatch.setattr(repeated_ends, "ENABLED", False)
    r = asker.ask(question, route="match")
    assert r.status == "refused", r.sql


def _masked(question: str, values: list[str]) -> MaskedQuestion:
    spans: list[MaskedSpan] = []
    for v in values:
        i = question.index(v, spans[-1].end if spans else 0)
        spans.append(MaskedSpan(i, i + len(v), v, "value", "city.city_name"))
    text = question
    for s in reversed(spans):
        text = text[:s.start] + "[MASK]" + text[s.end:]
    return MaskedQuestion(question, text, spans)


_EXAMPLE = _masked("flights from BOSTON to DENVER that arrive in the afternoon", ["BOSTON", "DENVER"])


def test_the_mention_after_the_verb_is_taken_out(monkeypatch):
    monkeypatch.setattr(repeated_ends, "ENABLED", True)
    q = _masked("a flight from BOSTON to DENVER leaving BOSTON in the afternoon arriving DENVER around 5",
                ["BOSTON", "DENVER", "BOSTON", "DENVER"])
    assert repeated_mentions(q.text, q.spans) == [(2, False), (3, False)]
    got = rewrite(_EXAMPLE, q)
    assert got.text == "a flight from [MASK] to [MASK] leaving in the afternoon arriving around 5"
    assert [s.text for s in got.spans] == ["BOSTON", "DENVER"]


def test_two_ends_or_two_legs_are_not_read(monkeypatch):
    monkeypatch.setattr(repeated_ends, "ENABLED", True)
    round_trip = _masked("flights from BOSTON to DENVER and from DENVER to BOSTON", ["BOSTON", "DENVER", "DENVER", "BOSTON"])
    assert rewrite(_EXAMPLE, round_trip) is round_trip
    back = _masked("flights from BOSTON to DENVER arriving back in BOSTON", ["BOSTON", "DENVER", "BOSTON"])
    assert rewrite(_EXAMPLE, back) is back


def test_one_mention_after_verb_and_preposition_is_not_a_repeat(monkeypatch):
    monkeypatch.setattr(repeated_ends, "ENABLED", True)
    """"departing from BOSTON" names BOSTON once (ATIS seed 13: BOSTON was dropped from the question and the
    answer counted flights from every city)."""
    once = _masked("how many flights does UA have departing from BOSTON to DENVER and DALLAS",
                   ["UA", "BOSTON", "DENVER", "DALLAS"])
    assert repeated_mentions(once.text, once.spans) == []
    assert rewrite(_EXAMPLE, once) is once
