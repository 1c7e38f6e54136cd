"""Match route, sqlgenie/inference/match_support.py (issue 13, helper support15), on a real PostgreSQL with
the real MiniLM model: the bank's evidence behind an answer (support, exact wording, group, margin) is a
measuring aid. It is attached only with the dump on (``SQLGENIE_MATCH_EVIDENCE=1``) and never changes an
answer. No refusal rule reads it: on the design seeds no feature told wrong answers from right ones
(docs/benchmarks.md, "After support15")."""

from __future__ import annotations

import pytest
from bank_fixture import air_asker, air_route

from sqlgenie.inference import match_support

CITIES = ["BOSTON", "DENVER", "ATLANTA", "PITTSBURGH", "DALLAS"]

BANK = [
    ("flights from BOSTON to DENVER", air_route("BOSTON", "DENVER")),
    ("show me the flights from ATLANTA to DALLAS", air_route("ATLANTA", "DALLAS")),
    ("list all flights from DENVER to PITTSBURGH", air_route("DENVER", "PITTSBURGH")),
]


@pytest.fixture(scope="module")
def asker(module_db_url):
    with air_asker(module_db_url, CITIES, BANK) as a:
        yield a


def _ask(asker, monkeypatch, question: str, dump: bool):
    monkeypatch.setattr(match_support, "DUMP", dump)
    return asker.ask(question, route="match", execute=False)


def test_the_dump_is_off_by_default_and_changes_no_answer(asker, monkeypatch):
    off = _ask(asker, monkeypatch, "please show flights from DALLAS to BOSTON", False)
    on = _ask(asker, monkeypatch, "please show flights from DALLAS to BOSTON", True)
    assert off.status == on.status == "ok", off.think and off.think.reason
    assert off.sql == on.sql
    assert "evidence" not in off.adaptation
    assert on.adaptation["evidence"]["path"] == "top"


def test_support_counts_the_paraphrases_that_adapt_alike(asker, monkeypatch):
    """Three examples of one query, worded apart: each verified one adapts to the same SQL."""
    r = _ask(asker, monkeypatch, "please show flights from DALLAS to BOSTON", True)
    ev = r.adaptation["evidence"]
    assert not ev["exact"]
    assert ev["support_verified"] >= 2 and ev["disagree_verified"] == 0, ev
    assert ev["group_n"] == 3 and ev["margin_other_query"] is None, ev  # one query in the pool


def test_an_exact_wording_is_told(asker, monkeypatch):
    r = _ask(asker, monkeypatch, "flights from DALLAS to ATLANTA", True)
    ev = r.adaptation["evidence"]
    assert ev["exact"] and ev["retrieval_exact"] and ev["group_same_key"] == 1, ev
    assert ev["bank_same_wording"] == 1 and ev["bank_same_wording_other"] == 0, ev
