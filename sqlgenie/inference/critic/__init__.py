"""The deterministic critic of generated SQL (issue 15).

    from sqlgenie.inference.critic import critique, run_checks, Finding, CriticReport

* :func:`critique` - checks, exact repairs (through the safe executor), a
  :class:`CriticReport` for the think loop;
* :func:`run_checks` - the checks alone on a ``(sql, result)`` pair: no Asker,
  no execution unless asked (candidate selection, recorded predictions);
* :data:`CHECKS` - the checks in order, each a small function
  ``(CheckContext) -> list[Finding]`` (see :mod:`.checks`).
"""

from sqlgenie.inference.critic.checks import CHECK_NAMES, CHECKS
from sqlgenie.inference.critic.checks_runner import run_checks
from sqlgenie.inference.critic.context import CheckContext
from sqlgenie.inference.critic.critique import critique
from sqlgenie.inference.critic.findings import CriticReport, ExecutionResult, Finding

__all__ = ["CHECKS", "CHECK_NAMES", "CheckContext", "CriticReport", "ExecutionResult", "Finding", "critique",
           "run_checks"]
