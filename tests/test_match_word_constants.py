"""Match route coverage of sqlgenie/inference/word_constants.py (issue 13, helper matchx) on a real
PostgreSQL with the real MiniLM model: a word the bank writes as constants ("on wednesday" as
``day_number = 23``) is read as the question's word ("on friday", ``day_number = 25``) when the bank
writes that one on the same column; any other difference still refuses."""

from __future__ import annotations

import psycopg
import pytest
from bank_fixture import bank_asker

from sqlgenie.inference import word_constants

CITIES = ["BOSTON", "DENVER", "ATLANTA", "PITTSBURGH", "DALLAS"]
_ROUTE = "FROM air.flight AS f, air.city AS a, air.city AS b WHERE f.from_city = a.city_code AND f.to_city = b.city_code"


def _on_day(x: str, y: str, day: int) -> str:
    return f"SELECT DISTINCT f.flight_id {_ROUTE} AND a.city_name = '{x}' AND b.city_name = '{y}' AND f.day_number = {day}"


def _count_on_day(x: str, day: int) -> str:
    return (f"SELECT COUNT(DISTINCT f.flight_id) FROM air.flight AS f, air.city AS a WHERE f.from_city = a.city_code"
            f" AND a.city_name = '{x}' AND f.day_number = {day}")


BANK = [
    ("flights from BOSTON to DENVER on wednesday", _on_day("BOSTON", "DENVER", 23)),
    ("flights from ATLANTA to DALLAS on wednesday", _on_day("ATLANTA", "DALLAS", 23)),
    ("how many flights leave PITTSBURGH on wednesday", _count_on_day("PITTSBURGH", 23)),
    ("how many flights leave BOSTON on friday", _count_on_day("BOSTON", 25)),
    ("count the flights out of DENVER on friday", _count_on_day("DENVER", 25)),
    ("number of flights departing DALLAS on friday", _count_on_day("DALLAS", 25)),
]


def _create_schema(conn: psycopg.Connection) -> None:
    conn.execute("CREATE SCHEMA air")
    conn.execute("CREATE TABLE air.city (city_code text PRIMARY KEY, city_name text NOT NULL)")
    conn.execute("CREATE TABLE air.flight (flight_id integer PRIMARY KEY, from_city text NOT NULL REFERENCES air.city,"
                 " to_city text NOT NULL REFERENCES air.city, day_number integer NOT NULL)")
    codes = [f"C{i}" for i in range(len(CITIES))]
    with conn.cursor() as cur:
        cur.executemany("INSERT INTO air.city VALUES (%s, %s)", list(zip(codes, CITIES)))
        cur.executemany("INSERT INTO air.flight VALUES (%s, %s, %s, %s)",
                        [(i, codes[i % 5], codes[(i * 3 + 1) % 5], 21 + i % 7) for i in range(1, 81)])
    for t in ("city", "flight"):
        conn.execute(f"ANALYZE air.{t}")


@pytest.fixture(scope="module")
def asker(module_db_url):
    with bank_asker(module_db_url, "air", _create_schema, BANK) as a:
        yield a


def test_a_day_word_is_read_with_the_banks_constants(asker, monkeypatch):
    monkeypatch.setattr(word_constants, "ENABLED", True)
    question = "flights from DENVER to PITTSBURGH on friday"
    r = asker.ask(question, route="match")
    assert r.status == "ok", r.think and r.think.reason
    assert "day_number = 25" in r.sql and "23" not in r.sql, r.sql
    monkeypatch.setattr(word_constants, "ENABLED", False)  # without the swap the example's constants refuse it
    r = asker.ask(question, route="match")
    assert r.status == "refused", r.sql


def test_a_word_the_bank_does_not_tie_is_not_swapped(asker, monkeypatch):
    monkeypatch.setattr(word_constants, "ENABLED", True)
    # "tomorrow" is written as no constant in the bank: the example's day stays a refusal
    r = asker.ask("flights from DENVER to PITTSBURGH tomorrow", route="match")
    assert r.status == "refused", r.sql


def test_tied_constants_are_learned_from_the_bank(asker):
    words = word_constants.word_constants(asker.retriever, asker.catalog)
    wed, fri = words.tied("wednesday"), words.tied("friday")
    assert [v for k, v in wed.items() if k.endswith("day_number")] == [("23",)]
    assert [v for k, v in fri.items() if k.endswith("day_number")] == [("25",)]
    assert words.tied("flights") == {}


def test_the_questions_own_words_say_their_constants(asker):
    words = word_constants.word_constants(asker.retriever, asker.catalog)
    said = word_constants.said_by(words, "flights from [MASK] to [MASK] on friday")
    assert ("day_number", "25") in said and ("day_number", "23") not in said
    assert word_constants.said_by(words, "flights from [MASK] to [MASK] on [MASK]") == set()  # a masked day says nothing


def test_a_word_in_capitals_is_not_read_with_the_lower_case_constants(asker, monkeypatch):
    monkeypatch.setattr(word_constants, "ENABLED", True)
    # the bank's constants are those of "friday" as written in lower case
    r = asker.ask("flights from DENVER to PITTSBURGH on FRIDAY", route="match")
    assert r.status == "refused" or "25" not in (r.sql or ""), r.sql


def test_worded_apart_counts_the_constants_the_questions_words_say(asker, monkeypatch):
    from types import SimpleNamespace

    from sqlgenie.inference import worded_apart

    q, sql = BANK[2]  # "how many flights leave PITTSBURGH on wednesday": day_number = 23, no value says it
    row = asker.store.execute("SELECT id FROM sqlgenie.bank_examples WHERE question = %s", (q,)).fetchone()
    cand = SimpleNamespace(example=SimpleNamespace(id=row[0], question=q, sql=sql, skeleton="",
                                                   spans=asker.retriever.mask(q).spans))
    retrieval = asker.retriever.retrieve("how many flights leave DALLAS on wednesday", k=1, threshold=0.0)
    assert worded_apart.unsaid_constants(asker, cand)  # the example's date is no value of its question
    monkeypatch.setattr(worded_apart, "SAID_CONSTANTS", True)
    assert worded_apart.allowed(asker, retrieval, cand) is None  # ... but the asked "wednesday" says it
    monkeypatch.setattr(worded_apart, "SAID_CONSTANTS", False)
    assert "no value of its question says" in (worded_apart.allowed(asker, retrieval, cand) or "")
