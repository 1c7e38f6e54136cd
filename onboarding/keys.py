"""Primary key: the declared one, else inferred from uniqueness and non-null on the data.

Inference order:

1. the declared ``PRIMARY KEY``;
2. a declared ``UNIQUE`` constraint or unique index over ``NOT NULL`` columns;
3. a *link table* named after what it links (``party_host`` with ``party_id`` and
   ``host_id``): those id columns together, when unique together;
4. the best single column that is unique and never NULL in the data, ranked by name
   (``id``, ``<table>_id``, ``*_code``/``*_no``, ``*_name``...), position and type; an
   id column named after *another* table (``driver_id`` in ``school_bus``) is a
   reference, not the table's own key, and only qualifies after step 5;
5. otherwise the smallest unique, never-NULL combination of key-like columns
   (composite keys: ``(student_id, course_id)``), checked with
   ``count(DISTINCT (a, b))`` on the table (small) or on a TABLESAMPLE (big).

Plain measures (floats, timestamps, long text) never qualify as single keys.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

import psycopg
from psycopg import sql

from onboarding.names import ID_TOKENS, STRONG_ID_TOKENS, split_identifier, strip_id, table_words, words_match
from onboarding.profile import ColumnProfile, TableProfile, sample_clause

#: Smallest single-column score accepted as a primary key.
SINGLE_MIN_SCORE = 2.0
MAX_COMPOSITE_COLUMNS = 4
MAX_COMPOSITE_CHECKS = 16
NAME_WORDS = frozenset({"name", "title", "label"})


@dataclass
class KeyPick:
    columns: list[str]
    source: str  # declared | inferred | none
    evidence: dict[str, Any] = field(default_factory=dict)


def _eligible(col: ColumnProfile) -> bool:
    """Types that can hold a key: numbers, short text, enums, dates (composites), uuid."""
    if col.all_null or not col.comparable:
        return False
    if col.family in ("boolean", "binary"):
        return False
    if col.family == "other":
        return col.data_type == "uuid"
    if col.family == "text" and (col.avg_width or 0) > 64:
        return False
    return True


def _stem(col: ColumnProfile) -> list[str]:
    words = split_identifier(col.name)
    return strip_id(words) if words and words[-1] in ID_TOKENS else []


def own_words(col: ColumnProfile, table: str) -> set[int]:
    """Indexes of the table-name words an id column's stem names (``party_id`` in
    ``party_host`` -> {0}); empty when some stem word is not in the table name."""
    tw = table_words(table)
    stem = _stem(col)
    if stem and all(any(words_match(t, w) > 0 for w in stem) for t in tw):
        return set(range(len(tw)))  # fault_log_entry_id in fault_log: names the whole table
    hits: set[int] = set()
    for w in stem:
        found = [i for i, t in enumerate(tw) if words_match(w, t) > 0]
        if not found:
            return set()
        hits.update(found)
    return hits


def is_reference_name(col: ColumnProfile, table: str) -> bool:
    """``driver_id`` in ``school_bus``: an id column named after something other than its table."""
    return bool(_stem(col)) and not own_words(col, table)


def name_score(col: ColumnProfile, table: str) -> float:
    """How much the column's name says "I am this table's key"."""
    words = split_identifier(col.name)
    if not words:
        return 0.0
    score = 0.0
    if words[-1] in STRONG_ID_TOKENS:
        score += 3.0
    elif words[-1] in ID_TOKENS:
        score += 2.0
    elif words[-1] in NAME_WORDS and col.family in ("text", "enum"):
        score += 1.0
    if words == ["id"]:
        score += 2.0
    if _stem(col):
        score += 2.0 if own_words(col, table) else -1.0
    return score


def type_score(col: ColumnProfile) -> float:
    if col.integral:
        return 1.0
    if col.family == "numeric":
        return -0.5 if col.data_type.startswith("numeric") else -1.5
    if col.family == "text":
        return 0.0 if (col.avg_width or 0) <= 32 else -0.5
    if col.family == "temporal":
        return -1.5
    return 0.0


def single_score(col: ColumnProfile, table: str) -> float:
    position = 1.0 if col.ordinal == 1 else (0.3 if col.ordinal == 2 else 0.0)
    return name_score(col, table) + type_score(col) + position


def _junction_columns(prof: TableProfile) -> list[ColumnProfile]:
    """Id columns whose stems name *different* words of a multi-word table name."""
    tw = table_words(prof.name)
    if len(tw) < 2:
        return []
    picked: list[ColumnProfile] = []
    covered: set[int] = set()
    for c in prof.columns:
        if not _eligible(c) or (c.null_frac or 0.0) > 0:
            continue
        hits = own_words(c, prof.name)
        if hits and len(hits) < len(tw) and not hits <= covered:
            picked.append(c)
            covered |= hits
    return picked if len(picked) >= 2 else []


def _unique_on_data(conn: psycopg.Connection, prof: TableProfile, cols: list[str]) -> bool:
    ids = [sql.Identifier(c) for c in cols]
    not_null = sql.SQL(" AND ").join(sql.SQL("{} IS NOT NULL").format(i) for i in ids)
    clause: sql.Composable = sql.SQL("")
    if not prof.exact:
        clause, _ = sample_clause(prof.row_count)
    row = conn.execute(
        sql.SQL("SELECT count(*), count(*) FILTER (WHERE {nn}), count(DISTINCT ({cols})) FROM {t}{s}").format(
            nn=not_null, cols=sql.SQL(", ").join(ids), t=prof.ident(), s=clause
        )
    ).fetchone()
    total, complete, distinct = row
    return total > 0 and complete == total and distinct == total


def _how(prof: TableProfile, what: str) -> str:
    return what + ("" if prof.exact else " (estimated: statistics and a TABLESAMPLE)")


def infer_primary_key(conn: psycopg.Connection, prof: TableProfile) -> KeyPick:
    """The primary key of ``prof``'s table (``conn``: target, autocommit)."""
    if prof.primary_key:
        return KeyPick(list(prof.primary_key), "declared", {"reason": "declared PRIMARY KEY"})
    by_name = {c.name: c for c in prof.columns}
    declared_unique = [
        k for k in prof.unique_keys if all(by_name.get(c) is not None and by_name[c].not_null for c in k)
    ]
    if declared_unique:
        best = min(declared_unique, key=lambda k: (len(k), -sum(name_score(by_name[c], prof.name) for c in k)))
        return KeyPick(list(best), "inferred", {"reason": "declared UNIQUE over NOT NULL columns"})
    if prof.row_count == 0:
        return KeyPick([], "none", {"reason": "empty table: no data to infer a key from"})

    singles = [
        (single_score(c, prof.name), c)
        for c in prof.columns
        if _eligible(c) and c.is_unique and (c.null_frac or 0.0) == 0.0
    ]
    singles.sort(key=lambda sc: (-sc[0], sc[1].ordinal))
    ranked = [{"column": c.name, "score": round(s, 2)} for s, c in singles[:5]]

    junction = _junction_columns(prof)
    head = len(table_words(prof.name)) - 1
    if any(head in own_words(c, prof.name) and c.is_unique for c in junction):
        junction = []  # customer_orders: order_id names the head noun and is the key
    if junction and _unique_on_data(conn, prof, [c.name for c in junction]):
        return KeyPick(
            [c.name for c in junction], "inferred",
            {"reason": _how(prof, "link table: its id columns name the parts of its name and are unique together"),
             "candidates": ranked},
        )

    own = [(s, c) for s, c in singles if s >= SINGLE_MIN_SCORE and not is_reference_name(c, prof.name)]
    if own:
        s, c = own[0]
        return KeyPick([c.name], "inferred", {"reason": _how(prof, "unique and never NULL in the data"),
                                              "score": round(s, 2), "candidates": ranked})

    # composite: key-like, never-NULL columns, best names first
    pool = [
        c for c in prof.columns
        if _eligible(c) and (c.null_frac or 0.0) == 0.0 and c.family != "temporal"
        and (split_identifier(c.name) or [""])[-1] in ID_TOKENS
    ]
    if len(pool) < 2:
        pool = [c for c in prof.columns if _eligible(c) and (c.null_frac or 0.0) == 0.0][:4]
    pool = pool[:6]
    checks = 0
    for size in range(2, min(MAX_COMPOSITE_COLUMNS, len(pool)) + 1):
        combos = sorted(
            itertools.combinations(pool, size),
            key=lambda cs: (-sum(name_score(c, prof.name) + type_score(c) for c in cs), [c.ordinal for c in cs]),
        )
        for combo in combos:
            if checks >= MAX_COMPOSITE_CHECKS:
                break
            if any(c.is_unique for c in combo):
                continue  # contains a unique column: not minimal
            checks += 1
            cols = [c.name for c in sorted(combo, key=lambda c: c.ordinal)]
            if _unique_on_data(conn, prof, cols):
                return KeyPick(cols, "inferred", {"reason": _how(prof, "combination unique and never NULL in the data"),
                                                  "candidates": ranked})

    # a unique column named after another table: the key of a 1:1 extension table
    refs = [(s, c) for s, c in singles if s >= SINGLE_MIN_SCORE]
    if refs:
        s, c = refs[0]
        return KeyPick([c.name], "inferred",
                       {"reason": _how(prof, "unique and never NULL; named like a reference to another table"),
                        "score": round(s, 2), "candidates": ranked})
    # lookup tables keyed by a label: the first column, unique and never NULL (not a measure)
    first = [c for s, c in singles if c.ordinal == 1 and (c.integral or c.family in ("text", "enum", "temporal"))
             or c.family == "other"]
    if first:
        return KeyPick([first[0].name], "inferred",
                       {"reason": _how(prof, "first column, unique and never NULL"), "candidates": ranked})
    return KeyPick([], "none", {"reason": "no unique never-NULL column or combination found", "candidates": ranked})
