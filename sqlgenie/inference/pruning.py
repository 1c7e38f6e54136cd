"""Schema pruning (design 3.2.1): keep the columns a question needs.

Every column of the onboarded tables gets a relevance score in [0, 1]: a logistic
model (:data:`WEIGHTS`, :data:`FEATURES`) over these signals, each computed per
question with numpy and dictionary look-ups:

* ``embedding`` - cosine of the question with the column's text (``table singer:
  column song_name (song name; synonyms ...; type text)``) and with its table's
  text, also relative to the best of the catalog; cosine of the question's content
  words with the column / table name (``heaviest`` ~ ``weight``);
* ``lexical`` - the question's words against the column's name and synonyms
  (plural, abbreviation, shared stem, one typo, and :data:`CUE_WORDS` such as
  ``oldest`` -> ``age``), alone, with the table's name (``names of singers`` ->
  ``singer.name``) and as a whole multi-word name; *claims*: among the columns a
  question word names, how this one ranks (in a mentioned table, with more of its
  words in the question); *inheritance*: an attribute a mentioned table lacks,
  found in a table it joins (``names of gymnasts`` -> ``people.name``);
* ``table`` - the question's words against the table's name;
* *unexplained words* - the question's content words that no schema name matches
  lexically, no cached value covers and that do not just shape the query
  (:data:`QUERY_WORDS`: counting, ordering, comparing): the column names closest to
  them by word embedding (``taught`` ~ ``teaches``), and whether a column no word
  claims sits in a question that has nothing left unexplained (then it is rarely
  needed);
* ``value`` - a question span equal (or very close) to a cached frequent value of
  the column (onboarding's value cache), and a number inside the column's range;
* cues - temporal words for date columns, superlatives and numbers for measures,
  "which / list ..." questions for name-like columns; primary key, table and
  schema size;
* ranks - the column's place among all columns by embedding, its table's place among
  the tables, its place within its table: with ``log_db_cols`` these calibrate the cut
  per schema (5 tables or 100) and per question, by rank as well as by score;
* ``example`` - the tables / columns used by retrieved bank examples (a column an
  example uses scores at least :data:`EXAMPLE_COLUMN_SCORE`; an example's table
  counts as named by the question and keeps its key).

Columns scoring at least δ (``Settings.prune_threshold``, 0.30) are kept. The score
includes the schema's size (``log_db_cols``): a column of a 10-column schema is a tenth
of what the prompt shows, one of a 100-column schema a hundredth, so small schemas ask
more evidence per column. A database whose tables all hold no rows (schema only: no
values to link) scores with :data:`NO_VALUES_BIAS` added, its own operating point.
Tables the question names (or examples use) keep their primary key. The kept tables join a tree one by one, most relevant first, by the
cheapest path over accepted joins (weight: the cost model's ``cost`` over the join's
confidence; :mod:`sqlgenie.inference.join_paths`); joins onboarding left *proposed*
serve, at a high weight, only where accepted ones cannot connect. The tree adds the
tables in between and the join columns, for every join of a linked pair (``flights``
has two with ``airports``). A table that only its scored columns bring (not named, no
value link, not asked for whole) joins only when its best column clears δ by a margin
that grows with the columns and tables its join path adds
(:mod:`~sqlgenie.inference.table_admission`). A question asking for whole rows (*all the information
about ...*, *details of ...* when no column is called "details") keeps its best table
whole. A higher δ always keeps a subset.

Fitting: ``python -m sqlgenie.inference.eval_schema fit`` on Spider *train* (databases
onboarded without an LLM, keys inferred); δ is chosen on out-of-fold train scores
(:data:`~sqlgenie.inference.eval_schema.TARGET_RECALL`) and the bias re-centred so that
δ = 0.30 is that point; figures in docs/benchmarks.md. Each column's score rises with
its own embedding, lexical and value signals; a few *context* weights are negative
(e.g. a value hit elsewhere in the table, being a key).

Column and table embeddings are computed once per catalog text (cached per process);
:meth:`SchemaPruner.prune` embeds the question and its uncached content words in one
``encode`` call.
"""

from __future__ import annotations

import hashlib
import math
import re
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Iterable, Mapping, Sequence

import numpy as np
from rapidfuzz import fuzz, process
from rapidfuzz.utils import default_process

from onboarding.names import (
    ID_TOKENS,
    canonical_word,
    canonical_words,
    expand_phrase,
    humanize,
    split_identifier,
    words_match,
)
from sqlgenie.catalog import Catalog, ColumnInfo, JoinInfo, TableInfo
from sqlgenie.inference.join_paths import JoinGraph
from sqlgenie.inference.table_admission import admission_rule

__all__ = ["ColumnScore", "PrunedSchema", "SchemaPruner", "ValueIndex", "column_text", "holds_no_rows", "situation", "table_text"]

# --- fitted model --------------------------------------------------------------------------

#: Feature order of the logistic model (see :meth:`SchemaPruner.features`).
FEATURES = (
    "emb", "emb_rel", "tab_emb", "tab_emb_rel",
    "lex", "lex_ctx", "lex_exact", "tab_lex",
    "value", "tab_value",
    "is_key", "is_join", "name_like_tab", "lex_x_tab",
    "nbr_tab", "lex_x_nbr", "name_like_nbr", "temporal_cue", "numeric_cue", "inherit",
    "wemb", "tab_wemb", "log_db_cols", "log_table_cols", "wemb_rel", "claim", "claim_any", "claimants",
    "name_like_entity", "num_range", "uemb", "uemb_rel", "uemb_best", "unclaimed_explained", "unclaimed_unexplained",
    "emb_rank", "tab_rank", "col_rank_in_tab",
)

#: Logistic weights fitted on Spider train (``python -m sqlgenie.inference.eval_schema fit``:
#: 6904 questions over 138 databases onboarded without an LLM, keys dropped, plus a copy of
#: the same questions with their schema words replaced by WordNet synonyms (5532 changed,
#: :func:`~sqlgenie.inference.eval_variants.synonym_questions`), so that the model does not
#: lean on the question repeating column names; join columns left out of the fit; gold
#: columns weigh 3; ``log_db_cols`` raised by the size weight, 1). The bias is re-centred so
#: that δ = 0.30 (the settings' default) is the point where out-of-fold column recall on the
#: *original* train questions reaches 0.984: there, kept 0.366 and full coverage 0.966 (fit
#: on the original questions only: kept 0.373; without the rank features: 0.381), and the
#: synonym copy keeps 0.465 for recall 0.969 (fit on the originals only: 0.501 for 0.969).
#: ``emb_rank``, ``tab_rank`` and ``col_rank_in_tab`` calibrate per question and per schema
#: by rank: a column's place among all columns, its table's place among the tables, and
#: its place within its table (``-log(1 + rank)``, 0 for the first). The bias was then raised
#: by 0.0715 (from 0.1633) with the cost-aware table admission
#: (:mod:`~sqlgenie.inference.table_admission`): on the same out-of-fold train scores the
#: admission moves the cut of recall 0.984 from 0.632 to 0.6152, and the shift keeps δ = 0.30
#: that point (there, kept 0.3474 instead of 0.3607 on the current train catalogs). The bias
#: was then lowered by 0.0063 (to 0.2285) when the fit's design items came to carry value
#: links, as asking prunes (:func:`~sqlgenie.inference.eval_schema.design_items`): a linked
#: value keeps its column, so out of fold recall 0.984 is reached at δ* 0.6167 instead of
#: 0.6152 (kept 0.3470 instead of 0.3474); the other weights are unchanged (links change
#: what the selection keeps, not the features). Note: ``fit`` itself re-centres the bias to
#: 0.1683 (0.1747 without links): the committed bias carries linking6's +0.0715 on the base of
#: an older fit and sits 0.060 above the recipe (δ 0.30 here is δ ≈ 0.602 on the fit's scale;
#: with 0.1683 dev reads 0.9861 / 0.3664, a move along its curve; docs/benchmarks.md, linking12).
WEIGHTS: dict[str, float] = {
    "bias": 0.2285, "emb": -2.1073, "emb_rel": 3.7537, "tab_emb": 0.8975, "tab_emb_rel": 2.6719,
    "lex": 0.3147, "lex_ctx": 1.4251, "lex_exact": 1.4172, "tab_lex": 0.1104, "value": 3.9458,
    "tab_value": 0.0694, "is_key": -0.6061, "is_join": 0.0000, "name_like_tab": 0.4733,
    "lex_x_tab": -1.1965, "nbr_tab": -0.3690, "lex_x_nbr": 0.2961, "name_like_nbr": 0.5849,
    "temporal_cue": 0.8256, "numeric_cue": 0.4777, "inherit": 0.2786, "wemb": 0.7833,
    "tab_wemb": 1.1535, "log_db_cols": 1.1198, "log_table_cols": -0.3744, "wemb_rel": 3.1688,
    "claim": 3.4300, "claim_any": -0.3013, "claimants": -0.7674, "name_like_entity": 0.4622,
    "num_range": 3.8457, "uemb": 2.1701, "uemb_rel": -0.1249, "uemb_best": 0.7517,
    "unclaimed_explained": 0.2042, "unclaimed_unexplained": 0.9620, "emb_rank": 0.4899,
    "tab_rank": 0.4912, "col_rank_in_tab": 0.2195,
}

#: Added to every column's logit when the database holds no rows (every table's
#: ``row_estimate`` is 0: a schema-only database, so no value caches, no value links and the
#: statistics of empty tables; :func:`holds_no_rows`) and its tables have joins. The weights
#: are fitted on databases with rows; without them the same δ keeps more (Spider train over
#: schema-only copies with declared keys, out of fold: 0.385 kept against 0.365 on the
#: originals). Chosen on those train copies out of fold by the rule "the same kept share as
#: with values": the shift at which they keep what the originals keep at the default (0.3653;
#: recall 0.9754 -> 0.9714; ``python -m sqlgenie.inference.eval_schema no-values``).
#: docs/benchmarks.md, "Operating point per situation (linking4)".
NO_VALUES_BIAS = -0.19
#: Bias per situation (:func:`situation`). Without rows *and* without any join between several
#: tables (no declared keys and no column named like another table's key: onboarding proposes
#: joins from names alone where tables hold no rows, ``onboarding.joins.name_only_candidates``),
#: the join tree cannot add join columns and only scores keep them; the shift above was chosen
#: on copies whose joins the tree adds, so none is applied. With name-only joins the copies with
#: keys dropped are ``no_values`` and shifted (train out of fold 0.9539 / 0.3637, the originals'
#: kept share; docs/benchmarks.md, "Joins from names when tables hold no rows (linking5)").
SITUATION_BIAS: dict[str, float] = {"values": 0.0, "no_values": NO_VALUES_BIAS, "no_values_no_joins": 0.0}

#: Similarity of a cue word to the column words it points at (:data:`CUE_WORDS`).
CUE_SIMILARITY = 0.8
#: Table kept (with its key) when its name matches the question at least this much.
TABLE_KEEP_LEXICAL = 0.99
#: Score given to a column a retrieved example uses (when lower).
EXAMPLE_COLUMN_SCORE = 0.9
#: Least score of a value link (best of its span) whose column is kept whatever its relevance.
VALUE_LINK_KEEP = 0.7
#: Score given to the key of an example table.
EXAMPLE_TABLE_BONUS = 1.0  # added to the table-lexical signal of the example's tables

# --- text helpers ---------------------------------------------------------------------------

STOPWORDS = frozenset(
    """a an the of in on at to for from by with and or not no is are was were be been being am do does did
    has have had having what which who whom whose when where why how that this these those there their them
    they it its i me my we our you your he she his her him all any each every some many much more most
    less least few than then also as if into out over under up down about after before between through during
    per can could should would will shall may might must list show give find tell return display get
    please each both other only same such own just very s t whats whos one ones""".split()
)

#: Everyday words that point at a column without naming it (question word -> column words):
#: "the oldest singer" -> age, "where do they live" -> city / address. Domain-general English
#: only; both sides are compared after singular/abbreviation folding.
CUE_WORDS: dict[str, tuple[str, ...]] = {}
for _cols, _cues in (
    (("age", "dob", "birth", "born"), "old older oldest young younger youngest aged elderly"),
    (("height", "tall"), "tall taller tallest"),
    (("weight",), "heavy heavier heaviest light lighter lightest weigh weighs weighed weighing"),
    (("sex", "gender"), "male female males females men women man woman boy boys girl girls"),
    (("birth", "born", "dob", "birthday"), "born birthday birthdate"),
    (("date", "year", "time", "day", "month"), "when recent recently latest earliest newest"),
    (("price", "cost", "fee", "charge", "rate"), "expensive cheap cheaper cheapest costly pricey costs"),
    (("duration", "length", "time", "milliseconds", "minutes", "seconds"), "long longer longest lasting lasts"),
    (("salary", "wage", "income", "pay", "earnings", "earning"), "earn earns earned earning earnings paid income wage wages salaries"),
    (("address", "city", "location", "state", "country", "place"), "where located locate lives live living reside resides"),
    (("population",), "populous populated inhabitants residents"),
    (("rating", "stars", "star", "rank", "score"), "rated rating stars ranked"),
    (("language",), "speak speaks spoken speaking languages"),
    (("country", "nationality", "citizenship"), "nationality citizenship citizen citizens nation nations"),
    (("name", "title"), "called named titled"),
    (("forename", "fname", "first", "given"), "first firstname"),
    (("surname", "lname", "last", "family"), "last lastname"),
    (("phone", "telephone", "cell", "mobile", "tel"), "phone phones telephone cell mobile"),
    (("email", "mail"), "email emails mail"),
    (("speed",), "fast faster fastest slow slower slowest quick quickest"),
    (("distance",), "far farther farthest distance"),
    (("elevation", "altitude", "height"), "altitude elevation"),
    (("enrollment", "enrolment", "enr"), "enrolled enroll enrolls"),
    (("budget",), "spending spend spends"),
):
    for _cue in _cues.split():
        CUE_WORDS[_cue] = tuple(dict.fromkeys(CUE_WORDS.get(_cue, ()) + _cols))

#: Column names that name the rows of their table (shown when the table is asked for).
NAME_LIKE = frozenset({"name", "title", "label", "full name", "first name", "last name", "nickname", "description"})

_TOKEN = re.compile(r"[0-9A-Za-z\u00C0-\uFFFF]+(?:['’][A-Za-z]+)?")
_QUOTED = re.compile(r"[\"“”']([^\"“”']{2,80})[\"“”']")
_TEMPORAL_CUES = frozenset(
    "earliest latest recent recently newest first last before after since when date dates year years month months "
    "day days time times older newer during until ago".split()
)
_NUMERIC_CUES = frozenset(
    "most least largest highest lowest smallest biggest greatest max maximum min minimum average avg mean total "
    "sum more less greater fewer larger smaller higher lower above below over under top bottom between exceed "
    "exceeds at_least ranked rank order ordered sort sorted descending ascending".split()
)
#: Words that shape the query (counting, ordering, comparing) rather than name data: never
#: "unexplained" (see :meth:`SchemaPruner.features`).
QUERY_WORDS = frozenset(
    """number numbers count counts total sum average avg mean maximum minimum max min order ordered sort sorted
    ascending descending alphabetical alphabetically alphabetic different distinct unique corresponding correspond
    either neither never ever both once twice times exactly equal common together among across along without except
    exist exists select compute report listed result results two three four five six seven eight nine ten first
    second third frequently often respectively also well highest lowest largest smallest greatest biggest fewest
    least most higher lower larger smaller greater bigger fewer above below top bottom""".split()
)

_ENTITY_ANSWER = re.compile(
    r"^\s*(which|who|whose|whom|list|show|find|give|return|tell|what (is|are|was|were) the (?!number|count|total|average|sum))", re.I,
)
_COUNT_ANSWER = re.compile(r"\b(how many|number of|count|how much|total|average|sum)\b", re.I)
_ALL_INFO = re.compile(
    r"\b(all|every|full|complete|whole)\s+(the\s+)?(information|info|details|detail|attributes|data|columns|fields)\b"
    r"|\beverything\b", re.I,
)
#: Looser "whole row" phrasings ("all the customer information", "details of employees"),
#: ignored when their noun names a column of the schema (``account_details``).
_ALL_INFO_WIDE = re.compile(
    r"\b(?:all|every|full|complete|whole)\b(?:\s+[\w']+){0,3}?\s+(information|info|details|detail|data|attributes)\b"
    r"|\b(information|info|details|detail|data)\s+(?:of|for|about|on|regarding|from)\b", re.I,
)


def _words(text: str) -> list[str]:
    return [w for w in split_identifier(text)]


@lru_cache(maxsize=200_000)
def _canon(word: str) -> str:
    return canonical_word(word)


def column_text(table: TableInfo, col: ColumnInfo) -> str:
    """Text embedded for a column: ``table singers: column song_name (song name; synonyms ...; type text)``."""
    human = humanize(col.name)
    parts = [human]
    syn = [s for s in col.synonyms if s.lower() != human][:4]
    if syn:
        parts.append("synonyms " + ", ".join(syn))
    if col.description:
        parts.append(col.description.strip()[:200])
    parts.append(f"type {col.data_type}")
    return f"table {humanize(table.name)}: column {col.name} ({'; '.join(parts)})"


def table_text(table: TableInfo) -> str:
    """Text embedded for a table: its name, description and column names."""
    cols = ", ".join(humanize(c.name) for c in table.columns[:40])
    desc = f" ({table.description.strip()[:200]})" if table.description else ""
    return f"table {humanize(table.name)}{desc} with columns {cols}"


def _qkey(table: str, column: str) -> str:
    return f"{table}.{column}"


# --- value index ----------------------------------------------------------------------------


@dataclass(frozen=True)
class ValueHit:
    key: str  # "schema.table.column"
    value: str
    strength: float  # 1 exact, lower for close / partial matches
    span: str


def _question_spans(question: str, max_len: int = 6) -> list[tuple[str, bool]]:
    """Candidate value spans: quoted strings and word n-grams, with a flag telling
    whether the span looks like a proper value (quoted, capitalised or with digits)."""
    out: list[tuple[str, bool]] = []
    for m in _QUOTED.finditer(question):
        out.append((m.group(1).strip(), True))
    toks = _TOKEN.findall(question)
    n = len(toks)
    for i in range(n):
        for j in range(i + 1, min(n, i + max_len) + 1):
            span = toks[i:j]
            if all(t.lower() in STOPWORDS for t in span):
                continue
            if span[0].lower() in STOPWORDS and j - i > 1 or span[-1].lower() in STOPWORDS and j - i > 1:
                continue
            text = " ".join(span)
            proper = any(t[:1].isupper() for t in span if i > 0 or t is not span[0]) or any(
                ch.isdigit() for ch in text) or (i == 0 and len(span) > 1 and any(t[:1].isupper() for t in span[1:]))
            out.append((text, proper))
    return out


_NUMBER = re.compile(r"(?<![\w.])-?\d[\d,]*(?:\.\d+)?(?![\w])")


def _question_numbers(question: str) -> list[float]:
    """Numbers of a question worth matching with value ranges (small counts like 3 are not)."""
    out = []
    for m in _NUMBER.finditer(question):
        try:
            x = float(m.group(0).replace(",", ""))
        except ValueError:
            continue
        if x.is_integer() and abs(x) <= 10:
            continue
        out.append(x)
    return out


def _parse_range(lo: str, hi: str) -> tuple[float, float, str] | None:
    try:
        a, b = float(lo), float(hi)
        if math.isfinite(a) and math.isfinite(b) and a < b:
            return (a, b, "num")
    except (TypeError, ValueError):
        pass
    ya, yb = re.match(r"^(\d{4})-\d\d", str(lo)), re.match(r"^(\d{4})-\d\d", str(hi))
    if ya and yb:
        return (float(ya.group(1)), float(yb.group(1)), "year")
    return None


class ValueIndex:
    """Cached frequent values of searchable columns, indexed for question-span look-ups.

    ``values`` maps ``"schema.table.column"`` to its cached values. Spans of the
    question are matched exactly after rapidfuzz's default processing (lower case,
    punctuation to spaces), then - for spans of at least 5 characters - by
    ``fuzz.ratio`` ≥ :attr:`fuzzy_cutoff` when the index holds at most
    :attr:`fuzzy_max_values` values, and by a single distinctive word of a
    multi-word value (``Stabile`` -> ``Anthony Stabile``, weaker).
    """

    fuzzy_cutoff = 88.0
    fuzzy_max_values = 60_000

    def __init__(self, values: Mapping[str, Iterable[str]], *, large_columns: Mapping[str, int] | None = None,
                 conn: Any = None, ranges: Mapping[str, tuple[float, float, str]] | None = None) -> None:
        self.exact: dict[str, list[tuple[str, str]]] = {}
        self.words: dict[str, list[tuple[str, str]]] = {}
        self.count = 0
        fuzzy_norm: list[str] = []
        fuzzy_ref: list[tuple[str, str]] = []
        for key, vals in values.items():
            for v in vals:
                if v is None:
                    continue
                v = str(v)
                norm = default_process(v)
                if not norm:
                    continue
                self.count += 1
                self.exact.setdefault(norm, []).append((key, v))
                parts = norm.split()
                if len(parts) > 1:
                    for w in set(parts):
                        if len(w) >= 4 and w not in STOPWORDS and not w.isdigit():
                            self.words.setdefault(w, []).append((key, v))
                if len(norm) >= 5:
                    fuzzy_norm.append(norm)
                    fuzzy_ref.append((key, v))
        self._fuzzy_norm = fuzzy_norm if len(fuzzy_norm) <= self.fuzzy_max_values else []
        self._fuzzy_ref = fuzzy_ref if self._fuzzy_norm else []
        self.large_columns = dict(large_columns or {})  # column_id -> key, caches not fully loaded
        self.conn = conn
        #: "schema.table.column" -> (low, high, "num" | "year"): value ranges from onboarding's profile
        self.ranges = dict(ranges or {})

    @classmethod
    def from_connection(cls, conn: Any, catalog: Catalog, *, per_column: int = 5000) -> ValueIndex:
        """Load the value caches of ``catalog``'s searchable columns (at most
        ``per_column`` most frequent values each; larger caches are also looked up
        exactly in the store per question)."""
        ids: dict[int, str] = {}
        for t in catalog.tables:
            for c in t.columns:
                if c.column_id is not None and c.searchable:
                    ids[c.column_id] = f"{t.qualified}.{c.name}"
        values: dict[str, list[str]] = {k: [] for k in ids.values()}
        large: dict[int, str] = {}
        if ids:
            rows = conn.execute(
                """
                SELECT column_id, value, n FROM (
                    SELECT column_id, value, count(*) OVER (PARTITION BY column_id) AS n,
                           row_number() OVER (PARTITION BY column_id ORDER BY frequency DESC, value) AS r
                    FROM sqlgenie.value_cache WHERE column_id = ANY(%s)
                ) s WHERE r <= %s
                """,
                (list(ids), per_column),
            ).fetchall()
            for cid, value, n in rows:
                values[ids[cid]].append(value)
                if n > per_column:
                    large[cid] = ids[cid]
        ranges: dict[str, tuple[float, float, str]] = {}
        all_ids = {c.column_id: f"{t.qualified}.{c.name}" for t in catalog.tables for c in t.columns
                   if c.column_id is not None and c.name not in t.primary_key}
        if all_ids:
            for cid, lo, hi in conn.execute(
                "SELECT id, min_value, max_value FROM sqlgenie.catalog_columns WHERE id = ANY(%s)"
                " AND min_value IS NOT NULL AND max_value IS NOT NULL", (list(all_ids),)
            ).fetchall():
                r = _parse_range(lo, hi)
                if r is not None:
                    ranges[all_ids[cid]] = r
        return cls(values, large_columns=large, conn=conn, ranges=ranges)

    def numbers_in_range(self, question: str) -> dict[str, float]:
        """Columns whose value range holds a number of the question (years match dates):
        key -> 1 / (columns holding that number)."""
        out: dict[str, float] = {}
        if not self.ranges:
            return out
        for x in _question_numbers(question):
            is_year = x.is_integer() and 1000 <= x <= 2100
            keys = [k for k, (lo, hi, kind) in self.ranges.items()
                    if lo <= x <= hi and (kind == "num" or is_year)]
            for k in keys:
                out[k] = max(out.get(k, 0.0), 1.0 / len(keys))
        return out

    def hits(self, question: str) -> list[ValueHit]:
        """Cached values named by a span of ``question``, strongest first (1: exact; 0.7:
        an exact but common lower-case word; ≤ 0.8: close spelling; ≤ 0.5: one word of a
        multi-word value)."""
        spans = _question_spans(question)
        found: dict[tuple[str, str], ValueHit] = {}

        def add(key: str, value: str, strength: float, span: str) -> None:
            cur = found.get((key, value))
            if cur is None or strength > cur.strength:
                found[(key, value)] = ValueHit(key, value, strength, span)

        pending: list[tuple[str, str, bool]] = []
        for span, proper in spans:
            norm = default_process(span)
            if not norm or len(norm) < 2 or (len(norm) < 3 and not proper):
                continue
            if norm in STOPWORDS:
                continue
            hits = self.exact.get(norm)
            if hits:
                strength = 1.0 if (proper or " " in norm or len(hits) <= 2) else 0.7
                for key, v in hits:
                    add(key, v, strength, span)
            else:
                pending.append((span, norm, proper))
        if self.large_columns and self.conn is not None and pending:
            rows = self.conn.execute(
                "SELECT column_id, value, lower(value) FROM sqlgenie.value_cache"
                " WHERE column_id = ANY(%s) AND lower(value) = ANY(%s)",
                (list(self.large_columns), [p[0].lower() for p in pending]),
            ).fetchall()
            spans_by_lower = {p[0].lower(): p for p in pending}
            for cid, value, low in rows:
                span, _norm, proper = spans_by_lower.get(low, (low, low, True))
                add(self.large_columns[cid], value, 1.0 if proper else 0.7, span)
        for span, norm, proper in pending:
            if len(norm) >= 5 and self._fuzzy_norm and any(ch.isalpha() for ch in norm):
                for _match, score, idx in process.extract(
                    norm, self._fuzzy_norm, scorer=fuzz.ratio, score_cutoff=self.fuzzy_cutoff, limit=8
                ):
                    key, v = self._fuzzy_ref[idx]
                    add(key, v, 0.8 * score / 100.0, span)
            if " " not in norm and len(norm) >= 4 and (proper or len(norm) >= 6):
                partial = self.words.get(norm)
                if partial and len({k for k, _ in partial}) <= 3:
                    for key, v in partial[:20]:
                        add(key, v, 0.5 if proper else 0.35, span)
        return sorted(found.values(), key=lambda h: (-h.strength, h.key, h.value))


# --- result types ---------------------------------------------------------------------------


@dataclass
class ColumnScore:
    table: str  # qualified "schema.table"
    column: str
    score: float
    signals: dict[str, float] = field(default_factory=dict)  # embedding, lexical, table, value, example, join


@dataclass
class PrunedSchema:
    tables: dict[str, list[str]]  # qualified table -> kept column names (catalog order)
    scores: list[ColumnScore]  # every scored column, best first
    joins: list[JoinInfo]  # joins connecting the kept tables (accepted; proposed ones as a last resort)
    value_hits: dict[str, list[str]]  # "schema.table.column" -> cached values matched in the question
    threshold: float = 0.0
    reasons: dict[str, str] = field(default_factory=dict)  # "schema.table.column" -> why kept (score|key|join|all|value)

    def kept_columns(self) -> set[tuple[str, str]]:
        return {(t, c) for t, cols in self.tables.items() for c in cols}

    def render(self, catalog: Catalog) -> str:
        """Compact text for prompts: one line per kept table ``table(col type [synonyms], ...)``
        with its primary key, then the joins and the question's cached values."""
        lines: list[str] = []
        names = _display_names(catalog, self.tables)
        for qualified, cols in self.tables.items():
            t = catalog.table(qualified.split(".", 1)[1], qualified.split(".", 1)[0])
            if t is None:
                lines.append(f"{names[qualified]}({', '.join(cols)})")
                continue
            items = []
            for name in cols:
                c = t.column(name)
                if c is None:
                    items.append(name)
                    continue
                text = f"{_ident(c.name)} {c.data_type}"
                extra = _render_synonyms(c)
                if c.description:
                    extra.append(c.description.strip()[:80])
                if extra:
                    text += " [" + "; ".join(extra) + "]"
                items.append(text)
            line = f"{names[qualified]}({', '.join(items)})"
            if t.primary_key:
                line += f" PK({', '.join(_ident(k) for k in t.primary_key)})"
            if t.description:
                line += f" -- {t.description.strip()[:120]}"
            lines.append(line)
        if self.joins:
            lines.append("joins: " + "; ".join(
                " AND ".join(f"{names.get(j.from_table, j.from_table)}.{_ident(a)} = {names.get(j.to_table, j.to_table)}.{_ident(b)}"
                             for a, b in zip(j.from_columns, j.to_columns))
                + ("" if j.status == "accepted" else " (unconfirmed)")
                for j in self.joins))
        if self.value_hits:
            parts = []
            for key, vals in self.value_hits.items():
                tq, col = key.rsplit(".", 1)
                label = f"{names.get(tq, tq)}.{_ident(col)}"
                parts.append(f"{label} = " + ", ".join(_sql_string(v) for v in vals[:5]))
            lines.append("values in question: " + "; ".join(parts))
        return "\n".join(lines)


_PLAIN = re.compile(r"^[a-z_][a-z0-9_$]*$")


def _ident(name: str) -> str:
    return name if _PLAIN.match(name) else '"' + name.replace('"', '""') + '"'


def _sql_string(v: str) -> str:
    return "'" + v.replace("'", "''") + "'"


def _display_names(catalog: Catalog, tables: Iterable[str]) -> dict[str, str]:
    """Bare names for tables on the first search_path schema (when unambiguous), else qualified."""
    out = {}
    first = catalog.search_path[0] if catalog.search_path else None
    for q in tables:
        schema, name = q.split(".", 1)
        out[q] = _ident(name) if schema == first else f"{_ident(schema)}.{_ident(name)}"
    return out


def _render_synonyms(c: ColumnInfo) -> list[str]:
    """Synonyms that say more than the column name (not mere respellings or abbreviations)."""
    own = set(canonical_words(c.name)) | set(ID_TOKENS) | {"identifier"}
    out = []
    for s in c.synonyms:
        words = [w for w in split_identifier(s)]
        if not words or set(_canon(w) for w in words) <= own:
            continue
        if len(s) <= 3:
            continue
        out.append(s)
        if len(out) == 2:
            break
    return out


# --- per-catalog preparation ----------------------------------------------------------------


_EMB_CACHE: OrderedDict[tuple[str, str], np.ndarray] = OrderedDict()
_EMB_LOCK = threading.Lock()
_EMB_CACHE_SIZE = 64


def _cached_encode(embedder: Any, texts: list[str]) -> np.ndarray:
    digest = hashlib.sha1("\x1f".join(texts).encode("utf-8")).hexdigest()
    key = (str(getattr(embedder, "model_path", id(embedder))), digest)
    with _EMB_LOCK:
        hit = _EMB_CACHE.get(key)
        if hit is not None:
            _EMB_CACHE.move_to_end(key)
            return hit
    vectors = np.asarray(embedder.encode(texts), dtype=np.float32)
    with _EMB_LOCK:
        _EMB_CACHE[key] = vectors
        while len(_EMB_CACHE) > _EMB_CACHE_SIZE:
            _EMB_CACHE.popitem(last=False)
    return vectors


_WORD_CACHE: OrderedDict[tuple[str, str], np.ndarray] = OrderedDict()
_WORD_CACHE_SIZE = 200_000


def _embed_question(embedder: Any, question: str, words: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """The question's embedding and those of its content words, in one ``encode`` call
    (words are cached per process: question words repeat a lot)."""
    model = str(getattr(embedder, "model_path", id(embedder)))
    cached: list[np.ndarray | None] = []
    with _EMB_LOCK:
        for w in words:
            v = _WORD_CACHE.get((model, w))
            if v is not None:
                _WORD_CACHE.move_to_end((model, w))
            cached.append(v)
    todo = list(dict.fromkeys(w for w, v in zip(words, cached) if v is None))
    vecs = np.asarray(embedder.encode([question] + todo), dtype=np.float32)
    new = dict(zip(todo, vecs[1:]))
    if new:
        with _EMB_LOCK:
            for w, v in new.items():
                _WORD_CACHE[(model, w)] = v
            while len(_WORD_CACHE) > _WORD_CACHE_SIZE:
                _WORD_CACHE.popitem(last=False)
    rows = [v if v is not None else new[w] for v, w in zip(cached, words)]
    return vecs[0], (np.stack(rows) if rows else np.zeros((0, vecs.shape[1]), dtype=np.float32))


@dataclass
class _Vocab:
    """Canonical words of every column / table phrase, with per-phrase word ids."""

    words: list[str] = field(default_factory=list)
    index: dict[str, int] = field(default_factory=dict)
    by_initial: dict[str, list[int]] = field(default_factory=dict)

    def add(self, word: str) -> int:
        i = self.index.get(word)
        if i is None:
            i = len(self.words)
            self.words.append(word)
            self.index[word] = i
            self.by_initial.setdefault(word[:1], []).append(i)
        return i


def _phrase_ids(vocab: _Vocab, words: Sequence[str]) -> list[int]:
    return [vocab.add(_canon(w)) for w in words if w]


class _Phrases:
    """Phrases (lists of vocabulary ids) grouped by owner, for vectorised coverage."""

    def __init__(self) -> None:
        self.ids: list[int] = []
        self.starts: list[int] = []
        self.lengths: list[int] = []
        self.owner: list[int] = []
        self.tuples: dict[tuple[int, ...], list[int]] = {}

    def add(self, owner: int, ids: list[int]) -> None:
        if not ids:
            return
        p = len(self.starts)
        self.starts.append(len(self.ids))
        self.ids.extend(ids)
        self.lengths.append(len(ids))
        self.owner.append(owner)
        if len(ids) >= 2:
            self.tuples.setdefault(tuple(ids), []).append(p)

    def freeze(self, n_owners: int) -> None:
        self.ids_a = np.asarray(self.ids, dtype=np.int64)
        self.starts_a = np.asarray(self.starts, dtype=np.int64)
        self.lengths_a = np.asarray(self.lengths, dtype=np.float32)
        self.owner_a = np.asarray(self.owner, dtype=np.int64)
        self.n_owners = n_owners

    def coverage(self, sim: np.ndarray) -> np.ndarray:
        """Best phrase coverage per owner: mean word similarity of the phrase."""
        out = np.zeros(self.n_owners, dtype=np.float32)
        if not self.starts:
            return out
        sums = np.add.reduceat(sim[self.ids_a], self.starts_a) / self.lengths_a
        np.maximum.at(out, self.owner_a, sums)
        return out

    def exact(self, question_ngrams: set[tuple[int, ...]]) -> np.ndarray:
        out = np.zeros(self.n_owners, dtype=np.float32)
        for ng in question_ngrams:
            for p in self.tuples.get(ng, ()):
                out[self.owner[p]] = 1.0
        return out


def _ranks(x: np.ndarray) -> np.ndarray:
    """0 for the largest value, 1 for the next, ... (ties by position)."""
    out = np.empty(len(x), dtype=np.float32)
    out[np.argsort(-x, kind="stable")] = np.arange(len(x), dtype=np.float32)
    return out


def _group_ranks(x: np.ndarray, groups: np.ndarray) -> np.ndarray:
    """Rank of each value within its group (0 = best of its table)."""
    order = np.lexsort((-x, groups))
    out = np.empty(len(x), dtype=np.float32)
    g = groups[order]
    starts = np.r_[0, np.nonzero(np.diff(g))[0] + 1]
    pos = np.arange(len(x)) - np.repeat(starts, np.diff(np.r_[starts, len(x)]))
    out[order] = pos
    return out


def _common_prefix(a: str, b: str) -> int:
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


@lru_cache(maxsize=500_000)
def word_similarity(q: str, w: str) -> float:
    """Similarity of a question word and a schema word (both canonical, lower case):
    1 equal, 0.8 abbreviation / plural (onboarding's ``words_match``), 0.85 shared stem
    (``located`` ~ ``location``), 0.8 one typo in a long word, else 0."""
    if q == w:
        return 1.0
    s = words_match(q, w)
    if s >= 1.0:
        return 1.0
    cp = _common_prefix(q, w)
    short = min(len(q), len(w))
    if cp >= 4 and cp >= short - 3:
        s = max(s, 0.85)
    elif cp == 3 and short == 3 and len(q) > 3 and q[3:] in ("est", "er", "ly", "s", "es"):
        s = max(s, 0.85)  # low -> lowest, old -> older
    if len(q) >= 5 and len(w) >= 5 and s < 0.8 and q[0] == w[0]:
        if fuzz.ratio(q, w) >= 85:
            s = max(s, 0.8)
    return s


# --- the pruner -----------------------------------------------------------------------------


def holds_no_rows(catalog: Catalog) -> bool:
    """Whether onboarding found every table of ``catalog`` empty (``row_estimate`` 0; an
    unknown estimate counts as rows): the no-values situation of :data:`NO_VALUES_BIAS`."""
    return bool(catalog.tables) and all(t.row_estimate == 0 for t in catalog.tables)


def situation(catalog: Catalog) -> str:
    """``"values"``; ``"no_values"`` when every table holds no rows (:func:`holds_no_rows`);
    ``"no_values_no_joins"`` when, besides, several tables have no join at all (accepted or
    proposed) between them. Selects the bias of :data:`SITUATION_BIAS`."""
    if not holds_no_rows(catalog):
        return "values"
    if len(catalog.tables) > 1 and not any(j.status in ("accepted", "proposed") for j in catalog.joins):
        return "no_values_no_joins"
    return "no_values"


class SchemaPruner:
    """Scores and prunes the columns of ``catalog`` for questions (see module doc).

    ``embedder``: an object with ``encode(list[str]) -> (n, d)`` unit vectors (default:
    the process-wide MiniLM of :mod:`example_bank.embedder`). ``value_matcher``: where
    cached values come from - a :class:`ValueIndex`, a mapping ``"schema.table.column"
    -> values``, a store connection, or a
    :class:`~sqlgenie.autocorrect.values.PgValueMatcher` (its connection is used);
    ``None``: no value signal. ``threshold``: δ (default ``settings.prune_threshold``).
    A catalog whose tables all hold no rows (:func:`holds_no_rows`) scores with
    :data:`NO_VALUES_BIAS` added (``situation`` ``"no_values"``; otherwise ``"values"``, or
    ``"no_values_no_joins"``, unshifted, when its several tables have no join at all).
    """

    #: other joins of a pair the tree links: "all", "kept" (when one of their
    #: columns is kept anyway) or "" (none)
    parallel_joins: str = "all"

    def __init__(self, catalog: Catalog, *, embedder: Any = None, value_matcher: Any = None,
                 threshold: float | None = None, settings: Any = None,
                 weights: Mapping[str, float] | None = None) -> None:
        if settings is None and (threshold is None or embedder is None):
            from sqlgenie.config import get_settings

            settings = get_settings()
        self.catalog = catalog
        self.threshold = float(threshold if threshold is not None else settings.prune_threshold)
        if embedder is None:
            from example_bank.embedder import get_embedder

            embedder = get_embedder(settings.embedding_model)
        self.embedder = embedder
        self.weights = dict(WEIGHTS if weights is None else weights)
        self._w = np.asarray([self.weights.get(f, 0.0) for f in FEATURES], dtype=np.float32)
        self.situation = situation(catalog)
        self._b = float(self.weights.get("bias", 0.0)) + SITUATION_BIAS[self.situation]
        self.values = self._value_index(value_matcher)
        self.graph = JoinGraph.from_joins(catalog.joins, proposed=True)
        self._prepare()

    # --- preparation ---

    def _value_index(self, source: Any) -> ValueIndex | None:
        if source is None:
            return None
        if isinstance(source, ValueIndex):
            return source
        if isinstance(source, Mapping):
            return ValueIndex(source)
        conn = getattr(source, "conn", None) or source
        if hasattr(conn, "execute"):
            return ValueIndex.from_connection(conn, self.catalog)
        raise TypeError(f"value_matcher: unsupported {type(source).__name__}")

    def _prepare(self) -> None:
        cat = self.catalog
        self.cols: list[tuple[TableInfo, ColumnInfo]] = [(t, c) for t in cat.tables for c in t.columns]
        self.col_keys = [_qkey(t.qualified, c.name) for t, c in self.cols]
        self.col_index = {k.lower(): i for i, k in enumerate(self.col_keys)}
        self.table_names = [t.qualified for t in cat.tables]
        self.table_index = {q.lower(): i for i, q in enumerate(self.table_names)}
        self.col_table = np.asarray([self.table_index[t.qualified.lower()] for t, _ in self.cols], dtype=np.int64)
        n, nt = len(self.cols), len(cat.tables)
        # embeddings (cached per process and catalog text)
        texts = [column_text(t, c) for t, c in self.cols]
        ttexts = [table_text(t) for t in cat.tables]
        names = [expand_phrase(split_identifier(c.name)) or c.name for _t, c in self.cols]
        tnames = [expand_phrase(split_identifier(t.name)) or t.name for t in cat.tables]
        if n:
            vecs = _cached_encode(self.embedder, texts + ttexts + names + tnames)
            self.col_vecs, self.tab_vecs = vecs[:n], vecs[n:n + nt]
            self.col_name_vecs, self.tab_name_vecs = vecs[n + nt:2 * n + nt], vecs[2 * n + nt:]
        else:
            self.col_vecs = self.tab_vecs = self.col_name_vecs = self.tab_name_vecs = np.zeros((0, 1), dtype=np.float32)
        # lexical phrases
        self.vocab = _Vocab()
        self.col_phrases, self.ctx_phrases, self.tab_phrases = _Phrases(), _Phrases(), _Phrases()
        table_words: list[list[int]] = []
        for ti, t in enumerate(cat.tables):
            tw = _phrase_ids(self.vocab, _words(t.name))
            table_words.append(tw)
            self.tab_phrases.add(ti, tw)
            stripped = [w for w in _words(t.name) if w not in ("tbl", "table", "list", "info", "data")]
            if stripped and len(stripped) < len(_words(t.name)):
                self.tab_phrases.add(ti, _phrase_ids(self.vocab, stripped))
        self.col_words: list[set[int]] = [set() for _ in self.cols]
        self.tab_col_words: list[set[int]] = [set() for _ in cat.tables]
        for i, (t, c) in enumerate(self.cols):
            tw = table_words[self.table_index[t.qualified.lower()]]
            phrases = [_words(c.name)]
            stripped = [w for w in phrases[0] if w not in ID_TOKENS]
            if stripped and len(stripped) < len(phrases[0]):
                phrases.append(stripped)
            phrases += [_words(s) for s in c.synonyms]  # descriptions only feed the embedding
            for words in phrases:
                ids = _phrase_ids(self.vocab, words)
                self.col_words[i].update(ids)
                self.tab_col_words[int(self.table_index[t.qualified.lower()])].update(ids)
                self.col_phrases.add(i, ids)
                ctx = list(dict.fromkeys(tw + ids))
                self.ctx_phrases.add(i, ctx)
        self.word_cols: dict[int, list[int]] = {}
        for i, words in enumerate(self.col_words):
            for v in words:
                self.word_cols.setdefault(v, []).append(i)
        self.col_phrases.freeze(n)
        self.ctx_phrases.freeze(n)
        self.tab_phrases.freeze(nt)
        # static features
        self.is_key = np.zeros(n, dtype=np.float32)
        self.is_join = np.zeros(n, dtype=np.float32)
        self.name_like = np.zeros(n, dtype=np.float32)
        self.is_temporal = np.zeros(n, dtype=np.float32)
        self.is_measure = np.zeros(n, dtype=np.float32)
        join_cols = {(j.from_table.lower(), c.lower()) for j in cat.accepted_joins() for c in j.from_columns}
        join_cols |= {(j.to_table.lower(), c.lower()) for j in cat.accepted_joins() for c in j.to_columns}
        for i, (t, c) in enumerate(self.cols):
            self.is_key[i] = float(c.name in t.primary_key)
            self.is_join[i] = float((t.qualified.lower(), c.name.lower()) in join_cols)
            human = humanize(c.name)
            self.name_like[i] = float(human in NAME_LIKE or human.endswith(" name") or human.endswith(" title"))
            words = set(human.split())
            self.is_temporal[i] = float(c.family == "temporal" or bool(words & {"date", "year", "time", "day", "month", "dob"}))
            self.is_measure[i] = float(c.family == "numeric" and not self.is_key[i] and not self.is_join[i]
                                       and not words & ID_TOKENS)
        sizes = np.bincount(self.col_table, minlength=nt) if n else np.zeros(nt, dtype=np.int64)
        self.log_table_cols = np.log(np.maximum(sizes[self.col_table], 1)).astype(np.float32)
        # table adjacency along accepted joins
        self.neighbours: list[list[int]] = [[] for _ in cat.tables]
        for j in cat.accepted_joins():
            a, b = self.table_index.get(j.from_table.lower()), self.table_index.get(j.to_table.lower())
            if a is not None and b is not None and a != b:
                self.neighbours[a].append(b)
                self.neighbours[b].append(a)

    # --- question features ---

    def _question_words(self, question: str) -> tuple[list[str], list[str]]:
        raw = [t.lower() for t in _TOKEN.findall(question)]
        words: list[str] = []
        for t in raw:
            words.extend(split_identifier(t) or [t])
        canon = [_canon(w) for w in words]
        return words, canon

    def _word_sims(self, canon: list[str], raw: list[str]) -> tuple[np.ndarray, dict[str, list[int]]]:
        """Best similarity of each vocabulary word to a question word, and for each
        question word the vocabulary words matching it (≥ 0.8)."""
        sim = np.zeros(len(self.vocab.words), dtype=np.float32)
        per_word: dict[str, list[int]] = {}
        seen: set[str] = set()
        for q, r in zip(canon, raw):
            if q in seen or r in STOPWORDS or q in STOPWORDS or not q:
                continue
            seen.add(q)
            hits = per_word.setdefault(q, [])
            for form in {q, r}:
                i = self.vocab.index.get(form)
                if i is not None:
                    sim[i] = 1.0
                    hits.append(i)
            for cue in {q, r}:
                for target in CUE_WORDS.get(cue, ()):
                    i = self.vocab.index.get(_canon(target))
                    if i is not None:
                        sim[i] = max(sim[i], CUE_SIMILARITY)
                        if i not in hits:
                            hits.append(i)
            for i in self.vocab.by_initial.get(q[:1], ()):
                s = word_similarity(q, self.vocab.words[i])
                if r != q:
                    s = max(s, word_similarity(r, self.vocab.words[i]))
                if s >= 0.8 and i not in hits:
                    hits.append(i)
                if s > sim[i]:
                    sim[i] = s
        return sim, per_word

    def features(self, question: str, *, example_tables: Iterable[str] = (),
                 example_columns: Iterable[tuple[str, str]] = ()) -> tuple[np.ndarray, dict[str, np.ndarray], list[ValueHit]]:
        """Feature matrix ``(n_columns, len(FEATURES))``, named signals per column and
        the value hits, for one question."""
        n, nt = len(self.cols), len(self.table_names)
        raw, canon = self._question_words(question)
        content = list(dict.fromkeys(w for w in raw if w not in STOPWORDS and len(w) >= 3 and not w.isdigit()))
        qv, wv = _embed_question(self.embedder, question, content)
        emb = self.col_vecs @ qv if n else np.zeros(0, dtype=np.float32)
        temb = self.tab_vecs @ qv if nt else np.zeros(0, dtype=np.float32)
        sim, per_word = self._word_sims(canon, raw)
        lex = self.col_phrases.coverage(sim)
        ctx = self.ctx_phrases.coverage(sim) * (lex > 0)
        if content and n:
            S = wv @ self.col_name_vecs.T
            wemb = S.max(axis=0)
            wemb_rel = (S - S.max(axis=1, keepdims=True)).max(axis=0)
            twemb = (wv @ self.tab_name_vecs.T).max(axis=0)
        else:
            wemb = np.zeros(n, dtype=np.float32)
            wemb_rel = np.full(n, -1.0, dtype=np.float32)
            twemb = np.zeros(nt, dtype=np.float32)
        tlex = self.tab_phrases.coverage(sim)
        ids = [self.vocab.index.get(c, -1) for c in canon]
        ngrams = {tuple(ids[i:j]) for i in range(len(ids)) for j in range(i + 2, min(len(ids), i + 4) + 1)
                  if all(x >= 0 for x in ids[i:j])}
        exact = self.col_phrases.exact(ngrams)
        # values
        value = np.zeros(n, dtype=np.float32)
        hits: list[ValueHit] = []
        value_words: set[str] = set()
        if self.values is not None:
            for h in self.values.hits(question):
                i = self.col_index.get(h.key.lower())
                if i is not None:
                    hits.append(h)
                    value[i] = max(value[i], h.strength)
                    value_words.update(w.lower() for w in _TOKEN.findall(h.span))
        # content words that no schema name matches and no cached value covers: the columns
        # closest to them (by word embedding) may be what they mean ("taught" ~ teaches)
        canon_of = dict(zip(raw, canon))
        unexplained = [k for k, w in enumerate(content) if w not in QUERY_WORDS and w not in value_words
                       and not per_word.get(canon_of.get(w, w))]
        if unexplained and n:
            U = S[unexplained]
            uemb = U.max(axis=0)
            uemb_rel = (U - U.max(axis=1, keepdims=True)).max(axis=0)
        else:
            uemb = np.zeros(n, dtype=np.float32)
            uemb_rel = np.full(n, -1.0, dtype=np.float32)
        num_range = np.zeros(n, dtype=np.float32)
        if self.values is not None:
            for key, v in self.values.numbers_in_range(question).items():
                i = self.col_index.get(key.lower())
                if i is not None:
                    num_range[i] = v
        tvalue = np.zeros(nt, dtype=np.float32)
        np.maximum.at(tvalue, self.col_table, value)
        # examples
        ex_col = np.zeros(n, dtype=np.float32)
        for t, c in example_columns:
            i = self._resolve_column(t, c)
            if i is not None:
                ex_col[i] = 1.0
        ex_tab = np.zeros(nt, dtype=np.float32)
        for t in example_tables:
            ti = self._resolve_table(t)
            if ti is not None:
                ex_tab[ti] = 1.0
        tlex_eff = np.maximum(tlex, np.minimum(1.0, ex_tab * EXAMPLE_TABLE_BONUS))
        ct = self.col_table
        emb_rel = emb - (emb.max() if n else 0.0)
        temb_rel = temb - (temb.max() if nt else 0.0)
        tab_rel_t = np.maximum(tlex_eff, tvalue)
        tab_rel = tab_rel_t[ct]
        nbr_t = np.zeros(nt, dtype=np.float32)
        for ti, nb in enumerate(self.neighbours):
            if nb:
                nbr_t[ti] = max(tab_rel_t[x] for x in nb)
        nbr = nbr_t[ct]
        # which columns a question word names, and how they rank among the columns naming it
        claim = np.full(n, -1.0, dtype=np.float32)
        claimants = np.zeros(n, dtype=np.float32)
        if n:
            ctx_strength = ctx + 0.5 * tab_rel + 0.25 * emb
            for _q, vids in per_word.items():
                owners = sorted({c for v in vids for c in self.word_cols.get(v, ())})
                if not owners:
                    continue
                vals = ctx_strength[owners]
                top = float(vals.max())
                for c, v in zip(owners, vals):
                    if v - top > claim[c]:
                        claim[c] = v - top
                        claimants[c] = math.log(len(owners))
        # attributes a mentioned table lacks, found in a table it joins ("names of gymnasts" -> people.name)
        inherit = np.zeros(n, dtype=np.float32)
        for i in np.nonzero(lex >= 0.5)[0]:
            matched = {w for w in self.col_words[i] if sim[w] >= 0.8}
            best = 0.0
            for tj in self.neighbours[int(ct[i])]:
                if tab_rel_t[tj] >= 0.5 and not (matched & self.tab_col_words[tj]):
                    best = max(best, float(tab_rel_t[tj]))
            inherit[i] = best * lex[i]
        qset = set(raw) | set(canon)
        temporal_cue = float(bool(qset & _TEMPORAL_CUES))
        unclaimed = (claim <= -1.0).astype(np.float32)
        entity_cue = float(bool(_ENTITY_ANSWER.search(question)) and not _COUNT_ANSWER.search(question))
        numeric_cue = float(bool(qset & _NUMERIC_CUES) or any(ch.isdigit() for ch in question))
        X = np.stack([
            emb, emb_rel, temb[ct], temb_rel[ct],
            lex, ctx, exact, tlex_eff[ct],
            value, tvalue[ct],
            self.is_key, self.is_join, self.name_like * tab_rel, lex * tab_rel,
            nbr, lex * nbr, self.name_like * nbr, temporal_cue * self.is_temporal, numeric_cue * self.is_measure,
            inherit, wemb, twemb[ct], np.full(n, math.log(n), dtype=np.float32), self.log_table_cols,
            wemb_rel, np.maximum(claim, -1.0), (claim > -1.0).astype(np.float32), claimants,
            self.name_like * tab_rel * entity_cue, num_range,
            uemb, uemb_rel, (uemb_rel >= 0.0).astype(np.float32) * float(bool(unexplained)),
            unclaimed * float(not unexplained), unclaimed * math.log1p(len(unexplained)),
            -np.log1p(_ranks(emb)), -np.log1p(_ranks(np.maximum(temb, tlex_eff))[ct]),
            -np.log1p(_group_ranks(emb + lex + value, ct)),
        ], axis=1).astype(np.float32) if n else np.zeros((0, len(FEATURES)), dtype=np.float32)
        signals = {"embedding": emb, "lexical": np.maximum(lex, ctx), "table": tlex_eff[ct],
                   "value": value, "example": np.maximum(ex_col, ex_tab[ct] * 0.5)}
        return X, signals, hits

    def _asks_whole_rows(self, question: str) -> bool:
        """Whether the question asks for whole rows ("all the information about ...",
        "details of ..." unless a column of the schema is called "details")."""
        if _ALL_INFO.search(question):
            return True
        for m in _ALL_INFO_WIDE.finditer(question):
            word = (m.group(1) or m.group(2)).lower()
            i = self.vocab.index.get(_canon(word))
            if i is None or not self.word_cols.get(i):
                return True
        return False

    def _resolve_table(self, name: str) -> int | None:
        i = self.table_index.get(name.lower())
        if i is not None:
            return i
        schema, _, bare = name.rpartition(".")
        t = self.catalog.table(bare, schema or None)
        return self.table_index.get(t.qualified.lower()) if t else None

    def _resolve_column(self, table: str, column: str) -> int | None:
        ti = self._resolve_table(table)
        if ti is None:
            return None
        t = self.catalog.tables[ti]
        c = t.column(column)
        return self.col_index.get(_qkey(t.qualified, c.name).lower()) if c else None

    def score(self, X: np.ndarray) -> np.ndarray:
        z = X @ self._w + self._b
        return (1.0 / (1.0 + np.exp(-np.clip(z, -30, 30)))).astype(np.float32)

    # --- pruning ---

    def prune(self, question: str, *, example_tables: Iterable[str] = (),
              example_columns: Iterable[tuple[str, str]] = (), threshold: float | None = None,
              value_links: Sequence[Any] = ()) -> PrunedSchema:
        """Columns of the catalog relevant to ``question`` (scores ≥ δ), the tables'
        keys, and the cheapest joins connecting the kept tables. ``value_links``
        (:class:`~sqlgenie.inference.value_linking.ValueLink`): the best link of each
        span scoring at least :data:`VALUE_LINK_KEEP` keeps its column (reason ``value``)."""
        delta = self.threshold if threshold is None else float(threshold)
        example_tables = list(example_tables)
        example_columns = list(example_columns)
        X, signals, hits = self.features(question, example_tables=example_tables, example_columns=example_columns)
        scores = self.score(X)
        if len(scores):
            scores = np.maximum(scores, signals["example"] * EXAMPLE_COLUMN_SCORE * (signals["example"] >= 1.0))
        return self.select(question, scores, signals, hits, delta, example_tables=example_tables,
                           value_links=value_links)

    def column_scores(self, question: str) -> dict[str, float]:
        """Relevance of every column (``schema.table.column`` -> score), e.g. as the
        column prior of value linking."""
        X, _signals, _hits = self.features(question)
        return dict(zip(self.col_keys, (float(x) for x in self.score(X))))

    def select(self, question: str, scores: np.ndarray, signals: Mapping[str, np.ndarray], hits: list[ValueHit],
               delta: float, *, example_tables: Sequence[str] = (), value_links: Sequence[Any] = ()) -> PrunedSchema:
        """Kept set for given column scores (separate from scoring so δ can be swept).

        Monotone in δ: a higher δ keeps a subset. Columns scoring ≥ δ are kept; tables
        named by the question (or used by an example) keep their primary key whatever δ;
        the kept tables join the tree one by one, most relevant first, along the
        cheapest joins (:meth:`JoinGraph.connect_in_order`; proposed joins as a last
        resort), which brings in the tables between them and the join columns (of
        every join of a linked pair)."""
        n, nt = len(self.cols), len(self.table_names)
        kept = {i for i in range(n) if scores[i] >= delta}
        reasons = {self.col_keys[i]: "score" for i in kept}
        linked: dict[str, list[str]] = {}
        for link in value_links:
            if getattr(link, "rank", 1) != 1 or link.score < VALUE_LINK_KEEP:
                continue
            i = self.col_index.get(link.column.lower())
            if i is None:
                continue
            if i not in kept:
                kept.add(i)
                reasons[self.col_keys[i]] = "value"
            vals = linked.setdefault(self.col_keys[i], [])
            if link.value not in vals:
                vals.append(link.value)
        tables = {int(self.col_table[i]) for i in kept}
        # table-level relevance: named tables and example tables keep their key
        tsig = np.zeros(nt, dtype=np.float32)
        if n:
            np.maximum.at(tsig, self.col_table, np.asarray(signals["table"], dtype=np.float32))
        strong = {ti for ti in range(nt) if tsig[ti] >= TABLE_KEEP_LEXICAL}
        for t in example_tables:
            ti = self._resolve_table(t)
            if ti is not None:
                strong.add(ti)
        tables |= strong
        for ti in sorted(strong):
            t = self.catalog.tables[ti]
            keys = [self.col_index.get(_qkey(t.qualified, k).lower()) for k in t.primary_key]
            for i in keys:
                if i is not None and i not in kept:
                    kept.add(i)
                    reasons[self.col_keys[i]] = "key"
        # tables the admission rule never refuses: named, example, value-linked, asked for whole
        protected = set(strong) | {int(self.col_table[i]) for i in kept if reasons[self.col_keys[i]] != "score"}
        protected |= {int(self.col_table[self.col_index[k.lower()]]) for k in linked}
        # "all information about X": the best table whole
        if n and self._asks_whole_rows(question):
            t_best = int(self.col_table[int(np.argmax(scores))])
            for i in np.nonzero(self.col_table == t_best)[0]:
                if int(i) not in kept:
                    kept.add(int(i))
                    reasons[self.col_keys[int(i)]] = "all"
            tables.add(t_best)
            protected.add(t_best)
        # connect the kept tables along the cheapest joins, most relevant first
        best = np.full(nt, -1.0, dtype=np.float32)
        if n:
            np.maximum.at(best, self.col_table, scores)
        terminals = sorted(tables, key=lambda ti: (ti not in strong, -float(best[ti]), -float(tsig[ti]), ti))
        tree = self.graph.connect_in_order([self.table_names[ti] for ti in terminals],
                                           admit=admission_rule(self, kept, protected, best, delta))
        if tree.refused:  # tables whose weak columns did not pay for their join path
            out = {self.table_index[q.lower()] for q in tree.refused} - {self.table_index.get(q.lower()) for q in tree.tables}
            kept = {i for i in kept if int(self.col_table[i]) not in out}
            tables -= out
        joins = list(tree.joins)
        if self.parallel_joins:
            for j in list(tree.joins):
                for alt in self.graph.joins_between(j.from_table, j.to_table):
                    if alt is j or alt in joins:
                        continue
                    cols = [self.col_index.get(_qkey(alt.from_table, c).lower()) for c in alt.from_columns]
                    cols += [self.col_index.get(_qkey(alt.to_table, c).lower()) for c in alt.to_columns]
                    if self.parallel_joins == "all" or any(i in kept for i in cols if i is not None):
                        joins.append(alt)
        for q in tree.tables:
            ti = self.table_index.get(q.lower())
            if ti is not None:
                tables.add(ti)
        for j in joins:
            for tq, cols in ((j.from_table, j.from_columns), (j.to_table, j.to_columns)):
                for c in cols:
                    i = self.col_index.get(_qkey(tq, c).lower())
                    if i is not None and i not in kept:
                        kept.add(i)
                        reasons[self.col_keys[i]] = "join"
        # a table still without a column (no key): its best column
        for ti in tables:
            if not any(int(self.col_table[i]) == ti for i in kept):
                idx = np.nonzero(self.col_table == ti)[0]
                if len(idx):
                    i = int(idx[int(np.argmax(scores[idx]))])
                    kept.add(i)
                    reasons[self.col_keys[i]] = "key"
        # result
        join_cols = {self.col_keys[i] for i in kept if reasons.get(self.col_keys[i]) == "join"}
        out_tables: dict[str, list[str]] = {}
        for i in sorted(kept):
            t, c = self.cols[i]
            out_tables.setdefault(t.qualified, []).append(c.name)
        ordered = {q: out_tables[q] for q in self.table_names if q in out_tables}
        col_scores = []
        for i in np.argsort(-scores, kind="stable") if n else []:
            i = int(i)
            t, c = self.cols[i]
            sig = {k: round(float(v[i]), 4) for k, v in signals.items()}
            sig["join"] = 1.0 if self.col_keys[i] in join_cols else 0.0
            col_scores.append(ColumnScore(t.qualified, c.name, round(float(scores[i]), 4), sig))
        value_hits: dict[str, list[str]] = {k: list(v) for k, v in linked.items()}
        for h in hits:
            i = self.col_index.get(h.key.lower())
            if i is not None and i in kept and h.strength >= 0.7:
                value_hits.setdefault(self.col_keys[i], [])
                if h.value not in value_hits[self.col_keys[i]]:
                    value_hits[self.col_keys[i]].append(h.value)
        return PrunedSchema(ordered, col_scores, joins, value_hits, delta, reasons)
