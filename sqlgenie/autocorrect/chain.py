"""The autocorrector chain: deterministic fixes between generation and execution.

:func:`run_chain` applies, in this order (each switchable in
:class:`~sqlgenie.autocorrect.settings.AutocorrectSettings`):

1. **python spans** (:mod:`.python_spans`) — ``<python>…</python>`` is not SQL, so
   it must be evaluated before anything can parse the statement.
2. **identifier repair** (:mod:`.identifiers`) — every later pass resolves columns
   through the catalog; a misspelt table or column would make them skip the
   comparisons that use it.
3. **datatype matching** (:mod:`.types`) — turns ``code = 1300`` on a text column
   into ``code = '1300'``, so the value pass sees a string literal it can check; it
   must also see the repaired names.
4. **values** (:mod:`.values`) — needs resolved columns and string literals; runs
   before defaults so its changes concern the user's filters only.
5. **defaults** (:mod:`.defaults`) — mandatory columns and LIMIT change the shape
   of the result, not its filters: they come after every fix of the filters and
   see the final FROM clause.
6. **dummy test** (:mod:`.dummy`) — last, so it tests the SQL that will run;
   optional (needs a :class:`~sqlgenie.autocorrect.dummy.DummyTester`).

Each corrector is a pure function ``(tree, catalog, ...) -> (new_tree, changes)``
that copies its input. An error in one corrector is recorded in
``CorrectionResult.errors`` and the chain goes on with the tree it had (an
ambiguous identifier keeps the unique repairs made beside it). When nothing
changed, ``CorrectionResult.sql`` is the input text itself, not a regeneration.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from sqlglot import exp

from sqlgenie.autocorrect import defaults, identifiers, python_spans, types, values
from sqlgenie.autocorrect.base import Change, parse_sql, to_sql
from sqlgenie.autocorrect.dummy import DummyTester
from sqlgenie.autocorrect.resolve import Resolver
from sqlgenie.autocorrect.safe_eval import EvalLimits, SafeEvaluator
from sqlgenie.autocorrect.settings import AutocorrectSettings
from sqlgenie.autocorrect.values import ValueMatcher
from sqlgenie.catalog import Catalog
from sqlgenie.errors import SqlGenieError

__all__ = ["CHAIN_ORDER", "CorrectionResult", "run_chain"]

CHAIN_ORDER = ("python_spans", "identifiers", "datatypes", "values", "defaults", "dummy_test")


@dataclass
class CorrectionResult:
    sql: str
    ast: exp.Expression | None
    changes: list[Change] = field(default_factory=list)
    errors: list[SqlGenieError] = field(default_factory=list)
    timings_ms: dict[str, float] = field(default_factory=dict)

    @property
    def changed(self) -> bool:
        return bool(self.changes)

    @property
    def ok(self) -> bool:
        return not self.errors

    def to_dict(self) -> dict[str, Any]:
        return {
            "sql": self.sql,
            "changed": self.changed,
            "changes": [c.to_dict() for c in self.changes],
            "errors": [e.to_dict() for e in self.errors],
            "timings_ms": {k: round(v, 3) for k, v in self.timings_ms.items()},
        }


def _evaluator(settings: AutocorrectSettings) -> SafeEvaluator:
    limits = EvalLimits(
        max_chars=settings.eval_max_chars, max_nodes=settings.eval_max_nodes,
        max_abs_number=settings.eval_max_abs_number, max_str_len=settings.eval_max_str_len,
    )
    return SafeEvaluator(now=settings.now, limits=limits)


def run_chain(
    sql_or_ast: str | exp.Expression,
    catalog: Catalog,
    matcher: ValueMatcher | None,
    settings: AutocorrectSettings | None = None,
    question: str | None = None,
    *,
    dummy: DummyTester | None = None,
    owned: bool = False,
) -> CorrectionResult:
    """Run the correctors in :data:`CHAIN_ORDER` (see module doc).

    ``matcher`` may be None (no value correction). Parse errors of the input and
    errors of the correctors are returned in ``errors``, never raised. ``owned``: the
    caller hands a tree ``sql_or_ast`` over (never reads it again), so the chain rewrites
    it in place instead of a copy of it (the match route: its adapted tree is its own).
    """
    settings = settings or AutocorrectSettings()
    changes: list[Change] = []
    errors: list[SqlGenieError] = []
    timings: dict[str, float] = {}
    original_text = sql_or_ast if isinstance(sql_or_ast, str) else None

    def clock(name: str, start: float) -> None:
        timings[name] = timings.get(name, 0.0) + (time.perf_counter() - start) * 1000.0

    # 1. python spans (text level), then parse
    if isinstance(sql_or_ast, str):
        text = sql_or_ast
        if settings.python_spans:
            start = time.perf_counter()
            try:
                text, more = python_spans.replace_python_spans(text, _evaluator(settings))
                changes += more
            except SqlGenieError as exc:
                errors.append(exc)
                clock("python_spans", start)
                return CorrectionResult(sql_or_ast, None, changes, errors, timings)
            clock("python_spans", start)
        start = time.perf_counter()
        try:
            tree = parse_sql(text)
        except SqlGenieError as exc:
            errors.append(exc)
            return CorrectionResult(text, None, changes, errors, timings)
        clock("parse", start)
        if changes:
            original_text = text
    else:
        tree = sql_or_ast if owned else sql_or_ast.copy()

    # 2-5. AST correctors. The chain owns ``tree`` (parsed or copied above), so the
    # correctors rewrite it in place (copy=False) and share one scope analysis after
    # identifier repair: datatypes and values only replace literals and comparisons,
    # never the column nodes or sources it describes.
    shared: dict[str, Resolver] = {}

    def resolver(t: exp.Expression) -> Resolver:
        if "r" not in shared or shared["r"].tree is not t:
            shared["r"] = Resolver(t, catalog)
        return shared["r"]

    steps = []
    if settings.identifiers:
        steps.append(("identifiers", lambda t: identifiers.repair_identifiers(t, catalog, settings, copy=False)))
    if settings.datatypes:
        steps.append(("datatypes", lambda t: types.match_datatypes(
            t, catalog, settings, copy=False, resolver=resolver(t))))
    if settings.values and matcher is not None:
        steps.append(("values", lambda t: values.correct_values(
            t, catalog, matcher, settings, copy=False, resolver=resolver(t))))
    if settings.limit or settings.mandatory_columns:
        steps.append(("defaults", lambda t: defaults.apply_defaults(
            t, catalog, settings, question, copy=False, resolver=resolver(t))))
    ast_changes = 0
    for name, step in steps:
        start = time.perf_counter()
        try:
            tree, more = step(tree)
        except SqlGenieError as exc:
            errors.append(exc)
            partial = getattr(exc, "partial", None)
            if partial is not None:
                tree, more = partial
            else:
                more = []
        changes += more
        ast_changes += len(more)
        clock(name, start)

    # 6. dummy test
    if settings.dummy_test and dummy is not None:
        start = time.perf_counter()
        outcome = dummy.check(tree, question=question)
        clock("dummy_test", start)
        if outcome.changes:
            tree = outcome.tree
            changes += outcome.changes
            ast_changes += len(outcome.changes)
        if outcome.error is not None:
            errors.append(outcome.error)

    if ast_changes == 0 and original_text is not None:
        sql = original_text
    else:
        sql = to_sql(tree)
    return CorrectionResult(sql, tree, changes, errors, timings)
