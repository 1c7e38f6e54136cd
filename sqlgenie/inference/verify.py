"""Verification of a match-route adaptation: does the adapted SQL answer *this* question?

:func:`sqlgenie.inference.adapt.adapt_sql` proves that every value of the question
replaced a value of the example. It does not prove that the two questions have the
same *structure*: "Which 5 cities have the most customers?" and "How many customers
are in the 5 biggest cities?" use the same content words in swapped roles. This
module sits between adaptation and execution and checks the structure with a small
rule grammar over question tokens (see docs/architecture.md, "Match verification"):

* :func:`question_roles` reads a masked question into roles: the **answer** items
  and their heads ("the *price* of the most expensive product"), whether the answer
  is a count, the **ranking keys** (targets of superlatives, "top N ... by X",
  "ordered by X"), the **grouping** words ("per X", "for each X", "X by Y"), each
  number's role (``limit`` | ``compare`` | ``value``) and verbs in the passive voice.
* :func:`compare_roles` refuses on positive evidence of another structure: a word that
  is the answer in one question and the ranking key in the other; an answer head that
  plays another part in the example; a number that is a limit in one and a bound in the
  other; a voice change without its agent ("products were sold" against "does the
  brand sell"); a yes/no question against a wh-question or a bare phrase; who / where /
  when against a bare phrase. Answer items asked in another order reorder the SELECT.
* :func:`projection_mismatch`: the question asks for one attribute ("the *price* of the
  most expensive product") of what the example answers with (the products themselves).
* :func:`unlicensed_filters` finds SQL filters whose value words the example question
  says and the new question does not ("headphones" in ``category = 'Headphones'``);
  :func:`unaccounted_values` finds words the question adds that verified examples use
  as constants ("acl", "luke zettlemoyer") while this SQL does not filter on them;
  :func:`direction_swaps` finds a value after "from" in one question and "to" in the other;
  :func:`implied_constants` refuses an example whose SQL compares with a number no value of
  its question produced ("morning" -> ``BETWEEN 0 AND 1200``, "nonstop" -> ``stops = 0``)
  when the two questions are worded differently.
* :func:`reduce_example` drops an example filter whose value the question does not
  mention, only when that is exact: removing the value from the example question gives
  the new question word for word, and the filter is one top-level conjunct of the outer
  WHERE on a column that does not shape the answer.
* :func:`rename_aliases` names output columns after the question's values
  (``returned_pct`` becomes ``cancelled_pct`` when "cancelled" replaced "returned").

Decided against (measured on Spider paraphrases, which rarely keep word order): refusing
every word whose role differs, every word the question adds, or qualifiers of the
answer noun; each lost a large share of right answers for few wrong ones.

:func:`adapt_verified` runs all of it for one bank candidate; the Asker tries the
top-k candidates with it. Every refusal reason is a sentence a user can read.
"""

from __future__ import annotations

import bisect
import contextlib
import contextvars
import functools
import itertools
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Sequence

from sqlglot import exp

from sqlgenie.inference import shared_constants
from sqlgenie.autocorrect.base import parse_sql, parsed_read_only, to_sql
from sqlgenie.inference.adapt import (
    DIRECTION_BEFORE_VALUE,
    AdaptedSQL,
    Span,
    _singular,
    adapt_sql,
    align,
    collect_slots,
    example_alignment,
    norm_text,
    question_diff,
)

__all__ = [
    "Roles",
    "adapt_verified",
    "compare_roles",
    "lemma",
    "question_roles",
    "reduce_example",
    "rename_aliases",
    "unlicensed_filters",
    "implied_constants",
]

SchemaWord = Callable[[str], bool]

# --------------------------------------------------------------------------- tokens

_TOKEN_RE = re.compile(r"#|[a-z0-9]+(?:'[a-z]+)?")
_MASK = "#"
_COUNT = "<count>"

_IRREGULAR = {
    "sold": "sell", "bought": "buy", "made": "make", "paid": "pay", "given": "give", "gave": "give",
    "taken": "take", "took": "take", "written": "write", "wrote": "write", "held": "hold", "won": "win",
    "built": "build", "sent": "send", "spent": "spend", "taught": "teach", "born": "bear", "led": "lead",
    "drove": "drive", "driven": "drive", "flew": "fly", "flown": "fly", "ran": "run", "sang": "sing",
    "sung": "sing", "brought": "bring", "kept": "keep", "left": "leave", "lost": "lose", "met": "meet",
    "shown": "show", "grown": "grow", "done": "do", "seen": "see", "got": "get", "gotten": "get",
    "people": "person", "children": "child", "men": "man", "women": "woman",
}
_PARTICIPLES = frozenset(w for w in _IRREGULAR if w not in ("people", "children", "men", "women", "gave",
                                                             "took", "wrote", "drove", "flew", "ran", "sang"))


@functools.lru_cache(maxsize=16384)
def lemma(word: str) -> str:
    """A crude lemma: irregular forms, then plural -s (``cities`` -> ``city``)."""
    w = word.lower().replace("'s", "")
    if w in _IRREGULAR:
        return _IRREGULAR[w]
    return _singular(w)


@functools.lru_cache(maxsize=8192)
def _tokens_cached(masked_text: str) -> tuple[str, ...]:
    return tuple(_tokens(masked_text))


def tokens(masked_text: str) -> list[str]:
    """See :func:`_tokens` (cached: bank questions repeat)."""
    return list(_tokens_cached(masked_text))


def _tokens(masked_text: str) -> list[str]:
    """Lower-case words of a masked question; each ``[MASK]`` is ``#``; ``how many`` /
    ``number of`` ... become one count marker."""
    text = " " + masked_text.lower().replace("[mask]", " # ") + " "
    text = re.sub(r"[^a-z0-9#' ]+", " ", text).replace("' ", " ")
    text = " " + " ".join(text.split()) + " "
    for phrase in ("the total number of", "total number of", "the number of", "number of", "how many",
                   "the count of", "count of"):
        text = text.replace(f" {phrase} ", f" {_COUNT} ")
    return [t if t != "<count>" else _COUNT for t in re.findall(r"<count>|#|[a-z0-9]+(?:'[a-z]+)?", text)]


# --------------------------------------------------------------------------- roles

_LEAD = frozenset("""what which who whom show list give find return display tell get provide me us all the a an
is are was were please i want to know can you could would like each every different distinct unique
there do does did retrieve report compute calculate output name""".split()) - {"name"}
_LEAD_STARTERS = frozenset("""what which who whom show list give find return display tell get provide count
retrieve report compute calculate output how""".split())
_PREP = frozenset("""in at on for from with by that who which whose where when than per through during since
before after between to into over under having among across within without near whom if ordered sorted
order sort grouped arranged listed along as""".split())
_AUX = frozenset("is are was were be been being do does did have has had can could will would should may might "
                 "there".split())
_SUPERLATIVE = frozenset("""most least highest lowest largest smallest biggest greatest fewest best worst top maximum
minimum max min oldest youngest newest latest earliest longest shortest cheapest heaviest lightest richest
poorest tallest bottom""".split())
_SUPER_KEY = frozenset({"most", "least", "fewest", "top", "bottom", "highest", "lowest", "maximum", "minimum",
                        "max", "min", "greatest", "largest", "smallest", "biggest"})
_COMPARE_BEFORE = frozenset("than over above under below exceed exceeds exceeding exceeded least beyond "
                            "atleast past".split())
_LIMIT_BEFORE = frozenset({"top", "first", "bottom", "last"})
_SKIP_IN_PHRASE = frozenset({"the", "a", "an", "all", "each", "every", "their", "its", "his", "her", "different",
                             "distinct", "unique", "total", "average", "mean", "sum", "maximum", "minimum", "max",
                             "min", "overall", "combined", "respective", "corresponding", "full", "also",
                             _COUNT, _MASK})
_NOT_NOUN_END = ("ed", "ing", "ly")
_AGG = {"average": "avg", "mean": "avg", "avg": "avg", "maximum": "max", "max": "max", "minimum": "min",
        "min": "min", "total": "sum", "sum": "sum", "combined": "sum", _COUNT: "count"}


@dataclass
class Roles:
    """What each part of a question does (see module doc)."""

    words: list[str]
    items: list[list[str]] = field(default_factory=list)  # answer items (lemmas), in order
    heads: list[str] = field(default_factory=list)  # head lemma of each item
    signature: list[str] = field(default_factory=list)  # "aggregate:head" of each item, in order
    count: bool = False
    owner: list[str] = field(default_factory=list)  # "the price OF the most expensive PRODUCT"
    ranked: set[str] = field(default_factory=set)  # ranking keys
    grouped: set[str] = field(default_factory=set)
    numbers: list[str] = field(default_factory=list)  # role of each masked number span, in order
    super_in_answer: bool = False  # a superlative inside the answer phrase ("the 5 most expensive products")
    super_in_owner: bool = False  # a superlative in the "of" phrase ("the price of the most expensive product")
    passive: dict[str, str] = field(default_factory=dict)  # verb lemma -> participle, passive voice
    active: set[str] = field(default_factory=set)  # verb lemmas finite and active ("does ... sell")
    agent: set[str] = field(default_factory=set)  # passive verbs with their agent ("cited by X")
    text_values: int = 0  # masked text values
    kind: str = ""  # who | where | when | wh | "" (a bare phrase: "papers on parsing")
    yesno: bool = False  # a yes/no question with no wh-word
    asks_for: bool = False  # a wh-word, "how many" or a request ("list ...")

    def key_roles(self, word: str) -> set[str]:
        out = set()
        if word in self.heads:
            out.add("answer")
        if word in self.ranked:
            out.add("rank")
        if word in self.grouped:
            out.add("group")
        return out

    def to_dict(self) -> dict[str, Any]:
        return {"items": [" ".join(i) for i in self.items], "heads": self.heads, "count": self.count,
                "owner": self.owner, "ranked": sorted(self.ranked), "grouped": sorted(self.grouped),
                "numbers": self.numbers, "passive": sorted(self.passive)}


def _is_content(w: str) -> bool:
    return w not in _SKIP_IN_PHRASE and w not in _LEAD and w not in _PREP and w not in _AUX and \
        not w.isdigit() and len(w) > 1


def _head(words: Sequence[str], schema_word: SchemaWord | None) -> str | None:
    content = [w for w in words if _is_content(w) and w not in _SUPERLATIVE]
    if not content:
        return None
    if schema_word is not None:
        known = [w for w in content if schema_word(w) or schema_word(lemma(w))]
        if known:
            return lemma(known[-1])
    nouns = [w for w in content if not w.endswith(_NOT_NOUN_END)]
    return lemma((nouns or content)[-1])


def question_roles(masked_text: str, span_classes: Sequence[str] | None = None,
                   schema_word: SchemaWord | None = None) -> Roles:
    """Read a masked question into :class:`Roles` with a small rule grammar.

    ``span_classes``: the class (text | number | date) of each ``[MASK]`` in order, to
    give every number its role; ``schema_word(word)``: True for words naming a table,
    a column or one of their synonyms (picks the head of a noun phrase).

    Inside an ask (:func:`one_bank_stamp`) a reading is made once per text, classes and schema-word look-up and
    shared by the rule modules that read it (perf18: seven of them read the same two questions for every
    candidate); it is read only, as :func:`_roles`' are. Outside an ask: a new reading every call."""
    memo = _ASK_STAMPS.get()
    if memo is None:
        return _read_roles(masked_text, span_classes, schema_word)
    key = ("question_roles", masked_text, None if span_classes is None else tuple(span_classes), schema_word)
    try:
        got = memo.get(key)
    except TypeError:  # an unhashable look-up: not remembered
        return _read_roles(masked_text, span_classes, schema_word)
    if got is None:
        got = memo[key] = _read_roles(masked_text, span_classes, schema_word)
    return got


def _read_roles(masked_text: str, span_classes: Sequence[str] | None, schema_word: SchemaWord | None) -> Roles:
    """:func:`question_roles`, read afresh."""
    words = tokens(masked_text)
    roles = Roles(words)
    n = len(words)
    # 0. the kind of question: who / where / when (anywhere), another wh-word or a request, or a bare phrase
    if words:
        place = next((w for w in words if w in ("who", "whom", "whose", "where", "when")), "")
        if place:
            roles.kind = {"whom": "who", "whose": "who"}.get(place, place)
        elif any(w in _LEAD_STARTERS or w == _COUNT or w in _AUX for w in words[:4]):
            roles.kind = "wh"
        roles.asks_for = any(w in _WH or w == _COUNT for w in words) or words[0] in _LEAD_STARTERS
        # "Are all upper-level classes 3 credits?", "Has X written any papers?" (not "Do you know ...",
        # "Can I ...", "Is there ...": requests and existentials list the items)
        roles.yesno = words[0] in _AUX - {"there"} and n > 1 and words[1] not in ("you", "i", "we", "there") \
            and not roles.asks_for
    # 1. the answer phrase: after the lead words, up to a preposition, an auxiliary or a verb
    i = 0
    if n > 1 and words[0] in ("in", "for", "at", "on", "from", "during", "to", "by", "with") and \
            words[1] in ("what", "which", "whom", "how"):
        i = 1  # "In what years did ..."
    while i < n and (words[i] in _LEAD or words[i] in _LEAD_STARTERS) and words[i] != _COUNT:
        i += 1
    phrase: list[str] = []
    while i < n:
        w = words[i]
        if w == _COUNT:
            roles.count = True
            i += 1
            continue
        if w in _PREP or w in _AUX or w == "of":
            break
        if phrase and w.endswith("ed") and len(w) > 4:
            break  # "customers signed up ..."
        phrase.append(w)
        i += 1
    if i < n and words[i] == "of":
        j = i + 1
        while j < n and words[j] not in _PREP and words[j] not in _AUX and words[j] != "of":
            if words[j] == _COUNT:
                roles.count = True
            else:
                roles.owner.append(words[j])
            j += 1
    roles.super_in_answer = any(w in _SUPERLATIVE for w in phrase)
    roles.super_in_owner = any(w in _SUPERLATIVE for w in roles.owner)
    items: list[list[str]] = [[]]
    for w in phrase:
        if w in ("and", "or", "as", "along", "plus", "both"):
            if items[-1]:
                items.append([])
            continue
        items[-1].append(w)
    for item in items:
        head = _head(item, schema_word)
        agg = next((_AGG[w] for w in item if w in _AGG), "")
        if head is not None or agg:
            roles.items.append([lemma(w) for w in item if _is_content(w)])
            roles.signature.append(f"{agg}:{head or ''}")
        if head is not None:
            roles.heads.append(head)
    if not roles.heads and roles.owner:
        # "what is the average of X", "how many of the Y": the owner is what is answered
        head = _head(roles.owner, schema_word)
        if head is not None:
            roles.heads.append(head)
            roles.items.append([lemma(w) for w in roles.owner if _is_content(w)])
            roles.signature.append(":" + head)
    # 2. ranking keys, grouping, passives
    for k, w in enumerate(words):
        if w in ("top", "bottom"):
            continue  # "top 5 X by Y": Y is the key ("by" below)
        if w in _SUPER_KEY or w in ("by",) and any(x in _SUPER_KEY or x in ("ordered", "sorted", "order", "sort",
                                                                             "rank", "ranked")
                                                   for x in words[max(0, k - 6):k]):
            j = k + 1
            while j < n and (words[j] in ("the", "a", "an", "of", _COUNT, _MASK, "total", "number", "amount")
                             or words[j].isdigit()):
                j += 1
            if j < n and _is_content(words[j]) and words[j] not in _SUPERLATIVE:
                roles.ranked.add(lemma(words[j]))
            elif j >= n and j - 1 > k and words[j - 1] in ("total", "amount", "number"):
                roles.ranked.add(words[j - 1])  # "... by total"
        elif w in ("per", "each", "every") or (w == "by" and k > 0):
            j = k + 1
            while j < n and words[j] in ("the", "a", "an", "each", "every", "their", "its", "respective"):
                j += 1
            if j < n and _is_content(words[j]):
                roles.grouped.add(lemma(words[j]))
        if w in ("is", "are", "was", "were", "been", "be", "being", "get", "got") and k + 1 < n:
            nxt = words[k + 1] if words[k + 1] not in ("not", "never", "also") else (words[k + 2] if k + 2 < n else "")
            if nxt in _PARTICIPLES or (nxt.endswith("ed") and len(nxt) > 4):
                roles.passive[_verb_lemma(nxt)] = nxt
                at = words.index(nxt, k + 1)
                if "by" in words[at + 1:at + 3]:
                    roles.agent.add(_verb_lemma(nxt))  # "owned by someone": the active's subject is named
        if w in ("do", "does", "did") and k + 1 < n:
            for nxt in words[k + 1:k + 6]:
                if nxt in _PREP or nxt == _MASK:
                    continue
                if lemma(nxt) == nxt and nxt not in _IRREGULAR and not nxt.endswith("ed") and \
                        (schema_word is None or not schema_word(nxt)) and _is_content(nxt):
                    roles.active.add(nxt)
    # 3. numbers
    if span_classes is not None:
        roles.text_values = sum(1 for c in span_classes if c == "text")
        masks = [k for k, w in enumerate(words) if w == _MASK]
        if len(masks) == len(span_classes):
            for k, cls in zip(masks, span_classes):
                if cls != "number":
                    continue
                roles.numbers.append(_number_role(words, k))
    return roles


_NOT_SUPER = frozenset("interest request forest suggest contest honest harvest manifest protest modest "
                       "digest invest arrest earnest biggest".split())
_WH = frozenset("what which who whom whose where when how".split())
_BE = frozenset("is are was were be been being am".split())


def _finite_forms(words: Sequence[str]) -> set[str]:
    """Bare and third-person forms not after a form of "be" ("papers *cite* X"), as lemmas."""
    out = set()
    for k, w in enumerate(words):
        if k == 0 or words[k - 1] in _BE or words[k - 1] in ("please", "you", "to") or w in _IRREGULAR or w.endswith(("ed", "ing")) or not w.isalpha():
            continue
        out.add(w[:-1] if w.endswith("s") and not w.endswith("ss") else w)
    return out


def _verb_lemma(word: str) -> str:
    if word in _IRREGULAR:
        return _IRREGULAR[word]
    if word.endswith("ied"):
        return word[:-3] + "y"
    if word.endswith("ed"):
        return word[:-2]
    return word


def _verb_matches(participle_lemma: str, word: str) -> bool:
    """``deliver`` ~ ``deliver``, ``plac`` (from placed) ~ ``place``."""
    return word == participle_lemma or word == participle_lemma + "e" or word.rstrip("e") == participle_lemma


def _number_role(words: Sequence[str], k: int) -> str:
    prev = [w for w in words[max(0, k - 3):k] if w not in ("the", "a", "an")]
    nxt = words[k + 1:k + 4]
    if prev and prev[-1] in _LIMIT_BEFORE:
        return "limit"
    if prev and (prev[-1] in _COMPARE_BEFORE or (len(prev) >= 2 and prev[-2] in ("more", "less", "fewer",
                                                                                 "greater", "larger", "smaller",
                                                                                 "higher", "lower", "least",
                                                                                 "most"))):
        return "compare"
    if nxt and nxt[0] in ("or",) and len(nxt) > 1 and nxt[1] in ("more", "less", "fewer", "greater", "higher",
                                                                     "lower", "above", "below", "over", "under"):
        return "compare"
    if any(w in _SUPERLATIVE for w in nxt[:2]) or (prev and prev[-1] in ("which", "what")):
        return "limit"
    if any(w in _SUPER_KEY for w in words[k + 1:]):
        return "limit"  # "the 5 cities with the most customers"
    return "value"


# --------------------------------------------------------------------------- comparing two questions


@dataclass
class RoleCheck:
    ok: bool
    reasons: list[str] = field(default_factory=list)
    reorder: list[int] | None = None  # new order of the SELECT items (indexes into the example's)


def _quote(word: str) -> str:
    return f"\u201c{word}\u201d"


def compare_roles(example: Roles, new: Roles, schema_word: SchemaWord | None = None) -> RoleCheck:
    """Do the two questions give their shared words the same roles? (see module doc)"""
    reasons: list[str] = []

    def schema_head(word: str) -> bool:
        return schema_word is None or schema_word(word)

    shared = {lemma(w) for w in example.words if _is_content(w)} & {lemma(w) for w in new.words if _is_content(w)}
    role_name = {"answer": "what is asked for", "rank": "what is ranked by", "group": "what is grouped by"}
    for w in sorted(shared):
        a, b = example.key_roles(w), new.key_roles(w)
        # a swap: what one question asks for is what the other ranks by (and not also asked for)
        if ({"answer"} <= a and "rank" not in a and "rank" in b and "answer" not in b) or \
                ({"answer"} <= b and "rank" not in b and "rank" in a and "answer" not in a):
            was = " and ".join(role_name[r] for r in sorted(a))
            now = " and ".join(role_name[r] for r in sorted(b))
            reasons.append(f"in the example {_quote(w)} is {was}, in your question it is {now}")
    from sqlgenie.inference.adapt import _CUE_OF

    def superlatives(words: Sequence[str]) -> set[str]:  # "easiest", "hardest": not in a cue class
        return {w for w in words if len(w) > 5 and w.endswith("est") and w not in _CUE_OF and w not in _NOT_SUPER}

    def unmatched(sup: set[str], other: Sequence[str]) -> set[str]:  # "easiest" ~ "easiest" | "easier"
        return {w for w in sup if w not in other and w[:-3] + "er" not in other}

    sup_ex, sup_new = superlatives(example.words), superlatives(new.words)
    if unmatched(sup_ex, new.words) or unmatched(sup_new, example.words):
        reasons.append(f"the example ranks by {', '.join(map(_quote, sorted(sup_ex))) or 'nothing'}, your question by "
                       f"{', '.join(map(_quote, sorted(sup_new))) or 'nothing'}")
    kinds = {example.kind, new.kind}
    for yes, other, whose in ((example, new, "the example"), (new, example, "your question")):
        if yes.yesno and not other.yesno and (other.asks_for or other.kind == ""):
            reasons.append(f"{whose} asks yes or no, the other asks for the items themselves")
            break
    if "" in kinds and kinds & {"who", "where", "when"}:
        reasons.append(f"the example asks {(kinds - {''}).pop()}, your question does not" if example.kind else
                       f"your question asks {(kinds - {''}).pop()}, the example does not")
    if example.numbers and new.numbers and len(example.numbers) == len(new.numbers) and \
            example.numbers != new.numbers:
        for r_old, r_new in zip(example.numbers, new.numbers):
            if {r_old, r_new} == {"limit", "compare"}:  # "value" is the grammar's "cannot tell"
                words = {"limit": "how many rows to show", "compare": "a bound to compare with",
                         "value": "a value to match"}
                reasons.append(f"a number that is {words[r_old]} in the example is {words[r_new]} in your question")
                break
    for side, other in ((example, new), (new, example)):
        for verb, word in side.passive.items():
            if verb in other.passive:
                continue
            if verb in side.agent and min(side.text_values, other.text_values) < 2:
                continue  # "dogs owned by X" = "dogs X owns"; with two values their pairing by order is unsafe
            if any(_verb_matches(verb, v) for v in other.active | _finite_forms(other.words)):
                reasons.append(f"{_quote(word)} is passive in one question and active in the other, so who does it "
                               "and to what are swapped")
                break
    reorder = None
    if len(example.heads) == 1 and len(new.heads) == 1 and example.heads != new.heads:
        h_ex, h_new = example.heads[0], new.heads[0]
        ex_words = {lemma(w) for w in example.words}
        new_words = {lemma(w) for w in new.words}
        if h_new in ex_words and h_ex not in new_words and schema_head(h_ex) and schema_head(h_new):
            reasons.append(f"your question asks for the {h_new}, the example for the {h_ex} "
                           f"(where {_quote(h_new)} plays another part)")
    a_sig, b_sig = example.signature, new.signature
    if len(a_sig) >= 2 and a_sig != b_sig and sorted(a_sig) == sorted(b_sig) and len(set(a_sig)) == len(a_sig):
        reorder = [a_sig.index(h) for h in b_sig]
    return RoleCheck(not reasons, reasons, reorder)


# --------------------------------------------------------------------------- SQL licensed by the question


def _column_words(name: str, synonyms: Sequence[str] = ()) -> set[str]:
    from example_bank.masking import split_identifier

    out = {lemma(w) for w in split_identifier(name)}
    for syn in synonyms:
        out |= {lemma(w) for w in split_identifier(syn)}
    return out


def projection_mismatch(tree: exp.Expression, example: Roles, new: Roles, catalog: Any) -> list[str]:
    """The question asks for one column by name where the example asked for something
    else that the question still mentions ("the *price* of the most expensive product"
    against "the 5 most expensive *products*"), and the SQL projects more than that
    column: the answer would not be what is asked."""
    select = _outer_select(tree)
    if select is None or catalog is None or len(example.heads) != 1 or len(new.heads) != 1:
        return []
    h_ex, h_new = example.heads[0], new.heads[0]
    if h_ex == h_new or h_ex not in {lemma(w) for w in new.owner}:
        return []
    if not (example.super_in_answer and new.super_in_owner) and h_new in {lemma(w) for w in example.words}:
        return []
    named: set[str] = set()
    for table in tree.find_all(exp.Table):
        info = catalog.table(table.name, table.db or None)
        if info is None:
            continue
        for col in info.columns:
            if h_new in _column_words(col.name, col.synonyms):
                named.add(col.name.lower())
    if not named:
        if example.super_in_answer and new.super_in_owner or example.kind != "":
            return []
        # "the name of X's paper" against the bare "X's paper": the question asks for one attribute
        return [f"your question asks for the {h_new} of the {h_ex}; the example answers with the {h_ex} itself"]
    projected = [c.name.lower() for proj in select.expressions for c in proj.find_all(exp.Column)]
    extra = sorted({c for c in projected if c not in named})
    if not extra and projected:
        return []
    return [f"your question asks for the {h_new} of a {h_ex}; the example answers with the {h_ex}s themselves "
            f"({', '.join(projected) or 'its columns'})"]




def _outer_select(tree: exp.Expression) -> exp.Select | None:
    return tree if isinstance(tree, exp.Select) else None


def _literal_words(text: str) -> set[str]:
    return {lemma(w) for w in re.findall(r"[a-z0-9]+", text.lower()) if len(w) > 2 and not w.isdigit()}


def unlicensed_filters(tree: exp.Expression, example_masked: str, new_masked: str,
                       new_question: str | None = None) -> list[str]:
    """String constants the SQL compares with whose words the example question says and
    the new question does not (a modifier the question lacks must not survive)."""
    ex_words = {lemma(w) for w in tokens(example_masked)}
    new_text = new_question if new_question is not None else new_masked
    new_words = {lemma(w) for w in tokens(new_text)} | {lemma(w) for w in tokens(new_masked)}
    out = []
    for lit in tree.find_all(exp.Literal):
        if not lit.is_string:
            continue
        parent = lit.parent
        while isinstance(parent, (exp.Cast, exp.Paren, exp.Tuple, exp.Lower, exp.Upper)):
            parent = parent.parent
        if not isinstance(parent, (exp.EQ, exp.NEQ, exp.In, exp.Like, exp.ILike)):
            continue
        words = _literal_words(lit.this)
        if not words:
            continue
        said = words & ex_words  # the example question says (at least half of) the constant: its words license it
        if said and said - new_words and 2 * len(said) >= len(words):
            out.append(f"the example filters on {lit.this!r} ({to_sql(parent)}), which your question does not mention")
    return out


class BankValues:
    """``text -> columns`` over the string constants of the verified bank SQL in a scope,
    looked up on demand: only the few word groups a question adds to its example are
    searched (the stored SQL that contains them, case-insensitively, then that SQL parsed
    with sqlglot to keep real constants), and answers are cached until the bank changes.

    The bank's SQL is read once into memory (with its lowercase text) and searched there; the
    store answers (``ILIKE`` on the stored SQL, at most :data:`VALUE_ROWS` rows) when memory
    could answer otherwise: more than :data:`VALUE_ROWS` rows contain the word groups, a
    stored SQL or a word group is not plain ASCII (case folding), or the bank is too large
    to hold (:data:`MEMORY_ROWS`)."""

    VALUE_ROWS = 500
    MEMORY_ROWS = 20_000

    def __init__(self, store: Any, allowed: Any, stamp: Any = None) -> None:
        self.store, self.allowed, self.stamp = store, allowed, stamp
        self.cache: dict[str, set[str]] = {}
        self._memory: list[str] | None = None  # the scope's verified SQL
        self._text = ""  # their lowercase texts joined by NUL (no word group holds one)
        self._starts: list[int] = []  # where each SQL's lowercase text starts in _text
        self._memory_read = False

    def __call__(self, text: str) -> set[str]:
        return self.many([text]).get(text, set())

    def many(self, texts: Sequence[str]) -> dict[str, set[str]]:
        todo = [t for t in dict.fromkeys(texts) if t not in self.cache]
        if todo:
            sqls = self._sql_in_memory(todo)
            if sqls is None:
                patterns = ["%" + t + "%" for t in todo]  # word groups: letters, digits and spaces only
                rows = verified_rows(self.store, self.allowed, "sql", "sql ILIKE ANY(%s)", [patterns],
                                     self.VALUE_ROWS, by_id=False)
                sqls = [sql for (sql,) in rows]
            found: dict[str, set[str]] = {t: set() for t in todo}
            for sql in sqls:
                for text, column in constant_columns(sql):
                    if text in found:
                        found[text].add(column)
            self.cache.update(found)
        return {t: self.cache.get(t, set()) for t in texts}

    def _sql_in_memory(self, texts: Sequence[str]) -> list[str] | None:
        """The bank SQL containing any of ``texts`` (as the store's ``ILIKE`` finds it), or None
        when only the store can say so exactly."""
        if not all(_PLAIN_WORDS.fullmatch(t) for t in texts):
            return None
        if not self._memory_read:
            self._memory_read = True
            rows = verified_rows(self.store, self.allowed, "sql", "TRUE", [], self.MEMORY_ROWS + 1, by_id=False)
            if len(rows) <= self.MEMORY_ROWS and all(sql.isascii() for (sql,) in rows):
                self._memory = [sql for (sql,) in rows]
                pos = 0
                for sql in self._memory:
                    self._starts.append(pos)
                    pos += len(sql) + 1
                self._text = "\0".join(sql.lower() for sql in self._memory)
        if self._memory is None:
            return None
        found: set[int] = set()
        for t in dict.fromkeys(t.lower() for t in texts):  # every occurrence, mapped to its SQL
            at = self._text.find(t) if t else -1
            while at >= 0:
                k = bisect.bisect_right(self._starts, at) - 1
                found.add(k)
                nxt = self._starts[k + 1] if k + 1 < len(self._starts) else len(self._text)
                at = self._text.find(t, nxt)  # the next SQL's text: one hit per SQL is enough
        hits = [self._memory[k] for k in sorted(found)]
        return hits if len(hits) <= self.VALUE_ROWS else None


#: What :class:`BankValues` searches in memory: ``ILIKE '%text%'`` with no wildcard or escape.
_PLAIN_WORDS = re.compile(r"[A-Za-z0-9 ]+")


@functools.lru_cache(maxsize=8192)
def constant_columns(sql: str) -> tuple[tuple[str, str], ...]:
    """``(words, column)`` of each string constant of ``sql`` compared with a column
    (``=``, ``<>``, ``IN``, ``LIKE``, ``ILIKE``; ``?`` when no column is named): the words
    its letters and digits spell, lowercase. ``()`` when sqlglot cannot parse it. Reads the remembered
    parse itself (no copy: nothing here changes a node)."""
    try:
        tree = parsed_read_only(sql)
    except Exception:
        return ()
    out: list[tuple[str, str]] = []
    for lit in tree.find_all(exp.Literal):
        if not lit.is_string or len(lit.this) > 80:
            continue
        text = " ".join(re.findall(r"[a-z0-9]+", lit.this.lower()))
        parent = lit.parent
        while isinstance(parent, (exp.Cast, exp.Paren, exp.Tuple, exp.Lower, exp.Upper)):
            parent = parent.parent
        if isinstance(parent, (exp.EQ, exp.In, exp.Like, exp.ILike, exp.NEQ)):
            col = next(parent.find_all(exp.Column), None)
            out.append((text, col.name.lower() if col is not None else "?"))
    return tuple(out)


KnownValues = Any  # BankValues or its lazy wrapper: .many(texts) and __call__(text)


class _LazyBankValues:
    """Resolves :func:`_bank_values` on first use (exact matches never need it)."""

    def __init__(self, retriever: Any) -> None:
        self.retriever = retriever
        self._values: BankValues | None = None

    def many(self, texts: Sequence[str]) -> dict[str, set[str]]:
        if self._values is None:
            self._values = _bank_values(self.retriever)
        return self._values.many(texts)

    def __call__(self, text: str) -> set[str]:
        return self.many([text]).get(text, set())


def bank_values(retriever: Any) -> Any:
    """The bank constants of the retriever's scope, looked up lazily (see :class:`BankValues`)."""
    return _LazyBankValues(retriever)


def verified_rows(store: Any, allowed: Any, columns: str, condition: str, params: Sequence[Any],
                  limit: int, *, by_id: bool = True) -> list[tuple]:
    """``columns`` of at most ``limit`` verified bank examples in scope (their tables within
    ``allowed``; None: all) meeting ``condition`` (an SQL fragment of this module's callers with
    ``%s`` placeholders for ``params``), by id unless ``by_id`` is false. ``[]`` when the store
    cannot answer: these lookups learn from the bank, and without them a rule licenses nothing."""
    from sqlgenie.inference.bank_snapshot import snapshot_for

    if by_id and (snapshot := snapshot_for(store, allowed)) is not None:
        held = snapshot.regex_rows(columns, condition, params, limit)
        if held is not None:
            return held
    query = f"SELECT {columns} FROM sqlgenie.bank_examples WHERE status = 'verified' AND {condition}"
    args = list(params)
    if allowed is not None:
        query += " AND tables <@ %s"
        args.append(sorted(allowed))
    query += (" ORDER BY id" if by_id else "") + f" LIMIT {int(limit)}"
    try:
        return store.execute(query, args).fetchall()
    except Exception:
        return []


def scope_rows(retriever: Any, limit: int, extra_columns: str = "") -> list[tuple]:
    """The bank rows of ``retriever``'s statuses and scope (``example_bank.store._COLUMNS``, then
    ``extra_columns`` when given), by id, at most ``limit``: what the readings of the whole verified bank
    (free words, idle schema words, relative years) read. Raises when the store cannot answer."""
    from example_bank.store import _COLUMNS

    statuses = list(getattr(retriever, "statuses", ("verified",)))
    columns = _COLUMNS + (f", {extra_columns}" if extra_columns else "")
    query = f"SELECT {columns} FROM sqlgenie.bank_examples WHERE status = ANY(%s)"
    params: list[Any] = [statuses]
    if getattr(retriever, "allowed", None) is not None:
        query += " AND tables <@ %s"
        params.append(sorted(retriever.allowed))
    query += " ORDER BY id LIMIT %s"
    params.append(limit)
    return retriever.store.execute(query, params).fetchall()


#: Stamps read during the current ask (:func:`one_bank_stamp`), keyed by store and scope;
#: None outside an ask, where every :func:`bank_stamp` reads the store.
_ASK_STAMPS: contextvars.ContextVar[dict | None] = contextvars.ContextVar("sqlgenie_ask_bank_stamps", default=None)


@contextlib.contextmanager
def one_bank_stamp() -> Iterator[None]:
    """Within the block, :func:`bank_stamp` reads the store once per store and scope and
    answers the same stamp afterwards: one ask sees one bank, and the caches kept per bank
    (:func:`cached_per_bank`: bank values, modifier words, sides, word constants, heads, ...)
    cost one round trip per ask instead of one per use. Nested blocks share the outer one."""
    if _ASK_STAMPS.get() is not None:
        yield
        return
    token = _ASK_STAMPS.set({})
    try:
        yield
    finally:
        _ASK_STAMPS.reset(token)


def bank_stamp(retriever: Any) -> tuple | None:
    """``(scope, bank version)`` of the retriever's scope: what caches kept on the retriever
    compare to know the bank changed; None when unknown.
    Read once per ask inside :func:`one_bank_stamp`."""
    store = getattr(retriever, "store", None)
    if store is None:
        return None
    allowed = getattr(retriever, "allowed", None)
    memo = _ASK_STAMPS.get()
    if memo is None:
        return _read_bank_stamp(store, allowed)
    return _memo_stamp(memo, store, allowed)


def ask_scope_stamp(store: Any, allowed: Any) -> tuple | None:
    """The stamp of ``store``'s bank in scope ``allowed`` as the current ask reads it (once per ask);
    None outside an ask (:func:`one_bank_stamp`): what is held in the process is then not used."""
    memo = _ASK_STAMPS.get()
    if memo is None:
        return None
    return _memo_stamp(memo, store, allowed)


def _memo_stamp(memo: dict, store: Any, allowed: Any) -> tuple | None:
    key = (id(store), tuple(sorted(allowed)) if allowed is not None else None)
    if key not in memo:
        memo[key] = _read_bank_stamp(store, allowed)
    return memo[key]


#: The bank's version row (migration 0011): what :func:`bank_stamp` reads once per ask.
BANK_VERSION_SQL = "SELECT version FROM sqlgenie.bank_version"


def _read_bank_stamp(store: Any, allowed: Any) -> tuple | None:
    """``(scope, version)``: the version row a trigger keeps (migration 0011) changes with every write
    of the bank, so one indexed one-row read stands for the scope's count and max id it replaced."""
    try:
        row = store.execute(BANK_VERSION_SQL).fetchone()
        return (tuple(sorted(allowed)) if allowed is not None else None, row[0])
    except Exception:
        return None


def seed_ask_stamp(store: Any, allowed: Any, version: Any) -> bool:
    """Within :func:`one_bank_stamp`, take ``version`` (read by the caller with
    :data:`BANK_VERSION_SQL` on ``store`` in this ask) as this ask's stamp of ``store`` in scope
    ``allowed``, as :func:`bank_stamp` would have read it. False (nothing taken) outside an ask or
    when the stamp was read already."""
    memo = _ASK_STAMPS.get()
    if memo is None:
        return False
    key = (id(store), tuple(sorted(allowed)) if allowed is not None else None)
    if key in memo:
        return False
    memo[key] = (key[1], version)
    return True


def cached_per_bank(retriever: Any, attr: str, make: Callable[[tuple | None], Any]) -> Any:
    """``make(stamp)`` kept on the retriever as ``attr`` until the verified bank of its
    scope changes (:func:`bank_stamp`); the made object keeps the stamp as ``.stamp``."""
    stamp = bank_stamp(retriever)
    cached = getattr(retriever, attr, None)
    if cached is not None and stamp is not None and cached.stamp == stamp:
        return cached
    made = make(stamp)
    try:
        setattr(retriever, attr, made)
    except AttributeError:
        pass
    return made


class LazyBankModel:
    """A model of the retriever's verified bank, built by ``build(store, allowed, stamp)`` on the first
    :meth:`get` (most candidates never need one) and kept on the retriever as ``attr`` until its bank
    changes (:func:`cached_per_bank`); None without a store. Subclasses add the look-ups."""

    def __init__(self, retriever: Any, attr: str, build: Callable[[Any, Any, tuple | None], Any]) -> None:
        self.retriever, self._attr, self._build = retriever, attr, build
        self._model: Any = None
        self._resolved = False

    def get(self) -> Any:
        if not self._resolved:
            store = getattr(self.retriever, "store", None)
            allowed = getattr(self.retriever, "allowed", None)
            self._model = None if store is None else cached_per_bank(
                self.retriever, self._attr, lambda stamp: self._build(store, allowed, stamp))
            self._resolved = True
        return self._model


def _bank_values(retriever: Any) -> BankValues:
    """The :class:`BankValues` of the retriever's scope (kept on the retriever until its
    scope or the verified bank changes)."""
    return cached_per_bank(retriever, "_verify_bank_values",
                           lambda stamp: BankValues(retriever.store, getattr(retriever, "allowed", None), stamp))


def unaccounted_values(tree: exp.Expression, example_masked: str, new_masked: str,
                       known_values: KnownValues | None, value_columns: Callable[[str], set[str]] | None = None,
                       max_words: int = 3, group: Any = None) -> list[str]:
    """Words of the question, absent from the example question, that verified examples
    (or the value cache) use as a value, while this SQL does not filter on them: the
    question asks for a filter the example does not have."""
    if known_values is None and value_columns is None:
        return []
    ex = {lemma(w) for w in tokens(example_masked)}
    words = [w for w in tokens(new_masked) if w != _COUNT]
    upper = set(re.findall(r"\b[A-Z]{2,}\b", new_masked))  # "US", "AA": codes, even when they spell a stop word
    in_sql = {" ".join(re.findall(r"[a-z0-9]+", lit.this.lower())) for lit in tree.find_all(exp.Literal)
              if lit.is_string}
    candidates: list[str] = []
    for size in range(max_words, 0, -1):
        for k in range(len(words) - size + 1):
            gram = words[k:k + size]
            if _MASK in gram or all(lemma(w) in ex for w in gram) or gram[0] in _STOPISH or gram[-1] in _STOPISH:
                continue
            text = " ".join(gram)
            if text.isdigit() or text in in_sql or \
                    (size == 1 and (len(text) < 2 or ((len(text) < 3 or text in _STOP) and text.upper() not in upper))):
                continue
            candidates.append(text)
    if not candidates:
        return []
    known = known_values.many(candidates) if known_values is not None else {}
    found: list[str] = []
    for text in candidates:
        if any(text in f for f in found):
            continue
        cols = set(known.get(text, ()))
        if value_columns is not None and (" " in text or len(text) > 3):
            cols |= {c.rsplit(".", 1)[-1] for c in value_columns(text)}
        if cols:
            found.append(text)
    if group is not None:  # words other examples of the same query say outside their values
        found = [t for t in found if not group.words_added_ok(t.split())]
    if not found:
        return []
    return [f"your question mentions {', '.join(map(_quote, found))}, which verified examples use as a value, "
            "but the example's query does not filter on it"]


from sqlgenie.inference.adapt import _STOP  # noqa: E402

_STOPISH = frozenset("""a an the of in on at by for to from with and or is are was were be been do does did have has
had what which who whom how that this these those there it its their all any some each every me my i we you our
not no""".split())


# --------------------------------------------------------------------------- corrections


@dataclass
class Reduction:
    sql: str
    spans: list[Any]
    dropped: list[str]


def _conjunct_removable(node: exp.Expression, root: exp.Expression) -> bool:
    p = node.parent
    while isinstance(p, (exp.And, exp.Paren)):
        p = p.parent
    return isinstance(p, exp.Where) and p.parent is root


def _remove_conjunct(node: exp.Expression) -> None:
    while isinstance(node.parent, exp.Paren):
        node = node.parent
    parent = node.parent
    if isinstance(parent, exp.And):
        other = parent.expression if parent.this is node else parent.this
        parent.replace(other)
    elif isinstance(parent, exp.Where):
        parent.pop()


def reduce_example(example_sql: str, example_masked: str, example_spans: Sequence[Any], new_masked: str,
                   new_spans: Sequence[Any], catalog: Any = None) -> Reduction | None:
    """The example without the filters on values the question does not have, when that
    is exact (see module doc); None otherwise."""
    extra = len(example_spans) - len(new_spans)
    if extra <= 0 or extra > 2:
        return None
    ex_words, new_words = tokens(example_masked), tokens(new_masked)
    masks = [k for k, w in enumerate(ex_words) if w == _MASK]
    if len(masks) != len(example_spans):
        return None
    for drop in itertools.combinations(range(len(example_spans)), extra):
        gone = {masks[d] for d in drop}
        if [w for k, w in enumerate(ex_words) if k not in gone] != new_words:
            continue
        try:
            tree = parse_sql(example_sql)
        except Exception:
            return None
        spans = [Span.of(s) for s in example_spans]
        slots = collect_slots(tree, catalog)
        alignment = align(spans, slots)
        anchors = []
        for d in drop:
            bound = alignment.of_span(d)
            if len(bound) != 1:
                return None
            slot = slots[bound[0].slot]
            if slot.context != "compare" or len(alignment.of_slot(slot.index)) != 1:
                return None
            anchor = slot.node.parent
            while isinstance(anchor, (exp.Cast, exp.Paren, exp.Tuple)):
                anchor = anchor.parent
            if not isinstance(anchor, (exp.EQ, exp.In)) or not _conjunct_removable(anchor, tree):
                return None
            col = anchor.this if isinstance(anchor.this, exp.Column) else None
            if col is None:
                return None
            # the column must not shape the answer (SELECT, GROUP BY, ORDER BY, HAVING)
            for part in [*tree.expressions, tree.args.get("group"), tree.args.get("order"), tree.args.get("having")]:
                if part is not None and any(c.name.lower() == col.name.lower() for c in part.find_all(exp.Column)):
                    return None
            anchors.append(anchor)
        dropped = [to_sql(a) for a in anchors]
        aliases = [a.this.table for a in anchors]
        for a in anchors:
            _remove_conjunct(a)
        from sqlgenie.inference.orphan_joins import drop as drop_orphans

        drop_orphans(tree, aliases)  # a table joined only for the dropped filter goes with it
        kept = [s for k, s in enumerate(example_spans) if k not in drop]
        return Reduction(to_sql(tree), kept, dropped)
    return None


def _snake(text: str) -> str:
    return "_".join(re.findall(r"[a-z0-9]+", text.lower()))


def rename_aliases(tree: exp.Expression, replaced: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
    """Rename output aliases that spell a replaced value (``returned_pct`` ->
    ``cancelled_pct``); ORDER BY references follow. Returns (old, new) names."""
    select = _outer_select(tree)
    if select is None:
        return []
    renames: list[tuple[str, str]] = []
    for old_text, new_text in replaced:
        old, new = _snake(old_text), _snake(new_text)
        if not old or not new or old == new:
            continue
        for proj in select.expressions:
            if not isinstance(proj, exp.Alias):
                continue
            name = proj.alias
            parts = name.lower().split("_")
            olds = old.split("_")
            for k in range(len(parts) - len(olds) + 1):
                if parts[k:k + len(olds)] == olds:
                    fresh = "_".join(parts[:k] + [new] + parts[k + len(olds):])
                    if fresh in {p.alias_or_name.lower() for p in select.expressions}:
                        break
                    proj.set("alias", exp.to_identifier(fresh))
                    renames.append((name, fresh))
                    break
    if renames:
        mapping = {o.lower(): n for o, n in renames}
        for part in (select.args.get("order"), select.args.get("having")):
            if part is None:
                continue
            for col in part.find_all(exp.Column):
                if not col.table and col.name.lower() in mapping:
                    col.set("this", exp.to_identifier(mapping[col.name.lower()]))
    return renames


def _reorder_select(tree: exp.Expression, order: list[int]) -> bool:
    select = _outer_select(tree)
    if select is None or len(select.expressions) != len(order):
        return False
    items = list(select.expressions)
    if any(isinstance(i, exp.Star) for i in items):
        return False
    select.set("expressions", [items[k].copy() for k in order])
    return True


# --------------------------------------------------------------------------- the word before a value

def _key_column(column: str | None) -> bool:
    name = (column or "").rsplit(".", 1)[-1].strip('"').lower()
    return name == "id" or name.endswith("_id")


def implied_constants(example_sql: str, example_spans: Sequence[Any], example_masked: str, new_masked: str,
                      catalog: Any = None, group: Any = None, word_ties: Any = None,
                      free: Callable[[], frozenset[str]] | None = None) -> list[str]:
    """Refuse when the example's SQL compares a column with a number no value of its
    question produced (outside HAVING) (``departure_time BETWEEN 0 AND 1200`` for "morning", ``stops = 0``
    for "nonstop") and the two questions differ in a content word: that constant came
    from the example's wording, which the question does not share."""
    try:
        slots, alignment = example_alignment(example_sql, example_spans, catalog)  # read only (remembered)
    except Exception:
        return []
    bound = {b.slot for b in alignment.bindings}
    unbound = [s for s in slots if s.context == "compare" and not s.is_string and s.index not in bound
               and s.node.find_ancestor(exp.Having) is None  # numbers of WHERE / ON, not count bounds
               and not s.temporal and not _key_column(s.column)]  # nor a default year, nor one entity's key
    if not unbound:
        return []
    diff = question_diff(example_masked, new_masked)
    if group is not None:  # wording other examples of the same query (same constants) share
        diff = group.filter_diff(diff)
    words = [w for w in diff.added + diff.removed if len(w) > 2 and not w.isdigit()]
    if words and free is not None:  # words the bank shows no query needs carry no constant (atis15)
        from sqlgenie.inference.free_words import unworded

        words = unworded(words, free, (example_masked, new_masked))
    if not words:
        return []
    if shared_constants.accounted(unbound, words, example_masked, new_masked, word_ties):
        return []  # a word both questions say carries every constant; the others carry none (atis12)
    consts = ", ".join(sorted({repr(s.text) for s in unbound}))
    return [f"the example's SQL uses constants its question implies ({consts}) and your question words it "
            f"differently ({', '.join(words[:4])})"]


#: "from" / "to" before a value ("via" left out: a stop has no opposite side to swap with)
_DIRECTION = {w: side for w, side in DIRECTION_BEFORE_VALUE.items() if side != "via"}


def direction_swaps(example_masked: str, example_spans: Sequence[Any], new_masked: str, new_spans: Sequence[Any],
                    pairs: Sequence[tuple[str, str]]) -> list[str]:
    """A value paired with the example's that follows "from" in one question and "to"
    in the other ("flights *from* DAL to any airport" against "flights *to* DAL from all
    airports"): the value plays the opposite role."""
    def before(masked: str, spans: Sequence[Any]) -> dict[str, str]:
        words = tokens(masked)
        masks = [k for k, w in enumerate(words) if w == _MASK]
        texts = [norm_text(Span.of(s).text) for s in spans]
        if len(masks) != len(texts):
            return {}
        return {t: _DIRECTION.get(words[k - 1], "") if k else "" for t, k in zip(texts, masks)}

    ex_before, new_before = before(example_masked, example_spans), before(new_masked, new_spans)
    out = []
    for ex_text, new_text in pairs:
        a, b = ex_before.get(norm_text(ex_text), ""), new_before.get(norm_text(new_text), "")
        if a and b and a != b:
            out.append(f"{new_text!r} follows {_quote(b)} in your question, but the example's {ex_text!r} follows "
                       f"{_quote(a)}: the direction is reversed")
    return out


# --------------------------------------------------------------------------- one candidate


@functools.lru_cache(maxsize=4096)
def _roles(masked_text: str, classes: tuple[str, ...], schema_word: SchemaWord | None) -> Roles:
    return question_roles(masked_text, classes, schema_word)  # read only: cached per question


def _classes(spans: Sequence[Any]) -> list[str]:
    return [Span.of(s).cls for s in spans]


def adapt_verified(
    example_sql: str,
    example_masked: str,
    example_spans: Sequence[Any],
    new_masked: str,
    new_spans: Sequence[Any],
    *,
    question: str | None = None,
    catalog: Any = None,
    value_columns: Any = None,
    exact: bool = False,
    similarity: float = 1.0,
    schema_words: SchemaWord | None = None,
    known_values: KnownValues | None = None,
    group: Any = None,
    own_directions: bool = True,
    word_ties: Any = None,
    free: Callable[[], frozenset[str]] | None = None,
    idle: Callable[[], frozenset[str]] | None = None,
    years: Callable[[], dict] | None = None,
) -> AdaptedSQL:
    """Adapt one bank example (:func:`adapt_sql`), then verify that the result answers
    the question (roles, licensed filters) and correct what is exact (a filter the
    question drops, output names, the order of the answer items). ``own_directions``: False
    where a rewrite, not the asker, said the question's direction words (``between_ends``)."""
    notes: list[str] = []
    sql, spans, ex_masked = example_sql, list(example_spans), example_masked
    reduction = None
    if len(example_spans) > len(new_spans):
        reduction = reduce_example(example_sql, example_masked, example_spans, new_masked, new_spans, catalog)
        if reduction is not None:
            sql, spans, ex_masked = reduction.sql, reduction.spans, new_masked
            exact = True
            notes.append("dropped the example's filter " + ", ".join(reduction.dropped)
                         + " (your question does not ask for it)")
    adapted = adapt_sql(sql, spans, new_spans, catalog=catalog, value_columns=value_columns,
                        example_masked=ex_masked, new_masked=new_masked, exact=exact, similarity=similarity,
                        schema_words=schema_words, group=group, own_directions=own_directions,
                        free=free, idle=idle, years=years)
    adapted.notes = notes + adapted.notes
    if not adapted.ok:
        return adapted
    ex_roles = _roles(example_masked if reduction is None else ex_masked, tuple(_classes(spans)), schema_words)
    new_roles = _roles(new_masked, tuple(_classes(new_spans)), schema_words)
    check = compare_roles(ex_roles, new_roles, schema_words)
    reasons = list(check.reasons)
    tree = adapted.tree
    if tree is None:
        try:
            tree = adapted.tree = parse_sql(adapted.sql or "")  # kept: later checks read it, never parse again
        except Exception:
            return adapted
    if not reasons:
        reasons += projection_mismatch(tree, ex_roles, new_roles, catalog)
    if not reasons and not exact:
        reasons += implied_constants(sql, spans, ex_masked, new_masked, catalog, group=group, word_ties=word_ties,
                                     free=free)
    if not reasons and not exact:
        reasons += direction_swaps(ex_masked, spans, new_masked, new_spans, adapted.pairs)
    if not reasons and not exact:
        reasons += unaccounted_values(tree, ex_masked, new_masked, known_values, value_columns, group=group)
    if not reasons:
        reasons += unlicensed_filters(tree, ex_masked, new_masked, question)
    if reasons:
        adapted.ok = False
        adapted.sql = None
        adapted.confidence = 0.0
        adapted.unaccounted = reasons
        return adapted
    changed = False
    if check.reorder is not None:
        if _reorder_select(tree, check.reorder):
            notes.append("output columns put in the order your question asks for them")
            changed = True
        else:
            adapted.ok = False
            adapted.sql = None
            adapted.unaccounted = ["your question asks for the same things in another order than the example"]
            return adapted
    replaced = [(p[0], p[1]) for p in adapted.pairs if norm_text(p[0]) != norm_text(p[1])]
    renames = rename_aliases(tree, replaced)
    if renames:
        notes.append("output named after your question: " + ", ".join(f"{o} \u2192 {n}" for o, n in renames))
        changed = True
    if changed or reduction is not None:
        adapted.sql = to_sql(tree)
    adapted.notes = notes + [n for n in adapted.notes if n not in notes]
    return adapted

