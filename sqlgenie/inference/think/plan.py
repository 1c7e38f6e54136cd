"""The think loop's context and its first LLM call, the plan.

:func:`build_context` gathers what every think prompt shows: the pruned schema
(:class:`~sqlgenie.inference.pruning.SchemaPruner`, with the linked values keeping
their columns), the values linked to the question's words
(:mod:`~sqlgenie.inference.value_linking`), the JOIN planner's path over the kept
tables with each join's cardinality (:mod:`~sqlgenie.inference.join_planner`) and
the k nearest verified bank examples as few-shot. ``prune=False`` shows the whole
catalog instead (the baseline of ``scripts/think_prompt_tokens.py``).

:func:`plan_prompt` fills ``prompts/think/plan_system.txt`` and ``plan_user.txt``.
"""

from __future__ import annotations

import datetime as dt
import time
from dataclasses import dataclass, field, replace
from typing import Any, Sequence

from prompts import load_prompt

__all__ = ["ThinkContext", "build_context", "plan_prompt", "unanswerable_reason"]


@dataclass
class ThinkContext:
    """What the think prompts show for one question (texts) and what the critic uses."""

    question: str
    database: str
    schema: str
    joins: str
    values: str
    examples: str
    instructions: str
    today: str
    tables: list[str] = field(default_factory=list)  # kept tables (qualified)
    columns: dict[str, list[str]] = field(default_factory=dict)  # kept table -> kept columns
    linked: dict[str, list[str]] = field(default_factory=dict)  # "schema.table.column" -> values (critic)
    example_ids: list[int] = field(default_factory=list)
    kept_columns: int = 0
    total_columns: int = 0
    join_plan: Any = None
    ms: float = 0.0

    def fields(self) -> dict[str, str]:
        return {"database": self.database, "question": self.question, "today": self.today, "schema": self.schema,
                "joins": self.joins, "values": self.values, "instructions": self.instructions,
                "examples": self.examples}

    def summary(self) -> dict[str, Any]:
        return {"database": self.database, "tables": self.tables, "joins": self.joins, "values": self.values,
                "examples": self.example_ids, "kept_columns": self.kept_columns, "total_columns": self.total_columns,
                "ms": round(self.ms, 1)}


def _render_join_plan(catalog: Any, tables: Sequence[str], question: str | None = None) -> tuple[str, Any]:
    """The JOIN planner's tree over ``tables`` as prompt text (cardinalities included).

    The question picks between parallel joins (source vs destination airport)."""
    if len(tables) < 2:
        return "(one table: no join)", None
    try:
        from sqlgenie.inference.join_planner import plan_joins
    except ImportError:  # the planner is optional: fall back to the cheapest accepted joins
        plan_joins = None
    if plan_joins is not None:
        plan = plan_joins(catalog, list(tables), question=question)
        text = plan.render().strip()  # names unconnected tables itself
        return text or "(no known join connects these tables)", plan
    from sqlgenie.inference.join_paths import connect

    tree = connect(list(tables), catalog.joins)
    lines = [" AND ".join(f"{j.from_table}.{a} = {j.to_table}.{b}" for a, b in zip(j.from_columns, j.to_columns))
             for j in tree.joins]
    return "\n".join(lines) or "(no known join connects these tables)", tree


def _whole(catalog: Any):
    from sqlgenie.inference.pruning import PrunedSchema

    return PrunedSchema(tables={t.qualified: [c.name for c in t.columns] for t in catalog.tables},
                        scores=[], joins=[], value_hits={})


def build_context(
    question: str,
    *,
    catalog: Any,
    pruner: Any,
    examples: Sequence[Any] = (),
    store: Any = None,
    executor: Any = None,
    instructions: str = "",
    today: dt.date | None = None,
    prune: bool = True,
    link: bool = True,
    links: Sequence[Any] | None = None,
) -> ThinkContext:
    """The context of the think prompts for ``question`` (see module doc).

    ``examples`` are the retrieved bank examples (``ScoredExample``), best first,
    already cut to k; ``store`` / ``executor`` serve value linking (cache and bounded
    probes through the safe executor); ``links`` are value links computed by the
    caller (then no linking here)."""
    from sqlgenie.inference.generate_llm import format_examples
    from sqlgenie.inference.value_linking import link_values, render_links

    started = time.perf_counter()
    links = list(links) if links is not None else []
    if link and not links:
        prior = pruner.column_scores(question) if pruner is not None else None
        links = link_values(question, catalog=catalog, store=store, executor=executor, pruner=pruner,
                            column_scores=prior)
    if prune and pruner is not None:
        shown = [getattr(e, "example", e) for e in examples]
        pruned = pruner.prune(
            question,
            example_tables=[t for ex in shown for t in (getattr(ex, "tables", None) or ())],
            example_columns=[tuple(c.rsplit(".", 1)) for ex in shown for c in (getattr(ex, "columns", None) or ())
                             if "." in c],
            value_links=links,
        )
        # joins and values have their own sections: render the tables alone
        schema = replace(pruned, joins=[], value_hits={}).render(catalog)
    else:
        pruned = _whole(catalog)
        schema = pruned.render(catalog)
    tables = list(pruned.tables)
    joins, join_plan = _render_join_plan(catalog, tables, question)
    linked: dict[str, list[str]] = {}
    for l in links:
        if l.rank == 1:
            linked.setdefault(l.column.lower(), []).append(l.value)
    values = render_links(links) if links else ""
    database = ", ".join(sorted({t.schema for t in catalog.tables})) or "(none)"
    return ThinkContext(
        question=question.strip(), database=database, schema=schema.strip() or "(no onboarded tables)",
        joins=joins, values=values or "(none)", examples=format_examples(examples),
        instructions=instructions.strip() or "(none)", today=(today or dt.date.today()).isoformat(),
        tables=tables, columns={t: list(c) for t, c in pruned.tables.items()}, linked=linked,
        example_ids=[getattr(getattr(e, "example", e), "id", None) for e in examples],
        kept_columns=sum(len(c) for c in pruned.tables.values()),
        total_columns=sum(len(t.columns) for t in catalog.tables), join_plan=join_plan,
        ms=(time.perf_counter() - started) * 1000.0,
    )


def plan_prompt(ctx: ThinkContext) -> tuple[str, str]:
    """(system, user) of the plan call."""
    system = load_prompt("think/plan_system.txt").substitute().strip()
    user = load_prompt("think/plan_user.txt").substitute(ctx.fields()).strip()
    return system, user


def unanswerable_reason(plan: str) -> str | None:
    """The reason when the plan's first line says the question is unanswerable."""
    first = next((line.strip() for line in plan.strip().splitlines() if line.strip()), "")
    if first.lower().startswith("unanswerable"):
        return first.split(":", 1)[1].strip() if ":" in first else "the plan says the schema cannot answer it"
    return None
