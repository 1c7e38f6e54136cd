"""Deeper candidates (issue 13, helper matcht): an added word the candidate already accounts for
does not refuse it (sqlgenie/inference/deeper_words.py) — another form of one of its own words,
or a schema word naming a column its SQL reads. Any other added word still refuses.

Real embedded PostgreSQL and the real MiniLM model (the trade fixture of tests/bank_fixture.py)."""

from __future__ import annotations

import pytest
from bank_fixture import deeper_added_words, onboard_trade

from sqlgenie.inference import deeper_words
from sqlgenie.inference.pipeline import Asker

TWO = "SELECT sum(o.amount) AS total FROM trade.orders o WHERE o.city IN ('Chicago', 'Boston')"
TWO_Q = "For orders going to Chicago and Boston, the grand total of their amount"
BANK = [
    ("Total amount of orders to Boston", "SELECT sum(o.amount) AS total FROM trade.orders o WHERE o.city = 'Boston'"),
    ("Number of orders to Boston", "SELECT count(*) AS total FROM trade.orders o WHERE o.city = 'Boston'"),
    (TWO_Q, TWO),
]


@pytest.fixture(scope="module")
def asker(module_db_url):
    settings = onboard_trade(module_db_url, BANK)
    with Asker.open(settings, provider=None, log=False) as a:
        yield a


@pytest.fixture
def words_off():
    deeper_words.ENABLED = False
    try:
        yield
    finally:
        deeper_words.ENABLED = True


def _added(asker, question):
    return deeper_added_words(asker, question, TWO_Q, TWO)


def test_stem_joins_inflections_of_one_word():
    assert deeper_words.stem("using") == deeper_words.stem("use") == deeper_words.stem("uses")
    assert deeper_words.stem("published") == deeper_words.stem("publish")
    assert deeper_words.stem("running") == deeper_words.stem("run")
    assert deeper_words.stem("class") == "class"
    assert deeper_words.stem("urgent") != deeper_words.stem("use")


def test_another_form_of_the_candidates_own_word_is_not_added(asker, words_off):
    question = "Total amount of orders that go to Seattle and Denver"
    deeper_words.ENABLED = True
    assert "go" not in _added(asker, question)
    deeper_words.ENABLED = False
    assert "go" in _added(asker, question)


def test_a_schema_word_naming_a_column_the_sql_reads_is_not_added(asker, words_off):
    question = "Total amount of orders with city Seattle and Denver"
    deeper_words.ENABLED = True
    assert "city" not in _added(asker, question)
    deeper_words.ENABLED = False
    assert "city" in _added(asker, question)


def test_other_added_words_still_refuse(asker):
    assert "urgent" in _added(asker, "Total amount of urgent orders going to Seattle and Denver")
    # a schema word the SQL does not read: status
    assert "status" in _added(asker, "Total amount of orders by status going to Seattle and Denver")
