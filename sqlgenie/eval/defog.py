"""Defog sql-eval specifics: alternative-gold expansion and dump loading.

Gold notation (not SQL syntax, so it is scanned by hand, respecting quotes):

* ``;`` separates several acceptable queries;
* ``{a.x, a.y}`` in a query means any non-empty subset of those columns, in the listed
  order, is acceptable (``{a, b}`` -> ``a`` | ``b`` | ``a, b``), and a later ``{}``
  (``GROUP BY {}``) repeats the chosen columns. This is the expansion of Defog's own
  ``get_all_minimal_queries``; several non-empty groups in one query expand as a
  cartesian product.

A prediction is right when its result matches the result of *any* expansion.
"""

from __future__ import annotations

import hashlib
import itertools
from dataclasses import dataclass

from sqlglot.dialects.postgres import Postgres
from sqlglot.tokens import TokenType

MAX_EXPANSIONS = 256


def _scan(text: str):
    """Yield (index, char, in_code) over ``text``; in_code is False inside
    single-quoted strings, double-quoted identifiers and ``--`` / ``/* */`` comments."""
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch in ("'", '"'):
            j = i + 1
            while j < n:
                if text[j] == ch:
                    if j + 1 < n and text[j + 1] == ch:  # doubled quote escape
                        j += 2
                        continue
                    break
                j += 1
            for k in range(i, min(j + 1, n)):
                yield k, text[k], False
            i = j + 1
            continue
        if text.startswith("--", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            for k in range(i, j):
                yield k, text[k], False
            i = j
            continue
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            for k in range(i, j):
                yield k, text[k], False
            i = j
            continue
        yield i, ch, True
        i += 1


def split_alternatives(gold: str) -> list[str]:
    """Split on ``;`` outside quotes and comments; blank parts are dropped."""
    parts, start = [], 0
    for i, ch, code in _scan(gold):
        if code and ch == ";":
            parts.append(gold[start:i])
            start = i + 1
    parts.append(gold[start:])
    return [p.strip() for p in parts if p.strip()]


def _split_options(inner: str) -> list[str]:
    """Split the inside of ``{...}`` on top-level commas."""
    out, depth, start = [], 0, 0
    for i, ch, code in _scan(inner):
        if not code:
            continue
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "," and depth == 0:
            out.append(inner[start:i].strip())
            start = i + 1
    out.append(inner[start:].strip())
    return [o for o in out if o]


def _brace_groups(query: str) -> list[tuple[int, int]]:
    """(start, end) of every ``{...}`` group outside quotes (end is the ``}`` index)."""
    groups, open_at = [], None
    for i, ch, code in _scan(query):
        if not code:
            continue
        if ch == "{" and open_at is None:
            open_at = i
        elif ch == "}" and open_at is not None:
            groups.append((open_at, i))
            open_at = None
    return groups


def expand_query(query: str) -> list[str]:
    """All concrete queries of one alternative (see module doc)."""
    groups = _brace_groups(query)
    if not groups:
        return [query]
    pieces: list[str] = []  # literal text between groups
    slots: list[list[str] | None] = []  # options per non-empty group, None for ``{}``
    pos = 0
    for start, end in groups:
        pieces.append(query[pos:start])
        options = _split_options(query[start + 1 : end])
        slots.append(options or None)
        pos = end + 1
    pieces.append(query[pos:])
    choices_per_slot = []
    for options in slots:
        if options is None:
            continue
        combos = [
            ", ".join(c) for r in range(1, len(options) + 1) for c in itertools.combinations(options, r)
        ]
        choices_per_slot.append(combos)
    out: list[str] = []
    for choice in itertools.product(*choices_per_slot):
        text, k, last = pieces[0], 0, ""
        for i, options in enumerate(slots):
            if options is None:
                text += last  # ``{}`` repeats the latest chosen column list
            else:
                last = choice[k]
                k += 1
                text += last
            text += pieces[i + 1]
        out.append(text)
        if len(out) >= MAX_EXPANSIONS:
            break
    return out


def expand_gold(gold: str) -> list[str]:
    """Every acceptable concrete query of a Defog gold string (order kept, duplicates dropped)."""
    seen: dict[str, None] = {}
    for alt in split_alternatives(gold):
        for q in expand_query(alt):
            seen.setdefault(q.strip(), None)
    return list(seen)


# --- dumps ---------------------------------------------------------------------------


@dataclass(frozen=True)
class DumpPlan:
    """A Defog dump rewritten for loading into ``schema``."""

    schema: str
    sql: str
    fingerprint: str
    own_schema: bool  # the dump names its own schema (ewallet: consumer_div)


def _tokens(sql: str):
    return Postgres().tokenize(sql)


def dump_schema(sql: str) -> str | None:
    """The schema a dump creates itself (``CREATE SCHEMA [IF NOT EXISTS] x``), if any."""
    toks = _tokens(sql)
    for i, tok in enumerate(toks):
        if tok.token_type == TokenType.CREATE and i + 2 < len(toks) and toks[i + 1].token_type == TokenType.SCHEMA:
            j = i + 2
            while j < len(toks) and (
                toks[j].token_type in (TokenType.NOT, TokenType.EXISTS) or toks[j].text.upper() == "IF"
            ):
                j += 1
            if j < len(toks):
                return toks[j].text
    return None


def plan_dump(sql: str, default_schema: str) -> DumpPlan:
    """Rewrite ``public.<name>`` to ``<schema>.<name>`` at the token level (everything
    else is kept byte for byte). A dump that creates its own schema keeps it."""
    own = dump_schema(sql)
    schema = own or default_schema
    toks = _tokens(sql)
    out, pos = [], 0
    for i, tok in enumerate(toks):
        if (
            tok.token_type == TokenType.VAR
            and tok.text.lower() == "public"
            and i + 1 < len(toks)
            and toks[i + 1].token_type == TokenType.DOT
        ):
            out.append(sql[pos : tok.start])
            out.append('"' + schema.replace('"', '""') + '"')
            pos = tok.end + 1
    out.append(sql[pos:])
    rewritten = "".join(out)
    fp = hashlib.sha256(sql.encode("utf-8")).hexdigest()
    return DumpPlan(schema, rewritten, fp, own is not None)
