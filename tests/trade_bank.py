"""A small onboarded schema ``trade`` (one table of 200 orders over four cities) with a
bank of verified question → SQL pairs: the fixture the match-route tests share
(tests/test_match_groups.py, tests/test_match_deeper.py). Real PostgreSQL, no stand-ins."""

from __future__ import annotations

import datetime as dt
from typing import Sequence

import psycopg

from sqlgenie.config import Settings, load_settings

CITIES = ["Boston", "Chicago", "Denver", "Seattle"]


def create_trade_schema(url: str) -> None:
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("CREATE SCHEMA trade")
        conn.execute("CREATE TABLE trade.orders (id integer PRIMARY KEY, amount numeric(10,2) NOT NULL,"
                     " status text NOT NULL, city text NOT NULL)")
        with conn.cursor() as cur:
            cur.executemany("INSERT INTO trade.orders VALUES (%s, %s, %s, %s)",
                            [(i, 10 + (i * 37) % 500, "returned" if i % 7 == 0 else "delivered", CITIES[i % 4])
                             for i in range(1, 201)])
        conn.execute("ANALYZE trade.orders")


def onboard_trade(url: str, bank: Sequence[tuple[str, str]]) -> Settings:
    """Create, onboard (no LLM) and load ``bank`` as verified pairs; the settings to ask with."""
    from example_bank.service import import_question_pairs
    from onboarding.service import OnboardOptions, onboard_schema

    create_trade_schema(url)
    settings = load_settings(database_url=url, now=dt.datetime(2025, 6, 15, 12, 0))
    onboard_schema("trade", settings=settings, options=OnboardOptions(llm=None))
    report = import_question_pairs(settings, url, bank)
    assert not report.rejected, report.rejected
    return settings
