"""The tie rule of the match route (issue 13, helper matchv): close verified candidates whose SQL
differs only in the case of a string constant, or in the order of an IN list of constants, are one
query (sqlgenie/inference/tie_spelling.py); any other difference still disagrees."""

from __future__ import annotations

import pytest

from sqlgenie.inference import tie_spelling

BASE = ("SELECT DISTINCT w.paperid FROM author AS a, writes AS w "
        "WHERE a.authorname = 'li dong' AND w.authorid = a.authorid")


@pytest.fixture
def restore():
    yield
    tie_spelling.ENABLED = True


def test_case_of_a_constant_is_one_query(restore):
    other = BASE.replace("'li dong'", "'Li Dong'")
    tie_spelling.ENABLED = True
    assert tie_spelling.same_query(BASE, other)
    tie_spelling.ENABLED = False
    assert not tie_spelling.same_query(BASE, other)


def test_order_of_an_in_list_is_one_query(restore):
    a = "SELECT p.id FROM k WHERE k.name IN ('Multiuser Receiver', 'Decision Feedback')"
    b = "SELECT p.id FROM k WHERE k.name IN ('decision feedback', 'multiuser receiver')"
    assert tie_spelling.same_query(a, b)
    tie_spelling.ENABLED = False
    assert not tie_spelling.same_query(a, b)


@pytest.mark.parametrize("other", [
    BASE.replace("'li dong'", "'li dang'"),                       # another value
    BASE.replace("a.authorname", "a.authorid"),                   # another column
    BASE.replace("= 'li dong'", "<> 'li dong'"),                  # another operator
    BASE + " AND w.paperid = 3",                                  # another filter
    BASE.replace("SELECT DISTINCT", "SELECT"),                    # duplicates kept
])
def test_any_other_difference_still_disagrees(other):
    assert not tie_spelling.same_query(BASE, other)


def test_a_list_against_another_list_disagrees():
    a = "SELECT p.id FROM k WHERE k.name IN ('a', 'b')"
    assert not tie_spelling.same_query(a, "SELECT p.id FROM k WHERE k.name IN ('a', 'c')")
    assert not tie_spelling.same_query(a, "SELECT p.id FROM k WHERE NOT k.name IN ('a', 'b')")
