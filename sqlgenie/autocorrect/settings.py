"""Switches and thresholds of the autocorrector chain.

Not part of :class:`sqlgenie.config.Settings` yet: build one from a plain dict
(``AutocorrectSettings.model_validate({...})``) or from the global settings with
:meth:`AutocorrectSettings.from_settings`, which reads an ``autocorrect`` dict and
``now`` from them when those fields exist, and ``default_limit`` always.
"""

from __future__ import annotations

import datetime as dt
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class AutocorrectSettings(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    # --- switches (chain order: python spans, identifiers, datatypes, values, defaults, dummy test)
    python_spans: bool = Field(True, description="Evaluate <python>...</python> spans with the safe evaluator.")
    identifiers: bool = Field(True, description="Repair unknown table/column names with one clear closest match.")
    datatypes: bool = Field(True, description="Cast literals to the type of the column they are compared with.")
    values: bool = Field(True, description="Replace filter literals that are not cached values by close cached values.")
    limit: bool = Field(True, description="Add LIMIT default_limit when a query has none (with exceptions).")
    mandatory_columns: bool = Field(True, description="Add mandatory catalog columns to SELECT.")
    dummy_test: bool = Field(True, description="Run the SQL on sampled copies when a dummy tester is given.")

    # --- python spans
    now: dt.datetime | None = Field(None, description="Pinned 'now' for <python> spans (reproducible runs).")
    eval_max_chars: int = Field(500, gt=0, le=10_000)
    eval_max_nodes: int = Field(120, gt=0, le=2_000)
    eval_max_abs_number: float = Field(1e15, gt=0)
    eval_max_str_len: int = Field(200, gt=0, le=100_000)

    # --- identifiers
    identifier_cutoff: float = Field(80.0, ge=0, le=100, description="Least similarity (rapidfuzz ratio) to repair.")
    identifier_margin: float = Field(5.0, ge=0, le=100, description="Best must beat the runner-up by this much.")

    # --- values
    value_cutoff: float = Field(80.0, ge=0, le=100, description="Least rapidfuzz WRatio of a replacement value.")
    value_margin: float = Field(3.0, ge=0, le=100, description="Keep matches within this of the best score.")
    value_max_matches: int = Field(5, gt=0, le=100)
    value_typo_distance: int = Field(
        1, ge=0, le=3, description="Below the cutoff, accept the only value within this many edits (0: off)."
    )
    value_min_length: int = Field(3, ge=1, description="Shorter literals only match case/space variants.")
    value_same_folded: bool = Field(
        False,
        description="When a cached value equals the literal but for case and spacing, use that value alone "
        "instead of widening to every close value (the match route: the literal is the question's own value).",
    )
    value_keep_original: Literal["auto", "always", "never"] = Field(
        "auto",
        description="Keep the original literal next to its matches: always, never, or auto (when the "
        "column's value cache may be incomplete: n_distinct above the cached count).",
    )
    trgm_fast_threshold: float = Field(0.6, gt=0, le=1, description="Strict pg_trgm stage on large caches.")
    trgm_threshold: float = Field(0.3, gt=0, le=1, description="Loose pg_trgm stage on large caches.")
    trgm_candidates: int = Field(50, gt=0, le=10_000, description="Most candidates fetched per literal.")
    memory_cache_max: int = Field(20_000, ge=0, description="Caches up to this size are ranked in memory.")

    # --- defaults
    default_limit: int = Field(500, gt=0)

    # --- dummy test
    dummy_rows: int = Field(9, gt=0, lt=10, description="Rows sampled from each referenced table (< 10).")
    dummy_timeout_ms: int = Field(5_000, gt=0)
    dummy_llm_attempts: int = Field(1, ge=0, le=5, description="Correction-agent rounds after a dummy-test error.")

    @classmethod
    def from_settings(cls, settings: Any = None, **overrides: Any) -> AutocorrectSettings:
        """From :class:`sqlgenie.config.Settings`: ``default_limit``, and ``autocorrect``
        (dict) and ``now`` when the lead has added those fields; ``overrides`` win."""
        if settings is None:
            from sqlgenie.config import get_settings

            settings = get_settings()
        data: dict[str, Any] = {"default_limit": getattr(settings, "default_limit", 500)}
        data.update(dict(getattr(settings, "autocorrect", None) or {}))
        now = getattr(settings, "now", None)
        if now is not None:
            data["now"] = now
        data.update(overrides)
        return cls.model_validate(data)

    def without_defaults(self) -> AutocorrectSettings:
        """A copy with LIMIT and mandatory columns off (the do-no-harm evaluation)."""
        return self.model_copy(update={"limit": False, "mandatory_columns": False})
