"""Match route (issue 13): a seen question is compared with the GROUP of bank examples
that share its candidate's query (same SQL skeleton and the same constants outside the
questions' values), not with one example only (sqlgenie/inference/groups.py).

Real embedded PostgreSQL and the real MiniLM model: a small onboarded schema whose bank
holds paraphrases of one query; pure checks of the license over real masked texts."""

from __future__ import annotations

import psycopg
import pytest
from bank_fixture import onboard_trade

from sqlgenie.inference import groups
from sqlgenie.inference.adapt import question_diff
from sqlgenie.inference.groups import Group, GroupLicense, Member, content_words, cue_classes
from sqlgenie.inference.pipeline import Asker
from sqlgenie.inference.verify import adapt_verified, lemma, tokens

TOTAL = "SELECT sum(o.amount) AS total FROM trade.orders o WHERE o.city = '{}'"
BANK = [
    # one query, three wordings (a group)
    ("Total amount of orders shipped to Boston", TOTAL.format("Boston")),
    ("What is the sum of the amounts of orders whose destination is Chicago?", TOTAL.format("Chicago")),
    ("Add up the amount of the orders that went to Denver", TOTAL.format("Denver")),
    # the same skeleton with a constant of its own ('returned' is the intent's, not a value): another group
    ("Total amount of orders shipped to Boston that were sent back",
     "SELECT sum(o.amount) AS total FROM trade.orders o WHERE o.city = 'Boston' AND o.status = 'returned'"),
    # other queries
    ("How many orders were shipped to Boston?", "SELECT count(*) AS orders FROM trade.orders o WHERE o.city = 'Boston'"),
    ("Average order amount by city",
     "SELECT city, round(avg(amount), 2) AS avg_amount FROM trade.orders GROUP BY city ORDER BY city"),
]


@pytest.fixture(scope="module")
def trade(module_db_url):
    return onboard_trade(module_db_url, BANK)


@pytest.fixture(scope="module")
def asker(trade):
    with Asker.open(trade, provider=None, log=False) as a:
        yield a


@pytest.fixture
def groups_off():
    groups.ENABLED = False
    try:
        yield
    finally:
        groups.ENABLED = True


def _example(asker, question: str):
    row = asker.store.execute("SELECT id FROM sqlgenie.bank_examples WHERE question = %s", (question,)).fetchone()
    return asker.retriever.bank.get(row[0])


def _scalar(url: str, sql: str):
    with psycopg.connect(url) as conn:
        return conn.execute(sql).fetchone()[0]


# --------------------------------------------------------------------------- groups read from the bank


def test_group_is_the_paraphrases_of_one_query_with_the_same_constants(asker):
    gs = groups.groups_of(asker.retriever, asker.catalog)
    boston = _example(asker, BANK[0][0])
    members = {m.example.question for m in gs.group(boston).members}
    assert members == {q for q, _ in BANK[:3]}  # not the 'returned' query: same skeleton, its own constant
    returned = _example(asker, BANK[3][0])
    assert {m.example.question for m in gs.group(returned).members} == {BANK[3][0]}
    assert groups.groups_of(asker.retriever, asker.catalog) is gs  # cached while the bank is unchanged


def test_a_meaning_word_another_paraphrase_uses_is_licensed(asker, module_db_url):
    """'destination' (arriving / to) is a meaning word the nearest example lacks; another
    example of its group says it, so the question is that query."""
    question = "Total amount of orders with destination Seattle"
    ex = _example(asker, BANK[0][0])
    r = asker.retriever
    new, ex_m = r.mask(question), r.mask(ex.question)
    common = dict(catalog=asker.catalog, value_columns=asker.value_columns, schema_words=asker._schema_word)
    alone = adapt_verified(ex.sql, ex_m.text, ex_m.spans, new.text, new.spans, question=question, **common)
    assert not alone.ok and "meaning words" in " ".join(alone.unaccounted)
    group = groups.groups_of(r, asker.catalog).group(ex)
    lic = group.license(ex.id, new.text)
    with_group = adapt_verified(ex.sql, ex_m.text, ex_m.spans, new.text, new.spans, question=question, group=lic,
                                **common)
    assert with_group.ok and "'Seattle'" in with_group.sql
    got = asker.ask(question)
    assert got.status == "ok" and got.method == "adapt", got.explanation
    expected = _scalar(module_db_url, "SELECT sum(amount) FROM trade.orders WHERE city = 'Seattle'")
    assert got.rows[0][0] == expected


def test_a_meaning_word_no_paraphrase_uses_is_still_refused(asker, groups_off):
    """A negation no example of the group uses is another query: refused with or without groups."""
    question = "Total amount of orders not shipped to Seattle"
    r = asker.ask(question, route="match")
    assert r.status == "refused" and r.sql is None and r.think is not None and r.think.reason
    groups.ENABLED = True
    r = asker.ask(question, route="match")
    assert r.status == "refused" and r.sql is None and r.think.reason and r.think.nearest


def test_without_groups_the_paraphrase_is_refused(asker, groups_off):
    """The figure's other side: the same question is refused when each candidate is compared alone."""
    r = asker.ask("Total amount of orders with destination Seattle")
    assert r.status == "refused" and r.sql is None and "meaning words" in r.think.reason


# --------------------------------------------------------------------------- the license, pure


def _member(i: int, text: str) -> Member:
    class _Ex:
        id = i
        question = text

    class _Masked:
        pass

    m = _Masked()
    m.text, m.spans = text, []
    return Member(_Ex(), m, content_words(text), {lemma(t) for t in tokens(text)}, cue_classes(text), ())


def test_license_adds_only_what_another_member_says():
    a = _member(1, "total amount of orders shipped to [MASK]")
    b = _member(2, "sum of the amounts of orders whose destination is [MASK]")
    new = "total amount of orders with destination [MASK]"
    lic = Group([a, b]).license(1, new)
    diff = question_diff(a.masked.text, new)
    assert "INBOUND" in diff.cue_changes
    assert "INBOUND" not in lic.filter_diff(diff).cue_changes
    negated = "total amount of orders not shipped to [MASK]"
    d2 = question_diff(a.masked.text, negated)
    assert "NOT" in Group([a, b]).license(1, negated).filter_diff(d2).cue_changes
    assert Group([a]).license(1, new) is None  # alone: nothing to license


def test_license_drops_a_word_only_when_one_paraphrase_lacks_it_and_says_nothing_else():
    morning = _member(1, "morning flights from [MASK] to [MASK]")
    noon = _member(2, "flights from [MASK] to [MASK] before noon")
    am = _member(3, "am flights from [MASK] to [MASK]")
    plain_q = "flights from [MASK] to [MASK]"
    lic = GroupLicense([noon, am], morning.words, content_words(plain_q), cue_classes(plain_q))
    # each paraphrase that lacks "morning" says something the question does not ("noon", "am"): no license
    assert not lic.removed_ok({"morning"})
    plain = _member(4, "show the flights from [MASK] to [MASK]")
    lic = GroupLicense([noon, plain], morning.words, content_words(plain_q), cue_classes(plain_q))
    assert lic.removed_ok({"morning"})


def test_direction_before_a_value_is_wording_that_matters():
    to = _member(1, "show me the flights to [MASK] from all other airports")
    new = "show me the flights from [MASK] to any other airport"
    arriving = "show me the flights arriving at [MASK] from all other airports"
    assert "dir:to" in content_words(to.masked.text) and "dir:from" in content_words(new)
    lic = GroupLicense([to], content_words(arriving), content_words(new), cue_classes(new))
    assert not lic.removed_ok({"INBOUND"})  # "to DAL" does not license dropping "arriving at" for "from DAL"


# --------------------------------------------------------------------------- pairing values by direction


def _spans(question: str, values: list[tuple[str, str]]) -> list[dict]:
    out = []
    for text, source in values:
        start = question.index(text)
        out.append({"start": start, "end": start + len(text), "text": text, "kind": "proper_noun", "source": source})
    return out


def test_a_value_several_columns_hold_pairs_by_its_direction():
    """'SAN FRANCISCO' is a city and an airport's location; the masker names one column per
    value, so its source differs from 'BALTIMORE''s. That is no reason to pair it with the
    example's destination: "from X" still replaces "from BALTIMORE"."""
    from sqlgenie.inference.adapt import adapt_sql

    city, loc = "c1.city_name", "t.airport.airport_location"
    cities = {"c1.city_name", "c2.city_name"}  # both sides of the query read city names
    holders = {"SAN FRANCISCO": cities | {loc}, "DALLAS": cities | {loc}, "BALTIMORE": cities, "SALT LAKE CITY": cities}
    ex_q = "show me the cheapest fare from BALTIMORE to DALLAS"
    new_q = "show me the cheapest fares from SAN FRANCISCO to SALT LAKE CITY"
    sql = ("SELECT f.fare FROM t.fare f JOIN t.city c1 ON c1.city_code = f.from_city JOIN t.city c2"
           " ON c2.city_code = f.to_city WHERE c1.city_name = 'BALTIMORE' AND c2.city_name = 'DALLAS'")
    got = adapt_sql(sql, _spans(ex_q, [("BALTIMORE", city), ("DALLAS", loc)]),
                    _spans(new_q, [("SAN FRANCISCO", loc), ("SALT LAKE CITY", city)]),
                    value_columns=lambda text: holders.get(text, set()),
                    example_masked="show me the cheapest fare from [MASK] to [MASK]",
                    new_masked="show me the cheapest fares from [MASK] to [MASK]")
    assert got.ok and got.pairs == [("BALTIMORE", "SAN FRANCISCO"), ("DALLAS", "SALT LAKE CITY")]
    assert "c1.city_name = 'SAN FRANCISCO'" in got.sql and "c2.city_name = 'SALT LAKE CITY'" in got.sql
