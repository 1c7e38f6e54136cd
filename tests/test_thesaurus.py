"""Thesauri from Debian packages' files (WordNet, MyThes, Aiksaurus; small files in each format)
and the synonym variant of ``eval schema`` made with each of them."""

from __future__ import annotations

import struct
from dataclasses import dataclass

import pytest

from onboarding.thesaurus import Aiksaurus, MyThes, WordNet
from tests.wordnet_fixture import write_wordnet
from sqlgenie.catalog import Catalog, ColumnInfo, TableInfo
from sqlgenie.errors import InputError
from sqlgenie.inference.eval_variants import VARIANTS, synonym_question, synonym_questions

def _wordnet(tmp_path):
    return write_wordnet(tmp_path, [("singer", "vocalist", "vocalizer", "vocaliser"), ("salary", "wage", "pay")])


def _aiksaurus(tmp_path):
    """Words: 0 pupil, 1 scholar, 2 student, 3 trainee; meanings: 0 = [trainee/pupil] {pupil, scholar,
    student, trainee}, 1 = [scholar/pupil] {scholar}."""
    words = [("pupil", [0]), ("scholar", [1, 0]), ("student", [0]), ("trainee", [0])]
    blob = b""
    for w, ms in words:
        blob += w.encode() + b"\0" + b"".join(struct.pack(">H", m) for m in ms) + b"\xff\xff"
    (tmp_path / "words.dat").write_bytes(blob)
    meanings = [(3, 0, [0, 1, 2, 3]), (1, 0, [1])]
    blob = b""
    for t1, t2, ids in meanings:
        blob += struct.pack(">HH", t1, t2) + b"".join(struct.pack(">H", i) for i in ids) + b"\xff\xff"
    (tmp_path / "meanings.dat").write_bytes(blob)
    return Aiksaurus(tmp_path)


def _catalog() -> Catalog:
    cols = (ColumnInfo("student_id", "integer"), ColumnInfo("name", "text"), ColumnInfo("salary", "integer"))
    return Catalog((TableInfo("s", "student", cols, ("student_id",)),))


def test_aiksaurus_reads_meanings_title_words_first(tmp_path):
    aik = _aiksaurus(tmp_path)
    assert aik.has("student", "noun") and aik.has("student", "verb") and not aik.has("teacher", "noun")
    # the meaning's title words (trainee, pupil) first, then its other words in the file's order
    assert aik.synonyms("student") == ["trainee", "pupil", "scholar"]
    assert aik.synonyms("scholar") == ["pupil"]  # first listed meaning only


def test_mythes_keeps_synonyms_not_generic_or_related_terms(tmp_path):
    path = tmp_path / "th.dat"
    path.write_text("UTF-8\nsinger|2\n(noun)|vocalist|vocalizer|musician (generic term)\n"
                    "(noun)|Singer|inventor (generic term)\nfast|1\n(adj)|quick|speedy (similar term)\n", encoding="utf-8")
    th = MyThes(path)
    assert th.has("singer", "noun") and not th.has("singer", "adj") and th.has("fast", "adj")
    assert th.synonyms("singer") == ["vocalist", "vocalizer"]
    assert th.synonyms("fast", "adj") == ["quick"]


def test_missing_thesauri_are_clear_errors(tmp_path):
    for cls, package in ((MyThes, "mythes-en-us"), (Aiksaurus, "libaiksaurus-1.2-data"), (WordNet, "wordnet-base")):
        with pytest.raises(InputError) as exc:
            cls(tmp_path / "nowhere")
        assert package in exc.value.hint


def test_synonym_variant_with_another_thesaurus(tmp_path):
    aik = _aiksaurus(tmp_path)
    text, n = synonym_question("How many Students are there?", _catalog(), aik)
    assert text == "How many Trainees are there?" and n == 1
    assert "synonyms-aiksaurus" in VARIANTS and "synonyms-mythes" in VARIANTS

    @dataclass(frozen=True)
    class Q:
        question: str
        db_id: str

    out, changed, words = synonym_questions([Q("student names", "d")], {"d": _catalog()}, aik)
    assert out[0].question == "trainee names" and (changed, words) == (1, 1)


def test_wordnet_reader_parts_of_speech(tmp_path):
    wn = _wordnet(tmp_path)
    assert wn.has("salary", "noun") and not wn.has("salary", "adj") and not wn.has("salary", "verb")
    assert wn.synonyms("salary") == ["wage", "pay"] and wn.synonyms("salary", "adj") == []

