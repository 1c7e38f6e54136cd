"""Onboarded schemas with a bank of verified question → SQL pairs: the fixture the
match-route tests share (tests/test_match_groups.py, test_match_deeper.py,
test_match_precision.py, test_match_sides.py). Real PostgreSQL, no stand-ins."""

from __future__ import annotations

import datetime as dt
from typing import Any, Callable, Sequence

import psycopg

from sqlgenie.config import Settings, load_settings

CITIES = ["Boston", "Chicago", "Denver", "Seattle"]


def onboard_with_bank(url: str, schema: str, create: Callable[[psycopg.Connection], None],
                      bank: Sequence[tuple[str, str]], **options: Any) -> Settings:
    """Create ``schema`` with ``create(conn)``, onboard it (no LLM; ``options`` for
    :class:`~onboarding.service.OnboardOptions`) and import ``bank`` as verified pairs
    (none may be rejected); the settings to ask with."""
    from example_bank.service import import_question_pairs
    from onboarding.service import OnboardOptions, onboard_schema
    from sqlgenie.store.migrations import ensure_migrated

    ensure_migrated(url)
    with psycopg.connect(url, autocommit=True) as conn:
        create(conn)
    settings = load_settings(database_url=url, now=dt.datetime(2025, 6, 15, 12, 0))
    onboard_schema(schema, settings=settings, options=OnboardOptions(llm=None, **options))
    report = import_question_pairs(settings, url, bank)
    assert not report.rejected, report.rejected
    return settings


def create_trade(conn: psycopg.Connection) -> None:
    """``trade.orders``: 200 orders over four cities, one in seven returned."""
    conn.execute("CREATE SCHEMA trade")
    conn.execute("CREATE TABLE trade.orders (id integer PRIMARY KEY, amount numeric(10,2) NOT NULL,"
                 " status text NOT NULL, city text NOT NULL)")
    with conn.cursor() as cur:
        cur.executemany("INSERT INTO trade.orders VALUES (%s, %s, %s, %s)",
                        [(i, 10 + (i * 37) % 500, "returned" if i % 7 == 0 else "delivered", CITIES[i % 4])
                         for i in range(1, 201)])
    conn.execute("ANALYZE trade.orders")


def create_air(cities: Sequence[str]) -> Callable[[psycopg.Connection], None]:
    """A ``create`` for :func:`onboard_with_bank`: ``air.city`` holding ``cities`` (codes C0, C1, ...)
    and 60 ``air.flight`` rows between them (tests/test_match_value_reading.py,
    test_match_between_example.py)."""
    def create(conn: psycopg.Connection) -> None:
        conn.execute("CREATE SCHEMA air")
        conn.execute("CREATE TABLE air.city (city_code text PRIMARY KEY, city_name text NOT NULL)")
        conn.execute("CREATE TABLE air.flight (flight_id integer PRIMARY KEY,"
                     " from_city text NOT NULL REFERENCES air.city, to_city text NOT NULL REFERENCES air.city)")
        codes = [f"C{i}" for i in range(len(cities))]
        n = len(codes)
        with conn.cursor() as cur:
            cur.executemany("INSERT INTO air.city VALUES (%s, %s)", list(zip(codes, cities)))
            cur.executemany("INSERT INTO air.flight VALUES (%s, %s, %s)",
                            [(i, codes[i % n], codes[(i * 3 + 1) % n]) for i in range(1, 61)])
        for t in ("city", "flight"):
            conn.execute(f"ANALYZE air.{t}")

    return create


def onboard_trade(url: str, bank: Sequence[tuple[str, str]]) -> Settings:
    return onboard_with_bank(url, "trade", create_trade, bank)
