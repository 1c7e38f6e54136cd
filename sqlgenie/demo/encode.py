"""PostgreSQL ``COPY ... FROM STDIN`` text format, built with numpy.

A *field* is a pair ``(chars, mask)``: a ``uint8`` matrix of shape ``(rows, width)``
and a boolean matrix of the same shape that says which characters are real. Every
value is laid out right- or left-aligned in its fixed-width slot; :func:`rows`
places the fields side by side with tab and newline columns and keeps the masked
characters (``chars[mask]`` reads row by row), which yields the COPY text of all
rows in one vectorised step -- no Python loop per row.

Only values that need no escaping are supported (non-negative integers, fixed
point decimals, and strings from a vocabulary checked by :func:`check_copy_safe`).
Small tables use :func:`format_rows`, which escapes arbitrary Python values.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

Field = tuple[np.ndarray, np.ndarray]

NULL = b"\\N"
_TAB = 9
_NEWLINE = 10


def check_copy_safe(values: Iterable[str | None]) -> None:
    """Raise ValueError when a vocabulary string would need COPY escaping."""
    for value in values:
        if value is not None and any(ch in value for ch in "\t\n\r\\"):
            raise ValueError(f"vocabulary value needs COPY escaping: {value!r}")


def ints(values: np.ndarray) -> Field:
    """Non-negative integers, without leading zeros."""
    v = np.asarray(values, dtype=np.int64)
    if v.size and int(v.min()) < 0:
        raise ValueError("ints() encodes non-negative integers only")
    width = len(str(int(v.max()))) if v.size else 1
    pows = 10 ** np.arange(width - 1, -1, -1, dtype=np.int64)
    chars = ((v[:, None] // pows) % 10 + 48).astype(np.uint8)
    mask = v[:, None] >= pows
    mask[:, -1] = True  # "0" keeps its one digit
    return chars, mask


def zero_padded(values: np.ndarray, width: int) -> Field:
    """Non-negative integers as exactly ``width`` digits (e.g. hours "07")."""
    v = np.asarray(values, dtype=np.int64)
    pows = 10 ** np.arange(width - 1, -1, -1, dtype=np.int64)
    chars = ((v[:, None] // pows) % 10 + 48).astype(np.uint8)
    return chars, np.ones(chars.shape, dtype=bool)


def decimals(units: np.ndarray, scale: int) -> Field:
    """Fixed-point decimals from integer units of ``10**-scale`` (cents for scale 2)."""
    v = np.asarray(units, dtype=np.int64)
    whole, frac = np.divmod(v, 10**scale)
    return concat(ints(whole), literal(len(v), b"."), zero_padded(frac, scale))


def literal(n: int, text: bytes) -> Field:
    """The same bytes on every row."""
    chars = np.tile(np.frombuffer(text, dtype=np.uint8), (n, 1))
    return chars, np.ones(chars.shape, dtype=bool)


def vocabulary(codes: np.ndarray, vocab: Sequence[str | None]) -> Field:
    """Strings chosen by index into ``vocab`` (``None`` becomes NULL)."""
    check_copy_safe(vocab)
    encoded = [NULL if s is None else s.encode("utf-8") for s in vocab]
    width = max((len(b) for b in encoded), default=1) or 1
    table = np.zeros((len(encoded), width), dtype=np.uint8)
    lengths = np.zeros(len(encoded), dtype=np.int64)
    for i, b in enumerate(encoded):
        table[i, : len(b)] = np.frombuffer(b, dtype=np.uint8)
        lengths[i] = len(b)
    codes = np.asarray(codes, dtype=np.int64)
    chars = table[codes]
    mask = np.arange(width)[None, :] < lengths[codes][:, None]
    return chars, mask


def concat(*fields: Field) -> Field:
    """One field made of several, with nothing between them."""
    return np.hstack([f[0] for f in fields]), np.hstack([f[1] for f in fields])


def rows(fields: Sequence[Field]) -> bytes:
    """COPY text for all rows: fields separated by tabs, rows ended by newlines."""
    n = fields[0][0].shape[0]
    sep_chars = np.full((n, 1), _TAB, dtype=np.uint8)
    end_chars = np.full((n, 1), _NEWLINE, dtype=np.uint8)
    ones = np.ones((n, 1), dtype=bool)
    chars: list[np.ndarray] = []
    masks: list[np.ndarray] = []
    for i, (c, m) in enumerate(fields):
        if c.shape[0] != n:
            raise ValueError("all fields must have the same number of rows")
        if i:
            chars.append(sep_chars)
            masks.append(ones)
        chars.append(c)
        masks.append(m)
    chars.append(end_chars)
    masks.append(ones)
    all_chars = np.hstack(chars)
    return all_chars[np.hstack(masks)].tobytes()


# --- small tables: plain Python ----------------------------------------------------

_ESCAPES = str.maketrans({"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"})


def _text(value: Any) -> str:
    if value is None:
        return "\\N"
    if isinstance(value, bool):
        return "t" if value else "f"
    return str(value).translate(_ESCAPES)


def format_rows(data: Iterable[Sequence[Any]]) -> bytes:
    """COPY text for Python tuples (None -> NULL, strings escaped)."""
    return "".join("\t".join(map(_text, row)) + "\n" for row in data).encode("utf-8")
