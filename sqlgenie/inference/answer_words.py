"""Answer words: refusals for an answer or a grouping that only the example's words ask for
(issue 13, helper matchy).

On the templated splits the match route's wrong answers left are mostly to questions of
*another* query whose nearest example is worded close. Two parts of such a pair are read here
off the two masked questions, the adapted SQL's outer projection and the catalog's own names
and synonyms (never a word list from a test set):

* :func:`dropped_answer_word` - the adapted query returns a column that a word of the
  *example* names (its name, its table's name for a key or a name column, or a catalog
  synonym: "who *authored* papers at X" returns ``writes.authorid``), no word of the asked
  question names it ("what papers did X publish ?"), and no other paraphrase of the example's
  query (its skeleton group, :mod:`sqlgenie.inference.groups`) is worded without it. The
  example's query returns what the example asked for; the question asks for something else.
* :func:`unasked_entity` - the question names one thing the query returns ("in what *journals*
  does X publish ?"), and the query also returns another table's rows that no word of either
  question names and no value of the question selects (``venue.venueid`` from "where does X
  publish ?"; the keyphrases of "recent papers by X").
* :func:`foreign_answer_head` - the question's answer head is a word the verified bank answers
  with other rows: :class:`AnswerHeads` learns, per head word, the tables and column names that
  the bank's queries return for questions with that head (≥ 80 % of ≥ 3 uses), so words
  the catalog has no synonym for are read as the bank reads them ("*topics*" are keyphrases, not
  venues; "*paper*" is its id, not its title, where the example asks for "the name of" it). Not
  for a head with an "of" phrase ("types of ground transportation") or a question that also says
  the example's head.
* :func:`unasked_by_grouping` - the question asks for one answer "by X" where X is a schema
  word and no value ("number of papers *by year* from X"), the example says no such grouping
  and no paraphrase of it does, and the adapted SQL groups nothing. (:func:`.counterparts.
  unrealized_grouping` reads "each / per X" only: "papers by X" names an author, but a masked
  value is no schema word.)

Every refusal is a sentence; :data:`REASON_CODES` gives its ``reason_code``. Each rule has a
switch for A/B runs. Measured and not kept: the asked question's embedding against the spread of
the example's skeleton group (its distance to the group centroid against the members' own):
wrong and right answers overlap on the fresh scholar splits (see docs/benchmarks.md, "After matchy").
"""

from __future__ import annotations

from typing import Any, Iterator, Sequence

from sqlglot import exp

from sqlgenie.inference.refusals import code_of, refuse_first
from sqlgenie.inference.verify import LazyBankModel

__all__ = [
    "REASON_CODES",
    "check_candidate",
    "dropped_answer_word",
    "findings",
    "named_outputs",
    "output_names",
    "reason_code",
    "unasked_by_grouping",
    "unasked_entity",
    "foreign_answer_head",
    "answer_heads",
    "AnswerHeads",
    "output_entities",
]

#: reason_code of each refusal of this module, by a phrase of its sentence.
REASON_CODES = {
    "which only the example's words ask for": "dropped_answer_word",
    "which no word of either question asks for": "unasked_entity",
    "rows, but this example's query returns": "foreign_answer_head",
    "the example's query groups nothing": "unasked_by_grouping",
}

ANSWER_WORD = True
ENTITY = True
HEAD = True
HEAD_COLUMNS = True  # the head's columns too ("paper" is its id, not its title), not only its table
BY_GROUPING = True

#: Parts of a column name that say how a thing is stored, not which thing it is.
_STORAGE = ("identifier", "id", "name", "code")
#: names of a time (closed class): what "when" asks for
_TEMPORAL = frozenset("year date time day month semester term quarter hour week".split())
_MASK = "#"


def reason_code(reason: str) -> str | None:
    return code_of(reason, REASON_CODES)


def _strip(name: str) -> str:
    """``authorid`` -> ``author``, ``keyphrasename`` -> ``keyphrase``, ``venue_id`` -> ``venue``."""
    n = name.lower()
    for suffix in _STORAGE:
        if n.endswith(suffix) and len(n) > len(suffix) + 2:
            return n[: -len(suffix)].rstrip("_ ")
    return n


def _outer(tree: exp.Expression) -> exp.Select | None:
    if isinstance(tree, exp.Select):
        return tree
    return tree.find(exp.Select)


def output_names(tree: exp.Expression, catalog: Any = None) -> list[tuple[str, set[str]]]:
    """(``table.column``, the words that name it) of each plain (not aggregated) column of the
    outer projection: the column's name without its storage suffix, the catalog's synonyms of
    it (without the storage words) and, for a table's own key or name column, the table's name."""
    from sqlgenie.inference.verify import lemma

    sel = _outer(tree)
    if sel is None:
        return []
    alias = {t.alias_or_name.lower(): t for t in sel.find_all(exp.Table)
             if t.find_ancestor(exp.Select) is sel}
    out: list[tuple[str, set[str]]] = []
    for e in sel.expressions:
        if e.find(exp.AggFunc) is not None or e.find(exp.Star) is not None:
            continue
        for col in e.find_all(exp.Column):
            table = alias.get((col.table or "").lower())
            if table is None and len(alias) == 1:
                table = next(iter(alias.values()))
            if table is None:
                continue
            tname, cname = table.name.lower(), col.name.lower()
            words = {_strip(cname)}
            if _strip(cname) == tname:
                words.add(tname)
            info = catalog.table(table.name, table.db or None) if catalog is not None else None
            column = info.column(col.name) if info is not None else None
            for syn in (getattr(column, "synonyms", None) or ()):
                for part in syn.lower().split():
                    if part not in _STORAGE:
                        words.add(_strip(part))
            out.append((f"{tname}.{cname}", {lemma(w) for w in words if len(w) > 2}))
    return out


def _names(word: str, names: set[str]) -> bool:
    """True when ``word`` (a question's token) says one of ``names``: the same lemma, or the
    name as its stem ("authored" -> author, "cited" -> cite) or the word as the name's ("weigh" -> weight)."""
    from sqlgenie.inference.verify import lemma

    w = lemma(word)
    return any(w == n or (len(n) >= 4 and w.startswith(n)) or (len(w) >= 4 and n.startswith(w)) for n in names)


def _said(words: Sequence[str], names: set[str]) -> bool:
    """A word of ``words``, or two adjacent ones written as one ("data sets" -> dataset), says one
    of ``names``."""
    words = list(words)
    joined = [a + b for a, b in zip(words, words[1:]) if _MASK not in (a, b)]
    return any(w != _MASK and _names(w, names) for w in words + joined)


_PLACES = {"who": "who", "whom": "who", "whose": "who", "where": "where", "when": "when"}


def _places(words: Sequence[str]) -> set[str]:
    return {_PLACES[w] for w in words if w in _PLACES}


def dropped_answer_word(tree: exp.Expression, example_words: Sequence[str], new_words: Sequence[str],
                        catalog: Any = None, group: Any = None) -> list[str]:
    """See module doc. ``group``: :class:`sqlgenie.inference.groups.GroupLicense` or None.
    Questions that ask the same wh-place ("who authored ..." / "who has papers ...") ask for the
    same answer, whatever the example's other words name."""
    if _places(example_words) & _places(new_words):
        return []
    sel = _outer(tree)
    grouped = {c.name.lower() for c in (sel.args.get("group") or exp.Group()).find_all(exp.Column)} if sel else set()
    for column, names in output_names(tree, catalog):
        if column.split(".")[1] in grouped:
            continue  # "each year": a grouping, which the counterparts and unasked parts judge
        if not names or not _said(example_words, names) or _said(new_words, names):
            continue
        if "when" in new_words and names & _TEMPORAL:
            continue  # "when" asks for the year the example names
        if group is not None and any(not _said(sorted(m.lemmas), names) for m in group.others):
            continue  # a paraphrase of the example's query is worded without it
        word = next(w for w in example_words if w != _MASK and _names(w, names))
        return [f"the example's query returns {column}, which only the example's words ask for "
                f"(\u201c{word}\u201d); your question does not ask for it"]
    return []


def _entity(column: str, names: set[str], tables: set[str]) -> str:
    """The table an output column stands for: the table its name says (``writes.authorid`` ->
    author), else its own (``paper.year`` -> paper)."""
    named = sorted(names & tables) or sorted({t for t in tables for n in names if len(t) > 3 and n.endswith(t)})
    return named[0] if len(named) == 1 else column.split(".")[0]  # citedpaperid -> paper


def _valued_tables(tree: exp.Expression) -> set[str]:
    """Tables (lemmas of their names) with a column compared with a literal: the question names
    their rows by a value."""
    from sqlgenie.inference.verify import lemma

    alias = {t.alias_or_name.lower(): t.name.lower() for t in tree.find_all(exp.Table)}
    out = set()
    for cmp in tree.find_all(exp.EQ, exp.NEQ, exp.In, exp.Like, exp.ILike, exp.GT, exp.GTE, exp.LT, exp.LTE):
        col = cmp.this if isinstance(cmp.this, exp.Column) else None
        if col is None or not any(isinstance(x, exp.Literal) for x in cmp.find_all(exp.Literal)):
            continue
        table = alias.get((col.table or "").lower())
        if table is not None:
            out.add(lemma(table))
    return out


def named_outputs(tree: exp.Expression, catalog: Any = None) -> list[tuple[Any, set[str], str]]:
    """``(column, names, entity)`` per output of a query returning two or more ([] otherwise): the entity
    is the table (of the catalog or the query) an output names (:func:`_entity`)."""
    outs = output_names(tree, catalog)
    if len(outs) < 2:
        return []
    tables = _table_lemmas(tree, catalog)
    return [(column, names, _entity(column, names, tables)) for column, names in outs]


def _table_lemmas(tree: exp.Expression, catalog: Any = None) -> set[str]:
    """The lemmas of the catalog's tables and of the tables ``tree`` reads."""
    from sqlgenie.inference.verify import lemma

    tables = {lemma(t.name.lower()) for t in getattr(catalog, "tables", ()) or ()}
    return tables | {lemma(t.name.lower()) for t in tree.find_all(exp.Table)}


def unasked_entity(tree: exp.Expression, example_words: Sequence[str], new_words: Sequence[str],
                   catalog: Any = None) -> list[str]:
    """See module doc."""
    ents = named_outputs(tree, catalog)
    if not ents:
        return []
    tables = _table_lemmas(tree, catalog)
    valued = _valued_tables(tree)  # "papers by X": X names an author by its value
    asked = {e for _, names, e in ents if _said(new_words, names | {e})}
    if not asked:
        return []
    for column, names, e in ents:
        if e in asked or e in valued or column.split(".")[0] in valued or not (names & tables) or \
                _said(new_words, names | {e}) or _said(example_words, names | {e}):
            continue
        return [f"the query returns {column} next to what you ask for, which no word of either question asks for"]
    return []


def output_entities(tree: exp.Expression, catalog: Any = None) -> set[str]:
    """The tables (lemmas) the plain columns of the outer projection stand for (:func:`_entity`)."""
    from sqlgenie.inference.verify import lemma

    tables = {lemma(t.name.lower()) for t in getattr(catalog, "tables", ()) or ()}
    tables |= {lemma(t.name.lower()) for t in tree.find_all(exp.Table)}
    return {_entity(column, names, tables) for column, names in output_names(tree, catalog)}


def output_features(tree: exp.Expression, catalog: Any = None) -> set[str]:
    """What the outer projection returns, for :class:`AnswerHeads`: each plain column's entity
    (``entity:paper``) and, with :data:`HEAD_COLUMNS`, the words naming it (``name:title``)."""
    from sqlgenie.inference.verify import lemma

    tables = {lemma(t.name.lower()) for t in getattr(catalog, "tables", ()) or ()}
    tables |= {lemma(t.name.lower()) for t in tree.find_all(exp.Table)}
    out = set()
    for column, names in output_names(tree, catalog):
        out.add("entity:" + _entity(column, names, tables))
        if HEAD_COLUMNS:
            out |= {"name:" + n for n in names if n not in tables or n == _entity(column, names, tables)}
    return out


class AnswerHeads:
    """What the verified bank answers a question's answer head with: for a head word, the tables
    its questions' queries return (:func:`output_entities`) in at least :data:`MIN_SHARE` of at
    least :data:`MIN_USES` uses ("topics" -> keyphrase, when the catalog has no such synonym).
    Read per word on first use, from the bank in the retriever's scope."""

    MIN_USES = 3
    MIN_SHARE = 0.8
    SAMPLE = 200

    def __init__(self, store: Any, allowed: Any, catalog: Any, schema_word: Any, stamp: Any) -> None:
        self.store, self.allowed, self.catalog = store, allowed, catalog
        self.schema_word, self.stamp = schema_word, stamp
        self.cache: dict[str, frozenset[str]] = {}

    def marks(self, head: str) -> frozenset[str]:
        got = self.cache.get(head)
        if got is not None:
            return got
        import re
        from collections import Counter

        from sqlgenie.autocorrect.base import parse_sql
        from sqlgenie.inference.adapt import Span
        from sqlgenie.inference.verify import question_roles, verified_rows

        rows = verified_rows(self.store, self.allowed, "masked_question, mask_spans, sql", "masked_question ~* %s",
                             [r"\m" + re.escape(head)], self.SAMPLE)
        uses, tables = 0, Counter()
        for masked, spans, sql in rows:
            roles = question_roles(masked, [Span.of(x).cls for x in (spans or [])], self.schema_word)
            if not roles.heads or roles.heads[0] != head or roles.count:
                continue
            try:
                found = output_features(parse_sql(sql), self.catalog)
            except Exception:
                continue
            if found:
                uses += 1
                tables.update(found)
        marked = frozenset(t for t, n in tables.items() if n >= self.MIN_SHARE * uses) \
            if uses >= self.MIN_USES else frozenset()
        self.cache[head] = marked
        return marked


class _LazyHeads(LazyBankModel):
    """:class:`AnswerHeads` of the retriever's scope, resolved on the first look-up (most
    candidates never need one) and kept on the retriever until its verified bank changes."""

    def __init__(self, retriever: Any, catalog: Any, schema_word: Any) -> None:
        super().__init__(retriever, "_answer_heads",
                         lambda store, allowed, stamp: AnswerHeads(store, allowed, catalog, schema_word, stamp))

    def marks(self, head: str) -> frozenset[str]:
        model = self.get()
        return model.marks(head) if model is not None else frozenset()


def answer_heads(retriever: Any, catalog: Any, schema_word: Any) -> Any:
    """What the bank answers each answer head with (:class:`AnswerHeads`), looked up lazily."""
    return _LazyHeads(retriever, catalog, schema_word)


def foreign_answer_head(tree: exp.Expression, example_masked: str, new_masked: str, heads: Any,
                        catalog: Any = None, schema_word: Any = None, group: Any = None) -> list[str]:
    """See module doc."""
    from sqlgenie.inference.verify import lemma, question_roles

    if heads is None:
        return []
    ex = question_roles(example_masked, None, schema_word)
    new = question_roles(new_masked, None, schema_word)
    if not new.heads or new.count or ex.count:
        return []
    head = new.heads[0]
    said = {lemma(w) for w in ex.words} - {lemma(w) for w in ex.owner}  # "the name OF X's paper" asks no paper
    if head in ex.heads or head in said or (group is not None and group.word_added_ok(head)):
        return []
    if new.owner or (ex.heads and ex.heads[0] in {lemma(w) for w in new.words}):
        return []  # "types OF ground transport" asks about its "of" phrase; a question naming the example's thing
    shown = output_features(tree, catalog)
    if not shown:
        return []
    marked = heads.marks(head)
    if not marked or (marked <= shown if HEAD_COLUMNS else marked & shown):
        return []
    want = sorted(m.split(":", 1)[1] for m in marked - shown)
    got = sorted({f.split(":", 1)[1] for f in shown})
    return [f"in the verified examples \u201c{head}\u201d asks for {', '.join(want)} rows, but this example's "
            f"query returns {', '.join(got)} rows"]


def _by_targets(words: Sequence[str], schema_word: Any) -> set[str]:
    """Schema words right after "by" that are no value ("by year", not "by #" or "by year #")."""
    from sqlgenie.inference.verify import lemma

    out = set()
    for k, w in enumerate(words[:-1]):
        if w != "by":
            continue
        nxt = words[k + 1]
        if nxt == _MASK or (k + 2 < len(words) and words[k + 2] == _MASK):
            continue
        if schema_word is not None and (schema_word(nxt) or schema_word(lemma(nxt))):
            out.add(lemma(nxt))
    return out


def unasked_by_grouping(tree: exp.Expression, example_words: Sequence[str], new_words: Sequence[str],
                        schema_word: Any = None, group: Any = None) -> list[str]:
    """See module doc."""
    from sqlgenie.inference.verify import lemma

    said = {lemma(w) for w in example_words}
    added = {w for w in _by_targets(new_words, schema_word) if w not in said}
    if group is not None:
        added = {w for w in added if not group.word_added_ok(w)}
    if not added:
        return []
    if any(sel.args.get("group") is not None for sel in tree.find_all(exp.Select)):
        return []
    return [f"your question asks for the answer by {sorted(added)[0]}; the example's query groups nothing"]


def findings(adapted: Any, example_masked: str, new_masked: str, *, catalog: Any = None, group: Any = None,
             schema_word: Any = None, heads: Any = None) -> Iterator[tuple[str, list[str]]]:
    """(rule, reasons) of every switched-on rule, lazily, in the order they are tried."""
    from sqlgenie.inference.verify import tokens

    if example_masked.strip().lower() == new_masked.strip().lower():
        return  # the same wording asks the same query
    tree = adapted.tree
    if tree is None:
        return
    ex_words, new_words = tokens(example_masked), tokens(new_masked)
    if ANSWER_WORD:
        yield "dropped answer word", dropped_answer_word(tree, ex_words, new_words, catalog, group)
    if ENTITY:
        yield "unasked entity", unasked_entity(tree, ex_words, new_words, catalog)
    if HEAD:
        yield "foreign answer head", foreign_answer_head(tree, example_masked, new_masked, heads, catalog,
                                                         schema_word, group)
    if BY_GROUPING:
        yield "unasked grouping", unasked_by_grouping(tree, ex_words, new_words, schema_word, group)


def check_candidate(adapted: Any, example_masked: str, new_masked: str, *, catalog: Any = None,
                    group: Any = None, schema_word: Any = None, heads: Any = None) -> Any:
    """Run this module's refusals on one verified adaptation (changed in place, like
    :func:`sqlgenie.inference.other_query.check_candidate`): the first rule that finds a reason
    refuses it. Returns ``adapted``."""
    return refuse_first(adapted, findings(adapted, example_masked, new_masked, catalog=catalog, group=group,
                                          schema_word=schema_word, heads=heads))
