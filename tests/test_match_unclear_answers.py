"""Match route refusals of sqlgenie/inference/unclear_answers.py (issue 13, helper spider9) on a real
PostgreSQL with the real MiniLM model: "than any" read against an extreme subquery (every one, or at
least one?) and ``SELECT *`` over joined tables. Each refusal disappears when its switch is off, and
the unambiguous neighbours ("than every", ``SELECT *`` from one table) are answered."""

from __future__ import annotations

import psycopg
import pytest
import sqlglot
from bank_fixture import bank_asker, refused_then_answered_without

from sqlgenie.inference import unclear_answers
from sqlgenie.inference.unclear_answers import (ambiguous_any, reason_code, requested_items, star_over_join,
                                                uncomputed_average, unreturned_items)

CONTINENTS = ["Africa", "Asia", "Europe", "Oceania"]
LANGUAGES = ["English", "Dutch", "French", "German", "Spanish"]


def _any(a: str, b: str) -> str:
    return (f"SELECT name FROM geo.country WHERE continent = '{a}' AND population < "
            f"(SELECT MIN(population) FROM geo.country WHERE continent = '{b}')")


def _every(a: str, b: str) -> str:
    return (f"SELECT name FROM geo.country WHERE continent = '{a}' AND surfacearea > "
            f"(SELECT MAX(surfacearea) FROM geo.country WHERE continent = '{b}')")


def _either(x: str, y: str) -> str:
    one = ("SELECT * FROM geo.country AS t1 JOIN geo.countrylanguage AS t2 ON t1.code = t2.countrycode "
           "WHERE t2.language = '{}'")
    return one.format(x) + " UNION " + one.format(y)


BANK = [
    ("Which countries in Africa have a smaller population than that of any country in Asia?", _any("Africa", "Asia")),
    ("Which countries in Europe have a bigger surface area than every country in Oceania?",
     _every("Europe", "Oceania")),
    ("What are the countries where either English or Dutch is spoken?", _either("English", "Dutch")),
    ("Show all information about the countries in Europe.", "SELECT * FROM geo.country WHERE continent = 'Europe'"),
    ("How many countries speak each language? Only list the count and the language.",
     "SELECT COUNT(*), language FROM geo.countrylanguage GROUP BY language"),
]


AVERAGE_BANK = ("What is the maximum population and the average of all countries?",
                # "average" read as a column (as Spider's stadium.average): the example's own error
                "SELECT MAX(population), (ARRAY_AGG(average ORDER BY population DESC NULLS LAST))[1] FROM geo.country")
BANK.append(AVERAGE_BANK)


def _create_schema(conn: psycopg.Connection) -> None:
    conn.execute("CREATE SCHEMA geo")
    conn.execute("CREATE TABLE geo.country (code text PRIMARY KEY, name text NOT NULL, continent text NOT NULL,"
                 " population integer NOT NULL, surfacearea integer NOT NULL, average integer NOT NULL)")
    conn.execute("CREATE TABLE geo.countrylanguage (countrycode text NOT NULL REFERENCES geo.country,"
                 " language text NOT NULL, isofficial text NOT NULL, PRIMARY KEY (countrycode, language))")
    rows = [(f"C{i:02d}", f"Country {i}", CONTINENTS[i % 4], 1000 * (i * 37 % 101), 10 * (i * 13 % 89), i % 7)
            for i in range(40)]
    langs = [(f"C{i:02d}", LANGUAGES[(i + k) % 5], "T" if k == 0 else "F") for i in range(40) for k in range(2)]
    with conn.cursor() as cur:
        cur.executemany("INSERT INTO geo.country VALUES (%s, %s, %s, %s, %s, %s)", rows)
        cur.executemany("INSERT INTO geo.countrylanguage VALUES (%s, %s, %s)", langs)
    for t in ("country", "countrylanguage"):
        conn.execute(f"ANALYZE geo.{t}")


@pytest.fixture(scope="module")
def asker(module_db_url):
    with bank_asker(module_db_url, "geo", _create_schema, BANK) as a:
        yield a


def _refused_then_answered_without(asker, monkeypatch, question: str, switch: str, code: str) -> str:
    return refused_then_answered_without(asker, monkeypatch, question, code, reason_code, [(unclear_answers, switch)],
                                         counted=False)


def test_than_any_against_an_extreme_is_refused(asker, monkeypatch):
    sql = _refused_then_answered_without(
        asker, monkeypatch, "Which countries in Europe have a smaller population than any country in Oceania?",
        "ANY", "ambiguous any")
    assert "MIN(" in sql.upper()


def test_than_every_is_answered(asker):
    r = asker.ask("Which countries in Asia have a bigger surface area than every country in Africa?", route="match")
    assert r.status == "ok", r.think and r.think.reason
    assert "MAX(" in r.sql.upper()


def test_star_over_a_join_is_refused(asker, monkeypatch):
    sql = _refused_then_answered_without(
        asker, monkeypatch, "What are the countries where either French or German is spoken?",
        "STAR", "star over join")
    assert "*" in sql


def test_star_from_one_table_is_answered(asker):
    r = asker.ask("Show all information about the countries in Asia.", route="match")
    assert r.status == "ok", r.think and r.think.reason
    assert "*" in r.sql


def test_fewer_columns_than_listed_items_are_refused(asker, monkeypatch):
    sql = _refused_then_answered_without(
        asker, monkeypatch,
        "How many countries speak each language? List the language, the number of countries and the official flag.",
        "ITEMS", "unreturned items")
    assert "COUNT(" in sql.upper()
    r = asker.ask("How many countries speak each language? List the language and the count.", route="match")
    assert r.status == "ok", r.think and r.think.reason  # two things asked, two returned


def test_an_average_the_query_does_not_compute_is_refused(asker, monkeypatch):
    sql = _refused_then_answered_without(
        asker, monkeypatch, "What is the average and maximum populations of all countries?", "AVERAGE",
        "uncomputed average")
    assert "AVG(" not in sql.upper()


def test_rules_read_the_question_and_the_ast():
    tree = sqlglot.parse_one(_any("Africa", "Asia"), read="postgres")
    assert ambiguous_any(tree, "countries with a population smaller than that of any country in [MASK]")
    assert ambiguous_any(tree, "countries with a population smaller than those of any country in [MASK]")
    assert not ambiguous_any(tree, "countries with a population smaller than every country in [MASK]")
    assert not ambiguous_any(tree, "countries in [MASK] without any language")  # "any" with no comparative
    plain = sqlglot.parse_one("SELECT name FROM geo.country WHERE population < 5", read="postgres")
    assert not ambiguous_any(plain, "countries with a population smaller than any [MASK]")
    assert star_over_join(sqlglot.parse_one(_either("English", "Dutch"), read="postgres"))
    assert star_over_join(sqlglot.parse_one("SELECT * FROM a, b WHERE a.x = b.x", read="postgres"))
    assert not star_over_join(sqlglot.parse_one("SELECT * FROM geo.country", read="postgres"))
    assert not star_over_join(sqlglot.parse_one(
        "SELECT name FROM a WHERE EXISTS (SELECT * FROM b JOIN c ON b.x = c.x)", read="postgres"))
    two = sqlglot.parse_one("SELECT COUNT(*), language FROM geo.countrylanguage GROUP BY language", read="postgres")
    assert requested_items("How many? Only list the count and the maker full name .") == ["the count", "the maker full name"]
    assert requested_items("List the id, role and email of the professionals.") is None  # no earlier sentence
    assert unreturned_items(two, "How many per language? Show me the id, role, and email.")
    assert not unreturned_items(two, "How many per language? Show me the id and the email.")
    arr = sqlglot.parse_one(AVERAGE_BANK[1], read="postgres")
    assert uncomputed_average(arr, "What is the average and maximum populations of all countries?")
    assert not uncomputed_average(sqlglot.parse_one("SELECT AVG(population), MAX(population) FROM geo.country"),
                                  "What is the average and maximum populations of all countries?")
    assert not uncomputed_average(arr, "What is the name of the country with the highest average?")
