"""Onboarded schemas with a bank of verified question → SQL pairs: the fixture the
match-route tests share (tests/test_match_groups.py, test_match_deeper.py,
test_match_precision.py, test_match_sides.py). Real PostgreSQL, no stand-ins."""

from __future__ import annotations

import datetime as dt
from contextlib import contextmanager
from typing import Any, Callable, Iterator, Sequence

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


def create_air(cities: Sequence[str], extra: Sequence[tuple[str, str, Callable[[int], Any]]] = (),
               rows: int = 60) -> Callable[[psycopg.Connection], None]:
    """A ``create`` for :func:`onboard_with_bank`: ``air.city`` holding ``cities`` (codes C0, C1, ...)
    and ``rows`` ``air.flight`` rows between them (used through :func:`air_asker`); ``extra`` adds
    flight columns ``(name, SQL type, value of row i)``."""
    def create(conn: psycopg.Connection) -> None:
        conn.execute("CREATE SCHEMA air")
        conn.execute("CREATE TABLE air.city (city_code text PRIMARY KEY, city_name text NOT NULL)")
        more = "".join(f", {name} {kind} NOT NULL" for name, kind, _ in extra)
        conn.execute("CREATE TABLE air.flight (flight_id integer PRIMARY KEY,"
                     f" from_city text NOT NULL REFERENCES air.city, to_city text NOT NULL REFERENCES air.city{more})")
        codes = [f"C{i}" for i in range(len(cities))]
        n = len(codes)
        marks = ", ".join(["%s"] * (3 + len(extra)))
        with conn.cursor() as cur:
            cur.executemany("INSERT INTO air.city VALUES (%s, %s)", list(zip(codes, cities)))
            cur.executemany(f"INSERT INTO air.flight VALUES ({marks})",
                            [(i, codes[i % n], codes[(i * 3 + 1) % n], *(value(i) for _, _, value in extra))
                             for i in range(1, rows + 1)])
        for t in ("city", "flight"):
            conn.execute(f"ANALYZE air.{t}")

    return create


AIR_ROUTE = ("FROM air.flight AS f, air.city AS a, air.city AS b "
             "WHERE f.from_city = a.city_code AND f.to_city = b.city_code")


def air_route(x: str, y: str, columns: str = "f.flight_id") -> str:
    """The flights from city ``x`` to city ``y`` over :func:`create_air`'s schema."""
    return f"SELECT DISTINCT {columns} {AIR_ROUTE} AND a.city_name = '{x}' AND b.city_name = '{y}'"


@contextmanager
def bank_asker(url: str, schema: str, create: Callable[[psycopg.Connection], None],
               bank: Sequence[tuple[str, str]]) -> Iterator[Any]:
    """An :class:`~sqlgenie.inference.pipeline.Asker` (no LLM) over ``schema``, made by ``create`` and
    onboarded with ``bank`` (the match-route rule tests' module fixture)."""
    from sqlgenie.inference.pipeline import Asker

    settings = onboard_with_bank(url, schema, create, bank, measure_indexes=False, top_values=10)
    with Asker.open(settings, provider=None, log=False) as asker:
        yield asker


def air_asker(url: str, cities: Sequence[str], bank: Sequence[tuple[str, str]]):
    """:func:`bank_asker` over ``air`` holding ``cities`` (the ATIS-like tests: value reading, between,
    directions, ties, read apart)."""
    return bank_asker(url, "air", create_air(cities), bank)


def onboard_trade(url: str, bank: Sequence[tuple[str, str]]) -> Settings:
    return onboard_with_bank(url, "trade", create_trade, bank)


LIB_AUTHORS = ["Dan Klein", "Ray Mooney", "Mirella Lapata", "Percy Liang"]
LIB_VENUES = ["ACL", "EMNLP", "NAACL", "CVPR"]
LIB_TOPICS = ["parsing", "vision", "translation", "robotics"]
LIB_AUTHORS_AT = ("SELECT DISTINCT w.authorid FROM lib.paper AS p, lib.venue AS v, lib.writes AS w "
                  "WHERE v.venueid = p.venueid AND v.venuename = '{}' AND w.paperid = p.paperid")
LIB_TOPICS_AT = ("SELECT DISTINCT k.keyphrasename FROM lib.keyphrase AS k, lib.paper AS p, lib.paperkeyphrase AS pk, "
                 "lib.venue AS v WHERE v.venueid = p.venueid AND v.venuename = '{}' AND pk.keyphraseid = k.keyphraseid "
                 "AND p.paperid = pk.paperid")


def lib_schema(authors: Sequence[str], venues: Sequence[str],
               topics: Sequence[str]) -> Callable[[psycopg.Connection], None]:
    """A ``create`` for :func:`bank_asker`: ``lib``, a small scholar-like schema (authors, venues, papers,
    keyphrases, who wrote what, citations) holding these names; 40 papers spread over them."""

    def create(conn: psycopg.Connection) -> None:
        conn.execute("CREATE SCHEMA lib")
        conn.execute("CREATE TABLE lib.author (authorid integer PRIMARY KEY, authorname text NOT NULL)")
        conn.execute("CREATE TABLE lib.venue (venueid integer PRIMARY KEY, venuename text NOT NULL)")
        conn.execute("CREATE TABLE lib.paper (paperid integer PRIMARY KEY, title text NOT NULL, year integer NOT NULL,"
                     " venueid integer NOT NULL REFERENCES lib.venue)")
        conn.execute("CREATE TABLE lib.keyphrase (keyphraseid integer PRIMARY KEY, keyphrasename text NOT NULL)")
        conn.execute("CREATE TABLE lib.paperkeyphrase (paperid integer NOT NULL REFERENCES lib.paper,"
                     " keyphraseid integer NOT NULL REFERENCES lib.keyphrase, PRIMARY KEY (paperid, keyphraseid))")
        conn.execute("CREATE TABLE lib.writes (paperid integer NOT NULL REFERENCES lib.paper,"
                     " authorid integer NOT NULL REFERENCES lib.author, PRIMARY KEY (paperid, authorid))")
        conn.execute("CREATE TABLE lib.cite (citingpaperid integer NOT NULL REFERENCES lib.paper,"
                     " citedpaperid integer NOT NULL REFERENCES lib.paper, PRIMARY KEY (citingpaperid, citedpaperid))")
        with conn.cursor() as cur:
            cur.executemany("INSERT INTO lib.author VALUES (%s, %s)", list(enumerate(authors, 1)))
            cur.executemany("INSERT INTO lib.venue VALUES (%s, %s)", list(enumerate(venues, 1)))
            cur.executemany("INSERT INTO lib.paper VALUES (%s, %s, %s, %s)",
                            [(i, f"paper {i}", 2010 + i % 6, 1 + i % len(venues)) for i in range(1, 41)])
            cur.executemany("INSERT INTO lib.writes VALUES (%s, %s)", [(i, 1 + i % len(authors)) for i in range(1, 41)])
            cur.executemany("INSERT INTO lib.keyphrase VALUES (%s, %s)", list(enumerate(topics, 1)))
            cur.executemany("INSERT INTO lib.paperkeyphrase VALUES (%s, %s)",
                            [(i, 1 + i % len(topics)) for i in range(1, 41)])
            cur.executemany("INSERT INTO lib.cite VALUES (%s, %s)",  # 7i = i - 1 (mod 40) has no solution: no self-cite
                            [(i, 1 + (i * 7) % 40) for i in range(1, 41)])
        for t in ("author", "venue", "paper", "writes", "keyphrase", "paperkeyphrase", "cite"):
            conn.execute(f"ANALYZE lib.{t}")

    return create


#: ``lib`` with the names above (the answer-word and head-reading tests).
create_lib = lib_schema(LIB_AUTHORS, LIB_VENUES, LIB_TOPICS)


def refused_then_answered_without(asker: Any, monkeypatch: Any, question: str, code: str,
                                  reason_code: Callable[[str], str | None], off: Sequence[tuple[Any, str]],
                                  counted: bool = True) -> str:
    """Ask ``question``: refused with ``code`` as its module reads the reason (and, ``counted``, as ``eval
    bank`` counts it: the nearest example's refusal is this one); with the switches ``off`` (``(module,
    name)``) set False it is answered. Returns that SQL."""
    from sqlgenie.inference.eval_bank import _reason_bucket

    r = asker.ask(question, route="match")
    assert r.status == "refused", r.sql
    reason = r.think.reason or ""
    assert reason_code(reason) == code, reason
    assert not counted or _reason_bucket(reason) == code, reason
    for module, switch in off:  # the refusal is this rule's
        monkeypatch.setattr(module, switch, False)
    r = asker.ask(question, route="match")
    assert r.status == "ok", r.think and r.think.reason
    return r.sql


def deeper_added_words(asker: Any, question: str, example_question: str, example_sql: str) -> list[str]:
    """The words ``question`` adds to the bank example ``example_question`` taken as a deeper candidate
    (:func:`sqlgenie.inference.deeper.added_words`; the deeper-word and filler-form tests)."""
    from types import SimpleNamespace

    from sqlgenie.inference import deeper

    row = asker.store.execute("SELECT id FROM sqlgenie.bank_examples WHERE question = %s",
                              (example_question,)).fetchone()
    cand = SimpleNamespace(example=SimpleNamespace(id=row[0], question=example_question, sql=example_sql,
                                                   skeleton=""))
    retrieval = asker.retriever.retrieve(question, k=1, threshold=0.0)
    return deeper.added_words(asker, retrieval, cand)
