"""Match route precision rules (issue 13, sqlgenie/inference/precision.py) on a real
PostgreSQL with the real MiniLM model: the question's value as the database stores it
(no widening to close cached values), the kind of answer the question asks for (how
many / when), and a modifier the question adds that the bank's SQL always encodes as a
number ("nonstop" -> stops = 0)."""

from __future__ import annotations

import psycopg
import pytest
from bank_fixture import onboard_with_bank

from sqlgenie.autocorrect.base import parse_sql
from sqlgenie.inference.pipeline import Asker
from sqlgenie.inference.precision import (
    ModifierWords,
    answer_type_mismatch,
    missing_modifiers,
    reason_code,
)

FREQUENT = ["Noah A Smith", "Noah Smith", "Dan Klein", "Mirella Lapata", "Ray Mooney"]
RARE = ["Noah B Smith", "Noah A. Smith", "Percy Liang", "Regina Barzilay", "Yejin Choi", "Chris Manning", "Kevin Knight"]
CITIES = ["BOSTON", "DENVER", "DALLAS", "ATLANTA", "CHICAGO"]  # all cached (top_values=5)

BANK = [
    ("How many papers has Dan Klein published?",
     "SELECT COUNT(DISTINCT w.paperid) FROM pub.author AS a JOIN pub.writes AS w ON w.authorid = a.authorid "
     "WHERE a.authorname = 'Dan Klein'"),
    # template noise: a "how many" question whose SQL lists the papers
    ("how many papers did Ray Mooney write in 2016",
     "SELECT DISTINCT w.paperid FROM pub.author AS a JOIN pub.writes AS w ON w.authorid = a.authorid "
     "JOIN pub.paper AS p ON p.paperid = w.paperid WHERE a.authorname = 'Ray Mooney' AND p.year = 2016"),
    # template noise: a "when" question whose SQL lists titles
    ("When did Mirella Lapata publish her papers on parsing?",
     "SELECT DISTINCT p.title FROM pub.author AS a JOIN pub.writes AS w ON w.authorid = a.authorid "
     "JOIN pub.paper AS p ON p.paperid = w.paperid WHERE a.authorname = 'Mirella Lapata' AND p.title LIKE '%parsing%'"),
    ("In which years did Dan Klein publish?",
     "SELECT DISTINCT p.year FROM pub.author AS a JOIN pub.writes AS w ON w.authorid = a.authorid "
     "JOIN pub.paper AS p ON p.paperid = w.paperid WHERE a.authorname = 'Dan Klein'"),
    ("latest papers by Dan Klein",
     "SELECT DISTINCT p.title, p.year FROM pub.author AS a JOIN pub.writes AS w ON w.authorid = a.authorid "
     "JOIN pub.paper AS p ON p.paperid = w.paperid WHERE a.authorname = 'Dan Klein' ORDER BY p.year DESC"),
    ("the latest papers on parsing",
     "SELECT DISTINCT p.title, p.year FROM pub.paper AS p WHERE p.title LIKE '%parsing%' ORDER BY p.year DESC"),
    ("which are the latest papers",
     "SELECT DISTINCT p.title, p.year FROM pub.paper AS p ORDER BY p.year DESC LIMIT 10"),
    ("papers by Ray Mooney",
     "SELECT DISTINCT p.title FROM pub.author AS a JOIN pub.writes AS w ON w.authorid = a.authorid "
     "JOIN pub.paper AS p ON p.paperid = w.paperid WHERE a.authorname = 'Ray Mooney'"),
    ("show flights from BOSTON to DENVER on monday",
     "SELECT DISTINCT f.flight_id FROM pub.flight AS f WHERE f.from_city = 'BOSTON' AND f.to_city = 'DENVER' "
     "AND f.day_name = 'monday'"),
    ("nonstop flights from DALLAS to ATLANTA",
     "SELECT DISTINCT f.flight_id FROM pub.flight AS f WHERE f.from_city = 'DALLAS' AND f.to_city = 'ATLANTA' "
     "AND f.stops = 0"),
    ("list nonstop flights leaving CHICAGO",
     "SELECT DISTINCT f.flight_id FROM pub.flight AS f WHERE f.from_city = 'CHICAGO' AND f.stops = 0"),
    ("which nonstop flights arrive in BOSTON",
     "SELECT DISTINCT f.flight_id FROM pub.flight AS f WHERE f.to_city = 'BOSTON' AND f.stops = 0"),
]


def _create_schema(conn: psycopg.Connection) -> None:
    conn.execute("CREATE SCHEMA pub")
    conn.execute("CREATE TABLE pub.author (authorid integer PRIMARY KEY, authorname text NOT NULL)")
    conn.execute("CREATE TABLE pub.paper (paperid integer PRIMARY KEY, title text NOT NULL, year integer NOT NULL)")
    conn.execute("CREATE TABLE pub.writes (paperid integer NOT NULL REFERENCES pub.paper(paperid),"
                 " authorid integer NOT NULL REFERENCES pub.author(authorid), PRIMARY KEY (paperid, authorid))")
    conn.execute("CREATE TABLE pub.flight (flight_id integer PRIMARY KEY, from_city text NOT NULL,"
                 " to_city text NOT NULL, day_name text NOT NULL, departure_time integer NOT NULL, stops integer NOT NULL)")
    with conn.cursor() as cur:
        authors = [name for name in FREQUENT for _ in range(4)] + RARE  # the frequent names fill the value cache
        cur.executemany("INSERT INTO pub.author VALUES (%s, %s)", list(enumerate(authors, 1)))
        cur.executemany("INSERT INTO pub.paper VALUES (%s, %s, %s)",
                        [(i, f"paper {i} on {'parsing' if i % 3 == 0 else 'tagging'}", 2010 + i % 8) for i in range(1, 61)])
        cur.executemany("INSERT INTO pub.writes VALUES (%s, %s)",
                        [(i, 1 + (i * 7) % len(authors)) for i in range(1, 61)]
                        + [(i, len(FREQUENT) * 4 + 1) for i in range(1, 6)])  # Noah B Smith wrote 5 papers
        cur.executemany("INSERT INTO pub.flight VALUES (%s, %s, %s, %s, %s, %s)",
                        [(i, CITIES[i % 5], CITIES[(i + 1 + i // 5) % 5], ["monday", "tuesday"][i % 2],
                          100 * (i % 24), i % 3) for i in range(1, 121)])
    for t in ("author", "paper", "writes", "flight"):
        conn.execute(f"ANALYZE pub.{t}")


@pytest.fixture(scope="module")
def pub(module_db_url):
    return onboard_with_bank(module_db_url, "pub", _create_schema, BANK, measure_indexes=False, top_values=5)


@pytest.fixture(scope="module")
def asker(pub):
    with Asker.open(pub, provider=None, log=False) as a:
        yield a


def _scalar(asker, sql: str):
    return asker.executor.run(sql).rows[0][0]


# --------------------------------------------------------------------------- 1. the question's value as stored


def test_stored_value_is_kept_not_widened_to_close_cached_values(asker):
    from sqlgenie.autocorrect import run_chain

    # the premise: the value cache holds the frequent spellings, not the rare exact one, so the
    # value corrector alone would widen the question's value to every close cached value
    widened = run_chain("SELECT authorid FROM pub.author WHERE authorname = 'Noah B Smith'", asker.catalog,
                        asker.matcher, asker.autocorrect.model_copy(update={"value_same_folded": True}))
    assert "IN (" in widened.sql and "'Noah Smith'" in widened.sql

    r = asker.ask("How many papers has Noah B Smith published?")
    assert r.status == "ok" and r.method == "adapt", r.message
    assert "= 'Noah B Smith'" in r.sql and "IN (" not in r.sql and "'Noah A Smith'" not in r.sql
    assert r.rows[0][0] == _scalar(asker, "SELECT count(DISTINCT paperid) FROM pub.writes JOIN pub.author USING (authorid)"
                                           " WHERE authorname = 'Noah B Smith'") >= 5
    # a case variant of the stored value is that value alone
    r = asker.ask("How many papers has NOAH B SMITH published?")
    assert r.status == "ok" and "= 'Noah B Smith'" in r.sql and "IN (" not in r.sql, r.sql
    # a value the column does not hold is still corrected as before (close cached values)
    r = asker.ask("How many papers has Ray Mooney published?")
    assert r.status == "ok" and "= 'Ray Mooney'" in r.sql


# --------------------------------------------------------------------------- 2. the kind of answer


def test_how_many_answered_by_a_list_is_refused(asker):
    r = asker.ask("how many papers did Dan Klein write in 2015")
    assert r.status == "refused" and r.sql is None and not r.rows
    assert "asks how many" in r.think.reason and r.think.nearest
    assert reason_code(r.think.reason) == "answer type"
    # the right question of the same shape as a counting example still answers
    r = asker.ask("How many papers has Percy Liang published?")
    assert r.status == "ok" and "COUNT(" in r.sql.upper()


def test_when_answered_without_a_date_is_refused(asker):
    r = asker.ask("When did Dan Klein publish his papers on parsing?")
    assert r.status == "refused" and r.sql is None and "asks when" in r.think.reason
    r = asker.ask("In which years did Mirella Lapata publish?")
    assert r.status == "ok" and "year" in r.sql


def test_answer_type_pure():
    listing = parse_sql("SELECT DISTINCT w.paperid FROM writes AS w WHERE w.authorid = 3")
    assert answer_type_mismatch(listing, "how many papers did X write")
    assert answer_type_mismatch(listing, "papers of X") == []
    assert answer_type_mismatch(parse_sql("SELECT COUNT(*) FROM writes"), "How many papers") == []
    assert answer_type_mismatch(parse_sql("SELECT SUM(a) + SUM(b) FROM t"), "how many lectures") == []
    assert answer_type_mismatch(parse_sql("SELECT COUNT(*) > 0 FROM t"), "how many are there, any?") == []
    # a numeric column that is not a key answers "how many" (unknown types pass)
    assert answer_type_mismatch(parse_sql("SELECT c.credits FROM course AS c"), "how many credits is X") == []
    titles = parse_sql("SELECT p.title FROM paper AS p")
    assert answer_type_mismatch(titles, "When was X published?")
    assert answer_type_mismatch(titles, "what year was X published")
    assert answer_type_mismatch(titles, "How recently were classes in X given ?")
    assert answer_type_mismatch(parse_sql("SELECT p.title, p.year FROM paper AS p"), "when was X published") == []
    # day-of-week flags are not a date ("how recently" answered with the days a class meets)
    days = parse_sql("SELECT o.friday, o.monday FROM course_offering AS o")
    assert answer_type_mismatch(days, "How recently were classes in X given ?")
    assert answer_type_mismatch(parse_sql("SELECT o.start_time FROM course_offering AS o"), "When is X held?") == []
    # "when" inside the sentence is a clause, not the question
    assert answer_type_mismatch(titles, "When Tina took X , who taught it ?") == []
    assert answer_type_mismatch(titles, "titles of papers written when X was young") == []


# --------------------------------------------------------------------------- 3. a modifier the question adds


def test_modifier_the_question_adds_is_not_dropped(asker):
    r = asker.ask("show nonstop flights from DENVER to DALLAS on monday", route="match")
    assert r.status == "refused" or "stops" in (r.sql or ""), r.sql
    if r.status == "refused":
        assert "nonstop" in r.think.reason
    # the example's own wording still answers
    r = asker.ask("show flights from CHICAGO to ATLANTA on monday")
    assert r.status == "ok" and r.method == "adapt" and "stops" not in r.sql, r.think and r.think.reason


def test_modifier_words_from_the_bank(asker):
    words = ModifierWords(asker.store, None, asker.catalog)
    found = words.modifiers(["nonstop", "flights", "monday", "papers"])
    assert found == {"nonstop": frozenset({"stops"})}
    plain = parse_sql("SELECT f.flight_id FROM pub.flight AS f WHERE f.from_city = 'DENVER' AND f.day_name = 'monday'")
    spans = [{"start": 23, "end": 29, "text": "DENVER", "kind": "value"}]
    reasons = missing_modifiers(plain, "show flights from [MASK] on [MASK]", "show nonstop flights from [MASK] on [MASK]",
                                spans, words, asker.catalog)
    assert reasons and "nonstop" in reasons[0] and "stops" in reasons[0]
    assert reason_code(reasons[0]) == "missing modifier"
    kept = parse_sql("SELECT f.flight_id FROM pub.flight AS f WHERE f.from_city = 'DENVER' AND f.stops = 0")
    assert missing_modifiers(kept, "flights from [MASK]", "nonstop flights from [MASK]", spans, words,
                             asker.catalog) == []
    # the example says it too: nothing added
    assert missing_modifiers(plain, "nonstop flights from [MASK]", "show nonstop flights from [MASK]", spans, words,
                             asker.catalog) == []


# --------------------------------------------------------------------------- 4. a name's initial is part of the value


def test_masking_keeps_a_middle_initial_in_the_name():
    from example_bank.masking import mask_question

    for q, name in [("How many papers has Christopher D. Manning published ?", "Christopher D. Manning"),
                    ("What conferences does Noah A. Smith publish in ?", "Noah A. Smith"),  # "A" is not the article
                    ("papers by J. K. Rowling", "J. K. Rowling")]:
        m = mask_question(q)
        assert [s.text for s in m.spans] == [name], m.spans
    # a sentence's end is still an end
    m = mask_question("Show me Boston. A flight please")
    assert [s.text for s in m.spans] == ["Boston"]


def test_value_with_an_initial_is_adapted_whole(asker):
    r = asker.ask("How many papers has Noah A. Smith published?")
    assert r.status == "ok" and r.method == "adapt", r.message
    assert "= 'Noah A. Smith'" in r.sql and "IN (" not in r.sql, r.sql


def test_ranking_word_the_question_adds_is_not_dropped(asker):
    words = ModifierWords(asker.store, None, asker.catalog)
    words.ORDERING = True
    assert words.modifiers(["latest", "papers"]) == {"latest": frozenset({"<order>"})}
    spans = [{"start": 10, "end": 19, "text": "Dan Klein", "kind": "value"}]
    plain = parse_sql("SELECT DISTINCT p.title FROM pub.author AS a JOIN pub.writes AS w ON w.authorid = a.authorid "
                      "JOIN pub.paper AS p ON p.paperid = w.paperid WHERE a.authorname = 'Dan Klein'")
    reasons = missing_modifiers(plain, "papers by [MASK]", "latest papers by [MASK]", spans, words, asker.catalog)
    assert reasons and "latest" in reasons[0] and "ranking" in reasons[0]
    ranked = parse_sql("SELECT p.title FROM pub.paper AS p ORDER BY p.year DESC")
    assert missing_modifiers(ranked, "papers by [MASK]", "latest papers by [MASK]", spans, words, asker.catalog) == []
    # schema words name what is asked, not how: never modifiers
    assert missing_modifiers(plain, "papers by [MASK]", "latest papers by [MASK]", spans, words, asker.catalog,
                             schema_word=lambda w: w == "latest") == []
