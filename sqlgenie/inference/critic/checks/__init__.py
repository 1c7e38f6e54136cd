"""The critic's checks, in the order they run (like sqlglot's optimizer ``RULES``).

Each check is a function ``(ctx: CheckContext) -> list[Finding]`` that reads the
context and never changes it: no check repairs anything (repairs are in
:mod:`sqlgenie.inference.critic.repairs`). Checks that need the result or a probe
return nothing when the context has neither.
"""

from __future__ import annotations

from typing import Callable

from sqlgenie.inference.critic.checks.execution import executes
from sqlgenie.inference.critic.checks.grouping import (
    aggregate_in_where,
    each_without_group_by,
    nested_aggregate,
    ungrouped_column,
)
from sqlgenie.inference.critic.checks.joins import fanout_aggregate
from sqlgenie.inference.critic.checks.ordering import order_direction, superlative_without_limit
from sqlgenie.inference.critic.checks.projection import id_for_name
from sqlgenie.inference.critic.checks.references import ambiguous_column
from sqlgenie.inference.critic.checks.shape import duplicates_for_distinct
from sqlgenie.inference.critic.checks.subqueries import scalar_subquery
from sqlgenie.inference.critic.checks.syntax import binds, parses
from sqlgenie.inference.critic.checks.values import empty_result_value
from sqlgenie.inference.critic.context import CheckContext
from sqlgenie.inference.critic.findings import Finding

Check = Callable[[CheckContext], list[Finding]]

#: Every check, in order. Names are the functions' names (``Finding.check``).
CHECKS: tuple[Check, ...] = (
    parses,
    binds,
    executes,
    ambiguous_column,
    ungrouped_column,
    nested_aggregate,
    aggregate_in_where,
    scalar_subquery,
    empty_result_value,
    fanout_aggregate,
    id_for_name,
    superlative_without_limit,
    order_direction,
    each_without_group_by,
    duplicates_for_distinct,
)

CHECK_NAMES: tuple[str, ...] = tuple(c.__name__ for c in CHECKS)

__all__ = ["CHECKS", "CHECK_NAMES", "Check"]
