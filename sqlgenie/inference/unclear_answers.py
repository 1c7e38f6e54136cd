"""Unclear answers: refusals for an adapted query whose reading no bank can settle (issue 13,
helper spider9).

After the gold errors were read apart (:mod:`sqlgenie.eval.gold_literals`), the wrong answers left
on the Spider dev paraphrase splits (designed on seeds 3 and 4, confirmed on 0, 1, 2) were
mostly of two kinds that no comparison of the two questions can see, because the example says
the same thing as the question:

* :func:`ambiguous_any` - "a population *smaller than any* country in Asia". After a comparative,
  "any" reads two ways: smaller than every one (``< (SELECT MIN ...)``) or than at least one
  (``< (SELECT MAX ...)``). People, and Spider's own annotators, use both: of the six "than any"
  questions of Spider dev, the golds of two paraphrase pairs read them differently, and the 13 of
  Spider train split about evenly. The example's reading is therefore no evidence of the
  question's; the query is refused, with a sentence asking for "every" or "at least one". "Than
  all" / "than every" are not ambiguous and pass.
* :func:`star_over_join` - the query returns ``*`` over joined tables: every column of each
  table, the join keys twice. Some bank golds say ``SELECT *`` for "which countries ...", and an
  adapted copy answers a question about one thing with the columns of two tables (the paired
  gold, or a person, wants the countries' names). ``SELECT *`` from one table ("show all
  information about ...") passes.
* :func:`unreturned_items` - a question that ends with a request listing what to return ("How many
  models does each maker produce? *List maker full name, id and the number.*") answered by an
  example whose request listed fewer things ("Only list the count and the maker full name."): the
  adapted query returns fewer columns than the things asked for. Items are read off the last
  sentence only when it starts with a request verb (list, show, give, return, find, display),
  split on commas and "and"; a question without such a sentence is never refused here.
* :func:`uncomputed_average` - the question asks for an average as a thing to return ("What is the
  *average* and maximum capacities ...", read by :func:`sqlgenie.inference.verify.question_roles`
  as an ``avg`` answer item) and the adapted query computes none (no ``AVG``, no division): the
  example's query read "average" as a column of that name (``stadium.average``, the average
  attendance). Only the average is checked: "the maximum X" is often answered by a row ordered
  by X, which returns X itself.

Each rule has a switch for A/B runs; every refusal is a sentence and :data:`REASON_CODES` gives
its ``reason_code``. The rules only refuse: they never change a query.
"""

from __future__ import annotations

import re
from typing import Any, Iterator

from sqlglot import exp

from sqlgenie.inference.refusals import code_of, refuse_first
from sqlgenie.inference.verify import question_roles, tokens

__all__ = ["REASON_CODES", "ambiguous_any", "check_candidate", "findings", "reason_code", "requested_items",
           "star_over_join", "uncomputed_average", "unreturned_items"]

#: reason_code of each refusal of this module, by a phrase of its sentence.
REASON_CODES = {
    "which can mean than every one": "ambiguous any",
    "every column of the joined tables": "star over join",
    "things to return": "unreturned items",
    "asks for an average": "uncomputed average",
}

#: switches (benchmarks turn one rule off at a time)
ANY = True
STAR = True
ITEMS = True
AVERAGE = True

#: words that may stand between "than" and "any" ("than that of any", "than those of any")
_THAN_FILLERS = frozenset({"that", "those", "of", "the", "ones"})


def reason_code(reason: str) -> str | None:
    return code_of(reason, REASON_CODES)


def _than_any(words: list[str]) -> bool:
    """"than any" after a comparative, with "that of" / "those of" between them."""
    for i, w in enumerate(words):
        if w != "than":
            continue
        j = i + 1
        while j < len(words) and words[j] in _THAN_FILLERS:
            j += 1
        if j < len(words) and words[j] == "any":
            return True
    return False


def _extreme_comparison(tree: exp.Expression) -> bool:
    """A comparison with a subquery that reads a quantifier: ``x < (SELECT MIN/MAX(...))``,
    ``x < ANY (...)`` or ``x < ALL (...)``."""
    for cmp in tree.find_all(exp.GT, exp.GTE, exp.LT, exp.LTE):
        for side in (cmp.this, cmp.expression):
            if isinstance(side, (exp.Any, exp.All)):
                return True
            if isinstance(side, exp.Subquery) and isinstance(side.this, exp.Select):
                if any(e.find(exp.Max, exp.Min) for e in side.this.expressions):
                    return True
    return False


def ambiguous_any(tree: exp.Expression, question_text: str) -> list[str]:
    """See module doc."""
    if tree is None or not _than_any(tokens(question_text)) or not _extreme_comparison(tree):
        return []
    return ["your question says 'than any', which can mean than every one or than at least one "
            "(people, and verified examples, read it both ways); ask with 'than every' or 'than at least one'"]


def _source_tables(select: exp.Select) -> int:
    from_ = select.args.get("from_") or select.args.get("from")
    n = len(from_.expressions) if from_ is not None and from_.expressions else (1 if from_ is not None else 0)
    return n + len(select.args.get("joins") or [])


def star_over_join(tree: exp.Expression) -> list[str]:
    """See module doc."""
    if tree is None:
        return []
    for select in tree.find_all(exp.Select):
        if not isinstance(select.parent, (exp.Union, exp.Intersect, exp.Except)) and select is not tree:
            continue  # a star inside EXISTS (SELECT * ...) or a derived table returns nothing to the user
        star = any(isinstance(e, exp.Star) or (isinstance(e, exp.Column) and isinstance(e.this, exp.Star))
                   for e in select.expressions)
        if star and _source_tables(select) > 1:
            return ["the example's query returns every column of the joined tables (SELECT *), "
                    "not the things your question asks for"]
    return []


#: verbs that open a request sentence listing what to return
_REQUEST_VERBS = frozenset({"list", "show", "give", "return", "find", "display"})
_SENTENCE_END = re.compile(r"[?.!](?:\s+|$)")
_ITEM_SPLIT = re.compile(r"\s*,\s*(?:and\s+)?|\s+and\s+")


def requested_items(question: str) -> list[str] | None:
    """The things a question's last sentence asks to return ("List the id, role and email." ->
    ``["the id", "role", "email"]``), or None when the question has no such request sentence
    after another sentence (only then is what to return spelled out item by item)."""
    sentences = [s.strip() for s in _SENTENCE_END.split(question) if s.strip()]
    if len(sentences) < 2:
        return None
    words = sentences[-1].lower().split()
    while words and words[0] in ("only", "please", "and", "also"):
        words = words[1:]
    if not words or words[0] not in _REQUEST_VERBS:
        return None
    words = words[1:]
    while words and words[0] in ("me", "us", "only", "also"):
        words = words[1:]
    items = [part for part in _ITEM_SPLIT.split(" ".join(words)) if part.strip()]
    return items or None


def _output_columns(tree: exp.Expression) -> int | None:
    """How many columns the query returns (None for ``*``: as many as the tables have)."""
    node = tree
    while isinstance(node, (exp.Union, exp.Intersect, exp.Except)):
        node = node.this
    if not isinstance(node, exp.Select):
        return None
    if any(isinstance(e, exp.Star) or (isinstance(e, exp.Column) and isinstance(e.this, exp.Star))
           for e in node.expressions):
        return None
    return len(node.expressions)


def unreturned_items(tree: exp.Expression, question: str) -> list[str]:
    """See module doc."""
    items = requested_items(question) if tree is not None else None
    columns = _output_columns(tree) if items else None
    if not items or columns is None or len(items) <= columns:
        return []
    return [f"your question lists {len(items)} things to return ({', '.join(items)}) and the example's query "
            f"returns {columns} column{'s' if columns != 1 else ''}"]


def uncomputed_average(tree: exp.Expression, new_masked: str) -> list[str]:
    """See module doc."""
    if tree is None or not any(sig.startswith("avg:") for sig in question_roles(new_masked).signature):
        return []
    if tree.find(exp.Avg, exp.Div) is not None:
        return []
    return ["your question asks for an average, which the example's query does not compute"]


def findings(adapted: Any, new_masked: str, question: str | None = None) -> Iterator[tuple[str, list[str]]]:
    """(rule, reasons) of every switched-on rule, lazily, in the order they are tried."""
    tree = adapted.tree
    if ANY:
        yield "ambiguous any", ambiguous_any(tree, new_masked)
    if STAR:
        yield "star over join", star_over_join(tree)
    if ITEMS and question:
        yield "unreturned items", unreturned_items(tree, question)
    if AVERAGE:
        yield "uncomputed average", uncomputed_average(tree, new_masked)


def check_candidate(adapted: Any, new_masked: str, question: str | None = None) -> Any:
    """Run this module's refusals on one verified adaptation (changed in place, like
    :func:`sqlgenie.inference.unasked_parts.check_candidate`); ``question``: the question as
    asked (its sentences and punctuation). Returns ``adapted``."""
    return refuse_first(adapted, findings(adapted, new_masked, question))
