"""Match route refusals of sqlgenie/inference/example_parts.py (issue 13, helper prec14) on a real
PostgreSQL with the real MiniLM model: a ranking only the example asks for, an exclusion moved to
another part, the example's other thing asked for, another noun after the wh-word, and two words that
written together name a column. Each end-to-end test asks with the rule on (refused, with its
``reason_code``) and with its switch off (answered), so it fails with the rule off."""

from __future__ import annotations

import psycopg
import pytest
from bank_fixture import bank_asker, refused_then_answered_without

from sqlgenie.autocorrect.base import parse_sql
from sqlgenie.inference import asked_returns, example_parts
from sqlgenie.inference.answer_words import answer_heads
from sqlgenie.inference.example_parts import (dropped_ranking, joined_words, moved_exclusion, ranks, reason_code,
                                              swapped_head, wh_noun, wh_noun_of)
from sqlgenie.inference.verify import tokens

DEPTS = ["EECS", "MATH", "PHYSICS", "CHEM"]
NAMES = ["Ada Smith", "Bo Jones", "Cy Young", "Di Brown"]


def create_uni(conn: psycopg.Connection) -> None:
    """``uni``: an ADVISING-like schema (courses with a workload, who teaches them, venues of talks)."""
    conn.execute("CREATE SCHEMA uni")
    conn.execute("CREATE TABLE uni.course (course_id integer PRIMARY KEY, department text NOT NULL,"
                 " number text NOT NULL, name text NOT NULL, description text NOT NULL, workload integer NOT NULL,"
                 " has_lab boolean NOT NULL)")
    conn.execute("CREATE TABLE uni.instructor (instructor_id integer PRIMARY KEY, name text NOT NULL)")
    conn.execute("CREATE TABLE uni.teaches (course_id integer NOT NULL REFERENCES uni.course,"
                 " instructor_id integer NOT NULL REFERENCES uni.instructor, PRIMARY KEY (course_id, instructor_id))")
    with conn.cursor() as cur:
        cur.executemany("INSERT INTO uni.course VALUES (%s, %s, %s, %s, %s, %s, %s)",
                        [(i, DEPTS[i % 4], str(100 + 37 * i), f"course {i}", f"about {i}", 1 + i % 5, i % 3 == 0)
                         for i in range(1, 41)])
        cur.executemany("INSERT INTO uni.instructor VALUES (%s, %s)", list(enumerate(NAMES, 1)))
        cur.executemany("INSERT INTO uni.teaches VALUES (%s, %s)", [(i, 1 + i % 4) for i in range(1, 41)])
    for t in ("course", "instructor", "teaches"):
        conn.execute(f"ANALYZE uni.{t}")


_EASIEST_IN = ("SELECT DISTINCT c.department, c.name, c.number, c.workload FROM uni.course AS c "
               "WHERE c.department = '{0}' AND c.workload = (SELECT MIN(c1.workload) FROM uni.course AS c1 "
               "WHERE c1.department = '{0}')")
_TAUGHT_BY_OTHERS = ("SELECT DISTINCT i.name FROM uni.course AS c, uni.teaches AS t, uni.instructor AS i "
                     "WHERE c.course_id = t.course_id AND t.instructor_id = i.instructor_id AND c.department = 'EECS' "
                     "AND c.number = '{0}' AND i.name NOT LIKE '%{1}%'")
_ABOUT = ("SELECT DISTINCT c.description, c.name FROM uni.course AS c "
          "WHERE c.department = '{0}' AND c.number = '{1}'")
_WORKLOAD = ("SELECT DISTINCT c.workload FROM uni.course AS c WHERE c.department = '{0}' AND c.number = '{1}'")
_NOT_TEACHING_LABS = ("SELECT DISTINCT i.name FROM uni.instructor AS i WHERE NOT i.instructor_id IN "
                      "(SELECT t.instructor_id FROM uni.course AS c, uni.teaches AS t WHERE c.course_id = t.course_id "
                      "AND c.has_lab = TRUE)")
_TEACHING_LABS = ("SELECT DISTINCT i.name FROM uni.course AS c, uni.teaches AS t, uni.instructor AS i "
                  "WHERE c.course_id = t.course_id AND t.instructor_id = i.instructor_id AND c.has_lab = TRUE")
_INSTRUCTORS_OF = ("SELECT DISTINCT i.name, c.department FROM uni.course AS c, uni.teaches AS t, uni.instructor AS i "
                   "WHERE c.course_id = t.course_id AND t.instructor_id = i.instructor_id AND c.department = '{0}'")
_TEACHERS_OF = ("SELECT DISTINCT i.name FROM uni.course AS c, uni.teaches AS t, uni.instructor AS i "
                "WHERE c.course_id = t.course_id AND t.instructor_id = i.instructor_id AND c.department = '{0}' "
                "AND c.number = '{1}'")
_INSTRUCTOR_NAMES = ("SELECT DISTINCT i.name FROM uni.course AS c, uni.teaches AS t, uni.instructor AS i "
                     "WHERE c.course_id = t.course_id AND t.instructor_id = i.instructor_id AND c.department = '{0}'")

BANK = [
    # a word the bank always ranks with ("easily"): a ranking
    ("What course in EECS can I take easily ?", _EASIEST_IN.format("EECS")),
    ("Which course in MATH can be passed easily ?", _EASIEST_IN.format("MATH")),
    ("In PHYSICS , what course do I get through easily ?", _EASIEST_IN.format("PHYSICS")),
    # an exclusion on the instructor
    ("Is 137 taught by anyone besides Prof. Ada Smith ?", _TAUGHT_BY_OTHERS.format("137", "Ada Smith")),
    ("Does anyone other than Prof. Bo Jones teach 174 ?", _TAUGHT_BY_OTHERS.format("174", "Bo Jones")),
    # what a course is about (no question of the workload: "work load" finds no example reading it)
    ("What does EECS 137 entail ?", _ABOUT.format("EECS", "137")),
    ("What is MATH 211 about ?", _ABOUT.format("MATH", "211")),
    # professors who teach no course with a lab ("professors": no schema word, as in ADVISING)
    ("Regarding courses with labs , which professors are not on them ?", _NOT_TEACHING_LABS),
    ("Which professors are never on courses with labs ?", _NOT_TEACHING_LABS),
    ("which professors have courses with labs ?", _TEACHING_LABS),
    ("which professors are on lab courses ?", _TEACHING_LABS),
    ("which professors run courses with labs ?", _TEACHING_LABS),
    # "what tutors" returned with their departments; the bank's "what lecturers" return names only
    ("what tutors are there in EECS ?", _INSTRUCTORS_OF.format("EECS")),
    ("what tutors does MATH have ?", _INSTRUCTORS_OF.format("MATH")),
    ("what lecturers does MATH 211 have ?", _TEACHERS_OF.format("MATH", "211")),
    ("which lecturers are in PHYSICS 248 ?", _TEACHERS_OF.format("PHYSICS", "248")),
    ("what lecturers are there for CHEM 285 ?", _TEACHERS_OF.format("CHEM", "285")),
]


@pytest.fixture(scope="module")
def asker(module_db_url):
    with bank_asker(module_db_url, "uni", create_uni, BANK) as a:
        yield a


def _refused_then_answered_without(asker, monkeypatch, question: str, switch: str, code: str) -> str:
    return refused_then_answered_without(asker, monkeypatch, question, code, reason_code, [(example_parts, switch)],
                                         counted=False)


# --------------------------------------------------------------------------- end to end


def test_paraphrases_still_answer(asker):
    r = asker.ask("What course in CHEM can I take easily ?", route="match")
    assert r.status == "ok" and "MIN(" in r.sql, r.think and r.think.reason
    r = asker.ask("What does MATH 211 entail ?", route="match")
    assert r.status == "ok" and "description" in r.sql, r.think and r.think.reason


def test_no_ranking_asked_is_not_the_easiest(asker, monkeypatch):
    sql = _refused_then_answered_without(asker, monkeypatch, "What course in CHEM can I take ?",
                                         "DROPPED_RANKING", "dropped_ranking")
    assert "MIN(" in sql


def test_an_exclusion_on_the_course_is_not_one_on_the_instructor(asker, monkeypatch):
    sql = _refused_then_answered_without(asker, monkeypatch, "Is Prof. Cy Young teaching other courses besides 211 ?",
                                         "MOVED_EXCLUSION", "moved_exclusion")
    assert "NOT LIKE '%Cy Young%'" in sql


def test_work_load_is_the_workload(asker, monkeypatch):
    sql = _refused_then_answered_without(asker, monkeypatch, "In EECS 285 how is work load ?", "JOINED_WORDS",
                                         "joined_words")
    assert "workload" not in sql


def test_lecturers_are_not_tutors_with_departments(asker, monkeypatch):
    sql = _refused_then_answered_without(asker, monkeypatch, "what lecturers are there in PHYSICS ?", "WH_NOUN",
                                         "wh_noun")
    assert "department" in sql.split("FROM")[0]


def test_courses_without_labs_are_not_the_instructors_of_the_example(asker, monkeypatch):
    sql = refused_then_answered_without(asker, monkeypatch, "Which courses have no labs ?", "swapped_head",
                                        reason_code, [(example_parts, "SWAPPED_HEAD"),
                                                      (example_parts, "MOVED_EXCLUSION"),
                                                      (asked_returns, "ASKED_TABLE")], counted=False)  # atis17's too
    assert "i.name" in sql.split("FROM")[0]


# --------------------------------------------------------------------------- one rule at a time


def test_ranks_reads_order_with_limit_and_min_max_subqueries():
    assert ranks(parse_sql(_EASIEST_IN.format("EECS")))
    assert ranks(parse_sql("SELECT p.id FROM t AS p ORDER BY p.year DESC LIMIT 1"))
    assert not ranks(parse_sql("SELECT p.id FROM t AS p ORDER BY p.year DESC"))
    assert not ranks(parse_sql(_ABOUT.format("EECS", "137")))


def test_dropped_ranking_needs_the_ranking_word_dropped():
    tree = parse_sql(_EASIEST_IN.format("EECS"))
    assert dropped_ranking(tree, "What is the easiest course in [MASK] ?", "What course in [MASK] is there ?")
    assert not dropped_ranking(tree, "What is the easiest course in [MASK] ?", "What is the least work course in [MASK] ?")
    assert not dropped_ranking(parse_sql(_ABOUT.format("EECS", "137")), "What is the easiest course in [MASK] ?",
                               "What course in [MASK] is there ?")  # the query does not rank


def test_moved_exclusion_reads_the_value_excluded():
    spans = [{"start": 0, "end": 8, "text": "Cy Young", "kind": "text"},
             {"start": 0, "end": 3, "text": "211", "kind": "number"}]
    tree = parse_sql(_TAUGHT_BY_OTHERS.format("211", "Cy Young"))
    ex = "Is [MASK] taught by anyone besides Prof. [MASK] ?"
    assert moved_exclusion(tree, ex, "Is Prof. [MASK] teaching other courses besides [MASK] ?", spans)
    assert not moved_exclusion(tree, ex, "Is [MASK] taught by anyone except Prof. [MASK] ?", spans[::-1])
    # words negated in each question are not compared (Spider paraphrases: "do not own any dogs" / "do not have
    # any dogs" asks the same)
    labs = parse_sql(_NOT_TEACHING_LABS)
    assert not moved_exclusion(labs, "Regarding courses with labs , which professors do not teach them ?",
                               "Which courses do n't have any labs ?")


def test_swapped_head_needs_the_examples_other_thing_asked(asker):
    labs = parse_sql(_NOT_TEACHING_LABS)
    ex = "Regarding courses with labs , which professors do not teach them ?"
    word = asker._schema_word
    heads = answer_heads(asker.retriever, asker.catalog, word)
    assert swapped_head(labs, ex, "Which courses have no labs ?", asker.catalog, word, heads)
    assert not swapped_head(labs, ex, "Which professors do not teach courses with labs ?", asker.catalog, word, heads)
    assert not swapped_head(labs, ex, "Which courses have no labs ?", asker.catalog, word)  # no reading of professors
    # the query returns the asked thing: no swap
    courses = parse_sql("SELECT DISTINCT c.name FROM uni.course AS c WHERE c.has_lab = FALSE")
    assert not swapped_head(courses, ex, "Which courses have no labs ?", asker.catalog, word, heads)


class _Nouns:
    def __init__(self, seen: dict) -> None:
        self.seen = seen

    def returned(self, noun: str):
        return self.seen.get(noun, (0, frozenset()))


class _Who:
    def entities(self) -> frozenset[str]:
        return frozenset({"instructor"})


def test_wh_noun_of_reads_the_noun_after_the_wh_word():
    assert wh_noun_of(tokens("in what conferences does [MASK] publish ?")) == "conference"
    assert wh_noun_of(tokens("At which venue does [MASK] publish ?")) == "venue"
    assert wh_noun_of(tokens("what kind of papers does [MASK] write ?")) == "paper"
    assert wh_noun_of(tokens("which upper level courses have labs ?"), lambda w: w in ("course", "courses")) == "course"
    assert wh_noun_of(tokens("what is [MASK] about ?")) is None
    assert wh_noun_of(tokens("papers by [MASK]")) is None


def test_wh_noun_refuses_a_column_no_question_asking_the_noun_returns(asker):
    both = parse_sql(_INSTRUCTORS_OF.format("EECS"))
    ex = "what tutors are there in [MASK] ?"
    nouns = _Nouns({"lecturer": (3, frozenset({"name"}))})
    assert wh_noun(both, ex, "what lecturers are there in [MASK] ?", nouns, None, asker.catalog)
    assert not wh_noun(parse_sql(_INSTRUCTOR_NAMES.format("EECS")), ex, "what lecturers are there in [MASK] ?", nouns,
                       None, asker.catalog)
    assert not wh_noun(both, ex, "what lecturers are there in [MASK] ?", _Nouns({"lecturer": (2, frozenset({"name"}))}),
                       None, asker.catalog)  # too few questions asking it
    # a person asked, which the bank answers "who" with instructors: a course is no person
    easiest = parse_sql(_EASIEST_IN.format("EECS"))
    assert wh_noun(easiest, "Of the courses in [MASK] , which is easiest ?",
                   "Which person teaches the easiest course in [MASK] ?", None, _Who(), asker.catalog)


def test_the_bank_tells_what_questions_asking_a_noun_return(asker):
    r = asker.retriever
    model = example_parts.WhNouns(r.store, getattr(r, "allowed", None), asker.catalog, asker._schema_word, None)
    uses, columns = model.returned("lecturer")
    assert uses == 3 and columns == frozenset({"name"})
    assert model.returned("tutor") == (2, frozenset({"name", "department"}))


def test_joined_words_name_a_column_the_query_never_reads(asker):
    about = parse_sql(_ABOUT.format("EECS", "285"))
    word = asker._schema_word
    assert joined_words(about, "What does [MASK] [MASK] entail ?", "In [MASK] [MASK] how is work load ?", word)
    assert not joined_words(parse_sql(_WORKLOAD.format("EECS", "285")), "What is the workload of [MASK] [MASK] ?",
                            "In [MASK] [MASK] how is work load ?", word)
    assert not joined_words(about, "What does [MASK] [MASK] entail ?", "In [MASK] [MASK] how is the course ?", word)
    # part of a name the query reads ("work load" in a query reading workload_hours)
    hours = parse_sql("SELECT DISTINCT c.workload_hours FROM uni.course AS c WHERE c.department = 'EECS'")
    assert not joined_words(hours, "What does [MASK] [MASK] entail ?", "In [MASK] [MASK] how is work load ?", word)


def test_each_refusal_is_counted_as_its_own_code_by_eval_bank(asker):
    """``eval bank`` buckets a reason by the first phrase of every module it finds (head_reading's before
    this module's): each rule's sentence must reach its own code."""
    from sqlgenie.inference.eval_bank import _reason_bucket

    word = asker._schema_word
    labs = parse_sql(_NOT_TEACHING_LABS)
    spans = [{"start": 0, "end": 8, "text": "Cy Young", "kind": "text"},
             {"start": 0, "end": 3, "text": "211", "kind": "number"}]
    found = {
        "dropped_ranking": dropped_ranking(parse_sql(_EASIEST_IN.format("EECS")), "What is the easiest course in [MASK] ?",
                                           "What course in [MASK] is there ?"),
        "moved_exclusion": moved_exclusion(parse_sql(_TAUGHT_BY_OTHERS.format("211", "Cy Young")),
                                           "Is [MASK] taught by anyone besides Prof. [MASK] ?",
                                           "Is Prof. [MASK] teaching other courses besides [MASK] ?", spans),
        "swapped_head": swapped_head(labs, "Regarding courses with labs , which professors are not on them ?",
                                     "Which courses have no labs ?", asker.catalog, word,
                                     answer_heads(asker.retriever, asker.catalog, word)),
        "wh_noun": wh_noun(parse_sql(_INSTRUCTORS_OF.format("EECS")), "what tutors are there in [MASK] ?",
                           "what lecturers are there in [MASK] ?", _Nouns({"lecturer": (3, frozenset({"name"}))}),
                           None, asker.catalog),
        "joined_words": joined_words(parse_sql(_ABOUT.format("EECS", "285")), "What does [MASK] [MASK] entail ?",
                                     "In [MASK] [MASK] how is work load ?", word),
    }
    person = wh_noun(parse_sql(_EASIEST_IN.format("EECS")), "Of the courses in [MASK] , which is easiest ?",
                     "Which person teaches the easiest course in [MASK] ?", None, _Who(), asker.catalog)
    for code, reasons in [*found.items(), ("wh_noun", person)]:
        assert reasons, code
        assert reason_code(reasons[0]) == code and _reason_bucket(reasons[0]) == code, (code, reasons[0])
