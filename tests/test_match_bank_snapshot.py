"""The bank's version kept by a trigger (migration 0011) and the verified bank held in the process
(:mod:`sqlgenie.inference.bank_snapshot`; issue 13, a bank hit in a warm process). Real PostgreSQL,
real embedder: the snapshot's nearest examples and regular-expression rows equal the store's, and an
example another connection adds or removes is seen by the next ask."""

from __future__ import annotations

import psycopg
import pytest

from tests.bank_fixture import LIB_AUTHORS_AT, LIB_TOPICS_AT, bank_asker, lib_schema

BANK = [
    ("authors who published at ACL", LIB_AUTHORS_AT.format("ACL")),
    ("who published papers at EMNLP", LIB_AUTHORS_AT.format("EMNLP")),
    ("authors who published at CVPR", LIB_AUTHORS_AT.format("CVPR")),
    ("which authors have papers at NAACL", LIB_AUTHORS_AT.format("NAACL")),
    ("authors with a paper in ACL", LIB_AUTHORS_AT.format("ACL")),
    ("topics of papers at CVPR", LIB_TOPICS_AT.format("CVPR")),
    ("what keyphrases do papers at ACL use", LIB_TOPICS_AT.format("ACL")),
    ("papers by Dan Klein",
     "SELECT DISTINCT w.paperid FROM lib.author AS a, lib.writes AS w "
     "WHERE a.authorid = w.authorid AND a.authorname = 'Dan Klein'"),
]


@pytest.fixture(scope="module")
def asker(module_db_url: str):
    create = lib_schema(["Dan Klein", "Ray Mooney", "Percy Liang"], ["ACL", "EMNLP", "NAACL", "CVPR"],
                        ["parsing", "vision", "translation"])
    with bank_asker(module_db_url, "lib", create, BANK) as made:
        yield made


def _version(conn) -> int:
    return conn.execute("SELECT version FROM sqlgenie.bank_version").fetchone()[0]


def _other_connection(asker) -> psycopg.Connection:
    return psycopg.connect(asker.settings.database_url.get_secret_value(), autocommit=True)


def _add_from_another_store(asker, question: str, sql: str) -> None:
    from example_bank.service import import_question_pairs

    report = import_question_pairs(asker.settings, asker.settings.database_url.get_secret_value(), [(question, sql)])
    assert not report.rejected, report.rejected


def test_the_trigger_counts_every_write_of_the_bank_when_it_commits(asker) -> None:
    with _other_connection(asker) as writer, _other_connection(asker) as reader:
        start = _version(reader)
        with writer.transaction():
            writer.execute("UPDATE sqlgenie.bank_examples SET details = details WHERE id = (SELECT min(id)"
                           " FROM sqlgenie.bank_examples)")
            assert _version(writer) == start + 1
            assert _version(reader) == start  # not before the writer commits
        assert _version(reader) == start + 1
        row = writer.execute("SELECT question, masked_question, masked_key, sql, sql_normalized, skeleton, tables,"
                             " embedding FROM sqlgenie.bank_examples ORDER BY id LIMIT 1").fetchone()
        new_id = writer.execute(
            "INSERT INTO sqlgenie.bank_examples (question, masked_question, masked_key, sql, sql_normalized,"
            " skeleton, tables, embedding) VALUES (%s, %s, %s || ' copy', %s, %s, %s, %s, %s) RETURNING id",
            row).fetchone()[0]
        assert _version(reader) == start + 2
        writer.execute("DELETE FROM sqlgenie.bank_examples WHERE id = %s", (new_id,))
        assert _version(reader) == start + 3


def test_the_stamp_is_the_version_row(asker) -> None:
    from sqlgenie.inference.verify import bank_stamp

    with _other_connection(asker) as conn:
        assert bank_stamp(asker.retriever)[1] == _version(conn)


def _store_nearest(asker, question: str, k: int):
    """The first ``k`` of pgvector's whole ranking (exact scan, no index), ties in score by id as the
    snapshot orders them (which of several equal-score examples the store's ``LIMIT`` keeps is its own)."""
    r = asker.retriever
    vector = r.encode([r.mask(question).text])[0]
    hits = r.bank.nearest(vector, k=1000, allowed_tables=r.allowed, statuses=("verified",), exact=True)
    return vector, sorted(hits, key=lambda h: (-round(h.score, 6), h.example.id))[:k]


QUESTIONS = ["authors who published at NAACL", "topics of papers at EMNLP", "papers by Ray Mooney",
             "who wrote papers in CVPR", "how many papers are there"]


def test_the_snapshots_nearest_examples_equal_pgvectors(asker) -> None:
    from sqlgenie.inference.bank_snapshot import snapshot_for
    from sqlgenie.inference.verify import one_bank_stamp

    r = asker.retriever
    for question in QUESTIONS:
        for k in (1, 3, 10):
            vector, store = _store_nearest(asker, question, k)
            with one_bank_stamp():
                held = snapshot_for(r.store, r.allowed).nearest(vector, k)
            assert [h.example.id for h in held] == [h.example.id for h in store], (question, k)
            assert [h.score for h in held] == pytest.approx([h.score for h in store], abs=1e-6)
            assert [h.example for h in held] == [h.example for h in store]


def test_equal_scores_come_back_by_id(asker) -> None:
    from sqlgenie.inference.bank_snapshot import snapshot_for
    from sqlgenie.inference.verify import one_bank_stamp

    r = asker.retriever
    with one_bank_stamp():
        snapshot = snapshot_for(r.store, r.allowed)
        twin = snapshot.matrix[0].astype("float32")
        hits = snapshot.nearest(twin, len(snapshot.ids))
    scores = [h.score for h in hits]
    assert scores == sorted(scores, reverse=True)
    for a, b in zip(hits, hits[1:]):
        assert a.score > b.score or a.example.id < b.example.id


PATTERNS = [
    ("masked_question, mask_spans, sql", "masked_question ~* %s", r"\mpapers\s+((the|a|an)\s+)?\[MASK\]"),
    ("masked_question, sql", "masked_question ~* %s", r"\m(what|which)\M.*\mauthor"),
    ("id, mask_spans, sql", "masked_question ~* %s", r"\mAUTHORS\M"),
    ("question, sql", "question ~ %s", r"\mpublished\M"),
    ("question, sql", "question ~ %s", r"\mPublished\M"),
    ("question, sql", "question ~* %s", r"\mdan\s+klein\M"),
    ("sql, mask_spans", "masked_question ~ %s", r"\mat\M"),
    ("masked_question, tables", "masked_question ~* %s", r"\m(topic|keyphrase)"),
    ("sql, mask_spans", "masked_question ~* %s", r"\[MASK\]\s+use\M"),
    ("question, sql", "question ~* %s", r"\mpub"),
]


def test_the_snapshots_regex_rows_equal_the_stores(asker) -> None:
    from sqlgenie.inference import bank_snapshot
    from sqlgenie.inference.verify import one_bank_stamp, verified_rows

    r = asker.retriever
    for columns, condition, pattern in PATTERNS:
        for limit in (1, 2, 50):
            store = verified_rows(r.store, r.allowed, columns, condition, [pattern], limit)  # outside an ask
            with one_bank_stamp():
                held = bank_snapshot.snapshot_for(r.store, r.allowed).regex_rows(columns, condition, [pattern], limit)
                through = verified_rows(r.store, r.allowed, columns, condition, [pattern], limit)
            assert held is not None, pattern
            assert held == store and through == store, (pattern, limit)
    assert any(verified_rows(r.store, r.allowed, c, cond, [p], 50) for c, cond, p in PATTERNS)


def test_a_required_literal_narrows_the_rows_and_changes_no_answer(asker, monkeypatch) -> None:
    from sqlgenie.inference import bank_snapshot
    from sqlgenie.inference.bank_snapshot import required_literal
    from sqlgenie.inference.verify import one_bank_stamp

    assert required_literal(r"\mdan\s+klein\M") == "klein"
    assert required_literal(r"\m(what|which)\M.*\mauthor") == "author"
    assert required_literal(r"\[MASK\]\s+use\M") == "[MASK]"
    assert required_literal(r"\mpapers?\M") == "paper"  # the "s" may be absent
    assert required_literal(r"\m(topic|keyphrase)") is None  # only a group: nothing required
    assert required_literal(r"\mtopic|keyphrase") is None  # alternation at the top
    r = asker.retriever
    with one_bank_stamp():
        snapshot = bank_snapshot.snapshot_for(r.store, r.allowed)
        narrowed = list(snapshot._rows_saying("question", "klein", True))
        assert narrowed and len(narrowed) < len(snapshot.rows)
        assert all("klein" in snapshot.rows[i][1].lower() for i in narrowed)
        for columns, condition, pattern in PATTERNS:
            on = snapshot.regex_rows(columns, condition, [pattern], 50)
            monkeypatch.setattr(bank_snapshot, "PREFILTER", False)
            off = snapshot.regex_rows(columns, condition, [pattern], 50)
            monkeypatch.setattr(bank_snapshot, "PREFILTER", True)
            assert on == off, pattern


def test_syntax_outside_the_subset_goes_to_the_store() -> None:
    from sqlgenie.inference.bank_snapshot import python_regex

    assert python_regex(r"\mauthors\M", True) is not None
    for pattern in (r"\yauthors\y", r"\d+", "[a-z]+", "a{2}", "^authors", "authors$", "\\"):
        assert python_regex(pattern, True) is None, pattern


def test_another_stores_insert_and_delete_are_seen_by_the_next_ask(asker) -> None:
    from sqlgenie.inference.verify import one_bank_stamp

    question = "papers about robotics written at ACL"
    added = "which papers about robotics were written at ACL"
    sql = ("SELECT DISTINCT p.paperid FROM lib.keyphrase AS k, lib.paper AS p, lib.paperkeyphrase AS pk,"
           " lib.venue AS v WHERE k.keyphraseid = pk.keyphraseid AND pk.paperid = p.paperid"
           " AND p.venueid = v.venueid AND k.keyphrasename = 'robotics' AND v.venuename = 'ACL'")

    def nearest_questions() -> list[str]:
        with one_bank_stamp():
            return [m.example.question for m in asker.retriever.retrieve(question, k=10, threshold=0.0).matches]

    assert added not in nearest_questions()  # the snapshot is loaded and held
    _add_from_another_store(asker, added, sql)  # another connection, committed
    assert added in nearest_questions()
    with _other_connection(asker) as other:
        other.execute("DELETE FROM sqlgenie.bank_examples WHERE question = %s", (added,))
    assert added not in nearest_questions()


def test_the_asker_answers_from_the_snapshot(asker, monkeypatch) -> None:
    from example_bank.store import BankStore

    def no_store(*args, **kwargs):
        raise AssertionError("the bank was asked of the store")

    monkeypatch.setattr(BankStore, "nearest", no_store)
    monkeypatch.setattr(BankStore, "exact_matches", no_store)
    assert asker.ask("which authors published in EMNLP", execute=False).examples
    assert asker.ask("authors who published at ACL", execute=False).examples[0]["similarity"] == 1.0


KEYS = ["authors who published at [MASK]", "who published papers at [MASK]", "papers by [MASK]", "no such key", ""]


def test_the_snapshots_exact_matches_equal_the_stores(asker) -> None:
    from sqlgenie.inference.bank_snapshot import snapshot_for
    from sqlgenie.inference.verify import one_bank_stamp

    r = asker.retriever
    with _other_connection(asker) as other:  # an order the use counts decide
        other.execute("UPDATE sqlgenie.bank_examples SET use_count = 3 WHERE question = 'authors who published at CVPR'")
    keys = KEYS + [r.mask(q).key for q, _ in BANK]
    for key in keys:
        for limit in (1, 5):
            store = r.bank.exact_matches(key, allowed_tables=r.allowed, limit=limit)
            with one_bank_stamp():
                held = snapshot_for(r.store, r.allowed).exact_matches(key, limit)
            assert held == store, key
    twins = r.bank.exact_matches(r.mask("authors who published at ACL").key, allowed_tables=r.allowed, limit=5)
    assert [e.question for e in twins] == ["authors who published at CVPR", "authors who published at ACL"]
