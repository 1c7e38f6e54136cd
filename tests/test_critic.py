"""The deterministic critic on the real embedded PostgreSQL: every check fires on a
real bad query and stays silent on a right one; exact repairs are kept only when
they are exact (no mocks: real tables, real onboarding, the safe executor)."""

from __future__ import annotations

import psycopg
import pytest

from sqlgenie.autocorrect import AutocorrectSettings, PgValueMatcher
from sqlgenie.catalog import load_catalog
from sqlgenie.executor import SafeExecutor
from sqlgenie.inference.critic import CHECK_NAMES, CriticReport, Finding, critique, run_checks

from pg_helpers import onboard_fixture_schema

DDL = [
    "CREATE SCHEMA music",
    "CREATE TABLE music.singer (singer_id int PRIMARY KEY, name text NOT NULL, country text, age int)",
    "CREATE TABLE music.concert (concert_id int PRIMARY KEY, concert_name text NOT NULL, year int)",
    "CREATE TABLE music.singer_in_concert (concert_id int REFERENCES music.concert, "
    "singer_id int REFERENCES music.singer, PRIMARY KEY (concert_id, singer_id))",
    "CREATE TABLE music.airport (code text PRIMARY KEY, city text)",
    "CREATE TABLE music.stage (stage_id int NOT NULL, stage_name text, concert_id int)",  # no declared key
]
SINGERS = [(1, "Joe Sharp", "Netherlands", 52), (2, "Timbaland", "United States", 32),
           (3, "Justin Brown", "France", 29), (4, "Rose White", "France", 41), (5, "John Nizinik", "France", 43),
           (6, "Tribal King", "United States", 25)]
CONCERTS = [(1, "Auditions", 2014), (2, "Super bootcamp", 2014), (3, "Home Visits", 2015), (4, "Week 1", 2014)]
SIC = [(1, 2), (1, 3), (1, 5), (2, 3), (2, 6), (3, 5), (4, 4), (4, 3)]
AIRPORTS = [(" APG", "Aberdeen "), ("ABR", "Aberdeen"), ("CVO", "Corvallis")]


def _fill(conn: psycopg.Connection) -> None:
    with conn.cursor() as cur:
        cur.executemany("INSERT INTO music.singer VALUES (%s, %s, %s, %s)", SINGERS)
        cur.executemany("INSERT INTO music.concert VALUES (%s, %s, %s)", CONCERTS)
        cur.executemany("INSERT INTO music.singer_in_concert VALUES (%s, %s)", SIC)
        cur.executemany("INSERT INTO music.airport VALUES (%s, %s)", AIRPORTS)
        cur.executemany("INSERT INTO music.stage VALUES (%s, %s, %s)",
                        [(i, f"Stage {chr(64 + i)}", 1 + i % 4) for i in range(1, 9)])


@pytest.fixture(scope="module")
def db(module_db_url):
    return onboard_fixture_schema(module_db_url, "music", DDL, _fill)


@pytest.fixture(scope="module")
def env(db):
    store = psycopg.connect(db, autocommit=True)
    catalog = load_catalog(store, schemas=["music"], search_path=("music",))
    executor = SafeExecutor(db, statement_timeout_ms=5000, row_cap=1000)
    matcher = PgValueMatcher(store, AutocorrectSettings())
    yield catalog, executor, matcher
    executor.close()
    store.close()


def _critique(env, sql, question="q", **kw) -> CriticReport:
    catalog, executor, matcher = env
    return critique(sql, question=question, catalog=catalog, executor=executor, matcher=matcher, **kw)


def _checks(report: CriticReport, *, open_only: bool = False) -> set[str]:
    return {f.check for f in (report.open_findings if open_only else report.findings)}


def test_catalog_has_the_keys_the_checks_use(env):
    catalog, _, _ = env
    assert catalog.table("singer").primary_key == ("singer_id",)
    assert set(catalog.table("singer_in_concert").primary_key) == {"concert_id", "singer_id"}
    assert set(CHECK_NAMES) >= {"parses", "binds", "executes", "scalar_subquery", "empty_result_value",
                                "fanout_aggregate", "id_for_name", "superlative_without_limit", "order_direction"}


def test_right_query_has_no_finding(env):
    report = _critique(env, "SELECT name FROM singer WHERE country = 'France' ORDER BY age DESC LIMIT 1",
                       "Which singer from France is the oldest?")
    assert report.findings == [] and report.ok and not report.repaired
    assert report.executed and report.rows == [("John Nizinik",)] and report.columns == ["name"]


def test_parses(env):
    report = _critique(env, "SELEC name FROM singer")
    assert _checks(report) == {"parses"} and not report.ok and not report.executed
    assert "does not parse" in report.findings[0].message


def test_binds_unknown_column_is_repaired_exactly(env):
    report = _critique(env, "SELECT nme FROM singer WHERE age > 40", "names of singers over 40")
    assert {"binds", "executes"} <= _checks(report)
    assert report.repaired and report.ok and report.sql == "SELECT name FROM singer WHERE age > 40"
    assert sorted(report.rows) == [("Joe Sharp",), ("John Nizinik",), ("Rose White",)]
    assert all(f.repaired for f in report.findings)
    binds = next(f for f in report.findings if f.check == "binds")
    assert "nme" in binds.message and "name" in binds.evidence["known"]


def test_binds_unknown_table_without_a_clear_match_stays_an_error(env):
    report = _critique(env, "SELECT title FROM albums")
    assert "binds" in _checks(report, open_only=True) and not report.ok and not report.repaired
    assert "albums" in next(f for f in report.findings if f.check == "binds").message


def test_binds_static_without_executor(env):
    catalog, _, _ = env
    findings = run_checks("SELECT s.nme FROM singer s JOIN concert c ON s.singer_id = c.concert_id",
                          question="q", catalog=catalog)
    assert [f.check for f in findings] == ["binds"] and "nme" in findings[0].message
    assert run_checks("WITH x AS (SELECT name AS n FROM singer) SELECT n FROM x ORDER BY n", question="q",
                      catalog=catalog) == []


def test_executes(env):
    report = _critique(env, "SELECT name FROM singer WHERE age = 'old'")
    assert "executes" in _checks(report, open_only=True) and not report.ok
    assert report.error and "old" in report.error
    assert _critique(env, "SELECT name FROM singer WHERE age = 32").findings == []


def test_scalar_subquery_several_rows_is_found_and_rewritten_to_in(env):
    sql = "SELECT name FROM singer WHERE singer_id = (SELECT singer_id FROM singer_in_concert WHERE concert_id = 1)"
    report = _critique(env, sql, "Names of singers in concert 1")
    assert {"scalar_subquery", "executes"} <= _checks(report)
    finding = next(f for f in report.findings if f.check == "scalar_subquery")
    assert len(finding.evidence["rows"]) == 2 and "several rows" in finding.message
    assert report.repaired and report.ok and " IN (SELECT" in report.sql
    assert sorted(report.rows) == [("John Nizinik",), ("Justin Brown",), ("Timbaland",)]


def test_scalar_subquery_single_row_is_silent(env):
    for sql in (
        "SELECT name FROM singer WHERE age = (SELECT max(age) FROM singer)",  # aggregate: one row by construction
        "SELECT name FROM singer WHERE singer_id = (SELECT singer_id FROM singer WHERE singer_id = 3)",  # key
        "SELECT name FROM singer WHERE singer_id = (SELECT singer_id FROM singer WHERE name = 'Timbaland')",  # ran: 1
    ):
        report = _critique(env, sql)
        assert report.findings == [], (sql, report.findings)


def test_empty_result_value_offers_and_repairs_the_real_value(env):
    report = _critique(env, "SELECT name FROM singer WHERE country = 'france'", "Singers from France")
    finding = next(f for f in report.findings if f.check == "empty_result_value")
    assert finding.evidence["suggestions"] == ["France"] and "'france'" in finding.message
    assert report.repaired and report.sql == "SELECT name FROM singer WHERE country = 'France'"
    assert len(report.rows) == 3 and report.ok and finding.repaired


def test_empty_result_alone_is_no_finding(env):
    # empty, but every filter value occurs: nothing to say
    report = _critique(env, "SELECT name FROM singer WHERE country = 'France' AND age > 60")
    assert report.rows == [] and report.findings == []
    # a value stored padded with spaces is the data's oddity, not a slip to rewrite
    report = _critique(env, "SELECT city FROM airport WHERE code = 'APG'")
    assert report.rows == [] and report.findings == [] and not report.repaired


def test_empty_result_value_without_close_value_is_reported_not_repaired(env):
    report = _critique(env, "SELECT name FROM singer WHERE country = 'Atlantis'",
                       linked_values={"music.singer.country": ["Netherlands"]})
    finding = next(f for f in report.findings if f.check == "empty_result_value")
    assert not report.repaired and finding.evidence["suggestions"] == ["Netherlands"]  # the linked value


def test_empty_result_value_named_by_the_question(env):
    # the question's own value, held by no column: the empty result may be the honest answer
    report = _critique(env, "SELECT name FROM singer WHERE country = 'Atlantis'", "Which singers are from Atlantis?")
    assert report.rows == [] and report.findings == []
    # the question's value sits in another column: the filter is on the wrong column
    report = _critique(env, "SELECT concert_name FROM concert WHERE concert_name = 'Timbaland'",
                       "Which concerts did Timbaland sing in?")
    finding = next(f for f in report.findings if f.check == "empty_result_value")
    assert finding.evidence["found_in"] == ["singer.name"] and "singer.name" in finding.message


def test_run_checks_on_a_recorded_result_without_executor(env):
    catalog, _, matcher = env
    findings = run_checks("SELECT name FROM singer WHERE country = 'france'", question="q", catalog=catalog,
                          matcher=matcher, result=_Rows([]))
    assert [f.check for f in findings] == ["empty_result_value"]
    assert findings[0].evidence["suggestions"] == ["France"]
    assert run_checks("SELECT name FROM singer WHERE country = 'France'", question="q", catalog=catalog,
                      matcher=matcher, result=_Rows([("Rose White",)])) == []


class _Rows:
    def __init__(self, rows):
        self.columns, self.rows = ["name"], rows


def test_fanout_aggregate(env):
    bad = ("SELECT avg(s.age) FROM singer AS s JOIN singer_in_concert AS sc ON s.singer_id = sc.singer_id",
           "What is the average age of singers who sang in a concert?")
    report = _critique(env, *bad)
    finding = next(f for f in report.findings if f.check == "fanout_aggregate")
    assert finding.severity == "warning" and "1:n" in finding.message and report.ok  # a warning, not an error
    right = ("SELECT avg(age) FROM singer WHERE singer_id IN (SELECT singer_id FROM singer_in_concert)", bad[1])
    assert _critique(env, *right).findings == []
    count = ("SELECT s.name, count(*) FROM singer AS s JOIN singer_in_concert AS sc ON s.singer_id = sc.singer_id "
             "GROUP BY s.name", "Number of concerts of each singer")
    assert _critique(env, *count).findings == []


def test_id_for_name(env):
    question = "What are the names of the singers from France?"
    report = _critique(env, "SELECT singer_id FROM singer WHERE country = 'France'", question)
    assert [f.check for f in report.findings] == ["id_for_name"]
    assert "name" in report.findings[0].evidence["name_columns"]
    assert _critique(env, "SELECT name FROM singer WHERE country = 'France'", question).findings == []
    assert _critique(env, "SELECT singer_id FROM singer WHERE country = 'France'",
                     "What are the ids of the singers from France?").findings == []


def test_superlative_without_limit(env):
    question = "Which singer is the oldest?"
    report = _critique(env, "SELECT name FROM singer ORDER BY age DESC", question)
    assert [f.check for f in report.findings] == ["superlative_without_limit"]
    assert _critique(env, "SELECT name FROM singer ORDER BY age DESC LIMIT 1", question).findings == []
    assert _critique(env, "SELECT name FROM singer ORDER BY age DESC",
                     "List singers from the oldest to the youngest.").findings == []


def test_order_direction(env):
    question = "Which concert has the most singers?"
    bad = ("SELECT c.concert_name FROM concert AS c JOIN singer_in_concert AS sc ON c.concert_id = sc.concert_id "
           "GROUP BY c.concert_name ORDER BY count(*) ASC LIMIT 1")
    report = _critique(env, bad, question)
    assert [f.check for f in report.findings] == ["order_direction"] and report.findings[0].evidence["want"] == "DESC"
    report = _critique(env, bad.replace("ASC", "DESC"), question)
    assert report.findings == [] and report.rows == [("Auditions",)]


def test_finding_and_report_serialise(env):
    report = _critique(env, "SELECT nme FROM singer LIMIT 1")
    data = report.to_dict()
    assert data["repaired"] and data["ok"] and data["original_sql"] == "SELECT nme FROM singer LIMIT 1"
    assert all(isinstance(Finding(**{k: v for k, v in f.items()}), Finding) for f in data["findings"])


def test_duplicates_for_distinct_is_repaired_with_distinct(env):
    question = "What are the different countries of the singers?"
    report = _critique(env, "SELECT country FROM singer", question)
    finding = next(f for f in report.findings if f.check == "duplicates_for_distinct")
    assert finding.repaired and "repeats rows" in finding.message
    assert [r["corrector"] for r in report.repairs] == ["add_distinct"]
    assert sorted(report.rows) == [("France",), ("Netherlands",), ("United States",)]
    # Right: already distinct, or grouped; and a question that does not ask for different items.
    assert _critique(env, "SELECT DISTINCT country FROM singer", question).findings == []
    assert _critique(env, "SELECT country FROM singer GROUP BY country", question).findings == []
    assert _critique(env, "SELECT country FROM singer", "What is the country of each singer?").findings == []
    # A LIMIT makes DISTINCT change which rows are kept: reported, never rewritten.
    report = _critique(env, "SELECT country FROM singer ORDER BY country LIMIT 3", question)
    assert _checks(report) == {"duplicates_for_distinct"} and not report.repaired


def test_group_by_and_reference_checks_are_registered():
    assert {"ambiguous_column", "ungrouped_column", "nested_aggregate", "aggregate_in_where",
            "each_without_group_by", "duplicates_for_distinct"} <= set(CHECK_NAMES)


def test_ungrouped_column_with_group_by(env):
    question = "How many singers come from each country?"
    report = _critique(env, "SELECT country, name, count(*) FROM singer GROUP BY country", question)
    finding = next(f for f in report.findings if f.check == "ungrouped_column")
    assert finding.severity == "error" and finding.evidence["columns"] == ["name"] and "GROUP BY" in finding.message
    assert not report.ok
    assert _critique(env, "SELECT country, count(*) FROM singer GROUP BY country", question).findings == []
    # PostgreSQL accepts columns of a table whose primary key is grouped: no finding.
    by_key = ("SELECT s.name, count(*) FROM singer AS s JOIN singer_in_concert AS sc ON s.singer_id = sc.singer_id "
              "GROUP BY s.singer_id")
    assert _critique(env, by_key, "How many concerts did each singer sing in?").findings == []


def test_ungrouped_column_next_to_an_aggregate_static(env):
    catalog, _, _ = env
    sql, question = "SELECT name, max(age) FROM singer", "Who is the oldest singer?"
    findings = run_checks(sql, question=question, catalog=catalog)  # no executor: static
    finding = next(f for f in findings if f.check == "ungrouped_column")
    assert "without GROUP BY" in finding.message and "LIMIT 1" in finding.message
    report = _critique(env, sql, question)
    assert {"executes", "ungrouped_column"} <= _checks(report)
    assert run_checks("SELECT name FROM singer ORDER BY age DESC LIMIT 1", question=question,
                      catalog=catalog) == []


def test_nested_aggregate(env):
    question = "What is the largest number of singers in a concert?"
    report = _critique(env, "SELECT max(count(*)) FROM singer_in_concert GROUP BY concert_id", question)
    finding = next(f for f in report.findings if f.check == "nested_aggregate")
    assert "max(count(*))" in finding.message.lower() and "ORDER BY" in finding.message
    right = "SELECT count(*) FROM singer_in_concert GROUP BY concert_id ORDER BY count(*) DESC LIMIT 1"
    report = _critique(env, right, question)
    assert report.findings == [] and report.rows == [(3,)]
    # An aggregate over a subquery's aggregate is right.
    assert _critique(env, "SELECT max(n) FROM (SELECT count(*) AS n FROM singer_in_concert GROUP BY concert_id) AS t",
                     question).findings == []


def test_aggregate_in_where(env):
    question = "Which concerts have more than two singers?"
    bad = "SELECT concert_id FROM singer_in_concert WHERE count(*) > 2 GROUP BY concert_id"
    report = _critique(env, bad, question)
    assert "aggregate_in_where" in _checks(report)
    finding = next(f for f in report.findings if f.check == "aggregate_in_where")
    assert "HAVING" in finding.message
    right = "SELECT concert_id FROM singer_in_concert GROUP BY concert_id HAVING count(*) > 2"
    assert _critique(env, right, question).findings == []
    subquery = "SELECT name FROM singer WHERE age > (SELECT avg(age) FROM singer)"
    assert _critique(env, subquery, "Which singers are older than average?").findings == []


def test_each_without_group_by(env):
    question = "How many singers are there in each concert?"
    report = _critique(env, "SELECT count(*) FROM singer_in_concert", question)
    assert [f.check for f in report.findings] == ["each_without_group_by"] and report.ok
    assert _critique(env, "SELECT concert_id, count(*) FROM singer_in_concert GROUP BY concert_id",
                     question).findings == []
    assert _critique(env, "SELECT count(*) FROM singer_in_concert",
                     "How many singer performances are there?").findings == []


def test_ambiguous_column_equated_by_the_join_is_qualified(env):
    question = "What are the names of the singers who sang in a concert, with their ids?"
    bad = ("SELECT singer_id, name FROM singer JOIN singer_in_concert "
           "ON singer.singer_id = singer_in_concert.singer_id WHERE concert_id = 4")
    report = _critique(env, bad, question)
    finding = next(f for f in report.findings if f.check == "ambiguous_column")
    assert finding.repaired and finding.evidence["equated"] and "either gives the same value" in finding.message
    assert [r["corrector"] for r in report.repairs] == ["qualify_ambiguous"] and report.ok
    assert sorted(report.rows) == [(3, "Justin Brown"), (4, "Rose White")]
    qualified = bad.replace("SELECT singer_id", "SELECT singer.singer_id")
    assert _critique(env, qualified, question).findings == []


def test_ambiguous_column_not_equated_is_reported_not_repaired(env):
    question = "How many singers sang in each concert, counting concerts without singers?"
    bad = ("SELECT concert_id, count(singer_id) FROM concert LEFT JOIN singer_in_concert "
           "ON concert.concert_id = singer_in_concert.concert_id GROUP BY concert_id")
    report = _critique(env, bad, question)
    finding = next(f for f in report.findings if f.check == "ambiguous_column")
    assert not finding.repaired and not finding.evidence["equated"] and not report.repaired
    assert set(finding.evidence["candidates"]) == {"concert.concert_id", "singer_in_concert.concert_id"}
    right = bad.replace("concert_id, count", "concert.concert_id, count").replace("BY concert_id",
                                                                                 "BY concert.concert_id")
    assert _critique(env, right, question).findings == []


def test_nested_aggregate_over_groups_is_repaired(env):
    question = "Which concerts have the largest number of singers?"
    bad = ("SELECT concert_id FROM singer_in_concert GROUP BY concert_id "
           "HAVING count(*) = (SELECT max(count(*)) FROM singer_in_concert GROUP BY concert_id)")
    report = _critique(env, bad, question)
    finding = next(f for f in report.findings if f.check == "nested_aggregate")
    assert finding.repaired and [r["corrector"] for r in report.repairs] == ["aggregate_groups"]
    assert report.ok and report.rows == [(1,)]
    # A nested aggregate next to a plain column has no single meaning: reported, not rewritten.
    report = _critique(env, "SELECT max(count(*)), concert_id FROM singer_in_concert GROUP BY concert_id", question)
    assert "nested_aggregate" in _checks(report, open_only=True) and not report.repaired


def test_ungrouped_column_ignores_unknown_columns_and_inferred_keys(env):
    catalog, _, _ = env
    findings = run_checks("SELECT nme, count(*) FROM singer GROUP BY country", question="q", catalog=catalog)
    assert "ungrouped_column" not in {f.check for f in findings} and "binds" in {f.check for f in findings}
    # stage_id is a key onboarding inferred, not one PostgreSQL knows: grouping by it does not cover stage_name.
    assert catalog.table("stage").pk_source == "inferred" and catalog.table("stage").primary_key == ("stage_id",)
    sql = ("SELECT st.stage_name, count(*) FROM stage AS st JOIN concert AS c ON st.concert_id = c.concert_id "
           "GROUP BY st.stage_id")
    report = _critique(env, sql, "How many concerts does each stage have?")
    assert {"executes", "ungrouped_column"} <= _checks(report)
    assert next(f for f in report.findings if f.check == "ungrouped_column").evidence["columns"] == ["st.stage_name"]
    # Exact repair: each group holds one stage (its key is grouped), so stage_name joins GROUP BY.
    assert [r["corrector"] for r in report.repairs] == ["group_by_key"] and report.ok
    assert sorted(report.rows) == [(f"Stage {chr(64 + i)}", 1) for i in range(1, 9)]
    # Grouped by a column that is no key: reported, not repaired.
    report = _critique(env, "SELECT st.stage_name, count(*) FROM stage AS st GROUP BY st.concert_id", "q")
    assert "ungrouped_column" in _checks(report, open_only=True) and not report.repaired


def test_ungrouped_column_order_by_aggregate_without_group_by_and_star(env):
    question = "Which country has the most singers?"
    report = _critique(env, "SELECT country FROM singer ORDER BY count(*) DESC LIMIT 1", question)
    finding = next(f for f in report.findings if f.check == "ungrouped_column")
    assert "no GROUP BY" in finding.message and finding.evidence["columns"] == ["country"]
    right = "SELECT country FROM singer GROUP BY country ORDER BY count(*) DESC LIMIT 1"
    assert _critique(env, right, question).findings == []
    # t.* grouped by a key PostgreSQL does not know (inferred): its other columns are reported.
    star = ("SELECT st.* FROM stage AS st JOIN concert AS c ON st.concert_id = c.concert_id GROUP BY st.stage_id")
    report = _critique(env, star, "Which stages have concerts?")
    finding = next(f for f in report.findings if f.check == "ungrouped_column")
    assert "stage_name" in finding.evidence["columns"][0] and report.repaired and len(report.rows) == 8
    assert finding.evidence["regroup"] == [["st", "stage_name"], ["st", "concert_id"]]
    declared = "SELECT s.* FROM singer AS s JOIN singer_in_concert AS sc ON s.singer_id = sc.singer_id GROUP BY s.singer_id"
    assert _critique(env, declared, "Which singers sang in a concert?").findings == []
