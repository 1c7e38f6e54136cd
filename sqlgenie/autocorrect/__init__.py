"""AutoCorrectors: deterministic fixes of generated SQL (no LLM).

    from sqlgenie.autocorrect import AutocorrectSettings, PgValueMatcher, run_chain
    result = run_chain(sql, catalog, PgValueMatcher(store_conn), AutocorrectSettings(), question="...")
    result.sql, result.changes, result.errors

Chain order (see :mod:`sqlgenie.autocorrect.chain`): python spans -> identifier
repair -> datatype matching -> values -> defaults -> dummy test. Every corrector is
also usable alone as a pure function ``(tree, catalog, ...) -> (new_tree, changes)``.
"""

from sqlgenie.autocorrect.base import Change
from sqlgenie.autocorrect.chain import CHAIN_ORDER, CorrectionResult, run_chain
from sqlgenie.autocorrect.defaults import add_limit, add_mandatory_columns, apply_defaults
from sqlgenie.autocorrect.dummy import DummyOutcome, DummyTester
from sqlgenie.autocorrect.errors import AmbiguousIdentifierError, DummyTestError, PythonSpanError, SafeEvalError
from sqlgenie.autocorrect.identifiers import repair_identifiers
from sqlgenie.autocorrect.python_spans import find_python_spans, replace_python_spans
from sqlgenie.autocorrect.resolve import ColumnRef, Resolver
from sqlgenie.autocorrect.safe_eval import EvalLimits, SafeEvaluator, safe_eval
from sqlgenie.autocorrect.settings import AutocorrectSettings
from sqlgenie.autocorrect.types import match_datatypes
from sqlgenie.autocorrect.values import (
    InMemoryValueMatcher,
    PgValueMatcher,
    ValueMatch,
    ValueMatcher,
    ValueRequest,
    correct_values,
)

__all__ = [
    "CHAIN_ORDER",
    "AmbiguousIdentifierError",
    "AutocorrectSettings",
    "Change",
    "ColumnRef",
    "CorrectionResult",
    "DummyOutcome",
    "DummyTestError",
    "DummyTester",
    "EvalLimits",
    "InMemoryValueMatcher",
    "PgValueMatcher",
    "PythonSpanError",
    "Resolver",
    "SafeEvalError",
    "SafeEvaluator",
    "ValueMatch",
    "ValueMatcher",
    "ValueRequest",
    "add_limit",
    "add_mandatory_columns",
    "apply_defaults",
    "correct_values",
    "find_python_spans",
    "match_datatypes",
    "repair_identifiers",
    "replace_python_spans",
    "run_chain",
    "safe_eval",
]
