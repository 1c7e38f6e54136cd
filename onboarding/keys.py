"""Primary key: the declared one, else inferred from uniqueness and non-null on the data.

Inference order (the first step that finds a key wins):

1. the declared ``PRIMARY KEY``;
2. a declared ``UNIQUE`` constraint or unique index over ``NOT NULL`` columns;
3. a *link table* named after what it links (``party_host`` with ``party_id`` and
   ``host_id``): those reference columns (``*_id``, ``*_code``) together, when unique
   together, unless the table leads with its own unique key (``order_id`` in
   ``customer_orders`` names the head noun; a plain ``id``);
4. the best single column that is unique and never NULL in the data, ranked by name
   (``id``, ``<table>_id``, ``*_code``/``*_no``, ``*_name``...), position and type. A
   stem may abbreviate the table (``dno`` in ``department``, ``fnol_id`` in
   ``first_notification_of_loss``). An id column named after *another* table
   (``driver_id`` in ``school_bus``) is a reference, not the table's own key, unless
   it is a first-column ``*_id`` (``employee_id`` in ``nurse``: a subtype keyed by its
   supertype's id);
5. the smallest unique, never-NULL combination of key-named columns (``(student_id,
   course_id)``), completed by a date for history rows (``(document_id, date_from)``);
6. a unique column named like a reference (the key of a 1:1 extension table);
7. a natural key: the unique first column when it is not a measure (whole-number
   floats count: a year stored as ``1996.0``), or a unique ``*_name`` column;
8. the leading columns together (``(building, room_number)``).

A composite must hold the first column of its candidate pool (keys are declared first:
a unique pair further right is a coincidence far more often than a key) and no column
that is a key on its own (not minimal); a unique date or measure does not count as such
(``(customer_id, payment_datetime)``). Fractional numbers and descriptive payload
(``*_description``, ``*_value``) never enter a composite. Uniqueness is checked with ``count(DISTINCT (a,
b))`` on the table (small) or on a TABLESAMPLE (big).

Plain measures (floats, timestamps, long text) never qualify as single keys.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from typing import Any

import psycopg
from psycopg import sql

from onboarding.names import ID_TOKENS, STRONG_ID_TOKENS, split_identifier, strip_id, table_words, words_match
from onboarding.profile import ColumnProfile, TableProfile, sample_clause

#: A composite key whose rows would be unique by coincidence at least this often is weak
#: evidence: ``tables show`` asks a person to confirm it (``sqlgenie tables set-key``).
WEAK_KEY_CHANCE = 0.05
#: Smallest single-column score accepted as a primary key.
SINGLE_MIN_SCORE = 2.0
MAX_COMPOSITE_COLUMNS = 4
MAX_COMPOSITE_CHECKS = 16
NAME_WORDS = frozenset({"name", "title", "label"})
#: Name endings of columns that reference another table's key (not sequence numbers).
REFERENCE_TOKENS = STRONG_ID_TOKENS | {"code", "cd"}
#: Words of descriptive payload columns, never part of a composite key.
DESCRIPTIVE_WORDS = frozenset({"description", "desc", "descr", "details", "detail", "comment", "comments",
                               "note", "notes", "remarks", "text", "value"})
#: Key words recognised when glued to the end of a longer word (``airportcode``).
GLUED_KEY_WORDS = ("code", "number", "name")
#: Words that join the parts of a table name (``first_notification_of_loss``).
LINK_WORDS = frozenset({"of", "and", "in", "to", "for", "the", "a", "an"})


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


def _complete(col: ColumnProfile) -> bool:
    """Eligible and never NULL in the data."""
    return _eligible(col) and (col.null_frac or 0.0) == 0.0


def key_words(name: str) -> list[str]:
    """Identifier words, with a key word glued to a longer word split off
    (``airportcode`` -> ``airport code``, ``clubname`` -> ``club name``)."""
    words = split_identifier(name)
    if len(words) == 1:
        for tail in GLUED_KEY_WORDS:
            head = words[0][: -len(tail)]
            if words[0].endswith(tail) and len(head) >= 3:
                return [head, tail]
    return words


def _last_word(col: ColumnProfile) -> str:
    return (key_words(col.name) or [""])[-1]


def _key_named(col: ColumnProfile) -> bool:
    return _last_word(col) in ID_TOKENS


def _stem(col: ColumnProfile) -> list[str]:
    words = key_words(col.name)
    return strip_id(words) if words and words[-1] in ID_TOKENS else []


def abbreviates_table(stem: list[str], tw: list[str]) -> bool:
    """A one-word stem that abbreviates the whole table name: its initial (``dno`` in
    ``department``, ``eid`` in ``employee``) or its acronym (``fnol_id`` in
    ``first_notification_of_loss``)."""
    if len(stem) != 1 or not tw:
        return False
    word = stem[0]
    if len(tw) == 1:
        return len(word) == 1 and tw[0].startswith(word)
    acronyms = {"".join(t[0] for t in tw), "".join(t[0] for t in tw if t not in LINK_WORDS)}
    return len(word) >= 2 and word in acronyms


def own_words(col: ColumnProfile, table: str) -> set[int]:
    """Indexes of the table-name words an id column's stem names (``party_id`` in
    ``party_host`` -> {0}); empty when some stem word is not in the table name."""
    tw = table_words(table)
    stem = _stem(col)
    if stem and (all(any(words_match(t, w) > 0 for w in stem) for t in tw) or abbreviates_table(stem, tw)):
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
    words = key_words(col.name)
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


def is_own_single(col: ColumnProfile, table: str) -> bool:
    """Named as the table's own key, or a first-column ``*_id`` (``employee_id`` in
    ``nurse``: a subtype table keyed by its supertype's id)."""
    return not is_reference_name(col, table) or (col.ordinal == 1 and _last_word(col) in STRONG_ID_TOKENS)


def leads_with_own_key(prof: TableProfile) -> bool:
    """The first column is unique and named as the table's own key (a plain ``id``;
    ``order_id`` in ``customer_orders`` names the head noun): an entity that holds
    references, not a link between them (``film_id`` in ``film_category`` names a modifier)."""
    lead = prof.columns[0] if prof.columns else None
    if lead is None or not lead.is_unique or not _complete(lead) or not _key_named(lead):
        return False
    return not _stem(lead) or len(table_words(prof.name)) - 1 in own_words(lead, prof.name)


def _junction_columns(prof: TableProfile) -> list[ColumnProfile]:
    """Reference columns whose stems name *different* words of a multi-word table name
    (``draft_number`` in ``draft_copies`` is a sequence number, not a reference)."""
    tw = table_words(prof.name)
    if len(tw) < 2:
        return []
    picked: list[ColumnProfile] = []
    covered: set[int] = set()
    for c in prof.columns:
        if not _complete(c) or _last_word(c) not in REFERENCE_TOKENS:
            continue
        hits = own_words(c, prof.name)
        if hits and len(hits) < len(tw) and not hits <= covered:
            picked.append(c)
            covered |= hits
    return picked if len(picked) >= 2 else []


def natural_key(col: ColumnProfile) -> bool:
    """A unique first column that is not a measure, or a unique name (``hardware_model_name``):
    the label a lookup table is keyed by. Floats: see :func:`_whole_numbers`."""
    if not col.is_unique or not _complete(col):
        return False
    if col.family == "other" or col.ordinal == 1 and (col.integral or col.family in ("text", "enum", "temporal")):
        return True  # uuid anywhere
    return col.family in ("text", "enum") and _last_word(col) in NAME_WORDS


def _composable(col: ColumnProfile) -> bool:
    """May be part of a composite key: never NULL, not a fractional number (prices,
    percentages) and not a descriptive payload (``*_description``, ``*_value``)."""
    return (_complete(col) and (col.integral or col.family != "numeric")
            and not DESCRIPTIVE_WORDS & set(key_words(col.name)))


def _sample(prof: TableProfile) -> sql.Composable:
    return sql.SQL("") if prof.exact else sample_clause(prof.row_count)[0]


def uniqueness_counts(table: sql.Composable, cols: list[str], sample: sql.Composable = sql.SQL("")) -> sql.Composed:
    """``SELECT rows, rows with no NULL in cols, distinct cols among those`` over ``table``
    (optionally a TABLESAMPLE): ``cols`` is a key when all three are equal and non-zero."""
    ids = [sql.Identifier(c) for c in cols]
    not_null = sql.SQL(" AND ").join(sql.SQL("{} IS NOT NULL").format(i) for i in ids)
    return sql.SQL(
        "SELECT count(*), count(*) FILTER (WHERE {nn}), count(DISTINCT ({cols})) FILTER (WHERE {nn}) FROM {t}{s}"
    ).format(nn=not_null, cols=sql.SQL(", ").join(ids), t=table, s=sample)


def _unique_on_data(conn: psycopg.Connection, prof: TableProfile, cols: list[str]) -> bool:
    total, complete, distinct = conn.execute(uniqueness_counts(prof.ident(), cols, _sample(prof))).fetchone()
    return total > 0 and complete == total and distinct == total


def _whole_numbers(conn: psycopg.Connection, prof: TableProfile, col: ColumnProfile) -> bool:
    """A float column holding only whole numbers (``1996.0``): an integer stored as a float."""
    row = conn.execute(
        sql.SQL("SELECT bool_and({c} = trunc({c})) FROM {t}{s}").format(
            c=sql.Identifier(col.name), t=prof.ident(), s=_sample(prof))
    ).fetchone()
    return bool(row and row[0])


def unique_combination(conn: psycopg.Connection, prof: TableProfile, pool: list[ColumnProfile],
                       blocked: set[str]) -> list[str] | None:
    """The smallest unique combination of ``pool`` that holds ``pool[0]`` (its leading key
    column) and no column of ``blocked`` (keys on their own: not minimal); best names
    first, at most :data:`MAX_COMPOSITE_CHECKS` queries. Columns in table order."""
    if len(pool) < 2:
        return None
    lead = pool[0]
    checks = 0
    for size in range(2, min(MAX_COMPOSITE_COLUMNS, len(pool)) + 1):
        combos = sorted(
            (cs for cs in itertools.combinations(pool, size)
             if lead in cs and not any(c.name in blocked for c in cs)),
            key=lambda cs: (-sum(name_score(c, prof.name) + type_score(c) for c in cs), [c.ordinal for c in cs]),
        )
        for combo in combos:
            if checks >= MAX_COMPOSITE_CHECKS:
                return None
            checks += 1
            cols = [c.name for c in sorted(combo, key=lambda c: c.ordinal)]
            if _unique_on_data(conn, prof, cols):
                return cols
    return None


def chance_unique(rows: int, distinct: list[float | None]) -> float | None:
    """How often ``rows`` rows would be unique over these columns by coincidence alone, if each
    column's values were drawn independently and uniformly from its distinct values:
    exp(-n(n-1) / 2·∏dᵢ) (the birthday bound). ``None`` when a distinct count is unknown."""
    if rows < 2:
        return 1.0
    if any(d is None or d <= 0 for d in distinct):
        return None
    space = 1.0
    for d in distinct:
        space *= float(d)  # type: ignore[arg-type]
    return math.exp(-rows * (rows - 1) / (2.0 * space))


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

    singles = [(single_score(c, prof.name), c) for c in prof.columns if _complete(c) and c.is_unique]
    singles.sort(key=lambda sc: (-sc[0], sc[1].ordinal))
    ranked = [{"column": c.name, "score": round(s, 2)} for s, c in singles[:5]]

    def pick(cols: list[str], what: str, **extra: Any) -> KeyPick:
        evidence: dict[str, Any] = {"reason": _how(prof, what), "rows": prof.row_count, **extra}
        if len(cols) > 1:
            chance = chance_unique(prof.row_count, [by_name[c].n_distinct for c in cols])
            if chance is not None:
                evidence["chance_unique"] = round(chance, 4)
        return KeyPick(cols, "inferred", {**evidence, "candidates": ranked})

    junction = [] if leads_with_own_key(prof) else _junction_columns(prof)
    if junction and _unique_on_data(conn, prof, [c.name for c in junction]):
        return pick([c.name for c in junction],
                    "link table: its id columns name the parts of its name and are unique together")

    named = [(s, c) for s, c in singles if s >= SINGLE_MIN_SCORE]
    own = [(s, c) for s, c in named if is_own_single(c, prof.name)]
    if own:
        return pick([own[0][1].name], "unique and never NULL in the data", score=round(own[0][0], 2))

    blocked = {c.name for s, c in singles if s >= SINGLE_MIN_SCORE or natural_key(c)}
    id_pool = [c for c in prof.columns if _composable(c) and c.family != "temporal" and _key_named(c)]
    dates = [c for c in prof.columns if _composable(c) and c.family == "temporal"]
    if len(id_pool) >= 2:
        cols = unique_combination(conn, prof, id_pool[:6] + dates[:2], blocked)
        if cols:
            return pick(cols, "combination unique and never NULL in the data")

    if named:  # a unique column named after another table: the key of a 1:1 extension table
        return pick([named[0][1].name], "unique and never NULL; named like a reference to another table",
                    score=round(named[0][0], 2))
    natural = [c for s, c in singles if natural_key(c)]
    lead = prof.columns[0] if prof.columns else None
    if not natural and lead is not None and lead.is_unique and _complete(lead) and lead.family == "numeric" \
            and _whole_numbers(conn, prof, lead):
        natural = [lead]  # a year or a round number stored as a float
    if natural:
        return pick([natural[0].name], "natural key: the first column or a name, unique and never NULL")

    leading = [c for c in prof.columns if _composable(c)][:4]
    cols = unique_combination(conn, prof, leading, blocked)
    if cols:
        return pick(cols, "leading columns unique and never NULL together")
    return KeyPick([], "none", {"reason": "no unique never-NULL column or combination found", "candidates": ranked})
