"""Test-suite check of `undecided` answers on templated sets (issue 13, measurement).

A tiny templated fixture (Defog layout: a dump, bank and test files with gold variants)
goes through `eval bank` on the real embedded PostgreSQL with the real MiniLM model.
The bank's SQL is what the match route answers with; the test golds differ from it:

* ``BETWEEN`` against two bounds: equivalent SQL, not equal canonically, so
  `undecided` by the exact metric; the test suite must call it **equivalent**;
* a dropped venue filter that the sparse dump makes harmless (every 2016 paper is an
  ACL paper): the same rows on the dump, a wrong answer; the test suite must call it
  **distinguished**, with evidence.

The exact keys (`precision`, `correct`, `wrong_novel`) must not move.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

DUMP = """
CREATE TABLE public.venue (
    venueid bigint NOT NULL,
    venuename text
);

CREATE TABLE public.paper (
    paperid bigint NOT NULL,
    title text,
    venueid bigint,
    year bigint
);

INSERT INTO public.venue (venueid, venuename) VALUES
(1, 'ACL'),
(2, 'NIPS'),
(3, 'ICML'),
(4, 'EMNLP')
;

INSERT INTO public.paper (paperid, title, venueid, year) VALUES
(1, 'Parsing with grammars', 1, 2016),
(2, 'Neural machine translation', 1, 2016),
(3, 'Deep nets for vision', 2, 2012),
(4, 'Kernel methods revisited', 3, 2011),
(5, 'Topic models at scale', 4, 2014),
(6, 'Semantic role labelling', 1, 2013),
(7, 'Bandits in practice', 3, 2015),
(8, 'Word vectors', 2, 2013),
(9, 'Graphical models', 3, 2009),
(10, 'Question answering', 4, 2017)
;
"""

DB = "t2s_suite"

BETWEEN_Q = "how many papers were published between 2010 and 2015"
BETWEEN_BANK = "SELECT COUNT(*) FROM paper WHERE year BETWEEN 2010 AND 2015"
BETWEEN_GOLD = "SELECT COUNT(*) FROM paper WHERE year >= 2010 AND year <= 2015"

SPARSE_Q = "list the titles of ACL papers from 2016"
SPARSE_BANK = "SELECT title FROM paper WHERE year = 2016"  # drops the venue: wrong
SPARSE_GOLD = ("SELECT paper.title FROM paper JOIN venue ON paper.venueid = venue.venueid "
               "WHERE venue.venuename = 'ACL' AND paper.year = 2016")


def _row(question: str, sql: str, golds: list[str], template: str, label: str = "seen") -> dict:
    return {"question": question, "query": sql, "db_id": DB, "golds": golds, "template": template, "label": label}


@pytest.fixture()
def suite_fixture(tmp_path: Path) -> Path:
    (tmp_path / "defog-data" / DB).mkdir(parents=True)
    (tmp_path / "defog-data" / DB / f"{DB}.sql").write_text(DUMP, encoding="utf-8")
    bank = [_row(BETWEEN_Q, BETWEEN_BANK, [BETWEEN_BANK], f"{DB}/0"),
            _row(SPARSE_Q, SPARSE_BANK, [SPARSE_BANK], f"{DB}/1")]
    test = [_row(BETWEEN_Q, BETWEEN_GOLD, [BETWEEN_GOLD], f"{DB}/0"),
            _row(SPARSE_Q, SPARSE_GOLD, [SPARSE_GOLD], f"{DB}/1")]
    (tmp_path / "bank.json").write_text(json.dumps(bank), encoding="utf-8")
    (tmp_path / "test.json").write_text(json.dumps(test), encoding="utf-8")
    return tmp_path


def _eval(settings, root: Path, suite: bool = True):
    from sqlgenie.eval.datasets import open_dataset
    from sqlgenie.inference.eval_bank import eval_bank
    from sqlgenie.store.connection import target_url

    ds = open_dataset(root)
    result = eval_bank(ds, target_url(settings), bank_file=root / "bank.json", questions_file=root / "test.json",
                       settings=settings, suite=suite)
    recs = {r["question"]: r for r in result.records if "index" in r}
    return result.summary, recs


def test_undecided_answers_are_told_apart_or_called_equivalent(settings, suite_fixture: Path):
    s, recs = _eval(settings, suite_fixture)
    between, sparse = recs[BETWEEN_Q], recs[SPARSE_Q]
    # the match route answered both with the bank's SQL; on the dump both return the gold's rows
    assert between["answered"] and sparse["answered"]
    assert between["outcome"] == sparse["outcome"] == "undecided"
    assert not between["correct"] and not sparse["correct"]

    assert between["suite"]["verdict"] == "equivalent", between["suite"]
    assert between["suite"]["gold"] == 0 and between["suite"]["seeds"] >= 10

    assert sparse["suite"]["verdict"] == "distinguished", sparse["suite"]
    ev = sparse["suite"]["evidence"][0]
    assert ev["seed"] is not None and ev["answer_rows"] != ev["gold_rows"] or ev["answer_result"] != ev["gold_result"]
    assert set(ev["table_rows"]) == {"paper", "venue"}

    # the exact metric is untouched; the suite's figures sit next to it
    assert s["correct"] == 0 and s["precision"] == 0.0 and s["undecided"] == 2
    assert s["undecided_equivalent"] == 1 and s["undecided_distinguished"] == 1 and s["undecided_suite_failed"] == 0
    assert s["correct_suite"] == 1 and s["precision_suite"] == 0.5
    assert s["right_seen_rate_suite"] == 0.5 and s["wrong_novel_suite"] == 0 and s["wrong_novel_rate_suite"] == 0.0
    assert s["suite_ms"] > 0


def test_suite_off_leaves_the_records_as_before(settings, suite_fixture: Path):
    s, recs = _eval(settings, suite_fixture, suite=False)
    assert all("suite" not in r for r in recs.values())
    assert s["undecided"] == 2 and s["precision"] == 0.0
    assert not any(k.endswith("_suite") or k.startswith("undecided_") for k in s)


def test_failures_and_unordered_answers_are_never_equivalent(settings, suite_fixture: Path):
    """A pair the distinguisher cannot build (a table the catalog lacks) is `failed`,
    and an answer that does not order what the gold orders is `distinguished` without
    running: neither can raise the suite's precision."""
    from sqlgenie.catalog import load_catalog
    from sqlgenie.eval.test_suite import suite_check
    from sqlgenie.feedback.distinguish import Distinguisher
    from sqlgenie.store.connection import open_connection, store_url

    _eval(settings, suite_fixture)  # loads and onboards the fixture's schema
    s_url = store_url(settings)
    with open_connection(s_url) as store:
        catalog = load_catalog(store, schemas=[f"defog_{DB}"], search_path=(f"defog_{DB}",))
    d = Distinguisher(s_url, catalog)
    failed = suite_check(d, "SELECT title FROM paper", ["SELECT title FROM no_such_table"])
    assert failed["verdict"] == "failed" and "not in the catalog" in failed["failures"][0]
    unordered = suite_check(d, "SELECT title FROM paper", ["SELECT title FROM paper ORDER BY year"])
    assert unordered["verdict"] == "distinguished" and unordered["evidence"][0]["seed"] is None
    # the same query is equivalent to itself on every built database
    same = suite_check(d, "SELECT title FROM paper ORDER BY year", ["SELECT title FROM paper ORDER BY year"])
    assert same["verdict"] == "equivalent"


def _fixture_distinguisher(settings, root: Path, **kw):
    from sqlgenie.catalog import load_catalog
    from sqlgenie.eval.test_suite import SUITE_SEEDS
    from sqlgenie.feedback.distinguish import Distinguisher
    from sqlgenie.store.connection import open_connection, store_url

    _eval(settings, root)  # loads and onboards the fixture's schema
    s_url = store_url(settings)
    with open_connection(s_url) as store:
        catalog = load_catalog(store, schemas=[f"defog_{DB}"], search_path=(f"defog_{DB}",))
    return Distinguisher(s_url, catalog, seeds=SUITE_SEEDS, **kw)


def test_a_gold_the_built_databases_never_exercise_is_not_equivalent(settings, suite_fixture: Path):
    """Both queries empty on every built database: agreement by emptiness, the sparse
    dump's problem again, so `unexercised` (counted apart), never `equivalent`."""
    from sqlgenie.eval.test_suite import suite_check

    d = _fixture_distinguisher(settings, suite_fixture, focus=True)
    v = suite_check(d, "SELECT title FROM paper WHERE title = 'x' AND title = 'y'",
                    ["SELECT title FROM paper WHERE year = 1 AND year = 2"])
    assert v["verdict"] == "unexercised", v
    assert "never exercised" in v["failures"][0]


def test_focused_databases_satisfy_a_conjunction_of_constants(settings, suite_fixture: Path):
    """Two answers differing only on rows that pass three constant filters at once: the
    focused seeds (columns mostly take the queries' constants) build such rows."""
    from sqlgenie.eval.test_suite import suite_check

    answer = "SELECT COUNT(*) > 0 FROM paper WHERE title = 'Word vectors' AND year = 2013 AND venueid = 3"
    gold = "SELECT COUNT(*) > 0 FROM paper WHERE title = 'Word vectors' AND year = 2013 AND venueid = 2"
    v = suite_check(_fixture_distinguisher(settings, suite_fixture, focus=True), answer, [gold])
    assert v["verdict"] == "distinguished", v
    assert v["evidence"][0]["seed"] % 3 == 2  # a focused seed


def test_string_constants_compare_without_case_as_the_exact_metric_does(settings, suite_fixture: Path):
    """`'ACL'` and `'acl'` are the same constant for the exact metric (MySQL collation);
    the suite folds both queries' literals, so only the structure is judged."""
    from sqlgenie.eval.test_suite import suite_check

    d = _fixture_distinguisher(settings, suite_fixture, focus=True)
    answer = ("SELECT paper.title FROM paper, venue WHERE paper.venueid = venue.venueid "
              "AND venue.venuename = 'acl' AND paper.year BETWEEN 2013 AND 2016")
    gold = ("SELECT paper.title FROM paper JOIN venue ON paper.venueid = venue.venueid "
            "WHERE venue.venuename = 'ACL' AND paper.year >= 2013 AND paper.year <= 2016")
    assert suite_check(d, answer, [gold])["verdict"] == "equivalent"
