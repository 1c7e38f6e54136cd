"""Value linking: which stored values a question names, and in which columns.

Deterministic, in the spirit of DIVER's probes (no LLM). For a question:

1. **Spans** that may be values: quoted strings, word n-grams (up to
   :data:`MAX_SPAN_WORDS` words, not made of stop words only), numbers and dates.
2. **Candidates from the frequent-value cache** (``sqlgenie.value_cache``, loaded
   once per catalog by :class:`ValueLinker`), each with a match strength:

   * ``exact`` - the span is the stored value (1.0);
   * ``folded`` - equal after case, accent and punctuation folding (0.96);
   * ``token_set`` - the same words in another order (0.9);
   * ``trigram`` - a close spelling (rapidfuzz ``ratio`` ≥ :data:`FUZZY_CUTOFF` on the
     folded text; pg_trgm ``%`` on the store for caches too large to hold in memory);
   * ``partial`` - the span is a run of the value's words (``Stabile`` ->
     ``Anthony Stabile``), stronger when it covers more of the value;
   * ``abbreviation`` - initials (``USA`` <-> ``United States of America``), a
     short code of a small categorical column (``female`` -> ``F``) or the
     abbreviation dictionary of onboarding.

3. **Probes** of the tables themselves for spans that look like values (quoted,
   capitalised, with digits) and found nothing strong in the cache: ``ILIKE
   '%span%'`` with ``LIMIT`` on text columns whose cache is incomplete or that are
   not cached at all, through the safe executor, in one ``UNION ALL`` statement
   with a short timeout. A table larger than :attr:`ValueLinker.probe_max_rows`
   is probed only on a column with a trigram index (``ILIKE``) or a b-tree index
   (equality only).
4. **Numbers and dates** link to the numeric / temporal columns whose range
   (onboarding's profile) holds them; years link to date columns.

Candidates of one span are ranked by ``match strength × (0.55 + 0.3 × column
prior) + 0.15 × context`` (context: a word next to the span names the column, 0.5
its table only); the prior is the pruner's relevance of the column to the question when a
:class:`~sqlgenie.inference.pruning.SchemaPruner` is given (``singers from France``
prefers ``singer.country`` to ``country.name``), else a lexical prior (the
question's words against the column's and table's names). A span contained in a
longer span that matches better is dropped (``York`` inside ``New York``).

Entry point: :func:`link_values`; :class:`ValueLinker` keeps the per-catalog index
(build it once and reuse it, ~ms per question).
"""

from __future__ import annotations

import math
import re
import threading
import time
import unicodedata
from collections import OrderedDict
from dataclasses import asdict, dataclass
from functools import lru_cache
from typing import Any, Iterable, Mapping, Sequence

from rapidfuzz import fuzz, process

from onboarding.names import abbreviations_of, expand_word, singular, split_identifier, words_match
from sqlgenie.catalog import Catalog, ColumnInfo, TableInfo

__all__ = ["ValueLink", "ValueLinker", "link_values", "fold", "question_spans", "Span"]

#: Longest span, in words.
MAX_SPAN_WORDS = 6
#: Least rapidfuzz ``ratio`` (folded text) for a ``trigram`` candidate.
FUZZY_CUTOFF = 80.0
#: Least pg_trgm similarity for store-side candidates of large caches.
TRGM_CUTOFF = 0.5
#: Match strengths by method (see module doc).
STRENGTH = {"exact": 1.0, "folded": 0.96, "token_set": 0.9, "probe_exact": 0.94, "number": 0.8, "date": 0.8,
            "abbreviation": 0.62, "alternate": 0.88}
#: Largest number of distinct cached values of a column whose short codes (``F``, ``Y``)
#: may stand for a question word (``female``, ``yes``).
CODE_COLUMN_MAX_VALUES = 12

_STOP = frozenset(
    """a an the of in on at to for from by with and or not no is are was were be been being am do does did
    has have had having what which who whom whose when where why how that this these those there their them
    they it its i me my we our you your he she his her him all any each every some many much more most
    less least few than then also as if into out over under up down about after before between through during
    per can could should would will shall may might must list show give find tell return display get
    please both other only same such own just very s t whats whos one ones name names number numbers
    count total average sum maximum minimum max min""".split()
)
#: Stop words that may sit inside a value ("Bank of America", "Lord of the Rings").
_INNER_OK = frozenset({"of", "the", "and", "de", "la", "le", "du", "van", "von", "for", "in", "on", "at", "a", "&"})

#: Everyday forms of a value the question may use instead of the stored one (general
#: English: demonyms and the usual short names of countries); read in both directions.
ALTERNATES: dict[str, tuple[str, ...]] = {}
for _group in (
    "united states|usa|us|u s|america|american|americans|united states of america",
    "united kingdom|uk|britain|great britain|british", "england|english", "france|french", "germany|german|germans",
    "italy|italian|italians", "spain|spanish", "china|chinese", "japan|japanese", "canada|canadian|canadians",
    "mexico|mexican|mexicans", "brazil|brazilian|brazilians", "argentina|argentine|argentinian",
    "russia|russian|russians", "india|indian|indians", "australia|australian|australians",
    "netherlands|dutch|holland", "sweden|swedish|swede|swedes", "norway|norwegian", "denmark|danish|dane|danes",
    "finland|finnish", "ireland|irish", "scotland|scottish|scots", "wales|welsh", "poland|polish",
    "portugal|portuguese", "greece|greek|greeks", "turkey|turkish", "egypt|egyptian", "korea|korean|koreans",
    "south korea|korean", "switzerland|swiss", "austria|austrian", "belgium|belgian", "hungary|hungarian",
    "czech republic|czech", "israel|israeli", "iran|iranian", "iraq|iraqi", "pakistan|pakistani",
    "vietnam|vietnamese", "thailand|thai", "philippines|filipino", "indonesia|indonesian", "new zealand|nz",
    "south africa|south african", "nigeria|nigerian", "kenya|kenyan", "colombia|colombian", "chile|chilean",
    "peru|peruvian", "cuba|cuban", "ukraine|ukrainian", "romania|romanian", "bulgaria|bulgarian",
    "croatia|croatian", "serbia|serbian", "slovakia|slovak|slovakian", "united arab emirates|uae|emirati",
    "saudi arabia|saudi", "europe|european|europeans", "asia|asian|asians", "africa|african|africans",
) + tuple(f"{name}|{code}" for name, code in (
    ("alabama", "al"), ("alaska", "ak"), ("arizona", "az"), ("arkansas", "ar"), ("california", "ca"),
    ("colorado", "co"), ("connecticut", "ct"), ("delaware", "de"), ("florida", "fl"), ("georgia", "ga"),
    ("hawaii", "hi"), ("idaho", "id"), ("illinois", "il"), ("indiana", "in"), ("iowa", "ia"), ("kansas", "ks"),
    ("kentucky", "ky"), ("louisiana", "la"), ("maine", "me"), ("maryland", "md"), ("massachusetts", "ma"),
    ("michigan", "mi"), ("minnesota", "mn"), ("mississippi", "ms"), ("missouri", "mo"), ("montana", "mt"),
    ("nebraska", "ne"), ("nevada", "nv"), ("new hampshire", "nh"), ("new jersey", "nj"), ("new mexico", "nm"),
    ("new york", "ny"), ("north carolina", "nc"), ("north dakota", "nd"), ("ohio", "oh"), ("oklahoma", "ok"),
    ("oregon", "or"), ("pennsylvania", "pa"), ("rhode island", "ri"), ("south carolina", "sc"),
    ("south dakota", "sd"), ("tennessee", "tn"), ("texas", "tx"), ("utah", "ut"), ("vermont", "vt"),
    ("virginia", "va"), ("washington", "wa"), ("west virginia", "wv"), ("wisconsin", "wi"), ("wyoming", "wy"),
)):
    _all = _group.split("|")
    for _f in _all:
        ALTERNATES[_f] = tuple(dict.fromkeys(ALTERNATES.get(_f, ()) + tuple(x for x in _all if x != _f)))
#: Direction words next to a value that name the column it sits in ("departing from X" ->
#: a source / origin column, "arriving at X" -> a destination column).
DIRECTION_CUES: dict[str, tuple[str, ...]] = {}
for _cols, _cues in (
    (("source", "origin", "departure", "from", "src"), "depart departs departing departure departures leave leaves leaving origin originating"),
    (("destination", "dest", "arrival", "to", "dst"), "arrive arrives arriving arrival arrivals destination going bound"),
):
    for _cue in _cues.split():
        DIRECTION_CUES[_cue] = _cols

#: Words that a one-letter code of a small categorical column may stand for.
CODE_WORDS: dict[str, tuple[str, ...]] = {
    "female": ("f", "w"), "females": ("f", "w"), "woman": ("f", "w"), "women": ("f", "w"), "girl": ("f", "g"),
    "girls": ("f", "g"), "male": ("m",), "males": ("m",), "man": ("m",), "men": ("m",), "boy": ("m", "b"),
    "boys": ("m", "b"), "yes": ("y", "t", "1"), "true": ("t", "y", "1"), "no": ("n", "f", "0"),
    "false": ("f", "n", "0"), "not": ("n", "f", "0"),
}

_TOKEN = re.compile(r"[0-9A-Za-z\u00C0-\uFFFF]+(?:['’.](?![sS]\b)[0-9A-Za-z\u00C0-\uFFFF]+)*")
_EMAIL_OR_HOST = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+|\b[\w-]+(?:\.[\w-]+)*\.(?:com|org|net|edu|gov|io|co|uk|de|fr|br)\b")
_QUOTED = re.compile(r"[\"“”‘’']([^\"“”‘’']{1,80})[\"“”‘’']")
_BOOLEAN_VALUES = frozenset({"t", "f", "true", "false", "y", "n", "yes", "no", "1", "0"})
_NEGATIONS = frozenset({"not", "no", "without", "never", "don't", "doesn't", "didn't", "isn't", "aren't", "wasn't", "cannot", "non"})
_FLAG_FILLER = frozenset({"is", "has", "flag", "ind", "yn", "bool", "was", "does", "can"})
_YEAR_WORDS = frozenset({"year", "yr", "years", "date", "season", "time", "founded", "built", "opened"})
_NUMBER = re.compile(r"^-?\d+(?:[.,]\d+)?$")
_DATE = re.compile(r"^\d{4}-\d{1,2}(?:-\d{1,2})?$")


@lru_cache(maxsize=200_000)
def fold(text: str) -> str:
    """Lower case, accents removed, punctuation to spaces, spaces collapsed."""
    norm = unicodedata.normalize("NFKD", text)
    norm = "".join(ch for ch in norm if not unicodedata.combining(ch)).lower()
    norm = re.sub(r"[^0-9a-z\u00C0-\uFFFF]+", " ", norm)
    return " ".join(norm.split())


def _initials(folded: str) -> str:
    words = [w for w in folded.split() if w not in ("of", "the", "and", "for", "de")]
    return "".join(w[0] for w in words) if len(words) >= 2 else ""


# --- result -------------------------------------------------------------------------------


@dataclass(frozen=True)
class ValueLink:
    """One candidate: question ``span`` -> stored ``value`` of ``column``
    (``schema.table.column``), ``score`` in [0, 1], ``method`` (see module doc),
    ``rank`` among the candidates of its span (1 = best)."""

    span: str
    column: str
    value: str
    score: float
    method: str
    rank: int = 1
    start: int = 0  # character offsets of the span in the question
    end: int = 0

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Span:
    text: str
    start: int
    end: int
    proper: bool  # quoted, capitalised (not only as the first word) or with digits
    quoted: bool = False

    @property
    def folded(self) -> str:
        return fold(self.text)


def question_spans(question: str, max_words: int = MAX_SPAN_WORDS) -> list[Span]:
    """Candidate value spans: quoted strings and word n-grams (not starting or ending
    with a stop word, not only stop words)."""
    out: dict[tuple[int, int], Span] = {}
    for m in _QUOTED.finditer(question):
        text = m.group(1).strip()
        if text and not (len(text) == 1 and text.lower() == "s"):
            start = m.start(1) + (len(m.group(1)) - len(m.group(1).lstrip()))
            out[(start, start + len(text))] = Span(text, start, start + len(text), True, True)
    for m in _EMAIL_OR_HOST.finditer(question):
        text = m.group(0).rstrip(".?!,;:")
        out.setdefault((m.start(), m.start() + len(text)), Span(text, m.start(), m.start() + len(text), True))
    toks = [(m.group(0), m.start(), m.end()) for m in _TOKEN.finditer(question)]
    n = len(toks)
    for i in range(n):
        for j in range(i + 1, min(n, i + max_words) + 1):
            words = [t[0] for t in toks[i:j]]
            low = [w.lower() for w in words]
            if j - i > 1 and (low[0] in _STOP and low[0] not in ("the",) or low[-1] in _STOP):
                continue
            if all(w in _STOP for w in low):
                continue
            if j - i > 2 and any(w in _STOP and w not in _INNER_OK for w in low[1:-1]):
                continue
            start, end = toks[i][1], toks[j - 1][2]
            text = question[start:end]
            caps = any(w[:1].isupper() for k, w in enumerate(words) if i + k > 0)
            proper = caps or any(ch.isdigit() for ch in text)
            out.setdefault((start, end), Span(text, start, end, proper))
    return sorted(out.values(), key=lambda s: (s.start, s.end))


def _near_words(toks: Sequence[tuple[str, int, int]], s: Span, width: int = 2) -> list[str]:
    """Content words next to a span (at most ``width`` on each side)."""
    before = [t[0] for t in toks if t[2] <= s.start and t[0] not in _STOP]
    after = [t[0] for t in toks if t[1] >= s.end and t[0] not in _STOP]
    return before[-width:] + after[:width]


# --- the index ----------------------------------------------------------------------------


@dataclass
class _Entry:
    key: str  # schema.table.column
    value: str
    folded: str
    frequency: int


@dataclass
class _ColumnState:
    key: str
    table: TableInfo
    column: ColumnInfo
    cached: int = 0
    complete: bool = False  # every distinct value of the column is cached
    store_only: bool = False  # too many cached values to hold: looked up on the store


class ValueLinker:
    """Per-catalog value index and linker (see module doc).

    ``store``: the store connection (``sqlgenie.value_cache``); ``executor``: a
    :class:`~sqlgenie.executor.SafeExecutor` on the target database for probes
    (``None``: no probes). ``pruner``: a :class:`SchemaPruner` of the same catalog
    whose column scores rank the columns (``None``: lexical prior).
    """

    #: most cached values per column held in memory (larger caches: store look-ups)
    per_column: int = 5000
    #: tables with more rows are probed only through an index
    probe_max_rows: int = 200_000
    #: at most this many spans and columns per probe statement
    probe_spans: int = 4
    probe_columns: int = 8
    probe_limit: int = 3
    probe_timeout_ms: int = 400

    def __init__(self, catalog: Catalog, store: Any = None, *, executor: Any = None, pruner: Any = None,
                 values: Mapping[str, Iterable[str | tuple[str, int]]] | None = None) -> None:
        self.catalog = catalog
        self.store = store
        self.executor = executor
        self.pruner = pruner
        self.columns: dict[str, _ColumnState] = {}
        for t in catalog.tables:
            for c in t.columns:
                key = f"{t.qualified}.{c.name}"
                self.columns[key.lower()] = _ColumnState(key, t, c)
        self.entries: list[_Entry] = []
        self.by_folded: dict[str, list[int]] = {}
        self.by_token: dict[str, list[int]] = {}
        self.by_initials: dict[str, list[int]] = {}
        self.by_sorted: dict[str, list[int]] = {}
        self.by_prefix: dict[str, list[int]] = {}  # first five letters of one-word values
        self.flags: list[tuple[str, str, str | None, list[str]]] = []  # yes/no columns: key, true, false, name words
        self.codes: dict[str, list[int]] = {}  # one-letter codes of small categorical columns
        self._fuzzy: list[str] = []
        self._fuzzy_ref: list[int] = []
        self._indexes: dict[str, set[str]] | None = None  # column key (lower) -> {"trgm", "btree"}
        self._lock = threading.Lock()
        self.probe_queries = 0
        self._name_words: dict[str, list[str]] = {}
        if values is not None:
            self._load_mapping(values)
        elif store is not None:
            self._load_store()
        self._finish()

    # --- loading ---

    def _add(self, key: str, value: str, freq: int) -> None:
        f = fold(value)
        if not f:
            return
        i = len(self.entries)
        self.entries.append(_Entry(key, value, f, freq))
        self.by_folded.setdefault(f, []).append(i)
        words = f.split()
        for w in set(words):
            self.by_token.setdefault(w, []).append(i)
        ini = _initials(f)
        if ini:
            self.by_initials.setdefault(ini, []).append(i)
        if len(words) == 1 and len(f) >= 5:
            self.by_prefix.setdefault(f[:5], []).append(i)
        if len(words) > 1:
            self.by_sorted.setdefault(" ".join(sorted(words)), []).append(i)
        if len(f) >= 4:
            self._fuzzy.append(f)
            self._fuzzy_ref.append(i)

    def _load_mapping(self, values: Mapping[str, Iterable[str | tuple[str, int]]]) -> None:
        for key, vals in values.items():
            st = self.columns.get(key.lower())
            if st is None:
                continue
            n = 0
            for v in vals:
                value, freq = (v, 1) if isinstance(v, str) else (str(v[0]), int(v[1]))
                self._add(st.key, value, freq)
                n += 1
            st.cached = n
            st.complete = True

    def _load_store(self) -> None:
        ids = {st.column.column_id: st for st in self.columns.values()
               if st.column.column_id is not None and st.column.searchable}
        if not ids:
            return
        rows = self.store.execute(
            """
            SELECT column_id, value, frequency, n FROM (
                SELECT column_id, value, frequency, count(*) OVER (PARTITION BY column_id) AS n,
                       row_number() OVER (PARTITION BY column_id ORDER BY frequency DESC, value) AS r
                FROM sqlgenie.value_cache WHERE column_id = ANY(%s)
            ) s WHERE r <= %s
            """,
            (list(ids), self.per_column),
        ).fetchall()
        for cid, value, freq, n in rows:
            st = ids[cid]
            self._add(st.key, value, int(freq))
            st.cached = int(n)
            if n > self.per_column:
                st.store_only = True
        for st in ids.values():
            nd = st.column.n_distinct
            # pg_stats-style n_distinct: negative = fraction of rows
            if nd is not None and nd < 0 and st.table.row_estimate:
                nd = -nd * st.table.row_estimate
            st.complete = st.cached > 0 and (nd is None or st.cached >= 0.999 * nd) and st.cached < 1000

    def _finish(self) -> None:
        per_col: dict[str, list[int]] = {}
        for i, e in enumerate(self.entries):
            per_col.setdefault(e.key, []).append(i)
        for key, idx in per_col.items():
            if len(idx) > CODE_COLUMN_MAX_VALUES:
                continue
            for i in idx:
                f = self.entries[i].folded
                if len(f) == 1:
                    self.codes.setdefault(f, []).append(i)
            folded = {self.entries[i].folded: self.entries[i].value for i in idx}
            if len(folded) <= 3 and set(folded) <= _BOOLEAN_VALUES:
                truthy = next((folded[v] for v in ("t", "true", "y", "yes", "1") if v in folded), None)
                falsy = next((folded[v] for v in ("f", "false", "n", "no", "0") if v in folded), None)
                st = self.columns.get(key.lower())
                words = [w for w in split_identifier(st.column.name) if w not in _FLAG_FILLER] if st else []
                words = [re.sub(r"^(is|has)(?=[a-z]{4})", "", w) for w in words]  # isofficial -> official
                if truthy is not None and words:
                    self.flags.append((key, truthy, falsy, words))

    # --- linking ---

    def link(self, question: str, *, limit_per_span: int = 5, column_scores: Mapping[str, float] | None = None,
             probe: bool = True) -> list[ValueLink]:
        """Ranked value candidates of ``question`` (at most ``limit_per_span`` per span),
        spans in question order; each span's candidates best first."""
        spans = question_spans(question)
        prior = self._prior(question, column_scores)
        cands: dict[tuple[int, int], dict[tuple[str, str], tuple[float, str]]] = {}

        def add(span: Span, key: str, value: str, strength: float, method: str) -> None:
            bucket = cands.setdefault((span.start, span.end), {})
            cur = bucket.get((key, value))
            if cur is None or strength > cur[0]:
                bucket[(key, value)] = (strength, method)

        by_pos = {(s.start, s.end): s for s in spans}
        for s in spans:
            self._cache_candidates(s, add)
            self._typed_candidates(s, add)
        self._store_candidates(spans, add)
        if self.flags:
            for s in self._flag_candidates(question, add):
                by_pos.setdefault((s.start, s.end), s)
        if probe and self.executor is not None:
            weak = [s for s in spans if s.proper
                    and max((v[0] for v in cands.get((s.start, s.end), {}).values()), default=0.0) < 0.9]
            self._probe(weak, prior, add)
        # drop a span inside a longer one that matches better
        best = {pos: max(v[0] for v in b.values()) for pos, b in cands.items() if b}
        keep = []
        for pos, b in best.items():
            if any(o != pos and o[0] <= pos[0] and pos[1] <= o[1] and bo > b for o, bo in best.items()):
                continue
            keep.append(pos)
        out: list[ValueLink] = []
        toks = [(m.group(0).lower(), m.start(), m.end()) for m in _TOKEN.finditer(question)]
        for pos in sorted(keep):
            s = by_pos[pos]
            near = _near_words(toks, s)
            ranked = sorted(
                ((st * (0.55 + 0.3 * prior.get(k.lower(), 0.0)) + 0.15 * self._near(k, near), k, v, m)
                 for (k, v), (st, m) in cands[pos].items()),
                key=lambda x: (-x[0], x[1], x[2]),
            )
            for r, (score, k, v, m) in enumerate(ranked[:limit_per_span], 1):
                out.append(ValueLink(s.text, k, v, round(float(score), 4), m, r, s.start, s.end))
        return out

    def _near(self, key: str, near: Sequence[str]) -> float:
        """1 when a word next to the span names the column (``the Alton airport`` ->
        ``airportname``), 0.5 when it names only its table, else 0."""
        if not near:
            return 0.0
        st = self.columns[key.lower()]
        cw = self._name_words.get(key.lower())
        if cw is None:
            words = split_identifier(st.column.name) + [w for syn in st.column.synonyms for w in split_identifier(syn)]
            cw = self._name_words[key.lower()] = list(dict.fromkeys(
                w for w in words if w not in ("name", "id", "code", "type", "nm", "identifier")))
        tw = split_identifier(st.table.name)
        near = [x for q in near for x in (q,) + DIRECTION_CUES.get(q, ())]
        if any(words_match(q, w) >= 0.8 for q in near for w in cw):
            return 1.0
        if any(words_match(q, w) >= 0.8 for q in near for w in tw):
            return 0.5
        return 0.0

    def _prior(self, question: str, column_scores: Mapping[str, float] | None) -> dict[str, float]:
        if column_scores is not None:
            return {k.lower(): float(v) for k, v in column_scores.items()}
        if self.pruner is not None:
            pruned = self.pruner.prune(question)
            return {f"{c.table}.{c.column}".lower(): float(c.score) for c in pruned.scores}
        return self._lexical_prior(question)

    def _lexical_prior(self, question: str) -> dict[str, float]:
        words = {w.lower() for w in _TOKEN.findall(question)} - _STOP
        out: dict[str, float] = {}
        for key, st in self.columns.items():
            cw = split_identifier(st.column.name)
            tw = split_identifier(st.table.name)
            c = max((words_match(q, w) for q in words for w in cw), default=0.0)
            t = max((words_match(q, w) for q in words for w in tw), default=0.0)
            out[key] = 0.3 + 0.4 * c + 0.3 * t
        return out

    def _cache_candidates(self, s: Span, add: Any) -> None:
        f = s.folded
        if not f:
            return
        if len(f) < 2 and not s.quoted:
            # a one-character value ("section h"): exact only, weaker
            if f.isalnum() and f not in ("a", "i", "s", "t") and not f.isdigit():
                for i in self.by_folded.get(f, ()):
                    e = self.entries[i]
                    add(s, e.key, e.value, 0.7, "exact")
            return
        common_word = not s.proper and " " not in f
        for i in self.by_folded.get(f, ()):
            e = self.entries[i]
            same = e.value.strip() == s.text  # stored with padding (' AHD') is still the same text
            strength = STRENGTH["exact"] if same else STRENGTH["folded"]
            add(s, e.key, e.value, strength * (0.9 if common_word and len(f) < 4 else 1.0),
                "exact" if same else "folded")
        words = f.split()
        if len(words) > 1:
            for i in self.by_sorted.get(" ".join(sorted(words)), ()):
                e = self.entries[i]
                if e.folded != f:
                    add(s, e.key, e.value, STRENGTH["token_set"], "token_set")
        # the span is a run of a value's words
        if words and not all(w in _STOP for w in words) and (s.proper or len(f) >= 4):
            rare = min(words, key=lambda w: len(self.by_token.get(w, ())) if w not in _STOP else 1 << 30)
            pool = self.by_token.get(rare, ())
            if 0 < len(pool) <= 400:
                pat = f" {f} "
                for i in pool:
                    e = self.entries[i]
                    if e.folded != f and pat in f" {e.folded} ":
                        cover = len(f) / max(len(e.folded), 1)
                        add(s, e.key, e.value, 0.5 + 0.35 * cover, "partial")
        # the same stem (engineering -> engineer)
        if len(words) == 1 and len(f) >= 5 and f.isalpha():
            for i in self.by_prefix.get(f[:5], ()):
                e = self.entries[i]
                short = min(len(e.folded), len(f))
                if e.folded != f and (f.startswith(e.folded) or e.folded.startswith(f)) and short >= max(len(e.folded), len(f)) - 4:
                    add(s, e.key, e.value, 0.8, "stem")
        # a quoted fragment inside stored values ('North' -> 'NorthCarolina')
        if s.quoted and len(f) >= 3:
            compact = f.replace(" ", "")
            n = 0
            for e in self.entries:
                if compact in e.folded.replace(" ", "") and e.folded != f:
                    add(s, e.key, e.value, 0.5 + 0.3 * len(compact) / max(len(e.folded), 1), "partial")
                    n += 1
                    if n >= 50:
                        break
        # close spellings
        if len(f) >= 4 and self._fuzzy and any(ch.isalpha() for ch in f) and (s.proper or len(f) >= 5):
            for _m, score, idx in process.extract(f, self._fuzzy, scorer=fuzz.ratio, score_cutoff=FUZZY_CUTOFF,
                                                  limit=10):
                e = self.entries[self._fuzzy_ref[idx]]
                if e.folded != f:
                    add(s, e.key, e.value, 0.9 * score / 100.0, "trigram")
        # abbreviations: initials both ways, dictionary, short codes
        compact = f.replace(" ", "")
        if 2 <= len(compact) <= 6 and " " not in f and (s.text.isupper() or s.quoted):
            for i in self.by_initials.get(compact, ()):
                e = self.entries[i]
                add(s, e.key, e.value, STRENGTH["abbreviation"], "abbreviation")
        ini = _initials(f)
        if ini:
            for i in self.by_folded.get(ini, ()):
                e = self.entries[i]
                add(s, e.key, e.value, STRENGTH["abbreviation"], "abbreviation")
        if len(words) == 1 and words[0].isalpha():
            w = words[0]
            for form in set(expand_word(w)) | set(abbreviations_of(w)):
                for i in self.by_folded.get(fold(form), ()):
                    e = self.entries[i]
                    add(s, e.key, e.value, STRENGTH["abbreviation"], "abbreviation")
            for code in CODE_WORDS.get(w, ()):
                for i in self.codes.get(code, ()):
                    e = self.entries[i]
                    add(s, e.key, e.value, STRENGTH["abbreviation"] * 0.9, "abbreviation")
        # everyday alternates (French -> France, United States -> USA) and the singular
        # of a plural word (cats -> cat)
        alts = list(ALTERNATES.get(f, ())) if (len(f) > 2 or s.text.isupper() or s.quoted) else []
        if words and words[-1].isalpha() and len(words[-1]) >= 4:
            sing = singular(words[-1])
            if sing != words[-1]:
                for i in self.by_folded.get(" ".join(words[:-1] + [sing]), ()):
                    e = self.entries[i]
                    add(s, e.key, e.value, STRENGTH["folded"] * 0.95, "folded")
        for alt in alts:
            for i in self.by_folded.get(alt, ()):
                e = self.entries[i]
                add(s, e.key, e.value, STRENGTH["alternate"], "alternate")

    def _flag_candidates(self, question: str, add: Any) -> list[Span]:
        """Yes/no columns the question names (``official language`` -> ``isofficial = 'T'``,
        ``high definition TV`` -> ``hight_definition_tv = 'yes'``): the true value."""
        toks = [(m.group(0).lower(), m.start(), m.end()) for m in _TOKEN.finditer(question)]
        out = []
        for key, truthy, falsy, words in self.flags:
            pos = []
            for w in words:
                hit = next((t for t in toks if t[0] not in _STOP and words_match(t[0], w) >= 0.8), None)
                if hit is not None:
                    pos.append(hit)
            if not pos or 2 * len(pos) < len(words):
                continue
            start, end = min(p[1] for p in pos), max(p[2] for p in pos)
            if end - start > 60:
                continue
            k = next(i for i, t in enumerate(toks) if t[1] == start)
            negated = any(t[0] in _NEGATIONS for t in toks[max(0, k - 4):k])
            span = Span(question[start:end], start, end, False)
            strength = 0.75 * len(pos) / len(words)
            # "not the official language" is as often written NOT IN (... = 'T') as = 'F'
            add(span, key, truthy, strength, "flag")
            if falsy is not None:
                add(span, key, falsy, strength * (0.95 if negated else 0.6), "flag")
            out.append(span)
        return out

    def _typed_candidates(self, s: Span, add: Any) -> None:
        text = s.text.replace(",", "") if re.fullmatch(r"-?\d{1,3}(,\d{3})+(\.\d+)?", s.text) else s.text
        if _NUMBER.match(text):
            x = float(text.replace(",", "."))
            is_year = x.is_integer() and 1000 <= x <= 2100
            hits = []
            for st in self.columns.values():
                c = st.column
                fam = c.family
                if fam == "numeric" and c.name not in st.table.primary_key and c.min_value is not None:
                    try:
                        lo, hi = float(c.min_value), float(c.max_value)
                    except (TypeError, ValueError):
                        continue
                    if lo <= x <= hi:
                        hits.append((st.key, "number"))
                elif fam in ("text", "enum") and not st.complete and c.min_value is not None \
                        and _NUMBER.match(str(c.min_value)) and _NUMBER.match(str(c.max_value or "")):
                    # numbers stored as text (years, codes): the profile's range and common values
                    common = {str(v) for v, _f in c.common_values}
                    if text in common or (float(c.min_value) <= x <= float(c.max_value)):
                        hits.append((st.key, "number"))
                elif fam == "temporal" and is_year and c.min_value and c.max_value:
                    lo_y, hi_y = str(c.min_value)[:4], str(c.max_value)[:4]
                    if lo_y.isdigit() and hi_y.isdigit() and int(lo_y) <= x <= int(hi_y):
                        hits.append((st.key, "date"))
            for key, method in hits:
                st = self.columns[key.lower()]
                yearish = method == "date" or bool(set(split_identifier(st.column.name)) & _YEAR_WORDS)
                fit = 1.0 if (not is_year or yearish) else 0.6
                add(s, key, text, fit * STRENGTH[method] / math.sqrt(len(hits)), method)
        elif _DATE.match(s.text):
            for st in self.columns.values():
                c = st.column
                if c.family == "temporal" and c.min_value and c.max_value and str(c.min_value) <= s.text <= str(c.max_value) + "~":
                    add(s, st.key, s.text, STRENGTH["date"], "date")

    def _store_candidates(self, spans: Sequence[Span], add: Any) -> None:
        """Exact and pg_trgm candidates in caches too large to hold in memory."""
        large = {st.column.column_id: st for st in self.columns.values() if st.store_only}
        if not large or self.store is None:
            return
        want = [s for s in spans if s.proper or len(s.folded) >= 5]
        if not want:
            return
        by_low = {}
        for s in want:
            by_low.setdefault(s.text.lower(), s)
        rows = self.store.execute(
            "SELECT v.column_id, v.value, q.t, similarity(v.value, q.t) FROM unnest(%s::text[]) AS q(t)"
            " JOIN sqlgenie.value_cache v ON v.value %% q.t WHERE v.column_id = ANY(%s)"
            " AND similarity(v.value, q.t) >= %s",
            (list(by_low), list(large), TRGM_CUTOFF),
        ).fetchall()
        for cid, value, t, sim in rows:
            s = by_low[t]
            if value == s.text:
                add(s, large[cid].key, value, STRENGTH["exact"], "exact")
            elif fold(value) == s.folded:
                add(s, large[cid].key, value, STRENGTH["folded"], "folded")
            else:
                add(s, large[cid].key, value, 0.9 * float(sim), "trigram")

    # --- probes ---

    def _probe_columns(self, prior: Mapping[str, float], addresses: bool = False) -> list[_ColumnState]:
        out = []
        for key, st in self.columns.items():
            c = st.column
            if c.family not in ("text", "enum") or st.complete:
                continue
            if st.cached == 0 and c.searchable:
                continue  # searchable but nothing cached: empty column
            words = split_identifier(c.name)
            if any(w in ("id", "uuid", "guid", "hash", "password", "token") for w in words):
                continue
            if any(w in ("url", "email", "mail", "website", "web", "link") for w in words) and not addresses:
                continue
            rows = st.table.row_estimate or 0
            if rows > self.probe_max_rows and not self._indexes_of(key):
                continue
            out.append(st)
        out.sort(key=lambda st: (-prior.get(st.key.lower(), 0.0), st.key))
        return out[: self.probe_columns]

    def _indexes_of(self, key: str) -> set[str]:
        if self._indexes is None:
            self._indexes = self._load_indexes()
        return self._indexes.get(key.lower(), set())

    def _load_indexes(self) -> dict[str, set[str]]:
        """Single-column indexes of the catalog's tables (trigram or b-tree), read once."""
        from sqlglot import exp

        schemas = sorted({t.schema for t in self.catalog.tables})
        if not schemas or self.executor is None:
            return {}
        q = (exp.select("schemaname", "tablename", "indexdef").from_(exp.table_("pg_indexes", db="pg_catalog"))
             .where(exp.column("schemaname").isin(*[exp.Literal.string(s) for s in schemas])))
        try:
            res = self.executor.run(q.sql(dialect="postgres"), timeout_ms=2000, row_cap=100_000)
        except Exception:  # noqa: BLE001 - no index information: big tables are not probed
            return {}
        out: dict[str, set[str]] = {}
        for schema, table, indexdef in res.rows:
            m = re.search(r"USING (\w+) \((.+)\)", indexdef or "")
            if not m:
                continue
            method, cols = m.group(1), m.group(2)
            if "," in cols:
                cols = cols.split(",")[0]
            col = cols.strip().split()[0].strip('"')
            kind = "trgm" if "trgm" in cols else ("btree" if method == "btree" else method)
            out.setdefault(f"{schema}.{table}.{col}".lower(), set()).add(kind)
        return out

    def _probe(self, spans: Sequence[Span], prior: Mapping[str, float], add: Any) -> None:
        if not spans:
            return
        cols = self._probe_columns(prior, addresses=any(_EMAIL_OR_HOST.fullmatch(s.text) for s in spans))
        if not cols:
            return
        # longest spans first (more specific), at most probe_spans
        def capitalised(s: Span) -> bool:
            ws = [w for w in _TOKEN.findall(s.text) if w.lower() not in _INNER_OK]
            return bool(ws) and all(w[:1].isupper() or w[:1].isdigit() for w in ws)

        pool = [s for s in spans if s.quoted or capitalised(s) or _EMAIL_OR_HOST.fullmatch(s.text)]
        # maximal capitalised runs: drop a span inside a longer chosen one
        pool = [s for s in pool if s.quoted or not any(o is not s and not o.quoted and o.start <= s.start
                                                       and s.end <= o.end for o in pool)]
        chosen = sorted(pool, key=lambda s: (not s.quoted, s.start))[: self.probe_spans]
        if not chosen:
            return
        from sqlglot import exp

        parts = []
        for si, s in enumerate(chosen):
            for st in cols:
                big = (st.table.row_estimate or 0) > self.probe_max_rows
                kinds = self._indexes_of(st.key) if big else set()
                col = exp.cast(exp.column(st.column.name, table="t", quoted=True), "text")
                if (big and "trgm" not in kinds) or _NUMBER.match(s.text):
                    cond: exp.Expression = exp.EQ(this=col, expression=exp.Literal.string(s.text))
                else:
                    pattern = "%" + re.sub(r"([%_\\])", r"\\\1", s.text) + "%"
                    cond = exp.ILike(this=col, expression=exp.Literal.string(pattern))
                sel = (exp.select(exp.Literal.number(si).as_("s"), exp.Literal.string(st.key).as_("k"),
                                  col.copy().as_("v"))
                       .from_(exp.table_(st.table.name, db=st.table.schema, quoted=True).as_("t"))
                       .where(cond).distinct().limit(self.probe_limit))
                parts.append(exp.select("*").from_(sel.subquery(f"p{len(parts)}")))
        query = parts[0]
        for p in parts[1:]:
            query = exp.union(query, p, distinct=False)
        self.probe_queries += 1
        try:
            res = self.executor.run(query.sql(dialect="postgres"), timeout_ms=self.probe_timeout_ms,
                                    row_cap=len(parts) * self.probe_limit)
        except Exception:  # noqa: BLE001 - a probe that fails or times out only loses candidates
            return
        for si, key, value in res.rows:
            if value is None:
                continue
            s = chosen[int(si)]
            vf = fold(str(value))
            if vf == s.folded:
                add(s, key, str(value), STRENGTH["probe_exact"], "probe")
            else:
                cover = len(s.folded) / max(len(vf), 1)
                add(s, key, str(value), 0.45 + 0.35 * min(cover, 1.0), "probe")


# --- convenience --------------------------------------------------------------------------

_LINKERS: OrderedDict[tuple[int, int, int], ValueLinker] = OrderedDict()
_LINKERS_LOCK = threading.Lock()


def linker_for(catalog: Catalog, store: Any = None, *, executor: Any = None, pruner: Any = None) -> ValueLinker:
    """A :class:`ValueLinker` for ``catalog``, reused per process while the same catalog
    object, store connection and executor are passed (call again after onboarding
    with the new catalog)."""
    key = (id(catalog), id(store), id(executor))
    with _LINKERS_LOCK:
        linker = _LINKERS.get(key)
        if linker is not None and linker.catalog is catalog:
            _LINKERS.move_to_end(key)
            if pruner is not None:
                linker.pruner = pruner
            return linker
    linker = ValueLinker(catalog, store, executor=executor, pruner=pruner)
    with _LINKERS_LOCK:
        _LINKERS[key] = linker
        while len(_LINKERS) > 16:
            _LINKERS.popitem(last=False)
    return linker


def link_values(question: str, *, catalog: Catalog, store: Any = None, executor: Any = None,
                limit_per_span: int = 5, pruner: Any = None,
                column_scores: Mapping[str, float] | None = None) -> list[ValueLink]:
    """Values ``question`` names, with their columns (see module doc).

    ``store``: store connection (or a ``PgValueMatcher``, whose connection is used);
    ``executor``: safe executor on the target database for bounded probes (``None``:
    cache only); ``pruner`` / ``column_scores``: column relevance used to rank the
    columns holding the same value."""
    conn = getattr(store, "conn", None) if store is not None and not hasattr(store, "execute") else store
    linker = linker_for(catalog, conn, executor=executor, pruner=pruner)
    return linker.link(question, limit_per_span=limit_per_span, column_scores=column_scores)


def best_links(links: Sequence[ValueLink], min_score: float = 0.0) -> list[ValueLink]:
    """The top candidate of each span (``rank == 1``) scoring at least ``min_score``."""
    return [l for l in links if l.rank == 1 and l.score >= min_score]


def render_links(links: Sequence[ValueLink], *, min_score: float = 0.5, per_span: int = 2) -> str:
    """Prompt text: ``"span" -> table.column = 'value'`` lines (for the think route)."""
    lines = []
    for l in links:
        if l.rank <= per_span and l.score >= min_score:
            v = l.value.replace("'", "''")
            lines.append(f'"{l.span}" -> {l.column} = \'{v}\' ({l.method}, {l.score:.2f})')
    return "\n".join(lines)


# --- linking and pruning together (``sqlgenie link``) ---------------------------------------


@dataclass
class LinkReport:
    """What :func:`link_and_prune` found: kept tables and columns with the reason for
    each (``score``: relevance ≥ δ, ``key``, ``join``, ``all``, ``value``: a linked
    value), the joins, the linked values and the time it took."""

    question: str
    tables: dict[str, list[dict[str, Any]]]  # qualified table -> [{column, reason, score}]
    joins: list[str]
    links: list[ValueLink]
    kept_columns: int
    total_columns: int
    ms: float
    #: the pruner's operating point: "values", "no_values" when every table holds no rows,
    #: "no_values_no_joins" when besides its several tables have no join
    situation: str = "values"

    def to_json(self) -> dict[str, Any]:
        return {"question": self.question, "tables": self.tables, "joins": self.joins,
                "links": [l.to_json() for l in self.links], "kept_columns": self.kept_columns,
                "total_columns": self.total_columns, "situation": self.situation, "ms": round(self.ms, 2)}


def link_and_prune(question: str, *, pruner: Any, linker: ValueLinker, limit_per_span: int = 5) -> LinkReport:
    """Link the question's values (ranked by the pruner's column scores), then prune
    with the linked values keeping their columns."""
    t0 = time.perf_counter()
    prior = pruner.column_scores(question)
    links = linker.link(question, limit_per_span=limit_per_span, column_scores=prior)
    pruned = pruner.prune(question, value_links=links)
    ms = (time.perf_counter() - t0) * 1000
    score = {f"{c.table}.{c.column}": c.score for c in pruned.scores}
    tables: dict[str, list[dict[str, Any]]] = {}
    for t, cols in pruned.tables.items():
        tables[t] = [{"column": c, "reason": pruned.reasons.get(f"{t}.{c}", "score"),
                      "score": round(score.get(f"{t}.{c}", 0.0), 4)} for c in cols]
    joins = [" AND ".join(f"{j.from_table}.{a} = {j.to_table}.{b}" for a, b in zip(j.from_columns, j.to_columns))
             + ("" if j.status == "accepted" else " (proposed)") for j in pruned.joins]
    total = sum(len(t.columns) for t in pruner.catalog.tables)
    return LinkReport(question, tables, joins, links, sum(len(c) for c in pruned.tables.values()), total, ms,
                      pruner.situation)
