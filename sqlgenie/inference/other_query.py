"""Another query: refusals for a question that asks another query than its example's, worded
so close that every earlier check lets it through (issue 13, helper matchw).

On the templated splits most of the match route's wrong answers left were answers to questions
of *novel* templates: the nearest example is a paraphrase of another query, and the two
questions differ by one part that changes which query is meant. Each rule here reads that part
off the two masked questions and the adapted SQL's AST (closed classes of English words and the
catalog's own tables and joins, never a word list from a test set):

* :func:`time_for_thing` - the example asks *when* and its query answers with a time only,
  aggregates of a time included (``MAX(year)`` for "When was the last time X published a
  paper?"); the question asks *what / which* thing and names no time ("What was X's latest
  paper?"). :func:`.counterparts.kind_mismatch` refuses the same for a bare time column; a
  ``MAX`` / ``MIN`` of one slipped through.
* :func:`unranked_superlative` - the question says a ranking word ("top", "most", "highest",
  a superlative), the example says none and no paraphrase of the example's query says it,
  and the adapted SQL ranks nothing: no ORDER BY, no LIMIT, no MAX / MIN ("semantic parsing
  *top* papers" answered with all of them).
* :func:`reversed_relation` - a verb that names a table holding two references to one other
  table's column (``cite``: ``citingpaperid`` and ``citedpaperid``), so it can be read in two
  directions; in the example the question's value is the verb's subject ("which papers has X
  *cited* the most"), in the question the value is on the other side ("the most *cited* paper of
  X": the verb said of X's papers with no agent, or "papers that *cite* X"), or the other way
  round. The adapted query would keep the example's direction. "*cited* papers *by* X" has no
  direction (the bank reads it both ways: X cites them, or X wrote them), and a table with a
  column of its own name (``flight_id``, ``airport_code``) is a thing, not a relation.
* :func:`value_place` - a text value the question puts after a word that the verified bank ties
  to one column (\u2265 80 %, \u2265 3 uses: "*at* X" is a venue), where the example's counterpart
  has another word and its query compares the value with another column, and the value cache
  finds the value in the word's column too ("papers published *at* SIGMOD 2000" from "papers
  written *on* question answering in 2016": SIGMOD is a venue and a keyphrase). A value only one
  column holds is placed by the value cache, whatever the word ("papers *on* ImageNet").
* :func:`dropped_comparison` - the example chooses among the things asked by a comparative or a
  superlative ("Which is *easier* between A and B?": ``workload = (SELECT MIN(...))``), the
  question says none ("What's the difference between A and B?") and the adapted SQL still ranks.
* :func:`dropped_only` - the example says "only" ("What classes are *only* available in the
  Spring?": offered in no other term) and its query restricts through a subquery or a negation;
  the question does not say it ("Which classes are available this Spring?").
* :func:`asker_dropped` - the example asks about the asker ("what prerequisites have *I*
  fulfilled") and its query reads the asker's own rows (``student_id = 1``); the question says
  nothing about the asker ("what are the prerequisites").

Words "the example drops" are licensed when a paraphrase of the example's query (its skeleton
group, :mod:`sqlgenie.inference.groups`) drops them too, and words the question adds when one says
them. Tried and not kept: frequency adverbs as ranking words (:data:`FREQUENCY`: "who *usually*
teaches X" ranks, "where does X *typically* publish" does not).

Every refusal is a sentence; :data:`REASON_CODES` gives its ``reason_code``. Each rule has a
switch for A/B runs.
"""

from __future__ import annotations

from typing import Any, Iterator, Sequence

from sqlglot import exp

from sqlgenie.inference.adapt import Span
from sqlgenie.inference.refusals import code_of, refuse_first
from sqlgenie.inference.verify import LazyBankModel

__all__ = [
    "REASON_CODES",
    "ValueColumns",
    "asker_dropped",
    "check_candidate",
    "dropped_comparison",
    "dropped_only",
    "findings",
    "reason_code",
    "reversed_relation",
    "time_for_thing",
    "two_role_tables",
    "unranked_superlative",
    "value_place",
    "value_places",
    "value_roles",
]

#: reason_code of each refusal of this module, by a phrase of its sentence.
REASON_CODES = {
    "the example asks when and its query answers with a time": "answer kind",
    "but the adapted query ranks nothing": "unanswered ranking",
    "reads it the other way round": "relation direction",
    "which in the examples puts a value in": "value place",
    "your question does not ask to choose": "dropped comparison",
    "your question does not say only": "dropped only",
    "its query reads your own records": "dropped asker",
}

#: switches (benchmarks turn one rule off at a time)
TIME_FOR_THING = True
SUPERLATIVE = True
RELATION = True
PLACE = True
COMPARISON = True
FREQUENCY = False  # tried, not kept: "typically publish" asks for no ranking (scholar seed 7), "usually taught" does
ONLY = True
ASKER = True

_TEMPORAL = frozenset("year years date dates time times day days month months semester semesters term terms "
                      "quarter hour hours week weeks when".split())
#: ranking words (closed class: superlative determiners and "top"); any other superlative in -est
_RANKING = frozenset("top most least fewest highest lowest largest smallest biggest greatest best worst "
                     "latest earliest newest oldest maximum minimum".split())
#: frequency adverbs: "who *usually* teaches X" asks for the most frequent (closed class of English)
_FREQUENCY = frozenset("usually usual typically typical commonly mostly frequently often generally".split())
#: comparatives that choose between the things asked ("which is *easier*"): common comparative adjectives,
#: and any "-ier" form
_COMPARATIVES = frozenset("easier harder more less fewer better worse higher lower larger smaller bigger greater "
                          "longer shorter cheaper later earlier newer older heavier lighter".split())
#: the asker in person (closed class of English pronouns)
_FIRST_PERSON = frozenset("i me my mine myself i've i'm i'd i'll".split())
_NOT_SUPERLATIVE = frozenset("interest request forest suggest contest honest harvest manifest protest modest "
                             "digest invest arrest earnest".split())
_AUX = frozenset("has have had did does do is are was were will would can could".split())


def reason_code(reason: str) -> str | None:
    return code_of(reason, REASON_CODES)


# --------------------------------------------------------------------------- a time for a thing


def _time_only_answer(tree: exp.Expression, catalog: Any) -> bool:
    """Every item of the outer projection is a time column or a MAX / MIN of one."""
    from sqlgenie.inference.precision import _column_info, _temporal_name, answer_items

    answer = answer_items(tree)
    if answer is None or not answer[0]:
        return False
    items, tables = answer
    for e in items:
        agg = e.find(exp.AggFunc)
        if agg is not None and not isinstance(agg, (exp.Max, exp.Min)):
            return False
        cols = list(e.find_all(exp.Column))
        if not cols:
            return False
        for col in cols:
            info = _column_info(col, tables, catalog)
            if not ((info is not None and info.family == "temporal") or _temporal_name(col.name)):
                return False
    return True


def time_for_thing(tree: exp.Expression, example_words: Sequence[str], new_words: Sequence[str],
                   catalog: Any) -> list[str]:
    """See module doc."""
    if not example_words or not new_words or example_words[0] != "when":
        return []
    if new_words[0] not in ("what", "which") or any(w in _TEMPORAL for w in new_words):
        return []
    if not _time_only_answer(tree, catalog):
        return []
    return ["the two questions ask for different kinds of answer: yours asks what, "
            "the example asks when and its query answers with a time"]


# --------------------------------------------------------------------------- an unranked superlative


def _ranking_words(words: Sequence[str]) -> list[str]:
    out = []
    for k, w in enumerate(words):
        if k and words[k - 1] == "at" and w in ("most", "least"):
            continue  # "at most 5": a comparison
        superlative = len(w) > 5 and w.endswith("est") and w not in _NOT_SUPERLATIVE
        if w in _RANKING or (FREQUENCY and w in _FREQUENCY) or superlative:
            out.append(w)
    return out


def _comparing_words(words: Sequence[str]) -> list[str]:
    """Superlatives and comparatives ("easiest", "easier", "the most") of a question (not "at most 5",
    not "more than 5": a comparison with a value)."""
    out = []
    for k, w in enumerate(words):
        if k and words[k - 1] == "at" and w in ("most", "least"):
            continue
        if k + 1 < len(words) and words[k + 1] == "than" and "#" in words[k + 2:k + 4]:
            continue  # "more than 5": a comparison with a value ("harder than the rest" still chooses)
        if "#" in words[max(0, k - 2):k] and k and words[k - 1] == "or":
            continue  # "2 or more"
        if w in _RANKING or w in _COMPARATIVES or (len(w) > 5 and w.endswith("est") and w not in _NOT_SUPERLATIVE) \
                or (len(w) > 5 and w.endswith("ier")):
            out.append(w)
    return out


def _ranks(tree: exp.Expression) -> bool:
    """The query orders, limits or takes a MAX / MIN over all its rows, anywhere (a subquery
    included); a MAX / MIN per group is no ranking (``MIN(name)`` picks one value of each group)."""
    for sel in tree.find_all(exp.Select):
        if sel.args.get("order") is not None or sel.args.get("limit") is not None:
            return True
    for agg in (*tree.find_all(exp.Max), *tree.find_all(exp.Min)):
        sel = agg.find_ancestor(exp.Select)
        if sel is not None and sel.args.get("group") is None:
            return True
    return False


def unranked_superlative(tree: exp.Expression, example_words: Sequence[str], new_words: Sequence[str],
                         group: Any = None) -> list[str]:
    """See module doc."""
    from sqlgenie.inference.verify import lemma

    if _ranking_words(example_words):
        return []  # the example ranks in words too ("largest" / "greatest"): the verification compares them
    said = set(example_words) | {lemma(w) for w in example_words}
    added = [w for w in _ranking_words(new_words) if w not in said and lemma(w) not in said]
    if group is not None:
        added = [w for w in added if not group.word_added_ok(w)]
    if not added or _ranks(tree):
        return []
    return [f"your question says \u201c{added[0]}\u201d, but the adapted query ranks nothing"]


def dropped_comparison(tree: exp.Expression, example_words: Sequence[str], new_words: Sequence[str],
                       group: Any = None) -> list[str]:
    """See module doc: the example chooses among the things asked ("Which is *easier* between A and
    B?": ``workload = (SELECT MIN(...))``), the question says no such word ("What's the difference
    between A and B?") and no paraphrase of the example's query drops it, and the adapted SQL still
    ranks (ORDER BY, LIMIT, MAX / MIN)."""
    if _comparing_words(new_words) or not _ranks(tree):
        return []
    said = set(new_words)
    dropped = sorted({w for w in _comparing_words(example_words) if w not in said})
    if not dropped or (group is not None and group.removed_ok(set(dropped))):
        return []
    return [f"the example says \u201c{dropped[0]}\u201d and its query keeps only the first of a ranking; "
            "your question does not ask to choose"]


def _restricting(tree: exp.Expression) -> bool:
    """A condition on a subquery (``(SELECT COUNT(DISTINCT ...) ...) = 1``, ``NOT IN (SELECT ...)``)
    or a negated comparison: what "only" turns into."""
    from sqlgenie.inference.unasked_parts import _negated_comparisons

    if _negated_comparisons(tree):
        return True
    for sel in tree.find_all(exp.Select):
        where = sel.args.get("where")
        if where is not None and any(isinstance(q.parent, (exp.EQ, exp.NEQ, exp.GT, exp.LT, exp.GTE, exp.LTE,
                                                           exp.In, exp.Paren))
                                     for q in where.find_all(exp.Subquery)):
            return True
    return False


def dropped_only(tree: exp.Expression, example_words: Sequence[str], new_words: Sequence[str],
                 group: Any = None) -> list[str]:
    """See module doc: "What classes are *only* available in the Spring?" restricts to the classes
    offered in no other term; "Which classes are available this Spring?" does not."""
    if "only" not in example_words or "only" in new_words or not _restricting(tree):
        return []
    if group is not None and group.removed_ok({"only"}):
        return []
    return ["the example says \u201conly\u201d and its query excludes what is also true of something else; "
            "your question does not say only"]


def _asker_constant(tree: exp.Expression) -> bool:
    """A comparison of a key-like column (``student_id``) with a number no value produced: the asker's
    own rows in a personal database (``student_record.student_id = 1``)."""
    for eq in tree.find_all(exp.EQ):
        col, lit = eq.this, eq.expression
        if isinstance(lit, exp.Column) and isinstance(col, exp.Literal):
            col, lit = lit, col
        if isinstance(col, exp.Column) and isinstance(lit, exp.Literal) and not lit.is_string and \
                col.name.lower().endswith("_id"):
            return True
    return False


def asker_dropped(tree: exp.Expression, example_words: Sequence[str], new_words: Sequence[str],
                  group: Any = None) -> list[str]:
    """See module doc: the example asks about the asker ("what prerequisites have *I* fulfilled")
    and its query reads the asker's own rows (``student_id = 1``), the question says nothing about
    the asker and no paraphrase of the example's query drops it."""
    said = [w for w in example_words if w in _FIRST_PERSON]
    if not said or any(w in _FIRST_PERSON for w in new_words) or not _asker_constant(tree):
        return []
    if group is not None and group.removed_ok(set(said)):
        return []
    return [f"the example asks about you (\u201c{said[0]}\u201d) and its query reads your own records; "
            "your question does not"]


# --------------------------------------------------------------------------- a reversed relation


def two_role_tables(tree: exp.Expression, catalog: Any) -> dict[str, set[str]]:
    """Tables the SQL reads that hold two references to one other table's column, read off the
    column names (``cite.citingpaperid`` and ``cite.citedpaperid`` both end in ``paperid``, a column
    of ``paper``; ``course_prerequisite.pre_course_id`` and ``course_id``), with the verb forms of
    their name (``cite``: cite, cites, cited, citing). A table with a column of its own name
    (``flight.flight_id``, ``airport.airport_code``) is a thing, not a relation, whatever two of its
    columns reference. Names,
    not the catalog's joins: on a small dump the joins of such a table are often left unconfirmed."""
    if catalog is None:
        return {}
    schemas = {t.db.lower() for t in tree.find_all(exp.Table) if t.db}
    tables = [t for t in catalog.tables if not schemas or t.schema.lower() in schemas]
    read = {t.name.lower() for t in tree.find_all(exp.Table)}
    out: dict[str, set[str]] = {}
    for info in tables:
        name = info.name.lower()
        if name not in read or "_" in name or len(name) < 4:
            continue  # a verb names one-word tables only ("cite", "writes")
        own = [c.name.lower() for c in info.columns]
        base = name[:-1] if name.endswith("s") and not name.endswith("ss") else name
        if any(c == base or c.startswith(base + "_") or c in (base + "id", base + "name", base + "code") for c in own):
            continue  # a thing with columns of its own name ("flight_id", "airport_code"), not a relation
        others = {c.name.lower() for t in tables if t.name.lower() != name for c in t.columns}
        if not any(len(x) >= 4 and sum(1 for c in own if c.endswith(x)) >= 2 for x in others):
            continue
        stem = base[:-1] if base.endswith("e") else base
        out[name] = {base, base + "s", stem + "ed", stem + "ing"}
    return out


def value_roles(words: Sequence[str], forms: set[str]) -> tuple[set[int], set[int], bool]:
    """For a question's tokens (values as ``#``) and the forms of one verb: the values that are
    its subject or agent ("X cites", "has X cited", "X's papers cite", "cited by X"), the values
    it takes as object ("cite X", "citing X"), and whether the verb is said of something with
    no agent ("the most cited paper of X", "papers that are cited")."""
    values = [k for k, w in enumerate(words) if w == "#"]
    index = {k: n for n, k in enumerate(values)}
    agents: set[int] = set()
    objects: set[int] = set()
    agentless = False
    n = len(words)
    for i, w in enumerate(words):
        if w not in forms:
            continue
        before = words[i - 1] if i else ""
        if w.endswith("ed") and i + 2 < n and words[i + 1] == "by" and words[i + 2] == "#":
            agents.add(index[i + 2])  # "cited by X"
            continue
        if w.endswith("ed") and any(words[p] == "by" and words[p + 1] == "#" for p in range(i + 2, min(i + 4, n - 1))):
            continue  # "cited papers by X": X cites them or wrote them (the bank says both): no direction
        if before == "#" and not w.endswith("ing"):
            agents.add(index[i - 1])  # "papers X cited", "X cites"
        elif i >= 3 and words[i - 3] == "#" and words[i - 2] == "s" and not w.endswith("ed"):
            agents.add(index[i - 3])  # "X 's papers cite"
        elif i >= 2 and words[i - 2] in _AUX and words[i - 1] == "#":
            agents.add(index[i - 1])  # "has X cited"
        elif w.endswith("ed"):
            agentless = True  # "the most cited paper of X", "papers that are cited"
        if not w.endswith("ed") and i + 1 < n and words[i + 1] == "#":
            objects.add(index[i + 1])  # "cite X", "citing X"
    return agents, objects, agentless


def _pairing(example_spans: Sequence[Any], new_spans: Sequence[Any], pairs: Sequence[tuple[str, str]] | None
             ) -> dict[int, int] | None:
    """Example value index -> question value index, from adaptation's pairs (texts); by position
    when there are no pairs and the counts agree."""
    from sqlgenie.inference.adapt import Span, norm_text

    ex = [norm_text(Span.of(x).text) for x in example_spans]
    new = [norm_text(Span.of(x).text) for x in new_spans]
    if not pairs:
        return {k: k for k in range(len(ex))} if len(ex) == len(new) else None
    out: dict[int, int] = {}
    for a, b in pairs:
        a, b = norm_text(a), norm_text(b)
        i = next((k for k, t in enumerate(ex) if t == a and k not in out), None)
        j = next((k for k, t in enumerate(new) if t == b and k not in out.values()), None)
        if i is not None and j is not None:
            out[i] = j
    return out


def reversed_relation(tree: exp.Expression, example_masked: str, example_spans: Sequence[Any], new_masked: str,
                      new_spans: Sequence[Any], pairs: Sequence[tuple[str, str]] | None, catalog: Any) -> list[str]:
    """See module doc."""
    from sqlgenie.inference.verify import tokens

    tables = two_role_tables(tree, catalog)
    if not tables:
        return []
    ex_words, new_words = tokens(example_masked), tokens(new_masked)
    if ex_words.count("#") != len(example_spans) or new_words.count("#") != len(new_spans):
        return []
    pairing = _pairing(example_spans, new_spans, pairs)
    if pairing is None:
        return []
    for table, forms in sorted(tables.items()):
        if not any(w in forms for w in ex_words) or not any(w in forms for w in new_words):
            continue  # a verb both questions say (one saying it alone is table_stems' business)
        ex_a, ex_o, ex_free = value_roles(ex_words, forms)
        new_a, new_o, new_free = value_roles(new_words, forms)
        ex_a = {pairing[i] for i in ex_a if i in pairing}
        ex_o = {pairing[i] for i in ex_o if i in pairing}
        verb = next(w for w in new_words if w in forms)
        if (ex_a & new_o) or (ex_a and not new_a and new_free):
            side = "in the example the value is the one that does it, in your question the one it is done to"
        elif (ex_o & new_a) or (new_a and not ex_a and ex_free):
            side = "in your question the value is the one that does it, in the example the one it is done to"
        else:
            continue
        return [f"\u201c{verb}\u201d links two rows of one kind ({table}); {side}, so the adapted query "
                "reads it the other way round"]
    return []


# --------------------------------------------------------------------------- a value put in another place


def _span_columns(sql: str, spans: Sequence[Any], catalog: Any) -> list[frozenset[str]] | None:
    """Per span of a bank question, the columns (``table.column``) its SQL compares that value with."""
    key = (id(catalog), sql, tuple((Span.of(s).start, Span.of(s).end, Span.of(s).text) for s in spans))
    if key in _COLUMNS_CACHE:
        return _COLUMNS_CACHE[key]
    from sqlgenie.inference.adapt import example_alignment

    try:
        slots, alignment = example_alignment(sql, spans, catalog)  # read once per text and catalog (read only)
        spans_ = alignment.spans
        out: list[frozenset[str]] | None = [
            frozenset(".".join(slots[b.slot].column.lower().split(".")[-2:])
                      for b in alignment.of_span(i) if slots[b.slot].column)
            for i in range(len(spans_))]
    except Exception:
        out = None
    if len(_COLUMNS_CACHE) > 20000:
        _COLUMNS_CACHE.clear()
    _COLUMNS_CACHE[key] = out
    return out


_COLUMNS_CACHE: dict[tuple, list[frozenset[str]] | None] = {}
_ARTICLES = frozenset({"the", "a", "an"})


def _prev_words(masked: str, n: int) -> list[frozenset[str]] | None:
    """Per value of ``masked``: ``prev:<word>`` for the word right before it (articles skipped; none
    when another value stands there: in "at SIGMOD 2000" the word is SIGMOD's, not the year's);
    None when the masks do not line up with ``n`` spans."""
    from sqlgenie.inference.verify import tokens

    words = tokens(masked)
    masks = [k for k, w in enumerate(words) if w == "#"]
    if len(masks) != n:
        return None
    out = []
    for k in masks:
        j = k - 1
        while j >= 0 and words[j] in _ARTICLES:
            j -= 1
        out.append(frozenset({"prev:" + words[j]}) if j >= 0 and words[j][0].isalpha() else frozenset())
    return out


class ValueColumns:
    """Per word right before a value (``prev:at``), the columns the verified bank in scope compares
    the values it precedes with; looked up on demand (a regex on the stored masked questions, at most
    :attr:`SAMPLE` rows per word) and cached until the bank changes (like
    :class:`sqlgenie.inference.sides.ValueSides`, whose sides are join edges, not columns)."""

    MIN_USES = 3
    MIN_SHARE = 0.8
    SAMPLE = 40

    def __init__(self, store: Any, allowed: Any, catalog: Any, stamp: Any = None) -> None:
        self.store, self.allowed, self.catalog, self.stamp = store, allowed, catalog, stamp
        self.cache: dict[str, frozenset[str]] = {}

    def marks(self, feature: str) -> frozenset[str]:
        """The columns ``feature`` consistently marks (empty when none)."""
        if feature in self.cache:
            return self.cache[feature]
        import re
        from collections import Counter

        from sqlgenie.inference.verify import verified_rows

        word = feature.split(":", 1)[1]
        pattern = r"\m" + re.escape(word) + r"\s+((the|a|an)\s+)?\[MASK\]"
        rows = verified_rows(self.store, self.allowed, "masked_question, mask_spans, sql", "masked_question ~* %s",
                             [pattern], self.SAMPLE)
        uses, columns = 0, Counter()
        for masked, spans, sql in rows:
            spans = spans or []
            feats = _prev_words(masked, len(spans))
            per_span = _span_columns(sql, spans, self.catalog) if feats is not None else None
            if per_span is None or len(per_span) != len(feats):
                continue
            for f, found in zip(feats, per_span):
                if feature in f and found:
                    uses += 1
                    columns.update(found)
        marked = frozenset(c for c, n in columns.items() if n >= self.MIN_SHARE * uses) \
            if uses >= self.MIN_USES else frozenset()
        self.cache[feature] = marked
        return marked


class _LazyColumns(LazyBankModel):
    """:class:`ValueColumns` resolved on the first look-up (most candidates never need one)."""

    def __init__(self, retriever: Any, catalog: Any) -> None:
        super().__init__(retriever, "_matchw_columns",
                         lambda store, allowed, stamp: ValueColumns(store, allowed, catalog, stamp))

    def marks(self, feature: str) -> frozenset[str]:
        model = self.get()
        return model.marks(feature) if model is not None else frozenset()


def value_places(retriever: Any, catalog: Any) -> Any:
    """The words-to-columns model of the retriever's scope, looked up lazily (see :class:`ValueColumns`)."""
    return _LazyColumns(retriever, catalog)


def value_place(example_sql: str, example_masked: str, example_spans: Sequence[Any], new_masked: str,
                new_spans: Sequence[Any], pairs: Sequence[tuple[str, str]] | None, model: Any,
                catalog: Any, holders: Any = None) -> list[str]:
    """See module doc: a text value the question puts after a word that the bank ties to one
    column (\u2265 80 %, \u2265 3 uses), where the example's counterpart has another word and its
    query compares the value with another column ("papers published *at* SIGMOD" from "papers
    written *on* question answering": a venue, not a keyphrase). Only for a value that the value
    cache (``holders(text) -> {"schema.table.column"}``) finds in that column too: a value one
    column holds is placed by the cache ("papers on ImageNet" is a dataset whatever "on" says)."""
    if model is None:
        return []
    ex_feats = _prev_words(example_masked, len(example_spans))
    new_feats = _prev_words(new_masked, len(new_spans))
    pairing = _pairing(example_spans, new_spans, pairs)
    if ex_feats is None or new_feats is None or not pairing:
        return []
    per_span = _span_columns(example_sql, example_spans, catalog)
    if per_span is None:
        return []
    for i, j in sorted(pairing.items()):
        if Span.of(new_spans[j]).cls != "text" or not per_span[i]:
            continue
        for feature in sorted(f for f in new_feats[j] - ex_feats[i] if f.startswith("prev:")):
            marked = model.marks(feature)
            if not marked or marked & per_span[i]:
                continue
            value = Span.of(new_spans[j]).text
            held = {".".join(c.lower().split(".")[-2:]) for c in (holders(value) if holders is not None else ())}
            if not (held & marked):
                continue  # the value is not one of the marked column's: the word cannot move it there
            return [f"your question has \u201c{feature[5:]}\u201d before {value!r}, which in the examples puts a "
                    f"value in {sorted(marked)[0]}, but this example's query puts {value!r} in "
                    f"{sorted(per_span[i])[0]}"]
    return []


# --------------------------------------------------------------------------- the rules together


def findings(adapted: Any, example_sql: str, example_masked: str, example_spans: Sequence[Any], new_masked: str,
             new_spans: Sequence[Any], *, catalog: Any = None, group: Any = None, columns: Any = None,
             holders: Any = None) -> Iterator[tuple[str, list[str]]]:
    """(rule, reasons) of every switched-on rule, lazily, in the order they are tried."""
    from sqlgenie.inference.verify import tokens

    if example_masked.strip().lower() == new_masked.strip().lower():
        return  # the same wording asks the same query
    tree = adapted.tree
    ex_words, new_words = tokens(example_masked), tokens(new_masked)
    if TIME_FOR_THING:
        yield "answer kind", time_for_thing(tree, ex_words, new_words, catalog)
    if SUPERLATIVE:
        yield "unanswered ranking", unranked_superlative(tree, ex_words, new_words, group)
    if COMPARISON:
        yield "dropped comparison", dropped_comparison(tree, ex_words, new_words, group)
    if ONLY:
        yield "dropped only", dropped_only(tree, ex_words, new_words, group)
    if ASKER:
        yield "dropped asker", asker_dropped(tree, ex_words, new_words, group)
    if RELATION:
        yield "relation direction", reversed_relation(tree, example_masked, example_spans, new_masked, new_spans,
                                                      getattr(adapted, "pairs", None), catalog)
    if PLACE:
        yield "value place", value_place(example_sql, example_masked, example_spans, new_masked, new_spans,
                                         getattr(adapted, "pairs", None), columns, catalog, holders)


def check_candidate(adapted: Any, example_sql: str, example_masked: str, example_spans: Sequence[Any],
                    new_masked: str, new_spans: Sequence[Any], *, catalog: Any = None, group: Any = None,
                    columns: Any = None, holders: Any = None) -> Any:
    """Run this module's refusals on one verified adaptation (changed in place, like
    :func:`sqlgenie.inference.unasked_parts.check_candidate`): the first rule that finds a
    reason refuses it. Returns ``adapted``."""
    return refuse_first(adapted, findings(adapted, example_sql, example_masked, example_spans, new_masked, new_spans,
                                          catalog=catalog, group=group, columns=columns, holders=holders))
