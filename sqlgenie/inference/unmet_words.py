"""Words of the asked question the adapted query does not meet (issue 13, helper prec16).

Found by listing every wrong answer of the scholar and ADVISING design runs (seeds 12, 13, 14 / 12, 13, 0)
and keeping the kinds that recur across seeds: a novel question whose nearest example is worded close
while one word of the question asks for another thing, which the example's query does not do. Each rule
reads the two questions (masked and as written), the adapted SQL's AST, the example's skeleton group and
the verified bank in scope, and refuses with a sentence and a ``reason_code``:

* :func:`counted_noun` (``COUNTED_NOUN``) - both questions count ("how many", "number of") but not the same
  thing: the question counts the values of a column ("How many *years* has X been available ?": a word of
  ``semester.year`` and of no table's name) while the example counts something else ("How many *times* has Y
  been offered ?"), and no paraphrase of the example's query counts the question's noun. A table's rows
  counted under another name ("publications" / "papers", "nations" / "countries"), or named with one of
  its columns ("degree names"), is left to the wording checks.
* :func:`value_spelling` (``VALUE_SPELLING``) - the query keeps a string constant of the example's SQL that
  the example writes as it is and that the question writes in another form: the same letters and digits
  without its other characters ("B 's" against the example's "B+ 's": the query still compares 'B+').
* :func:`asker_word` (``ASKER_WORD``) - the question speaks of the asker with a first-person word ("meet *my*
  Other requirement") that the example does not say, the verified bank writes that word as constants
  (``student_id = 1`` in most of the questions saying "my": :meth:`.word_constants.WordConstants.usual`, at least
  half of at least three; 74 % on ADVISING seed 0)
  and the query reads none of those columns ("In Spring or Summer what courses ... meet the Other
  requirement ?" answers for anyone). :mod:`.unread_words` leaves words this short alone.
* :func:`frame_against_window` (``FRAME_WINDOW``) - the question names a time frame the example does not
  ("*next* semester", "in the *past*") while the query keeps the example's window on the other side ("has
  taught": ``semester < (the current one)``): :mod:`.read_apart` compares two named frames, or a tense,
  and not a frame only the question names against a window the example's tense gave.

The word classes are closed classes of English (the count phrases of :func:`.verify.tokens`, first-person
words, :mod:`.read_apart`'s time frames); what a word is written as in SQL is learned from the bank. Every refusal is a sentence; :data:`REASON_CODES` gives its
``reason_code``. Each rule has a switch. Hook: :func:`check_candidate` in ``Asker._adapt`` after
:func:`.example_parts.check_candidate`, under the same veto.
"""

from __future__ import annotations

import re
from typing import Any, Iterator, Sequence

from sqlglot import exp

from sqlgenie.inference.refusals import code_of, refuse_first, tree_to_read

__all__ = ["REASON_CODES", "check_candidate", "counted_noun", "counted_noun_of", "counted_phrase", "findings", "reason_code",
           "asker_word", "frame_against_window", "value_spelling"]

REASON_CODES = {
    "your question counts": "counted_noun",
    "the example's spelling": "value_spelling",
    "speaks of the asker": "asker_word",
    "the example does not name; this query keeps": "frame_window",
}

#: switches (benchmarks turn one rule off at a time)
COUNTED_NOUN = True
VALUE_SPELLING = True
ASKER_WORD = True
FRAME_WINDOW = True

#: first-person words (a closed class of English): the asker
_FIRST_PERSON = frozenset({"i", "me", "my", "mine", "myself", "we", "us", "our", "ours"})

_MASK = "#"
#: words between a count phrase and the noun it counts (a closed class)
_COUNT_SKIP = frozenset({"the", "a", "an", "of", "different", "distinct", "total", "unique", "separate", "all",
                         "individual", "such", _MASK})


def reason_code(reason: str) -> str | None:
    return code_of(reason, REASON_CODES)


# --------------------------------------------------------------------------- counted noun


def counted_phrase(words: Sequence[str]) -> list[str]:
    """The words a question counts: after its first count phrase ("how many", "number of", one marker in
    :func:`.verify.tokens`), up to an auxiliary, a preposition or the end, at most three (values, articles
    and a partitive "of" right after the count skipped; a possessive starts the phrase again: "next
    semester 's classes"). Empty when the question does not count."""
    from sqlgenie.inference.verify import _AUX, _COUNT, _PREP

    k = next((k for k, w in enumerate(words) if w == _COUNT), None)
    if k is None:
        return []
    phrase: list[str] = []
    j = k + 1
    while j < len(words) and len(phrase) < 3:
        w = words[j]
        j += 1
        if w in _COUNT_SKIP and (w != "of" or not phrase):
            continue
        if w == "s":  # a possessive ("next semester 's classes"): the words before it name the owner
            phrase = []
            continue
        if w in _AUX or w in _PREP or w == _COUNT or not w.isalpha() or len(w) < 3:
            break
        phrase.append(w)
    return phrase


def counted_noun_of(words: Sequence[str], schema_word: Any = None) -> str | None:
    """The noun a question counts (:func:`counted_phrase`), as a lemma: the last word of the phrase that
    names a table or column, else the first. None when the question does not count or the phrase has no
    word ("how many are there")."""
    from sqlgenie.inference.verify import lemma

    phrase = counted_phrase(words)
    if not phrase:
        return None
    known = [w for w in phrase if schema_word is not None and (schema_word(w) or schema_word(lemma(w)))]
    return lemma(known[-1] if known else phrase[0])


def _table_words(catalog: Any) -> set[str]:
    from sqlgenie.inference.verify import lemma

    return {lemma(w) for t in getattr(catalog, "tables", ()) or () for w in t.name.lower().split("_")}


def _names_column(noun: str, catalog: Any) -> bool:
    """``noun`` is a word of a column's name and of no table's ("credits": ``course.credits``): a count of
    that column's values, not of a table's rows."""
    from sqlgenie.inference.verify import lemma

    return noun not in _table_words(catalog) and any(noun in {lemma(w) for w in c.name.lower().split("_")}
                                                     for t in getattr(catalog, "tables", ()) or () for c in t.columns)


def counted_noun(example_masked: str, new_masked: str, group: Any = None, schema_word: Any = None,
                 catalog: Any = None) -> list[str]:
    """See module doc."""
    from sqlgenie.inference.verify import lemma, tokens

    ex_words, new_words = tokens(example_masked), tokens(new_masked)
    asked = counted_noun_of(new_words, schema_word)
    counted = counted_noun_of(ex_words, schema_word)
    if asked is None or counted is None or asked == counted or not _names_column(asked, catalog):
        return []  # a table's rows counted under another name ("publications" / "papers") is wording
    if {lemma(w) for w in counted_phrase(new_words)} & _table_words(catalog):
        return []  # a table's thing named with one of its columns ("degree names")
    for member in getattr(group, "others", ()) or ():
        if counted_noun_of(tokens(member.masked.text), schema_word) == asked:
            return []  # a paraphrase of the example's query counts the question's noun
    said = next((w for w in new_words if w.startswith(asked[:-1] if len(asked) > 3 else asked)), asked)
    return [f"your question counts \u201c{said}\u201d; the example and its paraphrases count "
            f"\u201c{counted}\u201d, which this query counts"]


# --------------------------------------------------------------------------- value spelling


def _core(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", " ", text.lower()).strip()


def _says(question: str, text: str) -> bool:
    """``question`` contains ``text`` as written (case folded), not inside a longer word."""
    q, t = question.lower(), text.lower().strip()
    return bool(t) and re.search(r"(?<![a-z0-9])" + re.escape(t) + r"(?![a-z0-9])", q) is not None


def _string_constants(tree: exp.Expression) -> set[str]:
    return {lit.this.strip("%").strip() for lit in tree.find_all(exp.Literal) if lit.is_string
            and lit.this.strip("%").strip()}


def value_spelling(tree: exp.Expression, example_sql: str, example_question: str, new_question: str) -> list[str]:
    """See module doc. Only constants with characters other than letters, digits and spaces are read (their
    letters and digits alone, "B", are another value); the question must say those letters and digits."""
    from sqlgenie.autocorrect.base import parsed_read_only

    try:  # the example's remembered parse, only read: no copy per candidate
        kept = _string_constants(tree) & _string_constants(parsed_read_only(example_sql))
    except Exception:
        return []
    for text in sorted(kept):
        core = _core(text)
        if not core or core == text.lower().strip() or re.fullmatch(r"[a-z0-9 ]+", text.lower()):
            continue
        if _says(example_question, text) and not _says(new_question, text) and _says(new_question, core):
            return [f"your question says \u201c{core.upper() if text.isupper() else core}\u201d; this query "
                    f"compares \u201c{text}\u201d, the example's spelling"]
    return []


# --------------------------------------------------------------------------- the asker


def asker_word(tree: exp.Expression, example_masked: str, new_masked: str, words: Any = None) -> list[str]:
    """See module doc. The first-person words are a closed class; what the bank writes for one is
    :meth:`.word_constants.WordConstants.tied`, else :meth:`~.word_constants.WordConstants.usual` (a year column
    left out, as :mod:`.unread_words` does)."""
    from sqlgenie.inference.unread_words import _default_year, _read_columns

    if words is None:
        return []
    ex_words = set(re.findall(r"[a-z']+", example_masked.lower()))
    said = [w for w in dict.fromkeys(re.findall(r"[a-z']+", new_masked.lower())) if w in _FIRST_PERSON]
    read = _read_columns(tree)
    for word in said:
        if word in ex_words:
            continue
        tied = {col: nums for col, nums in (words.tied(word) or words.usual(word)).items() if not _default_year(col)}
        if not tied or {col.rsplit(".", 1)[-1] for col in tied} & read:
            continue
        shown = ", ".join(f"{col.rsplit('.', 1)[-1]} = {'/'.join(nums)}" for col, nums in sorted(tied.items()))
        return [f"your question speaks of the asker (\u201c{word}\u201d), which the verified examples read as "
                f"{shown}; the example does not, and this query reads none of those columns"]
    return []


# --------------------------------------------------------------------------- time frame against the window


def frame_against_window(tree: exp.Expression, example_masked: str, new_masked: str, question: str = "") -> list[str]:
    """See module doc. The frames are :mod:`.read_apart`'s closed classes ("past", "next", ...); the
    window is every comparison of a column with a constant the question does not say or a subquery
    (:func:`.read_apart.comparisons`), all in one direction."""
    from sqlgenie.inference.read_apart import _FUTURE, _PAST, _words, comparisons

    ex_words, new_words = set(_words(example_masked)), _words(new_masked)
    frames = [(w, "<" if w in _PAST else ">") for w in new_words if (w in _PAST or w in _FUTURE) and w not in ex_words]
    if not frames or (_PAST | _FUTURE) & ex_words:
        return []
    window = {d for _col, d in comparisons(tree, _words(question) or new_words)}
    word, wanted = frames[0]
    if len(window) != 1 or wanted in window:
        return []
    kept = "before" if window == {"<"} else "after"
    return [f"your question asks about a time (\u201c{word}\u201d) the example does not name; this query "
            f"keeps the example's window, {kept} a point it did not get from your question"]


# --------------------------------------------------------------------------- hook


def findings(adapted: Any, example_sql: str, example_question: str, new_question: str, example_masked: str,
             new_masked: str, *, group: Any = None, schema_word: Any = None,
             words: Any = None, catalog: Any = None) -> Iterator[tuple[str, list[str]]]:
    """(rule, reasons) of every switched-on rule, lazily."""
    tree = tree_to_read(adapted, example_masked, new_masked)
    if tree is None:
        return  # the same wording asks the same query, or nothing to read
    if COUNTED_NOUN:
        yield "counted noun", counted_noun(example_masked, new_masked, group, schema_word, catalog)
    if VALUE_SPELLING:
        yield "value spelling", value_spelling(tree, example_sql, example_question, new_question)
    if ASKER_WORD:
        yield "asker word", asker_word(tree, example_masked, new_masked, words)
    if FRAME_WINDOW:
        yield "frame against window", frame_against_window(tree, example_masked, new_masked, new_question)


def check_candidate(adapted: Any, example_sql: str, example_question: str, new_question: str,
                    example_masked: str, new_masked: str, *, group: Any = None, schema_word: Any = None,
                    words: Any = None, catalog: Any = None) -> Any:
    """Run the rules under the veto on one verified adaptation (changed in place): the first that finds a
    reason refuses it. Returns ``adapted``."""
    return refuse_first(adapted, findings(adapted, example_sql, example_question, new_question, example_masked,
                                          new_masked, group=group, schema_word=schema_word,
                                          words=words, catalog=catalog))
