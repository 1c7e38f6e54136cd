"""The thing a question asks for is what the adapted query returns (issue 13, helper atis17).

``free_words.IMPLIED_CONSTANTS`` lets words the bank shows no query needs differ between the example and the
question even where the example's SQL keeps a constant its wording implied. Measured in session 16 it added one
really wrong answer: "What *journals* are Donald E Knuth 's articles published in ?" from "journal articles by
lorenzo bruzzone" (``paper.journalid >= 0``; the query returns papers). The words apart ("published") were all
free; what went unread is the *asked thing*. The other readers of the answer do not see it: :mod:`.answer_words`
and :mod:`.head_reading` take the head of "journal articles" to be "journal" (the last word that names a table),
so both questions seem to ask for journals. One rule reads the asked thing off the masked question
(:func:`.verify.question_roles`) and the adapted SQL's outer projection (:func:`.answer_words.output_names`):

* :func:`asked_table` (``ASKED_TABLE``) - the question's answer phrase is one word that names a table of the
  catalog ("what *journals* ...", "which *airlines* ..."), the example's answer phrase is another ("journal
  articles"), and no plain column the query returns stands for that table (neither its own column, nor a column
  whose name says it: ``paper.journalid`` says journal, ``flight.airline_code`` airline, ``flight.flight_days``
  day). One word only: in "journal articles" or "airline flights" the first word modifies the head, and in "which
  authors wrote" the phrase runs into a clause ("wrote" would name the table ``writes``). Questions asking who /
  where / when, yes / no questions, counts and queries returning aggregates only are left to their own checks.
  :func:`.sides.answer_entity_mismatch` reads two heads that name two tables; here the example's head names none
  ("article") or the same table as a modifier.

A count asked ("how many ...") is read against the query's projection by :func:`.precision.answer_type_mismatch`
already, for every candidate; this module reads the thing a listing question names.

Closed classes of English and the catalog's own table and column names; no word list. Every refusal is a
sentence; :data:`REASON_CODES` gives its ``reason_code``. Each rule has a switch. Hook: :func:`check_candidate`
in ``Asker._adapt`` after :func:`.unmet_words.check_candidate`, under the same veto.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from sqlglot import exp

from sqlgenie.inference.refusals import code_of, refuse_first, tree_to_read

__all__ = ["ASKED_TABLE", "REASON_CODES", "asked_table", "check_candidate",
           "findings", "reason_code", "returned_words"]

REASON_CODES = {
    "rows); this example's query returns": "asked_table",
}

#: switches (benchmarks turn one rule off at a time)
ASKED_TABLE = True


def reason_code(reason: str) -> str | None:
    return code_of(reason, REASON_CODES)


def _table_of(word: str, catalog: Any) -> str | None:
    """The catalog's table ``word`` (a lemma) names by its whole name ("journal", "airline"), else None."""
    from sqlgenie.inference.verify import lemma

    for t in getattr(catalog, "tables", ()) or ():
        if lemma(t.name.lower()) == word:
            return t.name.lower()
    return None


def returned_words(tree: exp.Expression, catalog: Any = None) -> set[str]:
    """Lemmas the query's plain outputs stand for: each output's names (:func:`.answer_words.output_names`), the
    words of its column's name ("flight_days" -> flight, day) and the entity it stands for
    (:func:`.answer_words.output_entities`)."""
    from sqlgenie.inference.answer_words import output_entities, output_names
    from sqlgenie.inference.verify import lemma

    out: set[str] = set()
    for column, names in output_names(tree, catalog):
        out |= names
        out |= {lemma(w) for w in column.split(".", 1)[1].split("_") if w}
    return out | {lemma(e) for e in output_entities(tree, catalog)}  # "professionals" -> professional


def asked_table(tree: exp.Expression, example_masked: str, new_masked: str, catalog: Any = None,
                schema_word: Any = None) -> list[str]:
    """See module doc."""
    from sqlgenie.inference.verify import question_roles

    new = question_roles(new_masked, None, schema_word)
    if new.kind in ("who", "where", "when") or new.yesno or new.count or not new.items or len(new.items[0]) != 1:
        return []  # one word asked: "journal articles" asks for articles, "which authors wrote" is a clause
    last = new.items[0][0]
    table = _table_of(last, catalog)
    if table is None:
        return []
    ex = question_roles(example_masked, None, schema_word)
    if ex.items and ex.items[0] == new.items[0]:
        return []  # the example asks for the same thing, and its query was verified for it
    shown = returned_words(tree, catalog)
    if not shown or last in shown:
        return []  # aggregates only (another check's), or the query returns it
    shown_text = ", ".join(sorted(shown))
    return [f"your question asks for {last} ({table} rows); this example's query returns {shown_text}, not {last}"]


def findings(adapted: Any, example_masked: str, new_masked: str, *, catalog: Any = None,
             schema_word: Any = None) -> Iterator[tuple[str, list[str]]]:
    """(rule, reasons) of every switched-on rule, lazily, in the order they are tried."""
    tree = tree_to_read(adapted, example_masked, new_masked)
    if tree is None:
        return  # the same wording asks the same query, or nothing to read
    if ASKED_TABLE:
        yield "asked table", asked_table(tree, example_masked, new_masked, catalog, schema_word)


def check_candidate(adapted: Any, example_masked: str, new_masked: str, *, catalog: Any = None,
                    schema_word: Any = None) -> Any:
    """Run this module's refusals on one verified adaptation (changed in place): the first rule that finds a
    reason refuses it. Returns ``adapted``."""
    return refuse_first(adapted, findings(adapted, example_masked, new_masked, catalog=catalog,
                                          schema_word=schema_word))
