"""A provider that replays SQL recorded by published systems: an evaluation tool.

    llm = ReplayProvider("/work/shared/benchdata/predictions/din_sql_gpt4.jsonl",
                         schemas={"concert_singer": "concert_singer"})
    loop = ThinkLoop(llm, ...)   # generation calls answer with the recorded SQL

It lets the think loop's deterministic parts (context, autocorrectors, critic,
exact repairs, stop rules) run over real model output without a reachable LLM.
It is never a default: :func:`sqlgenie.llm.get_provider` does not build it, only
evaluation code does.

Predictions are JSON lines with ``db_id``, ``question``, ``sql`` and optionally
``dialect`` (``"sqlite"``: transpiled to PostgreSQL with sqlglot, using the column
types of ``catalogs[db_id]`` when given, as ``eval ex`` does). A request is matched
by the ``Database:`` and ``Question:`` lines every think prompt starts with
(database: the schema name, mapped back to ``db_id`` through ``schemas``; question:
whitespace and case folded). Answers by stage:

* ``think_generate`` - the recorded SQL in a ```sql block (the same SQL on every
  round: a system recorded one answer, so a rejected prediction ends the loop as
  ``no_progress``);
* ``think_plan`` - :data:`PLAN_TEXT` (the recorded systems wrote no plan);
* ``think_critic`` - ``OK`` (no LLM opinion is recorded; evaluations should turn the
  LLM critic off);
* any other stage - the recorded SQL.

No recorded prediction for a request raises :class:`~sqlgenie.errors.LLMResponseError`.
Token counts are whitespace words (as :class:`~sqlgenie.llm.scripted.ScriptedProvider`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from sqlgenie.errors import LLMResponseError
from sqlgenie.llm.base import BaseProvider, CompletionRequest, RawCompletion
from sqlgenie.llm.scripted import approx_tokens

__all__ = ["PLAN_TEXT", "ReplayProvider", "load_predictions"]

PLAN_TEXT = "Plan not recorded: the replayed system wrote its SQL directly."
_LINE = re.compile(r"^(Database|Question):[ \t]*(.*)$", re.M)


def _norm(text: str) -> str:
    return " ".join(str(text).split()).lower()


def load_predictions(paths: str | Path | Iterable[str | Path]) -> list[dict[str, Any]]:
    """The JSON lines of one or several prediction files."""
    if isinstance(paths, (str, Path)):
        paths = [paths]
    out: list[dict[str, Any]] = []
    for path in paths:
        with open(path, encoding="utf-8") as fh:
            for line in fh:
                line = line.strip()
                if line:
                    out.append(json.loads(line))
    return out


class ReplayProvider(BaseProvider):
    """Answers generation calls from recorded predictions (see module doc)."""

    name = "replay"
    display_name = "replay provider"

    def __init__(self, predictions: str | Path | Iterable[str | Path] | Iterable[Mapping[str, Any]], *,
                 schemas: Mapping[str, str] | None = None, catalogs: Mapping[str, Any] | None = None,
                 model: str = "replay", **kwargs: Any) -> None:
        kwargs.setdefault("max_retries", 0)
        super().__init__(model=model, **kwargs)
        if isinstance(predictions, (str, Path)) or (isinstance(predictions, (list, tuple)) and predictions
                                                     and isinstance(predictions[0], (str, Path))):
            records = load_predictions(predictions)  # type: ignore[arg-type]
        else:
            records = [dict(r) for r in predictions]  # type: ignore[union-attr]
        self.catalogs = dict(catalogs or {})
        self._db_of_schema = {_norm(schema): db for db, schema in (schemas or {}).items()}
        self._records: dict[tuple[str, str], dict[str, Any]] = {}
        for rec in records:
            if "sql" not in rec or "db_id" not in rec or "question" not in rec:
                continue
            self._records.setdefault((_norm(rec["db_id"]), _norm(rec["question"])), rec)
        self.misses = 0

    def __len__(self) -> int:
        return len(self._records)

    def lookup(self, database: str, question: str) -> dict[str, Any] | None:
        db = self._db_of_schema.get(_norm(database), database)
        return self._records.get((_norm(db), _norm(question)))

    def postgres_sql(self, rec: Mapping[str, Any]) -> str:
        sql = str(rec["sql"]).strip().rstrip(";").strip()
        if str(rec.get("dialect", "postgres")).lower() != "sqlite":
            return sql
        from sqlgenie.eval.gold import TranspileError, transpile_sqlite

        catalog = self.catalogs.get(rec["db_id"])
        types = ({t.name: {c.name: c.data_type for c in t.columns} for t in catalog.tables}
                 if catalog is not None else None)
        try:
            return transpile_sqlite(sql, types).sql
        except TranspileError:
            return sql  # the critic reports what PostgreSQL makes of it

    def _send(self, request: CompletionRequest) -> RawCompletion:
        prompt = "\n".join(m.content for m in request.messages if m.role == "user")
        fields: dict[str, str] = {}
        for key, value in _LINE.findall(prompt):  # the first of each (examples hold Question: lines too)
            fields.setdefault(key, value.strip())
        if request.stage.endswith("plan"):
            text = PLAN_TEXT
        elif request.stage.endswith("critic"):
            text = "OK"
        else:
            rec = self.lookup(fields.get("Database", ""), fields.get("Question", ""))
            if rec is None:
                self.misses += 1
                raise LLMResponseError(
                    f"No recorded prediction for database {fields.get('Database')!r}, question "
                    f"{fields.get('Question')!r}.",
                    hint="The replay provider answers only questions of its prediction files.")
            text = "```sql\n" + self.postgres_sql(rec) + "\n```"
        tokens_in = approx_tokens(request.system) + sum(approx_tokens(m.content) for m in request.messages)
        return RawCompletion(text=text, input_tokens=tokens_in, output_tokens=approx_tokens(text), model=self.model,
                             stop_reason="end_turn")
