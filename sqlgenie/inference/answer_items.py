"""What the question asks for, item by item, against what the example's query answers (issue 13, helper prec17).

Found by listing every wrong answer of the ATIS design runs (seeds 12 and 13, then 14, 15 and 0) and keeping
the kinds that recur across seeds and that a word of the two questions shows: the question asks for one
thing more, or another thing, than the example whose query was adapted, and the checks before this one read
past it. Each rule reads the two masked questions, the adapted SQL's outer projection, the example's skeleton
group (the bank's paraphrases of its query) and, for the answer head, what the verified bank returns for it
(:class:`.answer_words.AnswerHeads`); each refuses with a sentence and a ``reason_code``:

* :func:`coordinated_word` (``COORDINATED``) - the question joins, with "and" / "or", a word the example
  does not say to a word it says alone ("list the *takeoffs and* landings at X" from "list all the landings
  at Y"; "what flights *takeoff and* land at X" from "what flights land at Y"): the question asks for two
  things, the example's query answers the one. Licensed when a paraphrase of the example's query says the
  added word.
* :func:`modifier_head` (``MODIFIER_HEAD``) - the question's answer head is another thing than the
  example's, the verified bank answers that head with other rows than this query returns, and the
  question says the example's head only as a modifier of its own ("the cheapest *round trip fare*" from
  "the cheapest *round trips*"). :func:`.answer_words.foreign_answer_head` makes the same refusal but lets
  a question that names the example's thing pass, which a modifier does not.
* :func:`dropped_amount` (``DROPPED_AMOUNT``) - the example asks "how much" and the question does not,
  while the query returns a column no word of the question names ("is there ground transportation from
  the airport in X to downtown" from "what ground transportation is available from the Y airport to
  downtown *and how much does it cost*": the fare is returned; "information on FIRST class round trip
  ..." from "*how much* is a FIRST class round trip ...": fares for flights). Licensed when a paraphrase of
  the example's query is worded without "how much" and says nothing neither question says.

"and" / "or", "how much" and the parts of speech skipped are closed classes of English; what a head asks
for is learned from the bank. Each rule has a switch. Hook: :func:`check_candidate` in ``Asker._adapt``
after :func:`.unmet_words.check_candidate`, under the same veto.
"""

from __future__ import annotations

from typing import Any, Iterator, Sequence

from sqlglot import exp

from sqlgenie.inference.refusals import code_of, refuse_first

__all__ = ["REASON_CODES", "check_candidate", "coordinated_word", "dropped_amount", "findings",
           "modifier_head", "reason_code"]

REASON_CODES = {
    "joins it with": "coordinated_word",
    "only as a modifier of": "modifier_head",
    "the example asks how much": "dropped_amount",
}

#: switches (benchmarks turn one rule off at a time)
COORDINATED = True
MODIFIER_HEAD = True
DROPPED_AMOUNT = True

_MASK = "#"
#: coordinating conjunctions (a closed class)
_CONJUNCTIONS = frozenset({"and", "or"})
#: parts of a column name that say how a thing is stored, not which thing it is
_STORAGE = frozenset({"id", "code", "name", "identifier"})


def reason_code(reason: str) -> str | None:
    return code_of(reason, REASON_CODES)


def _function_word(word: str) -> bool:
    """A word that names nothing (article, preposition, auxiliary, request words, a number, a value)."""
    from sqlgenie.inference.verify import _AUX, _LEAD, _PREP, _STOPISH

    return word == _MASK or not word.isalpha() or len(word) < 3 or word in _STOPISH or word in _LEAD \
        or word in _PREP or word in _AUX or word in _CONJUNCTIONS


# --------------------------------------------------------------------------- a word joined by "and"


def _coordinated_pairs(words: Sequence[str]) -> list[tuple[str, str]]:
    """(left, right) of each "X and Y" / "X or Y" whose two sides are content words."""
    out = []
    for k in range(1, len(words) - 1):
        if words[k] in _CONJUNCTIONS and not _function_word(words[k - 1]) and not _function_word(words[k + 1]):
            out.append((words[k - 1], words[k + 1]))
    return out


def coordinated_word(example_masked: str, new_masked: str, group: Any = None) -> list[str]:
    """See module doc. The example must say its word alone (not in an "and" / "or" of its own)."""
    from sqlgenie.inference.verify import lemma, tokens

    ex_words, new_words = tokens(example_masked), tokens(new_masked)
    ex_lemmas = {lemma(w) for w in ex_words}
    ex_joined = {lemma(w) for pair in _coordinated_pairs(ex_words) for w in pair}
    for left, right in _coordinated_pairs(new_words):
        for added, kept in ((left, right), (right, left)):
            if lemma(added) in ex_lemmas or lemma(kept) not in ex_lemmas or lemma(kept) in ex_joined:
                continue
            if group is not None and group.word_added_ok(added):
                continue  # a paraphrase of the example's query says it
            return [f"your question asks for \u201c{added}\u201d and joins it with \u201c{kept}\u201d "
                    f"(\u201c{left} and {right}\u201d); the example asks for \u201c{kept}\u201d alone, and this "
                    f"query answers only that"]
    return []


# --------------------------------------------------------------------------- the example's head as a modifier


def modifier_head(tree: exp.Expression, example_masked: str, new_masked: str, heads: Any,
                  catalog: Any = None, schema_word: Any = None, group: Any = None) -> list[str]:
    """See module doc. Read as :func:`.answer_words.foreign_answer_head` reads a head (first item, no count, no
    "of" phrase), for the one case it leaves: the example's head said in the question right before the
    question's own head and nowhere else."""
    from sqlgenie.inference.answer_words import output_features
    from sqlgenie.inference.verify import lemma, question_roles

    if heads is None:
        return []
    ex = question_roles(example_masked, None, schema_word)
    new = question_roles(new_masked, None, schema_word)
    if not new.heads or not ex.heads or new.count or ex.count or new.owner:
        return []
    head, ex_head = new.heads[0], ex.heads[0]
    if head == ex_head or head in ex.heads or head in {lemma(w) for w in ex.words}:
        return []
    if group is not None and group.word_added_ok(head):
        return []
    words = [lemma(w) for w in new.words]
    places = [k for k, w in enumerate(words) if w == ex_head]
    if not places or any(k + 1 >= len(words) or words[k + 1] != head for k in places):
        return []  # the example's thing named on its own (or not at all): foreign_answer_head's case
    marked = heads.marks(head)
    shown = output_features(tree, catalog)
    if not marked or not shown or marked <= shown:
        return []
    want = sorted(m.split(":", 1)[1] for m in marked - shown)
    got = sorted({f.split(":", 1)[1] for f in shown})
    return [f"your question asks for \u201c{head}\u201d and says the example's \u201c{ex_head}\u201d only as a "
            f"modifier of it; in the verified examples \u201c{head}\u201d asks for {', '.join(want)} rows, but "
            f"this example's query returns {', '.join(got)} rows"]


# --------------------------------------------------------------------------- "how much" dropped


def _how_much(words: Sequence[str]) -> bool:
    return any(a == "how" and b == "much" for a, b in zip(words, words[1:]))


def _column_words(column: str) -> set[str]:
    """The words a projected ``table.column`` is named by: the last part of its name ("ground_fare" ->
    fare), the table's name for its key or name column ("fare.fare_id" -> fare)."""
    from sqlgenie.inference.verify import lemma

    table, name = column.split(".", 1)
    parts = [p for p in name.lower().split("_") if p]
    kept = [p for p in parts if p not in _STORAGE]
    out = {lemma(kept[-1])} if kept else set()
    if not kept or kept == [table] or kept == table.split("_"):
        out.add(lemma(table.split("_")[-1]))
    return out


def _named(column: str, names: set[str], new_words: Sequence[str], heads: Any) -> bool:
    """Whether a word of the question names ``column``: a word of its name (:func:`_column_words`), or a
    word the verified bank answers with that column's name (:class:`.answer_words.AnswerHeads`, "cost" ->
    fare)."""
    from sqlgenie.inference.verify import lemma

    said = {lemma(w) for w in new_words if not _function_word(w)}
    if said & _column_words(column):
        return True
    if heads is None:
        return False
    wanted = {"name:" + n for n in names | _column_words(column)}
    return any(heads.marks(w) & wanted for w in sorted(said))


def dropped_amount(tree: exp.Expression, example_masked: str, new_masked: str, heads: Any = None,
                   catalog: Any = None, group: Any = None) -> list[str]:
    """See module doc."""
    from sqlgenie.inference.answer_words import output_names
    from sqlgenie.inference.verify import tokens

    ex_words, new_words = tokens(example_masked), tokens(new_masked)
    if not _how_much(ex_words) or _how_much(new_words):
        return []
    if group is not None and group.removed_ok({"how", "much"}):
        return []  # a paraphrase of the example's query is worded without it
    for column, names in output_names(tree, catalog):
        if not _named(column, names, new_words, heads):
            return [f"the example asks how much, and this query returns {column} for it; your question does "
                    f"not ask how much and names no {sorted(_column_words(column))[0]}"]
    return []


# --------------------------------------------------------------------------- hook


def findings(adapted: Any, example_masked: str, new_masked: str, *, group: Any = None, heads: Any = None,
             catalog: Any = None, schema_word: Any = None) -> Iterator[tuple[str, list[str]]]:
    """(rule, reasons) of every switched-on rule, lazily."""
    if example_masked.strip().lower() == new_masked.strip().lower():
        return  # the same wording asks the same query
    tree = adapted.tree
    if tree is None:
        return
    if COORDINATED:
        yield "coordinated word", coordinated_word(example_masked, new_masked, group)
    if MODIFIER_HEAD:
        yield "modifier head", modifier_head(tree, example_masked, new_masked, heads, catalog, schema_word, group)
    if DROPPED_AMOUNT:
        yield "dropped amount", dropped_amount(tree, example_masked, new_masked, heads, catalog, group)


def check_candidate(adapted: Any, example_masked: str, new_masked: str, *, group: Any = None, heads: Any = None,
                    catalog: Any = None, schema_word: Any = None) -> Any:
    """Run the rules under the veto on one verified adaptation (changed in place): the first that finds a
    reason refuses it. Returns ``adapted``."""
    return refuse_first(adapted, findings(adapted, example_masked, new_masked, group=group, heads=heads,
                                          catalog=catalog, schema_word=schema_word))
