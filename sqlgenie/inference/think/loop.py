"""The think loop (design 3.2.2, issue 15): plan, generate, critique, up to m rounds.

    loop = ThinkLoop(provider, catalog=catalog, executor=executor, matcher=matcher, pruner=pruner,
                     store=store, settings=settings)
    run = loop.run(question, examples=nearest)
    run.status, run.sql, run.rows, run.plan, run.rounds, run.stop_reason, run.usage

1. **context** - pruned schema, linked values, the JOIN planner's path, the k
   nearest bank examples (:func:`~sqlgenie.inference.think.plan.build_context`);
2. **plan** - one LLM call (``prompts/think/plan_*.txt``); a plan whose first line
   says ``Unanswerable:`` ends the loop with a refusal;
3. each **round** (at most ``settings.think_max_rounds``):
   a. **generate** - one LLM call: SQL from the plan, with every rejected attempt
      and its problems (the previous rounds' findings fed back);
   b. **autocorrect** - the deterministic chain, as in the match route;
   c. **critic** - the deterministic checks and exact repairs
      (:func:`~sqlgenie.inference.critic.critique`, statements run only through the
      safe executor); open findings reject the round;
   d. **LLM critic** (``settings.think_llm_critic``) - only when the deterministic
      checks found nothing: one call; an objection rejects the round.
   A round nobody rejects is the answer (stop ``accepted``).
4. The loop also stops when an LLM call fails (``llm_error``: status ``error``), when
   the generator repeats a rejected statement
   (``no_progress``), when the rounds run out (``max_rounds``) or when the next
   call would exceed the budget (``budget``: ``think_max_calls`` calls or
   ``think_max_tokens`` tokens, input plus output, per question; the next call's
   input is estimated as its characters / 4 before it is sent).

Right or refused: after a stop other than ``accepted`` the last statement is
answered only when no error-severity finding and no LLM-critic objection is open
on it (open warnings are then shown with the answer); otherwise the question is
refused with the last statement and its problems.
"""

from __future__ import annotations

import time
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Sequence

from sqlgenie.inference.think.generate import Attempt, critic_prompt, generate_prompt, parse_verdict
from sqlgenie.inference.think.plan import ThinkContext, build_context, plan_prompt, unanswerable_reason

__all__ = ["Budget", "BudgetExceeded", "ThinkLoop", "ThinkRound", "ThinkRun", "STOP_REASONS"]

#: Why the loop stopped (``ThinkRun.stop_reason``) and what ``--explain`` says.
STOP_REASONS = {
    "accepted": "the critic found no problem",
    "max_rounds": "the rounds ran out (think_max_rounds) with problems still open",
    "budget": "the LLM budget for one question is spent (think_max_calls / think_max_tokens)",
    "no_progress": "the generator repeated a statement that was already rejected",
    "unanswerable": "the plan says the schema cannot answer the question",
    "llm_error": "an LLM call failed",
}


class BudgetExceeded(Exception):
    """The next call would exceed the per-question budget (internal to the loop)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass
class Budget:
    """LLM calls and tokens spent on one question, against the limits."""

    max_calls: int
    max_tokens: int
    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    by_stage: dict[str, dict[str, int]] = field(default_factory=dict)

    @property
    def tokens(self) -> int:
        return self.input_tokens + self.output_tokens

    def check(self, prompt_chars: int) -> None:
        """Raise :class:`BudgetExceeded` when one more call would go over a limit."""
        if self.calls + 1 > self.max_calls:
            raise BudgetExceeded(f"{self.calls} of {self.max_calls} LLM calls used")
        estimate = prompt_chars // 4
        if self.tokens + estimate > self.max_tokens:
            raise BudgetExceeded(f"{self.tokens} tokens used, the next prompt (~{estimate}) would pass "
                                 f"the limit of {self.max_tokens}")

    def charge(self, stage: str, input_tokens: int, output_tokens: int) -> None:
        self.calls += 1
        self.input_tokens += input_tokens
        self.output_tokens += output_tokens
        s = self.by_stage.setdefault(stage, {"calls": 0, "input_tokens": 0, "output_tokens": 0})
        s["calls"] += 1
        s["input_tokens"] += input_tokens
        s["output_tokens"] += output_tokens

    def to_dict(self) -> dict[str, Any]:
        return {"calls": self.calls, "input_tokens": self.input_tokens, "output_tokens": self.output_tokens,
                "max_calls": self.max_calls, "max_tokens": self.max_tokens, "by_stage": self.by_stage}


@dataclass
class ThinkRound:
    """One generate-and-critique round."""

    number: int
    generated_sql: str  # as the LLM wrote it
    sql: str  # after the autocorrectors and the critic's exact repairs
    corrections: list[dict[str, str]] = field(default_factory=list)
    findings: list[dict[str, Any]] = field(default_factory=list)  # the critic's, repaired ones included
    repairs: list[dict[str, str]] = field(default_factory=list)
    llm_critic: str | None = None  # "ok" | "objection" | None (not asked)
    llm_problems: list[str] = field(default_factory=list)
    columns: list[str] = field(default_factory=list)
    rows: list[tuple] = field(default_factory=list)
    executed: bool = False
    error: str | None = None
    accepted: bool = False

    @property
    def open_findings(self) -> list[dict[str, Any]]:
        return [f for f in self.findings if not f.get("repaired")]

    @property
    def open_errors(self) -> list[dict[str, Any]]:
        return [f for f in self.open_findings if f.get("severity") == "error"]

    @property
    def answerable(self) -> bool:
        """No open error and no LLM-critic objection (warnings may remain)."""
        return not self.open_errors and self.llm_critic != "objection"

    def problems(self) -> list[str]:
        """What goes back to the generator."""
        out = [f"[{f['check']}] {f['message']}" for f in self.open_findings]
        out += [f"[llm_critic] {p}" for p in self.llm_problems]
        return out

    def to_dict(self, *, max_rows: int = 5) -> dict[str, Any]:
        return {"round": self.number, "generated_sql": self.generated_sql, "sql": self.sql,
                "corrections": self.corrections, "findings": self.findings, "repairs": self.repairs,
                "llm_critic": self.llm_critic, "llm_problems": self.llm_problems, "columns": self.columns,
                "rows": [list(r) for r in self.rows[:max_rows]], "row_count": len(self.rows) if self.executed else None,
                "executed": self.executed, "error": self.error, "accepted": self.accepted,
                "problems": self.problems()}


@dataclass
class ThinkRun:
    """The loop's outcome for one question."""

    question: str
    status: str = "refused"  # ok | refused
    stop_reason: str = ""
    stop_detail: str = ""
    plan: str = ""
    rounds: list[ThinkRound] = field(default_factory=list)
    context: ThinkContext | None = None
    budget: Budget | None = None
    final_round: int | None = None
    error: Exception | None = None  # the LLMError that stopped the loop (stop_reason "llm_error")
    ms: float = 0.0

    @property
    def answer(self) -> ThinkRound | None:
        return self.rounds[self.final_round - 1] if self.final_round else None

    @property
    def last(self) -> ThinkRound | None:
        return self.rounds[-1] if self.rounds else None

    @property
    def sql(self) -> str | None:
        r = self.answer or self.last
        return r.sql if r is not None else None

    @property
    def stop_text(self) -> str:
        text = STOP_REASONS.get(self.stop_reason, self.stop_reason)
        return f"{text} ({self.stop_detail})" if self.stop_detail else text

    @property
    def usage(self) -> dict[str, Any]:
        return self.budget.to_dict() if self.budget else {"calls": 0, "input_tokens": 0, "output_tokens": 0}

    def to_dict(self) -> dict[str, Any]:
        return {"status": self.status, "plan": self.plan, "rounds": [r.to_dict() for r in self.rounds],
                "stop_reason": self.stop_reason, "stop": self.stop_text, "final_round": self.final_round,
                "context": self.context.summary() if self.context else None, "usage": self.usage,
                "ms": round(self.ms, 1)}


class ThinkLoop:
    """Plan, generate, critique (see module doc). Cheap to build: the think route makes one
    per question over the Asker's parts (:func:`.route.loop_for`); not thread-safe."""

    def __init__(
        self,
        provider: Any,
        *,
        catalog: Any,
        executor: Any,
        matcher: Any = None,
        pruner: Any = None,
        store: Any = None,
        settings: Any = None,
        autocorrect: Any = None,
        search_path: Sequence[str] | None = None,
        instructions: str = "",
        today: Any = None,
        stage: Callable[[str], Any] | None = None,
        link_values: bool = True,
    ) -> None:
        from sqlgenie.config import get_settings

        self.provider = provider
        self.catalog = catalog
        self.executor = executor
        self.matcher = matcher
        self.pruner = pruner
        self.store = store
        self.settings = settings or get_settings()
        if autocorrect is None:
            from sqlgenie.autocorrect import AutocorrectSettings

            autocorrect = AutocorrectSettings.from_settings(self.settings)
        self.autocorrect = autocorrect
        self.search_path = list(search_path) if search_path is not None else None
        self.instructions = instructions
        self.today = today
        self._stage = stage
        self.link_values = link_values

    @contextmanager
    def _timed(self, name: str) -> Iterator[None]:
        with (self._stage(name) if self._stage else nullcontext()):
            yield

    # --- LLM ------------------------------------------------------------------------------

    def _call(self, budget: Budget, stage: str, system: str, user: str) -> str:
        from sqlgenie.llm import ChatMessage

        budget.check(len(system) + len(user))
        response = self.provider.complete([ChatMessage.user(user)], system=system, stage=stage)
        budget.charge(stage, response.usage.input_tokens, response.usage.output_tokens)
        return response.text

    # --- the loop -------------------------------------------------------------------------

    def run(self, question: str, *, examples: Sequence[Any] = (), execute: bool = True,
            limit: int | None = None, context: ThinkContext | None = None) -> ThinkRun:
        """Answer ``question`` (see module doc). An LLM error ends the loop with status
        ``error`` (``run.error``), keeping the plan, the rounds so far and the usage."""
        from sqlgenie.errors import LLMError, LLMResponseError
        from sqlgenie.inference.generate_llm import extract_sql

        started = time.perf_counter()
        s = self.settings
        run = ThinkRun(question=question, budget=Budget(s.think_max_calls, s.think_max_tokens))
        budget = run.budget
        assert budget is not None
        if context is None:
            with self._timed("think_context"):
                context = build_context(
                    question, catalog=self.catalog, pruner=self.pruner, examples=list(examples)[: s.think_examples],
                    store=self.store, executor=self.executor if execute else None,
                    instructions=self.instructions, today=self.today, link=self.link_values)
        run.context = context
        try:
            with self._timed("think_plan"):
                run.plan = self._call(budget, "think_plan", *plan_prompt(context)).strip()
            reason = unanswerable_reason(run.plan)
            if reason:
                return self._stop(run, "unanswerable", reason, started)
            attempts: list[Attempt] = []
            seen: set[str] = set()
            for number in range(1, s.think_max_rounds + 1):
                with self._timed("think_generate"):
                    text = self._call(budget, "think_generate", *generate_prompt(context, run.plan, attempts))
                try:
                    generated = extract_sql(text)
                except LLMResponseError:  # an answer without SQL is a rejected round, fed back
                    rnd = ThinkRound(number=number, generated_sql="", sql="", findings=[{
                        "check": "no_sql", "severity": "error", "evidence": {"answer": text[:500]}, "repaired": False,
                        "message": "The answer held no SQL statement; answer with one ```sql block."}])
                    run.rounds.append(rnd)
                    attempts.append(Attempt(number, text.strip()[:500] or "(empty answer)", rnd.problems()))
                    continue
                key = _normal(generated)
                if key in seen:
                    return self._stop(run, "no_progress", f"round {number} repeated an earlier statement", started)
                seen.add(key)
                rnd = self._critique(number, generated, question, context, execute, limit)
                run.rounds.append(rnd)
                if not rnd.open_findings and execute and s.think_llm_critic:
                    with self._timed("think_critic"):
                        verdict = self._call(budget, "think_critic", *critic_prompt(
                            context, run.plan, rnd.sql, rnd.columns, rnd.rows,
                            len(rnd.rows) if rnd.executed else None))
                    ok, problems = parse_verdict(verdict)
                    rnd.llm_critic = "ok" if ok else "objection"
                    rnd.llm_problems = problems
                if not rnd.problems():
                    rnd.accepted = True
                    run.final_round = number
                    return self._stop(run, "accepted", "", started)
                attempts.append(Attempt(number, rnd.sql, rnd.problems()))
            return self._stop(run, "max_rounds", f"{s.think_max_rounds} round(s)", started)
        except BudgetExceeded as exc:
            return self._stop(run, "budget", exc.message, started)
        except LLMError as exc:  # the rounds so far and the usage stay on the run
            run.error = exc
            return self._stop(run, "llm_error", exc.message, started)

    def _critique(self, number: int, generated: str, question: str, context: ThinkContext, execute: bool,
                  limit: int | None) -> ThinkRound:
        from sqlgenie.autocorrect import run_chain
        from sqlgenie.inference.critic import critique

        settings = self.autocorrect
        if limit is not None:
            settings = settings.model_copy(update={"default_limit": limit})
        with self._timed("autocorrect"):
            corrected = run_chain(generated, self.catalog, self.matcher, settings, question=question)
        sql = corrected.sql if corrected.ast is not None else generated
        cap = limit or getattr(self.settings, "row_cap", None)
        with self._timed("critic"):
            report = critique(sql, question=question, catalog=self.catalog, executor=self.executor,
                              matcher=self.matcher, linked_values=context.linked, join_graph=context.join_plan,
                              execute=execute, search_path=self.search_path, settings=settings, row_cap=cap)
        return ThinkRound(
            number=number, generated_sql=generated, sql=report.sql,
            corrections=[c.to_dict() for c in corrected.changes], findings=[f.to_dict() for f in report.findings],
            repairs=list(report.repairs), columns=list(report.columns), rows=list(report.rows),
            executed=report.executed and report.error is None, error=report.error,
        )

    def _stop(self, run: ThinkRun, reason: str, detail: str, started: float) -> ThinkRun:
        run.stop_reason = reason
        run.stop_detail = detail
        if reason == "llm_error":
            run.status = "error"
        elif reason == "accepted":
            run.status = "ok"
        elif reason != "unanswerable" and run.last is not None and run.last.answerable:
            run.final_round = len(run.rounds)
            run.status = "ok"
        else:
            run.status = "refused"
        run.ms = (time.perf_counter() - started) * 1000.0
        return run


def _normal(sql: str) -> str:
    """A statement's comparison key (sqlglot's PostgreSQL rendering; the text when it does not parse)."""
    import sqlglot

    try:
        return sqlglot.parse_one(sql, read="postgres").sql(dialect="postgres", normalize=True)
    except Exception:  # noqa: BLE001 - unparsable SQL compares as text
        return " ".join(sql.split()).lower()
