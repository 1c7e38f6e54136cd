"""SafeExecutor on a real PostgreSQL: timeouts, row cap, search_path, connection
reuse and reconnect, error mapping, EXPLAIN, settings, and the reader role."""

from __future__ import annotations

import datetime as dt
import decimal
import time
import uuid

import psycopg
import pytest
from psycopg import sql as pgsql

from sqlgenie.errors import (
    DatabaseConnectionError,
    InputError,
    QueryExecutionError,
    QueryTimeoutError,
    SQLSyntaxError,
    UnknownIdentifierError,
    UnsafeSQLError,
)
from sqlgenie.executor import QueryResult, SafeExecutor, create_reader_role
from sqlgenie.executor.roles import reader_url

from pg_helpers import terminate_when_active

SETUP = """
CREATE TABLE items (id int PRIMARY KEY, name text, price numeric(8, 2), added date);
INSERT INTO items VALUES (1, 'pen', 1.50, '2024-01-02'), (2, 'book', 12.00, '2024-02-03'), (3, 'ink', NULL, NULL);
CREATE SCHEMA alpha; CREATE TABLE alpha.t (v text); INSERT INTO alpha.t VALUES ('from alpha');
CREATE SCHEMA beta;  CREATE TABLE beta.t (v text);  INSERT INTO beta.t VALUES ('from beta');
CREATE SCHEMA "we""ird sch"; CREATE TABLE "we""ird sch".t (v text); INSERT INTO "we""ird sch".t VALUES ('from weird');
"""

HEAVY = "SELECT count(*) FROM pg_catalog.generate_series(1, 1e9)"


@pytest.fixture(scope="module")
def db(module_db_url: str) -> str:
    with psycopg.connect(module_db_url, autocommit=True) as conn:
        conn.execute(SETUP)
    return module_db_url


@pytest.fixture(scope="module")
def ex(db: str):
    with SafeExecutor(db, statement_timeout_ms=5000, row_cap=1000) as executor:
        yield executor


@pytest.fixture(scope="module")
def admin(db: str):
    with psycopg.connect(db, autocommit=True) as conn:
        yield conn


def test_run_returns_typed_rows_and_columns(ex: SafeExecutor):
    result = ex.run("SELECT id, name, price, added FROM items ORDER BY id")
    assert isinstance(result, QueryResult)
    assert result.columns == ["id", "name", "price", "added"]
    assert result.rows == [
        (1, "pen", decimal.Decimal("1.50"), dt.date(2024, 1, 2)),
        (2, "book", decimal.Decimal("12.00"), dt.date(2024, 2, 3)),
        (3, "ink", None, None),
    ]
    assert all(isinstance(r, tuple) for r in result.rows)
    assert result.truncated is False
    assert result.elapsed_ms > 0
    assert result.sql == "SELECT id, name, price, added FROM items ORDER BY id"


def test_timeout_on_heavy_query_is_fast_and_typed(ex: SafeExecutor):
    start = time.monotonic()
    with pytest.raises(QueryTimeoutError) as info:
        ex.run(HEAVY, timeout_ms=200)
    assert time.monotonic() - start < 5
    assert "200 ms" in info.value.message
    assert info.value.hint  # tells the user what to do
    assert ex.run("SELECT 1").rows == [(1,)]  # the connection is usable afterwards


def test_default_timeout_comes_from_the_executor(db: str):
    with SafeExecutor(db, statement_timeout_ms=150) as short:
        with pytest.raises(QueryTimeoutError):
            short.run(HEAVY)
        # a per-run value wins, and SET LOCAL does not leak into the next run
        assert short.run("SELECT current_setting('statement_timeout')", timeout_ms=4321).rows == [("4321ms",)]
        assert short.run("SELECT current_setting('statement_timeout')").rows == [("150ms",)]


def test_row_cap_and_truncation(ex: SafeExecutor):
    capped = ex.run("SELECT g FROM generate_series(1, 50) AS g ORDER BY g", row_cap=10)
    assert capped.rows == [(i,) for i in range(1, 11)]
    assert capped.truncated is True
    exact = ex.run("SELECT g FROM generate_series(1, 10) AS g", row_cap=10)
    assert len(exact.rows) == 10 and exact.truncated is False
    assert ex.run("SELECT 1", row_cap=1).truncated is False
    with pytest.raises(ValueError):
        ex.run("SELECT 1", row_cap=0)


def test_default_row_cap_comes_from_the_executor(db: str):
    with SafeExecutor(db, row_cap=3) as small:
        result = small.run("SELECT generate_series(1, 5)")
    assert len(result.rows) == 3 and result.truncated


def test_row_cap_streams_instead_of_fetching_everything(ex: SafeExecutor):
    # 100 million rows would take minutes to produce and transfer; the cursor stops at cap + 1.
    start = time.monotonic()
    result = ex.run("SELECT generate_series(1, 100000000) AS n", row_cap=5, timeout_ms=3000)
    assert result.rows == [(1,), (2,), (3,), (4,), (5,)]
    assert result.truncated is True
    assert time.monotonic() - start < 3


def test_search_path_per_run(ex: SafeExecutor):
    assert ex.run("SELECT v FROM t", search_path="alpha").rows == [("from alpha",)]
    assert ex.run("SELECT v FROM t", search_path=["beta"]).rows == [("from beta",)]
    assert ex.run("SELECT v FROM t", search_path='we"ird sch').rows == [("from weird",)]
    assert ex.run("SELECT count(*) FROM items", search_path="beta, public").rows == [(3,)]
    # nothing leaks: without search_path, the session default applies again
    assert ex.run("SELECT current_setting('search_path')").rows == [('"$user", public',)]
    with pytest.raises(UnknownIdentifierError):
        ex.run("SELECT v FROM t")


def test_search_path_is_quoted_not_injected(ex: SafeExecutor, admin: psycopg.Connection):
    result = ex.run("SELECT current_setting('search_path')", search_path="public; DROP TABLE items; --")
    assert result.rows == [('"public; DROP TABLE items; --"',)]
    assert admin.execute("SELECT count(*) FROM items").fetchone() == (3,)


def test_executor_default_search_path(db: str):
    with SafeExecutor(db, search_path="alpha") as scoped:
        assert scoped.run("SELECT v FROM t").rows == [("from alpha",)]
        assert scoped.run("SELECT v FROM t", search_path="beta").rows == [("from beta",)]


def test_connection_is_reused_across_runs(db: str, admin: psycopg.Connection):
    with SafeExecutor(db) as executor:
        pids = {executor.run("SELECT pg_backend_pid()").rows[0][0] for _ in range(200)}
        with pytest.raises(UnsafeSQLError):
            executor.run("DELETE FROM items")
        with pytest.raises(UnknownIdentifierError):
            executor.run("SELECT * FROM nope")
        pids.add(executor.run("SELECT pg_backend_pid()").rows[0][0])
        assert len(pids) == 1
        assert executor.connects == 1
        (pid,) = pids
        state = admin.execute("SELECT state FROM pg_stat_activity WHERE pid = %s", (pid,)).fetchone()
        assert state == ("idle",)  # not left "idle in transaction"
    for _ in range(100):  # close() ends the backend (the server notices within moments)
        if admin.execute("SELECT count(*) FROM pg_stat_activity WHERE pid = %s", (pid,)).fetchone() == (0,):
            break
        time.sleep(0.02)
    else:
        pytest.fail("the executor's backend is still alive after close()")


def test_reconnects_after_backend_is_terminated(db: str, admin: psycopg.Connection):
    with SafeExecutor(db) as executor:
        first = executor.run("SELECT pg_backend_pid()").rows[0][0]
        assert admin.execute("SELECT pg_terminate_backend(%s, 5000)", (first,)).fetchone() == (True,)
        result = executor.run("SELECT pg_backend_pid(), 42")
        assert result.rows[0][1] == 42
        assert result.rows[0][0] != first
        assert executor.connects == 2


def test_connection_lost_during_query_is_a_connection_error(db: str, admin: psycopg.Connection):
    with SafeExecutor(db) as executor:
        pid = executor.run("SELECT pg_backend_pid()").rows[0][0]
        with terminate_when_active(admin, pid), pytest.raises(DatabaseConnectionError) as info:
            executor.run(HEAVY, timeout_ms=20_000)
        assert "reconnects" in info.value.hint
        assert executor.run("SELECT 7").rows == [(7,)]  # the next run reconnects
        assert executor.connects == 2


def test_close_then_run_reopens(db: str):
    executor = SafeExecutor(db)
    assert executor.run("SELECT 1").rows == [(1,)]
    executor.close()
    assert executor._conn is None
    assert executor.run("SELECT 2").rows == [(2,)]
    assert executor.connects == 2
    executor.close()


def test_unknown_table_column_function_name_the_identifier(ex: SafeExecutor):
    with pytest.raises(UnknownIdentifierError) as table:
        ex.run("SELECT * FROM no_such_table")
    assert table.value.identifier == "no_such_table"
    assert "no_such_table" in table.value.message
    with pytest.raises(UnknownIdentifierError) as column:
        ex.run("SELECT nme FROM items")
    assert column.value.identifier == "nme"
    assert "nme" in column.value.message
    assert 'Perhaps you meant to reference the column "items.name"' in column.value.hint  # PostgreSQL's hint
    with pytest.raises(UnknownIdentifierError) as function:
        ex.run("SELECT no_such_fn(1)")
    assert "no_such_fn" in function.value.message
    with pytest.raises(UnknownIdentifierError) as schema:
        ex.run("SELECT * FROM nowhere.items")
    assert "nowhere" in schema.value.message
    assert schema.value.sql == "SELECT * FROM nowhere.items"


def test_syntax_errors(ex: SafeExecutor):
    with pytest.raises(SQLSyntaxError, match="does not parse"):
        ex.run("SELECT (1")  # caught by the validator
    with pytest.raises(SQLSyntaxError, match="PostgreSQL rejected the syntax"):
        ex.run("SELECT 1 FROM items LEFT JOIN items AS b")  # sqlglot accepts, PostgreSQL does not
    with pytest.raises(SQLSyntaxError):
        ex._execute("SELEC 1")  # PostgreSQL's own syntax error, mapped


def test_other_database_errors_are_query_execution_errors(ex: SafeExecutor):
    with pytest.raises(QueryExecutionError, match="division by zero") as info:
        ex.run("SELECT 1 / 0")
    assert info.value.sql == "SELECT 1 / 0"
    with pytest.raises(QueryExecutionError, match="invalid input syntax"):
        ex.run("SELECT 'abc'::int")
    assert ex.run("SELECT 3").rows == [(3,)]


def test_cannot_connect_is_a_connection_error():
    executor = SafeExecutor("postgresql://nobody@/nodb?host=/nonexistent-socket-dir&connect_timeout=2")
    with pytest.raises(DatabaseConnectionError) as info:
        executor.run("SELECT 1")
    assert "SQLGENIE_TARGET_DATABASE_URL" in info.value.hint
    with pytest.raises(UnsafeSQLError):  # validation happens before any connection
        executor.run("DROP TABLE x")


def test_constructor_validates_limits(db: str):
    with pytest.raises(ValueError):
        SafeExecutor(db, statement_timeout_ms=0)
    with pytest.raises(ValueError):
        SafeExecutor(db, row_cap=-1)


def test_explain_plans_without_running(ex: SafeExecutor):
    plan = ex.explain("SELECT name FROM items WHERE price > 2")
    assert plan["Plan"]["Node Type"] == "Seq Scan"
    assert plan["Plan"]["Total Cost"] > 0
    assert "Actual Rows" not in plan["Plan"]  # never ANALYZE
    start = time.monotonic()
    heavy = ex.explain(HEAVY, timeout_ms=200)  # planned, not executed: no timeout
    assert heavy["Plan"]["Plan Rows"] == 1
    assert time.monotonic() - start < 5
    with pytest.raises(UnsafeSQLError):
        ex.explain("DELETE FROM items")
    with pytest.raises(UnsafeSQLError):
        ex.explain("EXPLAIN ANALYZE SELECT 1")
    with pytest.raises(UnknownIdentifierError):
        ex.explain("SELECT * FROM nope")


def test_from_settings_uses_target_and_limits(settings, fresh_db_url: str):
    settings = settings.model_copy(update={"statement_timeout_ms": 1234, "row_cap": 2})
    with SafeExecutor.from_settings(settings) as executor:
        assert executor.statement_timeout_ms == 1234 and executor.row_cap == 2
        dbname = psycopg.conninfo.conninfo_to_dict(fresh_db_url)["dbname"]
        assert executor.run("SELECT current_database()").rows == [(dbname,)]
        assert executor.run("SELECT current_setting('statement_timeout')").rows == [("1234ms",)]
        assert executor.run("SELECT generate_series(1, 5)").truncated
    with SafeExecutor.from_settings(settings, row_cap=7, statement_timeout_ms=99) as overridden:
        assert overridden.row_cap == 7 and overridden.statement_timeout_ms == 99


# --- the reader role: privileges are the real boundary ------------------------------------


@pytest.fixture
def reader_db(fresh_db_url: str):
    role = "reader_" + uuid.uuid4().hex[:8]
    with psycopg.connect(fresh_db_url, autocommit=True) as conn:
        conn.execute(
            "CREATE TABLE public.items (id int); INSERT INTO public.items VALUES (1), (2);"
            "CREATE SCHEMA sales; CREATE TABLE sales.deals (amount int); INSERT INTO sales.deals VALUES (10);"
            "CREATE SCHEMA secret; CREATE TABLE secret.keys (k text); INSERT INTO secret.keys VALUES ('x');"
        )
    yield fresh_db_url, role
    with psycopg.connect(fresh_db_url, autocommit=True) as conn:
        if conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (role,)).fetchone():
            conn.execute(pgsql.SQL("DROP OWNED BY {r}; DROP ROLE {r}").format(r=pgsql.Identifier(role)))


def test_create_reader_role_can_only_read(reader_db):
    url, role = reader_db
    with psycopg.connect(url, autocommit=True) as conn:
        assert create_reader_role(conn, role, "s3cr'et pw", ["public", "sales"]) == ["public", "sales"]
        assert create_reader_role(conn, role, "s3cr'et pw", ["public", "sales"]) == ["public", "sales"]  # idempotent
        attrs = conn.execute(
            "SELECT rolcanlogin, rolsuper, rolcreatedb, rolcreaterole, rolreplication, rolbypassrls "
            "FROM pg_roles WHERE rolname = %s",
            (role,),
        ).fetchone()
        assert attrs == (True, False, False, False, False, False)
        conn.execute("CREATE TABLE sales.later (x int); INSERT INTO sales.later VALUES (7)")  # default privileges
    role_url = reader_url(url, role, "s3cr'et pw")
    assert psycopg.conninfo.conninfo_to_dict(role_url)["user"] == role
    assert psycopg.conninfo.conninfo_to_dict(role_url)["password"] == "s3cr'et pw"
    with SafeExecutor(role_url) as executor:
        assert executor.run("SELECT current_user").rows == [(role,)]
        assert executor.run("SELECT count(*) FROM items").rows == [(2,)]
        assert executor.run("SELECT amount FROM sales.deals").rows == [(10,)]
        assert executor.run("SELECT x FROM sales.later").rows == [(7,)]
        with pytest.raises(QueryExecutionError, match="[Pp]ermission denied"):
            executor.run("SELECT * FROM secret.keys")
    # Without the executor, and even in a read-write transaction, the role cannot write.
    with psycopg.connect(role_url, autocommit=True) as conn:
        assert conn.execute("SHOW default_transaction_read_only").fetchone() == ("on",)
        conn.execute("SET default_transaction_read_only = off")
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("DELETE FROM items")
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("CREATE TABLE sales.mine (x int)")
    with psycopg.connect(url, autocommit=True) as conn:
        assert conn.execute("SELECT count(*) FROM items").fetchone() == (2,)


def test_create_reader_role_refuses_dangerous_targets(reader_db):
    url, role = reader_db
    with psycopg.connect(url, autocommit=True) as conn:
        me = conn.execute("SELECT current_user").fetchone()[0]
        with pytest.raises(InputError, match="superuser or the role you are connected as"):
            create_reader_role(conn, me, None, ["public"])
        with pytest.raises(InputError, match="nope"):
            create_reader_role(conn, role, None, ["public", "nope"])
        # nothing was created by the failed call (it ran in one transaction)
        assert conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (role,)).fetchone() is None


@pytest.mark.parametrize(
    ("base", "expected"),
    [
        ("postgresql://admin:pw@db.example.com:5433/shop?sslmode=require",
         "postgresql://r:p%40ss@db.example.com:5433/shop?sslmode=require"),
        ("host=/tmp/sock port=5432 dbname=shop user=admin",
         "postgresql://r:p%40ss@/shop?host=/tmp/sock&port=5432"),
    ],
)
def test_reader_url(base: str, expected: str):
    assert reader_url(base, "r", "p@ss") == expected


def test_plan_many_checks_each_query_without_running_it(ex: SafeExecutor, admin):
    sqls = [
        "SELECT name FROM items WHERE price > 1",
        "SELECT nocol FROM items",                     # unknown column: PostgreSQL's analysis
        "DELETE FROM items",                           # the allow-list, before PostgreSQL
        "SELECT name FROM items WHERE id = 'abc'",     # a type error found while planning
        "SELECT name FROM items WHERE (",              # does not parse
        "SELECT count(*) FROM items; DROP TABLE items",  # two statements
        HEAVY,                                         # planned, never run: returns at once
        "SELECT v FROM alpha.t",
    ]
    started = time.perf_counter()
    outcomes = ex.plan_many(sqls, timeout_ms=2000)
    assert time.perf_counter() - started < 2.0
    assert outcomes[0] is None and outcomes[6] is None and outcomes[7] is None
    assert isinstance(outcomes[1], UnknownIdentifierError) and "nocol" in str(outcomes[1])
    assert isinstance(outcomes[2], UnsafeSQLError)
    assert isinstance(outcomes[3], QueryExecutionError) and "abc" in str(outcomes[3])
    assert isinstance(outcomes[4], SQLSyntaxError)
    assert isinstance(outcomes[5], UnsafeSQLError)
    assert admin.execute("SELECT count(*) FROM items").fetchone()[0] == 3  # nothing ran, nothing changed
    assert ex.run("SELECT count(*) FROM items").rows == [(3,)]  # the connection is usable afterwards
    assert ex.plan_many([]) == []
