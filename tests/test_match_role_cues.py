"""Match route refusal of sqlgenie/inference/role_cues.py (issue 13, helper novel18) on a real PostgreSQL with
the real MiniLM model: a value put in the other role of a relation between two rows of one kind (a course and
its prerequisite), against the role the question's own words give it, as the verified bank reads those words.
The end-to-end test asks with the rule on (refused, with its ``reason_code``) and with its switch off
(answered), so it fails with the rule off."""

from __future__ import annotations

import psycopg
import pytest
from bank_fixture import bank_asker

from sqlgenie.autocorrect.base import parse_sql
from sqlgenie.inference import role_cues
from sqlgenie.inference.role_cues import RoleCues, cue_words, reason_code, role_cue, two_role_columns, value_role

DEPTS = ["EECS", "MATH", "PHYSICS", "CHEM", "BIO", "ARTS"]


def create_catalog(conn: psycopg.Connection) -> None:
    """``cat``: courses and which course is a prerequisite of which."""
    conn.execute("CREATE SCHEMA cat")
    conn.execute("CREATE TABLE cat.course (course_id integer PRIMARY KEY, department text NOT NULL,"
                 " number text NOT NULL, name text NOT NULL)")
    conn.execute("CREATE TABLE cat.course_prerequisite (pre_course_id integer NOT NULL REFERENCES cat.course,"
                 " course_id integer NOT NULL REFERENCES cat.course, PRIMARY KEY (pre_course_id, course_id))")
    with conn.cursor() as cur:
        cur.executemany("INSERT INTO cat.course VALUES (%s, %s, %s, %s)",
                        [(i, DEPTS[i % 6], str(100 + 37 * i), f"course {i}") for i in range(1, 61)])
        cur.executemany("INSERT INTO cat.course_prerequisite VALUES (%s, %s)",
                        [(i, 1 + (i * 7) % 60) for i in range(1, 61) if 1 + (i * 7) % 60 != i])
    for t in ("course", "course_prerequisite"):
        conn.execute(f"ANALYZE cat.{t}")


#: the prerequisites of a course (the value is the course: ``course_prerequisite.course_id``)
_PREREQS_OF = ("SELECT DISTINCT a.department, a.name, a.number FROM cat.course AS a, cat.course AS b, "
               "cat.course_prerequisite AS p WHERE a.course_id = p.pre_course_id AND b.course_id = p.course_id "
               "AND b.department = '{0}' AND b.number = '{1}'")
#: the courses a course is a prerequisite of (the value is the prerequisite: ``pre_course_id``)
_NEEDING = ("SELECT DISTINCT b.department, b.name, b.number FROM cat.course AS a, cat.course AS b, "
            "cat.course_prerequisite AS p WHERE a.course_id = p.pre_course_id AND a.department = '{0}' "
            "AND a.number = '{1}' AND b.course_id = p.course_id")

BANK = [
    ("What are the prerequisites for EECS 137 ?", _PREREQS_OF.format("EECS", "137")),
    ("Which courses are prerequisites for MATH 211 ?", _PREREQS_OF.format("MATH", "211")),
    ("What courses must I take before PHYSICS 248 ?", _PREREQS_OF.format("PHYSICS", "248")),
    ("What classes are required before CHEM 285 ?", _PREREQS_OF.format("CHEM", "285")),
    ("What is the prerequisite for BIO 322 ?", _PREREQS_OF.format("BIO", "322")),
    ("Which classes do I need for PHYSICS 211 ?", _PREREQS_OF.format("PHYSICS", "211")),
    ("Which courses should I finish before ARTS 359 ?", _PREREQS_OF.format("ARTS", "359")),
    ("What do I need to complete before EECS 396 ?", _PREREQS_OF.format("EECS", "396")),
    ("Which EECS courses require 174 ?", _NEEDING.format("EECS", "174")),
    ("Which MATH courses require 396 ?", _NEEDING.format("MATH", "396")),
    ("What courses require PHYSICS 470 ?", _NEEDING.format("PHYSICS", "470")),
    ("What classes can I take after CHEM 433 ?", _NEEDING.format("CHEM", "433")),
]


@pytest.fixture(scope="module")
def asker(module_db_url):
    with bank_asker(module_db_url, "cat", create_catalog, BANK) as a:
        yield a


def test_two_role_table_is_read_off_the_column_names(asker):
    tables = two_role_columns(asker.catalog)
    assert tables.get("course_prerequisite") == ("course_id", "pre_course_id")
    assert "course" not in tables  # a thing with a column of its own name


def test_a_value_role_is_the_column_its_rows_reach():
    tree = parse_sql(_NEEDING.format("SEAS", "502").replace("AND b.course_id", "AND b.department = 'SEAS' AND "
                                                            "b.number = '698' AND b.course_id"))
    cols = ("course_id", "pre_course_id")
    assert value_role(tree, "course_prerequisite", cols, "SEAS 502") == "pre_course_id"
    assert value_role(tree, "course_prerequisite", cols, "SEAS 698") == "course_id"
    assert value_role(tree, "course_prerequisite", cols, "SEAS 999") is None


def test_cue_words_stop_at_another_value_and_a_comma():
    assert cue_words("Before I take [MASK] , do I need to take [MASK] ?") == [
        frozenset({"b:before", "b:take"}), frozenset({"b:need", "b:to", "b:take"})]
    assert cue_words("Which courses is [MASK] a prerequisite for ?") == [
        frozenset({"b:course", "a:prerequisite", "a:for"})]


def test_bank_reads_for_and_before_as_the_course_role(asker):
    model = RoleCues(asker.store, asker.retriever.allowed, asker.catalog)
    cols = ("course_id", "pre_course_id")
    assert model.marks("course_prerequisite", cols, "b:before") == "course_id"
    assert model.marks("course_prerequisite", cols, "b:require") is None  # three uses: too few
    assert model.marks("course_prerequisite", cols, "b:after") is None  # one use


def test_role_cue_refuses_the_other_role_and_not_the_same(asker, monkeypatch):
    model = RoleCues(asker.store, asker.retriever.allowed, asker.catalog)
    wrong = parse_sql(_NEEDING.format("EECS", "359"))
    right = parse_sql(_PREREQS_OF.format("EECS", "359"))
    from sqlgenie.inference.adapt import Span

    new = [Span(0, 0, "EECS 359", "text", "")]
    ex = [Span(0, 0, "EECS 174", "text", "")]
    asked, example = "What should I take before [MASK] ?", "Which courses require [MASK] ?"
    reasons = role_cue(wrong, example, ex, asked, new, [("EECS 174", "EECS 359")], asker.catalog, model)
    assert reasons and reason_code(reasons[0]) == "role_cue"
    assert "before" in reasons[0]
    assert role_cue(right, example, ex, asked, new, [("EECS 174", "EECS 359")], asker.catalog, model) == []
    # a cue the example says too is no evidence (the same words in another order)
    assert role_cue(wrong, "Before [MASK] , which courses require it ?", ex, asked, new,
                    [("EECS 174", "EECS 359")], asker.catalog, model) == []


def test_the_rule_refuses_through_its_switch(asker, monkeypatch):
    """ADVISING "Name the courses that are mandatory for SI 546 ?" from "Which CHEMBIO courses require 530 ?": the
    bank reads "for" before a course as the course whose prerequisites are asked; the example's query returns
    the courses that need it. Fails with the switch off."""
    from types import SimpleNamespace

    from sqlgenie.inference.adapt import Span

    adapted = SimpleNamespace(tree=parse_sql(_NEEDING.format("MATH", "137")), pairs=[("MATH", "MATH"), ("396", "137")])
    example = ("Which [MASK] courses require [MASK] ?", [Span(6, 12, "MATH", "text", ""), Span(29, 35, "396", "number", "")])
    asked = ("Which [MASK] courses are needed for [MASK] ?", [Span(6, 12, "MATH", "text", ""),
                                                            Span(36, 42, "137", "number", "")])
    model = role_cues.role_cues(asker.retriever, asker.catalog)
    found = [r for _rule, reasons in role_cues.findings(adapted, *example, *asked, catalog=asker.catalog, model=model)
             for r in reasons]
    assert found and reason_code(found[0]) == "role_cue" and "for" in found[0]
    from sqlgenie.inference.eval_bank import _reason_bucket

    assert _reason_bucket(found[0]) == "role_cue"
    monkeypatch.setattr(role_cues, "ROLE_CUE", False)
    assert not [r for _rule, reasons in role_cues.findings(adapted, *example, *asked, catalog=asker.catalog,
                                                          model=model) for r in reasons]


def test_asked_with_the_rule_never_answers_the_other_role(asker):
    r = asker.ask("Which MATH courses are needed for 137 ?", route="match")
    assert r.status == "refused" or "b.number = '137'" in (r.sql or ""), r.sql


def test_a_generic_key_makes_no_two_roles():
    """ATIS: ``code_description.code`` ends both ``ground_service.city_code`` and ``airport_code``; a value's city and
    airport are not two roles of one relation (a right ATIS answer was refused before this)."""
    from types import SimpleNamespace as NS

    def table(name, *cols, key=()):
        return NS(name=name, schema="air", columns=[NS(name=c) for c in cols], primary_key=key)

    catalog = NS(tables=[table("code_description", "code", "description", key=("code",)),
                         table("city", "city_code", "city_name"), table("airport", "airport_code"),
                         table("ground_service", "city_code", "airport_code", "transport_type"),
                         table("flight", "flight_id", "flight_number"),
                         table("dual_carrier", "main_airline", "low_flight_number", "high_flight_number")])
    assert two_role_columns(catalog) == {"dual_carrier": ("high_flight_number", "low_flight_number")}


def test_two_role_tables_are_kept_per_catalog_snapshot():
    """The reading is kept per catalog object: a refreshed catalog (a new object) is read afresh, so a table
    onboarded since is seen; the same catalog is not read again."""
    from types import SimpleNamespace as NS

    from sqlgenie.catalog import Catalog
    from sqlgenie.inference import role_cues

    def table(name, *cols):
        return NS(name=name, schema="air", qualified=f"air.{name}", columns=[NS(name=c) for c in cols],
                  primary_key=())

    flight = table("flight", "flight_id", "flight_number")
    before = Catalog(tables=(flight,))
    assert role_cues.two_role_columns(before) == {}
    after = Catalog(tables=(flight, table("dual_carrier", "main_airline", "low_flight_number", "high_flight_number")))
    assert role_cues.two_role_columns(after) == {"dual_carrier": ("high_flight_number", "low_flight_number")}
    calls = []
    real = role_cues.read_two_role_columns
    role_cues.read_two_role_columns = lambda *a: calls.append(a) or real(*a)
    try:
        assert role_cues.two_role_columns(after) == {"dual_carrier": ("high_flight_number", "low_flight_number")}
    finally:
        role_cues.read_two_role_columns = real
    assert calls == []
