"""Deeper candidates past a fitting nearest example (issue 13, helper matchv;
sqlgenie/inference/worded_apart.py): allowed only when the candidate's question says no word the
asked question drops (another form of the same word counts as the word).

Real embedded PostgreSQL and the real MiniLM model (the trade fixture of tests/bank_fixture.py)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from bank_fixture import onboard_trade

from sqlgenie.inference import worded_apart

TWO = "SELECT sum(o.amount) AS total FROM trade.orders o WHERE o.city IN ('Chicago', 'Boston')"
TWO_Q = "Total amount of orders sold to Chicago and Boston"
LATE = "Total amount of the latest orders sold to Chicago and Boston"
BANK = [
    ("Total amount of orders to Boston", "SELECT sum(o.amount) AS total FROM trade.orders o WHERE o.city = 'Boston'"),
    (TWO_Q, TWO),
    (LATE, TWO + " AND o.id = (SELECT max(id) FROM trade.orders)"),
    ("Total amount of the good orders sold to Chicago and Boston", TWO + " AND o.status = 'delivered'"),
]


@pytest.fixture(scope="module")
def asker(module_db_url):
    from sqlgenie.inference.pipeline import Asker

    settings = onboard_trade(module_db_url, BANK)
    with Asker.open(settings, provider=None, log=False) as a:
        yield a


def _cand(asker, question, sql):
    row = asker.store.execute("SELECT id FROM sqlgenie.bank_examples WHERE question = %s", (question,)).fetchone()
    spans = asker.retriever.mask(question).spans
    return SimpleNamespace(example=SimpleNamespace(id=row[0], question=question, sql=sql, skeleton="", spans=spans))


def _dropped(asker, asked, question=TWO_Q, sql=TWO):
    retrieval = asker.retriever.retrieve(asked, k=1, threshold=0.0)
    return worded_apart.dropped_words(asker, retrieval, _cand(asker, question, sql))


def test_every_word_of_the_example_asked_allows(asker):
    assert _dropped(asker, "Total amount of the orders we sell to Seattle and Denver") == []  # sold / sell


def test_a_word_the_question_drops_refuses(asker):
    assert "sold" in _dropped(asker, "Total amount of orders to Seattle and Denver")
    retrieval = asker.retriever.retrieve("Total amount of orders to Seattle and Denver", k=1, threshold=0.0)
    reason = worded_apart.allowed(asker, retrieval, _cand(asker, TWO_Q, TWO))
    assert reason and "which yours does not" in reason


def test_a_meaning_class_the_question_drops_refuses(asker):
    got = _dropped(asker, "Total amount of the orders sold to Seattle and Denver", LATE, BANK[2][1])
    assert "NEW" in got or "latest" in got


def test_a_constant_no_value_of_its_question_says_refuses(asker):
    good = _cand(asker, BANK[3][0], BANK[3][1])
    assert worded_apart.unsaid_constants(asker, good) == ["status delivered"]
    assert worded_apart.unsaid_constants(asker, _cand(asker, TWO_Q, TWO)) == []
    retrieval = asker.retriever.retrieve("Total amount of the good orders sold to Seattle and Denver", k=1, threshold=0.0)
    assert "no value of its question says" in worded_apart.allowed(asker, retrieval, good)
