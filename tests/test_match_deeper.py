"""Match route (issue 13): when none of the nearest bank examples verifies, the next ones that
fit the question's values are tried (sqlgenie/inference/deeper.py), under a stricter license.

Real embedded PostgreSQL and the real MiniLM model: a small onboarded schema whose bank holds
many one-city questions worded like the asked two-city question, and the two-city query
worded differently (so retrieval ranks it below the nearest five)."""

from __future__ import annotations

import psycopg
import pytest
from bank_fixture import onboard_trade

from sqlgenie.inference import deeper
from sqlgenie.inference.pipeline import ADAPT_CANDIDATES, RETRIEVE_K, Asker

ONE = "SELECT {agg} AS total FROM trade.orders o WHERE o.city = 'Boston'"
TWO = "SELECT sum(o.amount) AS total FROM trade.orders o WHERE o.city IN ('Chicago', 'Boston')"
TWO_Q = "For orders going to Chicago and Boston, the grand total of their amount"
BANK = [
    ("Total amount of orders to Boston", ONE.format(agg="sum(o.amount)")),
    ("Total amount of orders to Boston that were returned",
     "SELECT sum(o.amount) AS total FROM trade.orders o WHERE o.city = 'Boston' AND o.status = 'returned'"),
    ("Total amount of orders to Boston that were delivered",
     "SELECT sum(o.amount) AS total FROM trade.orders o WHERE o.city = 'Boston' AND o.status = 'delivered'"),
    ("Average amount of the orders to Boston", ONE.format(agg="avg(o.amount)")),
    ("Largest amount of an order to Boston", ONE.format(agg="max(o.amount)")),
    ("Smallest amount of an order to Boston", ONE.format(agg="min(o.amount)")),
    ("Number of orders to Boston", ONE.format(agg="count(*)")),
    ("Total amount of orders to Boston, rounded", ONE.format(agg="round(sum(o.amount))")),
    ("Total amount of orders not shipped to Boston",
     "SELECT sum(o.amount) AS total FROM trade.orders o WHERE o.city <> 'Boston'"),
    ("Total amount of orders to Boston above 100",
     "SELECT sum(o.amount) AS total FROM trade.orders o WHERE o.city = 'Boston' AND o.amount > 100"),
    ("Total amount of the orders to Boston, per status",
     "SELECT o.status, sum(o.amount) AS total FROM trade.orders o WHERE o.city = 'Boston' GROUP BY o.status"),
    (TWO_Q, TWO),
]
ASKED = "Total amount of orders to Seattle and Denver"


@pytest.fixture(scope="module")
def trade(module_db_url):
    return onboard_trade(module_db_url, BANK)


@pytest.fixture(scope="module")
def asker(trade):
    with Asker.open(trade, provider=None, log=False) as a:
        yield a


@pytest.fixture
def deeper_off():
    deeper.ENABLED = False
    try:
        yield
    finally:
        deeper.ENABLED = True


def _scalar(url: str, sql: str):
    with psycopg.connect(url) as conn:
        return conn.execute(sql).fetchone()[0]


def test_the_right_example_is_not_among_the_nearest(asker):
    """The premise of the other tests: retrieval ranks the two-city query below the nearest five."""
    got = asker.retriever.retrieve(ASKED, k=RETRIEVE_K, threshold=0.0)
    assert len(got.matches) >= ADAPT_CANDIDATES
    assert TWO_Q not in [m.example.question for m in got.matches[:ADAPT_CANDIDATES]]


def test_fits_counts_values_by_kind_and_column(asker):
    r = asker.retriever
    asked = r.mask(ASKED).spans
    assert deeper.fits(asked, r.mask(TWO_Q).spans, asker.value_columns)
    assert not deeper.fits(asked, r.mask(BANK[0][0]).spans, asker.value_columns)  # one city, not two
    assert not deeper.fits(r.mask("Total amount of orders to Boston in 2024").spans,
                           r.mask(BANK[0][0]).spans, asker.value_columns)  # a date the example lacks
    # a value the value cache puts in another column than every value of the example
    assert not deeper.fits(r.mask("Total amount of orders shipped to delivered").spans,
                           r.mask(BANK[0][0]).spans, asker.value_columns)


def test_a_deeper_example_answers_when_the_nearest_cannot(asker, module_db_url):
    got = asker.ask(ASKED)
    assert got.status == "ok" and got.method == "adapt", got.explanation
    assert got.example_id == asker.store.execute("SELECT id FROM sqlgenie.bank_examples WHERE question = %s",
                                                 (TWO_Q,)).fetchone()[0]
    assert TWO_Q in [e["question"] for e in got.examples]  # the example used is shown with the nearest
    assert f"\u201c{TWO_Q}\u201d" in got.explanation
    expected = _scalar(module_db_url, "SELECT sum(amount) FROM trade.orders WHERE city IN ('Seattle', 'Denver')")
    assert got.rows[0][0] == expected


def test_without_deeper_candidates_it_is_refused(asker, deeper_off):
    got = asker.ask(ASKED)
    assert got.status == "refused" and got.route == "think"


def test_a_deeper_example_needs_every_added_word_licensed(asker, monkeypatch):
    """'urgent' is a word no example says: among the nearest it would only lower the
    confidence; a deeper candidate is refused for it, with a reason and the nearest examples."""
    question = "Total amount of urgent orders to Seattle and Denver"
    got = asker.ask(question)
    assert got.status == "refused", got.sql
    reason = got.think.reason
    assert "adds words none of its paraphrases use ('urgent')" in reason
    assert deeper.reason_code(reason) == "deeper candidate: unlicensed words"
    assert got.think.nearest  # the nearest examples are shown
    monkeypatch.setattr(deeper, "added_words", lambda *a, **k: [])  # without the stricter license it answers
    assert asker.ask(question).status == "ok"


def _fake(question: str, sql: str):
    from types import SimpleNamespace

    return SimpleNamespace(example=SimpleNamespace(id=-1, question=question, sql=sql, skeleton=""))


def test_a_schema_word_only_the_deeper_example_says_refuses(asker):
    """'status' names a column: an example that says it, adapted to a question that does not, is
    another query unless a paraphrase of its query also leaves it out."""
    retrieval = asker.retriever.retrieve("Total amount of orders to Seattle", k=1, threshold=0.0)
    per_status = _fake("Total amount of orders to Boston per status",
                       "SELECT o.status, sum(o.amount) FROM trade.orders o WHERE o.city = 'Boston' GROUP BY o.status")
    assert deeper.removed_schema_words(asker, retrieval, per_status) == ["status"]
    plain = _fake("Total amount of orders to Boston", ONE.format(agg="sum(o.amount)"))
    assert deeper.removed_schema_words(asker, retrieval, plain) == []


def test_a_constant_that_went_with_the_replaced_value_refuses(asker):
    """The example's SQL filters status = 'returned' next to the city it names, but its question
    never says 'returned': that constant qualified Boston, not the query."""
    from sqlgenie.inference.adapt import AdaptedSQL

    adapted = AdaptedSQL(True, None, 1.0, pairs=[("Boston", "Seattle")])
    tied = _fake("Total amount of orders to Boston",
                 "SELECT sum(o.amount) FROM trade.orders o WHERE o.city = 'Boston' AND o.status = 'returned'")
    assert deeper.companion_constants(asker, tied, adapted) == ["trade.orders.status = 'returned'"]
    said = _fake(BANK[1][0], BANK[1][1])  # 'returned' is a value of its question: the query's own filter
    assert deeper.companion_constants(asker, said, adapted) == []
    same_value = AdaptedSQL(True, None, 1.0, pairs=[("Boston", "Boston")])
    assert deeper.companion_constants(asker, tied, same_value) == []


def test_a_deeper_example_must_ask_for_the_same_kind_of_answer(asker):
    retrieval = asker.retriever.retrieve("Total amount of orders to Seattle", k=1, threshold=0.0)
    per_status = _fake("Total amount of orders to Boston for each status",
                       "SELECT o.status, sum(o.amount) FROM trade.orders o WHERE o.city = 'Boston' GROUP BY o.status")
    assert deeper.asked_differently(asker, retrieval, per_status) == "it asks per status and yours does not"
    how_many = _fake("How many orders went to Boston?", ONE.format(agg="count(*)"))
    assert deeper.asked_differently(asker, retrieval, how_many) == "it asks how many, yours what"
    where = _fake("Where did the orders of Boston go?", "SELECT o.city FROM trade.orders o WHERE o.city = 'Boston'")
    assert deeper.asked_differently(asker, retrieval, where) == "it asks where, yours what"
    same = _fake("What is the total amount of the orders to Boston?", ONE.format(agg="sum(o.amount)"))
    assert deeper.asked_differently(asker, retrieval, same) is None
    other_answer = _fake("Which amounts do the orders to Boston have?",
                         "SELECT DISTINCT o.amount FROM trade.orders o WHERE o.city = 'Boston'")
    retrieval = asker.retriever.retrieve("Which orders went to Seattle?", k=1, threshold=0.0)
    assert deeper.asked_differently(asker, retrieval, other_answer) == "it asks for amount, yours for order"
