"""Thesaurus synonyms of a column's name, stored by onboarding after the dictionary ones.

:func:`onboarding.names.synonyms_for` only respells a name (``qty`` -> ``quantity``): a
question that says *vocalist* for ``singer.name`` or *wage* for ``salary`` matches no
catalog word, and only the embedding signals can find the column. Here each content word of
the column's name (for a bare ``name`` / ``id`` / ``code`` / ``description`` column, also
its table's words: ``singer.name`` -> ``vocalist name``) is replaced by the lemmas of its
first WordNet sense (nouns, else adjectives), a few per column. They join the column's
synonyms, so the pruner's lexical signals, its embedded column text and the pruned prompt
see them like any other synonym.

WordNet is read from the Debian package ``wordnet-base`` (:class:`onboarding.thesaurus.WordNet`).
Without its files onboarding works as before: no thesaurus synonyms (``SQLGENIE_THESAURUS=off``
turns them off on purpose).
"""

from __future__ import annotations

import os
from functools import lru_cache
from typing import Any

from onboarding.names import ID_TOKENS, canonical_word, singular, split_identifier
from sqlgenie.errors import InputError

__all__ = ["thesaurus_synonyms", "default_thesaurus", "MAX_PER_COLUMN", "MAX_PER_WORD"]

#: Thesaurus phrases added per column, and lemmas taken from one word's first sense.
MAX_PER_COLUMN = 4
MAX_PER_WORD = 2
#: Parts of speech tried, in order (verbs are left out: column names name things and properties).
PARTS_OF_SPEECH = ("noun", "adj")
#: Words whose thesaurus synonyms say nothing about a column, left as they are.
_SKIP = frozenset("id name number type code date year count total average description desc value".split())
_BARE = frozenset({"id", "name", "code", "description", "desc"})


@lru_cache(maxsize=1)
def default_thesaurus() -> Any | None:
    """WordNet when its files are installed (and ``SQLGENIE_THESAURUS`` is not ``off``), else None."""
    if os.environ.get("SQLGENIE_THESAURUS", "").lower() in ("off", "0", "no", "none"):
        return None
    from onboarding.thesaurus import WordNet

    try:
        return WordNet()
    except InputError:
        return None


def _word_synonyms(thesaurus: Any, word: str) -> list[str]:
    for pos in PARTS_OF_SPEECH:
        if thesaurus.has(word, pos):
            out = []
            for s in thesaurus.synonyms(word, pos, 1):
                s = s.replace("-", " ")
                if not all(p.isalpha() for p in s.split()) or canonical_word(s) == word or len(s) < 3:
                    continue
                out.append(s)
                if len(out) == MAX_PER_WORD:
                    break
            return out
    return []


def thesaurus_synonyms(name: str, table: str | None = None, thesaurus: Any = "default") -> list[str]:
    """Phrases of ``name`` with one content word replaced by a thesaurus synonym, most
    useful first (``salary`` -> ``['wage', 'pay']``; ``singer_name`` -> ``['vocalist name', ...]``).
    [] without a thesaurus."""
    if thesaurus == "default":
        thesaurus = default_thesaurus()
    if thesaurus is None:
        return []
    words = [w.lower() for w in split_identifier(name)]
    if len(words) == 1 and words[0] in _BARE and table:
        words = [singular(w.lower()) for w in split_identifier(table)] + words
    out: list[str] = []
    for i, w in enumerate(words):
        canon = canonical_word(w)
        if w in ID_TOKENS or canon in _SKIP or len(canon) < 3 or not canon.isalpha():
            continue
        for syn in _word_synonyms(thesaurus, canon):
            phrase = " ".join(words[:i] + [syn] + words[i + 1:])
            if phrase not in out:
                out.append(phrase)
    return out[:MAX_PER_COLUMN]
