"""Match route coverage (issue 13, helper cover18): a deeper candidate's license reads what the bank
already reads (sqlgenie/inference/deeper_readings.py). Real embedded PostgreSQL and the real MiniLM
model: a small flight bank whose questions say day words (written as ``day_number`` constants) and ask
for fares as "fare", "price" or "cost" (answered with the fare table) or for flights."""

from __future__ import annotations

from types import SimpleNamespace

import psycopg
import pytest
from bank_fixture import bank_asker

from sqlgenie.inference import answer_words, deeper, deeper_readings, word_constants

CITIES = ["BOSTON", "DENVER", "ATLANTA", "PITTSBURGH", "DALLAS"]
_ROUTE = "FROM air.flight AS f, air.city AS a, air.city AS b WHERE f.from_city = a.city_code AND f.to_city = b.city_code"
_FARE = ("SELECT DISTINCT r.fare_id, r.cost FROM air.fare AS r, air.flight AS f, air.city AS a, air.city AS b "
         "WHERE r.flight_id = f.flight_id AND f.from_city = a.city_code AND f.to_city = b.city_code")


def _on_day(x: str, y: str, day: int) -> str:
    return f"SELECT DISTINCT f.flight_id {_ROUTE} AND a.city_name = '{x}' AND b.city_name = '{y}' AND f.day_number = {day}"


def _morning(x: str, y: str, end: int) -> str:
    return (f"SELECT DISTINCT f.flight_id {_ROUTE} AND a.city_name = '{x}' AND b.city_name = '{y}'"
            f" AND f.departure_time BETWEEN 0 AND {end}")


def _fare(x: str, y: str) -> str:
    return f"{_FARE} AND a.city_name = '{x}' AND b.city_name = '{y}'"


BANK = [
    ("flights from BOSTON to DENVER on wednesday", _on_day("BOSTON", "DENVER", 23)),
    ("flights from ATLANTA to DALLAS on wednesday", _on_day("ATLANTA", "DALLAS", 23)),
    ("show me the flights from PITTSBURGH to BOSTON on wednesday", _on_day("PITTSBURGH", "BOSTON", 23)),
    ("list flights from BOSTON to ATLANTA on friday", _on_day("BOSTON", "ATLANTA", 25)),
    ("what flights go from DENVER to DALLAS on friday", _on_day("DENVER", "DALLAS", 25)),
    ("flights from DALLAS to PITTSBURGH on friday", _on_day("DALLAS", "PITTSBURGH", 25)),
    ("what is the fare from BOSTON to DENVER", _fare("BOSTON", "DENVER")),
    ("what is the fare from ATLANTA to DALLAS", _fare("ATLANTA", "DALLAS")),
    ("what is the fare from DENVER to PITTSBURGH", _fare("DENVER", "PITTSBURGH")),
    ("what is the price of a ticket from BOSTON to DALLAS", _fare("BOSTON", "DALLAS")),
    ("what is the price from DENVER to ATLANTA", _fare("DENVER", "ATLANTA")),
    ("what is the price from PITTSBURGH to BOSTON", _fare("PITTSBURGH", "BOSTON")),
    ("what is the cost of flying from DALLAS to DENVER", _fare("DALLAS", "DENVER")),
    ("what is the cost from ATLANTA to BOSTON", _fare("ATLANTA", "BOSTON")),
    ("what is the cost from BOSTON to PITTSBURGH", _fare("BOSTON", "PITTSBURGH")),
    ("what is the flight from BOSTON to DENVER", _on_day("BOSTON", "DENVER", 23)),
    ("what is the flight from DALLAS to ATLANTA", _on_day("DALLAS", "ATLANTA", 23)),
    ("what is the flight from DENVER to BOSTON", _on_day("DENVER", "BOSTON", 23)),
    # "morning": departure_time 0 in every question saying it, 1200 in three of four (tied at 80 %: 0 only)
    ("morning flights from BOSTON to DENVER", _morning("BOSTON", "DENVER", 1200)),
    ("show me the morning flights from ATLANTA to DALLAS", _morning("ATLANTA", "DALLAS", 1200)),
    ("list flights from DENVER to PITTSBURGH in the morning", _morning("DENVER", "PITTSBURGH", 1200)),
    ("early morning flights from DALLAS to BOSTON", _morning("DALLAS", "BOSTON", 800)),
]


def _create_schema(conn: psycopg.Connection) -> None:
    conn.execute("CREATE SCHEMA air")
    conn.execute("CREATE TABLE air.city (city_code text PRIMARY KEY, city_name text NOT NULL)")
    conn.execute("CREATE TABLE air.flight (flight_id integer PRIMARY KEY, from_city text NOT NULL REFERENCES air.city,"
                 " to_city text NOT NULL REFERENCES air.city, day_number integer NOT NULL,"
                 " departure_time integer NOT NULL)")
    conn.execute("CREATE TABLE air.fare (fare_id integer PRIMARY KEY, flight_id integer NOT NULL REFERENCES air.flight,"
                 " cost integer NOT NULL)")
    codes = [f"C{i}" for i in range(len(CITIES))]
    with conn.cursor() as cur:
        cur.executemany("INSERT INTO air.city VALUES (%s, %s)", list(zip(codes, CITIES)))
        cur.executemany("INSERT INTO air.flight VALUES (%s, %s, %s, %s, %s)",
                        [(i, codes[i % 5], codes[(i * 3 + 1) % 5], 21 + i % 7, (i * 130) % 2400) for i in range(1, 81)])
        cur.executemany("INSERT INTO air.fare VALUES (%s, %s, %s)", [(i, i, 100 + 7 * i) for i in range(1, 81)])
    for t in ("city", "flight", "fare"):
        conn.execute(f"ANALYZE air.{t}")


@pytest.fixture(scope="module")
def asker(module_db_url):
    with bank_asker(module_db_url, "air", _create_schema, BANK) as a:
        yield a


def _ties(asker):
    return word_constants.word_constants(asker.retriever, asker.catalog)


def _candidate(asker, example_question: str) -> SimpleNamespace:
    row = asker.store.execute("SELECT id, sql FROM sqlgenie.bank_examples WHERE question = %s",
                              (example_question,)).fetchone()
    return SimpleNamespace(example=SimpleNamespace(id=row[0], question=example_question, sql=row[1], skeleton=""),
                           score=0.9)


def test_a_day_word_whose_constants_the_query_compares_is_written(asker, monkeypatch):
    friday = _on_day("BOSTON", "DENVER", 25)
    assert deeper_readings.written_words(["friday"], friday, _ties(asker), asker.catalog) == {"friday"}
    # the query compares wednesday's constant, not friday's: the word is still added
    assert not deeper_readings.written_words(["friday"], _on_day("BOSTON", "DENVER", 23), _ties(asker), asker.catalog)
    # a word the bank writes no constant for is never written
    assert not deeper_readings.written_words(["show"], friday, _ties(asker), asker.catalog)
    monkeypatch.setattr(deeper_readings, "CONSTANT_WORDS", False)
    assert not deeper_readings.written_words(["friday"], friday, _ties(asker), asker.catalog)


def test_the_deeper_license_accounts_for_a_written_day_word(asker, monkeypatch):
    """'friday' is a word no paraphrase of the candidate's query says, but its adapted query compares
    friday's constant: the stricter license lets it through (and refuses it with the reading off)."""
    question = "what flights leave from BOSTON to DENVER on friday"
    cand = _candidate(asker, "what is the flight from BOSTON to DENVER")
    retrieval = asker.retriever.retrieve(question, k=1, threshold=0.0)
    assert "friday" in deeper.added_words(asker, retrieval, cand)
    adapted = SimpleNamespace(sql=_on_day("BOSTON", "DENVER", 25), pairs=[("BOSTON", "BOSTON"), ("DENVER", "DENVER")])
    reason = deeper.stricter_license(asker, retrieval, cand, adapted)
    assert reason is None or "friday" not in reason, reason
    monkeypatch.setattr(deeper_readings, "CONSTANT_WORDS", False)
    reason = deeper.stricter_license(asker, retrieval, cand, adapted)
    assert reason is not None and "'friday'" in reason, reason


def test_heads_the_bank_answers_alike_are_the_same_thing(asker, monkeypatch):
    heads = answer_words.answer_heads(asker.retriever, asker.catalog, asker._schema_word)
    assert heads.marks("fare") and heads.marks("fare") == heads.marks("price")
    assert deeper_readings.same_heads(["fare"], ["price"], heads)
    assert deeper_readings.same_heads(["cost"], ["fare"], heads)
    assert not deeper_readings.same_heads(["fare"], ["flight"], heads)  # read apart by the bank
    assert not deeper_readings.same_heads(["fare"], ["ticketing"], heads)  # no reading: still apart
    monkeypatch.setattr(deeper_readings, "SAME_HEADS", False)
    assert not deeper_readings.same_heads(["fare"], ["price"], heads)


def test_a_deeper_candidate_asking_for_a_price_answers_a_fare_question(asker, monkeypatch):
    question = "show the fare from DALLAS to BOSTON"
    cand = _candidate(asker, "what is the price from PITTSBURGH to BOSTON")
    retrieval = asker.retriever.retrieve(question, k=1, threshold=0.0)
    assert deeper.asked_differently(asker, retrieval, cand) is None
    flight = _candidate(asker, "what is the flight from DENVER to BOSTON")
    assert deeper.asked_differently(asker, retrieval, flight) is not None  # a flight is not a fare
    monkeypatch.setattr(deeper_readings, "SAME_HEADS", False)
    got = deeper.asked_differently(asker, retrieval, cand)
    assert got is not None and "price" in got, got


def test_a_part_of_the_day_says_its_constants_at_the_usual_share(asker, monkeypatch):
    ties = _ties(asker)
    masked = asker.retriever.mask("i would like a morning flight from ATLANTA to BOSTON").text
    assert ("departure_time", "0") in word_constants.said_by(ties, masked)
    assert ("departure_time", "1200") not in word_constants.said_by(ties, masked)  # 75 %: not tied
    said = deeper_readings.said_constants(ties, masked)
    assert {("departure_time", "0"), ("departure_time", "1200")} <= said
    assert ("departure_time", "800") not in said  # one question in four
    monkeypatch.setattr(deeper_readings, "USUAL_SAID", False)
    assert ("departure_time", "1200") not in deeper_readings.said_constants(ties, masked)


def test_the_license_reads_the_example_as_the_swap_read_it(asker, monkeypatch):
    """The example's "on wednesday" is read as the question's "on friday" (word_constants): its SQL's
    ``day_number = 23`` is friday's 25 and "wednesday" is no word the question drops."""
    question = "flights from DALLAS to ATLANTA on friday"
    cand = _candidate(asker, "flights from ATLANTA to DALLAS on wednesday")
    retrieval = asker.retriever.retrieve(question, k=1, threshold=0.0)
    assert "day_number = 25" in deeper_readings.as_adapted(asker, retrieval, cand)
    assert deeper_readings.swapped_out(asker, retrieval, cand, ["wednesday", "show"]) == ["show"]
    monkeypatch.setattr(deeper_readings, "SWAPPED_WORDS", False)
    assert "day_number = 23" in deeper_readings.as_adapted(asker, retrieval, cand)
    assert deeper_readings.swapped_out(asker, retrieval, cand, ["wednesday", "show"]) == ["wednesday", "show"]
