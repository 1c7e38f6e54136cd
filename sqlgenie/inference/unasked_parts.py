"""Unasked parts: refusals for what the example's words ask and the question does not, when the
adapted SQL still does it (issue 13, helper matchu).

:mod:`.counterparts` mostly looks from the question to the SQL (a part of the question that
nothing answers). The wrong answers left on the fresh templated splits of seeds 5 and 6 were
often the mirror case: the example's question says something the asked question does not, and
the example's SQL, adapted, still does it. Each rule here reads the two masked questions (closed
classes of English words, never a word list from a test set) and the adapted SQL's AST:

* :func:`dropped_negation` - the adapted SQL compares with a negation (``<>``, ``NOT IN``,
  ``NOT LIKE``, ``NOT EXISTS``) that the example's question says ("papers of X *outside of*
  PVLDB"; "is X *only* offered in the Fall", "are upper-level classes *all* 12 credits", which
  the SQL checks as no counterexample) and the question does not ("papers of X in EMNLP"
  answered with ``venuename <> 'EMNLP'``).
* :func:`dropped_grouping` - the example asks for one answer per something ("how many papers X
  published *each year*"), the question does not and does not name that thing, and the adapted
  SQL still groups: "how many papers has X published" answered with one count per year.
* :func:`other_place` - the two questions ask different wh-places: where against when, who
  against where ("Where does X publish?" answered with the years of "When did X publish?").
  (:func:`.verify.compare_roles` refuses who / where / when against a bare phrase only.)

Every refusal is a sentence; :data:`REASON_CODES` gives its ``reason_code``.
"""

from __future__ import annotations

from typing import Any, Iterator, Sequence

from sqlglot import exp

__all__ = [
    "REASON_CODES",
    "check_candidate",
    "dropped_grouping",
    "dropped_negation",
    "findings",
    "other_place",
    "reason_code",
]

#: reason_code of each refusal of this module, by a phrase of its sentence.
REASON_CODES = {
    "would still exclude it": "dropped negation",
    "its query groups by it": "dropped grouping",
    "ask about different things:": "answer kind",
}

#: switches (benchmarks turn one rule off at a time)
NEGATION = True
GROUPING = True
PLACE = True

#: Words that turn a comparison into its negation in SQL (closed classes of English): negations ("not",
#: "outside", "besides", "other") and restrictions or universals that a query checks through the
#: absence of a counterexample ("is X *only* offered in the Fall": no offering ``<> 'Fall'``; "are
#: upper-level classes *all* 12 credits": ``COUNT(*) = 0`` of ``credits <> 12``).
_NEGATIONS = frozenset("not no never none nor neither outside except excluding exclude excludes besides "
                       "without other others aside apart only all every always".split())
_PLACES = {"who": "who", "whom": "who", "where": "where", "when": "when"}  # not "whose": "cities whose ..."


def reason_code(reason: str) -> str | None:
    for phrase, code in REASON_CODES.items():
        if phrase in reason:
            return code
    return None


def _negating(words: Sequence[str]) -> list[str]:
    return [w for w in words if w in _NEGATIONS or w.endswith("n't")]


def _negated_comparisons(tree: exp.Expression) -> list[exp.Expression]:
    """``a <> 'x'``, ``NOT a IN (...)``, ``NOT a LIKE ...``, ``NOT EXISTS (...)`` anywhere."""
    out: list[exp.Expression] = list(tree.find_all(exp.NEQ))
    for node in tree.find_all(exp.Not):
        inner = node.this.unnest() if isinstance(node.this, exp.Paren) else node.this
        if isinstance(inner, (exp.In, exp.Like, exp.ILike, exp.EQ, exp.Exists, exp.Is)):
            out.append(node)
    return out


def dropped_negation(tree: exp.Expression, example_words: Sequence[str], new_words: Sequence[str]) -> list[str]:
    """See module doc."""
    said = _negating(example_words)
    if not said or _negating(new_words) or not _negated_comparisons(tree):
        return []
    return [f"the example says \u201c{said[0]}\u201d and its query excludes what follows; your question does "
            "not say that, but the adapted query would still exclude it"]


def dropped_grouping(tree: exp.Expression, example: Any, new: Any) -> list[str]:
    """See module doc. ``example`` / ``new``: :class:`sqlgenie.inference.verify.Roles`."""
    from sqlgenie.inference.counterparts import _grouping_words
    from sqlgenie.inference.verify import lemma

    if _grouping_words(new) or new.grouped:
        return []  # the question groups too (perhaps by another word: the verification compares those)
    said = {lemma(w) for w in new.words} | set(new.words)
    dropped = {w for w in _grouping_words(example) if w not in said}
    if not dropped:
        return []
    if not any(sel.args.get("group") is not None for sel in tree.find_all(exp.Select)):
        return []
    shown = ", ".join(sorted(dropped))
    return [f"the example asks for a result for every {shown} and its query groups by it; your question does not ask "
            "for that"]


def _places(words: Sequence[str]) -> set[str]:
    return {_PLACES[w] for w in words if w in _PLACES}


def other_place(example: Any, new: Any) -> list[str]:
    """See module doc. Refused only when the two questions share no wh-place: "Who taught X when Y
    took it?" and "When Y took X, who taught it?" both say who and when (one is a conjunction)."""
    a, b = _places(example.words), _places(new.words)
    if not a or not b or a & b:
        return []
    return [f"the two questions ask about different things: yours asks {'/'.join(sorted(b))}, "
            f"the example {'/'.join(sorted(a))}"]


def findings(adapted: Any, example_masked: str, example_spans: Sequence[Any], new_masked: str,
             new_spans: Sequence[Any], *, schema_word: Any = None) -> Iterator[tuple[str, list[str]]]:
    """(rule, reasons) of every switched-on rule, lazily, in the order they are tried."""
    from sqlgenie.inference.adapt import Span
    from sqlgenie.inference.verify import _roles

    if example_masked.strip().lower() == new_masked.strip().lower():
        return  # the same wording: nothing the example says that the question does not
    tree = adapted.tree
    ex_roles = _roles(example_masked, tuple(Span.of(s).cls for s in example_spans), schema_word)
    new_roles = _roles(new_masked, tuple(Span.of(s).cls for s in new_spans), schema_word)
    if NEGATION:
        yield "dropped negation", dropped_negation(tree, ex_roles.words, new_roles.words)
    if GROUPING:
        yield "dropped grouping", dropped_grouping(tree, ex_roles, new_roles)
    if PLACE:
        yield "answer kind", other_place(ex_roles, new_roles)


def check_candidate(adapted: Any, example_masked: str, example_spans: Sequence[Any], new_masked: str,
                    new_spans: Sequence[Any], *, schema_word: Any = None) -> Any:
    """Run this module's refusals on one verified adaptation (changed in place, like
    :func:`sqlgenie.inference.counterparts.check_candidate`): the first rule that finds a
    reason refuses it. Returns ``adapted``."""
    if adapted is None or not adapted.ok or adapted.tree is None:
        return adapted
    for _rule, reasons in findings(adapted, example_masked, example_spans, new_masked, new_spans,
                                   schema_word=schema_word):
        if reasons:
            return adapted.refuse(reasons)
    return adapted
