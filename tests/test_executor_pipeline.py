"""The safe executor's pipelined run (one round trip) on a real PostgreSQL: the wire
trace shows one Sync, and against the statement-by-statement path it returns the
same rows, has the same settings in force, raises the same typed errors, always
rolls back, never re-sends a query, and reconnects when the idle backend died."""

from __future__ import annotations

import tempfile
import threading
import time

import psycopg
import pytest
from psycopg import pq

from sqlgenie.errors import (
    DatabaseConnectionError,
    QueryExecutionError,
    QueryTimeoutError,
    SQLSyntaxError,
    UnknownIdentifierError,
    UnsafeSQLError,
)
from sqlgenie.executor import SafeExecutor

from pg_helpers import terminate_when_active

SETUP = """
CREATE TABLE items (id int PRIMARY KEY, name text, price numeric(8, 2), added date, tags text[]);
INSERT INTO items VALUES (1, 'pen', 1.50, '2024-01-02', '{a,b}'), (2, 'book', 12.00, '2024-02-03', '{}'),
                         (3, 'ink', NULL, NULL, NULL);
CREATE SEQUENCE counter;
CREATE SCHEMA alpha; CREATE TABLE alpha.t (v text); INSERT INTO alpha.t VALUES ('from alpha');
CREATE SCHEMA "we""ird sch"; CREATE TABLE "we""ird sch".t (v text); INSERT INTO "we""ird sch".t VALUES ('from weird');
"""

HEAVY = "SELECT count(*) FROM pg_catalog.generate_series(1, 1e9)"

SETTINGS_SQL = (
    "SELECT current_setting('transaction_read_only') AS ro, current_setting('statement_timeout') AS timeout, "
    "current_setting('standard_conforming_strings') AS scs, current_setting('cursor_tuple_fraction') AS ctf, "
    "current_setting('search_path') AS path"
)


@pytest.fixture(scope="module")
def db(module_db_url: str) -> str:
    with psycopg.connect(module_db_url, autocommit=True) as conn:
        conn.execute(SETUP)
    return module_db_url


@pytest.fixture(scope="module")
def pair(db: str):
    """(pipelined, statement-by-statement) executors with the same limits."""
    with SafeExecutor(db, statement_timeout_ms=5000, row_cap=2, pipeline=True) as piped, \
            SafeExecutor(db, statement_timeout_ms=5000, row_cap=2, pipeline=False) as step:
        assert piped.pipeline and not step.pipeline
        yield piped, step


@pytest.fixture(scope="module")
def admin(db: str):
    with psycopg.connect(db, autocommit=True) as conn:
        yield conn


def _wire(executor: SafeExecutor, sql: str, **kwargs) -> list[tuple[str, str, str]]:
    """Run ``sql`` with libpq's protocol trace on: (direction, message, rest) per line."""
    executor.run("SELECT 1")  # connected, idle
    pgconn = executor._conn.pgconn  # type: ignore[union-attr]
    with tempfile.TemporaryFile("w+") as f:
        pgconn.trace(f.fileno())
        pgconn.set_trace_flags(pq.Trace.SUPPRESS_TIMESTAMPS | pq.Trace.REGRESS_MODE)
        try:
            executor.run(sql, **kwargs)
        finally:
            pgconn.untrace()
        f.seek(0)
        lines = [line.rstrip("\n").split("\t") for line in f if line.strip()]
    return [(parts[0], parts[2].strip(), "\t".join(parts[3:]).strip()) for parts in lines if len(parts) >= 3]


def _round_trips(wire: list[tuple[str, str, str]]) -> int:
    """Client messages that make the server answer and wait for the client: Sync, Query."""
    return sum(1 for direction, message, _ in wire if direction == "F" and message in {"Sync", "Query"})


def test_a_run_is_one_round_trip_in_order(pair):
    piped, step = pair
    sql = "SELECT name FROM public.items ORDER BY id"
    wire = _wire(piped, sql, search_path=["alpha"], timeout_ms=1500)
    assert _round_trips(wire) == 1
    parsed = [rest for direction, message, rest in wire if direction == "F" and message == "Parse"]
    assert len(parsed) == 6
    assert '"BEGIN READ ONLY"' in parsed[0]
    assert "set_config('statement_timeout', $1, true)" in parsed[1]
    assert "'1500'" in [rest for d, m, rest in wire if d == "F" and m == "Bind"][1]
    assert 'SET LOCAL search_path TO "alpha"' in parsed[2]
    assert f'NO SCROLL CURSOR FOR {sql}"' in parsed[3]  # the original text, once
    assert "FETCH FORWARD 3 FROM" in parsed[4]  # row cap 2, plus one to see truncation
    assert '"ROLLBACK"' in parsed[5]
    assert sum(sql in rest for _, _, rest in wire) == 1
    assert ("B", "ReadyForQuery", "I") in wire  # idle again: nothing left open
    # the statement-by-statement path: setup, DECLARE, Describe, FETCH, ROLLBACK
    assert _round_trips(_wire(step, sql, search_path=["alpha"], timeout_ms=1500)) == 5


@pytest.mark.parametrize(
    "sql, kwargs",
    [
        ("SELECT id, name, price, added, tags FROM items ORDER BY id", {"row_cap": 10}),
        ("SELECT id, name, price, added, tags FROM items ORDER BY id", {}),  # truncated at 2
        ("SELECT id FROM items WHERE false", {}),  # no rows, still columns
        ("SELECT v FROM t", {"search_path": ["alpha"]}),
        ("SELECT v FROM t", {"search_path": ['we"ird sch', "alpha"]}),
        ("SELECT 'a\\b' AS s, E'a\\\\b' AS e, $$x;y$$ AS d", {}),  # standard_conforming_strings
        ("VALUES (1, 'x'), (2, NULL)", {}),
        ("SELECT count(*) AS n, sum(price) AS total FROM items", {}),
    ],
)
def test_pipelined_and_step_by_step_return_the_same(pair, sql, kwargs):
    piped, step = pair
    before = piped.pipelined_runs
    a, b = piped.run(sql, **kwargs), step.run(sql, **kwargs)
    assert piped.pipelined_runs == before + 1
    assert (a.columns, a.rows, a.truncated) == (b.columns, b.rows, b.truncated)
    assert a.columns and a.elapsed_ms > 0


def test_settings_in_force_are_the_same_and_do_not_outlive_the_run(pair):
    piped, step = pair
    kwargs = {"timeout_ms": 1234, "search_path": ['we"ird sch', "alpha"]}
    a, b = piped.run(SETTINGS_SQL, **kwargs), step.run(SETTINGS_SQL, **kwargs)
    assert a.rows == b.rows == [("on", "1234ms", "on", "1", '"we""ird sch", alpha')]
    # the next run without them: the executor's own timeout, the session's search_path
    a, b = piped.run(SETTINGS_SQL), step.run(SETTINGS_SQL)
    assert a.rows == b.rows
    assert a.rows[0][1] == "5s" and a.rows[0][4] == '"$user", public'


def test_session_level_set_config_inside_a_query_is_rolled_back(pair):
    piped, _ = pair
    # set_config is not on the allow-list; _execute skips validation to show the rollback
    piped._execute("SELECT set_config('search_path', 'alpha', false), set_config('statement_timeout', '1', false)")
    assert piped.run(SETTINGS_SQL).rows[0][1:] == ("5s", "on", "1", '"$user", public')


ERRORS = [
    ("run", "SELECT nope FROM items", UnknownIdentifierError),
    ("run", "SELECT * FROM missing_table", UnknownIdentifierError),
    ("run", "SELECT 1 / (id - id) FROM items", QueryExecutionError),
    ("run", "SELECT name::int FROM items", QueryExecutionError),
    ("run", "DELETE FROM items", UnsafeSQLError),  # the validator
    ("_execute", "SELEC 1", SQLSyntaxError),
    # database-side guards with validation skipped: one statement, read only
    ("_execute", "SELECT 1; DELETE FROM items", SQLSyntaxError),
    ("_execute", "DELETE FROM items", SQLSyntaxError),
    ("_execute", "WITH d AS (DELETE FROM items RETURNING id) SELECT id FROM d", QueryExecutionError),
    ("_execute", "SELECT nextval('counter')", UnsafeSQLError),
]


@pytest.mark.parametrize("method, sql, error", ERRORS)
def test_errors_are_the_same_typed_errors_and_always_rolled_back(pair, admin, method, sql, error):
    piped, step = pair
    connects, runs = piped.connects, piped.pipelined_runs
    with pytest.raises(error) as a:
        getattr(piped, method)(sql)
    with pytest.raises(error) as b:
        getattr(step, method)(sql)
    assert a.value.message == b.value.message
    assert getattr(a.value, "sql", None) == getattr(b.value, "sql", None)
    conn = piped._conn
    if conn is not None:  # validation errors never open a transaction
        assert conn.info.transaction_status == pq.TransactionStatus.IDLE
    # the same connection, and the next run is pipelined again
    assert piped.run("SELECT count(*) FROM items").rows == [(3,)]
    assert piped.connects == connects and piped.pipelined_runs == runs + 1
    assert admin.execute("SELECT last_value, is_called FROM counter").fetchone() == (1, False)


def test_statement_timeout_cancels_in_the_pipeline(pair):
    piped, step = pair
    for executor in (piped, step):
        start = time.perf_counter()
        with pytest.raises(QueryTimeoutError) as info:
            executor.run(HEAVY, timeout_ms=300)
        assert time.perf_counter() - start < 10  # cancelled, not run to the end (minutes)
        assert "300 ms" in info.value.message
        assert executor.run("SELECT 1").rows == [(1,)]


def test_idle_backend_terminated_takes_the_step_path_and_reconnects(db, admin):
    with SafeExecutor(db) as executor:
        first = executor.run("SELECT pg_backend_pid()").rows[0][0]
        assert executor.pipelined_runs == 1
        assert admin.execute("SELECT pg_terminate_backend(%s, 5000)", (first,)).fetchone() == (True,)
        for _ in range(100):  # the FATAL message reaches the client socket
            if not _quiet(executor):
                break
            time.sleep(0.01)
        result = executor.run("SELECT pg_backend_pid(), 42")
        assert result.rows[0][1] == 42 and result.rows[0][0] != first
        assert executor.connects == 2
        assert executor.pipelined_runs == 1  # that run went step by step
        executor.run("SELECT 1")
        assert executor.pipelined_runs == 2  # and the next one is pipelined again


def _quiet(executor: SafeExecutor) -> bool:
    from sqlgenie.executor.runner import _idle_and_quiet

    return _idle_and_quiet(executor._conn)  # type: ignore[arg-type]


def test_connection_lost_mid_pipeline_is_not_retried(db, admin):
    with SafeExecutor(db) as executor:
        pid = executor.run("SELECT pg_backend_pid()").rows[0][0]
        with terminate_when_active(admin, pid, tries=500), pytest.raises(DatabaseConnectionError) as info:
            executor.run(HEAVY, timeout_ms=20_000)
        assert "reconnects" in info.value.hint
        assert executor.connects == 1  # the query was not sent again on a new connection
        assert executor.run("SELECT 7").rows == [(7,)]
        assert executor.connects == 2


def test_concurrent_runs_on_one_executor_stay_separate(db):
    with SafeExecutor(db, pipeline=True) as executor:
        results: dict[int, list] = {}

        def worker(k: int) -> None:
            results[k] = [executor.run(f"SELECT {k * 100 + i} AS v").rows[0][0] for i in range(20)]

        threads = [threading.Thread(target=worker, args=(k,)) for k in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert results == {k: [k * 100 + i for i in range(20)] for k in range(4)}
        assert executor.connects == 1 and executor.pipelined_runs == 80
