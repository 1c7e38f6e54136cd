"""Match route refusals of sqlgenie/inference/unmet_words.py (issue 13, helper prec16) on a real PostgreSQL
with the real MiniLM model: another thing counted, a constant the question spells otherwise, the asker
named only by the question, and a time frame against the example's window. Each end-to-end test asks with
the rule on (refused, with its ``reason_code``) and with its switch off (answered), so it fails with the
rule off."""

from __future__ import annotations

import psycopg
import pytest
from bank_fixture import bank_asker, refused_then_answered_without

from sqlgenie.autocorrect.base import parse_sql
from sqlgenie.inference import unmet_words
from sqlgenie.inference.unmet_words import (asker_word, counted_noun, counted_noun_of, frame_against_window,
                                            reason_code, value_spelling)
from sqlgenie.inference.verify import tokens

DEPTS = ["EECS", "MATH", "PHYSICS", "CHEM"]
NAMES = ["Ada Smith", "Bo Jones", "Cy Young", "Di Brown"]
GRADES = ["A", "A-", "B+", "B", "C"]


def create_school(conn: psycopg.Connection) -> None:
    """``school``: courses, their offerings per term (who teaches them), and the asker's record (grades)."""
    conn.execute("CREATE SCHEMA school")
    conn.execute("CREATE TABLE school.course (course_id integer PRIMARY KEY, department text NOT NULL,"
                 " number text NOT NULL, name text NOT NULL, credits integer NOT NULL)")
    conn.execute("CREATE TABLE school.term (term_id integer PRIMARY KEY, season text NOT NULL, year integer NOT NULL)")
    conn.execute("CREATE TABLE school.offering (offering_id integer PRIMARY KEY,"
                 " course_id integer NOT NULL REFERENCES school.course, term_id integer NOT NULL REFERENCES school.term,"
                 " instructor text NOT NULL)")
    conn.execute("CREATE TABLE school.student_record (student_id integer NOT NULL,"
                 " course_id integer NOT NULL REFERENCES school.course, grade text NOT NULL,"
                 " PRIMARY KEY (student_id, course_id))")
    with conn.cursor() as cur:
        cur.executemany("INSERT INTO school.course VALUES (%s, %s, %s, %s, %s)",
                        [(i, DEPTS[i % 4], str(100 + 37 * i), f"course {i}", 1 + i % 4) for i in range(1, 41)])
        cur.executemany("INSERT INTO school.term VALUES (%s, %s, %s)",
                        [(k, ("WN", "FA")[k % 2], 2012 + k // 2) for k in range(1, 11)])
        cur.executemany("INSERT INTO school.offering VALUES (%s, %s, %s, %s)",
                        [(i, 1 + i % 40, 1 + i % 10, NAMES[i % 4]) for i in range(1, 121)])
        cur.executemany("INSERT INTO school.student_record VALUES (%s, %s, %s)",
                        [(1 + i % 3, i, GRADES[i % 5]) for i in range(1, 41)])
    for t in ("course", "term", "offering", "student_record"):
        conn.execute(f"ANALYZE school.{t}")


_TIMES_OFFERED = ("SELECT COUNT(DISTINCT o.offering_id) FROM school.course AS c, school.offering AS o "
                  "WHERE c.course_id = o.course_id AND c.department = '{0}' AND c.number = '{1}'")
_WITH_GRADE = ("SELECT DISTINCT c.department, c.name, c.number FROM school.course AS c, school.student_record AS s "
               "WHERE c.course_id = s.course_id AND s.student_id = 1 AND s.grade = '{0}'")
_IN_DEPT = "SELECT DISTINCT c.name, c.number FROM school.course AS c WHERE c.department = '{0}'"
_MY_RECORD = ("SELECT DISTINCT c.name, s.grade FROM school.course AS c, school.student_record AS s "
              "WHERE c.course_id = s.course_id AND s.student_id = 1 AND c.department = '{0}'")
_TAUGHT_BEFORE = ("SELECT DISTINCT c.department, c.name, c.number FROM school.course AS c, school.offering AS o "
                  "WHERE c.course_id = o.course_id AND o.instructor LIKE '%{0}%' AND o.term_id < "
                  "(SELECT t.term_id FROM school.term AS t WHERE t.season = 'WN' AND t.year = 2016)")

BANK = [
    # how many times a course was offered (never how many years)
    ("How many times has EECS 137 been offered ?", _TIMES_OFFERED.format("EECS", "137")),
    ("How many times was MATH 211 offered ?", _TIMES_OFFERED.format("MATH", "211")),
    ("PHYSICS 248 has been offered how many times ?", _TIMES_OFFERED.format("PHYSICS", "248")),
    # a grade, as the bank spells it
    ("Which courses did I get a B+ in ?", _WITH_GRADE.format("B+")),
    ("In which courses did I get an A- ?", _WITH_GRADE.format("A-")),
    # the asker: "my" is the asker's record
    ("What are my grades in EECS ?", _MY_RECORD.format("EECS")),
    ("What grades do I have on my record for MATH ?", _MY_RECORD.format("MATH")),
    ("Show my grades in PHYSICS .", _MY_RECORD.format("PHYSICS")),
    ("Which courses in CHEM count for the degree ?", _IN_DEPT.format("CHEM")),
    ("What courses in EECS count for the degree ?", _IN_DEPT.format("EECS")),
    # what someone has taught (before the current term)
    ("Which courses has Ada Smith taught ?", _TAUGHT_BEFORE.format("Ada Smith")),
    ("What courses has Bo Jones taught ?", _TAUGHT_BEFORE.format("Bo Jones")),
]


@pytest.fixture(scope="module")
def asker(module_db_url):
    with bank_asker(module_db_url, "school", create_school, BANK) as a:
        yield a


def _refused_then_answered_without(asker, monkeypatch, question: str, switch: str, code: str) -> str:
    return refused_then_answered_without(asker, monkeypatch, question, code, reason_code, [(unmet_words, switch)])


# --------------------------------------------------------------------------- end to end


def test_paraphrases_still_answer(asker):
    r = asker.ask("How many times has CHEM 285 been offered ?", route="match")
    assert r.status == "ok" and "COUNT(" in r.sql, r.think and r.think.reason
    r = asker.ask("Which courses did I get a B+ in ?", route="match")
    assert r.status == "ok" and "'B+'" in r.sql, r.think and r.think.reason
    r = asker.ask("Which courses in MATH count for the degree ?", route="match")
    assert r.status == "ok", r.think and r.think.reason
    r = asker.ask("Which courses has Cy Young taught ?", route="match")
    assert r.status == "ok", r.think and r.think.reason


def test_years_are_not_times_offered(asker, monkeypatch):
    sql = _refused_then_answered_without(asker, monkeypatch, "How many years has CHEM 285 been offered ?",
                                         "COUNTED_NOUN", "counted_noun")
    assert "offering_id" in sql


def test_a_b_is_not_the_examples_b_plus(asker, monkeypatch):
    sql = _refused_then_answered_without(asker, monkeypatch, "Which courses did I get a B in ?",
                                         "VALUE_SPELLING", "value_spelling")
    assert "'B+'" in sql


def test_my_courses_read_the_askers_record(asker, monkeypatch):
    sql = _refused_then_answered_without(asker, monkeypatch, "Which courses in MATH count for my degree ?",
                                         "ASKER_WORD", "asker_word")
    assert "student_id" not in sql


def test_next_term_is_not_the_past_window(asker, monkeypatch):
    sql = _refused_then_answered_without(asker, monkeypatch, "Which courses has Cy Young taught next term ?",
                                         "FRAME_WINDOW", "frame_window")
    assert "term_id <" in sql


# --------------------------------------------------------------------------- one rule at a time


def test_counted_noun_of_reads_the_noun_after_the_count_phrase():
    assert counted_noun_of(tokens("How many years has [MASK] been available ?")) == "year"
    assert counted_noun_of(tokens("[MASK] credits are awarded for how many classes at the upper level ?")) == "class"
    assert counted_noun_of(tokens("What is the number of sections available for [MASK] ?")) == "section"
    assert counted_noun_of(tokens("how many [MASK] papers did [MASK] have ?")) == "paper"
    assert counted_noun_of(tokens("How many of next semester 's classes will be [MASK] ?")) == "class"
    assert counted_noun_of(tokens("Count the number of dogs of an age below the average .")) == "dog"
    assert counted_noun_of(tokens("How many are there in [MASK] ?")) is None
    assert counted_noun_of(tokens("Which papers cite [MASK] ?")) is None


class _Member:
    def __init__(self, text: str) -> None:
        self.masked = type("M", (), {"text": text})()


class _Group:
    def __init__(self, *texts: str) -> None:
        self.others = [_Member(t) for t in texts]


class _Table:
    def __init__(self, name: str, *columns: str) -> None:
        self.name = name
        self.columns = [type("Col", (), {"name": c})() for c in columns]


def test_counted_noun_needs_a_column_counted_and_no_paraphrase_counting_it():
    catalog = type("C", (), {"tables": [_Table("course", "course_id", "credits"), _Table("term", "term_id", "year"),
                                        _Table("offering", "offering_id", "course_id")]})()
    ex, new = "How many times has [MASK] been offered ?", "How many years has [MASK] been offered ?"
    assert counted_noun(ex, new, catalog=catalog)
    assert not counted_noun(ex, new)  # no catalog: no column known
    assert not counted_noun(ex, new, _Group("How many years was [MASK] offered ?"), catalog=catalog)
    assert not counted_noun(ex, "How many times was [MASK] offered ?", catalog=catalog)
    assert not counted_noun(ex, "Is [MASK] offered ?", catalog=catalog)  # the question does not count
    # rows of a table counted under another name are wording
    assert not counted_noun("How many classes are in [MASK] ?", "How many courses are in [MASK] ?", catalog=catalog)
    assert counted_noun("[MASK] credits are given for how many classes ?", "How many credits do I get for [MASK] ?",
                        catalog=catalog)
    # a table's thing named with one of its columns (Spider: "How many different degree names are offered ?")
    named = type("C", (), {"tables": [_Table("degree", "degree_id", "name")]})()
    word = {"degree", "degrees", "name", "names"}.__contains__
    ex, new = "How many degrees are offered ?", "How many different degree names are offered ?"
    assert counted_noun(ex, new, schema_word=word, catalog=type("C", (), {"tables": [_Table("program", "name")]})())
    assert not counted_noun(ex, new, schema_word=word, catalog=named)


def test_value_spelling_needs_the_same_letters_written_otherwise():
    tree = parse_sql(_WITH_GRADE.format("B+"))
    sql = _WITH_GRADE.format("B+")
    assert value_spelling(tree, sql, "Which courses did I get a B+ in ?", "Where did I get a B ?")
    assert not value_spelling(tree, sql, "Which courses did I get a B+ in ?", "Where did I get a b+ ?")
    assert not value_spelling(tree, sql, "Which courses did I get a B+ in ?", "Where did I get an A ?")  # not said
    plain = _WITH_GRADE.format("B")
    assert not value_spelling(parse_sql(plain), plain, "Which courses did I get a B in ?", "Where did I get a B ?")


class _Words:
    def __init__(self, tied: dict, usual: dict | None = None) -> None:
        self.seen, self.most = tied, usual or {}

    def tied(self, word: str) -> dict:
        return self.seen.get(word, {})

    def usual(self, word: str) -> dict:
        return self.most.get(word, {})


def test_asker_word_needs_a_word_the_bank_ties_and_the_query_leaves_unread():
    tree = parse_sql(_IN_DEPT.format("MATH"))
    words = _Words({"my": {"school.student_record.student_id": ("1",)}})
    ex = "Which courses in [MASK] count for the degree ?"
    assert asker_word(tree, ex, "Which courses in [MASK] count for my degree ?", words)
    assert not asker_word(tree, "Which courses in [MASK] count for my degree ?",
                          "Which of the courses in [MASK] count for my degree ?", words)  # the example says it
    assert not asker_word(tree, ex, "Which courses in [MASK] count for my degree ?", _Words({}))  # not tied
    assert asker_word(tree, ex, "Which courses in [MASK] count for my degree ?",
                      _Words({}, {"my": {"school.student_record.student_id": ("1",)}}))  # in most of its uses
    record = parse_sql(_MY_RECORD.format("MATH"))
    assert not asker_word(record, ex, "Which courses in [MASK] count for my degree ?", words)  # read


def test_frame_against_window_reads_the_windows_direction():
    tree = parse_sql(_TAUGHT_BEFORE.format("Cy Young"))
    ex = "Which courses has [MASK] taught ?"
    assert frame_against_window(tree, ex, "Which courses has [MASK] taught next term ?")
    assert not frame_against_window(tree, ex, "Which courses has [MASK] taught in the past ?")  # same side
    assert not frame_against_window(tree, "Which courses will [MASK] teach next term ?",
                                    "Which courses will [MASK] teach in the next term ?")  # the example names it
    assert not frame_against_window(parse_sql(_IN_DEPT.format("MATH")), ex, "Which courses has [MASK] taught next term ?")


def test_switches_turn_the_rules_off(monkeypatch):
    class _Adapted:
        tree = parse_sql(_TAUGHT_BEFORE.format("Cy Young"))

    args = (_Adapted(), _TAUGHT_BEFORE.format("Ada Smith"), "Which courses has Ada Smith taught ?",
            "Which courses has Cy Young taught next term ?", "Which courses has [MASK] taught ?",
            "Which courses has [MASK] taught next term ?")
    assert [r for _rule, reasons in unmet_words.findings(*args) for r in reasons]
    monkeypatch.setattr(unmet_words, "FRAME_WINDOW", False)
    assert not [r for _rule, reasons in unmet_words.findings(*args) for r in reasons]
