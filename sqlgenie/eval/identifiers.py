"""Identifier policy shared by the loader and the gold transpiler.

SQLite resolves identifiers case-insensitively for ASCII letters only (``Name``,
``NAME`` and ``name`` are the same column, ``É`` and ``é`` are not), and gold SQL
relies on that. PostgreSQL folds *unquoted* identifiers to lower case (also
ASCII-only) and compares quoted ones exactly. So the loader creates every table
and column under its **ASCII-lower-cased** name, quoted (spaces, reserved words and
unicode survive), and the transpiler rewrites every identifier of gold SQL the
same way. Any spelling that SQLite accepts then resolves on PostgreSQL.

The fold never merges two names of one database: SQLite itself rejects two
tables (or two columns of a table) that differ only in ASCII case. Names longer
than PostgreSQL's 63-byte limit are cut and given a short stable hash suffix
(PostgreSQL would silently truncate them, possibly onto each other).
"""

from __future__ import annotations

import hashlib
import re

PG_MAX_IDENTIFIER_BYTES = 63
_ASCII_UPPER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def ascii_lower(name: str) -> str:
    """Lower-case ASCII letters only (what SQLite and PostgreSQL both do)."""
    return name.translate(_ASCII_UPPER)


def fold_identifier(name: str) -> str:
    """The PostgreSQL name of a SQLite table, column or alias (see module doc)."""
    folded = ascii_lower(name).replace("\x00", "")
    if len(folded.encode("utf-8")) <= PG_MAX_IDENTIFIER_BYTES:
        return folded
    digest = hashlib.sha1(folded.encode("utf-8")).hexdigest()[:8]
    head = folded.encode("utf-8")[: PG_MAX_IDENTIFIER_BYTES - 9].decode("utf-8", errors="ignore")
    return f"{head}_{digest}"


_SCHEMA_UNSAFE = re.compile(r"[^a-z0-9_]+")
_RESERVED_SCHEMAS = {"public", "information_schema", "sqlgenie"}


def schema_name_for(db_id: str, prefix: str = "") -> str:
    """Deterministic PostgreSQL schema name for a benchmark database id.

    ``concert_singer`` -> ``concert_singer``; anything outside ``[a-z0-9_]`` becomes
    ``_`` and a hash suffix keeps distinct ids distinct; names that would clash with
    system schemas (``public``, ``pg_*``, ``information_schema``, ``sqlgenie``) get a
    ``db_`` prefix.
    """
    raw = prefix + db_id
    base = _SCHEMA_UNSAFE.sub("_", ascii_lower(raw)).strip("_") or "db"
    if base != raw:
        base = f"{base}_{hashlib.sha1(raw.encode('utf-8')).hexdigest()[:6]}"
    if base[0].isdigit() or base in _RESERVED_SCHEMAS or base.startswith("pg_") or base.startswith("sqlgenie"):
        base = "db_" + base
    return base[:PG_MAX_IDENTIFIER_BYTES]
