"""English thesauri read from the files of Debian packages (nothing downloaded at run time).

Three readers with one interface (``has(word, pos)``, ``synonyms(word, pos, senses)``: the
lemmas of the word's first ``senses`` senses in the thesaurus's own order, the word itself
left out):

* :class:`WordNet` - WordNet 3.0 database files (``wordnet-base``: ``/usr/share/wordnet``,
  or ``SQLGENIE_WORDNET_DIR``); senses most frequent first.
* :class:`MyThes` - the OpenOffice/LibreOffice thesaurus (``mythes-en-us``:
  ``/usr/share/mythes/th_en_US_v2.dat``, or ``SQLGENIE_MYTHES_FILE``). **Its English data is
  generated from WordNet** (the same synsets in the same order, hypernyms marked
  "(generic term)"), so it is *not* an independent thesaurus: synonyms from it mostly repeat
  WordNet's.
* :class:`Aiksaurus` - Aiksaurus (``libaiksaurus-1.2-data``: ``/usr/share/aiksaurus``, or
  ``SQLGENIE_AIKSAURUS_DIR``): 25,000 words in 2,600 meanings built independently of WordNet,
  without parts of speech. A meaning is named by two title words (``trainee/pupil``); its
  synonyms here are those title words first, then its other words in the file's order.

They make the harder question variants of ``eval schema`` (:mod:`sqlgenie.inference.eval_variants`).
Why two independent thesauri matter: a catalog or pruner that itself uses one thesaurus must
be judged on a variant made from the other (WordNet synonyms in the catalog raised the WordNet
variant's recall at 0.40 kept by 0.013 and did nothing on the Aiksaurus one; docs/benchmarks.md).
"""

from __future__ import annotations

import os
import re
import struct
from pathlib import Path

from sqlgenie.errors import InputError

__all__ = ["WordNet", "MyThes", "Aiksaurus", "THESAURI", "open_thesaurus"]


class WordNet:
    """WordNet 3.0 database files (``index.noun``, ``data.noun``, ...), read directly."""

    name = "wordnet"

    def __init__(self, directory: str | Path | None = None) -> None:
        self.dir = Path(directory or os.environ.get("SQLGENIE_WORDNET_DIR") or "/usr/share/wordnet")
        if not (self.dir / "index.noun").is_file():
            raise InputError(
                f"WordNet database files not found in {self.dir}.",
                hint="Install the Debian package wordnet-base (apt-get install wordnet-base) or set SQLGENIE_WORDNET_DIR.",
            )
        self._index: dict[str, dict[str, list[int]]] = {}
        self._synsets: dict[tuple[str, int], list[str]] = {}

    def _load_index(self, pos: str) -> dict[str, list[int]]:
        idx = self._index.get(pos)
        if idx is None:
            idx = {}
            path = self.dir / f"index.{pos}"
            if path.is_file():
                with open(path, encoding="latin-1") as fh:
                    for line in fh:
                        if line.startswith(" "):
                            continue
                        parts = line.split()
                        lemma, n_syn, n_ptr = parts[0], int(parts[2]), int(parts[3])
                        offsets = parts[4 + n_ptr + 2:]
                        idx[lemma] = [int(o) for o in offsets[:n_syn]]
            self._index[pos] = idx
        return idx

    def _synset_words(self, pos: str, offset: int) -> list[str]:
        key = (pos, offset)
        words = self._synsets.get(key)
        if words is None:
            with open(self.dir / f"data.{pos}", "rb") as fh:
                fh.seek(offset)
                parts = fh.readline().decode("latin-1").split()
            n = int(parts[3], 16)
            words = [re.sub(r"\(.*\)$", "", parts[4 + 2 * i]).replace("_", " ").lower() for i in range(n)]
            self._synsets[key] = words
        return words

    def has(self, word: str, pos: str) -> bool:
        return bool(self._load_index(pos).get(word.lower()))

    def synonyms(self, word: str, pos: str = "noun", senses: int = 1) -> list[str]:
        """Lemmas of the first ``senses`` senses of ``word`` (most frequent first), itself excluded."""
        out: list[str] = []
        for off in self._load_index(pos).get(word.lower(), [])[:senses]:
            for w in self._synset_words(pos, off):
                if w != word.lower() and w not in out:
                    out.append(w)
        return out


_MYTHES_POS = {"noun": "(noun)", "verb": "(verb)", "adj": "(adj)"}


class MyThes:
    """The MyThes thesaurus file ``th_en_US_v2.dat`` (UTF-8; ``word|n`` then ``n`` lines
    ``(pos)|syn|syn (generic term)|...``). Related, generic and antonym terms are left out."""

    name = "mythes"

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = Path(path or os.environ.get("SQLGENIE_MYTHES_FILE") or "/usr/share/mythes/th_en_US_v2.dat")
        if not self.path.is_file():
            raise InputError(
                f"MyThes thesaurus file not found: {self.path}.",
                hint="Install the Debian package mythes-en-us (apt-get install mythes-en-us) or set SQLGENIE_MYTHES_FILE.",
            )
        self._entries: dict[str, list[tuple[str, list[str]]]] | None = None

    def _load(self) -> dict[str, list[tuple[str, list[str]]]]:
        if self._entries is None:
            entries: dict[str, list[tuple[str, list[str]]]] = {}
            with open(self.path, encoding="utf-8", errors="replace") as fh:
                fh.readline()  # encoding line
                lines = fh.read().split("\n")
            i = 0
            while i < len(lines):
                head = lines[i]
                i += 1
                if "|" not in head:
                    continue
                word, n = head.rsplit("|", 1)
                senses = []
                for line in lines[i:i + int(n)]:
                    parts = line.split("|")
                    syns = [p.strip().lower() for p in parts[1:] if p.strip() and "(" not in p]
                    senses.append((parts[0].strip(), syns))
                i += int(n)
                entries.setdefault(word.lower(), []).extend(senses)
            self._entries = entries
        return self._entries

    def has(self, word: str, pos: str) -> bool:
        return any(p == _MYTHES_POS[pos] for p, _ in self._load().get(word.lower(), ()))

    def synonyms(self, word: str, pos: str = "noun", senses: int = 1) -> list[str]:
        out: list[str] = []
        own = [s for p, s in self._load().get(word.lower(), ()) if p == _MYTHES_POS[pos]]
        for syns in own[:senses]:
            for w in syns:
                if w != word.lower() and w not in out:
                    out.append(w)
        return out


class Aiksaurus:
    """Aiksaurus's ``words.dat`` (NUL-ended word, ``:`` for a space, then its meanings as
    big-endian 16-bit ids ended by ``0xFFFF``) and ``meanings.dat`` (two title word ids, then
    the meaning's word ids, ended by ``0xFFFF``). No parts of speech: every ``pos`` is the same."""

    name = "aiksaurus"

    def __init__(self, directory: str | Path | None = None) -> None:
        self.dir = Path(directory or os.environ.get("SQLGENIE_AIKSAURUS_DIR") or "/usr/share/aiksaurus")
        if not (self.dir / "words.dat").is_file() or not (self.dir / "meanings.dat").is_file():
            raise InputError(
                f"Aiksaurus data files not found in {self.dir}.",
                hint="Install the Debian package libaiksaurus-1.2-data (apt-get install libaiksaurus-1.2-data) "
                     "or set SQLGENIE_AIKSAURUS_DIR.",
            )
        self._words: list[str] | None = None
        self._word_meanings: dict[str, list[int]] = {}
        self._meanings: list[list[int]] = []

    @staticmethod
    def _ids(data: bytes, i: int) -> tuple[list[int], int]:
        out = []
        while True:
            (v,) = struct.unpack_from(">H", data, i)
            i += 2
            if v == 0xFFFF:
                return out, i
            out.append(v)

    def _load(self) -> None:
        if self._words is not None:
            return
        data = (self.dir / "words.dat").read_bytes()
        words: list[str] = []
        i = 0
        while i < len(data):
            j = data.index(b"\0", i)
            word = data[i:j].decode("latin-1").replace(":", " ")
            ids, i = self._ids(data, j + 1)
            words.append(word)
            self._word_meanings.setdefault(word.lower(), []).extend(ids)
        data = (self.dir / "meanings.dat").read_bytes()
        i = 0
        while i < len(data):
            titles = list(struct.unpack_from(">HH", data, i))
            ids, i = self._ids(data, i + 4)
            self._meanings.append(list(dict.fromkeys(titles + ids)))
        self._words = words

    def has(self, word: str, pos: str) -> bool:
        self._load()
        return bool(self._word_meanings.get(word.lower()))

    def synonyms(self, word: str, pos: str = "noun", senses: int = 1) -> list[str]:
        self._load()
        assert self._words is not None
        out: list[str] = []
        for m in self._word_meanings.get(word.lower(), [])[:senses]:
            for wid in self._meanings[m]:
                w = self._words[wid].lower()
                if w != word.lower() and w not in out:
                    out.append(w)
        return out


THESAURI = {"wordnet": WordNet, "mythes": MyThes, "aiksaurus": Aiksaurus}


def open_thesaurus(name: str) -> WordNet | MyThes | Aiksaurus:
    """The thesaurus called ``name`` (raises :class:`InputError` with what to install when absent)."""
    return THESAURI[name]()
