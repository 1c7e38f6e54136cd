"""What a bank hit no longer repeats (issue 13, perf15): the candidates past the first verified one
that cannot join its tie are not verified (``pipeline.SKIP_UNTIED``), one example SQL is read once
(``adapt.example_sql_reading``: its slots and vocabulary, per text and catalog), and the retriever
remembers its masked questions while its vocabulary and values are the same objects. The answers,
and the refusals' reasons, are those of the code without them. Real PostgreSQL, real embedder."""

from __future__ import annotations

import pytest

from tests.bank_fixture import LIB_AUTHORS_AT, bank_asker, create_lib

PAPERS_AT = ("SELECT DISTINCT p.paperid FROM lib.paper AS p, lib.venue AS v "
             "WHERE v.venueid = p.venueid AND v.venuename = '{}'")
PAPERS_BY = ("SELECT DISTINCT w.paperid FROM lib.author AS a, lib.writes AS w "
             "WHERE a.authorid = w.authorid AND a.authorname = '{}'")
BANK = [
    ("authors who published at ACL", LIB_AUTHORS_AT.format("ACL")),
    ("authors who published at EMNLP", PAPERS_AT.format("EMNLP")),  # worded the same, another query: a tie
    ("which authors have papers at NAACL", LIB_AUTHORS_AT.format("NAACL")),
    ("papers by Dan Klein", PAPERS_BY.format("Dan Klein")),
    ("papers written by Ray Mooney", PAPERS_BY.format("Ray Mooney")),
]
QUESTIONS = ["papers by Percy Liang", "papers written by Mirella Lapata", "authors who published at CVPR",
             "which authors have papers at ACL", "who wrote papers at EMNLP"]


@pytest.fixture(scope="module")
def asker(module_db_url: str):
    with bank_asker(module_db_url, "lib", create_lib, BANK) as made:
        yield made


def _adapt(asker, question: str):
    """``Asker._adapt`` of ``question`` as an ask makes it: (sql, None) when answered (the asker reads
    no failures then), else (None, failures)."""
    from sqlgenie.inference.router import decide_route
    from sqlgenie.inference.verify import one_bank_stamp

    with one_bank_stamp():
        retrieval = asker._retrieve(question, "auto")
        decision = decide_route(retrieval.matches, asker.settings.match_threshold, "auto")
        adapted, _cand, failures = asker._adapt(retrieval, retrieval.matches, decision)
    if adapted is not None:
        return adapted.sql, None
    return None, list(failures)


def _counting(monkeypatch) -> list[int]:
    from sqlgenie.inference import pipeline

    calls = [0]
    real = pipeline.adapt_verified

    def counted(*args, **kwargs):
        calls[0] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(pipeline, "adapt_verified", counted)
    return calls


def test_untied_candidates_are_not_verified_and_nothing_changes(asker, monkeypatch) -> None:
    from sqlgenie.inference import pipeline

    calls = _counting(monkeypatch)
    skipped = [_adapt(asker, q) for q in QUESTIONS]
    with_skip = calls[0]
    monkeypatch.setattr(pipeline, "SKIP_UNTIED", False)
    calls[0] = 0
    verified = [_adapt(asker, q) for q in QUESTIONS]
    assert skipped == verified  # the same answers, the same reasons
    assert with_skip < calls[0]  # fewer candidates adapted
    assert skipped[0][0] is not None and "Percy Liang" in skipped[0][0]


def test_a_tie_refusal_lists_the_skipped_candidates_reasons(asker, monkeypatch) -> None:
    from sqlgenie.inference import pipeline

    question = "list authors who published at CVPR"  # nearest ACL and EMNLP (worded alike) tie with other queries
    sql, failures = _adapt(asker, question)
    assert sql is None and "match equally well" in failures[-1]
    monkeypatch.setattr(pipeline, "SKIP_UNTIED", False)
    assert _adapt(asker, question) == (sql, failures)
    assert any("example #" in f for f in failures)  # the papers-by examples' refusals, completed in place


def test_an_example_sql_is_read_per_text_and_catalog(asker) -> None:
    from sqlgenie.autocorrect.base import parse_sql
    from sqlgenie.inference.adapt import collect_slots, example_slots, example_sql_reading

    sql = PAPERS_BY.format("Dan Klein")
    tree, slots = example_slots(sql, asker.catalog)
    assert example_slots(sql, asker.catalog)[1] is slots  # remembered
    assert [s.column for s in slots] == [s.column for s in collect_slots(parse_sql(sql), asker.catalog)]
    assert slots[-1].column == "lib.author.authorname"
    bare = example_slots(sql, None)[1]  # another catalog (none): its own reading
    assert bare[-1].column != "lib.author.authorname"
    fresh = parse_sql(sql)
    moved = example_sql_reading(sql, asker.catalog).slots_on(fresh)
    assert [(s.index, s.text, s.context, s.column) for s in moved] == \
        [(s.index, s.text, s.context, s.column) for s in collect_slots(fresh, asker.catalog)]
    fresh_nodes = {id(n) for n in fresh.walk()}
    assert all(id(s.node) in fresh_nodes for s in moved)  # on the caller's tree, never the remembered one
    moved[-1].node.replace(parse_sql("SELECT 'Ray Mooney'").expressions[0])
    assert example_slots(sql, asker.catalog)[1][-1].text == "Dan Klein" and "Dan Klein" in tree.sql()


def test_the_readings_are_bounded(asker, monkeypatch) -> None:
    from sqlgenie.inference import adapt

    monkeypatch.setattr(adapt, "EXAMPLE_SQL_MEMO", 3)
    for name in ("A", "B", "C", "D", "E"):
        adapt.example_slots(PAPERS_BY.format(name), asker.catalog)
    assert len(adapt._example_sql_readings) <= 3


def test_a_new_value_lookup_or_vocabulary_is_masked_with(asker) -> None:
    retriever = asker.retriever
    question = "papers about zebrafish by Dan Klein"
    first = retriever.mask(question)
    assert retriever.mask(question) is first  # remembered
    values, vocabulary = retriever.values, retriever.vocabulary
    try:
        retriever.values = lambda text: "paper.title" if text.lower() == "zebrafish" else values(text) if values else None
        assert "zebrafish" not in retriever.mask(question).text.lower()  # masked with the new values
        assert "zebrafish" in first.text.lower()
    finally:
        retriever.values, retriever.vocabulary = values, vocabulary
    assert retriever.mask(question).text == first.text


def test_an_added_example_answers_the_next_ask(asker) -> None:
    from example_bank.service import import_question_pairs

    question = "how many papers were published at NAACL"
    before = asker.ask(question, route="match")
    assert before.status == "refused" or "count" not in (before.sql or "").lower()
    sql = ("SELECT count(DISTINCT p.paperid) FROM lib.paper AS p, lib.venue AS v "
           "WHERE v.venueid = p.venueid AND v.venuename = 'ACL'")
    report = import_question_pairs(asker.settings, asker.settings.database_url.get_secret_value(),
                                   [("how many papers were published at ACL", sql)])
    assert not report.rejected, report.rejected
    after = asker.ask(question, route="match")
    assert after.status == "ok", after.think and after.think.reason
    assert "count" in after.sql.lower() and "NAACL" in after.sql
