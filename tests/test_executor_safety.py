"""Safety of the executor: a table of allowed and rejected SQL, each allowed query run
on a real database, each rejected one shown harmless against a sentinel table."""

from __future__ import annotations

import uuid

import psycopg
import pytest
from sqlglot import exp

from sqlgenie.errors import QueryExecutionError, SQLSyntaxError, UnsafeSQLError
from sqlgenie.executor import DENIED_FUNCTIONS, SafeExecutor, is_denied_function, validate_sql
from sqlgenie.executor.safety import DENIED_FUNCTION_PREFIXES, check_sql

SCHEMA = """
CREATE TABLE customers (id int PRIMARY KEY, name text, email text, region text);
CREATE TABLE orders (
    id int PRIMARY KEY, customer_id int REFERENCES customers, amount numeric(10, 2),
    status text, created_at timestamptz, data jsonb
);
CREATE TABLE sentinel (id int PRIMARY KEY, note text);
CREATE SEQUENCE seq;
INSERT INTO customers VALUES
    (1, 'Ann', 'ann@example.com', 'EU'), (2, 'Bob', 'bob@example.com', 'US'), (3, 'Joanna', NULL, 'EU');
INSERT INTO orders VALUES
    (1, 1, 120.50, 'paid', now() - interval '3 days', '{"channel": "web", "tags": ["a"], "qty": "2", "gift": true, "address": {"city": "Oslo"}}'),
    (2, 1, 30.00, 'shipped', now() - interval '40 days', '{"channel": "shop", "qty": "1"}'),
    (3, 2, 999.99, 'paid', now() - interval '1 day', '{"channel": "web"}'),
    (4, 3, 5.00, 'refunded', now() - interval '100 days', '{}');
INSERT INTO sentinel VALUES (1, 'keep me'), (2, 'me too');
"""

SENTINEL_ROWS = [(1, "keep me"), (2, "me too")]

# --- allowed: realistic analytics SQL and tricky-but-harmless text --------------------
ALLOWED = [
    "SELECT 1",
    "select 1 as one;",
    "SELECT 1; -- trailing comment",
    "  \n\tSELECT 1  \n",
    "SELECT 1 /* ; DROP TABLE sentinel */",
    "SELECT 1 -- ; DROP TABLE sentinel",
    "SELECT 1 /* outer /* nested; DROP TABLE sentinel */ still a comment; DELETE FROM sentinel */",
    "SELECT $$; DROP TABLE sentinel; $$ AS s",
    "SELECT $tag$ it's; $$ DELETE FROM sentinel $tag$ AS s",
    "SELECT $_t1$ x $_t1$ AS s, $é$ y $é$ AS t",
    "SELECT 1 /*/ ; DROP TABLE sentinel */",
    "SELECT 1 --\f; DROP TABLE sentinel",
    "SELECT 'pg_sleep(10)' AS s, 'a;b' AS t",
    "SELECT E'it\\'s; DROP TABLE sentinel' AS e",
    'SELECT 1 AS "a;b", 2 AS "DROP TABLE sentinel"',
    "SELECT U&'\\0041' AS unicode_string",
    "SELECT 1 UNION SELECT 2",
    "SELECT id FROM orders INTERSECT SELECT id FROM customers EXCEPT SELECT 0",
    "VALUES (1, 'a'), (2, 'b')",
    "(SELECT 1)",
    "((SELECT id FROM orders) UNION ALL (SELECT id FROM customers)) ORDER BY 1",
    "TABLE customers",
    "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 10) SELECT sum(n) FROM r",
    "SELECT c.region, count(*) AS n, sum(o.amount) AS total FROM orders o JOIN customers c ON c.id = o.customer_id "
    "GROUP BY c.region HAVING sum(o.amount) > 10 ORDER BY total DESC",
    "SELECT date_trunc('month', created_at) AS month, sum(amount) FROM orders GROUP BY 1 ORDER BY 1",
    "WITH monthly AS (SELECT customer_id, date_trunc('month', created_at) AS m, sum(amount) AS total "
    "FROM orders GROUP BY 1, 2) SELECT customer_id, m, total, "
    "lag(total) OVER (PARTITION BY customer_id ORDER BY m) AS prev FROM monthly",
    "SELECT id, amount, rank() OVER w, sum(amount) OVER (PARTITION BY status ORDER BY created_at "
    "ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) FROM orders WINDOW w AS (ORDER BY amount DESC)",
    "SELECT name FROM customers WHERE name ILIKE '%ann%' OR email LIKE '%@example.com'",
    "SELECT region, string_agg(name, ', ' ORDER BY name) FROM customers GROUP BY region",
    "SELECT data->>'channel' AS channel, data->'tags'->0 AS tag, data #>> '{address,city}' AS city "
    "FROM orders WHERE data ? 'channel' AND data @> '{\"gift\": true}'",
    "SELECT (data->>'qty')::int * amount AS revenue FROM orders WHERE data ?| array['qty']",
    "SELECT amount::int, CAST(created_at AS date), '2024-01-01'::date + 1, id::text || '-' FROM orders",
    "SELECT count(*) FILTER (WHERE status = 'paid') AS paid, "
    "percentile_cont(0.5) WITHIN GROUP (ORDER BY amount) AS median FROM orders",
    "SELECT DISTINCT ON (customer_id) customer_id, created_at FROM orders ORDER BY customer_id, created_at DESC",
    "SELECT * FROM orders WHERE created_at >= now() - interval '30 days' AND status IN ('paid', 'shipped')",
    "SELECT extract(year FROM created_at) AS y, coalesce(sum(amount), 0) FROM orders GROUP BY 1",
    "SELECT c.name, x.total FROM customers c LEFT JOIN LATERAL "
    "(SELECT sum(amount) AS total FROM orders o WHERE o.customer_id = c.id) x ON true",
    "SELECT * FROM generate_series(1, 5) AS g(n)",
    "SELECT u.x, u.n FROM unnest(ARRAY['a', 'b']) WITH ORDINALITY AS u(x, n)",
    "SELECT CASE WHEN amount > 100 THEN 'big' ELSE 'small' END AS size, nullif(status, ''), "
    "greatest(amount, 0) FROM orders",
    "SELECT current_setting('search_path')",
    "SELECT EXISTS (SELECT 1 FROM orders WHERE amount > 1000)",
    "SELECT * FROM orders WHERE customer_id = ANY (ARRAY[1, 2]) AND amount BETWEEN 1 AND 500",
    "SELECT region, status, count(*) FROM orders o JOIN customers c ON c.id = o.customer_id "
    "GROUP BY ROLLUP (region, status)",
    "SELECT * FROM orders ORDER BY amount DESC NULLS LAST LIMIT 3 OFFSET 1",
    "SELECT * FROM orders FETCH FIRST 2 ROWS ONLY",
    'SELECT o."id", o."status" FROM "orders" AS o',
    "SELECT lower(name), upper(email), length(name), substring(email FROM 1 FOR 3), "
    "position('@' IN email), trim(name) FROM customers",
    "SELECT to_char(created_at, 'YYYY-MM'), age(now(), created_at) FROM orders",
    "SELECT round(avg(amount)::numeric, 2), stddev(amount) FROM orders",
    "SELECT id FROM orders WHERE status ~ '^p' AND status NOT SIMILAR TO 'x%'",
    "SELECT jsonb_build_object('id', id), jsonb_agg(status) OVER () FROM orders",
    "SELECT * FROM orders o WHERE NOT EXISTS "
    "(SELECT 1 FROM customers c WHERE c.id = o.customer_id AND c.region = 'EU')",
    "SELECT nspname FROM pg_catalog.pg_namespace ORDER BY 1",
    "SELECT lo_total, copy_count FROM (SELECT sum(amount) AS lo_total, 1 AS copy_count FROM orders) AS x",
    "SELECT coalesce(max(amount), 0) FROM orders WHERE status <> 'refunded'",
    "SELECT id FROM orders o WHERE o.amount > (SELECT avg(amount) FROM orders)",
    "SELECT c.id, count(o.id) FROM customers c FULL OUTER JOIN orders o ON o.customer_id = c.id GROUP BY c.id",
    "SELECT make_date(2024, 1, 1), date_part('dow', now()), now() AT TIME ZONE 'UTC'",
    "SELECT ntile(4) OVER (ORDER BY amount), first_value(amount) OVER (PARTITION BY status ORDER BY id) FROM orders",
    "SELECT array_agg(DISTINCT status ORDER BY status) FROM orders",
    "WITH a AS (SELECT 1 AS x), b AS (SELECT x + 1 AS y FROM a) SELECT * FROM a CROSS JOIN b",
    "SELECT '%' || name || '%s' AS pct FROM customers WHERE name LIKE 'A%'",
    "SELECT '{}' AS braces, '{a}'::text[] AS arr, '{0}' AS fmt",
    "SELECT status, count(*) FROM orders GROUP BY status HAVING count(*) >= 1 ORDER BY count(*) DESC, status",
    "SELECT * FROM ROWS FROM (generate_series(1, 3), generate_series(1, 2)) AS t(a, b)",
    "SELECT a FROM (VALUES (1), (2)) AS v(a) GROUP BY GROUPING SETS ((a), ())",
    "SELECT id FROM orders TABLESAMPLE SYSTEM (100) ORDER BY id",
]

# --- rejected: (sql, error type) -------------------------------------------------------
U = UnsafeSQLError
S = SQLSyntaxError
REJECTED = [
    # several statements, hidden ones
    ("COMMIT; DROP TABLE sentinel; SELECT 1", U),
    ("SELECT 1; SELECT 2", U),
    ("SELECT 1; DROP TABLE sentinel", U),
    ("SELECT 1 -- harmless\n; DROP TABLE sentinel", U),
    ("SELECT 1 --\r; DROP TABLE sentinel", U),
    ("SELECT 1 /* a /* nested */ */; DROP TABLE sentinel", U),
    ("SELECT $$x$$; DELETE FROM sentinel", U),
    ("SELECT '\\'; DELETE FROM sentinel; SELECT '\\'", U),
    ("SELECT a$$ FROM sentinel; DROP TABLE sentinel; SELECT b$$ FROM sentinel", U),
    # dollar tags PostgreSQL does not accept: it would read the "string" as code
    ("SELECT $1a$, pg_catalog.pg_sleep(5), $1a$", U),
    ("SELECT $1a$ x $1a$", U),
    ("SELECT $a-b$ x $a-b$", U),
    # DML / DDL, also inside CTEs and subqueries
    ("DELETE FROM sentinel", U),
    ("UPDATE sentinel SET note = 'x'", U),
    ("INSERT INTO sentinel VALUES (99, 'x')", U),
    ("MERGE INTO sentinel s USING (VALUES (1)) v(id) ON s.id = v.id WHEN MATCHED THEN DELETE", U),
    ("DROP TABLE sentinel", U),
    ("TRUNCATE sentinel", U),
    ("ALTER TABLE sentinel ADD COLUMN x int", U),
    ("CREATE TABLE copy_of AS SELECT * FROM sentinel", U),
    ("CREATE FUNCTION f() RETURNS int AS $$ SELECT 1 $$ LANGUAGE sql", U),
    ("WITH d AS (DELETE FROM sentinel RETURNING *) SELECT * FROM d", U),
    ("WITH u AS (UPDATE sentinel SET note = 'x' RETURNING id) SELECT count(*) FROM u", U),
    ("WITH i AS (INSERT INTO sentinel VALUES (9, 'x') RETURNING id) SELECT * FROM i", U),
    ("SELECT * FROM (WITH d AS (DELETE FROM sentinel RETURNING *) SELECT * FROM d) s", U),
    ("WITH x AS (SELECT 1) DELETE FROM sentinel", U),
    ("SELECT * INTO newtable FROM sentinel", U),
    ("SELECT id INTO TEMP t2 FROM sentinel", U),
    # locks
    ("SELECT * FROM sentinel FOR UPDATE", U),
    ("SELECT * FROM (SELECT * FROM sentinel FOR UPDATE) s", U),
    ("SELECT * FROM sentinel FOR SHARE SKIP LOCKED", U),
    ("SELECT * FROM sentinel FOR NO KEY UPDATE NOWAIT", U),
    ("WITH s AS (SELECT * FROM sentinel FOR KEY SHARE) SELECT * FROM s", U),
    ("SELECT 1 UNION ALL (SELECT id FROM sentinel FOR UPDATE)", U),
    ("LOCK TABLE sentinel IN ACCESS EXCLUSIVE MODE", U),
    # utility statements
    ("EXPLAIN ANALYZE DELETE FROM sentinel", U),
    ("EXPLAIN SELECT 1", U),
    ("COPY sentinel TO '/tmp/sentinel.csv'", U),
    ("COPY sentinel FROM PROGRAM 'id'", U),
    ("DO $$ BEGIN DELETE FROM sentinel; END $$", U),
    ("CALL do_something()", U),
    ("SET ROLE postgres", U),
    ("SET search_path TO evil", U),
    ("SET LOCAL statement_timeout = 0", U),
    ("RESET ALL", U),
    ("GRANT ALL ON sentinel TO PUBLIC", U),
    ("REVOKE SELECT ON sentinel FROM PUBLIC", U),
    ("VACUUM sentinel", U),
    ("ANALYZE sentinel", U),
    ("CLUSTER sentinel", U),
    ("PREPARE p AS DELETE FROM sentinel", U),
    ("EXECUTE p", U),
    ("LISTEN chan", U),
    ("NOTIFY chan, 'x'", U),
    ("\\copy sentinel to 'x.csv'", U),
    ("\\! rm -rf /", U),
    ("BEGIN", U),
    ("START TRANSACTION READ WRITE", U),
    ("COMMIT", U),
    ("ROLLBACK", U),
    ("SAVEPOINT s1", U),
    ("DISCARD ALL", U),
    ("CHECKPOINT", U),
    ("REFRESH MATERIALIZED VIEW mv", U),
    ("COMMENT ON TABLE sentinel IS 'x'", U),
    ("SHOW search_path", U),
    ("DECLARE c CURSOR FOR SELECT 1", U),
    ("FETCH ALL FROM c", U),
    ("ALTER SYSTEM SET fsync = off", U),
    ("CREATE EXTENSION dblink", U),
    ("IMPORT FOREIGN SCHEMA public FROM SERVER s INTO x", U),
    # denied functions, hidden anywhere, any spelling
    ("SELECT pg_sleep(10)", U),
    ('SELECT "pg_sleep"(10)', U),
    ("SELECT PG_CATALOG.PG_SLEEP(10)", U),
    ('SELECT pg_catalog."pg_sleep"(10)', U),
    ("SELECT * FROM sentinel WHERE pg_sleep ( 1 ) IS NULL", U),
    ("SELECT pg_sleep_for('10 seconds')", U),
    ("SELECT * FROM sentinel WHERE id IN (SELECT 1 FROM pg_sleep(5))", U),
    ("WITH x AS (SELECT pg_read_file('/etc/passwd') AS f) SELECT * FROM x", U),
    ("SELECT s.* FROM sentinel s, LATERAL (SELECT pg_ls_dir('.')) l", U),
    ("SELECT row_number() OVER (ORDER BY pg_sleep(1)) FROM sentinel", U),
    ("SELECT * FROM sentinel ORDER BY pg_sleep(1)", U),
    ("SELECT id FROM sentinel GROUP BY id HAVING pg_sleep(1) IS NULL", U),
    ("SELECT count(*) FILTER (WHERE pg_sleep(0) IS NULL) FROM sentinel", U),
    ("SELECT CASE WHEN id > 0 THEN pg_terminate_backend(pg_backend_pid()) END FROM sentinel", U),
    ("SELECT pg_terminate_backend(pid) FROM pg_stat_activity", U),
    ("VALUES (pg_sleep(1))", U),
    ("WITH RECURSIVE r AS (SELECT 1 AS n UNION ALL SELECT n + 1 FROM r) SELECT pg_sleep(n) FROM r", U),
    ("SELECT lo_import('/etc/passwd')", U),
    ("SELECT lo_export(1, '/tmp/x')", U),
    ("SELECT lo_unlink(1)", U),
    ("SELECT * FROM dblink('dbname=postgres', 'DELETE FROM sentinel') AS t(x text)", U),
    ("SELECT dblink_exec('dbname=postgres', 'DROP TABLE sentinel')", U),
    ("SELECT set_config('search_path', 'evil', false)", U),
    ("SELECT pg_catalog.set_config('statement_timeout', '0', true)", U),
    ("SELECT pg_advisory_lock(1)", U),
    ("SELECT pg_try_advisory_xact_lock(1)", U),
    ("SELECT nextval('seq')", U),
    ("SELECT setval('seq', 100)", U),
    ("SELECT txid_current()", U),
    ("SELECT pg_notify('chan', 'x')", U),
    ("SELECT query_to_xml('DELETE FROM sentinel RETURNING *', true, false, '')", U),
    ("SELECT cursor_to_xml('c', 1, true, false, '')", U),
    ("SELECT table_to_xml('sentinel', true, false, '')", U),
    ("SELECT ts_stat('SELECT to_tsvector(note) FROM sentinel')", U),
    ("SELECT pg_cancel_backend(1)", U),
    ("SELECT pg_reload_conf()", U),
    ("SELECT pg_rotate_logfile()", U),
    ("SELECT pg_stat_file('postgresql.conf')", U),
    ("SELECT pg_read_binary_file('/etc/passwd')", U),
    ("SELECT * FROM pg_logical_slot_get_changes('s', NULL, NULL)", U),
    ("SELECT pg_create_logical_replication_slot('s', 'pgoutput')", U),
    ("SELECT pg_replication_origin_create('x')", U),
    ("SELECT brin_summarize_new_values('idx')", U),
    # unicode-escape identifiers could spell a denied name the parser cannot decode
    ('SELECT U&"pg_sl\\0065ep"(1)', U),
    ('SELECT U&"\\0070g_sleep"(1)', U),
    ('SELECT U&"n\\006fte" FROM sentinel', U),
    # not SQL at all
    ("", S),
    ("   \n\t ", S),
    ("-- only a comment", S),
    ("/* only a block comment */", S),
    (";", S),
    ("SELECT 1 /* unterminated", S),
    ("SELECT 'unterminated", S),
    ("SELECT (1", S),
]


def test_case_table_is_large_enough():
    assert len(ALLOWED) + len(REJECTED) >= 80
    assert len({s for s, _ in REJECTED}) == len(REJECTED)
    assert len(set(ALLOWED)) == len(ALLOWED)


@pytest.mark.parametrize("sql", ALLOWED)
def test_allowed_validates(sql: str):
    tree = validate_sql(sql)
    assert isinstance(tree, exp.Expression)
    assert isinstance(tree, (exp.Select, exp.SetOperation, exp.Values, exp.Subquery))


@pytest.mark.parametrize(("sql", "error"), REJECTED)
def test_rejected_by_validator(sql: str, error: type[Exception]):
    with pytest.raises(error) as info:
        validate_sql(sql)
    assert info.value.message  # says what went wrong
    assert "Traceback" not in str(info.value)


# --- against a real database -------------------------------------------------------------


@pytest.fixture(scope="module")
def analytics_db(module_db_url: str) -> str:
    with psycopg.connect(module_db_url, autocommit=True) as conn:
        conn.execute(SCHEMA)
    return module_db_url


@pytest.fixture(scope="module")
def executor(analytics_db: str):
    with SafeExecutor(analytics_db, statement_timeout_ms=5000, row_cap=100) as ex:
        yield ex


@pytest.mark.parametrize("sql", ALLOWED)
def test_allowed_runs(sql: str, executor: SafeExecutor):
    result = executor.run(sql)
    assert result.columns
    assert isinstance(result.rows, list)
    assert result.sql == check_sql(sql).text
    assert not result.sql.rstrip().endswith(";")


def test_allowed_runs_return_expected_values(executor: SafeExecutor):
    assert executor.run("SELECT $$; DROP TABLE sentinel; $$ AS s").rows == [("; DROP TABLE sentinel; ",)]
    assert executor.run("SELECT E'it\\'s' AS e").rows == [("it's",)]
    assert executor.run("SELECT '%' || name || '%s' AS pct FROM customers WHERE name LIKE 'A%'").rows == [("%Ann%s",)]
    assert executor.run("SELECT '{}' AS braces").rows == [("{}",)]
    rows = executor.run(
        "SELECT region, string_agg(name, ', ' ORDER BY name) FROM customers GROUP BY region ORDER BY region"
    ).rows
    assert rows == [("EU", "Ann, Joanna"), ("US", "Bob")]
    assert executor.run("SELECT data #>> '{address,city}' FROM orders WHERE id = 1").rows == [("Oslo",)]


_SENTINEL_DDL = """
CREATE SCHEMA {s};
CREATE TABLE {s}.sentinel (id int PRIMARY KEY, note text);
CREATE SEQUENCE {s}.seq;
INSERT INTO {s}.sentinel VALUES (1, 'keep me'), (2, 'me too');
CREATE FUNCTION {s}.wipe() RETURNS int LANGUAGE sql AS $$ DELETE FROM {s}.sentinel RETURNING 1 $$;
"""


@pytest.fixture(scope="module")
def admin(analytics_db: str):
    """One autocommit superuser connection for setup and checks (not the executor's)."""
    with psycopg.connect(analytics_db, autocommit=True) as conn:
        yield conn


@pytest.fixture
def sentinel_schema(admin: psycopg.Connection) -> str:
    """A new schema (in this module's own database) holding a sentinel table, a
    sequence and a function that deletes the sentinel rows. Creating a schema is
    ~100x cheaper than a database, which keeps 120 cases fast."""
    schema = "s_" + uuid.uuid4().hex[:10]
    admin.execute(_SENTINEL_DDL.format(s=schema))
    return schema


def _sentinel_state(conn: psycopg.Connection, schema: str) -> tuple:
    tables = sorted(r[0] for r in conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = %s", (schema,)))
    rows = None
    if "sentinel" in tables:
        rows = conn.execute(f'SELECT id, note FROM "{schema}".sentinel ORDER BY id').fetchall()
    seq = conn.execute(f'SELECT last_value, is_called FROM "{schema}".seq').fetchone()
    public_rows = conn.execute("SELECT id, note FROM public.sentinel ORDER BY id").fetchall()
    return tables, rows, seq, public_rows


@pytest.mark.parametrize(("sql", "error"), REJECTED)
def test_rejected_is_harmless(
    sql: str, error: type[Exception], executor: SafeExecutor, admin: psycopg.Connection, sentinel_schema: str
):
    before = _sentinel_state(admin, sentinel_schema)
    assert before == (["sentinel"], SENTINEL_ROWS, (1, False), SENTINEL_ROWS)
    with pytest.raises(error):
        executor.run(sql, search_path=sentinel_schema)  # unqualified names resolve to the sentinel schema
    # the executor still works and sees the sentinel where the attack would have hit
    assert executor.run("SELECT count(*) FROM sentinel", search_path=sentinel_schema).rows == [(2,)]
    assert _sentinel_state(admin, sentinel_schema) == before


# --- the database-side guards on their own (validator bypassed) -----------------------


def test_read_only_transaction_blocks_delete_without_parser(
    analytics_db: str, admin: psycopg.Connection, sentinel_schema: str
):
    before = _sentinel_state(admin, sentinel_schema)
    with SafeExecutor(analytics_db, search_path=sentinel_schema) as ex:
        with ex._transaction(5000, None) as conn:
            with pytest.raises(psycopg.errors.ReadOnlySqlTransaction):
                conn.execute("DELETE FROM sentinel")
        # the same through the internal run path: DECLARE refuses a DELETE outright
        with pytest.raises(SQLSyntaxError):
            ex._execute("DELETE FROM sentinel")
        with pytest.raises((UnsafeSQLError, QueryExecutionError)):
            ex._execute("WITH d AS (DELETE FROM sentinel RETURNING *) SELECT * FROM d")
        with pytest.raises((SQLSyntaxError, QueryExecutionError)):
            ex._execute("SELECT 1; DELETE FROM sentinel")  # extended protocol: one statement only
        assert ex._execute("SELECT count(*) FROM sentinel").rows == [(2,)]
    assert _sentinel_state(admin, sentinel_schema) == before


def test_function_that_writes_passes_parser_but_not_read_only(
    executor: SafeExecutor, admin: psycopg.Connection, sentinel_schema: str
):
    # The validator cannot know what a user-defined function does: READ ONLY stops it.
    validate_sql("SELECT wipe()")
    with pytest.raises(UnsafeSQLError, match="read-only"):
        executor.run("SELECT wipe()", search_path=sentinel_schema)
    assert _sentinel_state(admin, sentinel_schema)[1] == SENTINEL_ROWS


def test_transaction_is_rolled_back_even_on_success(analytics_db: str):
    with SafeExecutor(analytics_db) as ex:
        with ex._transaction(5000, None) as conn:
            # session-level set_config is undone by ROLLBACK; a COMMIT would keep it
            conn.execute("SELECT set_config('application_name', 'leaked', false)")
            assert conn.execute("SHOW application_name").fetchone() == ("leaked",)
        assert ex.run("SELECT current_setting('application_name')").rows != [("leaked",)]
        assert ex._conn is not None
        assert ex._conn.info.transaction_status == psycopg.pq.TransactionStatus.IDLE


# --- denied-function list -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "denied"),
    [
        ("pg_sleep", True),
        ("PG_SLEEP_UNTIL", True),
        ('"pg_read_file"', True),
        ("lo_get", True),
        ("dblink_connect", True),
        ("pg_advisory_xact_lock_shared", True),
        ("txid_current_if_assigned", True),
        ("query_to_xml_and_xmlschema", True),
        ("current_setting", False),
        ("date_trunc", False),
        ("lower", False),
        ("pg_backend_pid", False),
        ("logical_and", False),
    ],
)
def test_is_denied_function(name: str, denied: bool):
    assert is_denied_function(name) is denied


def test_docs_list_every_denied_function():
    from pathlib import Path

    doc = (Path(__file__).resolve().parent.parent / "docs" / "safety.md").read_text()
    missing = [n for n in sorted(DENIED_FUNCTIONS) if f"`{n}`" not in doc]
    missing += [p for p in DENIED_FUNCTION_PREFIXES if f"`{p}*`" not in doc]
    assert not missing, f"docs/safety.md does not mention: {missing}"
