"""Foreign-key pairs: candidates, features, a calibrated score, and the decision.

When a table is onboarded, its columns are paired with the columns of the tables
onboarded before it (and with its own, for self-references), in both directions:
the new table referencing an earlier one, and an earlier one referencing the new
table. Only equi-joins are considered. A pair ``A.a -> B.b`` (referencing ->
referenced) is a candidate when ``B.b`` is unique in ``B``, the types can be
compared, and ``a`` does not have far more distinct values than ``b``.

Each candidate gets features (see :func:`features`):

* **value inclusion** — the share of ``a``'s distinct values (a sample of at most
  :data:`INCLUSION_SAMPLE` values, drawn with TABLESAMPLE on big tables) found in
  ``B.b``, computed by SQL on the target (``unnest(sample) ... WHERE EXISTS``);
* **name similarity** — same words after abbreviation expansion and singular
  (``cust_id`` ~ ``customer_id``), ``a`` naming ``B`` (``host_city_id`` -> ``city``,
  ``stuid`` -> ``student``), ``a`` ending with ``b`` (``recorded_by_staff_id`` ->
  ``staff_id``), ``b`` being ``B``'s own key (``id``, ``<B>_id``);
* **type compatibility** — same type, same family, or a cast;
* **uniqueness of the referenced side** — ``b`` is ``B``'s primary key.

The score is a logistic model over those features (:data:`WEIGHTS`), fitted on the
Spider *train* databases (``python -m onboarding.eval_keys fit``) and therefore a
calibrated probability; :data:`THRESHOLD` decides without an LLM. With an LLM the
top candidates are judged by it (names, types, top values). Then one referenced
column per referencing column: the best accepted pair wins, the others stay
proposed. Every stored pair keeps its features as evidence.
"""

from __future__ import annotations

import decimal
import json
import math
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Sequence

import psycopg
from psycopg import sql

from onboarding.names import (
    ID_TOKENS,
    STRONG_ID_TOKENS,
    canonical_word,
    mentions_table,
    phrase_similarity,
    split_identifier,
    strip_id,
    table_words,
    words_match,
)
from onboarding.keys import key_words
from onboarding.profile import TableProfile, qident, sample_clause

INCLUSION_SAMPLE = 2000  # distinct referencing values checked per column
THRESHOLD = 0.28  # accept-by-score threshold: best micro F1 on the Spider train databases
REVIEW_FLOOR = 0.15  # below: rejected; between floor and threshold: proposed for review
KEEP_FLOOR = 0.02  # candidates scoring below this (and with no name evidence) are not stored
LLM_FLOOR = 0.05  # the LLM judges candidates above this score
LLM_MAX_CANDIDATES = 25

#: Logistic-model weights (feature -> weight); "bias" is the intercept. Fitted on the
#: Spider train databases by ``python -m onboarding.eval_keys fit`` (L2 = 1); see
#: :func:`features` and :func:`group_features` for the meaning of each feature.
WEIGHTS: dict[str, float] = {
    "bias": -10.7685,
    "inclusion": 2.6122,
    "inclusion_full": 0.5213,
    "same_name": 0.5044,
    "name_sim": -0.0968,
    "names_table": 2.1811,
    "suffix_match": 1.3066,
    "dst_pk": 0.0721,
    "dst_key_name": 0.3699,
    "src_id_like": -1.8377,
    "src_pk": -0.8962,
    "self_ref": -1.4332,
    "type_same": -0.0829,
    "type_cast": -0.0806,
    "few_values": -0.1087,
    "coverage": -0.0832,
    "dst_dense_ints": -0.3245,
    "inclusion_high": 1.4825,
    "dst_generic_id": 1.3742,
    "src_own_key": -1.9417,
    "name_evidence": 1.4043,
    "no_name": -0.3381,
    "incl_x_name": 0.9521,
    "src_float": -0.406,
    "own_key_diff_name": 2.1143,
    "dst_first_col": 2.6087,
    "src_first_col": -0.2505,
    "same_name_id": 0.4931,
    "src_measure": -2.1044,
    "sole_target": 1.4017,
    "sole_no_name": 2.3831,
    "range_span": 1.4211,
    "sole_span": -0.2356,
}

#: Words of measures (counts, amounts, ranks, ages...): such columns rarely reference a key.
MEASURE_WORDS = frozenset(
    "amount total sum count rank ranking level year age score point rating price cost quantity qty feet square "
    "number_of average avg mean min max percent percentage rate ratio share weight height length "
    "width size duration hour minute second day month capacity population attendance budget salary "
    "revenue sale profit income balance medal gold silver bronze win loss goal vote_count working "
    "experience".split()
)

FEATURES = [k for k in WEIGHTS if k != "bias"]


@dataclass
class ColumnRef:
    """A column as join inference sees it (from a fresh profile or from the catalog)."""

    schema: str
    table: str
    column: str
    data_type: str
    family: str
    integral: bool
    rows: int
    ordinal: int = 0
    n_distinct: float | None = None
    null_frac: float | None = None
    is_unique: bool | None = None
    is_pk: bool = False  # the table's single-column primary key
    in_pk: bool = False  # part of the table's primary key
    pk_size: int = 0
    min_value: str | None = None
    max_value: str | None = None
    avg_width: float | None = None
    exact: bool = True
    top_values: list[str] = field(default_factory=list)

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.schema, self.table, self.column)

    @property
    def table_key(self) -> tuple[str, str]:
        return (self.schema, self.table)

    @property
    def label(self) -> str:
        return f"{self.schema}.{self.table}.{self.column}"

    @property
    def non_null(self) -> float:
        return self.rows * (1.0 - (self.null_frac or 0.0))


@dataclass
class Candidate:
    src: ColumnRef  # referencing
    dst: ColumnRef  # referenced
    features: dict[str, float] = field(default_factory=dict)
    inclusion: float | None = None
    sampled: int = 0
    included: int = 0
    score: float = 0.0
    status: str = "proposed"
    decided_by: str | None = None
    notes: list[str] = field(default_factory=list)
    llm: dict[str, Any] | None = None
    src_columns: tuple[str, ...] = ()  # composite: all referencing columns
    dst_columns: tuple[str, ...] = ()

    @property
    def from_columns(self) -> tuple[str, ...]:
        return self.src_columns or (self.src.column,)

    @property
    def to_columns(self) -> tuple[str, ...]:
        return self.dst_columns or (self.dst.column,)

    @property
    def pair_key(self) -> tuple:
        return (self.src.table_key, self.from_columns, self.dst.table_key, self.to_columns)

    def evidence(self) -> dict[str, Any]:
        ev: dict[str, Any] = {
            "features": {k: round(v, 4) for k, v in self.features.items()},
            "inclusion": None if self.inclusion is None else round(self.inclusion, 4),
            "sampled_values": self.sampled,
            "included_values": self.included,
            "src_type": self.src.data_type,
            "dst_type": self.dst.data_type,
            "dst_unique": bool(self.dst.is_unique),
            "dst_primary_key": self.dst.is_pk,
            "threshold": THRESHOLD,
        }
        if self.notes:
            ev["notes"] = self.notes
        if self.llm:
            ev["llm"] = self.llm
        return ev


# --- eligibility -----------------------------------------------------------------------------

_KEY_FAMILIES = ("numeric", "text", "enum", "other")


def key_capable(c: ColumnRef) -> bool:
    """Columns that can take part in an equi-join key."""
    if c.family not in _KEY_FAMILIES:
        return False
    if c.family == "other" and c.data_type != "uuid":
        return False
    if c.family == "text" and (c.avg_width or 0) > 80:
        return False
    if c.family == "numeric" and not c.integral and not c.data_type.startswith("numeric"):
        # floats: only when they hold whole numbers (SQLite-typed ids)
        if not _whole(c.min_value) or not _whole(c.max_value):
            return False
    return c.rows > 0 and (c.null_frac is None or c.null_frac < 1.0)


def _whole(v: str | None) -> bool:
    if v is None:
        return True
    try:
        return float(v).is_integer()
    except ValueError:
        return False


def can_reference(dst: ColumnRef) -> bool:
    return key_capable(dst) and bool(dst.is_unique)


def types_compatible(a: ColumnRef, b: ColumnRef) -> str | None:
    """'same' | 'family' | 'cast' | None."""
    if a.data_type == b.data_type:
        return "same"
    fa = "text" if a.family == "enum" else a.family
    fb = "text" if b.family == "enum" else b.family
    if fa == fb:
        return "family"
    if {fa, fb} == {"numeric", "text"}:
        return "cast"
    return None


# --- features --------------------------------------------------------------------------------------


def _words(name: str) -> list[str]:
    return split_identifier(name)


def _canon(words: Sequence[str]) -> list[str]:
    """Canonical words without trailing role numbers (``club_id_1`` -> ``club id``)."""
    out = [canonical_word(w) for w in words]
    while len(out) > 1 and out[-1].isdigit():
        out.pop()
    return out


def own_key_name(col: ColumnRef) -> float:
    """The column is named like its own table's key: ``id``, ``<table>_id``, ``<table>_code``
    (1.0), or some other ``*_id`` word that partly names the table (0.5)."""
    words = _words(col.column)
    if not words:
        return 0.0
    if len(words) == 1 and words[0] in STRONG_ID_TOKENS:
        return 1.0
    stem = strip_id(words)
    if words[-1] in ID_TOKENS and stem:
        return 1.0 if mentions_table(stem, col.table) >= 0.8 else 0.0
    return 0.0


def dst_key_name(dst: ColumnRef) -> float:
    """``b`` is named like ``B``'s own key."""
    return own_key_name(dst)


def features(src: ColumnRef, dst: ColumnRef, inclusion: float | None, coverage: float | None) -> dict[str, float]:
    a, b = _words(src.column), _words(dst.column)
    while len(a) > 1 and a[-1].isdigit():
        a = a[:-1]
    ca, cb = _canon(a), _canon(b)
    same = 1.0 if ca == cb and ca else 0.0
    sim = phrase_similarity(a, b)
    src_id_like = bool(a) and a[-1] in ID_TOKENS
    # the referencing column names the referenced table (customer_id -> customers, Physician -> physician)
    tw = [canonical_word(w) for w in table_words(dst.table)]
    if src_id_like:
        stem_a = strip_id(a) or a
        names_table = mentions_table(stem_a, dst.table)
    elif ca and ca == tw:
        names_table = 1.0  # patient -> patient, airline -> airlines
    elif ca and len(tw) == 1 and words_match(ca[-1], tw[0]) > 0:
        names_table = 0.7  # host_city -> city, prep_nurse -> nurse
    else:
        names_table = 0.0
    if names_table and src.table == dst.table:
        names_table *= 0.5
    # suffix: recorded_by_staff_id -> staff_id ; src_apid -> apid ; host_city_id -> city_id
    suffix = 0.0
    if len(ca) > len(cb) >= 1 and ca[-len(cb):] == cb and (len(cb) >= 2 or cb[0] not in ("id",)):
        suffix = 1.0
    elif len(cb) >= 2 and ca and ca[-1] == cb[-1] and cb[-1] in ID_TOKENS:
        # host_city_id vs city_id: same key word and the stem words overlap
        sa, sb = strip_id(ca), strip_id(cb)
        if sb and sa and all(any(words_match(x, y) > 0 for y in sa) for x in sb):
            suffix = 0.8
    tc = types_compatible(src, dst)
    few = 1.0 if (src.n_distinct or 0) <= 2 else 0.0
    dense = 0.0
    if dst.integral and dst.min_value is not None and dst.max_value is not None and dst.n_distinct:
        try:
            lo, hi = float(dst.min_value), float(dst.max_value)
            if lo >= 0 and hi - lo + 1 <= 1.2 * dst.n_distinct:
                dense = 1.0
        except ValueError:
            pass
    if same == 0 and (src.is_pk or src.is_unique) and own_key_name(src) >= 1.0:
        # order_items.order_item_id names its own table, not orders; but
        # purchases.purchase_transaction_id still names transactions
        own = table_words(src.table)
        rest = [w for w in strip_id(ca) if not any(words_match(w, o) > 0 for o in own)]
        if not rest:
            names_table, suffix = 0.0, 0.0
    no_name = same == 0 and names_table == 0 and suffix == 0 and sim < 0.5
    name_evidence = max(same, names_table, suffix)
    incl = inclusion or 0.0
    src_unique = bool(src.is_pk or src.is_unique)
    generic_dst = len(b) == 1 and b[0] in STRONG_ID_TOKENS
    return {
        "inclusion": incl,
        "inclusion_full": 1.0 if inclusion is not None and inclusion >= 0.999 else 0.0,
        "inclusion_high": 1.0 if inclusion is not None and inclusion >= 0.9 else 0.0,
        "same_name": same,
        "name_sim": sim,
        "names_table": names_table,
        "suffix_match": suffix,
        "dst_pk": 1.0 if dst.is_pk else 0.0,
        "dst_key_name": 0.0 if generic_dst else dst_key_name(dst),
        "dst_generic_id": 1.0 if generic_dst else 0.0,
        "src_id_like": 1.0 if src_id_like else 0.0,
        "src_pk": 1.0 if src.is_pk else 0.0,
        "src_own_key": own_key_name(src) if src_unique else 0.0,
        "self_ref": 1.0 if src.table_key == dst.table_key else 0.0,
        "type_same": 1.0 if tc == "same" else 0.0,
        "type_cast": 1.0 if tc == "cast" else 0.0,
        "few_values": few,
        "coverage": coverage or 0.0,
        "dst_dense_ints": dense if no_name else 0.0,
        "name_evidence": name_evidence,
        "no_name": 1.0 if no_name else 0.0,
        "incl_x_name": (1.0 if incl >= 0.999 else incl * 0.5) * name_evidence,
        "src_float": 1.0 if src.family == "numeric" and not src.integral and not src.data_type.startswith("numeric") else 0.0,
        "own_key_diff_name": (own_key_name(src) if src_unique else 0.0) * (1.0 - same),
        "dst_first_col": 1.0 if dst.ordinal == 1 else 0.0,
        "src_first_col": 1.0 if src.ordinal == 1 else 0.0,
        "same_name_id": same * (1.0 if src_id_like else 0.0),
        "src_measure": 1.0 if not src_id_like and any(canonical_word(w) in MEASURE_WORDS for w in a) else 0.0,
        "range_span": range_span(src, dst),
        "chance_inclusion": 1.0 if chance_inclusion(src, dst, inclusion, coverage, name_evidence, src_id_like) else 0.0,
    }


def _int_range(c: ColumnRef) -> tuple[float, float] | None:
    """(min, max) of a column holding whole numbers (integer types or integer-looking text)."""
    try:
        lo, hi = float(c.min_value), float(c.max_value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
    if not (math.isfinite(lo) and math.isfinite(hi)) or not lo.is_integer() or not hi.is_integer() or hi < lo:
        return None
    return lo, hi


def chance_inclusion(src: ColumnRef, dst: ColumnRef, inclusion: float | None, coverage: float | None,
                     name_evidence: float, src_id_like: bool) -> bool:
    """The pair has no name link and its value inclusion is what small integers give by
    chance: never accepted by score (it stays proposed for review).

    Any column of small whole numbers (a quantity 1..10, a line number, another table's
    own counter 1..600) is "included" in a surrogate key that counts 1..N. Without a name
    link (same name, the column naming the referenced table, suffix) such a pair is only
    kept apart from chance when the referencing values behave like references to that
    key. It is chance-only when the referenced column is an integer key and

    * the referencing column is named like a key (``*_id``, ``*_key``, ``*_no``, ``id``)
      whose words name neither the referenced table nor its column: it is the key of
      something else (``products.product_id`` -> ``customers.cust_id``); or
    * the referenced key is a dense counter starting at 0 or 1 and the referencing
      values do not reach its upper half, or cover less than a tenth of its keys, or
      have fewer than half the distinct values that as many rows of references would
      hit (``order_items.qty`` -> ``customers.cust_id`` / ``stores.store_id``,
      ``stores.sq_ft`` -> ``orders.order_id``).
    """
    if name_evidence > 0 or inclusion is None:
        return False
    d = _int_range(dst)
    if d is None:
        return False
    if src_id_like:
        return True
    lo, hi = d
    if lo > 1 or lo < 0 or not dst.n_distinct or hi - lo + 1 > 1.2 * dst.n_distinct:
        return False  # not a dense counter from 0/1: inclusion is informative
    s = _int_range(src)
    reach = 1.0 if s is None else max(0.0, min(1.0, (s[1] - lo + 1) / (hi - lo + 1)))
    if reach < 0.5 or (coverage is not None and coverage < 0.1):
        return True
    # references drawn over the N keys by R rows hit about N(1 - e^(-R/N)) distinct keys;
    # a measure repeats a few small values instead (qty: 39 distinct values over 100,000
    # rows, against ~107 expected for a reference to 107 stores)
    n, r = float(dst.n_distinct), src.non_null
    if src.n_distinct and r > 0:
        expected = n * (1.0 - math.exp(-r / n))
        if src.n_distinct < 0.5 * expected:
            return True
    return False


def range_span(src: ColumnRef, dst: ColumnRef) -> float:
    """How much of the referenced column's numeric range the referencing values span
    (1.0 for text): a store's square feet fall inside 1..4,000,000 order ids, but span
    only a sliver of them."""
    try:
        smin, smax = float(src.min_value), float(src.max_value)  # type: ignore[arg-type]
        dmin, dmax = float(dst.min_value), float(dst.max_value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return 1.0
    if dmax <= dmin:
        return 1.0
    return max(0.0, min(1.0, (smax - smin + 1) / (dmax - dmin + 1)))


def group_features(group: list[dict[str, float]]) -> list[dict[str, float]]:
    """Features of each candidate of one referencing column that depend on the others:
    ``sole_target`` when it is the only primary key that holds every sampled value."""
    full = [i for i, f in enumerate(group) if f.get("inclusion_full") and f.get("dst_pk")]
    out = []
    for i, f in enumerate(group):
        sole = 1.0 if len(full) == 1 and full[0] == i else 0.0
        out.append({"sole_target": sole, "sole_no_name": sole * f.get("no_name", 0.0),
                    "sole_span": sole * f.get("range_span", 1.0)})
    return out


def score(feats: dict[str, float], weights: dict[str, float] | None = None) -> float:
    w = weights or WEIGHTS
    z = w.get("bias", 0.0) + sum(w.get(k, 0.0) * v for k, v in feats.items())
    if z >= 0:
        return 1.0 / (1.0 + math.exp(-z))
    e = math.exp(z)
    return e / (1.0 + e)


# --- value inclusion on the target ------------------------------------------------------------


class ValueSampler:
    """Distinct non-null sample values per column (fetched once per onboarding step)."""

    def __init__(self, conn: psycopg.Connection, sample: int = INCLUSION_SAMPLE) -> None:
        self.conn = conn
        self.sample = sample
        self._cache: dict[tuple[str, str, str], list[Any]] = {}
        self.queries = 0

    def values(self, col: ColumnRef) -> list[Any]:
        key = col.key
        if key not in self._cache:
            clause: sql.Composable = sql.SQL("")
            if not col.exact and col.rows > 200_000:
                clause, _ = sample_clause(col.rows, target_rows=max(50_000, self.sample * 20))
            q = sql.SQL("SELECT DISTINCT {c} FROM {t}{s} WHERE {c} IS NOT NULL LIMIT {n}").format(
                c=sql.Identifier(col.column), t=qident(col.schema, col.table), s=clause, n=sql.Literal(self.sample)
            )
            self.queries += 1
            try:
                self._cache[key] = [r[0] for r in self.conn.execute(q)]
            except psycopg.Error:
                self._cache[key] = []
        return self._cache[key]


def _convert(values: Iterable[Any], dst: ColumnRef) -> tuple[list[Any], str]:
    """Sample values converted to something comparable with ``dst``; returns (values, array type)."""
    out: list[Any] = []
    if dst.family == "numeric" and dst.integral:
        for v in values:
            iv = _as_int(v)
            if iv is not None and -(2**63) <= iv < 2**63:
                out.append(iv)
        return out, "bigint[]"
    if dst.family == "numeric":
        for v in values:
            dv = _as_decimal(v)
            if dv is not None:
                out.append(dv)
        return out, "numeric[]"
    return [v if isinstance(v, str) else _text(v) for v in values], "text[]"


def _text(v: Any) -> str:
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    if isinstance(v, decimal.Decimal) and v == v.to_integral_value():
        return str(int(v))
    return str(v)


def _as_int(v: Any) -> int | None:
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return v
    if isinstance(v, float):
        return int(v) if v.is_integer() else None
    if isinstance(v, decimal.Decimal):
        return int(v) if v.is_finite() and v == v.to_integral_value() else None
    if isinstance(v, str) and re.fullmatch(r"[+-]?\d{1,18}", v):
        return int(v)
    return None


def _as_decimal(v: Any) -> decimal.Decimal | None:
    if isinstance(v, bool):
        return None
    if isinstance(v, (int, decimal.Decimal)):
        return decimal.Decimal(v)
    if isinstance(v, float):
        return decimal.Decimal(repr(v)) if math.isfinite(v) else None
    if isinstance(v, str) and re.fullmatch(r"[+-]?\d+(\.\d+)?", v):
        return decimal.Decimal(v)
    return None


def inclusion_counts(
    conn: psycopg.Connection, dst: ColumnRef, samples: list[tuple[int, list[Any]]]
) -> dict[int, int]:
    """For each (key, values) in ``samples``: how many values occur in ``dst`` (one query)."""
    keys: list[int] = []
    vals: list[Any] = []
    for k, values in samples:
        conv, array_type = _convert(values, dst)
        keys.extend([k] * len(conv))
        vals.extend(conv)
    if not vals:
        return {}
    _, array_type = _convert([], dst)
    col = sql.Identifier(dst.column)
    if array_type == "text[]" and dst.family not in ("text", "enum"):
        cmp = sql.SQL("d.{}::text = u.v").format(col)
    else:
        cmp = sql.SQL("d.{} = u.v").format(col)
    q = sql.SQL(
        "SELECT u.k, count(*) FROM unnest(%s::int[], %s::{at}) AS u(k, v) "
        "WHERE EXISTS (SELECT 1 FROM {t} d WHERE {cmp}) GROUP BY u.k"
    ).format(at=sql.SQL(array_type), t=qident(dst.schema, dst.table), cmp=cmp)
    try:
        return dict(conn.execute(q, (keys, vals)).fetchall())
    except psycopg.Error:
        return {}


# --- candidate generation ---------------------------------------------------------------------------


def generate_candidates(
    conn: psycopg.Connection,
    new_columns: list[ColumnRef],
    earlier_columns: list[ColumnRef],
    *,
    sampler: ValueSampler | None = None,
    weights: dict[str, float] | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> list[Candidate]:
    """Scored candidates between the new table's columns and earlier ones (both directions)."""
    sampler = sampler or ValueSampler(conn)
    all_cols = earlier_columns + new_columns
    new_keys = {c.key for c in new_columns}
    referenced = [c for c in all_cols if can_reference(c)]
    referencing = [c for c in all_cols if key_capable(c)]
    pairs: dict[tuple, list[ColumnRef]] = {}  # dst key -> src columns
    dst_by_key = {c.key: c for c in referenced}
    for dst in referenced:
        for src in referencing:
            if src.key == dst.key:
                continue
            if src.key not in new_keys and dst.key not in new_keys:
                continue  # compared when the later of the two was onboarded
            if types_compatible(src, dst) is None:
                continue
            if src.family in ("text", "enum") and dst.family == "numeric" and not _numeric_text(src):
                continue
            if dst.family in ("text", "enum") and src.family == "numeric" and not _numeric_text(dst):
                continue
            sd, dd = src.n_distinct or 0, dst.n_distinct or 0
            if dd and sd > 2 * dd + 2 and src.exact and dst.exact:
                continue  # inclusion would be below one half
            if src.table_key == dst.table_key and src.is_pk and dst.is_pk:
                continue
            pairs.setdefault(dst.key, []).append(src)
    out: list[Candidate] = []
    total = len(pairs)
    for i, (dkey, srcs) in enumerate(pairs.items()):
        dst = dst_by_key[dkey]
        samples = [(j, sampler.values(s)) for j, s in enumerate(srcs)]
        counts = inclusion_counts(conn, dst, samples)
        sampler.queries += 1
        for j, src in enumerate(srcs):
            n = len(samples[j][1])
            hit = counts.get(j, 0)
            incl = hit / n if n else None
            coverage = None
            if dst.n_distinct and src.n_distinct:
                coverage = min(1.0, hit / dst.n_distinct) if n >= (src.n_distinct or 0) else None
            cand = Candidate(src, dst, inclusion=incl, sampled=n, included=hit)
            cand.features = features(src, dst, incl, coverage)
            cand.score = score(cand.features, weights)
            out.append(cand)
        if progress:
            progress(i + 1, total)
    return out


def _numeric_text(c: ColumnRef) -> bool:
    """A text column whose values look like integers (SQLite-typed ids stored as text)."""
    return all(v is not None and re.fullmatch(r"\s*[+-]?\d{1,18}\s*", v) for v in (c.min_value, c.max_value))


# --- names only: tables without rows ------------------------------------------------------------

#: Why a pair was proposed without value inclusion (stored in the evidence's notes).
NAME_ONLY_REASON = "from names only: the tables hold no rows"
#: Scores of name-only pairs. Both stay below :data:`THRESHOLD` and above
#: :data:`REVIEW_FLOOR`: such a pair is only ever *proposed* (a person accepts or rejects
#: it), never accepted by score; the pruner's join tree uses proposed joins as a last
#: resort. ``names_table``: the referencing column names the referenced table and ends
#: with a key word (``concert.singer_id`` -> ``singer.singer_id``, ``student_id`` ->
#: ``student.id``); ``same_key_name``: it is named exactly like another table's key, a key
#: that does not name its table (``flight.aid`` -> ``aircraft.aid``).
NAME_ONLY_SCORES = {"names_table": 0.25, "same_key_name": 0.2}


def _type_key_capable(c: ColumnRef) -> bool:
    """:func:`key_capable` from the type alone (an empty table has no values to look at)."""
    if c.family not in _KEY_FAMILIES:
        return False
    if c.family == "other" and c.data_type != "uuid":
        return False
    if c.family == "numeric" and not c.integral and not c.data_type.startswith("numeric"):
        return c.data_type in ("real", "double precision")  # SQLite-typed ids are often REAL
    return True


def _names_other_table(col: ColumnRef, tables: Iterable[str]) -> bool:
    words = _canon(key_words(col.column))
    if not words or words[-1] not in ID_TOKENS or not strip_id(words):
        return False
    stem = strip_id(words)
    return any(t != col.table and stem == [canonical_word(w) for w in table_words(t)] for t in tables)


def name_key(cols: Sequence[ColumnRef], tables: Iterable[str] = ()) -> ColumnRef | None:
    """The key of a table as its names give it: the single-column primary key when there
    is one (declared, inferred or set by a person); else the first column named like the
    table's own key (``id``, ``<table>_id``, ``<table>id``, ``<singular table>_id``); else
    the first column when it ends with a key word and its other words are not exactly
    another table's name (``aid`` in ``aircraft``, ``document_type_code`` in
    ``ref_document_types``; ``concert_id`` in ``singer_in_concert`` is a reference to
    ``concert``, not its key)."""
    pk = [c for c in cols if c.is_pk]
    if pk:
        return pk[0]
    if any(c.in_pk for c in cols):
        return None  # a composite key: its parts are matched by composite_candidates
    ordered = sorted(cols, key=lambda c: c.ordinal)
    for c in ordered:
        if own_key_name(c) >= 1.0 and _type_key_capable(c):
            return c
    if ordered:
        first = ordered[0]
        words = key_words(first.column)
        if words and words[-1] in ID_TOKENS and _type_key_capable(first) and not _names_other_table(first, tables):
            return first
    return None


def name_only_candidates(new_columns: list[ColumnRef], earlier_columns: list[ColumnRef],
                         schema_tables: Iterable[str] = (),
                         declared: Iterable[tuple[str, str, str]] = ()) -> list[Candidate]:
    """Pairs proposed from names and types alone where a table holds no rows (no values to
    test an inclusion dependency on; :func:`generate_candidates` needs rows on both sides).

    ``A.a -> B.b`` when ``b`` is ``B``'s key by :func:`name_key`, the types can be compared
    (:func:`types_compatible`; a text/number cast only when ``a`` is named exactly like
    ``b``: nothing shows the text holds numbers), ``A`` or ``B`` holds no rows, ``A`` is not
    ``B``, ``a`` is not ``A``'s own key, and either ``a`` names ``B`` with a key word
    (``singer_id``, ``singerid``, ``countrycode``, ``host_city_id``) or ``a`` is named exactly
    like ``b`` and ``b`` names no table (``aid``). One referenced
    table per referencing column (the best rule, then the shorter referenced table name).
    ``schema_tables``: every table of the schema, onboarded or not, so a column naming a
    table onboarded later is already known as a reference (not its own table's key).
    ``declared``: (schema, table, column) of referencing columns of declared foreign keys,
    which take no name-only pair (the constraint says what they reference).
    Scores: :data:`NAME_ONLY_SCORES`; the pair is at most *proposed* (:func:`resolve`)."""
    all_cols = earlier_columns + new_columns
    new_keys = {c.key for c in new_columns}
    tables: dict[tuple[str, str], list[ColumnRef]] = {}
    for c in all_cols:
        tables.setdefault(c.table_key, []).append(c)
    table_names = sorted({t for _s, t in tables} | set(schema_tables))
    keys = {tk: name_key(cols, table_names) for tk, cols in tables.items()}
    declared = set(declared)
    best: dict[tuple, Candidate] = {}
    for bkey, dst in keys.items():
        if dst is None:
            continue
        b = _canon(key_words(dst.column))
        dst_names_table = (len(b) == 1 and b[0] in STRONG_ID_TOKENS) or own_key_name(dst) >= 1.0
        for akey, cols in tables.items():
            if akey == bkey:
                continue
            for src in cols:
                if src.key not in new_keys and dst.key not in new_keys:
                    continue  # compared when the later of the two was onboarded
                if src.rows > 0 and dst.rows > 0:
                    continue  # both hold rows: value inclusion decides (generate_candidates)
                if src.key in declared:
                    continue
                tc = types_compatible(src, dst)
                if not _type_key_capable(src) or tc is None:
                    continue
                if keys.get(akey) is not None and keys[akey].key == src.key:
                    continue  # A's own key (two tables keyed alike are siblings, not a reference)
                a = _canon(key_words(src.column))
                if not a or a[-1] not in ID_TOKENS:
                    continue
                stem = strip_id(a)
                names = mentions_table(stem, dst.table) if stem else 0.0
                rule = None
                if names >= 0.8 and (tc != "cast" or a == b):
                    rule = "names_table"  # a text/number cast only under the key's very name
                elif a == b and not dst_names_table and tc != "cast":
                    rule = "same_key_name"
                if rule is None:
                    continue
                cand = Candidate(src, dst, inclusion=None, sampled=0, included=0)
                cand.features = {"name_only": 1.0, "names_table": 1.0 if rule == "names_table" else 0.0,
                                 "same_name": 1.0 if a == b else 0.0, "dst_key_guessed": 0.0 if dst.is_pk else 1.0}
                cand.score = NAME_ONLY_SCORES[rule]
                cand.notes.append(f"{NAME_ONLY_REASON}; " + (
                    f"{src.column} names the table {dst.table}" if rule == "names_table"
                    else f"{src.column} is named like the key of {dst.table}")
                    + ("" if dst.is_pk else f" ({dst.column} taken as its key from its name)"))
                prev = best.get(src.key)
                if prev is None or (cand.score, -len(dst.table), dst.table) > (prev.score, -len(prev.dst.table), prev.dst.table):
                    best[src.key] = cand
    return list(best.values())


# --- composite keys ---------------------------------------------------------------------------------


def composite_candidates(
    conn: psycopg.Connection,
    tables: dict[tuple[str, str], list[ColumnRef]],
    primary_keys: dict[tuple[str, str], list[str]],
    new_table: tuple[str, str],
    *,
    sample: int = INCLUSION_SAMPLE,
) -> list[Candidate]:
    """Multi-column pairs ``A(a1..an) -> B(k1..kn)`` where ``B``'s primary key is
    composite and ``A`` has a same-named, type-compatible column for every part."""
    out: list[Candidate] = []
    for bkey, pk in primary_keys.items():
        if len(pk) < 2 or bkey not in tables:
            continue
        bcols = {c.column: c for c in tables[bkey]}
        if any(k not in bcols for k in pk):
            continue
        for akey, acols in tables.items():
            if akey == bkey or (akey != new_table and bkey != new_table):
                continue
            chosen: list[ColumnRef] = []
            for k in pk:
                kw = _canon(_words(k))
                match = [c for c in acols if _canon(_words(c.column)) == kw and types_compatible(c, bcols[k])]
                if len(match) != 1:
                    break
                chosen.append(match[0])
            if len(chosen) != len(pk):
                continue
            if {c.column for c in chosen} == set(primary_keys.get(akey, [])):
                continue  # same composite key on both sides: sibling tables, not a reference
            incl, n, hit = tuple_inclusion(conn, chosen, [bcols[k] for k in pk], sample)
            if incl is None:
                continue
            pairs = sorted(zip((c.column for c in chosen), pk))  # canonical order: by referencing column
            cand = Candidate(chosen[0], bcols[pk[0]], inclusion=incl, sampled=n, included=hit,
                             src_columns=tuple(a for a, _ in pairs), dst_columns=tuple(b for _, b in pairs))
            cand.features = {"inclusion": incl, "same_name": 1.0, "composite": float(len(pk))}
            cand.score = 0.95 if incl >= 0.999 else (0.7 if incl >= 0.9 else 0.1)
            cand.notes.append("composite key: every referencing column is named like a part of the referenced primary key")
            out.append(cand)
    return out


def tuple_inclusion(
    conn: psycopg.Connection, srcs: list[ColumnRef], dsts: list[ColumnRef], sample: int
) -> tuple[float | None, int, int]:
    a = srcs[0]
    cols = sql.SQL(", ").join(sql.Identifier(c.column) for c in srcs)
    not_null = sql.SQL(" AND ").join(sql.SQL("{} IS NOT NULL").format(sql.Identifier(c.column)) for c in srcs)
    clause: sql.Composable = sql.SQL("")
    if not a.exact and a.rows > 200_000:
        clause, _ = sample_clause(a.rows, target_rows=max(50_000, sample * 20))
    try:
        rows = conn.execute(
            sql.SQL("SELECT DISTINCT {c} FROM {t}{s} WHERE {nn} LIMIT {n}").format(
                c=cols, t=qident(a.schema, a.table), s=clause, nn=not_null, n=sql.Literal(sample)
            )
        ).fetchall()
    except psycopg.Error:
        return None, 0, 0
    if not rows:
        return None, 0, 0
    arrays = [[_text(r[i]) for r in rows] for i in range(len(srcs))]
    unnest = sql.SQL(", ").join(sql.SQL("%s::text[]") for _ in srcs)
    names = sql.SQL(", ").join(sql.Identifier(f"v{i}") for i in range(len(srcs)))
    cond = sql.SQL(" AND ").join(
        sql.SQL("d.{}::text = u.{}").format(sql.Identifier(d.column), sql.Identifier(f"v{i}")) for i, d in enumerate(dsts)
    )
    b = dsts[0]
    try:
        hit = conn.execute(
            sql.SQL("SELECT count(*) FROM unnest({un}) AS u({names}) WHERE EXISTS (SELECT 1 FROM {t} d WHERE {cond})").format(
                un=unnest, names=names, t=qident(b.schema, b.table), cond=cond
            ),
            arrays,
        ).fetchone()[0]
    except psycopg.Error:
        return None, len(rows), 0
    return hit / len(rows), len(rows), hit


# --- decision ---------------------------------------------------------------------------------------


def status_for(score_: float, threshold: float = THRESHOLD) -> str:
    if score_ >= threshold:
        return "accepted"
    if score_ >= REVIEW_FLOOR:
        return "proposed"
    return "rejected"


def worth_storing(c: Candidate) -> bool:
    f = c.features
    return (
        c.score >= KEEP_FLOOR
        or (f.get("inclusion_full", 0) > 0 and f.get("dst_pk", 0) > 0)  # may be a sole target
        or f.get("same_name", 0) > 0
        or f.get("names_table", 0) > 0
        or f.get("suffix_match", 0) > 0
        or c.decided_by in ("llm", "human", "declared")
    )


@dataclass
class JoinRow:
    """A stored pair as resolution sees it (from the catalog or just computed)."""

    key: tuple  # (from_table_key, from_columns, to_table_key, to_columns)
    score: float
    status: str
    decided_by: str | None
    join_id: int | None = None
    llm_verdict: str | None = None  # accept | reject (LLM-judged rows)
    features: dict[str, float] | None = None  # single-column score rows: rescored with group features
    chance_only: bool = False  # see chance_inclusion(); also read from features["chance_inclusion"]


def resolve(rows: list[JoinRow], threshold: float = THRESHOLD) -> dict[tuple, tuple[str, str | None]]:
    """Statuses after resolution: per referencing column set at most one accepted pair
    (human and declared decisions first, then LLM, then the best score); of two pairs
    in opposite directions only the better is accepted. Human decisions never change.
    A score-decided pair flagged by :func:`chance_inclusion` is at most proposed.

    Score-decided single-column rows that carry ``features`` are first rescored with
    :func:`group_features` over the other candidates of the same referencing column
    (``r.score`` is updated in place).

    Returns key -> (status, decided_by) for every row.
    """
    groups: dict[tuple, list[JoinRow]] = {}
    for r in rows:
        if r.features is not None and len(r.key[1]) == 1 and "composite" not in r.features \
                and "name_only" not in r.features:
            groups.setdefault((r.key[0], r.key[1]), []).append(r)
    for group in groups.values():
        extras = group_features([g.features or {} for g in group])
        for g, extra in zip(group, extras):
            g.features = {**(g.features or {}), **extra}
            if g.decided_by not in ("human", "declared", "llm"):
                g.score = score(g.features)
    out: dict[tuple, tuple[str, str | None]] = {}
    for r in rows:
        if r.decided_by in ("human", "declared"):
            out[r.key] = (r.status, r.decided_by)
        elif r.decided_by == "llm" and r.llm_verdict in ("accept", "reject"):
            out[r.key] = ("accepted" if r.llm_verdict == "accept" else "rejected", "llm")
        else:
            status = status_for(r.score, threshold)
            if status == "accepted" and (r.chance_only or (r.features or {}).get("chance_inclusion", 0) > 0):
                status = "proposed"  # no name link, inclusion explained by small integers: a human decides
            if status == "accepted" and (r.features or {}).get("name_only", 0) > 0:
                status = "proposed"  # names only, no rows to test: a human decides
            out[r.key] = (status, "score")
    rank = {"human": 3, "declared": 3, "llm": 2, "score": 1, None: 0}

    def strength(r: JoinRow) -> tuple:
        return (rank.get(out[r.key][1], 0), r.score)

    by_src: dict[tuple, list[JoinRow]] = {}
    for r in rows:
        by_src.setdefault((r.key[0], r.key[1]), []).append(r)
    for group in by_src.values():
        accepted = sorted((r for r in group if out[r.key][0] == "accepted"), key=strength, reverse=True)
        for loser in accepted[1:]:
            if out[loser.key][1] in ("human", "declared"):
                continue  # two human/declared acceptances both stand
            out[loser.key] = ("proposed", out[loser.key][1])
    index = {r.key: r for r in rows}
    for r in rows:
        rev = (r.key[2], r.key[3], r.key[0], r.key[1])
        other = index.get(rev)
        if other is None or out[r.key][0] != "accepted" or out[rev][0] != "accepted":
            continue
        loser = r if strength(r) < strength(other) else other
        if strength(r) == strength(other):
            loser = max(r, other, key=lambda x: x.key)  # deterministic
        if out[loser.key][1] not in ("human", "declared"):
            out[loser.key] = ("proposed", out[loser.key][1])
    return out


# --- LLM judge ------------------------------------------------------------------------------------


def llm_judge(provider: Any, candidates: list[Candidate]) -> None:
    """Ask the LLM about the top candidates; sets ``c.llm`` and ``c.decided_by = 'llm'`` on
    those it answered. Provider errors leave the candidates to the threshold."""
    from prompts import load_prompt
    from sqlgenie.errors import LLMError
    from sqlgenie.llm import ChatMessage

    top = sorted((c for c in candidates if c.score >= LLM_FLOOR), key=lambda c: -c.score)[:LLM_MAX_CANDIDATES]
    if not top:
        return
    lines = []
    for i, c in enumerate(top, 1):
        lines.append(
            json.dumps(
                {
                    "id": i,
                    "referencing": f"{c.src.table}.{c.src.column}",
                    "referencing_type": c.src.data_type,
                    "referencing_values": [str(v) for v in c.src.top_values[:5]],
                    "referenced": f"{c.dst.table}.{c.dst.column}",
                    "referenced_type": c.dst.data_type,
                    "referenced_values": [str(v) for v in c.dst.top_values[:5]],
                    "referenced_is_primary_key": c.dst.is_pk,
                    "value_inclusion": None if c.inclusion is None else round(c.inclusion, 3),
                    "score": round(c.score, 3),
                },
                ensure_ascii=False,
            )
        )
    template = load_prompt("onboarding_join_judge.txt")
    prompt = template.safe_substitute(candidates="\n".join(lines), count=len(top))
    try:
        resp = provider.complete([ChatMessage("user", prompt)], stage="onboarding")
    except LLMError as exc:
        for c in top:
            c.notes.append(f"LLM judge unavailable ({type(exc).__name__}); decided by score")
        return
    verdicts = parse_verdicts(resp.text)
    for i, c in enumerate(top, 1):
        v = verdicts.get(i)
        if v is None:
            continue
        c.llm = {"verdict": v[0], "reason": v[1]}
        c.decided_by = "llm"


def parse_verdicts(text: str) -> dict[int, tuple[str, str]]:
    """``[{"id": 1, "verdict": "accept", "reason": "..."}]`` (tolerates prose and code fences)."""
    start, end = text.find("["), text.rfind("]")
    if start < 0 or end <= start:
        return {}
    try:
        items = json.loads(text[start:end + 1])
    except json.JSONDecodeError:
        return {}
    out: dict[int, tuple[str, str]] = {}
    for it in items if isinstance(items, list) else []:
        if not isinstance(it, dict):
            continue
        try:
            i = int(it.get("id"))
        except (TypeError, ValueError):
            continue
        verdict = str(it.get("verdict", "")).strip().lower()
        if verdict in ("accept", "accepted", "yes", "true"):
            out[i] = ("accept", str(it.get("reason", ""))[:500])
        elif verdict in ("reject", "rejected", "no", "false"):
            out[i] = ("reject", str(it.get("reason", ""))[:500])
    return out


# --- helpers for the service -------------------------------------------------------------------------


def refs_from_profile(prof: TableProfile, pk: Sequence[str]) -> list[ColumnRef]:
    out = []
    for c in prof.columns:
        out.append(
            ColumnRef(
                schema=prof.schema, table=prof.name, column=c.name, data_type=c.data_type, family=c.family,
                integral=c.integral, rows=prof.row_count, ordinal=c.ordinal, n_distinct=c.n_distinct,
                null_frac=c.null_frac, is_unique=c.is_unique, is_pk=list(pk) == [c.name], in_pk=c.name in pk,
                pk_size=len(pk), min_value=c.min_value, max_value=c.max_value, avg_width=c.avg_width,
                exact=prof.exact, top_values=[v for v, _ in c.mcv[:5]],
            )
        )
    return out


_INTEGRAL_TYPES = ("smallint", "integer", "bigint")


def refs_from_catalog(conn: psycopg.Connection, schemas: Sequence[str] | None = None,
                      exclude: tuple[str, str] | None = None) -> list[ColumnRef]:
    """Column refs of onboarded tables (store), optionally only those in ``schemas``."""
    rows = conn.execute(
        """
        SELECT t.schema_name, t.table_name, c.column_name, c.data_type, c.profile->>'family', c.ordinal,
               coalesce(t.row_estimate, 0), c.n_distinct, c.null_frac, c.is_unique, t.primary_key,
               c.min_value, c.max_value, (c.profile->>'avg_width')::float8, coalesce((t.profile->>'exact')::boolean, true),
               c.profile->'mcv'
        FROM sqlgenie.catalog_tables t JOIN sqlgenie.catalog_columns c ON c.table_id = t.id
        WHERE (%(schemas)s::text[] IS NULL OR t.schema_name = ANY(%(schemas)s::text[]))
        ORDER BY t.schema_name, t.table_name, c.ordinal
        """,
        {"schemas": list(schemas) if schemas is not None else None},
    ).fetchall()
    out = []
    for r in rows:
        if exclude and (r[0], r[1]) == exclude:
            continue
        pk = list(r[10] or [])
        family = r[4] or _family_from_type(r[3])
        out.append(
            ColumnRef(
                schema=r[0], table=r[1], column=r[2], data_type=r[3], family=family,
                integral=r[3] in _INTEGRAL_TYPES, rows=int(r[6] or 0), ordinal=r[5], n_distinct=r[7],
                null_frac=r[8], is_unique=r[9], is_pk=pk == [r[2]], in_pk=r[2] in pk, pk_size=len(pk),
                min_value=r[11], max_value=r[12], avg_width=r[13], exact=bool(r[14]),
                top_values=[m[0] for m in (r[15] or [])[:5] if isinstance(m, list) and m],
            )
        )
    return out


def _family_from_type(data_type: str) -> str:
    from sqlgenie.catalog import type_family

    return type_family(data_type)
