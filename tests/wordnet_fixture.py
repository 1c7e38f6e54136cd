"""Small WordNet database files for tests (the format of Debian's wordnet-base)."""

from __future__ import annotations

from pathlib import Path

from onboarding.thesaurus import WordNet

LICENSE = "  1 This software and database is being provided to you, the LICENSEE, by\n"


def write_wordnet(directory: Path, synsets: list[tuple[str, ...]], lex_file: str = "03") -> WordNet:
    """Noun synsets (their words, first the one indexed) in data.noun with their byte
    offsets in index.noun; empty verb and adjective indexes. Returns the reader."""
    data, index, pos = LICENSE, [], len(LICENSE.encode())
    for words in synsets:
        text = f"{pos:08d} {lex_file} n {len(words):02x} " + " ".join(f"{w} 0" for w in words) + " 000 | a gloss  \n"
        index.append(f"{words[0]} n 1 0 1 0 {pos:08d}  \n")
        data += text
        pos += len(text.encode())
    (directory / "data.noun").write_text(data, encoding="latin-1")
    (directory / "index.noun").write_text(LICENSE + "".join(sorted(index)), encoding="latin-1")
    for part in ("verb", "adj"):
        (directory / f"index.{part}").write_text(LICENSE, encoding="latin-1")
    return WordNet(directory)
