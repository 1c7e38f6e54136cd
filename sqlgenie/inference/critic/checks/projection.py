"""An id returned where the question asks for a name.

When the question asks for names ("what are the names of ...", "list the name
...") and no output column of the query is a name (a column whose name has
"name" or "title" in it), but one is an identifier (a key of its table, or a column
named like ``*_id``) of a table that has a name column, the user gets codes
instead of names.
"""

from __future__ import annotations

import re

from sqlglot import exp

from sqlgenie.inference.critic.context import CheckContext, outer_select
from sqlgenie.inference.critic.findings import Finding

__all__ = ["id_for_name", "asks_for_names"]

_NAMES = re.compile(r"\b(names?|titles?)\b", re.I)
_ID_WORDS = re.compile(r"\b(ids?|identifiers?|codes?|numbers?)\b", re.I)
_NAMEY = re.compile(r"(name|title)", re.I)
_IDISH = re.compile(r"(^id$|_id$|id$)", re.I)


def asks_for_names(question: str) -> bool:
    """The question names the thing it wants and asks for no id/code/number."""
    return bool(_NAMES.search(question)) and not _ID_WORDS.search(question)


def id_for_name(ctx: CheckContext) -> list[Finding]:
    if ctx.tree is None or not asks_for_names(ctx.question):
        return []
    select = outer_select(ctx.tree)
    resolver = ctx.resolver
    if select is None or resolver is None or not resolver.ok:
        return []
    ids, others = [], 0
    for projection in select.expressions:
        inner = projection.unalias()
        if isinstance(inner, exp.Star) or (isinstance(inner, exp.Column) and isinstance(inner.this, exp.Star)):
            return []
        if not isinstance(inner, exp.Column):
            others += 1
            continue
        ref = resolver.resolve(inner)
        if ref is None:
            return []
        if _NAMEY.search(ref.column.name):
            return []
        is_key = ref.column.name.lower() in {c.lower() for c in ref.table.primary_key}
        if is_key or _IDISH.search(ref.column.name):
            names = [c.name for c in ref.table.columns if _NAMEY.search(c.name) and c.family == "text"]
            if names:
                ids.append((ref, names))
                continue
        others += 1
    if not ids:
        return []
    ref, names = ids[0]
    return [Finding(
        "id_for_name", "warning",
        f"The question asks for names but the query returns {ref.table.name}.{ref.column.name}, an identifier; "
        f"{ref.table.name} has {', '.join(names)}.",
        {"column": ref.key, "name_columns": names})]
