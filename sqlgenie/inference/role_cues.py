"""The role the question's own words give a value in a relation between two rows of one kind (issue 13,
helper novel18).

Some tables link two rows of one table: ADVISING's ``course_prerequisite`` (``course_id`` and
``pre_course_id``, both courses), scholar's ``cite`` (``citingpaperid`` and ``citedpaperid``). Which of
the two a value of the question is, is said by words around the value, before it or after it:
"prerequisites *for* X", "courses I must take *before* X", "X *is a pre-requisite for*", "*after completing*
X", "Does A *require* B". The verification pairs each value of the question with a value of the example and
keeps the example's place for it, so "Name the courses that are mandatory *for* SI 546" adapted from "Which
CHEMBIO courses *require* 530 ?" asks for the courses SI 546 is a prerequisite of, and "*Before* I take SEAS
502 , do I need to take SEAS 698 ?" adapted from "Do I need to take EMBA 640 to take EMBA 604 ?" asks whether
502 is needed for 698 (every such wrong answer of the ADVISING design runs; prec16 and prec17 left them).

:class:`RoleCues` learns, from the verified bank in scope, which role each word near a value gives it:
for every verified example whose SQL reads a two-role table, the role of each of its values (the column of
the table that the value's rows reach through the query's equality joins, not passing through the table
itself: :func:`value_role`) and the words within :data:`WINDOW` words before it and after it in the same
clause (:func:`cue_words`, lemmas; another value or a comma ends the window). A word marks a role when at
least :data:`MIN_SHARE` of at least :data:`MIN_USES` of its uses, on that side of a value, have the value in
that role. :func:`role_cue` refuses a candidate when a cue word of a question value that the paired example
value does not have marks one role only, and the adapted query puts the value in the other.

Nothing is a word list: the table is read off the catalog's column names (two columns of one table ending in
the name of another table's column, the table not a thing with a column of its own name), the cue words and
their roles off the bank. Every refusal is a sentence; :data:`REASON_CODES` gives its ``reason_code``;
:data:`ROLE_CUE` switches it. Hook: :func:`check_candidate` in ``Asker._adapt`` after :mod:`.asked_returns`, under the
same veto as the other refusal modules.
"""

from __future__ import annotations

import re
import weakref
from collections import Counter
from typing import Any, Iterator, Sequence

from sqlglot import exp

from sqlgenie.inference.head_reading import reached_aliases
from sqlgenie.inference.refusals import code_of, refuse_first, tree_to_read

__all__ = ["REASON_CODES", "ROLE_CUE", "RoleCues", "check_candidate", "cue_words", "findings", "reason_code",
           "read_two_role_columns", "role_cue", "role_cues", "two_role_columns", "value_role"]

REASON_CODES = {"in the other role": "role_cue"}

#: switch (benchmarks turn the rule off)
ROLE_CUE = True

#: words each side of a value read as its cues; the share and the uses a cue needs to mark a role
WINDOW = 3
MIN_SHARE = 0.8
MIN_USES = 4
#: bank examples read per two-role table
SAMPLE = 600

_MASK = "#"
_END = "|"
_ARTICLES = frozenset({"the", "a", "an"})
#: "have" is a main verb next to a value as often as an auxiliary ("does X *have* prerequisites"): a cue
_HAVE = frozenset({"have", "has", "had"})
#: words that say no role (closed classes of English): pronouns, determiners, conjunctions, negations; the
#: wh-words and auxiliaries are :mod:`.verify`'s. Prepositions stay: "for", "before", "after" say roles.
_NO_ROLE = frozenset("""i me my mine myself you your we us our it its they them their he him his she her this that
these those any some all each every both either neither no not and or but so if s t""".split())


def reason_code(reason: str) -> str | None:
    return code_of(reason, REASON_CODES)


# --------------------------------------------------------------------------- the tables and a value's role


def two_role_columns(catalog: Any, schemas: set[str] | None = None) -> dict[str, tuple[str, ...]]:
    """:func:`read_two_role_columns`, kept per catalog snapshot and schemas (a catalog is not changed in place:
    a refresh loads a new one); the reading costs ~0.6 ms on ATIS's 25 tables and every candidate asks it."""
    key = (id(catalog), frozenset(schemas or ()))
    hit = _TWO_ROLE.get(key)
    if hit is not None and hit[0]() is catalog:
        return hit[1]
    out = read_two_role_columns(catalog, schemas)
    if len(_TWO_ROLE) >= 32:
        _TWO_ROLE.pop(next(iter(_TWO_ROLE)))
    try:
        _TWO_ROLE[key] = (weakref.ref(catalog), out)
    except TypeError:  # not weak-referenceable: read each time
        pass
    return out


_TWO_ROLE: dict[tuple[int, frozenset[str]], tuple[Any, dict[str, tuple[str, ...]]]] = {}


def read_two_role_columns(catalog: Any, schemas: set[str] | None = None) -> dict[str, tuple[str, ...]]:
    """Per table of the catalog that links two rows of one other table: its two columns that end in the name of
    a column named after that table (its key by the naming of these schemas: ``course_prerequisite``:
    ``course_id``, ``pre_course_id``; ``cite``: ``citedpaperid``, ``citingpaperid``). A table with a column of
    its own name (``flight.flight_id``) is a thing, not a relation. (An inferred key is not read: onboarding may infer a
    single-column key for a link table from a small dump.)"""
    out: dict[str, tuple[str, ...]] = {}
    tables = [t for t in getattr(catalog, "tables", ()) or () if not schemas or t.schema.lower() in schemas]
    for info in tables:
        name = info.name.lower()
        own = [c.name.lower() for c in info.columns]
        base = name[:-1] if name.endswith("s") and not name.endswith("ss") else name
        if any(c == base or c.startswith(base + "_") or c in (base + "id", base + "name", base + "code") for c in own):
            continue
        for other in tables:
            oname = other.name.lower()
            if oname == name:
                continue
            obase = oname[:-1] if oname.endswith("s") and not oname.endswith("ss") else oname
            for col in other.columns:
                x = col.name.lower()
                if len(x) < 4 or not x.startswith(obase):
                    continue  # the other table's own column ("paperid", "course_id"), not any column ("name", a
                    # "code" key that ends city_code and airport_code alike)
                hits = tuple(sorted(c for c in own if c.endswith(x)))
                if len(hits) == 2:
                    out[name] = hits
                    break
            if name in out:
                break
    return out


def _words_of(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9]+", text.lower())}


def _literal_aliases(select: exp.Select, value: str) -> set[str]:
    """Aliases of the tables on which the outer query compares every word of the value ``value`` with
    literals ('SEAS' and '502' of "SEAS 502" on one alias; "537" on the alias that also compares 'EECS')."""
    words = _words_of(value)
    said: dict[str, set[str]] = {}
    for lit in select.find_all(exp.Literal):
        if not lit.is_string and not lit.is_number:
            continue
        pred = lit.parent
        if not isinstance(pred, (exp.EQ, exp.Like, exp.ILike)):
            continue
        col = pred.this if isinstance(pred.this, exp.Column) else None
        if col is None or not col.table or col.find_ancestor(exp.Select) is not select:
            continue
        said.setdefault(col.table.lower(), set()).update(_words_of(str(lit.this).strip("%")))
    return {alias for alias, lw in said.items() if words and words <= lw}


def value_role(tree: exp.Expression, table: str, columns: Sequence[str], value: str) -> str | None:
    """The column of the two-role ``table`` (one of ``columns``) that the rows of ``value`` reach through the
    outer query's equality joins, not passing through ``table``; None when the value reaches neither or both,
    or the query reads the table under more than one alias."""
    select = tree if isinstance(tree, exp.Select) else tree.find(exp.Select)
    if select is None:
        return None
    aliases = {t.alias_or_name.lower(): t.name.lower() for t in select.find_all(exp.Table)
               if t.find_ancestor(exp.Select) is select}
    mine = [a for a, n in aliases.items() if n == table]
    if len(mine) != 1:
        return None
    rel = mine[0]
    start = _literal_aliases(select, value)
    if not start or rel in start:
        return None
    edges: list[tuple[str, str, str, str]] = []
    for eq in select.find_all(exp.EQ):
        a, b = eq.this, eq.expression
        if eq.find_ancestor(exp.Select) is not select:
            continue
        if isinstance(a, exp.Column) and isinstance(b, exp.Column) and a.table and b.table:
            edges.append((a.table.lower(), a.name.lower(), b.table.lower(), b.name.lower()))
    reach = reached_aliases(edges, start, rel)
    found = {pc for x, xc, y, yc in edges for p, pc, q in ((x, xc, y), (y, yc, x))
             if p == rel and q in reach and pc in columns}
    return next(iter(found)) if len(found) == 1 else None


# --------------------------------------------------------------------------- cue words


def _clause_words(masked: str) -> list[str]:
    """The masked question's tokens (values as ``#``), a clause end (``|``) for each comma, semicolon, colon,
    question or exclamation mark."""
    from sqlgenie.inference.verify import tokens

    out: list[str] = []
    for piece in re.split(r"[,;:?!]", masked):
        out.extend(tokens(piece))
        out.append(_END)
    return out


def _says_no_role(word: str) -> bool:
    from sqlgenie.inference.verify import _AUX, _WH

    return word in _ARTICLES or word in _NO_ROLE or word in _WH or (word in _AUX and word not in _HAVE) \
        or not word.isalpha()


def cue_words(masked: str) -> list[frozenset[str]] | None:
    """Per value of ``masked`` (in order), its cue words: ``b:<lemma>`` for each of the :data:`WINDOW` words
    before it and ``a:<lemma>`` after it (words that say no role, :data:`_NO_ROLE`, skipped), the window
    ended by another value or a clause end. None when the question has no value."""
    from sqlgenie.inference.verify import lemma

    words = _clause_words(masked)
    masks = [k for k, w in enumerate(words) if w == _MASK]
    if not masks:
        return None
    out = []
    for k in masks:
        feats: set[str] = set()
        for step, tag in ((-1, "b:"), (1, "a:")):
            j, n = k + step, 0
            while 0 <= j < len(words) and n < WINDOW and words[j] not in (_MASK, _END):
                if not _says_no_role(words[j]):
                    feats.add(tag + lemma(words[j]))
                n += 1
                j += step
        out.append(frozenset(feats))
    return out


# --------------------------------------------------------------------------- the bank's reading


class RoleCues:
    """Per two-role table of the scope, the roles its verified examples' cue words give their values
    (read on first use of the table, kept until the bank changes)."""

    def __init__(self, store: Any, allowed: Any, catalog: Any, stamp: Any = None) -> None:
        self.store, self.allowed, self.catalog, self.stamp = store, allowed, catalog, stamp
        self._stats: dict[str, tuple[Counter, dict[str, Counter]]] = {}

    def _read(self, table: str, columns: Sequence[str]) -> tuple[Counter, dict[str, Counter]]:
        from sqlgenie.autocorrect.base import parsed_read_only
        from sqlgenie.inference.adapt import Span
        from sqlgenie.inference.verify import verified_rows

        rows = verified_rows(self.store, self.allowed, "masked_question, mask_spans, sql", "sql ~* %s",
                             [r"\m" + re.escape(table) + r"\M"], SAMPLE)
        uses: Counter = Counter()
        roles: dict[str, Counter] = {}
        for masked, spans, sql in rows:
            spans = spans or []
            feats = cue_words(masked)
            if feats is None or len(feats) != len(spans):
                continue
            try:
                tree = parsed_read_only(sql)
            except Exception:
                continue
            for f, span in zip(feats, spans):
                role = value_role(tree, table, columns, Span.of(span).text)
                if role is None:
                    continue
                for cue in f:
                    uses[cue] += 1
                    roles.setdefault(cue, Counter())[role] += 1
        return uses, roles

    def marks(self, table: str, columns: Sequence[str], cue: str) -> str | None:
        """The role ``cue`` gives a value of ``table`` in the bank (``MIN_SHARE`` of ``MIN_USES``), else None."""
        if table not in self._stats:
            self._stats[table] = self._read(table, columns)
        uses, roles = self._stats[table]
        n = uses.get(cue, 0)
        if n < MIN_USES:
            return None
        role, count = roles[cue].most_common(1)[0]
        return role if count >= MIN_SHARE * n else None


def role_cues(retriever: Any, catalog: Any) -> Any:
    """The :class:`RoleCues` of the retriever's scope, built on first use (:class:`.verify.LazyBankModel`)."""
    from sqlgenie.inference.verify import LazyBankModel

    return LazyBankModel(retriever, "_novel18_role_cues",
                         lambda store, allowed, stamp: RoleCues(store, allowed, catalog, stamp))


# --------------------------------------------------------------------------- the rule


def _pairing(example_spans: Sequence[Any], new_spans: Sequence[Any], pairs: Sequence[Any] | None) -> dict[int, int]:
    from sqlgenie.inference.other_query import _pairing as pairing

    return pairing(example_spans, new_spans, pairs) or {}


def role_cue(tree: exp.Expression, example_masked: str, example_spans: Sequence[Any], new_masked: str,
             new_spans: Sequence[Any], pairs: Sequence[Any] | None, catalog: Any, model: Any) -> list[str]:
    """See module doc."""
    from sqlgenie.inference.adapt import Span

    if model is None or catalog is None:
        return []
    read = {t.name.lower() for t in tree.find_all(exp.Table)}
    schemas = {t.db.lower() for t in tree.find_all(exp.Table) if t.db}
    tables = {t: cols for t, cols in two_role_columns(catalog, schemas).items() if t in read}
    if not tables:
        return []
    model = model.get() if hasattr(model, "get") else model  # the bank is read only for a two-role table
    if model is None:
        return []
    ex_feats, new_feats = cue_words(example_masked), cue_words(new_masked)
    if ex_feats is None or new_feats is None or len(ex_feats) != len(example_spans) \
            or len(new_feats) != len(new_spans):
        return []
    back = {j: i for i, j in _pairing(example_spans, new_spans, pairs).items()}
    from sqlgenie.inference.verify import lemma, tokens

    said = {lemma(w) for w in tokens(example_masked)}
    for table, columns in sorted(tables.items()):
        for j, span in enumerate(new_spans):
            text = Span.of(span).text
            got = value_role(tree, table, columns, text)
            if got is None:
                continue
            own = ex_feats[back[j]] if j in back else frozenset()
            marked: dict[str, str] = {}
            for cue in sorted(new_feats[j] - own):
                if cue[2:] in said:
                    continue  # a word the example says too, elsewhere: the same words in another order
                role = model.marks(table, columns, cue)
                if role is not None:
                    marked.setdefault(role, cue)
            if len(marked) != 1 or got in marked:
                continue
            (want, cue), = marked.items()
            where = "before" if cue.startswith("b:") else "after"
            return [f"your question has \u201c{cue[2:]}\u201d {where} {text!r}, which in the verified examples puts "
                    f"a value at {table}.{want}; this query puts {text!r} in the other role ({table}.{got})"]
    return []


# --------------------------------------------------------------------------- hook


def findings(adapted: Any, example_masked: str, example_spans: Sequence[Any], new_masked: str,
             new_spans: Sequence[Any], *, catalog: Any = None, model: Any = None) -> Iterator[tuple[str, list[str]]]:
    """(rule, reasons) of every switched-on rule, lazily."""
    tree = tree_to_read(adapted, example_masked, new_masked)
    if tree is None:
        return
    if ROLE_CUE:
        yield "role cue", role_cue(tree, example_masked, example_spans, new_masked, new_spans,
                                   getattr(adapted, "pairs", None), catalog, model)


def check_candidate(adapted: Any, example_masked: str, example_spans: Sequence[Any], new_masked: str,
                    new_spans: Sequence[Any], *, catalog: Any = None, model: Any = None) -> Any:
    """Refuse one verified adaptation (changed in place) when a rule finds a reason. Returns ``adapted``."""
    return refuse_first(adapted, findings(adapted, example_masked, example_spans, new_masked, new_spans,
                                          catalog=catalog, model=model))
