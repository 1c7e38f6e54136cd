"""Per-stage accounting of LLM calls (thread-safe)."""

from __future__ import annotations

import threading
from collections import deque
from dataclasses import dataclass, field
from typing import Any

_COUNTERS = ("calls", "errors", "retries", "input_tokens", "output_tokens")


@dataclass(frozen=True)
class CallRecord:
    """One request sent to a provider (one attempt; a retried call yields several)."""

    stage: str
    provider: str
    model: str
    ok: bool
    latency_ms: float
    input_tokens: int = 0
    output_tokens: int = 0
    error: str | None = None  # exception class name when ok is False
    retried: bool = False  # a failed attempt that was followed by another attempt


@dataclass
class _Totals:
    calls: int = 0
    errors: int = 0
    retries: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    latency_ms: float = 0.0
    error_types: dict[str, int] = field(default_factory=dict)

    def add(self, rec: CallRecord) -> None:
        self.calls += 1
        self.input_tokens += rec.input_tokens
        self.output_tokens += rec.output_tokens
        self.latency_ms += rec.latency_ms
        if not rec.ok:
            self.errors += 1
            if rec.error:
                self.error_types[rec.error] = self.error_types.get(rec.error, 0) + 1
        if rec.retried:
            self.retries += 1

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {name: getattr(self, name) for name in _COUNTERS}
        out["latency_ms"] = round(self.latency_ms, 3)
        out["avg_latency_ms"] = round(self.latency_ms / self.calls, 3) if self.calls else 0.0
        out["error_types"] = dict(self.error_types)
        return out


class UsageTracker:
    """Counts every request sent to a provider, per pipeline stage.

    One *call* is one request to the provider: a call retried twice counts three
    calls, two of them errors and retries. ``latency_ms`` sums time spent in the
    requests themselves (backoff sleeps excluded). Safe to share between threads.
    """

    def __init__(self, *, keep_records: int = 1000) -> None:
        self._lock = threading.Lock()
        self._stages: dict[str, _Totals] = {}
        self._records: deque[CallRecord] = deque(maxlen=keep_records)

    def record(self, rec: CallRecord) -> None:
        with self._lock:
            self._stages.setdefault(rec.stage, _Totals()).add(rec)
            self._records.append(rec)

    def records(self) -> list[CallRecord]:
        """The most recent call records (at most ``keep_records``), oldest first."""
        with self._lock:
            return list(self._records)

    def summary(self) -> dict[str, Any]:
        """``{"stages": {stage: counters}, "total": counters}``.

        Counters: calls, errors, retries, input_tokens, output_tokens, latency_ms,
        avg_latency_ms, error_types (exception name -> count).
        """
        with self._lock:
            total = _Totals()
            stages: dict[str, Any] = {}
            for name in sorted(self._stages):
                t = self._stages[name]
                stages[name] = t.as_dict()
                total.calls += t.calls
                total.errors += t.errors
                total.retries += t.retries
                total.input_tokens += t.input_tokens
                total.output_tokens += t.output_tokens
                total.latency_ms += t.latency_ms
                for err, n in t.error_types.items():
                    total.error_types[err] = total.error_types.get(err, 0) + n
            return {"stages": stages, "total": total.as_dict()}

    def reset(self) -> None:
        with self._lock:
            self._stages.clear()
            self._records.clear()


_DEFAULT_TRACKER = UsageTracker()


def default_tracker() -> UsageTracker:
    """The process-wide tracker used when :func:`get_provider` gets none."""
    return _DEFAULT_TRACKER
