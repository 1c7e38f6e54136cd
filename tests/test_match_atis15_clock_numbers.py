"""Match route, sqlgenie/inference/clock_numbers.py and example_bank.masking.CLITICS_ARE_WORDS (issue 13,
helper atis15), on a real PostgreSQL with the real MiniLM model.

* A four-digit number read as a year ("arriving after 2100", "between 1800 and 1900") that the example's
  SQL compares with a time of day is a number: the question is answered from an example that says "after
  1600" (ATIS seeds 12-13: "show me flights from DENVER to PHILADELPHIA arriving after 2100" was refused
  for its value counts). A year-like number against an example that reads no time of day stays a year.
* The ending of a contraction written apart ("what 's the fare") is a word: ATIS stores a meal code 'S',
  and the lone "s" was masked as a value the example's SQL never uses."""

from __future__ import annotations

import pytest
from bank_fixture import AIR_ROUTE, bank_asker, create_air

import example_bank.masking as masking
from example_bank.masking import SchemaVocabulary, mask_question
from sqlgenie.inference import clock_numbers, time_readings

CITIES = ["BOSTON", "DENVER", "ATLANTA", "PITTSBURGH", "DALLAS"]


def _arriving(x: str, y: str, op: str, *times: int) -> str:
    cond = " AND ".join(f"f.arrival_time {o} {t}" for o, t in zip(op.split(","), times))
    return f"SELECT DISTINCT f.flight_id {AIR_ROUTE} AND a.city_name = '{x}' AND b.city_name = '{y}' AND {cond}"


def _cost(x: str, y: str) -> str:
    return f"SELECT DISTINCT f.cost {AIR_ROUTE} AND a.city_name = '{x}' AND b.city_name = '{y}'"


BANK = [
    ("show me flights from BOSTON to DENVER arriving after 1600", _arriving("BOSTON", "DENVER", ">", 1600)),
    ("flights from ATLANTA to DALLAS arriving between 1000 and 1400",
     _arriving("ATLANTA", "DALLAS", ">=,<=", 1000, 1400)),
    ("what 's the cost from BOSTON to DALLAS", _cost("BOSTON", "DALLAS")),
    ("i need a flight from BOSTON to DENVER that arrives around 5pm",
     _arriving("BOSTON", "DENVER", ">=,<=", 1630, 1730)),
    # a bank gold that reads "2100 o'clock" as two times of day (ATIS writes such pairs)
    ("do you have a 2100 o'clock flight from DENVER to PITTSBURGH",
     f"SELECT DISTINCT f.flight_id {AIR_ROUTE} AND a.city_name = 'DENVER' AND b.city_name = 'PITTSBURGH' "
     "AND (f.arrival_time = 2100 OR f.arrival_time = 900)"),
]

_create = create_air(CITIES, [("arrival_time", "integer", lambda i: (i * 97) % 2400),
                              ("cost", "integer", lambda i: 100 + i),
                              ("meal_code", "text", lambda i: "S" if i % 2 else "B")], rows=120)


@pytest.fixture(scope="module")
def asker(module_db_url):
    with bank_asker(module_db_url, "air", _create, BANK) as a:
        yield a


def test_a_year_like_number_compared_with_a_time_of_day_is_a_number(asker, monkeypatch):
    r = asker.ask("show me flights from DENVER to PITTSBURGH arriving after 2100", route="match")
    assert r.status == "ok", r.think and r.think.reason
    assert "arrival_time > 2100" in r.sql and "'DENVER'" in r.sql and "'PITTSBURGH'" in r.sql, r.sql
    monkeypatch.setattr(clock_numbers, "ENABLED", False)
    r = asker.ask("show me flights from DENVER to PITTSBURGH arriving after 2100", route="match")
    assert r.status == "refused", r.sql


def test_two_times_of_day_are_left_as_they_were(asker, monkeypatch):
    """Only one time of day is re-read: with two, pairing gives a repeated value its equal first and crossed
    "between 1600 and 1700" against "between 1700 and 2000" (ATIS seed 0); a range of year-like numbers
    stays refused, unless both questions say it "between A and B" and ``time_readings.RANGE_IN_ORDER`` (cover19b,
    off by default) pairs the ends in order (tests/test_match_time_readings.py)."""
    monkeypatch.setattr(time_readings, "RANGE_IN_ORDER", True)
    r = asker.ask("flights from BOSTON to ATLANTA arriving between 1800 and 1900", route="match")
    assert r.status == "refused" or ("arrival_time >= 1800" in r.sql and "arrival_time <= 1900" in r.sql), r.sql
    monkeypatch.setattr(time_readings, "RANGE_IN_ORDER", False)
    r = asker.ask("flights from BOSTON to ATLANTA arriving between 1800 and 1900", route="match")
    assert r.status == "refused", r.sql
    from sqlgenie.autocorrect.base import parse_sql
    from sqlgenie.inference.adapt import Span, align, collect_slots

    tree = parse_sql("SELECT f.flight_id FROM flight AS f WHERE f.arrival_time >= 1700 AND f.arrival_time <= 2000")
    slots = collect_slots(tree)
    ex = [Span(30, 34, "1700", "number"), Span(39, 43, "2000", "date")]
    new = [Span(30, 34, "1600", "number"), Span(39, 43, "1700", "number")]
    assert clock_numbers.reread(ex, new, slots, align(ex, slots)) == (ex, new)


def test_an_example_year_like_number_is_read_as_the_question_s_time():
    """The other way round: the example says "after 2100" (a year to the masker), the question "after 1600"."""
    from sqlgenie.autocorrect.base import parse_sql
    from sqlgenie.inference.adapt import Span, align, collect_slots

    tree = parse_sql("SELECT f.flight_id FROM flight AS f WHERE f.arrival_time > 2100")
    slots = collect_slots(tree)
    ex, new = [Span(26, 30, "2100", "date")], [Span(26, 30, "1600", "number")]
    ex2, new2 = clock_numbers.reread(ex, new, slots, align(ex, slots))
    assert [s.cls for s in ex2] == ["number"] and new2 == new


def test_a_year_stays_a_year_where_the_example_reads_no_time_of_day():
    from sqlgenie.autocorrect.base import parse_sql
    from sqlgenie.inference.adapt import Span, align, collect_slots

    tree = parse_sql("SELECT p.id FROM paper AS p WHERE p.citations > 1500")
    slots = collect_slots(tree)
    ex, new = [Span(30, 34, "1500", "number")], [Span(20, 24, "2020", "date")]
    assert clock_numbers.reread(ex, new, slots, align(ex, slots)) == (ex, new)
    assert not clock_numbers.time_of_day_column("flight.departure_date")
    assert clock_numbers.time_of_day_column("defog_t2s_atis.flight.arrival_time")


def test_the_ending_of_a_contraction_is_no_value(monkeypatch):
    vocab = SchemaVocabulary.from_names(["flight", "fare"])
    values = {"s": "food_service.meal_code", "new york": "city.city_name", "boston": "city.city_name"}
    lookup = lambda t: values.get(t.lower())  # noqa: E731
    monkeypatch.setattr(masking, "CLITICS_ARE_WORDS", True)  # built, off by default (see masking)
    assert mask_question("what 's the fare from BOSTON to NEW YORK 's downtown", vocab, lookup).text == \
        "what 's the fare from [MASK] to [MASK] 's downtown"
    assert [s.text for s in mask_question("a flight with meal S", vocab, lookup).spans] == ["S"]  # a value still
    monkeypatch.setattr(masking, "CLITICS_ARE_WORDS", False)
    assert [s.text for s in mask_question("what 's the fare from BOSTON", vocab, lookup).spans] == ["s", "BOSTON"]


def test_a_question_with_a_contraction_answers(asker, monkeypatch):
    """End to end: the example says "what 's", the question "what is"; the lone "s" is a stored meal code."""
    monkeypatch.setattr(masking, "CLITICS_ARE_WORDS", True)
    asker.refresh()
    r = asker.ask("what is the cost from DENVER to ATLANTA", route="match")
    assert r.status == "ok" and "'DENVER'" in r.sql and "'ATLANTA'" in r.sql, r.think and r.think.reason
    monkeypatch.setattr(masking, "CLITICS_ARE_WORDS", False)
    asker.refresh()
    r = asker.ask("what is the cost from DENVER to ATLANTA", route="match")
    assert r.status == "refused", r.sql


def test_a_schema_word_after_a_stored_value_stays_a_word(monkeypatch):
    """ATIS: "BUSINESS class" is a stored ``class_description`` and "BUSINESS" a stored ``class_type`` (what
    the SQL compares); "FIRST class" masks as "[MASK] class", so must "BUSINESS class"."""
    vocab = SchemaVocabulary.from_names(["fare", "class_type", "class_description"])
    values = {"business": "fare_basis.class_type", "first": "fare_basis.class_type",
              "business class": "class_of_service.class_description", "new york": "city.city_name",
              "new york city": "city.city_name"}
    lookup = lambda t: values.get(t.lower())  # noqa: E731
    assert mask_question("show BUSINESS class fares", vocab, lookup).text == "show [MASK] class fares"
    assert mask_question("show FIRST class fares", vocab, lookup).text == "show [MASK] class fares"
    # a value whose shorter part is a value of the same column stays whole
    assert [s.text for s in mask_question("fares to NEW YORK CITY", SchemaVocabulary.from_names(["city"]),
                                          lookup).spans] == ["NEW YORK CITY"]
    monkeypatch.setattr(masking, "SCHEMA_WORD_AFTER_VALUE", False)
    assert mask_question("show BUSINESS class fares", vocab, lookup).text == "show [MASK] fares"


def test_a_time_said_with_pm_keeps_the_example_s_range(asker, monkeypatch):
    """ATIS writes "around 5pm" as ``arrival_time >= 1630 AND arrival_time <= 1730``: "around 10pm" is 2130 to
    2230 (seed 12: "what are the flights from ORLANDO to CLEVELAND on US that arrive around 10pm")."""
    question = "i need a flight from ATLANTA to DALLAS that arrives around 10pm"
    monkeypatch.setattr(clock_numbers, "CLOCK_TEXT", True)  # built, off by default (see the module)
    r = asker.ask(question, route="match")
    assert r.status == "ok", r.think and r.think.reason
    assert "arrival_time >= 2130" in r.sql and "arrival_time <= 2230" in r.sql, r.sql
    monkeypatch.setattr(clock_numbers, "CLOCK_TEXT", False)
    assert asker.ask(question, route="match").status == "refused"


def test_a_time_after_another_word_is_refused(asker, monkeypatch):
    """"at 10pm" is one time, "around 5pm" a range: the clock reading needs the same word before the time."""
    monkeypatch.setattr(clock_numbers, "CLOCK_TEXT", True)
    r = asker.ask("i need a flight from ATLANTA to DALLAS that arrives at 10pm", route="match")
    assert r.status == "refused", r.sql


def test_clock_minutes():
    assert clock_numbers.clock_minutes("5pm") == 17 * 60
    assert clock_numbers.clock_minutes("1220pm") == 12 * 60 + 20
    assert clock_numbers.clock_minutes("12am") == 0
    assert clock_numbers.clock_minutes("1700") is None and clock_numbers.clock_minutes("13pm") is None
    assert clock_numbers.shifted("10pm", -30) == 2130 and clock_numbers.shifted("630pm", 30) == 1900


def test_free_words_are_no_wording_of_an_implied_constant(monkeypatch):
    """ATIS seed 12: "i need a flight from DENVER to SALT LAKE CITY on monday" against "what flights from
    MONTREAL to LAS VEGAS on saturday" was refused for "need" alone, a word the bank shows no query needs
    (free_words); a word that is not free still refuses."""
    from example_bank.masking import MaskedSpan
    from sqlgenie.inference import free_words
    from sqlgenie.inference.verify import implied_constants

    sql = f"SELECT DISTINCT f.flight_id {AIR_ROUTE} AND a.city_name = 'BOSTON' AND f.stops = 0"
    spans = [MaskedSpan(25, 31, "BOSTON", "value", None)]
    ex, new = "what nonstop flights from [MASK]", "i need nonstop flights from [MASK]"
    free = lambda: frozenset({"need", "like"})  # noqa: E731
    monkeypatch.setattr(free_words, "IMPLIED_CONSTANTS", True)  # built, off by default (see the module)
    assert implied_constants(sql, spans, ex, new, free=free) == []
    assert implied_constants(sql, spans, ex, "i want cheap nonstop flights from [MASK]", free=free)
    monkeypatch.setattr(free_words, "IMPLIED_CONSTANTS", False)
    assert implied_constants(sql, spans, ex, new, free=free)


def test_an_example_whose_time_is_two_constants_is_not_re_read(asker, monkeypatch):
    """The example's SQL compares the time with 2100 and with 900, its question says one time: the question's
    "400" would replace 2100 and leave 900, so the year-like reading is kept and the example refused."""
    question = "do you have a 400 o'clock flight from ATLANTA to DALLAS"
    r = asker.ask(question, route="match")
    assert r.status != "ok" or "= 900" not in r.sql, r.sql
    monkeypatch.setattr(clock_numbers, "UNSAID_TIMES", False)
    r = asker.ask(question, route="match")
    assert r.status == "ok" and "arrival_time = 400" in r.sql and "arrival_time = 900" in r.sql, \
        r.think and r.think.reason
