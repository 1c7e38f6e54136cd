"""The verified bank of one scope held in the process, at one bank version (issue 13: a bank hit
in a warm process).

A bank hit asked PostgreSQL for the nearest examples of the masked question (the scope's vectors
read and sorted, about 2 ms quiet, 6 under load) and, for the words the verification learns from
the bank, for the examples whose question matches a regular expression (1-2 per hit, 2-8 ms under
load). Both read the same rows: the scope's verified examples. :func:`snapshot_for` loads them once
per bank version (``sqlgenie.bank_version``, kept by a trigger, migration 0011) with their vectors as
one float32 matrix, and answers:

* :meth:`BankSnapshot.nearest`: the ``k`` nearest by cosine similarity, computed here (float64 over
  the stored float32 vectors; pgvector sums in float32, so a score may differ from the store's in the
  7th decimal), ties in score by id: a total order, which the store's sort does not give;
* :meth:`BankSnapshot.regex_rows`: the rows whose ``question`` or ``masked_question`` matches a
  PostgreSQL regular expression (``~`` / ``~*``), by id, as many as the store's ``LIMIT``; only for
  the subset of the syntax the match route writes (word bounds ``\\m`` ``\\M``, ``\\s``, groups,
  alternation, quantifiers, escaped punctuation) over ASCII texts. Anything else returns None and the
  caller asks the store.

The store stays the authority: a snapshot is used only inside an ask
(:func:`sqlgenie.inference.verify.one_bank_stamp`), and only while its stamp equals the stamp that
ask read from the store, so a row another connection inserted, deleted or changed is seen by the
next ask. Switch: :data:`ENABLED`.
"""

from __future__ import annotations

import bisect
import json
import re
import weakref
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Iterator, Sequence

import numpy as np

#: Answer the nearest-example search and the regular-expression look-ups from the snapshot.
ENABLED = True

#: Columns a regular-expression look-up may ask for (``verify.verified_rows``' callers).
ROW_COLUMNS = ("id", "question", "masked_question", "mask_spans", "sql", "tables")
_CONDITION = re.compile(r"^(question|masked_question) (~\*?) %s$")

_LOAD = ("SELECT id, question, masked_question, sql, status, source, tables, columns, skeleton, sql_normalized,"
         " use_count, merge_count, created_at, updated_at, last_used_at, mask_spans::text, masked_key, embedding"
         " FROM sqlgenie.bank_examples WHERE status = 'verified'")

#: Snapshots per store connection and scope (weak: a closed, dropped connection takes its snapshots).
_SNAPSHOTS: "weakref.WeakKeyDictionary[Any, dict]" = weakref.WeakKeyDictionary()


@dataclass
class BankSnapshot:
    stamp: tuple
    ids: list[int]             # ascending
    rows: list[tuple]          # (id, question, masked_question, sql, ..., mask_spans text, masked_key), by id
    matrix: np.ndarray         # unit-free float64 copy of the stored vectors, one row per id
    norms: np.ndarray
    ascii: dict[str, bool]     # column -> every text of the scope is ASCII

    def nearest(self, embedding: np.ndarray, k: int) -> list[Any]:
        """The ``k`` examples of highest cosine similarity, ties by id (see the module doc)."""
        from example_bank.store import ScoredExample, _row_to_example

        if not self.ids or k <= 0:
            return []
        query = np.asarray(embedding, dtype=np.float32).astype(np.float64)
        qnorm = float(np.dot(query, query))
        dots = self.matrix @ query
        with np.errstate(divide="ignore", invalid="ignore"):
            scores = dots / np.sqrt(self.norms * qnorm)
        scores = np.clip(np.nan_to_num(scores, nan=0.0), -1.0, 1.0)
        order = np.lexsort((np.asarray(self.ids), -scores))[:k]  # score descending, then id
        return [ScoredExample(_row_to_example(self._example_row(i)), float(scores[i])) for i in order]

    def _example_row(self, i: int) -> tuple:
        row = self.rows[i]
        return (*row[:15], _fresh_spans(self._spans(i)))

    def _spans(self, i: int) -> list:
        """Row ``i``'s mask spans decoded once per snapshot (perf18: each nearest search decoded its rows' JSON);
        handed out only through :func:`_fresh_spans`."""
        decoded = self.__dict__.setdefault("_decoded_spans", {})
        got = decoded.get(i)
        if got is None:
            spans = json.loads(self.rows[i][15])
            got = decoded[i] = (spans, _flat_dicts(spans))
        return got

    def exact_matches(self, masked_key: str, limit: int) -> list[Any]:
        """``BankStore.exact_matches``: the examples whose masked key is ``masked_key``, most used first
        (use count, merge count, id: the store's order; every update of the bank changes the version)."""
        from example_bank.store import _row_to_example

        found = [i for i in self._keys.get(masked_key, ())]
        found.sort(key=lambda i: (-self.rows[i][10], -self.rows[i][11], self.rows[i][0]))
        return [_row_to_example(self._example_row(i)) for i in found[: max(int(limit), 0)]]

    def skeleton_rows(self, skeleton: str, limit: int) -> list[tuple]:
        """The rows (``example_bank.store._COLUMNS``, spans fresh) whose skeleton is ``skeleton``, by id, at most
        ``limit``: what :mod:`sqlgenie.inference.groups` asked the store for each new skeleton (perf19)."""
        index = self.__dict__.get("_skeleton_index")
        if index is None:
            index = {}
            for i, row in enumerate(self.rows):  # rows are by id: so is each list
                index.setdefault(row[8], []).append(i)
            self._skeleton_index = index
        return [self._example_row(i) for i in index.get(skeleton, ())[: max(int(limit), 0)]]

    @property
    def _keys(self) -> dict[str, list[int]]:
        keys = self.__dict__.get("_key_index")
        if keys is None:
            keys = {}
            for i, row in enumerate(self.rows):
                keys.setdefault(row[16], []).append(i)
            self._key_index = keys
        return keys

    def regex_rows(self, columns: str, condition: str, params: Sequence[Any], limit: int) -> list[tuple] | None:
        """``verified_rows``' answer from memory, or None when it must ask the store."""
        wanted = [c.strip() for c in columns.split(",")]
        match = _CONDITION.match(condition)
        if match is None or len(params) != 1 or not isinstance(params[0], str) or not set(wanted) <= set(ROW_COLUMNS):
            return None
        column, operator = match.groups()
        if not self.ascii.get(column) or not params[0].isascii():
            return None
        compiled = python_regex(params[0], operator == "~*")
        if compiled is None:
            return None
        at = _ROW_INDEX[column]
        out: list[tuple] = []
        fold = operator == "~*"
        for i in self._rows_saying(column, self._rarest(column, required_literals(params[0]), fold), fold):
            if len(out) >= int(limit):
                break
            row = self.rows[i]
            if compiled.search(row[at]) is not None:
                out.append(tuple(_fresh_spans(self._spans(i)) if c == "mask_spans" else _row_value(row, c)
                                 for c in wanted))
        return out

    def _rows_saying(self, column: str, literal: str | None, fold: bool) -> Any:
        """Indexes (by id) of the rows whose ``column`` contains ``literal`` (case-folded when ``fold``): every row
        that can match a pattern requiring it, found with ``str.find`` over one joined text instead of running the
        pattern on every row; all rows when the pattern requires no literal (:data:`PREFILTER` off: all rows)."""
        if not PREFILTER or not literal:
            return range(len(self.rows))
        return self._rows_found(column, literal, fold)

    def _rows_found(self, column: str, literal: str, fold: bool) -> Iterator[int]:
        """:meth:`_rows_saying` one row at a time, in order (perf18: a look-up that stops at its ``LIMIT`` no longer
        finds every row containing a common literal such as ``[MASK]`` first)."""
        text, starts = self._joined(column, fold)
        needle = literal.lower() if fold else literal
        at = text.find(needle)
        while at >= 0:
            i = bisect.bisect_right(starts, at) - 1
            yield i
            nxt = starts[i + 1] if i + 1 < len(starts) else len(text)
            at = text.find(needle, nxt)

    #: Occurrence counts of literals remembered per snapshot (bounded; the snapshot is one bank version).
    RAREST_MEMO = 4096

    def _rarest(self, column: str, literals: tuple[str, ...], fold: bool) -> str | None:
        """Of the literals a pattern requires (:func:`required_literals`), the one fewest texts of ``column`` contain
        (ties: the longest, then the first): every one of them is required, so any one narrows to a superset of the
        matching rows; the rarest narrows most (``\\mfrom\\s+...\\[MASK\\]``: ``from``, not ``[MASK]``, which
        nearly every masked question holds). None when the pattern requires none."""
        if len(literals) <= 1:
            return literals[0] if literals else None
        memo = self.__dict__.setdefault("_literal_counts", {})
        text, _ = self._joined(column, fold)

        def count(literal: str) -> int:
            key = (column, fold, literal)
            got = memo.get(key)
            if got is None:
                if len(memo) >= self.RAREST_MEMO:
                    memo.clear()
                got = memo[key] = text.count(literal.lower() if fold else literal)
            return got

        return min(literals, key=lambda lit: (count(lit), -len(lit)))

    def _joined(self, column: str, fold: bool) -> tuple[str, list[int]]:
        key = ("_joined", column, fold)
        held = self.__dict__.get(key)
        if held is None:
            at, starts, parts, pos = _ROW_INDEX[column], [], [], 0
            for row in self.rows:
                piece = (row[at] or "") + _SEPARATOR
                starts.append(pos)
                parts.append(piece.lower() if fold else piece)
                pos += len(piece)
            held = ("".join(parts), starts)
            self.__dict__[key] = held
        return held


_ROW_INDEX = {"id": 0, "question": 1, "masked_question": 2, "sql": 3, "tables": 6, "mask_spans": 15}


def _flat_dicts(spans: Any) -> bool:
    """Whether decoded JSON ``spans`` is a list of dicts whose values are all strings, numbers, booleans or None."""
    return isinstance(spans, list) and all(
        type(s) is dict and all(v is None or type(v) in (str, int, float, bool) for v in s.values()) for s in spans)


def _fresh_spans(held: tuple) -> Any:
    """New objects equal to the decoded spans (``(spans, flat)`` of :meth:`BankSnapshot._spans`), as a fresh
    ``json.loads`` of the row would give: callers may change what they are handed."""
    spans, flat = held
    return [dict(s) for s in spans] if flat else json.loads(json.dumps(spans))


def _row_value(row: tuple, column: str) -> Any:
    value = row[_ROW_INDEX[column]]
    if column == "mask_spans":
        return json.loads(value)  # a fresh object per row, as the store hands out
    if column == "tables":
        return list(value or [])
    return value


#: Regular-expression look-ups read only the rows containing a literal the pattern requires (found over one joined
#: text); off: the pattern runs on every row of the scope. The rows returned are the same either way.
PREFILTER = True
_SEPARATOR = "\x00"  # no text of the bank holds it, and no literal of a pattern


def required_literal(pattern: str) -> str | None:
    """The longest run of plain characters every match of the PostgreSQL regular expression ``pattern`` must
    contain, read outside groups and only when no alternation is at the top level; None when there is none
    (a pre-filter: a row without it cannot match)."""
    runs = required_literals(pattern)
    return max(runs, key=len) if runs else None


@lru_cache(maxsize=4096)
def required_literals(pattern: str) -> tuple[str, ...]:
    """Every run of plain characters each match of ``pattern`` must contain (see :func:`required_literal`), in the
    pattern's order; empty when there is none."""
    runs: list[str] = []
    run: list[str] = []
    depth, i = 0, 0

    def close() -> None:
        if run:
            runs.append("".join(run))
            run.clear()

    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\" and i + 1 < len(pattern):
            nxt = pattern[i + 1]
            if depth == 0 and not nxt.isalnum():
                run.append(nxt)  # an escaped punctuation mark stands for itself
            elif depth == 0:
                close()  # \m, \M, \s, ...: no character of its own
            i += 2
            continue
        if ch == "(":
            close()
            depth += 1
        elif ch == ")":
            depth -= 1
        elif depth == 0 and ch == "|":
            return ()  # either side may match: nothing is required
        elif depth == 0 and ch in "?*{":
            if run:
                run.pop()  # the character before may be absent
            close()
        elif depth == 0 and (ch in ".+[]^$"):
            close()  # "+" repeats the character before, which stays required; the run ends there
        elif depth == 0:
            run.append(ch)
        i += 1
    close()
    return tuple(r for r in runs if r and _SEPARATOR not in r)


@lru_cache(maxsize=4096)
def python_regex(pattern: str, ignore_case: bool) -> re.Pattern | None:
    """A Python pattern that matches the same ASCII texts as the PostgreSQL regular expression
    ``pattern`` (ARE), or None when it uses syntax outside the translated subset."""
    out: list[str] = []
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\":
            if i + 1 >= len(pattern):
                return None
            nxt = pattern[i + 1]
            if nxt == "m":
                out.append(r"(?<!\w)(?=\w)")
            elif nxt == "M":
                out.append(r"(?<=\w)(?!\w)")
            elif nxt == "s":
                out.append(r"\s")
            elif nxt.isalnum():
                return None  # another escape (\d, \b, \y, ...): PostgreSQL's meaning is not Python's
            else:
                out.append(re.escape(nxt))
            i += 2
            continue
        if ch in "[]{}^$":
            return None  # bracket expressions, bounds and anchors: not written by the match route
        out.append(ch)
        i += 1
    flags = re.ASCII | re.DOTALL | (re.IGNORECASE if ignore_case else 0)
    try:
        return re.compile("".join(out), flags)
    except re.error:
        return None


def snapshot_for(store: Any, allowed: Any) -> BankSnapshot | None:
    """The snapshot of ``store``'s verified bank in scope ``allowed`` at the stamp the current ask
    read (loaded when that stamp is new), or None outside an ask, when switched off or unknown."""
    from sqlgenie.inference.verify import ask_scope_stamp

    if not ENABLED or store is None:
        return None
    stamp = ask_scope_stamp(store, allowed)
    if stamp is None:
        return None
    try:
        per_store = _SNAPSHOTS.setdefault(store, {})
    except TypeError:
        return None
    scope = stamp[0]
    held = per_store.get(scope)
    if held is not None and held.stamp == stamp:
        return held
    made = load_snapshot(store, allowed, stamp)
    if made is not None:
        per_store[scope] = made
    return made


def load_snapshot(store: Any, allowed: Any, stamp: tuple) -> BankSnapshot | None:
    """The scope's verified rows and vectors, by id (read after ``stamp``: never older than it)."""
    query, args = _LOAD, []
    if allowed is not None:
        query += " AND tables <@ %s"
        args.append(sorted(allowed))
    try:
        with store.cursor(binary=True) as cursor:  # binary: vectors and arrays without text parsing (3x faster)
            fetched = cursor.execute(query + " ORDER BY id", args).fetchall()
    except Exception:
        return None
    rows = [tuple(r[:17]) for r in fetched]
    vectors = [_floats(r[17]) for r in fetched]
    matrix = np.asarray(vectors, dtype=np.float32).astype(np.float64) if fetched else np.zeros((0, 0))
    norms = np.einsum("ij,ij->i", matrix, matrix) if fetched else np.zeros(0)
    ascii = {col: all((r[_ROW_INDEX[col]] or "").isascii() for r in rows) for col in ("question", "masked_question")}
    return BankSnapshot(stamp, [r[0] for r in rows], rows, matrix, norms, ascii)


def _floats(value: Any) -> Any:
    if hasattr(value, "to_numpy"):  # pgvector's Vector
        return value.to_numpy()
    return json.loads(value) if isinstance(value, str) else value  # text, without pgvector's adapter


def exact_from_snapshot(retriever: Any) -> Any:
    """A ``BankStore.exact_matches`` for the retriever's scope that answers from the snapshot inside
    an ask, and asks the store otherwise."""

    def exact_matches(masked_key: str, *, allowed_tables: Any, statuses: Sequence[str] = ("verified",),
                      limit: int = 5) -> list[Any]:
        if tuple(statuses) == ("verified",):
            snapshot = snapshot_for(retriever.store, allowed_tables)
            if snapshot is not None:
                return snapshot.exact_matches(masked_key, limit)
        return retriever.bank.exact_matches(masked_key, allowed_tables=allowed_tables, statuses=statuses, limit=limit)

    return exact_matches


def nearest_from_snapshot(retriever: Any) -> Any:
    """A ``Retriever.nearest`` that answers from the snapshot of the retriever's scope and falls back
    to ``retriever.bank.nearest`` (pgvector) outside an ask, for other statuses or when switched off."""

    def nearest(embedding: np.ndarray, *, k: int, allowed_tables: Any, statuses: Sequence[str], **kwargs: Any):
        if tuple(statuses) == ("verified",) and not kwargs.get("exact"):
            snapshot = snapshot_for(retriever.store, allowed_tables)
            if snapshot is not None:
                return snapshot.nearest(embedding, k)
        return retriever.bank.nearest(embedding, k=k, allowed_tables=allowed_tables, statuses=statuses, **kwargs)

    return nearest
