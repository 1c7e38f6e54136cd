"""Match route, sqlgenie/inference/free_words.py (issue 13, helper atis16): words the bank shows no query needs are
no wording of a constant the example's SQL implies (``IMPLIED_CONSTANTS``), unless a question compares with an
equative ("as early in the morning as i can", ``EQUATIVES``), whose words say a superlative."""

from __future__ import annotations

from bank_fixture import air_route

from sqlgenie.inference import free_words
from sqlgenie.inference.adapt import Span
from sqlgenie.inference.verify import implied_constants

MORNING = air_route("BOSTON", "DENVER") + " AND f.departure_time BETWEEN 0 AND 1200"
EXAMPLE = "show me morning flights from [MASK] to [MASK]"


def _spans(masked: str, values: list[str]) -> list[Span]:
    at = [i for i in range(len(masked)) if masked.startswith("[MASK]", i)]
    return [Span(start, start + 6, value, "value") for start, value in zip(at, values)]


def _implied(question: str) -> list[str]:
    free = lambda: frozenset({"need", "can", "soon", "show"})  # the bank's free words, given
    return implied_constants(MORNING, _spans(EXAMPLE, ["BOSTON", "DENVER"]), EXAMPLE, question, free=free)


def test_a_free_word_is_no_wording_of_the_morning(monkeypatch):
    question = "i need morning flights from [MASK] to [MASK]"
    monkeypatch.setattr(free_words, "IMPLIED_CONSTANTS", True)
    assert _implied(question) == []
    monkeypatch.setattr(free_words, "IMPLIED_CONSTANTS", False)
    assert _implied(question) and "(need)" in _implied(question)[0]


def test_an_equative_keeps_every_word(monkeypatch):
    question = "i need morning flights from [MASK] to [MASK] as soon as i can"
    monkeypatch.setattr(free_words, "IMPLIED_CONSTANTS", True)
    assert _implied(question), "an equative says a superlative: its words are no free words"
    monkeypatch.setattr(free_words, "EQUATIVES", False)
    assert _implied(question) == []


def test_equatives():
    assert free_words.equative("i would like a flight as early in the morning as i can")
    assert free_words.equative("as cheap as possible")
    assert not free_words.equative("a flight from BOSTON as i said")


def test_a_focus_word_said_by_one_question_keeps_every_word(monkeypatch):
    """ADVISING seed 13 (helper atis17): "only" asks for no other semester; free words do not carry that."""
    question = "i need only morning flights from [MASK] to [MASK]"
    monkeypatch.setattr(free_words, "IMPLIED_CONSTANTS", True)
    assert _implied(question), "a focus word only one question says: every word counts"
    monkeypatch.setattr(free_words, "FOCUS", False)
    assert _implied(question) == []
    assert free_words.focus_apart(["is X only offered in the Fall", "is Y available in the Fall"])
    assert not free_words.focus_apart(["courses i can only take in Winter", "courses only offered in the Winter"])
