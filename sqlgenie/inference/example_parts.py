"""Parts of the example the asked question moves, drops or reads otherwise (issue 13, helper prec14).

Rediscovered from every wrong answer of the scholar and ADVISING design runs (seed 12): a novel
question whose nearest example is worded close but asks another query, where one part changed place
or kind. Each rule reads that part off the two masked questions, the adapted SQL's AST, the catalog's
vocabulary and the verified bank in scope (closed classes of English, or what the bank answers a
word with; never a word list from a test set), and refuses with a sentence and a ``reason_code``:

* :func:`dropped_ranking` (``DROPPED_RANKING``) - the adapted SQL ranks (``ORDER BY ... LIMIT``, or a
  column compared with a ``MIN`` / ``MAX`` subquery) for a ranking word its example says (a superlative,
  or a word the bank always ranks with, schema words left out) or that every other paraphrase of its
  query says (a superlative: "easiest" in each paraphrase of "What class can I take to fulfill the Core
  requirement easily ?"), and the asked question says no ranking or comparing word: "What classes can I
  use for my Core ?" answered with the easiest Core class. A paraphrase of the example's query that says
  no ranking word (the bank ranks that query anyway) licenses it. (The reverse, a ranking only the
  question asks, is :func:`.other_query`'s superlative rule and :func:`.precision.missing_modifiers`.)
* :func:`moved_exclusion` (``MOVED_EXCLUSION``) - both questions exclude something ("not", "n't", "no",
  "without", "besides", "except", "other than"), but on another part: a value the question excludes
  that the query compares positively while it excludes another ("Does Prof. X teach other courses
  *besides 646* ?" answered with "Is 495 taught by anyone *besides Prof. Y* ?"). (A first version also
  compared the words negated in each question: on Spider dev seed 3 it refused six right paraphrases,
  "owners who do not *own* any dogs" / "owners [who] do not have any *dogs*": removed.)
* :func:`swapped_head` (``SWAPPED_HEAD``) - the thing the question asks for is another of the example's
  things (said there, not as its answer), the question does not say the example's answer, and the query
  returns the example's answer and not the asked thing ("Which classes ..." from "Regarding classes
  with labs, which professors ..."). Run before the veto: a plain failure, a later candidate may answer.
* :func:`wh_noun` (``WH_NOUN``) - the noun after the wh-word differs from the example's ("which
  conferences" / "in what venues") and the query returns a column that none of the verified bank's
  questions asking that noun returns (at least :data:`MIN_USES` of them); for a person noun the bank
  asks too rarely ("which person"), the rows the bank answers *who* with.
* :func:`joined_words` (``JOINED_WORDS``) - two words of the question that, written joined, name a
  column or table ("work load" -> ``workload``), which the example does not say and the query never
  reads: the two words were read as wording ("In EECS 569 how is work load ?" from "What does X entail
  ?").

Every refusal is a sentence; :data:`REASON_CODES` gives its ``reason_code``. Each rule has a switch
for A/B runs. Hook: :func:`check_head` in ``Asker._adapt`` before the veto snapshot, and
:func:`check_candidate` after ``head_reading``, under the veto.
"""

from __future__ import annotations

import re
from typing import Any, Iterator, Sequence

from sqlglot import exp

from sqlgenie.inference.refusals import code_of, refuse_first
from sqlgenie.inference.verify import LazyBankModel

__all__ = ["REASON_CODES", "WhNouns", "check_candidate", "check_head", "dropped_ranking", "findings",
           "joined_words", "moved_exclusion", "reason_code", "ranks", "swapped_head", "wh_noun", "wh_noun_of",
           "wh_nouns"]

REASON_CODES = {
    "which this query ranks by": "dropped_ranking",
    "this query excludes": "moved_exclusion",
    "your question asks for the example's": "swapped_head",
    "none of the verified examples asking": "wh_noun",
    "asks for persons": "wh_noun",
    "written together name": "joined_words",
}

#: switches (benchmarks turn one rule off at a time)
DROPPED_RANKING = True
MOVED_EXCLUSION = True
SWAPPED_HEAD = True
WH_NOUN = True
JOINED_WORDS = True

#: bank questions asking a wh-noun needed before what they return is trusted; questions read per noun
MIN_USES = 3
SAMPLE = 200
_MASK = "#"

#: ranking words of English (a closed class; -est superlatives are read by form)
_RANKING = frozenset("""most least highest lowest largest smallest biggest greatest fewest best worst top maximum
minimum max min oldest youngest newest latest earliest longest shortest cheapest first last bottom""".split())
_NOT_SUPERLATIVE = frozenset("interest request forest suggest contest honest harvest manifest protest modest "
                             "digest invest arrest earnest interested interests".split())
#: exclusion cues (a closed class); "other" only before "than"
_EXCLUDE = frozenset({"not", "no", "never", "without", "besides", "except", "excluding", "nor"})
#: words between an exclusion and the part it excludes
_SCOPE_SKIP = frozenset("""a an the any some all their its his her my our your have has had having be been being is
are was were do does did there any of""".split())
_WH_SKIP = frozenset({"kind", "kinds", "type", "types", "sort", "sorts"})


def reason_code(reason: str) -> str | None:
    return code_of(reason, REASON_CODES)


# --------------------------------------------------------------------------- shared readings


def ranks(tree: exp.Expression) -> bool:
    """The query ranks: an ``ORDER BY`` with a ``LIMIT``, or a column compared with a subquery that
    takes a ``MIN`` / ``MAX``."""
    for sel in tree.find_all(exp.Select):
        if sel.args.get("order") is not None and sel.args.get("limit") is not None:
            return True
    for sub in tree.find_all(exp.Subquery):
        inner = sub.this
        if isinstance(inner, exp.Select) and any(e.find(exp.Max, exp.Min) is not None for e in inner.expressions) \
                and isinstance(sub.parent, (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE)):
            return True
    return False


def _superlative(word: str) -> bool:
    return word in _RANKING or (len(word) > 5 and word.endswith("est") and word not in _NOT_SUPERLATIVE)


_COMPARATIVES = frozenset({"more", "less", "fewer", "better", "worse", "rather", "over", "above", "below", "under"})


def _comparative(word: str) -> bool:
    return word in _COMPARATIVES or (len(word) > 4 and word.endswith("ier"))


def _ranking_words(words: Sequence[str], modifiers: Any, schema_word: Any = None) -> set[str]:
    """The words of ``words`` that ask a ranking: superlatives, and the words the bank always ranks with
    (schema words name what is asked, never how: as :func:`.precision.missing_modifiers`)."""
    from sqlgenie.inference.precision import _ORDER
    from sqlgenie.inference.verify import lemma

    found = {w for w in words if _superlative(w)}
    rest = [w for w in dict.fromkeys(words) if w not in found and w.isalpha() and len(w) > 3
            and not (schema_word is not None and (schema_word(w) or schema_word(lemma(w))))]
    if modifiers is not None and rest:
        found |= {w for w, cols in modifiers.modifiers(rest).items() if _ORDER in cols}
    return found


def _excluding(words: Sequence[str], k: int) -> bool:
    w = words[k]
    return w in _EXCLUDE or w.endswith("n't") or (w == "other" and k + 1 < len(words) and words[k + 1] == "than")


def _excluded_positions(words: Sequence[str]) -> list[int]:
    """The position of the part each exclusion cue excludes: the first word after it that is no
    article, auxiliary or "have" (within three words), or a masked value."""
    out = []
    for k in range(len(words)):
        if not _excluding(words, k):
            continue
        j = k + 1 + (words[k] == "other")
        for t in range(j, min(j + 3, len(words))):
            if words[t] in _SCOPE_SKIP:
                continue
            out.append(t)
            break
    return out


def _negation(node: exp.Expression) -> bool:
    """A NOT, a ``<>``, or a predicate sqlglot keeps negated (``NOT LIKE``: ``negate``)."""
    return isinstance(node, (exp.Not, exp.NEQ)) or bool(node.args.get("negate"))


def _negated(node: exp.Expression, root: exp.Expression) -> bool:
    """``node`` sits under a negation (:func:`_negation`) inside ``root``."""
    cur = node.parent
    while cur is not None and cur is not root.parent:
        if _negation(cur):
            return True
        cur = cur.parent
    return False


def _literal_of(tree: exp.Expression, text: str) -> list[exp.Literal]:
    want = text.strip().lower()
    return [lit for lit in tree.find_all(exp.Literal) if lit.this.strip("%").strip().lower() == want]


# --------------------------------------------------------------------------- rules


def dropped_ranking(tree: exp.Expression, example_masked: str, new_masked: str, modifiers: Any = None,
                    group: Any = None, schema_word: Any = None) -> list[str]:
    """See module doc. The ranking is the example's when it says a ranking word, or when every other
    paraphrase of its query (its skeleton group, at least one) says a superlative ("easily" in one
    example, "easiest" in each of its paraphrases)."""
    from sqlgenie.inference.verify import tokens

    if not ranks(tree):
        return []
    ex_words, new_words = tokens(example_masked), tokens(new_masked)
    if any(_superlative(w) or _comparative(w) for w in new_words) or _ranking_words(new_words, modifiers, schema_word):
        return []
    said = sorted(_ranking_words(ex_words, modifiers, schema_word) - set(new_words))
    others = [m.words | m.lemmas for m in getattr(group, "others", ()) or ()]
    if said:
        if any(not any(_superlative(w) for w in words) and not (set(said) & words) for words in others):
            return []  # a paraphrase of the example's query that says no ranking word
        quoted = ", ".join(f"\u201c{w}\u201d" for w in said)
        return [f"the example says {quoted}, which this query ranks by; your question asks for no ranking"]
    if others and all(any(_superlative(w) for w in words) for words in others):
        return ["every paraphrase of the example's query says a superlative, which this query ranks by; "
                "your question asks for no ranking"]
    return []


def moved_exclusion(tree: exp.Expression, example_masked: str, new_masked: str,
                    new_spans: Sequence[Any] | None = None) -> list[str]:
    """See module doc."""
    from sqlgenie.inference.adapt import Span
    from sqlgenie.inference.verify import tokens

    ex_words, new_words = tokens(example_masked), tokens(new_masked)
    ex_at, new_at = _excluded_positions(ex_words), _excluded_positions(new_words)
    if not ex_at or not new_at:
        return []  # an exclusion only one question says is other rules' (unasked_parts, counterparts)
    negations = [n for n in tree.walk() if _negation(n)]
    if not negations:
        return []
    # a value the question excludes, compared positively by the query while it excludes another
    if new_spans is not None and new_words.count(_MASK) == len(new_spans):
        masks = [k for k, w in enumerate(new_words) if w == _MASK]
        for t in new_at:
            if new_words[t] != _MASK:
                continue
            text = Span.of(new_spans[masks.index(t)]).text
            lits = _literal_of(tree, text)
            if lits and not any(_negated(lit, tree) for lit in lits):
                other = [lit.this.strip("%") for n in negations for lit in n.find_all(exp.Literal)
                         if lit.is_string and lit.this.strip("%").strip().lower() != text.strip().lower()]
                if other:
                    return [f"your question excludes {text}; this query excludes {other[0]} instead and "
                            f"keeps {text}"]
    return []


def _head_marks(word: str, heads: Any, tables: Sequence[str]) -> set[str] | None:
    """The entities the bank (:class:`.answer_words.AnswerHeads`) or a table's name says ``word`` is
    answered with; None when neither knows."""
    from sqlgenie.inference.sides import _word_table
    from sqlgenie.inference.verify import lemma

    table = _word_table(word, tables)
    if table is not None:
        return {lemma(table)}
    if heads is not None:
        marks = {m.split(":", 1)[1] for m in heads.marks(word) if m.startswith("entity:")}
        if marks:
            return marks
    return None


def swapped_head(tree: exp.Expression, example_masked: str, new_masked: str, catalog: Any = None,
                 schema_word: Any = None, heads: Any = None) -> list[str]:
    """See module doc."""
    from sqlgenie.inference.answer_words import output_entities
    from sqlgenie.inference.verify import lemma, question_roles, tokens

    ex, new = question_roles(example_masked, None, schema_word), question_roles(new_masked, None, schema_word)
    if ex.count or new.count or ex.yesno or new.yesno:
        return []
    asked = asked_noun(new_masked, schema_word) or (new.heads[0] if new.heads else None)
    answered = asked_noun(example_masked, schema_word) or (ex.heads[0] if ex.heads else None)
    if asked is None or answered is None or asked == answered:
        return []
    ex_lemmas, new_lemmas = {lemma(w) for w in tokens(example_masked)}, {lemma(w) for w in tokens(new_masked)}
    if asked not in ex_lemmas or answered in new_lemmas:
        return []
    schemas = {t.db.lower() for t in tree.find_all(exp.Table) if t.db}
    tables = [t.name.lower() for t in getattr(catalog, "tables", ()) or () if not schemas or t.schema.lower() in schemas]
    shown = output_entities(tree, catalog)
    asked_marks, answered_marks = _head_marks(asked, heads, tables), _head_marks(answered, heads, tables)
    if not shown or asked_marks is None or answered_marks is None or asked_marks & answered_marks:
        return []
    if asked_marks & shown or not answered_marks & shown:
        return []
    return [f"your question asks for the example's other part \u201c{asked}\u201d, not its answer "
            f"\u201c{answered}\u201d; this query returns {', '.join(sorted(shown))} rows"]


def wh_noun_of(words: Sequence[str], schema_word: Any = None) -> str | None:
    """The noun right after the question's wh-word ("*which* conferences", "in *what* venues"), as a
    lemma: the last schema word of the (up to three) words before an auxiliary, preposition or value,
    else the first of them; "what kind of X" reads X. None without one in the first three words."""
    from sqlgenie.inference.verify import _AUX, _LEAD, _PREP, _COUNT, lemma

    k = next((k for k, w in enumerate(words[:3]) if w in ("what", "which")), None)
    if k is None:
        return None
    j = k + 1
    if j + 1 < len(words) and words[j] in _WH_SKIP and words[j + 1] == "of":
        j += 2
    phrase: list[str] = []
    while j < len(words) and len(phrase) < 3:
        w = words[j]
        if w in _AUX or w in _PREP or w == "of" or w in (_MASK, _COUNT) or w in _LEAD or not w.isalpha() \
                or len(w) < 3:
            break
        phrase.append(w)
        j += 1
    if not phrase:
        return None
    known = [w for w in phrase if schema_word is not None and (schema_word(w) or schema_word(lemma(w)))]
    return lemma((known or phrase)[-1] if known else phrase[0])


def asked_noun(masked_text: str, schema_word: Any = None) -> str | None:
    """The noun after the wh-word of the question, or of its last clause after a comma ("Regarding
    classes with labs , *which professors* do not teach them ?")."""
    from sqlgenie.inference.verify import tokens

    return wh_noun_of(tokens(masked_text), schema_word) or \
        (wh_noun_of(tokens(masked_text.rsplit(",", 1)[1]), schema_word) if "," in masked_text else None)


def _output_columns(tree: exp.Expression, catalog: Any = None) -> set[str]:
    from sqlgenie.inference.answer_words import output_names

    return {column.rsplit(".", 1)[-1] for column, _ in output_names(tree, catalog)}


class WhNouns:
    """What the verified bank in scope returns for questions asking a wh-noun ("which conferences"):
    the output columns (names, aggregates left out) of its questions whose :func:`wh_noun_of` is the
    noun, when at least :data:`MIN_USES` say it. Read per noun on first use."""

    def __init__(self, store: Any, allowed: Any, catalog: Any, schema_word: Any, stamp: Any) -> None:
        self.store, self.allowed, self.catalog, self.schema_word, self.stamp = store, allowed, catalog, schema_word, stamp
        self.cache: dict[str, tuple[int, frozenset[str]]] = {}

    def returned(self, noun: str) -> tuple[int, frozenset[str]]:
        """(uses, the output columns any of them returns)."""
        got = self.cache.get(noun)
        if got is not None:
            return got
        from sqlgenie.autocorrect.base import parse_sql
        from sqlgenie.inference.verify import tokens, verified_rows

        rows = verified_rows(self.store, self.allowed, "masked_question, sql", "masked_question ~* %s",
                             [r"\m(what|which)\M.*\m" + re.escape(noun[:-1] if len(noun) > 4 else noun)], SAMPLE)
        uses, columns = 0, set()
        for masked, sql in rows:
            if wh_noun_of(tokens(masked), self.schema_word) != noun:
                continue
            try:
                found = _output_columns(parse_sql(sql), self.catalog)
            except Exception:
                continue
            uses += 1
            columns |= found
        self.cache[noun] = (uses, frozenset(columns))
        return self.cache[noun]


class _LazyWhNouns(LazyBankModel):
    def __init__(self, retriever: Any, catalog: Any, schema_word: Any) -> None:
        super().__init__(retriever, "_wh_nouns",
                         lambda store, allowed, stamp: WhNouns(store, allowed, catalog, schema_word, stamp))

    def returned(self, noun: str) -> tuple[int, frozenset[str]]:
        model = self.get()
        return model.returned(noun) if model is not None else (0, frozenset())


def wh_nouns(retriever: Any, catalog: Any, schema_word: Any) -> Any:
    """What the bank returns per wh-noun (:class:`WhNouns`), looked up lazily."""
    return _LazyWhNouns(retriever, catalog, schema_word)


def wh_noun(tree: exp.Expression, example_masked: str, new_masked: str, nouns: Any = None, who: Any = None,
            catalog: Any = None, schema_word: Any = None, group: Any = None) -> list[str]:
    """See module doc."""
    from sqlgenie.inference.answer_words import output_entities
    from sqlgenie.inference.head_reading import _PERSON_NOUNS, _WHO
    from sqlgenie.inference.verify import lemma, tokens

    ex_words, new_words = tokens(example_masked), tokens(new_masked)
    asked = wh_noun_of(new_words, schema_word)
    if asked is None or asked == wh_noun_of(ex_words, schema_word):
        return []
    if asked in {lemma(w) for w in ex_words}:
        return []
    if group is not None and group.word_added_ok(asked):
        return []  # a paraphrase of the example's query says it
    said = next((w for w in new_words if lemma(w) == asked), asked)
    uses, columns = nouns.returned(asked) if nouns is not None else (0, frozenset())
    if uses >= MIN_USES:
        extra = sorted(_output_columns(tree, catalog) - columns)
        if extra:
            return [f"the query returns {', '.join(extra)}, which none of the verified examples asking "
                    f"\u201c{said}\u201d returns"]
        return []
    if asked in _PERSON_NOUNS and who is not None and not (_WHO & set(ex_words)) and \
            not (_PERSON_NOUNS & {lemma(w) for w in ex_words}):
        marks, shown = who.entities(), output_entities(tree, catalog)
        if marks and shown and not marks & shown:
            return [f"your question asks for persons (\u201c{said}\u201d); the bank answers who with "
                    f"{', '.join(sorted(marks))} rows and this query returns {', '.join(sorted(shown))} rows"]
    return []


def _read_names(tree: exp.Expression) -> set[str]:
    """The names of the columns and tables the query reads, and their underscore-separated parts."""
    out: set[str] = set()
    for node in tree.find_all(exp.Column, exp.Table):
        name = node.name.lower()
        out.add(name)
        out |= set(name.split("_"))
    return out


def joined_words(tree: exp.Expression, example_masked: str, new_masked: str, schema_word: Any = None) -> list[str]:
    """See module doc."""
    from sqlgenie.inference.verify import lemma, tokens

    if schema_word is None:
        return []
    ex_words, new_words = tokens(example_masked), tokens(new_masked)
    ex_said = {w for w in ex_words} | {lemma(w) for w in ex_words}
    ex_said |= {a + b for a, b in zip(ex_words, ex_words[1:])}
    read = _read_names(tree)
    for a, b in zip(new_words, new_words[1:]):
        if not (a.isalpha() and b.isalpha()) or len(a) < 2 or len(b) < 2:
            continue
        joined = a + b
        if schema_word(joined) or schema_word(lemma(joined)):
            if joined in ex_said or lemma(joined) in ex_said or any(lemma(joined) in name for name in read):
                continue  # said by the example, or part of a name the query reads ("cited paper": citedpaperid)
            return [f"\u201c{a} {b}\u201d written together name {lemma(joined)}, which your question asks "
                    f"about and no column or table of the query is"]
    return []


# --------------------------------------------------------------------------- hooks


def findings(adapted: Any, example_masked: str, new_masked: str, *, catalog: Any = None, group: Any = None,
             schema_word: Any = None, modifiers: Any = None, nouns: Any = None, who: Any = None,
             new_spans: Sequence[Any] | None = None) -> Iterator[tuple[str, list[str]]]:
    """(rule, reasons) of every switched-on rule of :func:`check_candidate`, lazily."""
    if example_masked.strip().lower() == new_masked.strip().lower():
        return  # the same wording asks the same query
    tree = adapted.tree
    if tree is None:
        return
    if DROPPED_RANKING:
        yield "dropped ranking", dropped_ranking(tree, example_masked, new_masked, modifiers, group, schema_word)
    if MOVED_EXCLUSION:
        yield "moved exclusion", moved_exclusion(tree, example_masked, new_masked, new_spans)
    if WH_NOUN:
        yield "wh noun", wh_noun(tree, example_masked, new_masked, nouns, who, catalog, schema_word, group)
    if JOINED_WORDS:
        yield "joined words", joined_words(tree, example_masked, new_masked, schema_word)


def check_candidate(adapted: Any, example_masked: str, new_masked: str, *, catalog: Any = None, group: Any = None,
                    schema_word: Any = None, modifiers: Any = None, nouns: Any = None, who: Any = None,
                    new_spans: Sequence[Any] | None = None) -> Any:
    """Run the rules under the veto on one verified adaptation (changed in place): the first that finds a
    reason refuses it. Returns ``adapted``."""
    return refuse_first(adapted, findings(adapted, example_masked, new_masked, catalog=catalog, group=group,
                                          schema_word=schema_word, modifiers=modifiers, nouns=nouns, who=who,
                                          new_spans=new_spans))


def check_head(adapted: Any, example_masked: str, new_masked: str, *, catalog: Any = None,
               schema_word: Any = None, heads: Any = None) -> Any:
    """:func:`swapped_head` on one verified adaptation, run before the veto snapshot (a plain failure: a
    later candidate may answer). Returns ``adapted``."""
    if not SWAPPED_HEAD or adapted is None or adapted.tree is None or \
            example_masked.strip().lower() == new_masked.strip().lower():
        return adapted
    return refuse_first(adapted, [("swapped head", swapped_head(adapted.tree, example_masked, new_masked, catalog,
                                                                schema_word, heads))])
