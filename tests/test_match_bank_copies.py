"""Copies and store round trips a bank hit no longer makes (issue 13, perf19): ``adapt_sql`` reads the
remembered parse of the example SQL (``adapt.example_sql_reading``: its tree, slots and alignment) until it
substitutes, and copies the parse only then, so a candidate refused before the substitution costs no copy;
``verify.constant_columns`` reads the remembered parse itself; the autocorrect chain rewrites the adapted tree
the pipeline hands over (``run_chain(owned=True)``) instead of a copy; a skeleton's group members come from the
bank held in the process (``BankSnapshot.skeleton_rows``) at this ask's bank version. What is rewritten and
handed out is a fresh copy, the remembered parse is left as parsed, another connection's insert is seen by the
next ask, and the answers are those of the long way. Real PostgreSQL, real embedder."""

from __future__ import annotations

import psycopg
import pytest
import sqlglot

from tests.bank_fixture import bank_asker, create_lib

PAPERS_BY = ("SELECT DISTINCT w.paperid FROM lib.author AS a, lib.writes AS w "
             "WHERE a.authorid = w.authorid AND a.authorname = '{}'")
BANK = [
    ("papers by Dan Klein", PAPERS_BY.format("Dan Klein")),
    ("papers written by Ray Mooney", PAPERS_BY.format("Ray Mooney")),
]


@pytest.fixture(scope="module")
def asker(module_db_url: str):
    with bank_asker(module_db_url, "lib", create_lib, BANK) as made:
        yield made


def _adapt(asker, example_question: str, example_sql: str, question: str):
    from sqlgenie.inference.adapt import adapt_sql

    ex, new = asker.retriever.mask(example_question), asker.retriever.mask(question)
    return adapt_sql(example_sql, ex.spans, new.spans, catalog=asker.catalog, value_columns=asker.value_columns,
                     example_masked=ex.text, new_masked=new.text, exact=ex.text == new.text,
                     schema_words=asker._schema_word)


def _counted_copies(monkeypatch) -> list[str]:
    from sqlgenie.inference import adapt

    copies: list[str] = []
    real = adapt.parse_sql

    def counted(sql: str):
        copies.append(sql)
        return real(sql)

    monkeypatch.setattr(adapt, "parse_sql", counted)
    return copies


def test_an_adaptation_rewrites_a_fresh_copy_and_leaves_the_remembered_parse(asker, monkeypatch) -> None:
    from sqlgenie.autocorrect.base import parsed_read_only
    from sqlgenie.inference.adapt import example_sql_reading

    sql = PAPERS_BY.format("Dan Klein")
    copies = _counted_copies(monkeypatch)
    got = _adapt(asker, "papers by Dan Klein", sql, "papers by Ray Mooney")
    assert got.ok and "'Ray Mooney'" in got.sql and got.substitutions, got.unaccounted
    assert copies == [sql]  # one copy, made to substitute
    remembered = parsed_read_only(sql)
    assert remembered == sqlglot.parse_one(sql, read="postgres")  # left as parsed: 'Dan Klein' still there
    assert "'Dan Klein'" in example_sql_reading(sql, asker.catalog).tree.sql(dialect="postgres")
    assert not {id(n) for n in got.tree.walk()} & {id(n) for n in remembered.walk()}  # no node shared
    again = _adapt(asker, "papers by Dan Klein", sql, "papers by Percy Liang")  # the next ask reads it afresh
    assert again.ok and "'Percy Liang'" in again.sql and "Ray Mooney" not in again.sql


def test_a_candidate_refused_before_the_substitution_costs_no_copy(asker, monkeypatch) -> None:
    sql = PAPERS_BY.format("Dan Klein")
    copies = _counted_copies(monkeypatch)
    got = _adapt(asker, "papers by Dan Klein", sql, "papers by Ray Mooney and Percy Liang")
    assert not got.ok and any("value" in r for r in got.unaccounted), got.unaccounted
    assert copies == []


def test_an_adaptation_without_a_substitution_hands_out_its_own_tree(asker) -> None:
    from sqlgenie.autocorrect.base import parsed_read_only

    sql = PAPERS_BY.format("Dan Klein")
    got = _adapt(asker, "papers by Dan Klein", sql, "papers by Dan Klein")
    assert got.ok and got.sql == sql and not got.substitutions
    assert got.tree is not None and got.tree is not parsed_read_only(sql) and got.tree == parsed_read_only(sql)
    got.tree.set("distinct", None)  # a caller rewrites what it was handed
    assert "DISTINCT" in parsed_read_only(sql).sql()


def test_the_constants_of_a_sql_are_read_from_the_remembered_parse_unchanged(asker) -> None:
    from sqlgenie.autocorrect.base import parse_sql, parsed_read_only
    from sqlgenie.inference.verify import constant_columns

    sql = PAPERS_BY.format("Mirella Lapata")
    constant_columns.cache_clear()
    assert constant_columns(sql) == (("mirella lapata", "authorname"),)
    assert parsed_read_only(sql) == sqlglot.parse_one(sql, read="postgres")
    constant_columns.cache_clear()
    assert constant_columns.__wrapped__(sql) == constant_columns(sql)
    assert parse_sql(sql) == parsed_read_only(sql)


def test_the_chain_rewrites_a_tree_handed_over_and_copies_one_lent(asker) -> None:
    from sqlgenie.autocorrect import AutocorrectSettings, run_chain
    from sqlgenie.autocorrect.base import parse_sql

    sql = PAPERS_BY.format("dan klein").replace("SELECT DISTINCT w.paperid", "SELECT DISTINCT w.paperID")
    settings = AutocorrectSettings()
    lent = parse_sql(sql)
    kept = lent.copy()
    got_lent = run_chain(lent, asker.catalog, asker.matcher, settings, question="papers by dan klein")
    assert lent == kept and got_lent.ast is not lent  # a tree lent to the chain is left as it was
    handed = parse_sql(sql)
    got_owned = run_chain(handed, asker.catalog, asker.matcher, settings, question="papers by dan klein", owned=True)
    assert got_owned.ast is handed  # rewritten in place, not copied
    assert got_owned.sql == got_lent.sql and got_owned.ast == got_lent.ast
    assert [c.to_dict() for c in got_owned.changes] == [c.to_dict() for c in got_lent.changes]


def _store_members(asker, skeleton: str) -> list:
    from sqlgenie.inference import groups

    got = groups.Groups(asker.retriever, None, asker.catalog)
    held, groups.HELD_MEMBERS = groups.HELD_MEMBERS, False
    try:
        return got._skeleton_members(skeleton)
    finally:
        groups.HELD_MEMBERS = held


def _held_members(asker, skeleton: str) -> list:
    from sqlgenie.inference import groups
    from sqlgenie.inference.verify import one_bank_stamp

    with one_bank_stamp():  # inside an ask: the bank held in the process
        return groups.Groups(asker.retriever, None, asker.catalog)._skeleton_members(skeleton)


def _members(found: list) -> list:
    return [(m.example.id, m.example.question, m.example.sql, m.example.spans, m.key) for m in found]


def test_a_skeletons_members_from_the_held_bank_equal_the_stores(asker, monkeypatch) -> None:
    from sqlgenie.inference import groups

    skeletons = {row[0] for row in asker.retriever.store.execute(
        "SELECT DISTINCT skeleton FROM sqlgenie.bank_examples WHERE status = 'verified'").fetchall()}
    assert skeletons
    for skeleton in sorted(skeletons) + ["no such skeleton"]:
        assert _members(_held_members(asker, skeleton)) == _members(_store_members(asker, skeleton)), skeleton
    monkeypatch.setattr(groups, "MAX_MEMBERS", 1)  # the store's LIMIT, by id
    for skeleton in sorted(skeletons):
        assert _members(_held_members(asker, skeleton)) == _members(_store_members(asker, skeleton)), skeleton
    held = _held_members(asker, sorted(skeletons)[0])
    held[0].example.spans.clear()  # what is handed out is the caller's
    assert _members(_held_members(asker, sorted(skeletons)[0])) == _members(_store_members(asker, sorted(skeletons)[0]))


def test_a_member_another_connection_adds_is_seen_by_the_next_ask(asker, monkeypatch) -> None:
    from example_bank.service import import_question_pairs

    skeleton = asker.retriever.store.execute(
        "SELECT skeleton FROM sqlgenie.bank_examples WHERE question = 'papers by Dan Klein'").fetchone()[0]
    before = [m.example.question for m in _held_members(asker, skeleton)]
    added = "which papers did Percy Liang write"
    assert added not in before
    url = asker.settings.database_url.get_secret_value()
    report = import_question_pairs(asker.settings, url, [(added, PAPERS_BY.format("Percy Liang"))])
    assert not report.rejected, report.rejected
    try:
        assert added in [m.example.question for m in _held_members(asker, skeleton)]
    finally:
        with psycopg.connect(url, autocommit=True) as other:
            other.execute("DELETE FROM sqlgenie.bank_examples WHERE question = %s", (added,))
    assert [m.example.question for m in _held_members(asker, skeleton)] == before


def test_a_hit_asks_the_store_for_no_skeleton(asker, monkeypatch) -> None:
    from sqlgenie.inference import groups

    asked: list[str] = []
    store = asker.retriever.store
    real = type(store).execute

    def counted(self, query, *args, **kwargs):
        if self is store and "md5(skeleton)" in str(query):
            asked.append(str(query))
        return real(self, query, *args, **kwargs)

    monkeypatch.setattr(type(store), "execute", counted)
    monkeypatch.setattr(asker.retriever, "_match_groups", None, raising=False)  # groups read afresh
    got = asker.ask("papers by Percy Liang", execute=False)
    assert got.status == "ok" and "'Percy Liang'" in got.sql
    assert asked == []
    monkeypatch.setattr(groups, "HELD_MEMBERS", False)  # the long way asks the store
    from sqlgenie.inference import verify

    verify.constant_columns.cache_clear()
    monkeypatch.setattr(asker.retriever, "_match_groups", None, raising=False)
    again = asker.ask("papers by Mirella Lapata", execute=False)
    assert again.sql == got.sql.replace("Percy Liang", "Mirella Lapata") and asked
