"""A word of the question that the bank writes as constants on columns the answer never reads ("on wednesday",
a date in the bank, answered with the day name of an example saying "WEDNESDAY") is refused
(sqlgenie/inference/unread_words.py; issue 13, helper atis10), on a real PostgreSQL with the real MiniLM model."""

from __future__ import annotations

import pytest
from bank_fixture import bank_asker, create_air

from sqlgenie.inference import unread_words

CITIES = ["BOSTON", "DENVER", "ATLANTA", "PITTSBURGH", "DALLAS"]
DAYS = ["MONDAY", "TUESDAY", "WEDNESDAY", "THURSDAY", "FRIDAY"]


create = create_air(CITIES, [("day_name", "text", lambda i: DAYS[i % 5]), ("day_number", "integer", lambda i: 20 + i % 7)],
                    rows=80)


_ROUTE = "FROM air.flight AS f, air.city AS a, air.city AS b WHERE f.from_city = a.city_code AND f.to_city = b.city_code"


def _q(x: str, y: str, extra: str) -> str:
    return f"SELECT DISTINCT f.flight_id {_ROUTE} AND a.city_name = '{x}' AND b.city_name = '{y}' AND {extra}"


BANK = [
    ("show flights from BOSTON to DENVER on wednesday", _q("BOSTON", "DENVER", "f.day_number = 23")),
    ("list flights from ATLANTA to DALLAS on wednesday", _q("ATLANTA", "DALLAS", "f.day_number = 23")),
    ("what flights go from DENVER to ATLANTA on wednesday", _q("DENVER", "ATLANTA", "f.day_number = 23")),
    ("show all WEDNESDAY morning flights from DENVER to BOSTON", _q("DENVER", "BOSTON", "f.day_name = 'WEDNESDAY'")),
]


@pytest.fixture(scope="module")
def asker(module_db_url):
    # the day in capitals left a word, as before masking.SHOUTED_WORDS (atis12), which masks "WEDNESDAY" as the
    # stored day name and so keeps this example from pairing at all: the rule is tested on the case it was made for
    import example_bank.masking as masking

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(masking, "SHOUTED_WORDS", False)
        with bank_asker(module_db_url, "air", create, BANK) as a:
            yield a


QUESTION = "show all morning flights from PITTSBURGH to DALLAS on wednesday"


def test_a_date_word_answered_with_the_day_name_is_refused(asker, monkeypatch):
    monkeypatch.setattr(unread_words, "ENABLED", False)
    r = asker.ask(QUESTION, route="match")
    assert r.status == "ok" and "DAY_NAME" in r.sql.upper(), r.think and r.think.reason
    monkeypatch.setattr(unread_words, "ENABLED", True)
    r = asker.ask(QUESTION, route="match")
    assert r.status == "refused", r.sql
    assert "which the verified examples write as day_number 23" in r.think.reason, r.think.reason


def test_the_date_answer_still_passes(asker, monkeypatch):
    monkeypatch.setattr(unread_words, "ENABLED", True)
    r = asker.ask("show flights from PITTSBURGH to DALLAS on wednesday", route="match")
    assert r.status == "ok" and "DAY_NUMBER = 23" in r.sql.upper(), r.think and r.think.reason


class _Tied:
    """The bank's ties as WordConstants.tied gives them (read from a real bank in the tests above)."""

    def __init__(self, ties):
        self.ties = ties

    def tied(self, word):
        return self.ties.get(word, {})


def test_a_default_year_and_short_words_tie_nothing(monkeypatch):
    from sqlglot import parse_one

    monkeypatch.setattr(unread_words, "ENABLED", True)
    tree = parse_one("SELECT c.name FROM course AS c WHERE c.has_exams = 'Y'", read="postgres")
    ties = _Tied({"exam": {"s.semester.year": ("2016",)}, "don": {"s.x.flag": ("1",)},
                  "wednesday": {"s.date_day.year": ("1991",), "s.date_day.day_number": ("23",)}})
    assert unread_words.unread(tree, "which classes have no exam", ties) == []  # advising's year = 2016
    assert unread_words.unread(tree, "which classes don 't have 586", ties) == []
    assert unread_words.unread(tree, "flights on wednesday", ties)  # day_number is not read
