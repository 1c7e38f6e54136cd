"""Filler words and irregular forms (issue 13, helper matchv).

* ``sqlgenie/inference/stop_forms.py``: "has", "does", "was" stay filler words instead of becoming
  the content words "ha", "doe", "wa" through the plural rule, so a question that only swaps an
  auxiliary adds no word to its example.
* ``sqlgenie/inference/deeper_words.py`` (``IRREGULAR_FORMS``): a deeper candidate's own word in an
  irregular form ("sold" / "sell", "wrote" / "written") accounts for the question's form;
  (``TOPIC_PREPOSITIONS``) "about" right before a value is no added word.

Real embedded PostgreSQL and the real MiniLM model (the trade fixture of tests/bank_fixture.py)."""

from __future__ import annotations

import pytest
from bank_fixture import deeper_added_words, onboard_trade

from sqlgenie.inference import deeper_words, stop_forms
from sqlgenie.inference.adapt import question_diff

TWO = "SELECT sum(o.amount) AS total FROM trade.orders o WHERE o.city IN ('Chicago', 'Boston')"
TWO_Q = "Total amount of orders sold to Chicago and Boston"
BANK = [
    ("Total amount of orders to Boston", "SELECT sum(o.amount) AS total FROM trade.orders o WHERE o.city = 'Boston'"),
    ("Number of orders to Boston", "SELECT count(*) AS total FROM trade.orders o WHERE o.city = 'Boston'"),
    (TWO_Q, TWO),
]


@pytest.fixture(scope="module")
def asker(module_db_url):
    from sqlgenie.inference.pipeline import Asker

    settings = onboard_trade(module_db_url, BANK)
    with Asker.open(settings, provider=None, log=False) as a:
        yield a


@pytest.fixture
def restore():
    yield
    stop_forms.ENABLED = True
    deeper_words.IRREGULAR_FORMS = True
    deeper_words.TOPIC_PREPOSITIONS = True


def _added(asker, question):
    return deeper_added_words(asker, question, TWO_Q, TWO)


def test_an_auxiliary_is_no_content_word(restore):
    example = "How many papers does [MASK] have in [MASK] ?"
    question = "How many [MASK] papers has [MASK] was on ?"
    stop_forms.ENABLED = True
    assert question_diff(example, question).added == []
    stop_forms.ENABLED = False
    assert {"ha", "wa"} <= set(question_diff(example, question).added)


def test_an_auxiliary_does_not_refuse_a_deeper_candidate(asker, restore):
    question = "Total amount that has been sold to Seattle and Denver"
    stop_forms.ENABLED = True
    assert _added(asker, question) == []
    stop_forms.ENABLED = False
    assert "ha" in _added(asker, question)


def test_an_irregular_form_of_the_candidates_own_verb_is_not_added(asker, restore):
    question = "Total amount of orders we sell to Seattle and Denver"
    deeper_words.IRREGULAR_FORMS = True
    assert "sell" not in _added(asker, question)
    deeper_words.IRREGULAR_FORMS = False
    assert "sell" in _added(asker, question)


def test_a_topic_preposition_before_a_value_is_not_added(asker, restore):
    question = "Total amount of orders sold about Seattle and Denver"
    deeper_words.TOPIC_PREPOSITIONS = True
    assert "about" not in _added(asker, question)
    deeper_words.TOPIC_PREPOSITIONS = False
    assert "about" in _added(asker, question)
    deeper_words.TOPIC_PREPOSITIONS = True  # not before a value: still a word of its own
    assert "about" in _added(asker, "Total amount about orders sold to Seattle and Denver")


def test_other_added_words_still_refuse(asker):
    assert "urgent" in _added(asker, "Total amount of urgent orders sold to Seattle and Denver")


def test_outside_is_a_negation():
    # "has" no longer refuses this pair by accident: "outside of" must (the example's SQL has <>)
    diff = question_diff("How many papers does [MASK] publish outside of [MASK] area ?", "How many papers [MASK] has in [MASK] ?")
    assert diff.added == [] and diff.cue_changes == ["NOT"]
