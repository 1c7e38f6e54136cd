"""Harder variants of a Spider-layout dataset for ``eval schema --variant``.

* ``synonyms`` - each question word that names a table or column of its database
  (same canonical word: ``singers`` ~ ``singer``) is replaced by a WordNet synonym
  (first listed sense, first other lemma that is not itself a schema word:
  ``singer`` -> ``vocalist``). The gold query is unchanged. WordNet is read from the
  database files of the Debian package ``wordnet-base`` (``/usr/share/wordnet``,
  or ``SQLGENIE_WORDNET_DIR``); nothing is downloaded at run time.
* ``synonyms-mythes`` / ``synonyms-aiksaurus`` - the same rules with another thesaurus
  (:mod:`onboarding.thesaurus`): MyThes ``mythes-en-us`` (generated from WordNet, so close to
  ``synonyms``) and Aiksaurus ``libaiksaurus-1.2-data`` (independent of WordNet, no parts of
  speech: its first listed meaning, title words first). Aiksaurus is the honest check of
  anything that itself uses WordNet (e.g. WordNet synonyms in the pruner:
  tried, not adopted; docs/benchmarks.md).
* ``schema-only`` - every database is loaded into its own schema ``<schema>_so`` and
  its rows removed before onboarding: no value cache, no profile statistics, only
  names and declared keys.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any, Iterable

from onboarding.names import canonical_word, split_identifier
from onboarding.thesaurus import Aiksaurus, MyThes, WordNet

__all__ = ["WordNet", "synonym_question", "schema_only_dataset", "VARIANTS", "SYNONYM_VARIANTS", "empty_schema"]

#: variant -> the thesaurus its synonyms come from (:mod:`onboarding.thesaurus`)
SYNONYM_VARIANTS = {"synonyms": WordNet, "synonyms-mythes": MyThes, "synonyms-aiksaurus": Aiksaurus}
VARIANTS = ("none", *SYNONYM_VARIANTS, "schema-only")
_WORD = re.compile(r"[A-Za-z]+")
_GENERIC = frozenset("id name number type code date year count total average".split())


def _schema_words(catalog: Any) -> set[str]:
    words: set[str] = set()
    for t in catalog.tables:
        words.update(canonical_word(w) for w in split_identifier(t.name))
        for c in t.columns:
            words.update(canonical_word(w) for w in split_identifier(c.name))
    return {w for w in words if len(w) >= 3}


def synonym_question(question: str, catalog: Any, wordnet: Any) -> tuple[str, int]:
    """The question with its schema words replaced by synonyms of a thesaurus (``wordnet``:
    any reader of :mod:`onboarding.thesaurus`; the same rules for each); how many were replaced."""
    schema = _schema_words(catalog)
    replaced = 0

    def sub(m: re.Match[str]) -> str:
        nonlocal replaced
        word = m.group(0)
        low = word.lower()
        canon = canonical_word(low)
        if canon not in schema or canon in _GENERIC or len(low) < 3:
            return word
        pos = next((p for p in ("noun", "verb", "adj") if _synonyms(wordnet, canon, p, senses=0)), None)
        if pos is not None:  # the word's first part of speech in WordNet only
            for syn in _synonyms(wordnet, canon, pos):
                if " " in syn or canonical_word(syn) in schema or canonical_word(syn) == canon or not syn.isalpha():
                    continue
                out = syn + ("s" if low != canon and low.endswith("s") and not syn.endswith("s") else "")
                replaced += 1
                return out.capitalize() if word[:1].isupper() else out
        return word

    return _WORD.sub(sub, question), replaced


def _synonyms(wordnet: Any, word: str, pos: str, senses: int = 1) -> tuple[str, ...]:
    """Synonyms (``senses=0``: a one-element tuple when the word is in WordNet with this
    part of speech, else empty)."""
    if senses == 0:
        return (word,) if wordnet.has(word, pos) else ()
    return tuple(wordnet.synonyms(word, pos, senses))


def synonym_questions(questions: Iterable[Any], catalogs: dict[str, Any], wordnet: Any = None
                      ) -> tuple[list[Any], int, int]:
    """Questions (dataclasses with ``question`` and ``db_id``) rewritten with synonyms;
    returns them, how many changed and how many words were replaced."""
    wordnet = wordnet or WordNet()
    out, changed, words = [], 0, 0
    for q in questions:
        text, n = synonym_question(q.question, catalogs[q.db_id], wordnet)
        out.append(replace(q, question=text))
        changed += n > 0
        words += n
    return out, changed, words


def schema_only_dataset(base: Any) -> Any:
    """The Spider-layout dataset ``base`` loaded into ``<schema>_so`` schemas (rows
    removed by :func:`empty_schema` before onboarding)."""
    from sqlgenie.eval.datasets import SpiderDataset

    class SchemaOnlyDataset(SpiderDataset):
        def schema_name(self, db_id: str) -> str:
            return super().schema_name(db_id) + "_so"

    return SchemaOnlyDataset(base.root)


def empty_schema(conn: Any, schema: str) -> bool:
    """Remove every row of ``schema``'s tables (then ANALYZE); True when it had rows."""
    from psycopg import sql as pgsql

    tables = [r[0] for r in conn.execute(
        "SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
        " WHERE n.nspname = %s AND c.relkind = 'r'", (schema,)).fetchall()]
    had = False
    for t in tables:
        q = pgsql.SQL("SELECT EXISTS (SELECT 1 FROM {}.{})").format(pgsql.Identifier(schema), pgsql.Identifier(t))
        had = had or bool(conn.execute(q).fetchone()[0])
    if had and tables:
        conn.execute(pgsql.SQL("TRUNCATE {} CASCADE").format(
            pgsql.SQL(", ").join(pgsql.SQL("{}.{}").format(pgsql.Identifier(schema), pgsql.Identifier(t))
                                 for t in tables)))
        conn.execute(pgsql.SQL("ANALYZE {}").format(
            pgsql.SQL(", ").join(pgsql.SQL("{}.{}").format(pgsql.Identifier(schema), pgsql.Identifier(t))
                                 for t in tables)))
    return had
