"""Eval variants for schema pruning: WordNet synonyms (parser on files in WordNet's
own format) and schema-only copies (rows removed on real PostgreSQL)."""

from __future__ import annotations

from dataclasses import dataclass

import psycopg
import pytest

from tests.wordnet_fixture import write_wordnet
from sqlgenie.catalog import Catalog, ColumnInfo, TableInfo
from sqlgenie.errors import InputError
from sqlgenie.inference.eval_variants import WordNet, empty_schema, synonym_question, synonym_questions

def _wordnet(tmp_path):
    return write_wordnet(tmp_path, [("singer", "vocalist", "vocalizer", "vocaliser"), ("stadium", "arena")])


def _catalog() -> Catalog:
    cols = (ColumnInfo("singer_id", "integer"), ColumnInfo("name", "text"), ColumnInfo("country", "text"))
    return Catalog((TableInfo("s", "singer", cols, ("singer_id",)),
                    TableInfo("s", "stadium", (ColumnInfo("stadium_id", "integer"), ColumnInfo("capacity", "integer")))))


def test_wordnet_synonyms_replace_schema_words(tmp_path):
    wn = _wordnet(tmp_path)
    assert wn.synonyms("singer") == ["vocalist", "vocalizer", "vocaliser"]
    assert wn.synonyms("unknown") == []
    text, n = synonym_question("How many Singers played in each stadium? Give the name.", _catalog(), wn)
    # plural and capital kept; "name" is a generic schema word and stays; "played" is no schema word
    assert text == "How many Vocalists played in each arena? Give the name." and n == 2

    @dataclass(frozen=True)
    class Q:
        question: str
        db_id: str

    out, changed, words = synonym_questions([Q("singers", "d"), Q("capacity", "d")], {"d": _catalog()}, wn)
    assert [q.question for q in out] == ["vocalists", "capacity"] and (changed, words) == (1, 1)


def test_wordnet_missing_is_a_clear_error(tmp_path):
    with pytest.raises(InputError) as exc:
        WordNet(tmp_path / "nowhere")
    assert "wordnet-base" in exc.value.hint


def test_empty_schema_removes_rows_once(fresh_db_url):
    with psycopg.connect(fresh_db_url, autocommit=True) as conn:
        conn.execute("CREATE SCHEMA so; CREATE TABLE so.a (id int PRIMARY KEY);"
                     " CREATE TABLE so.b (id int, a_id int REFERENCES so.a); INSERT INTO so.a VALUES (1), (2);"
                     " INSERT INTO so.b VALUES (1, 1)")
        assert empty_schema(conn, "so") is True
        assert conn.execute("SELECT (SELECT count(*) FROM so.a) + (SELECT count(*) FROM so.b)").fetchone()[0] == 0
        assert empty_schema(conn, "so") is False  # nothing left: no re-onboarding needed
        fk = conn.execute("SELECT count(*) FROM pg_constraint WHERE contype = 'f'"
                          " AND connamespace = 'so'::regnamespace").fetchone()[0]
        assert fk == 1  # declared keys stay
