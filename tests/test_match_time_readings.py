"""Match route coverage (issue 13, helper cover19b): times of day worded apart, read as the bank writes them
(sqlgenie/inference/time_readings.py). Real embedded PostgreSQL and the real MiniLM model: a small flight
bank (``bank_fixture.create_air`` with departure and arrival times) whose questions say parts of the day
(written as ``departure_time`` ranges) and arrival ranges between two clock times."""

from __future__ import annotations

import pytest
from bank_fixture import AIR_ROUTE, bank_asker, create_air

from sqlgenie.inference import deeper, time_readings, word_constants
from sqlgenie.inference.adapt import Span

CITIES = ["BOSTON", "DENVER", "ATLANTA", "PITTSBURGH", "DALLAS"]


def _route(x: str, y: str) -> str:
    return f"SELECT DISTINCT f.flight_id {AIR_ROUTE} AND a.city_name = '{x}' AND b.city_name = '{y}'"


def _departing(x: str, y: str, low: int, high: int) -> str:
    return f"{_route(x, y)} AND f.departure_time BETWEEN {low} AND {high}"


def _on_day_departing(x: str, y: str, day: int, low: int, high: int) -> str:
    return f"{_departing(x, y, low, high)} AND f.day_number = {day}"


def _before(x: str, y: str, end: int) -> str:
    return f"{_route(x, y)} AND f.departure_time < {end}"


def _arriving(x: str, y: str, low: int, high: int) -> str:
    return f"{_route(x, y)} AND (f.arrival_time >= {low} AND f.arrival_time <= {high})"


BANK = [
    # "morning": 0 in every question saying it, 1200 in three of five: tied (80 %) to 0 alone, 0 and 1200 usually
    ("show me the morning flights from ATLANTA to DALLAS", _departing("ATLANTA", "DALLAS", 0, 1200)),
    ("morning flights from BOSTON to DENVER", _departing("BOSTON", "DENVER", 0, 1200)),
    ("list flights from DENVER to PITTSBURGH in the morning", _departing("DENVER", "PITTSBURGH", 0, 1200)),
    ("early morning flights from DALLAS to BOSTON on friday", _on_day_departing("DALLAS", "BOSTON", 25, 0, 800)),
    ("early morning flights from BOSTON to ATLANTA on friday", _on_day_departing("BOSTON", "ATLANTA", 25, 0, 800)),
    # "early" without "morning": before 1000
    ("an early flight from ATLANTA to BOSTON on wednesday", f"{_before('ATLANTA', 'BOSTON', 1000)} AND f.day_number = 23"),
    ("early flights from PITTSBURGH to DENVER on wednesday", f"{_before('PITTSBURGH', 'DENVER', 1000)} AND f.day_number = 23"),
    ("the early flights from DALLAS to DENVER on wednesday", f"{_before('DALLAS', 'DENVER', 1000)} AND f.day_number = 23"),
    # "evening": 1800 to 2200, said only with a day (another query than "the evening flights from X to Y")
    ("evening flights from BOSTON to DENVER on friday", _on_day_departing("BOSTON", "DENVER", 25, 1800, 2200)),
    ("list the evening flights from DALLAS to ATLANTA on wednesday", _on_day_departing("DALLAS", "ATLANTA", 23, 1800, 2200)),
    ("what are the evening flights from DENVER to BOSTON on thursday", _on_day_departing("DENVER", "BOSTON", 24, 1800, 2200)),
    # an arrival between two clock times
    ("flights from PITTSBURGH to BOSTON arriving between 1600 and 1700", _arriving("PITTSBURGH", "BOSTON", 1600, 1700)),
]


@pytest.fixture(scope="module")
def asker(module_db_url):
    create = create_air(CITIES, extra=[("day_number", "integer", lambda i: 21 + i % 7),
                                       ("departure_time", "integer", lambda i: (i * 130) % 2400),
                                       ("arrival_time", "integer", lambda i: (i * 130 + 240) % 2400)], rows=80)
    with bank_asker(module_db_url, "air", create, BANK) as a:
        yield a


def _ties(asker):
    return word_constants.word_constants(asker.retriever, asker.catalog)


def test_a_word_has_its_tie_and_its_usual_reading(asker, monkeypatch):
    ties = _ties(asker)
    morning = time_readings.readings(ties, "morning")
    assert [sorted(r.items()) for r in morning] == [[("air.flight.departure_time", ("0",))],
                                                    [("air.flight.departure_time", ("0", "1200"))]], morning
    monkeypatch.setattr(time_readings, "USUAL_READING", False)
    assert time_readings.readings(ties, "morning") == [{"air.flight.departure_time": ("0",)}]


def test_the_question_word_is_read_where_the_example_word_is_not_said(asker):
    """A reading of the question's word counts where the example's word is not said, and only when it is
    the word's reading over all its questions as well."""
    ties = _ties(asker)
    assert time_readings.readings_without(ties, "evening", "morning") == [{"air.flight.departure_time": ("1800", "2200")}]
    assert all("air.flight.departure_time" not in r or r["air.flight.departure_time"] != ("0", "800")
               for r in time_readings.readings_without(ties, "early", "morning"))


def test_an_evening_question_is_read_from_a_morning_example(asker, monkeypatch):
    """'morning' is tied to 0 alone (80 %), 'evening' to 1800 and 2200: only with the usual
    reading of 'morning', which the example's SQL carries, do the two swap."""
    question = "show me the evening flights from PITTSBURGH to BOSTON"
    r = asker.ask(question, route="match")
    assert r.status == "ok", r.think and r.think.reason
    assert "BETWEEN 1800 AND 2200" in r.sql and "'PITTSBURGH'" in r.sql and "day_number" not in r.sql, r.sql
    monkeypatch.setattr(time_readings, "USUAL_READING", False)
    r = asker.ask(question, route="match")
    assert r.status == "refused", r.sql


def test_an_early_question_is_not_read_from_a_morning_example(asker):
    r = asker.ask("i need an early flight from PITTSBURGH to BOSTON", route="match")
    assert r.status == "refused" or "800" not in (r.sql or ""), r.sql


@pytest.mark.parametrize("low,high", [(1800, 1900), (1700, 2000)])
def test_a_range_of_two_clock_times_pairs_end_to_end(asker, monkeypatch, low, high):
    """(``RANGE_IN_ORDER``, off by default.) 'between 1800 and 1900': both year-like to the masker, both re-read as
    times, paired in order; and 'between 1700 and 2000' against the example's 'between 1600 and 1700' is not crossed
    by the equal 1700."""
    monkeypatch.setattr(time_readings, "RANGE_IN_ORDER", True)
    question = f"flights from DALLAS to DENVER arriving between {low} and {high}"
    r = asker.ask(question, route="match")
    assert r.status == "ok", r.think and r.think.reason
    assert f"f.arrival_time >= {low}" in r.sql and f"f.arrival_time <= {high}" in r.sql, r.sql
    monkeypatch.setattr(time_readings, "RANGE_IN_ORDER", False)
    r = asker.ask(question, route="match")
    assert r.status == "refused" or (f"f.arrival_time >= {low}" in r.sql and f"f.arrival_time <= {high}" in r.sql), \
        r.sql
    if low == 1800:
        assert r.status == "refused", r.sql  # two year-like times: neither re-read without the rule


def test_a_word_of_the_example_s_meaning_class_is_no_added_modifier(monkeypatch):
    """(``CLASS_WORDS``, off by default.)"""
    monkeypatch.setattr(time_readings, "CLASS_WORDS", True)
    assert time_readings.said_in_class("arrives", {"flights", "arriving"})
    assert not time_readings.said_in_class("arrives", {"flights", "leaving"})
    assert not time_readings.said_in_class("cheap", {"flights", "arriving"})
    monkeypatch.setattr(time_readings, "CLASS_WORDS", False)
    assert not time_readings.said_in_class("arrives", {"flights", "arriving"})


def test_year_like_clock_times_fit_a_deeper_candidate(monkeypatch):
    def spans(*items):
        return [Span(start=i * 10, end=i * 10 + len(t), text=t, kind=k) for i, (t, k) in enumerate(items)]

    question = spans(("DALLAS", "text"), ("DENVER", "text"), ("1800", "number"), ("1900", "number"))
    example = spans(("BOSTON", "text"), ("ATLANTA", "text"), ("1600", "number"), ("1700", "number"))
    assert [s.cls for s in question][2:] == ["date", "date"]  # year-like to the masker
    assert deeper.fits(question, example)
    monkeypatch.setattr(time_readings, "FIT_CLOCKS", False)
    assert not deeper.fits(question, example)


def _hit(masked: str):
    from types import SimpleNamespace

    return SimpleNamespace(example=SimpleNamespace(masked_question=masked, question=masked), score=0.9)


def test_deeper_candidates_said_with_the_question_s_classes_come_first(monkeypatch):
    """(``CUES_FIRST``, off by default.) 'before [MASK]' is nearer 'after [MASK]' to MiniLM than to its own template's 'before [MASK]': past the
    usual depth only the examples said with the question's meaning classes are kept, and they are tried first."""
    monkeypatch.setattr(time_readings, "CUES_FIRST", True)
    question = "what flights go from [MASK] to [MASK] before [MASK]"
    hits = [_hit("what flights from [MASK] to [MASK] after [MASK]"), _hit("show me flights from [MASK] to [MASK]"),
            _hit("flights from [MASK] to [MASK] arriving after [MASK]"), _hit("list flights from [MASK] to [MASK] before [MASK]")]
    kept = time_readings.cues_first(hits, question, 2)
    assert kept == [hits[0], hits[1], hits[3]]
    assert sorted(kept, key=lambda h: time_readings.cue_rank(h, question))[0] is hits[3]
    assert time_readings.cue_depth(40) == time_readings.CUE_DEPTH
    monkeypatch.setattr(time_readings, "CUES_FIRST", False)
    assert time_readings.cues_first(hits, question, 2) == hits[:2]
    assert time_readings.cue_rank(hits[3], question) == time_readings.cue_rank(hits[0], question)
    assert time_readings.cue_depth(40) == 40


def test_a_deeper_candidate_asking_another_thing_joins_no_tie(monkeypatch):
    flights, airplanes = _hit("list flights from [MASK] to [MASK] before [MASK]"), _hit("what kind of airplane goes ...")
    differently = {id(airplanes): "it asks for airplane, yours for flight"}
    assert time_readings.asking_alike([airplanes, flights], lambda c: differently.get(id(c))) == [flights]
    monkeypatch.setattr(time_readings, "ASKED_ALIKE", False)
    assert time_readings.asking_alike([airplanes, flights], lambda c: differently.get(id(c))) == [airplanes, flights]
