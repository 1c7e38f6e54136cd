"""Shared set-up of the feedback benchmarks (scripts/bench_worker_kill.py,
scripts/bench_queue_drain.py): a fresh database on the embedded server of the
current settings (``SQLGENIE_DATA_DIR``), worker processes, and the checks that
nothing was lost or written twice. Not a test fixture: the benchmarks print
figures, the tests in tests/test_feedback_*.py assert behaviour."""

from __future__ import annotations

import datetime as dt
import os
import subprocess
import sys
import time
import uuid
from contextlib import contextmanager
from typing import Any, Iterator

import psycopg
from psycopg.conninfo import make_conninfo

CITIES = ["Boston", "Palo Alto", "Chicago", "Denver", "Austin", "Seattle", "Miami", "Portland", "Atlanta", "Dallas",
          "Houston", "Phoenix", "Detroit", "Memphis", "Nashville", "Omaha"]
STATUSES = ["delivered", "returned", "pending"]
#: Bank pairs of the shop schema (one wrong on purpose: max for an average).
BANK = [
    ("How many returned orders were there?", "SELECT count(*) AS orders FROM shop.orders WHERE status = 'returned'"),
    ("Total amount of orders shipped to Boston",
     "SELECT sum(o.amount) AS total FROM shop.orders o WHERE o.city = 'Boston'"),
    ("Average order amount in Boston", "SELECT max(amount) AS avg_amount FROM shop.orders WHERE city = 'Boston'"),
    ("How many orders were shipped to Boston?", "SELECT count(*) AS orders FROM shop.orders WHERE city = 'Boston'"),
]
#: Question templates and the right SQL a user gives with the thumbs-down (--sql).
TEMPLATES = {
    "Average order amount in {city}": "SELECT round(avg(amount), 2) AS avg_amount FROM shop.orders WHERE city = '{city}'",
    "Total amount of orders shipped to {city}": "SELECT sum(amount) AS total FROM shop.orders WHERE city = '{city}'",
    "How many orders were shipped to {city}?": "SELECT count(*) AS orders FROM shop.orders WHERE city = '{city}'",
    "Mean amount of the orders in {city}": "SELECT avg(amount) AS mean_amount FROM shop.orders WHERE city = '{city}'",
    "Largest order amount in {city}": "SELECT max(amount) AS largest FROM shop.orders WHERE city = '{city}'",
    "Smallest order amount in {city}": "SELECT min(amount) AS smallest FROM shop.orders WHERE city = '{city}'",
    "How many returned orders were shipped to {city}?":
        "SELECT count(*) AS orders FROM shop.orders WHERE status = 'returned' AND city = '{city}'",
    "Total amount of the returned orders in {city}":
        "SELECT sum(amount) AS total FROM shop.orders WHERE status = 'returned' AND city = '{city}'",
}


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


@contextmanager
def bench_database(keep: bool = False) -> Iterator[str]:
    """A new database on the embedded server of the current settings; dropped after."""
    from sqlgenie.config import get_settings
    from sqlgenie.store import embedded

    server = embedded.ensure_running(get_settings().pgdata_dir)
    name = "bench_fb_" + uuid.uuid4().hex[:10]
    with psycopg.connect(server, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    url = make_conninfo(server, dbname=name)
    try:
        yield url
    finally:
        if not keep:
            with psycopg.connect(server, autocommit=True) as conn:
                conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def env(url: str, **extra: str) -> dict[str, str]:
    out = dict(os.environ)
    out.update(SQLGENIE_DATABASE_URL=url, SQLGENIE_LLM_PROVIDER="none", SQLGENIE_SERVER_URL="off")
    out.update(extra)
    return out


def settings_for(url: str, **extra: Any) -> Any:
    from sqlgenie.config import load_settings

    return load_settings(database_url=url, llm_provider="none", **extra)


def create_shop(url: str) -> Any:
    """Schema ``shop`` (400 orders), onboarded without an LLM, and the bank pairs."""
    from example_bank.service import import_question_pairs
    from onboarding.service import OnboardOptions, onboard_schema
    from sqlgenie.store.migrations import ensure_migrated

    ensure_migrated(url)
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("CREATE SCHEMA shop")
        conn.execute("CREATE TABLE shop.orders (id integer PRIMARY KEY, order_date date NOT NULL,"
                     " amount numeric(10,2) NOT NULL, status text NOT NULL, city text NOT NULL)")
        with conn.cursor() as cur:
            cur.executemany("INSERT INTO shop.orders VALUES (%s, %s, %s, %s, %s)",
                            [(i, dt.date(2023, 1, 1) + dt.timedelta(days=(i * 7) % 900), 10 + (i * 37) % 500,
                              STATUSES[i % 3], CITIES[i % len(CITIES)]) for i in range(1, 401)])
        conn.execute("ANALYZE shop.orders")
    settings = settings_for(url)
    onboard_schema("shop", settings=settings, options=OnboardOptions(llm=None))
    report = import_question_pairs(settings, url, BANK)
    if report.rejected:
        raise RuntimeError(f"bank pairs rejected: {report.rejected}")
    return settings


def questions(n: int) -> list[tuple[str, str]]:
    """``n`` distinct (question, corrected SQL) pairs over the shop schema."""
    out: list[tuple[str, str]] = []
    for t, sql in TEMPLATES.items():
        for c in CITIES:
            out.append((t.format(city=c), sql.format(city=c)))
    if n > len(out):
        raise ValueError(f"at most {len(out)} distinct questions")
    return out[:n]


def ask_and_downvote(settings: Any, url: str, qs: list[tuple[str, str]]) -> list[int]:
    """Ask each question (the real pipeline) and give it a thumbs-down with a
    corrected SQL (checked by the safe executor): one regeneration job each.
    Returns the job ids."""
    from sqlgenie.feedback.service import give_feedback
    from sqlgenie.inference.pipeline import Asker

    with Asker.open(settings) as asker:
        ask_ids = [asker.ask(q).id for q, _ in qs]
    jobs = []
    with psycopg.connect(url, autocommit=True) as conn:
        for a, (_, sql) in zip(ask_ids, qs):
            jobs.append(give_feedback(conn, a, "down", comment="bench", sql=sql, user="bench",
                                      settings=settings).job_id)
    return jobs


def start_worker(url: str, *args: str, **extra: str) -> subprocess.Popen:
    return subprocess.Popen(["nice", "-n", "10", sys.executable, "-m", "sqlgenie", "worker", "--json", *args],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env(url, **extra))


def wait_for(pred: Any, timeout: float, step: float = 0.05) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if pred():
            return True
        time.sleep(step)
    return False


def job_states(conn: psycopg.Connection, job_ids: list[int]) -> dict[str, int]:
    rows = conn.execute("SELECT status, count(*) FROM sqlgenie.jobs WHERE id = ANY(%s) GROUP BY status",
                        (job_ids,)).fetchall()
    return {r[0]: int(r[1]) for r in rows}
