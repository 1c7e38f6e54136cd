"""Two questions worded alike that the bank reads apart (issue 13, helper matchz).

On the fresh ADVISING and ATIS splits (seeds 9 and 10) many wrong answers left were to questions
whose nearest example says almost the same words, where one small part decides another query.
Each rule reads that part off the two questions (as written and masked), the adapted SQL's AST
and the verified bank in scope (closed classes of English words, or ties learned from the bank;
never a word list from a test set):

* :func:`yes_no_reading` - the question asks yes or no in a form the role grammar does not read
  as one ("Do you know *whether* X is hard ?", "X , *is it* hard ?"), the example does not, and
  the adapted query lists items instead of answering yes or no.
* :func:`time_frame` - the two questions place the asked things in different times (closed-class
  words: "in the *past*" / "*next* semester"; or one verb in the past and the present tense:
  "*taught*" / "*teaches*") while the query keeps a comparison with a constant its question did
  not say or with a subquery (the example's time window: ``semester < (SELECT ...)``); or the
  question alone names a past or a future ("taught by whom *in the past*") and the query keeps no
  time window and ranks nothing.
* :func:`how_kind` - "how do I get ..." asks for a way, "how long / how far / how many ..." for a
  measure (a closed class: "how" + an auxiliary verb is a manner question).
* :func:`two_directions` - "flights *to and from* X" gives one value two directions; the
  example gives it one (or the other way round).
* :func:`case_reading` - a word the two questions write in another case ("wednesday" /
  "WEDNESDAY") that the verified bank reads differently in the two forms (a date against a day
  name): the share of bank questions saying each form whose SQL compares it as a string.
* :func:`frequency` - "who *usually* teaches X" (a frequency adverb only the question says, no
  paraphrase of the example's query says it) answered by a query that neither counts nor ranks.
* :func:`two_rankings` - the question ranks by two things ("the *largest* class of the *easiest*
  courses"), the example by one, and the query by fewer than the question asks.
* :func:`time_asked` - "what time ..." asked, no time in the example's words, and no time in the
  query's answer.

Every refusal is a sentence; :data:`REASON_CODES` gives its ``reason_code``. Each rule has a
switch for A/B runs. Hook: one call in ``Asker._adapt`` after ``other_query``, under the same veto.
"""

from __future__ import annotations

import re
from typing import Any, Iterator, Sequence

from sqlglot import exp

from sqlgenie.inference.refusals import code_of, refuse_first

__all__ = ["REASON_CODES", "check_candidate", "time_frame", "findings", "how_kind", "reason_code",
           "case_reading", "time_asked", "two_directions", "yes_no_reading"]

REASON_CODES = {
    "your question asks yes or no": "yes or no",
    "and its query keeps the example's time window": "time frame",
    "how questions ask for": "how kind",
    "two directions": "two directions",
    "the verified examples read the two differently": "case reading",
    "your question asks what time": "time asked",
    "that the example does not, and its query keeps no time window": "time frame",
    "which asks how often": "how often",
    "your question ranks by": "two rankings",
}

#: switches (benchmarks turn one rule off at a time)
YES_NO = True
TIME_FRAME = True
HOW = True
DIRECTIONS = True
CASE = True
TIME = True
ADDED_FRAME = True
FREQUENCY = True
RANKINGS = True

#: ties learned from the bank: share and uses needed
MIN_SHARE = 0.8
MIN_USES = 3
SAMPLE = 60

_AUX = frozenset("is are was were do does did can could will would should shall may might has have had".split())
#: subjects of a yes/no clause after a comma ("X , is it hard ?"; not "you" / "I": "do you know which ...",
#: "can I take ..." are requests)
_SUBJECTS = frozenset("it they he she this that these those there".split())
_WH = frozenset("what which who whom whose where when how".split())
_CLOSED = frozenset("""a an the of in on at by for to from with and or is are was were be been do does did have has had
can could will would should shall may might what which who whom whose where when how i me my we us you your it its
they them their this that these those there here any all some each every not no please show list give tell find
get want need like would also just than then as if whether so""".split())


def reason_code(reason: str) -> str | None:
    return code_of(reason, REASON_CODES)


def _words(text: str) -> list[str]:
    """Lower-case words of a question as written (masks as ``#``), apostrophes kept."""
    return re.findall(r"#|[a-z0-9]+(?:'[a-z]+)?", (text or "").lower().replace("[mask]", " # "))


# --------------------------------------------------------------------------- yes or no


def _asks_yes_no(text: str) -> str | None:
    """The words that make ``text`` a yes/no question the role grammar misses, or None:
    "whether", "(know | tell me | see | check) if", or a clause after a comma that starts with an
    auxiliary and a subject other than "you" / "I", with no wh-word ("X , is it hard ?")."""
    words = _words(text)
    for k, w in enumerate(words):
        if w == "whether":
            return "whether"
        if w == "if" and k and words[k - 1] in ("know", "me", "see", "check", "wondering", "wonder"):
            return "if"
    clauses = re.split(r"[,;]", (text or "").lower())
    for clause in clauses[1:]:
        cw = _words(clause)
        if len(cw) > 1 and cw[0] in _AUX and cw[1] in _SUBJECTS and not _WH & set(cw):
            return " ".join(cw[:2])
    return None


def yes_no_reading(tree: exp.Expression, example_text: str, new_text: str, example_yesno: bool) -> list[str]:
    """See module doc."""
    from sqlgenie.inference.counterparts import _only_predicates

    said = _asks_yes_no(new_text)
    first = _words(example_text)[:1]
    if said is None or example_yesno or _asks_yes_no(example_text) is not None or (first and first[0] in _AUX):
        return []
    if _only_predicates(tree):
        return []
    return [f"your question asks yes or no (\u201c{said}\u201d), the example asks for the items and its query "
            "lists them"]


# --------------------------------------------------------------------------- comparisons the bank writes for words


def _direction(node: exp.Expression) -> tuple[str, str] | None:
    """``(column name, '<' | '>')`` of a comparison of a column with a constant or a subquery
    (the column read on the left), else None."""
    ops = {exp.GT: ">", exp.GTE: ">", exp.LT: "<", exp.LTE: "<"}
    op = ops.get(type(node))
    if op is None:
        return None
    left, right = node.left, node.right
    if isinstance(left, exp.Column) and isinstance(right, (exp.Literal, exp.Subquery, exp.Select)):
        return left.name.lower(), op
    if isinstance(right, exp.Column) and isinstance(left, (exp.Literal, exp.Subquery, exp.Select)):
        return right.name.lower(), "<" if op == ">" else ">"
    return None


def comparisons(tree: exp.Expression, question_words: Sequence[str]) -> set[tuple[str, str]]:
    """The ``(column, direction)`` comparisons of ``tree`` with a constant the question did not
    say (a number of the question is its value, not the bank's) or with a subquery."""
    said = set(question_words)
    out: set[tuple[str, str]] = set()
    for node in tree.find_all(exp.GT, exp.GTE, exp.LT, exp.LTE):
        d = _direction(node)
        if d is None:
            continue
        lit = node.right if isinstance(node.right, exp.Literal) else node.left if isinstance(node.left, exp.Literal) \
            else None
        if lit is not None and str(lit.this).lower() in said:
            continue
        out.add(d)
    return out


#: frequency adverbs (closed class of English)
_FREQUENCY = frozenset("usually typically commonly normally generally mostly frequently often".split())
_PAST = frozenset("past previous previously ago formerly".split())
_FUTURE = frozenset("next upcoming future coming".split())
_PRESENT = frozenset("current currently now".split())


def _frames(words: Sequence[str]) -> dict[str, str]:
    """The time frames a question names by a closed-class word: frame -> the word."""
    out: dict[str, str] = {}
    for w in words:
        for frame, cls in (("past", _PAST), ("future", _FUTURE), ("present", _PRESENT)):
            if w in cls:
                out.setdefault(frame, w)
    return out


def _tense_change(ex_words: Sequence[str], new_words: Sequence[str]) -> tuple[str, str] | None:
    """A verb the two questions share in the past in one ("taught", "offered") and in the present
    in the other ("teaches", "teach"): ``(example's form, question's form)``."""
    from sqlgenie.inference.verify import _IRREGULAR

    def past(words: Sequence[str]) -> dict[str, str]:
        out = {}
        for w in words:
            if w in _IRREGULAR and w not in ("people", "children", "men", "women"):
                out[_IRREGULAR[w]] = w
        return out

    def present(words: Sequence[str]) -> dict[str, str]:
        out = {}
        for w in words:
            out.setdefault(w, w)
            for suffix in ("es", "s"):
                if w.endswith(suffix) and len(w) - len(suffix) >= 3:
                    out.setdefault(w[:-len(suffix)], w)
        return out

    for a, b, flip in ((ex_words, new_words, False), (new_words, ex_words, True)):
        pa, pr = past(a), present(b)
        for verb, form in pa.items():
            if verb in pr and verb not in a and form not in b:
                return (pr[verb], form) if flip else (form, pr[verb])
    return None


def time_frame(tree: exp.Expression, example_masked: str, new_masked: str, question: str = "",
               group: Any = None) -> list[str]:
    """See module doc: the two questions place the asked things in different time frames (a
    closed-class word: "in the past" / "next semester"; or one verb in the past and the present
    tense: "taught" / "teaches") while the query compares with a constant its question did not
    say or a subquery (a time window kept from the example)."""
    ex_words, new_words = _words(example_masked), _words(new_masked)
    fe, fn = _frames(ex_words), _frames(new_words)
    if not comparisons(tree, _words(question) or new_words):
        # no time window in the query: a past or a future only the question names is not answered
        # (a query that ranks, "ORDER BY year DESC LIMIT 1", already picks a time: "offered previously")
        from sqlgenie.inference.other_query import _ranks

        added = [w for f, w in fn.items() if f != "present" and f not in fe]
        if ADDED_FRAME and added and not fe and not (group is not None and group.word_added_ok(added[0])) \
                and not _ranks(tree):
            return [f"your question asks about a time (\u201c{added[0]}\u201d) that the example does not, "
                    "and its query keeps no time window"]
        return []
    if fe and fn and not (set(fe) & set(fn)):
        e, n = next(iter(fe.values())), next(iter(fn.values()))
        if not (group is not None and group.removed_ok({e}) and group.word_added_ok(n)):
            return [f"the example asks about another time (\u201c{e}\u201d) than your question (\u201c{n}\u201d), "
                    "and its query keeps the example's time window"]
    change = None if fe or fn else _tense_change(ex_words, new_words)
    if change is not None and not (group is not None and group.removed_ok({change[0]})
                                   and group.word_added_ok(change[1])):
        return [f"the example asks about another time (\u201c{change[0]}\u201d) than your question "
                f"(\u201c{change[1]}\u201d), and its query keeps the example's time window"]
    return []


# --------------------------------------------------------------------------- how


def _how(words: Sequence[str]) -> str | None:
    """"manner" for "how" + an auxiliary ("how do I get"), "measure" for "how" + another word
    ("how long", "how many"), None without "how"."""
    for k, w in enumerate(words):
        if w == "how" and k + 1 < len(words):
            return "manner" if words[k + 1] in _AUX else "measure"
    return None


def how_kind(example_masked: str, new_masked: str) -> list[str]:
    """See module doc."""
    from sqlgenie.inference.verify import tokens

    a, b = _how(tokens(example_masked)), _how(tokens(new_masked))
    if a is None or b is None or a == b:
        return []
    return [f"how questions ask for different things: yours for a {b}, the example for a {a}"]


# --------------------------------------------------------------------------- two directions

_TWO_DIRECTIONS = re.compile(r"\b(?:to|from|into)\s+(?:and|or|&)\s+(?:to|from|into|out\s+of)\s+\[mask\]"
                             r"|\bin\s+and\s+out\s+of\s+\[mask\]", re.I)


def two_directions(example_masked: str, new_masked: str) -> list[str]:
    """See module doc."""
    a, b = bool(_TWO_DIRECTIONS.search(example_masked)), bool(_TWO_DIRECTIONS.search(new_masked))
    if a == b:
        return []
    whose = "your question" if b else "the example"
    return [f"{whose} gives one value two directions (to and from), the other question one"]


# --------------------------------------------------------------------------- case


def _form(word: str) -> str | None:
    if word.isupper():
        return "upper"
    if word.islower():
        return "lower"
    return None


class CaseReadings:
    """Per word as written (case kept), ``(uses, as a value)``: the verified bank questions that
    say it in that form, and those whose SQL compares a string equal to it (case folded)."""

    def __init__(self, store: Any, allowed: Any, stamp: Any = None) -> None:
        self.store, self.allowed, self.stamp = store, allowed, stamp
        self.cache: dict[str, tuple[int, int]] = {}

    def reading(self, word: str) -> tuple[int, int]:
        if word in self.cache:
            return self.cache[word]
        from sqlgenie.autocorrect.base import parse_sql
        from sqlgenie.inference.verify import verified_rows

        rows = verified_rows(self.store, self.allowed, "question, sql", "question ~ %s",
                             [r"\m" + re.escape(word) + r"\M"], SAMPLE)
        uses = value = 0
        folded = word.lower()
        for question, sql in rows:
            if word not in re.findall(r"[A-Za-z0-9]+", question):
                continue
            try:
                consts = {str(lit.this).lower() for lit in parse_sql(sql).find_all(exp.Literal) if lit.is_string}
            except Exception:
                continue
            uses += 1
            if folded in consts:
                value += 1
        self.cache[word] = (uses, value)
        return self.cache[word]


def _case_readings(retriever: Any) -> CaseReadings | None:
    from sqlgenie.inference.verify import cached_per_bank

    store = getattr(retriever, "store", None)
    if store is None:
        return None
    return cached_per_bank(retriever, "_case_readings",
                           lambda stamp: CaseReadings(store, getattr(retriever, "allowed", None), stamp))


def case_reading(example_question: str, question: str, readings: Any) -> list[str]:
    """See module doc. ``readings``: a :class:`CaseReadings`, or a callable giving one (called only
    when a word changes case)."""
    if readings is None:
        return []
    ex_forms: dict[str, str] = {}
    for w in re.findall(r"[A-Za-z]{3,}", example_question or ""):
        if _form(w):
            ex_forms.setdefault(w.lower(), w)
    for w in dict.fromkeys(re.findall(r"[A-Za-z]{3,}", question or "")):
        other = ex_forms.get(w.lower())
        if other is None or other == w or _form(w) is None or _form(w) == _form(other):
            continue
        if w in re.findall(r"[A-Za-z]+", example_question) or other in re.findall(r"[A-Za-z]+", question):
            continue  # both forms in one question: no reading to compare
        if callable(readings):  # looked up only when a word changes case (a bank hit stays fast)
            readings = readings()
            if readings is None:
                return []
        (u1, v1), (u2, v2) = readings.reading(w), readings.reading(other)
        if u1 < MIN_USES or u2 < MIN_USES:
            continue
        if abs(v1 / u1 - v2 / u2) >= 0.6:
            return [f"your question writes \u201c{w}\u201d, the example \u201c{other}\u201d; the verified examples "
                    f"read the two differently (as a value in {v1} of {u1} and {v2} of {u2} questions)"]
    return []


# --------------------------------------------------------------------------- what time


def time_asked(tree: exp.Expression, example_masked: str, new_masked: str, catalog: Any) -> list[str]:
    """See module doc."""
    from sqlgenie.inference.precision import _column_info, _temporal_name, answer_items
    from sqlgenie.inference.verify import tokens

    new, ex = tokens(new_masked), tokens(example_masked)
    asked = any(w in ("what", "which") and k + 1 < len(new) and new[k + 1] in ("time", "times")
                for k, w in enumerate(new))
    if not asked or "time" in ex or "times" in ex or "when" in ex:
        return []
    answer = answer_items(tree)
    if answer is None:
        return []
    items, tables = answer
    for e in items:
        for col in e.find_all(exp.Column):
            info = _column_info(col, tables, catalog)
            if (info is not None and info.family == "temporal") or _temporal_name(col.name):
                return []
    return ["your question asks what time, and the query answers with no time"]


# --------------------------------------------------------------------------- how often


def frequency(tree: exp.Expression, example_masked: str, new_masked: str, group: Any = None) -> list[str]:
    """See module doc: "who *usually* teaches X" asks for the most frequent, which the query must
    count or rank."""
    ex_words, new_words = _words(example_masked), _words(new_masked)
    said = [w for w in new_words if w in _FREQUENCY and w not in ex_words]
    if not said or any(w in _FREQUENCY for w in ex_words) or (group is not None and group.word_added_ok(said[0])):
        return []
    if tree.find(exp.Count) is not None or any(sel.args.get("order") is not None for sel in tree.find_all(exp.Select)):
        return []
    return [f"your question says \u201c{said[0]}\u201d, which asks how often, and the query neither counts "
            "nor ranks"]


# --------------------------------------------------------------------------- two rankings


def _ranked_columns(tree: exp.Expression) -> set[str]:
    """Columns the query ranks by: inside a MAX / MIN over all rows of its SELECT, or an ORDER BY key."""
    out: set[str] = set()
    for agg in (*tree.find_all(exp.Max), *tree.find_all(exp.Min)):
        sel = agg.find_ancestor(exp.Select)
        if sel is not None and sel.args.get("group") is None:
            out |= {c.name.lower() for c in agg.find_all(exp.Column)}
    for sel in tree.find_all(exp.Select):
        order = sel.args.get("order")
        if order is not None:
            for key in order.expressions:
                out |= {c.name.lower() for c in key.find_all(exp.Column)} or {key.sql().lower()}
    return out


def _rankings(words: list[str], comparing: Any) -> list[str]:
    """The question's rankings, one per run of comparing words that only a count separates:
    "the *top* 3 *largest*" is one ranking, "the *largest* class of the *easiest*" two."""
    runs: list[list[str]] = []
    joined = False  # the previous word was a comparing word, or a count after one
    for w in words:
        if comparing([w]):
            if joined:
                runs[-1].append(w)
            else:
                runs.append([w])
            joined = True
        elif not (joined and (w == "#" or w.isdigit())):
            joined = False
    return list(dict.fromkeys(" ".join(r) for r in runs))


def two_rankings(tree: exp.Expression, example_masked: str, new_masked: str) -> list[str]:
    """See module doc: the question ranks by two things ("the *largest* class of the *easiest*
    courses"), the example by one, and the query by fewer than the question asks."""
    from sqlgenie.inference.other_query import _comparing_words
    from sqlgenie.inference.verify import tokens

    asked = _rankings(tokens(new_masked), _comparing_words)
    ex = _rankings(tokens(example_masked), _comparing_words)
    if len(asked) < 2 or len(ex) >= len(asked):
        return []
    ranked = _ranked_columns(tree)
    if len(ranked) >= len(asked):
        return []
    return [f"your question ranks by {len(asked)} things ({', '.join(asked[:3])}), the example by {len(ex)} "
            f"and its query by {len(ranked)}"]


# --------------------------------------------------------------------------- the rules together


def findings(adapted: Any, example_question: str, question: str, example_masked: str, new_masked: str, *,
             retriever: Any = None, catalog: Any = None, group: Any = None,
             example_yesno: bool = False) -> Iterator[tuple[str, list[str]]]:
    """(rule, reasons) of every switched-on rule, lazily, in the order they are tried."""
    tree = adapted.tree
    if YES_NO:
        yield "yes or no", yes_no_reading(tree, example_question, question, example_yesno)
    if HOW:
        yield "how kind", how_kind(example_masked, new_masked)
    if DIRECTIONS:
        yield "two directions", two_directions(example_masked, new_masked)
    if TIME:
        yield "time asked", time_asked(tree, example_masked, new_masked, catalog)
    if TIME_FRAME:
        yield "time frame", time_frame(tree, example_masked, new_masked, question, group)
    if FREQUENCY:
        yield "how often", frequency(tree, example_masked, new_masked, group)
    if RANKINGS:
        yield "two rankings", two_rankings(tree, example_masked, new_masked)
    if CASE:
        yield "case reading", case_reading(example_question, question, lambda: _case_readings(retriever))


def check_candidate(adapted: Any, example_question: str, question: str, example_masked: str, new_masked: str, *,
                    retriever: Any = None, catalog: Any = None, group: Any = None) -> Any:
    """Run this module's refusals on one verified adaptation (changed in place); the first rule
    that finds a reason refuses it. Returns ``adapted``."""
    if adapted is None or not adapted.ok or adapted.tree is None:
        return adapted
    return refuse_first(adapted, findings(adapted, example_question, question, example_masked, new_masked,
                                          retriever=retriever, catalog=catalog, group=group))
