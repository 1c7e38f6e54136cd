"""Identifier words: splitting, an abbreviation dictionary used in both directions,
synonyms, and the name-similarity measures used by key and join inference.

Everything here is pure and deterministic (no database, no LLM).

    >>> split_identifier("totalAmtUSD")
    ['total', 'amt', 'usd']
    >>> expand_word("qty"), abbreviations_of("quantity")
    (('quantity',), ('qty',))
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from typing import Iterable, Sequence

# --- abbreviation dictionary -------------------------------------------------------
# short form -> expanded form(s). Read in both directions: expand_word("qty") and
# abbreviations_of("quantity"). Multi-word expansions are phrases ("first name").
ABBREVIATIONS: dict[str, tuple[str, ...]] = {
    "acct": ("account",), "acc": ("account",), "accnt": ("account",),
    "addr": ("address",), "adr": ("address",),
    "admin": ("administrator",), "amt": ("amount",), "amnt": ("amount",),
    "apt": ("apartment",), "approx": ("approximate",), "attr": ("attribute",),
    "avg": ("average",), "avail": ("available",), "bal": ("balance",),
    "bldg": ("building",), "cat": ("category",), "categ": ("category",),
    "cd": ("code",), "cfg": ("configuration",), "chg": ("charge",),
    "cnt": ("count",), "ct": ("count",), "co": ("company",), "comp": ("company",),
    "corp": ("corporation",), "cntry": ("country",), "ctry": ("country",),
    "cur": ("current",), "curr": ("currency",), "cust": ("customer",),
    "dt": ("date",), "dte": ("date",), "desc": ("description",), "descr": ("description",),
    "dept": ("department",), "dep": ("department",), "dest": ("destination",), "dst": ("destination",),
    "disc": ("discount",), "dist": ("distance",), "div": ("division",), "dob": ("date of birth",),
    "doc": ("document",), "dur": ("duration",), "dlv": ("delivery",), "dlvry": ("delivery",),
    "emp": ("employee",), "empl": ("employee",), "eng": ("engineer",), "est": ("estimated",),
    "ext": ("extension",), "fac": ("faculty",), "fname": ("first name",), "freq": ("frequency",),
    "ft": ("feet",), "fy": ("fiscal year",), "gen": ("gender",), "govt": ("government",),
    "grp": ("group",), "hq": ("headquarters",), "hr": ("hour",), "hrs": ("hours",), "ht": ("height",),
    "id": ("identifier",), "idx": ("index",), "img": ("image",), "info": ("information",),
    "instr": ("instructor",), "intl": ("international",), "inv": ("invoice",), "lang": ("language",),
    "lat": ("latitude",), "lname": ("last name",), "lng": ("longitude",), "lon": ("longitude",),
    "loc": ("location",), "lvl": ("level",), "max": ("maximum",), "mfr": ("manufacturer",),
    "mgr": ("manager",), "mgmt": ("management",), "min": ("minimum",), "mkt": ("market",),
    "mo": ("month",), "mth": ("month",), "msg": ("message",), "no": ("number",), "num": ("number",),
    "nbr": ("number",), "nr": ("number",), "nm": ("name",), "natl": ("national",), "org": ("organization",),
    "orig": ("original",), "ord": ("order",), "pct": ("percent",), "perc": ("percent",),
    "pmt": ("payment",), "pos": ("position",), "pop": ("population",), "prc": ("price",),
    "prev": ("previous",), "prod": ("product",), "prof": ("professor",), "proj": ("project",),
    "pwd": ("password",), "qty": ("quantity",), "qtr": ("quarter",), "ref": ("reference",),
    "reg": ("region",), "rgn": ("region",), "rev": ("revenue",), "rm": ("room",), "sched": ("schedule",),
    "sec": ("second",), "seq": ("sequence",), "sq": ("square",), "src": ("source",),
    "ssn": ("social security number",), "stat": ("status",), "sts": ("status",), "std": ("standard",),
    "stu": ("student",), "stud": ("student",), "supp": ("supplier",), "svc": ("service",),
    "tel": ("telephone",), "temp": ("temperature",), "tot": ("total",), "ttl": ("total",),
    "trans": ("transaction",), "txn": ("transaction",), "trx": ("transaction",), "typ": ("type",),
    "univ": ("university",), "uom": ("unit of measure",), "usr": ("user",), "val": ("value",),
    "veh": ("vehicle",), "vend": ("vendor",), "ver": ("version",), "vol": ("volume",),
    "whse": ("warehouse",), "wh": ("warehouse",), "wk": ("week",), "wt": ("weight",),
    "yr": ("year",), "yrs": ("years",), "ytd": ("year to date",),
}

#: Expanded form -> short forms (the dictionary read backwards; first = preferred).
_REVERSE: dict[str, tuple[str, ...]] = {}
for _short, _longs in ABBREVIATIONS.items():
    for _long in _longs:
        if _short != "id":
            _REVERSE[_long] = _REVERSE.get(_long, ()) + (_short,)

#: Words that end in "id" but are not "<something> id".
_ID_WORDS = frozenset(
    "acid afraid aid amid android arid avid braid bid candid cupid did druid fluid forbid grid horrid humid hybrid "
    "insipid invalid kid laid lid lipid liquid lucid maid mermaid mid morbid orchid paid pid placid pyramid raid "
    "rapid rid rigid said skid slid solid splendid squid stupid timid torrid tumid uid uuid guid valid vivid void "
    "avoid overpaid prepaid unpaid repaid".split()
)

_GLUED_KEY = re.compile(r"^([a-z]{1,2})(no|num|number|code|name|key)$")
_GLUED_WORDS = frozenset({"piano", "casino", "volcano", "domino", "memo", "demo", "ego", "typo", "uno", "duo", "rename",
                          "monkey", "donkey", "turkey", "hockey", "jockey", "whiskey", "decode", "encode", "unnamed",
                          "surname", "byname", "nickname", "forename", "album", "sum"})
_IRREGULAR = {"people": "person", "children": "child", "men": "man", "women": "woman", "staff": "staff"}

#: Tokens that mark an identifier / key column.
ID_TOKENS = frozenset({"id", "ids", "key", "pk", "fk", "uuid", "guid", "code", "cd", "no", "num", "nbr", "nr", "number", "ssn", "sku"})
#: Strong key markers (the classic surrogate-key suffixes).
STRONG_ID_TOKENS = frozenset({"id", "key", "pk", "fk", "uuid", "guid"})

_CAMEL_1 = re.compile(r"([a-z0-9])([A-Z])")
_CAMEL_2 = re.compile(r"([A-Z]+)([A-Z][a-z])")
_SEP = re.compile(r"[^0-9a-zA-Z\u00C0-\uFFFF]+")
_DIGITS = re.compile(r"(?<=[a-zA-Z])(?=\d)|(?<=\d)(?=[a-zA-Z])")


def fold_accents(text: str) -> str:
    """Accents removed, for matching only (``München`` -> ``Munchen``)."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


@lru_cache(maxsize=65536)
def split_identifier(name: str) -> list[str]:
    """Lower-case words of an identifier: snake_case, camelCase, PascalCase, kebab,
    spaces, digits and quotes all split; a trailing ``id`` glued to a word splits too
    (``stuid`` -> ``stu id``) unless the word is English (``paid``, ``valid``)."""
    text = unicodedata.normalize("NFKC", name or "")
    text = _CAMEL_2.sub(r"\1 \2", _CAMEL_1.sub(r"\1 \2", text))
    text = _DIGITS.sub(" ", text)
    words: list[str] = []
    for raw in _SEP.split(text):
        w = raw.lower()
        if not w:
            continue
        if len(w) >= 3 and w.endswith("id") and w not in _ID_WORDS and not w.endswith("oid"):
            words.extend([w[:-2], "id"])
            continue
        glued = _GLUED_KEY.match(w)
        if glued and w not in _GLUED_WORDS and w not in ABBREVIATIONS:
            words.extend([glued.group(1), glued.group(2)])  # dno -> d no, pnumber -> p number
        else:
            words.append(w)
    return words


_PLURAL_US = ("campuses", "statuses", "buses", "viruses", "bonuses", "censuses", "syllabuses", "corpuses", "focuses")


def singular(word: str) -> str:
    """Crude English singular (enough for table names): categories -> category."""
    w = word
    if w in _IRREGULAR:
        return _IRREGULAR[w]
    if w in _PLURAL_US:
        return w[:-2]
    if len(w) <= 3 or w.endswith(("ss", "us", "is", "ous")):
        return w
    if w.endswith("ies") and len(w) > 4:
        return w[:-3] + "y"
    if w.endswith(("sses", "shes", "ches", "xes", "zes")):
        return w[:-2]
    if w.endswith("s"):
        return w[:-1]
    return w


def expand_word(word: str) -> tuple[str, ...]:
    """Expanded forms of a short word (``qty`` -> ``quantity``); () when none."""
    return ABBREVIATIONS.get(word.lower(), ())


def abbreviations_of(word: str) -> tuple[str, ...]:
    """Short forms of a word or phrase (``quantity`` -> ``qty``); () when none."""
    return _REVERSE.get(word.lower(), ())


def canonical_word(word: str) -> str:
    """One comparable form per word: expanded when the dictionary knows it, singular."""
    w = word.lower()
    exp = ABBREVIATIONS.get(w)
    if exp and " " not in exp[0] and w != "id":
        w = exp[0]
    return singular(w)


def canonical_words(name: str) -> list[str]:
    return [canonical_word(w) for w in split_identifier(name)]


def humanize(name: str) -> str:
    """``total_amt`` -> ``total amt`` (words joined by spaces)."""
    return " ".join(split_identifier(name))


def expand_phrase(words: Sequence[str]) -> str:
    """Words with every known abbreviation expanded: ``total amt`` -> ``total amount``."""
    out = []
    for w in words:
        exp = ABBREVIATIONS.get(w)
        out.append(exp[0] if exp and w != "id" else w)
    return " ".join(out)


def abbreviate_phrase(words: Sequence[str]) -> str:
    """Words with every known long form shortened: ``customer number`` -> ``cust no``."""
    text = " ".join(words)
    # multi-word expansions first ("first name" -> "fname")
    for long, shorts in sorted(_REVERSE.items(), key=lambda kv: -len(kv[0])):
        if " " in long and f" {long} " in f" {text} ":
            text = f" {text} ".replace(f" {long} ", f" {shorts[0]} ").strip()
    out = []
    for w in text.split(" "):
        shorts = _REVERSE.get(w)
        out.append(shorts[0] if shorts else w)
    return " ".join(out)


def synonyms_for(name: str, table: str | None = None) -> list[str]:
    """Synonyms and abbreviations of a column name, both directions, most useful first.

    ``qty`` -> ``['quantity']``; ``total_amount`` -> ``['total amount', 'total amt']``;
    ``cust_id`` -> ``['cust id', 'customer id', 'customer identifier', 'customer']`` (an id column of
    another entity also stands for that entity). The column name itself is not included.
    """
    words = split_identifier(name)
    if not words:
        return []
    out: list[str] = []

    def add(phrase: str) -> None:
        phrase = " ".join(phrase.split())
        if phrase and phrase != name and phrase not in out and phrase != name.lower():
            out.append(phrase)

    add(" ".join(words))
    add(expand_phrase(words))
    add(abbreviate_phrase(words))
    add(abbreviate_phrase(expand_phrase(words).split(" ")))
    if len(words) >= 2 and words[-1] in STRONG_ID_TOKENS:
        entity = expand_phrase(words[:-1])
        add(f"{entity} identifier")
        if table is None or canonical_words(table) != [canonical_word(w) for w in words[:-1]]:
            add(entity)
    if table and len(words) == 1 and words[0] in ("id", "name", "code", "description", "desc"):
        tw = " ".join(singular(w) for w in split_identifier(table))
        add(f"{tw} {expand_phrase(words)}")
    return out


# --- similarity -----------------------------------------------------------------------


def is_abbreviation(short: str, long: str) -> bool:
    """``short`` abbreviates ``long``: dictionary, or a subsequence starting with the same
    letter and keeping at least 3 letters (``amen`` ~ ``amenity``, ``dept`` ~ ``department``)."""
    s, w = short.lower(), long.lower()
    if s == w:
        return False
    if long in ABBREVIATIONS.get(s, ()):
        return True
    if len(s) < 3 or len(s) >= len(w) or s[0] != w[0]:
        return False
    it = iter(w)
    return all(ch in it for ch in s)


def words_match(a: str, b: str) -> float:
    """Similarity of two words: 1 equal (after singular/expansion), 0.8 abbreviation, 0 else."""
    if a == b:
        return 1.0
    a, b = fold_accents(a), fold_accents(b)
    ca, cb = canonical_word(a), canonical_word(b)
    if ca == cb or a in (b + "s", b + "es") or b in (a + "s", a + "es"):
        return 1.0
    if is_abbreviation(a, b) or is_abbreviation(b, a) or is_abbreviation(a, cb) or is_abbreviation(b, ca):
        return 0.8
    return 0.0


def phrase_similarity(a: Sequence[str], b: Sequence[str]) -> float:
    """Greedy word alignment score in [0, 1] (Dice over matched words)."""
    if not a or not b:
        return 0.0
    used: set[int] = set()
    total = 0.0
    for wa in a:
        best, best_j = 0.0, -1
        for j, wb in enumerate(b):
            if j in used:
                continue
            s = words_match(wa, wb)
            if s > best:
                best, best_j = s, j
        if best_j >= 0:
            used.add(best_j)
            total += best
    return 2 * total / (len(a) + len(b))


def _compact(words: Iterable[str]) -> str:
    return "".join(words)


def strip_id(words: Sequence[str]) -> list[str]:
    """Words without trailing key markers: ``customer id`` -> ``customer``."""
    out = list(words)
    while out and out[-1] in ID_TOKENS:
        out.pop()
    return out


def table_words(table: str) -> list[str]:
    return [singular(w) for w in split_identifier(table)]


def mentions_table(col_words: Sequence[str], table: str) -> float:
    """How much the column's words name the table: 1 when they contain all its words
    (``host_city_id`` ~ ``city``), partial for the table's last word (``prep_nurse`` ~ ``nurse``)."""
    tw = table_words(table)
    if not tw or not col_words:
        return 0.0
    cw = list(col_words)
    hit = [max((words_match(t, c) for c in cw), default=0.0) for t in tw]
    if all(h > 0 for h in hit):
        return min(1.0, sum(hit) / len(hit))
    if hit[-1] > 0:  # "order_item" table, column "item_id"
        return 0.5 * hit[-1]
    if hit[0] > 0 and len(cw) == 1:  # "claim_headers" table, column "claim_id"
        return 0.5 * hit[0]
    if len(cw) == 1 and len(cw[0]) == 1 and len(tw) == 1 and tw[0].startswith(cw[0]):
        return 0.5  # initial: "s_id" -> student, "i_id" -> instructor
    return 0.0
