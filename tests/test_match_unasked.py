"""Match route refusals of sqlgenie/inference/unasked_parts.py (issue 13, helper matchu) on a real
PostgreSQL with the real MiniLM model: what the example's words ask and the question does not,
when the adapted SQL still does it (a negation, a grouping), and questions that ask about
different wh-places (where against when)."""

from __future__ import annotations

import pytest
from bank_fixture import LIB_TOPICS, bank_asker, lib_schema, refused_then_answered_without

from sqlgenie.autocorrect.base import parse_sql
from sqlgenie.inference import unasked_parts
from sqlgenie.inference.eval_bank import _reason_bucket
from sqlgenie.inference.unasked_parts import dropped_grouping, dropped_negation, other_place, reason_code
from sqlgenie.inference.verify import question_roles, tokens

AUTHORS = ["Dan Klein", "Ray Mooney", "Mirella Lapata", "Percy Liang"]
VENUES = ["ACL", "EMNLP", "NAACL"]

_FROM = ("FROM lib.author AS a, lib.writes AS w, lib.paper AS p, lib.venue AS v "
         "WHERE w.authorid = a.authorid AND p.paperid = w.paperid AND v.venueid = p.venueid")


def _per_year(a: str) -> str:
    return (f"SELECT DISTINCT COUNT(p.paperid), p.year {_FROM} AND a.authorname = '{a}' GROUP BY p.year")


def _outside(a: str, v: str) -> str:
    return f"SELECT DISTINCT COUNT(DISTINCT p.paperid) {_FROM} AND a.authorname = '{a}' AND v.venuename <> '{v}'"


def _years(a: str) -> str:
    return f"SELECT DISTINCT p.year {_FROM} AND a.authorname = '{a}' ORDER BY p.year"


BANK = [
    ("how many papers did Dan Klein publish each year ?", _per_year("Dan Klein")),
    ("number of papers Ray Mooney published per year", _per_year("Ray Mooney")),
    ("how many papers does Mirella Lapata publish besides ACL ?", _outside("Mirella Lapata", "ACL")),  # "outside" / "not": adapt's NOT cue refuses first
    ("how many papers did Dan Klein publish not in NAACL ?", _outside("Dan Klein", "NAACL")),
    ("When did Ray Mooney publish ?", _years("Ray Mooney")),
    ("in which years did Mirella Lapata publish ?", _years("Mirella Lapata")),
]


_create_schema = lib_schema(AUTHORS, VENUES, LIB_TOPICS)


@pytest.fixture(scope="module")
def asker(module_db_url):
    with bank_asker(module_db_url, "lib", _create_schema, BANK) as a:
        yield a


def _roles(text: str, classes=("text",)):
    return question_roles(text, list(classes))


# --------------------------------------------------------------------------- end to end


def _refused_then_answered_without(asker, monkeypatch, question: str, switch: str, code: str) -> str:
    return refused_then_answered_without(asker, monkeypatch, question, code, reason_code, [(unasked_parts, switch)],
                                         counted=False)


def test_dropped_grouping_is_refused(asker, monkeypatch):
    r = asker.ask("how many papers did Percy Liang publish each year ?", route="match")
    assert r.status == "ok" and "GROUP BY" in r.sql, r.think and r.think.reason
    sql = _refused_then_answered_without(asker, monkeypatch, "how many papers has Percy Liang published ?",
                                         "GROUPING", "dropped grouping")
    assert "GROUP BY" in sql


def test_dropped_negation_is_refused(asker, monkeypatch):
    r = asker.ask("how many papers does Percy Liang publish outside of EMNLP ?", route="match")
    assert r.status == "ok" and "<>" in r.sql, r.think and r.think.reason
    sql = _refused_then_answered_without(asker, monkeypatch, "how many papers does Percy Liang publish in EMNLP ?",
                                         "NEGATION", "dropped negation")
    assert "<>" in sql


def test_where_is_not_when(asker, monkeypatch):
    r = asker.ask("When did Percy Liang publish ?", route="match")
    assert r.status == "ok" and "year" in r.sql, r.think and r.think.reason
    _refused_then_answered_without(asker, monkeypatch, "Where does Percy Liang publish ?", "PLACE", "answer kind")


# --------------------------------------------------------------------------- one rule at a time


def test_negation_words():
    neq = parse_sql("SELECT COUNT(*) FROM lib.venue AS v WHERE v.venuename <> 'ACL'")
    not_in = parse_sql("SELECT COUNT(*) FROM lib.venue AS v WHERE NOT v.venuename IN ('ACL')")
    eq = parse_sql("SELECT COUNT(*) FROM lib.venue AS v WHERE v.venuename = 'ACL'")
    ex = tokens("how many papers does # publish outside of # area ?")
    reasons = dropped_negation(neq, ex, tokens("how many papers does # have in # ?"))
    assert reasons and reason_code(reasons[0]) == "dropped negation"
    assert dropped_negation(not_in, ex, tokens("how many papers does # have in # ?"))
    assert dropped_negation(neq, ex, tokens("how many papers does # have except in # ?")) == []
    assert dropped_negation(neq, tokens("which courses don't have #"), tokens("which courses have no #")) == []
    assert dropped_negation(eq, ex, tokens("how many papers does # have in # ?")) == []  # nothing excluded
    assert dropped_negation(neq, tokens("papers by # in #"), tokens("papers by # at #")) == []


def test_grouping_words():
    grouped = parse_sql("SELECT COUNT(p.paperid), p.year FROM lib.paper AS p GROUP BY p.year")
    plain = parse_sql("SELECT COUNT(p.paperid) FROM lib.paper AS p")
    ex = _roles("how many papers [MASK] published each year ?")
    reasons = dropped_grouping(grouped, ex, _roles("How many papers has [MASK] published ?"))
    assert reasons and reason_code(reasons[0]) == "dropped grouping"
    assert dropped_grouping(plain, ex, _roles("How many papers has [MASK] published ?")) == []
    assert dropped_grouping(grouped, ex, _roles("number of papers [MASK] published per year")) == []
    assert dropped_grouping(grouped, ex, _roles("How many papers has [MASK] published by year ?")) == []
    assert dropped_grouping(grouped, ex, _roles("[MASK] papers in a year")) == []  # names the year


def test_places():
    reasons = other_place(_roles("When did [MASK] publish ?"), _roles("Where does [MASK] publish ?"))
    assert reasons and reason_code(reasons[0]) == "answer kind"
    assert other_place(_roles("When did [MASK] publish ?"), _roles("In which years did [MASK] publish ?")) == []
    assert other_place(_roles("who teaches [MASK] ?"), _roles("who is teaching [MASK] ?")) == []


def test_eval_bank_counts_each_refusal_by_its_code():
    grouped = parse_sql("SELECT COUNT(p.paperid), p.year FROM lib.paper AS p GROUP BY p.year")
    neq = parse_sql("SELECT COUNT(*) FROM lib.venue AS v WHERE v.venuename <> 'ACL'")
    for reasons, code in (
        (dropped_grouping(grouped, _roles("how many papers [MASK] published each year ?"),
                          _roles("How many papers has [MASK] published ?")), "dropped grouping"),
        (dropped_negation(neq, tokens("papers of # outside #"), tokens("papers of # in #")), "dropped negation"),
        (other_place(_roles("When did [MASK] publish ?"), _roles("Where does [MASK] publish ?")), "answer kind"),
    ):
        assert reasons and _reason_bucket(reasons[0]) == code


def test_link_table_of_a_dropped_filter_goes_too(monkeypatch):
    """"2014 papers" from "semantic parsing 2016 papers": the keyphrase filter goes, and with it
    ``keyphrase`` and the link table ``paperkeyphrase`` that joined it to ``paper``."""
    from sqlgenie.inference import orphan_joins

    sql = ("SELECT DISTINCT p.paperid FROM lib.keyphrase AS k, lib.paper AS p, lib.paperkeyphrase AS pk "
           "WHERE pk.keyphraseid = k.keyphraseid AND p.paperid = pk.paperid AND p.year = 2016")
    tree = parse_sql(sql)
    assert orphan_joins.drop(tree, ["k"]) == ["k", "pk"]
    assert "paperkeyphrase" not in tree.sql() and "p.year = 2016" in tree.sql()
    monkeypatch.setattr(orphan_joins, "CHAINS", False)
    tree = parse_sql(sql)
    assert orphan_joins.drop(tree, ["k"]) == ["k"] and "paperkeyphrase" in tree.sql()
    # a table the query still reads stays
    tree = parse_sql("SELECT DISTINCT pk.keyphraseid FROM lib.keyphrase AS k, lib.paperkeyphrase AS pk "
                     "WHERE pk.keyphraseid = k.keyphraseid")
    monkeypatch.setattr(orphan_joins, "CHAINS", True)
    assert orphan_joins.drop(tree, ["k"]) == ["k"]


def test_a_conjunction_when_is_no_other_place():
    assert other_place(_roles("When [MASK] took [MASK] , who taught it ?"),
                       _roles("Who taught [MASK] when [MASK] took it ?")) == []
    assert other_place(_roles("[MASK] is ordinarily taught by who ?"), _roles("[MASK] is taught when in the week ?"))


def test_universals_count_only_for_a_yes_no_query():
    yes_no = parse_sql("SELECT COUNT(*) > 0 FROM lib.venue AS v WHERE v.venuename <> 'ACL'")
    listed = parse_sql("SELECT v.venueid FROM lib.venue AS v WHERE NOT v.venuename IS NULL AND v.venuename <> 'x'")
    reasons = dropped_negation(yes_no, tokens("is # only offered in the #"), tokens("has # been offered in the #"))
    assert reasons and reason_code(reasons[0]) == "dropped negation"
    assert dropped_negation(yes_no, tokens("is # only offered in the #"), tokens("is # offered only in #")) == []
    assert dropped_negation(listed, tokens("list all fares from # to #"), tokens("show fares from # to #")) == []
    is_not_null = parse_sql("SELECT f.fare_id FROM fare AS f WHERE NOT f.round_trip_cost IS NULL")
    assert dropped_negation(is_not_null, tokens("fares not from #"), tokens("fares from #")) == []


def test_column_named_by_its_words(asker):
    """"the cheapest *round trip* fare" reads ``round_trip_cost``, chosen against its sibling
    ``one_direction_cost``; "the cheapest fare" must not be answered with it."""
    from sqlgenie.inference.unasked_parts import dropped_column_words

    class Col:
        def __init__(self, name):
            self.name = name

    class Table:
        columns = [Col("fare_id"), Col("round_trip_cost"), Col("one_direction_cost"), Col("fare_basis_code")]

    class Catalog:
        def table(self, name, schema=None):
            return Table() if name == "fare" else None

    tree = parse_sql("SELECT f.fare_id FROM atis.fare AS f WHERE f.round_trip_cost = "
                     "(SELECT MIN(g.round_trip_cost) FROM atis.fare AS g)")
    ex = tokens("what 's the cheapest round trip fare between # and #")
    reasons = dropped_column_words(tree, ex, tokens("what 's the cheapest fare from # to #"), Catalog())
    assert reasons and reason_code(reasons[0]) == "dropped column words"
    assert dropped_column_words(tree, ex, tokens("cheapest round trip fare from # to #"), Catalog()) == []
    assert dropped_column_words(tree, ex, tokens("cheapest fare from # to # for a trip back"), Catalog()) == []
    # no sibling to choose against: the words only name the column
    tree = parse_sql("SELECT f.fare_id FROM atis.fare AS f WHERE f.fare_basis_code = 'F'")
    assert dropped_column_words(tree, tokens("fares with fare basis code #"), tokens("fares with code #"),
                                Catalog()) == []


def test_values_side_by_side_move():
    from sqlgenie.inference.adapt import Span
    from sqlgenie.inference.unasked_parts import moved_neighbours

    def spans(*texts, cls="text"):
        return [Span(0, len(t), t, "number" if cls == "number" else "value") for t in texts]

    ex_m, ex_s = "list flights from [MASK] [MASK] to [MASK]", spans("ONTARIO", "CALIFORNIA", "ORLANDO")
    new_m, new_s = "list all flights from [MASK] to [MASK] [MASK]", spans("WASHINGTON", "TAMPA", "FLORIDA")
    pairs = [("ONTARIO", "WASHINGTON"), ("CALIFORNIA", "FLORIDA"), ("ORLANDO", "TAMPA")]
    reasons = moved_neighbours(ex_m, ex_s, new_m, new_s, pairs)
    assert reasons and reason_code(reasons[0]) == "value direction"
    # the state kept beside its city
    same = moved_neighbours(ex_m, ex_s, "flights from [MASK] [MASK] to [MASK]", spans("TAMPA", "FLORIDA", "BOSTON"),
                            [("ONTARIO", "TAMPA"), ("CALIFORNIA", "FLORIDA"), ("ORLANDO", "BOSTON")])
    assert same == []
    # numbers side by side are a date or two roles, not a tie
    assert moved_neighbours("flights from [MASK] to [MASK] on [MASK] [MASK]", spans("A", "B") + spans("4", "8", cls="number"),
                            "flights from [MASK] [MASK] to [MASK] on [MASK]", spans("C", "D", "E") + spans("9", cls="number"),
                            [("A", "C"), ("B", "E"), ("4", "9")]) == []



def test_the_example_thing_returned_next_to_the_asked_one(asker):
    from sqlgenie.inference.unasked_parts import extra_answer_entity

    both = parse_sql("SELECT DISTINCT p.paperid, v.venueid FROM lib.author AS a, lib.writes AS w, lib.paper AS p, "
                     "lib.venue AS v WHERE a.authorname = 'x' AND w.authorid = a.authorid AND p.paperid = w.paperid "
                     "AND v.venueid = p.venueid")
    ex_m, new_m = "in what venues does [MASK] publish ?", "in what papers does [MASK] publish ?"
    reasons = extra_answer_entity(both, ex_m, new_m, _roles(ex_m), _roles(new_m), asker.catalog)
    assert reasons and reason_code(reasons[0]) == "answer entity"
    # the question names the venues too, or the query returns only the asked thing
    also = "what papers in which venues does [MASK] publish ?"
    assert extra_answer_entity(both, ex_m, also, _roles(ex_m), _roles(also), asker.catalog) == []
    papers = parse_sql("SELECT DISTINCT p.paperid FROM lib.paper AS p")
    assert extra_answer_entity(papers, ex_m, new_m, _roles(ex_m), _roles(new_m), asker.catalog) == []


def test_a_thing_is_not_how_far(asker):
    from sqlgenie.inference.unasked_parts import dropped_measure

    years = parse_sql("SELECT DISTINCT p.year FROM lib.paper AS p")
    ex = tokens("how long ago did [MASK] publish ?")
    reasons = dropped_measure(years, ex, _roles("show me the papers of [MASK]"), asker.catalog)
    assert reasons and reason_code(reasons[0]) == "answer kind"
    assert dropped_measure(years, ex, _roles("how long ago did [MASK] publish ?"), asker.catalog) == []
    assert dropped_measure(years, ex, _roles("in what year did [MASK] publish"), asker.catalog) == []  # names year
    titles = parse_sql("SELECT DISTINCT p.title FROM lib.paper AS p")
    assert dropped_measure(titles, ex, _roles("show me the papers of [MASK]"), asker.catalog) == []  # no measure
    assert dropped_measure(years, tokens("how many papers did [MASK] publish"), _roles("papers of [MASK]"),
                           asker.catalog) == []
