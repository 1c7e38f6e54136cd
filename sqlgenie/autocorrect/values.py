"""Value corrector: filter literals that are not values of their column.

``WHERE name = 'rockpot'`` returns nothing when the data says ``'Rockpot LLC'``,
``'Rockpot'`` and ``'Rockpot ロックポット'``. For every comparison of a *searchable*
text column (one with a value cache, set at onboarding) with string literals —
``=``, ``!=``/``<>``, ``IN``, ``NOT IN``, ``LIKE``/``ILIKE`` and their negations —
resolved through aliases, joins, subqueries and CTEs to its base column
(:mod:`~sqlgenie.autocorrect.resolve`):

* a literal that is a cached value **exactly** (case-sensitive) is never touched;
* otherwise the matcher ranks cached values with rapidfuzz ``WRatio`` (after
  rapidfuzz's default processing: lower case, punctuation to spaces, trimmed) and
  keeps those scoring at least ``value_cutoff`` that the slips it repairs explain
  (:func:`explained`: accents, spaces, a few edits, plural, word order, stop words,
  added/dropped words around a shared content word; never a value sharing only stop
  words, which ``WRatio``'s partial token-set ratio scores 100): when some equal the
  literal after that processing (case, space and punctuation variants), those and the values that
  *extend* the literal at the end (``'rockpot'`` -> ``'Rockpot'``, ``'Rockpot LLC'``,
  but ``'english'`` -> not ``'Creole English'``); else those within ``value_margin``
  of the best (at most ``value_max_matches``); when none does, a value within
  ``value_typo_distance`` edits is taken if it is the only one (short words:
  ``'dag'`` -> ``'dog'``); literals shorter than ``value_min_length``
  or made of digits and punctuation only match case/space variants only;
* the comparison becomes ``IN (matches)`` / ``NOT IN (matches)`` (``=``/``<>`` when
  one value matches). With ``value_keep_original`` the original literal stays in the
  list (``auto``: when the column's cache may be incomplete, i.e. its ``n_distinct``
  exceeds the number of cached values);
* a ``LIKE``/``ILIKE`` pattern is corrected only when it matches no cached value and
  its text without wildcards is close to cached values.

Matchers: :class:`InMemoryValueMatcher` (tests, small caches) and
:class:`PgValueMatcher` over ``sqlgenie.value_cache``: one query checks every
literal of the statement for an exact match; for the others a column's whole cache
is ranked in memory when it holds at most ``memory_cache_max`` values (loaded once
per matcher); a larger cache is searched in stages, one query per column each, each
stage only for the literals the previous ones left without a match: (1) case/space
variants and their extensions through the btree index on ``lower(value)``; (2) values
one slip (typo, plural, swapped letters) away, through the btree indexes on the head
(``lower(value)``) and the tail (``reverse(lower(value))``, migration 0007) of the
literal; (3) the pg_trgm GIN index with a strict similarity (``trgm_fast_threshold``);
(4) a loose one (``trgm_threshold``, plus ``<%`` word similarity); at most
``trgm_candidates`` candidates per literal go to the rapidfuzz ranking.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from typing import Iterable, Mapping, Protocol, Sequence

from rapidfuzz import fuzz, process
from rapidfuzz.distance import OSA, Levenshtein
from rapidfuzz.utils import default_process
from sqlglot import exp

from sqlgenie.autocorrect.base import Change, in_values, string_literal, to_sql
from sqlgenie.autocorrect.resolve import ColumnRef, Resolver
from sqlgenie.autocorrect.settings import AutocorrectSettings
from sqlgenie.catalog import Catalog

__all__ = [
    "InMemoryValueMatcher",
    "PgValueMatcher",
    "ValueMatch",
    "ValueMatcher",
    "ValueRequest",
    "ValueSet",
    "correct_values",
    "explained",
    "like_to_regex",
    "rank_values",
]

NAME = "values"


@dataclass(frozen=True)
class ValueRequest:
    literal: str
    kind: str = "eq"  # eq | like | ilike


@dataclass(frozen=True)
class ValueMatch:
    request: ValueRequest
    exact: bool  # eq: the literal is a cached value; like: the pattern matches a cached value
    matches: tuple[str, ...] = ()
    scores: tuple[float, ...] = ()
    cached_count: int | None = None  # values cached for the column (None: not counted)


class ValueMatcher(Protocol):
    def lookup(
        self, column: ColumnRef, requests: Sequence[ValueRequest], settings: AutocorrectSettings | None = None
    ) -> list[ValueMatch]:
        """One :class:`ValueMatch` per request, in order (``settings``: the caller's thresholds)."""
        ...


# --- ranking (shared by the matchers) --------------------------------------------------------

_DIGITS_AND_PUNCT = re.compile(r"^[\W\d_]+$")
_EDIT_HALF_MIN = 3  # least intact head/tail for the btree typo stage (literals of 7+ characters)
_EDIT_SCAN_LIMIT = 100  # rows per head/tail scan; more: the neighbourhood is not complete


def _is_weak(norm: str, settings: AutocorrectSettings) -> bool:
    """Short or numbers-only literals only match case/space variants."""
    return len(norm) < settings.value_min_length or bool(_DIGITS_AND_PUNCT.match(norm))


class ValueSet:
    """Cached values of one column with their frequencies and processed forms (computed once)."""

    __slots__ = ("freq", "values", "_processed")

    def __init__(self, values: Mapping[str, int] | Iterable[str]) -> None:
        self.freq: dict[str, int] = dict(values) if isinstance(values, Mapping) else dict.fromkeys(values, 0)
        self.values: list[str] = list(self.freq)
        self._processed: list[str] | None = None

    @property
    def processed(self) -> list[str]:
        if self._processed is None:
            self._processed = [default_process(v) for v in self.values]
        return self._processed

    def __contains__(self, value: object) -> bool:
        return value in self.freq

    def __len__(self) -> int:
        return len(self.freq)


# Perturbation families a replacement must be explained by ("never guess"): WRatio
# alone is not enough, its partial token-set ratio scores 100 for any shared token, so
# 'The Rise of the Blue Beetle' "matched" 'The Hanged Man' (85.5) through "the".
_STOP_WORDS = frozenset(
    "a an and as at by de del della der des di die das du e el en et for from in la las le les los "
    "of on or the to und with y".split()
)


def _fold(text: str) -> str:
    """Accents off (NFKD, combining marks dropped); ``text`` is already processed."""
    if text.isascii():
        return text
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


def _is_content(token: str) -> bool:
    return token not in _STOP_WORDS and (len(token) > 1 or token.isdigit())


def _tokens_match(a: str, b: str) -> bool:
    """Same word up to plural/singular, one or two typos (long words) or an initial."""
    if a == b:
        return True
    short, long_ = (a, b) if len(a) <= len(b) else (b, a)
    if long_ in (short + "s", short + "es") or (short.endswith("y") and long_ == short[:-1] + "ies"):
        return True
    if len(short) == 1:
        return short.isalpha() and long_.startswith(short)  # 'j' ~ 'john'
    if len(short) < 4 or short.isdigit() or long_.isdigit():
        return False
    return OSA.distance(a, b, score_cutoff=2) <= (1 if len(short) < 8 else 2)  # swapped letters: 1


def explained(literal_norm: str, value_norm: str) -> bool:
    """Whether ``value_norm`` differs from ``literal_norm`` (both processed: lower case,
    punctuation to spaces) only by the perturbations the corrector repairs: accents,
    spaces/punctuation, a few edits relative to the length (typos, plural/singular),
    word order, stop words, or added/dropped words around at least one shared content
    word. A value sharing only stop words, or swapping a content word for another, is
    not explained."""
    a, b = _fold(literal_norm), _fold(value_norm)
    if a == b or a.replace(" ", "") == b.replace(" ", ""):
        return True
    allowed = max(1, max(len(a), len(b)) // 8)
    if OSA.distance(a, b, score_cutoff=allowed) <= allowed:
        return True
    left = a.split()
    right = b.split()
    used = [False] * len(right)
    matched_content = 0
    for exact_pass in (True, False):
        rest = []
        for tok in left:
            for j, other in enumerate(right):
                if not used[j] and (tok == other if exact_pass else _tokens_match(tok, other)):
                    used[j] = True
                    # a one-word value counts whatever it is (codes: 'T Inc' -> 'T')
                    matched_content += _is_content(tok) or _is_content(other) or len(right) == 1
                    break
            else:
                rest.append(tok)
        left = rest
    extra_left = [t for t in left if _is_content(t)]
    extra_right = [t for j, t in enumerate(right) if not used[j] and _is_content(t)]
    if matched_content == 0 or (extra_left and extra_right):
        return False  # nothing meaningful shared, or a word swapped for another
    # The value contains the literal's content words and adds some ('rockpot' ->
    # 'Rockpot LLC'), or the literal has one content word the value lacks ('Rockpot Inc'
    # -> 'Rockpot'); more than one is a different thing, not a slip.
    return len(extra_left) <= 1


def rank_values(
    literal: str, candidates: ValueSet | Mapping[str, int] | Iterable[str], settings: AutocorrectSettings
) -> list[tuple[str, float]]:
    """Cached values close to ``literal``, best first: ``(value, score)``."""
    vs = candidates if isinstance(candidates, ValueSet) else ValueSet(candidates)
    norm = default_process(literal)
    if not norm or not vs.values:
        return []
    freq = vs.freq
    if _is_weak(norm, settings):
        target = literal.strip().lower()
        same = [v for v, p in zip(vs.values, vs.processed) if p == norm and v.strip().lower() == target]
        same.sort(key=lambda v: (-freq[v], v))
        return [(v, 100.0) for v in same[: settings.value_max_matches]]
    hits = process.extract(norm, vs.processed, scorer=fuzz.WRatio, score_cutoff=settings.value_cutoff, limit=None)
    # Only values the allowed perturbations explain (see explained()).
    hits = [h for h in hits if explained(norm, vs.processed[h[2]])]
    if not hits and settings.value_typo_distance:
        # Short words: one typo costs a lot of WRatio ('dag' vs 'dog' is 67); accept a
        # value within the edit distance when it is the only one.
        near = process.extract(norm, vs.processed, scorer=Levenshtein.distance,
                               score_cutoff=settings.value_typo_distance, limit=None)
        names = {vs.processed[i] for _, _, i in near}
        if len(names) == 1:
            return [(vs.values[i], float(fuzz.WRatio(norm, vs.processed[i]))) for _, _, i in near][
                : settings.value_max_matches]
        return []
    if not hits:
        return []
    same = [i for _, _, i in hits if vs.processed[i] == norm]
    if same:
        # Case/space/punctuation variants of the literal exist: keep them and the values
        # that extend it at the end ('rockpot' -> 'Rockpot', 'Rockpot LLC'), not those
        # that put words in front of it ('english' -> not 'Creole English').
        prefix = norm + " "
        kept = [(vs.values[i], float(score)) for _, score, i in hits
                if vs.processed[i] == norm or vs.processed[i].startswith(prefix)]
    else:
        best = max(score for _, score, _ in hits)
        kept = [(vs.values[i], float(score)) for _, score, i in hits if score >= best - settings.value_margin]
    kept.sort(key=lambda item: (-item[1], -freq[item[0]], item[0]))
    return kept[: settings.value_max_matches]


def like_core(pattern: str) -> str:
    """The text of a LIKE pattern without wildcards (PostgreSQL's backslash escape honoured)."""
    out, i = [], 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\" and i + 1 < len(pattern):
            out.append(pattern[i + 1])
            i += 2
            continue
        out.append(" " if ch in "%_" else ch)
        i += 1
    return " ".join("".join(out).split())


def like_to_regex(pattern: str, *, case_insensitive: bool) -> re.Pattern[str]:
    """A compiled regex equivalent to a LIKE pattern (for matching cached values in memory)."""
    parts, i = [], 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\" and i + 1 < len(pattern):
            parts.append(re.escape(pattern[i + 1]))
            i += 2
            continue
        parts.append(".*" if ch == "%" else "." if ch == "_" else re.escape(ch))
        i += 1
    return re.compile("".join(parts), re.DOTALL | (re.IGNORECASE if case_insensitive else 0))


def _match_in_memory(
    values: ValueSet, request: ValueRequest, settings: AutocorrectSettings, cached_count: int | None
) -> ValueMatch:
    if request.kind == "eq":
        if request.literal in values:
            return ValueMatch(request, True, cached_count=cached_count)
        ranked = rank_values(request.literal, values, settings)
    else:
        rx = like_to_regex(request.literal, case_insensitive=request.kind == "ilike")
        if any(rx.fullmatch(v) for v in values.values):
            return ValueMatch(request, True, cached_count=cached_count)
        core = like_core(request.literal)
        ranked = rank_values(core, values, settings) if core else []
    return ValueMatch(
        request, False, tuple(v for v, _ in ranked), tuple(s for _, s in ranked), cached_count=cached_count
    )


class InMemoryValueMatcher:
    """Value caches held in memory: ``{"schema.table.column": {value: frequency} | [values]}``."""

    def __init__(self, caches: Mapping[str, Mapping[str, int] | Iterable[str]],
                 settings: AutocorrectSettings | None = None) -> None:
        self.settings = settings or AutocorrectSettings()
        self._caches: dict[str, ValueSet] = {key.lower(): ValueSet(values) for key, values in caches.items()}

    def lookup(
        self, column: ColumnRef, requests: Sequence[ValueRequest], settings: AutocorrectSettings | None = None
    ) -> list[ValueMatch]:
        settings = settings or self.settings
        values = self._caches.get(column.key.lower())
        if values is None:
            return [ValueMatch(r, True) for r in requests]  # no cache: treat as exact (never touch)
        return [_match_in_memory(values, r, settings, len(values)) for r in requests]


# --- PostgreSQL-backed matcher ------------------------------------------------------------------


@dataclass
class _ColumnCache:
    count: int  # rows counted (capped at memory_cache_max + 1); -1: not counted (known to be large)
    values: ValueSet | None  # the whole cache when small


class PgValueMatcher:
    """Matches against ``sqlgenie.value_cache`` on a store connection.

    Keeps small caches in memory after first use (create a new matcher to see new
    onboarding data). Use :meth:`prefetch_exact` to check every literal of a
    statement in one query before calling :meth:`lookup` per column.
    """

    def __init__(self, conn, settings: AutocorrectSettings | None = None) -> None:
        self.conn = conn
        self.settings = settings or AutocorrectSettings()
        self._columns: dict[int, _ColumnCache] = {}
        self._exact: dict[tuple[int, str], bool] = {}
        self.queries = 0  # round trips (observability, tests)

    # exact checks for many columns at once
    def prefetch_exact(self, items: Iterable[tuple[ColumnRef, str]]) -> None:
        pairs = [(ref.column.column_id, lit) for ref, lit in items
                 if ref.column.column_id is not None and (ref.column.column_id, lit) not in self._exact]
        pairs = list(dict.fromkeys(pairs))
        if not pairs:
            return
        ids = [p[0] for p in pairs]
        lits = [p[1] for p in pairs]
        rows = self._fetch(
            "SELECT v.column_id, v.value FROM unnest(%s::bigint[], %s::text[]) AS q(column_id, value)"
            " JOIN sqlgenie.value_cache v ON v.column_id = q.column_id AND v.value = q.value",
            (ids, lits),
        )
        found = {(r[0], r[1]) for r in rows}
        for pair in pairs:
            self._exact[pair] = pair in found

    def lookup(
        self, column: ColumnRef, requests: Sequence[ValueRequest], settings: AutocorrectSettings | None = None
    ) -> list[ValueMatch]:
        settings = settings or self.settings
        cid = column.column.column_id
        if cid is None:
            return [ValueMatch(r, True) for r in requests]
        self.prefetch_exact((column, r.literal) for r in requests if r.kind == "eq")
        out: dict[int, ValueMatch] = {}
        pending: list[int] = []
        for i, r in enumerate(requests):
            if r.kind == "eq" and self._exact.get((cid, r.literal)):
                out[i] = ValueMatch(r, True)
            else:
                pending.append(i)
        if pending:
            cache = self._column(cid, column.column.n_distinct)
            if cache.count == 0:
                for i in pending:  # nothing cached for this column: never touch
                    out[i] = ValueMatch(requests[i], True, cached_count=0)
            elif cache.values is not None:
                for i in pending:
                    out[i] = _match_in_memory(cache.values, requests[i], settings, cache.count)
            else:
                for i, match in zip(pending, self._match_large(cid, [requests[i] for i in pending], settings)):
                    out[i] = match
        return [out[i] for i in range(len(requests))]

    # --- internals ---

    def _fetch(self, query: str, params: Sequence | Mapping) -> list[tuple]:
        self.queries += 1
        return self.conn.execute(query, params).fetchall()

    def _column(self, cid: int, n_distinct: float | None = None) -> _ColumnCache:
        cache = self._columns.get(cid)
        if cache is not None:
            return cache
        cap = self.settings.memory_cache_max
        if n_distinct is not None and n_distinct > 2 * cap:
            # Onboarding says the column is large: skip the count probe (a few ms on 1M rows).
            cache = _ColumnCache(-1, None)
            self._columns[cid] = cache
            return cache
        count = self._fetch(
            "SELECT count(*) FROM (SELECT 1 FROM sqlgenie.value_cache WHERE column_id = %s LIMIT %s) s",
            (cid, cap + 1),
        )[0][0]
        values = None
        if count <= cap:
            values = ValueSet(
                dict(self._fetch("SELECT value, frequency FROM sqlgenie.value_cache WHERE column_id = %s", (cid,)))
            )
        cache = _ColumnCache(count, values)
        self._columns[cid] = cache
        return cache

    def _match_large(self, cid: int, requests: list[ValueRequest], s: AutocorrectSettings) -> list[ValueMatch]:
        count = self._columns[cid].count if self._columns[cid].count >= 0 else None
        like_exists: dict[int, bool] = {}
        terms: list[str] = []
        for i, r in enumerate(requests):
            if r.kind == "eq":
                terms.append(r.literal)
            else:
                op = "ILIKE" if r.kind == "ilike" else "LIKE"
                like_exists[i] = self._fetch(
                    f"SELECT EXISTS (SELECT 1 FROM sqlgenie.value_cache WHERE column_id = %s AND value {op} %s)",
                    (cid, r.literal),
                )[0][0]
                terms.append(like_core(r.literal))
        wanted = sorted({t for i, t in enumerate(terms) if t and not like_exists.get(i, False)})
        candidates: dict[str, dict[str, int]] = {t: {} for t in wanted}
        ranked: dict[str, list[tuple[str, float]]] = {}

        def settle(rows: list[tuple], pending: list[str]) -> list[str]:
            for lit, value, frequency in rows:
                candidates[lit][value] = frequency
            left = []
            for term in pending:
                got = rank_values(term, candidates[term], s)
                if got:
                    ranked[term] = got
                else:
                    left.append(term)
            return left

        # Stage 1 (btree on lower(value)): case and space variants and the values that
        # extend them ('rockpot' -> 'Rockpot LLC'); enough for most slips, ~1 ms.
        pending = settle(self._fetch(
            """
            SELECT q.lit, v.value, v.frequency
            FROM unnest(%(lits)s::text[]) AS q(lit)
            JOIN sqlgenie.value_cache v ON v.column_id = %(cid)s
             AND lower(v.value) IN (lower(q.lit), lower(btrim(q.lit)))
            UNION
            SELECT q.lit, c.value, c.frequency
            FROM unnest(%(lits)s::text[]) AS q(lit)
            CROSS JOIN LATERAL (
                SELECT v.value, v.frequency FROM sqlgenie.value_cache v
                WHERE v.column_id = %(cid)s
                  AND lower(v.value) >= lower(btrim(q.lit)) || ' ' AND lower(v.value) < lower(btrim(q.lit)) || '!'
                LIMIT %(k)s
            ) c
            """,
            {"lits": wanted, "cid": cid, "k": s.value_max_matches * 4},
        ), wanted) if wanted else []
        # Stage 2 (btree, ~1 ms): typos. See _edit_neighbours.
        if pending:
            pending = self._edit_neighbours(cid, pending, candidates, ranked, s)
        # Stage 3 (pg_trgm GIN, strict): similar values; stage 4 (loose): also values
        # that contain the literal's words (word similarity). The GIN scans cost tens
        # of ms on a 1M-value cache whose trigrams are all common.
        for threshold, word_threshold, with_words in (
            (max(s.trgm_threshold, s.trgm_fast_threshold), 1.0, False),
            (s.trgm_threshold, max(s.trgm_threshold, 0.5), True),
        ):
            if not pending:
                break
            condition = "(v.value %% q.lit OR q.lit <%% v.value)" if with_words else "v.value %% q.lit"
            order = ("greatest(similarity(v.value, q.lit), word_similarity(q.lit, v.value))" if with_words
                     else "similarity(v.value, q.lit)")
            with self.conn.transaction():
                self.conn.execute(
                    "SELECT set_config('pg_trgm.similarity_threshold', %s, true),"
                    " set_config('pg_trgm.word_similarity_threshold', %s, true)",
                    (str(threshold), str(word_threshold)),
                )
                rows = self._fetch(
                    f"""
                    SELECT q.lit, c.value, c.frequency
                    FROM unnest(%(lits)s::text[]) AS q(lit)
                    CROSS JOIN LATERAL (
                        SELECT v.value, v.frequency FROM sqlgenie.value_cache v
                        WHERE v.column_id = %(cid)s AND {condition}
                        ORDER BY {order} DESC, v.frequency DESC
                        LIMIT %(k)s
                    ) c
                    """,
                    {"lits": pending, "cid": cid, "k": s.trgm_candidates},
                )
            pending = settle(rows, pending)
        out = []
        for i, (r, term) in enumerate(zip(requests, terms)):
            if like_exists.get(i):
                out.append(ValueMatch(r, True, cached_count=count))
                continue
            got = ranked.get(term, []) if term else []
            out.append(ValueMatch(r, False, tuple(v for v, _ in got), tuple(x for _, x in got), count))
        return out


    def _edit_neighbours(self, cid: int, pending: list[str], candidates: dict[str, dict[str, int]],
                         ranked: dict[str, list[tuple[str, float]]], s: AutocorrectSettings) -> list[str]:
        """Values one slip away from each literal, through two btree range scans.

        One typo, an added or dropped letter, a plural ending or two swapped letters
        leave either the first or the last ``(n - 1) // 2`` characters of an
        ``n``-character literal intact: the values starting with that head (index on
        ``lower(value)``) or ending with that tail (index on ``reverse(lower(value))``,
        migration 0007), of about the same length, hold every such neighbour. A
        literal is settled here only when neither scan was cut by its LIMIT (the
        neighbourhood is complete) and its best match is within two edits; otherwise
        it goes on to the trigram stages with these candidates kept. Returns the
        literals left."""
        half = {t: (len(t.strip(" ")) - 1) // 2 for t in pending}
        lits = [t for t in pending if half[t] >= _EDIT_HALF_MIN and not _is_weak(default_process(t), s)]
        if not lits:
            return pending
        k = max(_EDIT_SCAN_LIMIT, s.trgm_candidates)
        rows = self._fetch(
            """
            SELECT q.lit, c.value, c.frequency, c.side
            FROM unnest(%(lits)s::text[], %(half)s::int[]) AS q(lit, half)
            CROSS JOIN LATERAL (
                SELECT lower(left(btrim(q.lit), q.half)) AS head,
                       reverse(lower(right(btrim(q.lit), q.half))) COLLATE "C" AS tail,
                       length(btrim(q.lit)) AS len
            ) p
            CROSS JOIN LATERAL (
                (SELECT v.value, v.frequency, 0 AS side FROM sqlgenie.value_cache v
                 WHERE v.column_id = %(cid)s
                   AND lower(v.value) >= p.head AND lower(v.value) < p.head || chr(1114111)
                   AND starts_with(lower(v.value), p.head) AND abs(length(v.value) - p.len) <= 2
                 LIMIT %(k)s)
                UNION ALL
                (SELECT v.value, v.frequency, 1 AS side FROM sqlgenie.value_cache v
                 WHERE v.column_id = %(cid)s
                   AND reverse(lower(v.value)) COLLATE "C" >= p.tail
                   AND reverse(lower(v.value)) COLLATE "C" < p.tail || chr(1114111)
                   AND starts_with(reverse(lower(v.value)), p.tail) AND abs(length(v.value) - p.len) <= 2
                 LIMIT %(k)s)
            ) c
            """,
            {"lits": lits, "half": [half[t] for t in lits], "cid": cid, "k": k + 1},
        )
        sides: dict[tuple[str, int], int] = {}
        for lit, value, frequency, side in rows:
            candidates[lit][value] = frequency
            sides[(lit, side)] = sides.get((lit, side), 0) + 1
        left = []
        for term in pending:
            complete = term in lits and sides.get((term, 0), 0) <= k and sides.get((term, 1), 0) <= k
            got = rank_values(term, candidates[term], s) if complete else []
            if got and Levenshtein.distance(default_process(term), default_process(got[0][0]),
                                            score_cutoff=2) <= 2:
                ranked[term] = got
            else:
                left.append(term)
        return left


# --- the corrector ----------------------------------------------------------------------------


@dataclass
class _Site:
    node: exp.Expression  # the comparison (EQ, NEQ, In, Like, ILike)
    column: exp.Column
    ref: ColumnRef
    literals: list[exp.Literal]  # string literals compared with the column
    kind: str  # eq | neq | in | like | ilike
    negated: bool = False  # under NOT
    requests: list[ValueRequest] = field(default_factory=list)
    inline_not: bool = False  # NOT LIKE written as one operator


def _column_and_literal(node: exp.Binary) -> tuple[exp.Column, exp.Literal] | None:
    left, right = node.this, node.expression
    if isinstance(left, exp.Column) and string_literal(right) is not None:
        return left, right  # type: ignore[return-value]
    if isinstance(right, exp.Column) and string_literal(left) is not None:
        return right, left  # type: ignore[return-value]
    return None


def _searchable(ref: ColumnRef | None) -> bool:
    return ref is not None and ref.column.searchable and ref.column.family == "text"


def _collect_sites(tree: exp.Expression, resolver: Resolver) -> list[_Site]:
    sites: list[_Site] = []
    for node in tree.find_all(exp.EQ, exp.NEQ, exp.In, exp.Like, exp.ILike):
        negated = isinstance(node.parent, exp.Not)
        if isinstance(node, (exp.EQ, exp.NEQ)):
            pair = _column_and_literal(node)
            if pair is None:
                continue
            col, lit = pair
            ref = resolver.resolve(col)
            if _searchable(ref):
                kind = "eq" if isinstance(node, exp.EQ) else "neq"
                sites.append(_Site(node, col, ref, [lit], kind, negated, [ValueRequest(lit.this)]))  # type: ignore[arg-type]
        elif isinstance(node, exp.In):
            values = in_values(node)
            if values is None or not isinstance(node.this, exp.Column):
                continue
            lits = [v for v in values if string_literal(v) is not None]
            if not lits:
                continue
            ref = resolver.resolve(node.this)
            if _searchable(ref):
                sites.append(_Site(node, node.this, ref, lits, "in", negated,  # type: ignore[arg-type]
                                   [ValueRequest(v.this) for v in lits]))
        else:
            if isinstance(node.parent, exp.Escape) or not isinstance(node.this, exp.Column):
                continue
            pattern = string_literal(node.expression)
            if pattern is None:
                continue
            ref = resolver.resolve(node.this)
            if _searchable(ref):
                kind = "ilike" if isinstance(node, exp.ILike) else "like"
                site = _Site(node, node.this, ref, [node.expression], kind, negated,  # type: ignore[arg-type]
                             [ValueRequest(pattern, kind)])
                site.inline_not = bool(node.args.get("negate"))  # x NOT LIKE y
                sites.append(site)
    return sites


def _keep_original(site: _Site, match: ValueMatch, settings: AutocorrectSettings) -> bool:
    mode = settings.value_keep_original
    if mode != "auto":
        return mode == "always"
    n = site.ref.column.n_distinct
    count = match.cached_count
    return n is not None and count is not None and n > count * 1.05 + 1


def _lits(values: Iterable[str]) -> list[exp.Expression]:
    return [exp.Literal.string(v) for v in dict.fromkeys(values)]


def _same_folded(literal: str, values: Iterable[str]) -> str | None:
    """The one value equal to ``literal`` but for case and spacing, if exactly one is."""
    key = " ".join(literal.casefold().split())
    same = [v for v in dict.fromkeys(values) if " ".join(v.casefold().split()) == key]
    return same[0] if len(same) == 1 else None


def _describe(match: ValueMatch) -> str:
    return ", ".join(f"{v!r} ({s:.0f})" for v, s in zip(match.matches, match.scores))


def correct_values(
    tree: exp.Expression,
    catalog: Catalog,
    matcher: ValueMatcher,
    settings: AutocorrectSettings | None = None,
    *,
    copy: bool = True,
    resolver: Resolver | None = None,
) -> tuple[exp.Expression, list[Change]]:
    """Rewrite filter literals that are not cached values (see module doc).

    Pure unless ``copy=False`` (the chain, which owns its tree, saves the copy);
    ``resolver`` may be one built on this very tree."""
    settings = settings or AutocorrectSettings()
    if copy:
        tree, resolver = tree.copy(), None
    resolver = resolver or Resolver(tree, catalog)
    if not resolver.ok:
        return tree, []
    sites = _collect_sites(tree, resolver)
    if not sites:
        return tree, []
    prefetch = getattr(matcher, "prefetch_exact", None)
    if prefetch is not None:
        prefetch((s.ref, r.literal) for s in sites for r in s.requests if r.kind == "eq")
    by_column: dict[str, list[tuple[_Site, int]]] = {}
    for site in sites:
        for j in range(len(site.requests)):
            by_column.setdefault(site.ref.key, []).append((site, j))
    results: dict[tuple[int, int], ValueMatch] = {}
    for items in by_column.values():
        ref = items[0][0].ref
        matches = matcher.lookup(ref, [s.requests[j] for s, j in items], settings)
        for (site, j), match in zip(items, matches):
            results[(id(site), j)] = match

    changes: list[Change] = []
    for site in sites:
        matches = [results[(id(site), j)] for j in range(len(site.requests))]
        if all(m.exact or not m.matches for m in matches):
            continue
        before = to_sql(site.node.parent if site.negated else site.node)
        target = site.ref.key
        col = site.column
        if site.kind in ("eq", "neq"):
            m = matches[0]
            same = _same_folded(m.request.literal, m.matches) if settings.value_same_folded else None
            if same is not None:
                values = [same]  # the question's own value, only its case/spacing differs: never widen
            else:
                values = ([m.request.literal] if _keep_original(site, m, settings) else []) + list(m.matches)
                values = list(dict.fromkeys(values))
            if len(values) == 1:
                site.literals[0].replace(exp.Literal.string(values[0]))
                new: exp.Expression = site.node
            else:
                new = exp.In(this=col.copy(), expressions=_lits(values))
                if site.kind == "neq":
                    new = exp.Not(this=new)
                site.node.replace(new)
            reasons = [f"{m.request.literal!r} is not a cached value of {target}; close values: {_describe(m)}"]
        elif site.kind == "in":
            out: list[str] = []
            reasons = []
            keep_nonstring = [v for v in in_values(site.node) or [] if string_literal(v) is None]  # type: ignore[arg-type]
            for m in matches:
                same = _same_folded(m.request.literal, m.matches) if settings.value_same_folded else None
                if m.exact or not m.matches:
                    out.append(m.request.literal)
                elif same is not None:
                    out.append(same)
                    reasons.append(f"{m.request.literal!r} is not a cached value of {target}; same value: {same!r}")
                else:
                    if _keep_original(site, m, settings):
                        out.append(m.request.literal)
                    out.extend(m.matches)
                    reasons.append(f"{m.request.literal!r} is not a cached value of {target}; close values: {_describe(m)}")
            site.node.set("expressions", [v.copy() for v in keep_nonstring] + _lits(out))
            new = site.node
        else:
            m = matches[0]
            in_node = exp.In(this=col.copy(), expressions=_lits(m.matches))
            if _keep_original(site, m, settings):
                like = site.node.copy()
                like.set("negate", None)
                new = exp.Paren(this=exp.Or(this=like, expression=in_node))
            else:
                new = in_node
            if site.inline_not:
                new = exp.Not(this=new)
            site.node.replace(new)
            reasons = [f"pattern {m.request.literal!r} matches no cached value of {target}; close values: {_describe(m)}"]
        after = to_sql(new.parent if site.negated and isinstance(new.parent, exp.Not) else new)
        changes.append(Change(NAME, before, after, "; ".join(reasons)))
    return tree, changes
