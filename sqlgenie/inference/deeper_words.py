"""Words a deeper candidate already accounts for: its own words inflected, and the names of what its SQL reads.

A verified example found beyond the nearest five (:mod:`sqlgenie.inference.deeper`) answers only
when the question adds no content word that neither it nor another paraphrase of its query says
(:func:`sqlgenie.inference.deeper.added_words`). Two kinds of added word are no evidence of
another query, because the candidate itself already says or does what they say:

* **another form of one of the candidate's own words**: "papers that *use* ImageNet" against
  "papers *using* ImageNet", "*published*" against "*publish*": the same word inflected
  (:func:`stem`: -ing, -ed, -es, -s and a final -e stripped; the paraphrase license compares
  singular forms only);
* **a schema word naming a table or column the candidate's SQL reads**: "which *authors* published
  papers in 2015" against "who wrote papers in 2015", whose SQL reads ``writes.authorid``; "*venue*
  for Semantic Parsing" against "conferences for Semantic Parsing", whose SQL reads ``venue``. In
  the usual pool such a word is a soft difference (adaptation's ``schema_changes`` only refuses a
  schema word the SQL does *not* read); beyond the nearest five it refused.

Both compare irregular forms by their lemma too (:data:`IRREGULAR_FORMS`, helper matchv, seed 5):
"What papers has X *written* on Y" against "papers X *wrote* about Y" is the same verb, and
"*written*" names the table ``writes`` the candidate's SQL reads (``verify.lemma``: written, wrote
-> write), which the suffix stem alone cannot see. And a topic preposition ("about", "regarding",
"concerning") right before one of the question's values says only that the value is the topic; which
table the topic is in, the value's column decides, and adaptation has already paired it with a value
of that column ("papers *about* WordNet and Dbpedia" against "papers *using* X and Y").

Read off the seed-3 records of scholar (issue 13): of the seen questions refused although an
example of their own template adapted to the gold SQL among the 40 nearest, most were refused by
the deeper license for one of these words.
"""

from __future__ import annotations

from typing import Any

__all__ = ["ENABLED", "IRREGULAR_FORMS", "TOPIC_PREPOSITIONS", "accounted", "stem"]

#: Off: every added word no paraphrase says refuses a deeper candidate (A/B measurements).
ENABLED = True
#: Off: irregular forms ("written", "wrote") are compared by their suffix stem only (A/B measurements).
IRREGULAR_FORMS = True
#: Off: a topic preposition right before one of the question's values counts as an added word (A/B).
TOPIC_PREPOSITIONS = True
#: Prepositions that only say a value is the topic ("papers *about* X"): the value's column says which.
_TOPIC = frozenset({"about", "regarding", "concerning"})

_SUFFIXES = ("ing", "ed", "es", "s")


def stem(word: str) -> str:
    """A crude stem for comparing inflections of one word: one suffix of -ing / -ed / -es / -s
    (leaving at least two letters; a doubled last consonant undone), then a final -e (``using``, ``use``, ``uses`` -> ``us``)."""
    w = word.lower()
    for suffix in _SUFFIXES:
        if w.endswith(suffix) and len(w) - len(suffix) >= 2 and not w.endswith("ss"):
            w = w[: -len(suffix)]
            if len(w) > 3 and w[-1] == w[-2] and w[-1] not in "aeiou":  # running -> run
                w = w[:-1]
            break
    return w[:-1] if w.endswith("e") and len(w) > 2 else w


def _sql_words(asker: Any, cand: Any) -> set[str]:
    from sqlgenie.autocorrect.base import parse_sql
    from sqlgenie.inference.adapt import sql_vocabulary

    try:
        return sql_vocabulary(parse_sql(cand.example.sql), asker.catalog)[0]
    except Exception:
        return set()


def _before_values(masked: str) -> set[str]:
    """Lower-case words of a masked question written right before a ``[MASK]``."""
    import re

    return {m.group(1).lower() for m in re.finditer(r"([A-Za-z]+)\s+\[MASK\]", masked)}


def accounted(asker: Any, cand: Any, words: list[str], example_masked: str, new_masked: str | None = None) -> list[str]:
    """The words of ``words`` (added by the question to ``cand``'s question) that the candidate
    accounts for (see module doc)."""
    if not ENABLED or not words:
        return []
    topic = _before_values(new_masked) & _TOPIC if TOPIC_PREPOSITIONS and new_masked else set()
    from sqlgenie.inference.adapt import _tokens, word_in

    from sqlgenie.inference.verify import lemma

    def forms(word: str) -> list[str]:
        base = lemma(word) if IRREGULAR_FORMS else word
        return [word] if base == word else [word, base]

    own = {stem(f) for w in _tokens(example_masked) for f in forms(w)}
    read: set[str] | None = None
    out: list[str] = []
    for w in words:
        if w in topic or any(stem(f) in own for f in forms(w)):
            out.append(w)
            continue
        for f in forms(w):
            if asker._schema_word(f):
                if read is None:
                    read = _sql_words(asker, cand)
                if word_in(f, read):
                    out.append(w)
                    break
    return out
