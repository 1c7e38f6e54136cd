"""The quickstart behind ``sqlgenie demo``: from nothing to answered questions.

Stages, each reported with its time: the store (embedded PostgreSQL unless a URL
is configured), the demo warehouse (loaded once, reused afterwards), and sample
questions answered through the safe executor. Later stages (onboarding, the seed
example bank, ``ask``) are appended here as they land.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sqlgenie.config import Settings, get_settings
from sqlgenie.store import connect_store, store_url, target_url

# (question an analyst would ask, the SQL that answers it on schema demo)
SAMPLE_QUERIES: tuple[tuple[str, str], ...] = (
    (
        "Revenue by region in 2025",
        "SELECT r.region_name, round(sum(oi.qty * oi.unit_price * (1 - oi.discount)), 2) AS revenue\n"
        "FROM demo.order_items oi\n"
        "JOIN demo.orders o ON o.order_id = oi.order_id\n"
        "JOIN demo.stores s ON s.store_id = o.store_id\n"
        "JOIN demo.regions r ON r.region_id = s.region_id\n"
        "WHERE o.order_date >= DATE '2025-01-01' AND o.order_date < DATE '2026-01-01'\n"
        "GROUP BY r.region_name ORDER BY revenue DESC",
    ),
    (
        "Top 5 products by units sold",
        "SELECT p.product_name, p.brand, sum(oi.qty) AS units\n"
        "FROM demo.order_items oi JOIN demo.products p ON p.product_id = oi.product_id\n"
        "GROUP BY p.product_name, p.brand ORDER BY units DESC LIMIT 5",
    ),
    (
        "How the brand 'Rockpot' is spelled in the data",
        "SELECT brand, count(*) AS products FROM demo.products\n"
        "WHERE brand ILIKE 'rockpot%' GROUP BY brand ORDER BY products DESC",
    ),
)

ProgressCallback = Callable[[str], None]


@dataclass
class SampleAnswer:
    question: str
    sql: str
    columns: list[str]
    rows: list[tuple]
    elapsed_ms: float


@dataclass
class QuickstartReport:
    store: dict[str, Any]
    demo: dict[str, Any]
    samples: list[SampleAnswer] = field(default_factory=list)
    stage_seconds: dict[str, float] = field(default_factory=dict)


def run_quickstart(
    settings: Settings | None = None,
    *,
    scale: int | None = None,
    reload: bool = False,
    progress: ProgressCallback | None = None,
    demo_progress: Callable[[str, int, int], None] | None = None,
) -> QuickstartReport:
    """Run every quickstart stage; ``progress`` receives a line per stage."""
    from sqlgenie.demo import DEFAULT_SCALE, demo_summary, load_demo
    from sqlgenie.executor import SafeExecutor

    settings = settings or get_settings()
    say = progress or (lambda _msg: None)
    stages: dict[str, float] = {}

    t0 = time.perf_counter()
    say("starting the store" + (" (embedded PostgreSQL)" if settings.embedded else ""))
    url = store_url(settings)
    with connect_store(settings) as conn:
        version = conn.execute("SHOW server_version").fetchone()[0]
    store = {"mode": "embedded" if settings.embedded else "external", "server_version": version,
             "pgdata": str(settings.pgdata_dir) if settings.embedded else None}
    stages["store"] = time.perf_counter() - t0

    t0 = time.perf_counter()
    target = target_url(settings) if settings.target_database_url is not None else url
    summary = demo_summary(target)
    wanted = scale or DEFAULT_SCALE
    loaded_now = False
    if reload or not summary or (scale is not None and summary.get("order_items") != scale):
        say(f"loading the demo warehouse (scale {wanted:,})")
        load_demo(target, scale=wanted, progress=demo_progress)
        summary = demo_summary(target)
        loaded_now = True
    else:
        say("demo warehouse already loaded (use --reload to rebuild it)")
    stages["demo"] = time.perf_counter() - t0
    demo = {"tables": summary, "loaded_now": loaded_now}

    t0 = time.perf_counter()
    say("answering sample questions through the safe executor")
    answers = []
    with SafeExecutor.from_settings(settings) as executor:
        for question, sql in SAMPLE_QUERIES:
            result = executor.run(sql)
            answers.append(SampleAnswer(question, sql, result.columns, result.rows, result.elapsed_ms))
    stages["samples"] = time.perf_counter() - t0
    return QuickstartReport(store=store, demo=demo, samples=answers, stage_seconds=stages)
