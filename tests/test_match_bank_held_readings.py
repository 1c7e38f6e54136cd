"""What a bank hit reads once per bank version (perf18; issue 13, a bank hit in a warm process). Real PostgreSQL,
real embedder: a held row's decoded spans, the held look-ups' literal counts and the rows they narrow to are the
snapshot's own (one bank version), so a row another connection adds or removes is seen by the next ask; what is
handed out is fresh; the shortcuts return what the long way returns."""

from __future__ import annotations

import psycopg
import pytest

from tests.bank_fixture import LIB_AUTHORS_AT, LIB_TOPICS_AT, bank_asker, lib_schema

BANK = [
    ("authors who published at ACL", LIB_AUTHORS_AT.format("ACL")),
    ("who published papers at EMNLP", LIB_AUTHORS_AT.format("EMNLP")),
    ("authors who published at CVPR", LIB_AUTHORS_AT.format("CVPR")),
    ("which authors have papers at NAACL", LIB_AUTHORS_AT.format("NAACL")),
    ("topics of papers at CVPR", LIB_TOPICS_AT.format("CVPR")),
    ("what keyphrases do papers at ACL use", LIB_TOPICS_AT.format("ACL")),
    ("papers by Dan Klein",
     "SELECT DISTINCT w.paperid FROM lib.author AS a, lib.writes AS w "
     "WHERE a.authorid = w.authorid AND a.authorname = 'Dan Klein'"),
]

ADDED = ("which papers about robotics were written at ACL",
         "SELECT DISTINCT p.paperid FROM lib.keyphrase AS k, lib.paper AS p, lib.paperkeyphrase AS pk,"
         " lib.venue AS v WHERE k.keyphraseid = pk.keyphraseid AND pk.paperid = p.paperid"
         " AND p.venueid = v.venueid AND k.keyphrasename = 'robotics' AND v.venuename = 'ACL'")

#: Two required literals each: the look-up narrows by the rarer one (``written`` / ``papers``, not ``[MASK]``).
WRITTEN_AT = ("masked_question, mask_spans, sql", "masked_question ~* %s", r"\mwritten\s+at\s+\[MASK\]")
PAPERS_AT = ("masked_question, mask_spans, sql", "masked_question ~* %s", r"\mpapers\s+at\s+\[MASK\]")


@pytest.fixture(scope="module")
def asker(module_db_url: str):
    create = lib_schema(["Dan Klein", "Ray Mooney", "Percy Liang"], ["ACL", "EMNLP", "NAACL", "CVPR"],
                        ["parsing", "vision", "robotics"])
    with bank_asker(module_db_url, "lib", create, BANK) as made:
        yield made


def _other_connection(asker) -> psycopg.Connection:
    return psycopg.connect(asker.settings.database_url.get_secret_value(), autocommit=True)


def _add_from_another_store(asker, question: str, sql: str) -> None:
    from example_bank.service import import_question_pairs

    report = import_question_pairs(asker.settings, asker.settings.database_url.get_secret_value(), [(question, sql)])
    assert not report.rejected, report.rejected


def _held_rows(asker, lookup: tuple[str, str, str], limit: int = 50) -> list[tuple]:
    from sqlgenie.inference.verify import one_bank_stamp, verified_rows

    r = asker.retriever
    columns, condition, pattern = lookup
    with one_bank_stamp():  # inside an ask: answered from the snapshot
        return verified_rows(r.store, r.allowed, columns, condition, [pattern], limit)


def _store_rows(asker, lookup: tuple[str, str, str], limit: int = 50) -> list[tuple]:
    from sqlgenie.inference.verify import verified_rows

    r = asker.retriever
    columns, condition, pattern = lookup
    return verified_rows(r.store, r.allowed, columns, condition, [pattern], limit)  # outside an ask: the store


def _nearest_examples(asker, question: str, k: int = 20) -> list:
    from sqlgenie.inference.verify import one_bank_stamp

    with one_bank_stamp():
        return [m.example for m in asker.retriever.retrieve(question, k=k, threshold=0.0).matches]


def _store_spans(asker) -> dict[int, list]:
    with _other_connection(asker) as conn:
        return {i: spans for i, spans in conn.execute("SELECT id, mask_spans FROM sqlgenie.bank_examples")}


def test_a_held_lookup_sees_another_stores_insert_and_delete(asker) -> None:
    assert _held_rows(asker, WRITTEN_AT) == [] == _store_rows(asker, WRITTEN_AT)  # counts and spans held: version 1
    before = _held_rows(asker, PAPERS_AT)
    _add_from_another_store(asker, *ADDED)  # another connection, committed: a new bank version
    try:
        added = _held_rows(asker, WRITTEN_AT)
        assert [row[2] for row in added] == [ADDED[1]]
        assert added == _store_rows(asker, WRITTEN_AT)
        assert _held_rows(asker, PAPERS_AT) == _store_rows(asker, PAPERS_AT)
    finally:
        with _other_connection(asker) as other:
            other.execute("DELETE FROM sqlgenie.bank_examples WHERE question = %s", (ADDED[0],))
    assert _held_rows(asker, WRITTEN_AT) == []
    assert _held_rows(asker, PAPERS_AT) == before == _store_rows(asker, PAPERS_AT)


def test_held_spans_follow_the_rows_after_a_delete(asker) -> None:
    """Rows are held by position: a delete moves every later row up one place; spans decoded for the old
    version must not be read for the new one (fails with the decoded spans kept across versions by place)."""
    question = "papers by Ray Mooney"
    first = _nearest_examples(asker, question)
    assert all(e.spans == _store_spans(asker)[e.id] for e in first)
    gone = min(e.id for e in first)
    with _other_connection(asker) as other:
        row = other.execute("SELECT question, sql FROM sqlgenie.bank_examples WHERE id = %s", (gone,)).fetchone()
        other.execute("DELETE FROM sqlgenie.bank_examples WHERE id = %s", (gone,))
    try:
        after = _nearest_examples(asker, question)
        assert gone not in [e.id for e in after]
        stored = _store_spans(asker)
        assert all(e.spans == stored[e.id] for e in after)
        assert len({str(e.spans) for e in after}) > 1  # the check can tell rows apart
    finally:
        _add_from_another_store(asker, row[0], row[1])


def test_what_is_handed_out_is_fresh(asker) -> None:
    question = "papers by Percy Liang"
    first = _nearest_examples(asker, question)
    with_spans = [e for e in first if e.spans]
    assert with_spans
    for e in with_spans:
        e.spans[0]["text"] = "changed by a caller"
        e.spans.append({"start": 0, "end": 0, "text": "", "kind": "text"})
    again = {e.id: e.spans for e in _nearest_examples(asker, question)}
    stored = _store_spans(asker)
    assert all(again[e.id] == stored[e.id] for e in with_spans)
    rows = _held_rows(asker, PAPERS_AT)
    rows[0][1][0]["text"] = "changed by a caller"
    assert _held_rows(asker, PAPERS_AT) == _store_rows(asker, PAPERS_AT)


def test_the_rarest_required_literal_narrows_to_the_same_rows(asker, monkeypatch) -> None:
    from sqlgenie.inference import bank_snapshot
    from sqlgenie.inference.bank_snapshot import required_literal, required_literals, snapshot_for
    from sqlgenie.inference.verify import one_bank_stamp

    assert required_literals(r"\mpapers\s+at\s+\[MASK\]") == ("papers", "at", "[MASK]")
    assert required_literal(r"\mpapers\s+at\s+\[MASK\]") == "papers"
    assert required_literals(r"\mtopic|keyphrase") == ()
    r = asker.retriever
    with one_bank_stamp():
        snapshot = snapshot_for(r.store, r.allowed)
        assert snapshot._rarest("masked_question", ("[MASK]", "papers"), True) == "papers"
        lookups = [WRITTEN_AT, PAPERS_AT, ("question, sql", "question ~* %s", r"\mauthors\s+who\M"),
                   ("sql, mask_spans", "masked_question ~* %s", r"\[MASK\]\s+use\M")]
        for columns, condition, pattern in lookups:
            for limit in (1, 2, 50):
                on = snapshot.regex_rows(columns, condition, [pattern], limit)
                monkeypatch.setattr(bank_snapshot, "PREFILTER", False)
                off = snapshot.regex_rows(columns, condition, [pattern], limit)
                monkeypatch.setattr(bank_snapshot, "PREFILTER", True)
                assert on == off, (pattern, limit)


def test_join_edges_read_once_per_select_give_the_same_sides(asker) -> None:
    from sqlglot import exp

    from sqlgenie.autocorrect.base import parse_sql
    from sqlgenie.inference.sides import slot_sides

    sqls = [sql for _, sql in BANK] + [ADDED[1]]
    for sql in sqls:
        tree = parse_sql(sql)
        held: dict = {}
        literals = list(tree.find_all(exp.Literal))
        assert literals
        for node in literals:
            assert slot_sides(node, held) == slot_sides(node), (sql, node.sql())
        assert held


def test_normalized_text_without_copies_equals_the_copying_path() -> None:
    from example_bank.skeleton import _normalized_tree, _render, normalize_sql, parse_sql, sql_skeleton

    sqls = [sql for _, sql in BANK] + [ADDED[1], "select COUNT(*) from Lib.Paper as P where P.Year > 2010",
                                       'SELECT "Title" FROM lib.paper WHERE venueid IN (1, 2) ORDER BY 1']
    for sql in sqls:
        assert normalize_sql(sql) == _render(_normalized_tree(parse_sql(sql)))
        tree = parse_sql(sql)
        before = tree.sql()
        sql_skeleton(tree)
        assert tree.sql() == before  # the caller's tree is not changed


def test_a_questions_roles_are_read_once_per_ask_and_afresh_by_the_next(asker) -> None:
    """Inside one ask the rule modules share one reading of a question; the next ask reads it again (a schema
    word the asker learns between asks is seen), and outside an ask every call reads afresh."""
    from sqlgenie.inference.verify import one_bank_stamp, question_roles

    text, word = "which authors published at [MASK]", asker._schema_word
    with one_bank_stamp():
        first = question_roles(text, None, word)
        assert question_roles(text, None, word) is first
        assert question_roles(text, ["text"], word) is not first  # another key
    with one_bank_stamp():
        again = question_roles(text, None, word)
    assert again is not first and again == first
    assert question_roles(text, None, word) is not question_roles(text, None, word)
    learned = lambda w: w in ("author", "authors", "venue")  # noqa: E731
    with one_bank_stamp():
        assert question_roles(text, None, learned) == question_roles(text, None, learned)
