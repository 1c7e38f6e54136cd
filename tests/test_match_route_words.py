"""Match route coverage (issue 13, helper matcht): route words that change nothing, and the nearest
examples after refused exact matches.

* "between A and B" of two text values is read as "from A to B" against a "from ... to ..."
  example (sqlgenie/inference/between_ends.py);
* "leaving" / "arriving" that the question adds is licensed when the example's SQL reads a
  column of that direction and none of the other (sqlgenie/inference/direction_cues.py);
* when every exact masked match is refused, the nearest examples are tried as for any question
  (sqlgenie/inference/beyond_exact.py);
* a short common word in capitals that the value cache holds ("how many US flights") is masked
  as a value (example_bank/masking.py, ``_shouted``).

Real embedded PostgreSQL and the real MiniLM model on a small onboarded flights schema; each rule
is switched off once to show the same question refused without it."""

from __future__ import annotations

import psycopg
import pytest
from bank_fixture import onboard_with_bank

from example_bank.masking import MaskedQuestion, MaskedSpan
from sqlgenie.inference import beyond_exact, between_ends, direction_cues
from sqlgenie.inference.pipeline import Asker

CITIES = ["Boston", "Chicago", "Denver", "Seattle", "Houston", "Memphis"]
ROUTE = ("SELECT f.flight_id FROM air.flight f WHERE f.from_city = '{a}' AND f.to_city = '{b}'")
NONSTOP = ROUTE + " AND f.stops = 0"
MORNING = ROUTE + " AND f.departure_time BETWEEN 0 AND 1200"
BANK = [
    ("nonstop flights from Chicago to Seattle", NONSTOP.format(a="Chicago", b="Seattle")),
    ("show me the nonstop flights from Boston to Denver", NONSTOP.format(a="Boston", b="Denver")),
    ("show me the flights from Denver to Boston on the morning", MORNING.format(a="Denver", b="Boston")),
    ("flights from Seattle to Chicago in the morning", MORNING.format(a="Seattle", b="Chicago")),
    ("flights from Houston to Denver arriving before 1000",
     ROUTE.format(a="Houston", b="Denver") + " AND f.arrival_time < 1000"),
    ("show me the flights from Memphis to Houston", ROUTE.format(a="Memphis", b="Houston")),
    ("which airlines fly from Chicago to Boston",
     "SELECT DISTINCT f.airline FROM air.flight f WHERE f.from_city = 'Chicago' AND f.to_city = 'Boston'"),
    # an exact masked twin of a question about another column: "available flights for [MASK]" by airline
    ("available flights for Delta", "SELECT f.flight_id FROM air.flight f WHERE f.airline = 'Delta'"),
    ("flights for Denver", "SELECT f.flight_id FROM air.flight f WHERE f.to_city = 'Denver'"),
    ("flights departing from Chicago", "SELECT f.flight_id FROM air.flight f WHERE f.from_city = 'Chicago'"),
    ("list the flights leaving Boston", "SELECT f.flight_id FROM air.flight f WHERE f.from_city = 'Boston'"),
]


def create_air(conn: psycopg.Connection) -> None:
    conn.execute("CREATE SCHEMA air")
    conn.execute("CREATE TABLE air.flight (flight_id integer PRIMARY KEY, airline text NOT NULL,"
                 " from_city text NOT NULL, to_city text NOT NULL, stops integer NOT NULL,"
                 " departure_time integer NOT NULL, arrival_time integer NOT NULL)")
    rows = []
    for i in range(1, 241):
        a, b = CITIES[i % 6], CITIES[(i * 5 + 1) % 6]
        if a == b:
            b = CITIES[(i + 1) % 6]
        dep = (i * 97) % 2400 // 100 * 100
        rows.append((i, ["Delta", "United", "US"][i % 3], a, b, i % 3, dep, (dep + 300) % 2400))
    with conn.cursor() as cur:
        cur.executemany("INSERT INTO air.flight VALUES (%s, %s, %s, %s, %s, %s, %s)", rows)
    conn.execute("ANALYZE air.flight")


@pytest.fixture(scope="module")
def air(module_db_url):
    return onboard_with_bank(module_db_url, "air", create_air, BANK)


@pytest.fixture(scope="module")
def asker(air):
    with Asker.open(air, provider=None, log=False) as a:
        yield a


@pytest.fixture
def off():
    """Switch one module's rule off for the duration of a test."""
    touched = []

    def switch(module):
        module.ENABLED = False
        touched.append(module)

    yield switch
    for module in touched:
        module.ENABLED = True


def _ids(url: str, sql: str) -> list:
    with psycopg.connect(url) as conn:
        return sorted(r[0] for r in conn.execute(sql).fetchall())


# ------------------------------------------------------------------ "between A and B" of two text values


def _masked(text: str, values: list[str], kinds: list[str]) -> MaskedQuestion:
    spans, pos, masked = [], 0, text
    for value, kind in zip(values, kinds):
        start = text.index(value, pos)
        spans.append(MaskedSpan(start, start + len(value), value, kind))
        pos = start + len(value)
    for value in values:
        masked = masked.replace(value, "[MASK]", 1)
    return MaskedQuestion(text, masked, spans)


def test_between_two_text_values_reads_from_to():
    example = _masked("nonstop flights from Chicago to Seattle", ["Chicago", "Seattle"], ["value", "value"])
    asked = _masked("nonstop flights between Houston and Memphis", ["Houston", "Memphis"], ["value", "value"])
    assert between_ends.rewrite(example, asked).text == "nonstop flights from [MASK] to [MASK]"


def test_between_numbers_stays_a_range():
    example = _masked("flights from Chicago to Seattle leaving at 900", ["Chicago", "Seattle", "900"],
                      ["value", "value", "number"])
    asked = _masked("flights from Chicago to Seattle leaving between 900 and 1100", ["Chicago", "Seattle", "900", "1100"],
                    ["value", "value", "number", "number"])
    assert between_ends.rewrite(example, asked) is asked
    # an example that is not about two ends ("to" only) or says "between" itself: words compared as they are
    one_end = _masked("flights to Seattle on Delta", ["Seattle", "Delta"], ["value", "value"])
    two = _masked("flights between Houston and Memphis", ["Houston", "Memphis"], ["value", "value"])
    assert between_ends.rewrite(one_end, two) is two
    assert between_ends.rewrite(two, two) is two


def test_between_answers_from_a_from_to_example(asker, module_db_url, off):
    question = "what are the nonstop flights between Houston and Memphis"
    got = asker.ask(question, route="auto", execute=False)
    assert got.status == "ok", got.think.reason if got.think else got.message
    assert _ids(module_db_url, got.sql) == _ids(module_db_url, NONSTOP.format(a="Houston", b="Memphis"))
    off(between_ends)
    refused = asker.ask(question, route="auto", execute=False)
    assert refused.status != "ok"


# ------------------------------------------------------------------ "leaving" / "arriving" the SQL encodes


def test_leaving_is_licensed_where_the_sql_reads_departure_time(asker, module_db_url, off):
    question = "list flights from Boston to Seattle leaving in the morning"
    got = asker.ask(question, route="auto", execute=False)
    assert got.status == "ok", got.think.reason if got.think else got.message
    assert _ids(module_db_url, got.sql) == _ids(module_db_url, MORNING.format(a="Boston", b="Seattle"))
    off(direction_cues)
    assert asker.ask(question, route="auto", execute=False).status != "ok"


def test_arriving_is_not_licensed_where_the_sql_reads_departure_time(asker):
    got = asker.ask("list flights from Boston to Seattle arriving in the morning", route="auto", execute=False)
    assert got.status != "ok"


def test_a_direction_word_the_question_drops_is_not_licensed(asker):
    """"arriving before 1000" without "arriving" reads as a departure time: refused."""
    got = asker.ask("flights from Chicago to Boston before 1000", route="auto", execute=False)
    assert got.status != "ok" or "arrival_time" not in (got.sql or "")


# ------------------------------------------------------------------ nearest examples after refused exact matches


def test_refused_exact_match_falls_back_to_the_nearest(asker, off):
    """"available flights for Boston" masks like "available flights for Delta" (an airline); the city
    query "flights for Denver" is the nearest non-exact example. Without the rule the deeper path
    refuses it: "available" is a word no paraphrase of that query says."""
    question = "available flights for Boston"
    assert asker.retriever.mask(question).key == asker.retriever.mask("available flights for Delta").key
    got = asker.ask(question, route="auto", execute=False)
    assert got.status == "ok", got.think.reason if got.think else got.message
    assert "to_city" in got.sql and "airline" not in got.sql
    off(beyond_exact)
    assert asker.ask(question, route="auto", execute=False).status != "ok"


# ------------------------------------------------------------------ a short code in capitals is a value


def test_a_capitalised_code_that_is_a_common_word_is_masked(asker):
    """"US" is a cached airline value: masked in "how many US flights ...", while "us" stays a word."""
    mask = asker.retriever.mask
    assert mask("how many US flights leave from Boston").text == "how many [MASK] flights leave from [MASK]"
    assert mask("show us the flights from Boston").text == "show us the flights from [MASK]"
    assert mask("ARE THERE US FLIGHTS").text.count("[MASK]") <= 1  # a question in capitals: not a code by case


# ------------------------------------------------------------------ a table joined only for a dropped filter


def test_reduction_drops_a_table_joined_only_for_the_dropped_filter(off):
    from sqlgenie.inference import orphan_joins
    from sqlgenie.inference.verify import reduce_example

    sql = ("SELECT DISTINCT f.flight_id FROM air.flight AS f, air.carrier AS c WHERE f.from_city = 'Boston'"
           " AND c.code = f.airline AND c.name = 'Delta'")
    example = _masked("Delta flights from Boston", ["Delta", "Boston"], ["value", "value"])
    asked = _masked("flights from Denver", ["Denver"], ["value"])
    got = reduce_example(sql, example.text, example.spans, asked.text, asked.spans)
    assert got is not None and "carrier" not in got.sql and "c.code" not in got.sql, got
    off(orphan_joins)
    kept = reduce_example(sql, example.text, example.spans, asked.text, asked.spans)
    assert kept is not None and "carrier" in kept.sql
    # a table the query still reads is kept
    reads = sql.replace("SELECT DISTINCT f.flight_id", "SELECT DISTINCT f.flight_id, c.code")
    orphan_joins.ENABLED = True
    assert "carrier" in reduce_example(reads, example.text, example.spans, asked.text, asked.spans).sql
