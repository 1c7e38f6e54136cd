"""Match route, sqlgenie/inference/shared_constants.py and word_constants' ``USUAL_SHARE`` (issue 13, helper
atis12), on a real PostgreSQL with the real MiniLM model: an example's implied constants ("morning":
``departure_time BETWEEN 0 AND 1200``) pass when a word both questions say carries them in the bank and
the words only one says carry none ("can", "please"); a part of the day only one says ("early", "evening")
still refuses, unless the bank writes it on the same column with as many constants, where it is swapped."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from bank_fixture import AIR_ROUTE, bank_asker, create_air

from sqlgenie.inference import shared_constants, word_constants

CITIES = ["BOSTON", "DENVER", "ATLANTA", "DALLAS", "PITTSBURGH"]


def _at(x: str, y: str, lo: int, hi: int) -> str:
    return (f"SELECT DISTINCT f.flight_id {AIR_ROUTE} AND a.city_name = '{x}' AND b.city_name = '{y}'"
            f" AND f.departure_time BETWEEN {lo} AND {hi}")


def _night(x: str, y: str) -> str:
    return _at(x, y, 601, 1759).replace("AND f.departure_time", "AND NOT f.departure_time")  # as ATIS writes it


def _route(x: str, y: str) -> str:
    return f"SELECT DISTINCT f.flight_id {AIR_ROUTE} AND a.city_name = '{x}' AND b.city_name = '{y}'"


BANK = [
    ("i would like a morning flight from BOSTON to DENVER", _at("BOSTON", "DENVER", 0, 1200)),
    ("morning flights from ATLANTA to DALLAS", _at("ATLANTA", "DALLAS", 0, 1200)),
    ("show me the morning flights from DENVER to ATLANTA", _at("DENVER", "ATLANTA", 0, 1200)),
    ("morning flights from DALLAS to PITTSBURGH", _at("DALLAS", "PITTSBURGH", 600, 1000)),  # "morning" 0/1200 in 3 of 4
    ("evening flights from BOSTON to ATLANTA", _at("BOSTON", "ATLANTA", 1800, 2200)),
    ("show me the evening flights from DALLAS to DENVER", _at("DALLAS", "DENVER", 1800, 2200)),
    ("what evening flights go from PITTSBURGH to BOSTON", _at("PITTSBURGH", "BOSTON", 1800, 2200)),
    ("early flights from BOSTON to DALLAS", _at("BOSTON", "DALLAS", 0, 800)),
    ("show me early flights from DENVER to PITTSBURGH", _at("DENVER", "PITTSBURGH", 0, 800)),
    ("what early flights go from ATLANTA to BOSTON", _at("ATLANTA", "BOSTON", 0, 800)),
    ("what night flights go from BOSTON to DALLAS", _night("BOSTON", "DALLAS")),
    ("night flights from DENVER to BOSTON", _night("DENVER", "BOSTON")),
    ("show me the night flights from PITTSBURGH to ATLANTA", _night("PITTSBURGH", "ATLANTA")),
    ("can you list flights from BOSTON to PITTSBURGH", _route("BOSTON", "PITTSBURGH")),
    ("can i see flights from DENVER to BOSTON", _route("DENVER", "BOSTON")),
    ("can you show flights from ATLANTA to DENVER", _route("ATLANTA", "DENVER")),
]


_create = create_air(CITIES, [("departure_time", "integer", lambda i: (i * 97) % 2400)], rows=120)


@pytest.fixture(scope="module")
def asker(module_db_url):
    with bank_asker(module_db_url, "air", _create, BANK) as a:
        yield a


class _Ties:
    """A stand-in for the bank's word statistics (the unit tests of :func:`accounted`)."""
    min_uses = 3

    def __init__(self, shares: dict[str, dict[tuple[str, str], float]]) -> None:
        self._shares = shares

    def uses(self, w: str) -> int:
        return 10 if w in self._shares else 0

    def tied(self, w: str) -> dict:
        return {}

    def shares(self, w: str) -> dict:
        return self._shares.get(w, {})


SLOTS = [SimpleNamespace(column="air.flight.departure_time", text="0"),
         SimpleNamespace(column="air.flight.departure_time", text="1200")]
TIES = _Ties({"morning": {("air.flight.departure_time", "0"): 0.9, ("air.flight.departure_time", "1200"): 0.6},
              "early": {("air.flight.departure_time", "0"): 0.7, ("air.flight.departure_time", "800"): 0.6},
              "can": {("air.flight.departure_time", "1800"): 0.1}})


@pytest.fixture(autouse=True)
def _on(monkeypatch):
    monkeypatch.setattr(shared_constants, "ENABLED", True)  # off by default (measured, not kept)


def test_constants_a_shared_word_carries_pass_past_a_free_word(monkeypatch):
    ex, new = "i would like a morning flight from [MASK] to [MASK]", "can i have a morning flight from [MASK] to [MASK]"
    assert shared_constants.accounted(SLOTS, ["can"], ex, new, TIES)
    monkeypatch.setattr(shared_constants, "ENABLED", False)
    assert not shared_constants.accounted(SLOTS, ["can"], ex, new, TIES)


def test_a_word_carrying_times_or_an_unknown_word_still_refuses():
    ex, new = "a morning flight from [MASK] to [MASK]", "an early morning flight from [MASK] to [MASK]"
    assert not shared_constants.accounted(SLOTS, ["early"], ex, new, TIES)  # "early" carries departure times
    assert not shared_constants.accounted(SLOTS, ["dinnertime"], ex, new, TIES)  # never seen: unknown
    ties = _Ties({**TIES._shares, "afternoon": {("air.flight.departure_time", "1200"): 0.7}})
    day = [SimpleNamespace(column="air.date_day.day_number", text="27")]  # "afternoon" carries another column
    assert not shared_constants.accounted(day, ["afternoon"], "[MASK] to [MASK] on sunday",
                                          "[MASK] to [MASK] sunday afternoon",
                                          _Ties({**ties._shares, "sunday": {("air.date_day.day_number", "27"): 1.0}}))
    # no shared word carries the constants
    assert not shared_constants.accounted(SLOTS, ["can"], "flights from [MASK] to [MASK]",
                                          "can i see flights from [MASK] to [MASK]", TIES)


def test_the_route_answers_a_morning_flight_worded_with_can(asker, monkeypatch):
    q = "can i have a morning flight from PITTSBURGH to DALLAS"
    r = asker.ask(q, route="match", execute=False)
    assert r.status == "ok", r.think and r.think.reason
    assert "BETWEEN 0 AND 1200" in r.sql, r.sql
    monkeypatch.setattr(shared_constants, "ENABLED", False)
    assert asker.ask(q, route="match", execute=False).status != "ok"


def test_a_part_of_the_day_is_swapped_at_the_usual_share(asker, monkeypatch):
    monkeypatch.setattr(word_constants, "ENABLED", True)
    words = word_constants.word_constants(asker.retriever, asker.catalog)
    assert not words.tied("morning") and words.usual("morning")  # 75 %: below the tie, at the usual share
    q = "i would like an evening flight from ATLANTA to PITTSBURGH"
    r = asker.ask(q, route="match", execute=False)
    assert r.status == "ok", r.think and r.think.reason
    assert "BETWEEN 1800 AND 2200" in r.sql, r.sql
    monkeypatch.setattr(word_constants, "USUAL_SHARE", 0)
    r = asker.ask(q, route="match", execute=False)
    assert r.status != "ok" or "BETWEEN 0 AND 1200" not in r.sql, r.sql


def test_a_negated_range_is_no_range_to_swap_in(asker, monkeypatch):
    """"night" is ``NOT departure_time BETWEEN 601 AND 1759`` in the bank: a "morning" example's
    ``BETWEEN 0 AND 1200`` must not take 601 / 1759 as a plain range (that asks for daytime flights)."""
    monkeypatch.setattr(word_constants, "ENABLED", True)
    words = word_constants.word_constants(asker.retriever, asker.catalog)
    assert set(words.tied("night")) == {word_constants.NEGATED + "air.flight.departure_time"}, words.tied("night")
    q = "i would like a night flight from ATLANTA to PITTSBURGH"
    r = asker.ask(q, route="match", execute=False)
    assert r.status != "ok" or "NOT" in r.sql.upper(), r.sql
    monkeypatch.setattr(word_constants, "NEGATED", "")  # the polarity forgotten: the swap asks for daytime
    asker.retriever._word_constants = None
    r = asker.ask(q, route="match", execute=False)
    assert r.status == "ok" and "BETWEEN 601 AND 1759" in r.sql and "NOT" not in r.sql.upper(), r.sql
