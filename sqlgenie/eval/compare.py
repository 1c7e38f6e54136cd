"""Result comparison: pure functions, no database.

Execution accuracy compares the *results* of two queries (NL2SQLBench / BIRD style):

* rows are multisets (duplicates count) unless the gold query orders its top-level
  result (``ORDER BY`` on the outermost query), then the row order must match too;
* values are normalised first: ``Decimal``/``float``/``int``/``bool`` become one
  numeric kind (``1.0 == 1 == Decimal('1.00') == True``), numeric strings count as
  numbers (SQLite hands back ``'7'`` where PostgreSQL hands back ``7``), dates and
  date-times become ISO strings (``date(2020, 1, 2) == '2020-01-02'``, ``T`` or space);
  ``NULL`` equals only ``NULL``;
* numbers are equal within a tolerance (``rel_tol=1e-6``, ``abs_tol=1e-6``);
* the column order may differ (as in Spider's test-suite evaluation) unless
  ``column_order=True``: the columns of the prediction may be any permutation of the
  gold's, but their count must match.

Also here: BIRD's soft-F1 and the VES rewards.
"""

from __future__ import annotations

import datetime as dt
import decimal
import itertools
import math
import re
import uuid
from collections import Counter, defaultdict
from typing import Any, Hashable, Sequence

REL_TOL = 1e-6
ABS_TOL = 1e-6
_ROUND_DIGITS = 6
_MAX_PERMUTATIONS = 720

_NUMERIC_STR = re.compile(r"^\s*[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?\s*$")
_ISO_TS = re.compile(r"^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}(:\d{2}(\.\d+)?)?)$")


class _Null:
    """Sorts and hashes as one value; equal only to itself."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "NULL"


NULL = _Null()


def _number(x: float | int | decimal.Decimal) -> int | float:
    if isinstance(x, int):
        return x
    if isinstance(x, decimal.Decimal):
        if not x.is_finite():
            return float(x)
        if x == x.to_integral_value():
            return int(x)
        return float(x)
    if math.isfinite(x) and x == int(x) and abs(x) < 2**63:
        return int(x)
    return x


def normalize_value(value: Any) -> Hashable:
    """One comparable, hashable representation per value (see module doc)."""
    if value is None:
        return NULL
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, (int, float, decimal.Decimal)):
        return _number(value)
    if isinstance(value, str):
        if _NUMERIC_STR.match(value):
            try:
                num = decimal.Decimal(value.strip())
                return _number(num)
            except decimal.InvalidOperation:  # pragma: no cover - regex guards it
                return value
        m = _ISO_TS.match(value)
        if m:
            time_part = m.group(2)
            if len(time_part) == 5:
                time_part += ":00"
            return f"{m.group(1)} {time_part}"
        return value
    if isinstance(value, dt.datetime):
        text = value.isoformat(sep=" ")
        return text
    if isinstance(value, (dt.date, dt.time)):
        return value.isoformat()
    if isinstance(value, dt.timedelta):
        return _number(value.total_seconds())
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value)
    if isinstance(value, uuid.UUID):
        return str(value)
    if isinstance(value, (list, tuple)):
        return tuple(normalize_value(v) for v in value)
    if isinstance(value, dict):
        return tuple(sorted((str(k), normalize_value(v)) for k, v in value.items()))
    return str(value)


def normalize_rows(rows: Sequence[Sequence[Any]]) -> list[tuple]:
    return [tuple(normalize_value(v) for v in row) for row in rows]


def _key(v: Hashable) -> Hashable:
    """Coarse key: floats rounded so near-equal numbers usually share a key."""
    if isinstance(v, float):
        if not math.isfinite(v):
            return ("nonfinite", repr(v))
        r = round(v, _ROUND_DIGITS)
        return int(r) if r == int(r) and abs(r) < 2**63 else r
    return v


def _row_key(row: tuple) -> tuple:
    return tuple(_key(v) for v in row)


def values_equal(a: Hashable, b: Hashable, *, rel_tol: float = REL_TOL, abs_tol: float = ABS_TOL) -> bool:
    if a is b or a == b:
        return True
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool):
        if isinstance(a, float) and math.isnan(a):
            return isinstance(b, float) and math.isnan(b)
        return math.isclose(a, b, rel_tol=rel_tol, abs_tol=abs_tol)
    return False


def rows_equal(a: tuple, b: tuple, **tol: float) -> bool:
    return len(a) == len(b) and all(values_equal(x, y, **tol) for x, y in zip(a, b))


def _has_float(rows: list[tuple]) -> bool:
    return any(isinstance(v, float) for row in rows for v in row)


def _multiset_equal(gold: list[tuple], pred: list[tuple], **tol: float) -> bool:
    if len(gold) != len(pred):
        return False
    if Counter(map(_row_key, gold)) == Counter(map(_row_key, pred)):
        return True
    if not (_has_float(gold) or _has_float(pred)):
        return False
    # Tolerant matching: bucket rows by their non-float part, then match greedily
    # (sorted, so close numbers pair up).
    def bucket(row: tuple) -> tuple:
        return tuple("#num" if isinstance(v, (int, float)) else v for v in row)

    buckets: dict[tuple, list[tuple]] = defaultdict(list)
    for row in pred:
        buckets[bucket(row)].append(row)
    gold_buckets: dict[tuple, list[tuple]] = defaultdict(list)
    for row in gold:
        gold_buckets[bucket(row)].append(row)
    for b, g_rows in gold_buckets.items():
        p_rows = buckets.get(b, [])
        if len(p_rows) != len(g_rows):
            return False
        sort_key = lambda r: tuple((0, v) if isinstance(v, (int, float)) else (1, repr(v)) for v in r)  # noqa: E731
        try:
            g_sorted, p_sorted = sorted(g_rows, key=sort_key), sorted(p_rows, key=sort_key)
        except TypeError:  # pragma: no cover
            g_sorted, p_sorted = g_rows, p_rows
        if all(rows_equal(g, p, **tol) for g, p in zip(g_sorted, p_sorted)):
            continue
        remaining = list(p_rows)
        for g in g_rows:
            for i, p in enumerate(remaining):
                if rows_equal(g, p, **tol):
                    del remaining[i]
                    break
            else:
                return False
    return True


def _ordered_equal(gold: list[tuple], pred: list[tuple], **tol: float) -> bool:
    return len(gold) == len(pred) and all(rows_equal(g, p, **tol) for g, p in zip(gold, pred))


def _column_permutations(gold: list[tuple], pred: list[tuple], ncols: int):
    """Candidate permutations of the prediction's columns (identity first), pruned by
    per-column multisets of coarse keys as in Spider's test-suite evaluation."""
    identity = tuple(range(ncols))
    yield identity
    if ncols < 2:
        return

    def col_sig(rows: list[tuple], j: int) -> Counter:
        return Counter(_key(r[j]) for r in rows)

    gold_sigs = [col_sig(gold, j) for j in range(ncols)]
    pred_sigs = [col_sig(pred, j) for j in range(ncols)]
    loose = _has_float(gold) or _has_float(pred)
    candidates = []
    for i in range(ncols):
        cand = [j for j in range(ncols) if loose or gold_sigs[i] == pred_sigs[j]]
        if not cand:
            return
        candidates.append(cand)
    count = 0
    for perm in itertools.product(*candidates):
        if len(set(perm)) != ncols or perm == identity:
            continue
        yield perm
        count += 1
        if count >= _MAX_PERMUTATIONS:
            return


def results_match(
    gold_rows: Sequence[Sequence[Any]],
    pred_rows: Sequence[Sequence[Any]],
    *,
    ordered: bool = False,
    column_order: bool = False,
    rel_tol: float = REL_TOL,
    abs_tol: float = ABS_TOL,
) -> bool:
    """True when the prediction's rows equal the gold's (see module doc)."""
    gold = normalize_rows(gold_rows)
    pred = normalize_rows(pred_rows)
    if len(gold) != len(pred):
        return False
    if not gold:
        return True
    ncols = len(gold[0])
    if any(len(r) != ncols for r in gold) or any(len(r) != ncols for r in pred):
        return False
    tol = {"rel_tol": rel_tol, "abs_tol": abs_tol}
    same = _ordered_equal if ordered else _multiset_equal
    if column_order:
        return same(gold, pred, **tol)
    for perm in _column_permutations(gold, pred, ncols):
        permuted = pred if perm == tuple(range(ncols)) else [tuple(r[j] for j in perm) for r in pred]
        if same(gold, permuted, **tol):
            return True
    return False


# --- BIRD soft-F1 ------------------------------------------------------------------


def soft_f1(gold_rows: Sequence[Sequence[Any]], pred_rows: Sequence[Sequence[Any]]) -> float:
    """BIRD mini-dev soft-F1: rows de-duplicated (first occurrence kept) and paired in
    order; each pair scores matched / gold-only / prediction-only cell values."""
    gold = list(dict.fromkeys(_row_key(r) for r in normalize_rows(gold_rows)))
    pred = list(dict.fromkeys(_row_key(r) for r in normalize_rows(pred_rows)))
    if not gold and not pred:
        return 1.0
    tp = fp = fn = 0.0
    for i, g in enumerate(gold):
        if i >= len(pred):
            fn += 1
            continue
        p = pred[i]
        width = len(g) or 1
        tp += sum(1 for v in p if v in g) / width
        fp += sum(1 for v in p if v not in g) / width
        fn += sum(1 for v in g if v not in p) / width
    fp += max(0, len(pred) - len(gold))
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    return 2 * precision * recall / (precision + recall) if precision + recall else 0.0


# --- VES ---------------------------------------------------------------------------


def ves_reward(gold_ms: float, pred_ms: float) -> float:
    """BIRD's original VES term for a correct prediction: sqrt(gold time / pred time)."""
    if pred_ms <= 0 or gold_ms <= 0:
        return 1.0
    return math.sqrt(gold_ms / pred_ms)


def r_ves_reward(gold_ms: float, pred_ms: float) -> float:
    """BIRD mini-dev's reward-based VES (R-VES) term for a correct prediction."""
    if pred_ms <= 0 or gold_ms <= 0:
        return 1.0
    ratio = gold_ms / pred_ms
    if ratio >= 2:
        return 1.25
    if ratio >= 1:
        return 1.0
    if ratio >= 0.5:
        return 0.75
    if ratio >= 0.25:
        return 0.5
    return 0.25


# --- ties under ORDER BY ---------------------------------------------------------------


def tie_consistent(limited_rows: Sequence[Sequence[Any]], keyed_rows: Sequence[Sequence[Any]], nkeys: int) -> bool:
    """Is ``limited_rows`` a valid answer of an ordered query whose full, unlimited
    result with the ``nkeys`` order keys appended is ``keyed_rows`` (in order)?

    Valid means: rows come group by group of equal order keys, every group before the
    last one used is taken whole, and the last group may be cut (``LIMIT`` through a
    tie) and in any order. Used by ``gold-check`` to tell tie-breaking differences
    between engines from real disagreements.
    """
    limited = normalize_rows(limited_rows)
    keyed = normalize_rows(keyed_rows)
    if nkeys <= 0:
        return False
    groups: list[Counter] = []
    last_key = object()
    for row in keyed:
        proj, key = _row_key(row[:-nkeys]), _row_key(row[-nkeys:])
        if key != last_key:
            groups.append(Counter())
            last_key = key
        groups[-1][proj] += 1
    g = 0
    remaining = Counter(groups[0]) if groups else Counter()
    for row in limited:
        k = _row_key(row)
        while remaining[k] <= 0:
            if sum(remaining.values()) > 0:  # the current group must be used up first
                return False
            g += 1
            if g >= len(groups):
                return False
            remaining = Counter(groups[g])
        remaining[k] -= 1
    return True
