"""DDL and COPY loading of the demo warehouse (schema ``demo``).

The whole load is one transaction: the tables are built in a scratch schema
(:data:`BUILD_SCHEMA`) with ``COPY ... WITH (FREEZE)``, keys are added after the
data (faster than maintaining indexes row by row), everything is ANALYZEd, and
only then is the old ``demo`` schema dropped and the scratch schema renamed. An
interrupted or failed load rolls back and leaves the previous demo untouched;
readers of the old demo are blocked only for the final swap.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import psycopg
from psycopg import sql
from psycopg.copy import QueuedLibpqWriter

from sqlgenie.demo import encode, generate
from sqlgenie.errors import InputError, StoreError
from sqlgenie.store.connection import open_connection

SCHEMA = "demo"
BUILD_SCHEMA = "sqlgenie_demo_loading"
#: Comment on the schema; a schema named ``demo`` without it is never dropped.
SCHEMA_MARKER = "SQLGenie demo retail warehouse"
_LOCK_KEY = 0x5347_44454D4F  # pg_advisory_xact_lock key serialising concurrent loads

_QUEUED_WRITER = True

#: ``progress(stage, done, total)``: stage is a table name, "keys" or "analyze".
ProgressCallback = Callable[[str, int, int], None]

# table -> (columns with types, primary key, comment). Order = load order.
TABLES: dict[str, tuple[list[tuple[str, str]], list[str], str]] = {
    "regions": (
        [("region_id", "smallint NOT NULL"), ("region_name", "text NOT NULL"), ("region_code", "text NOT NULL")],
        ["region_id"],
        "Sales regions.",
    ),
    "stores": (
        [("store_id", "integer NOT NULL"), ("store_name", "text NOT NULL"), ("store_type", "text NOT NULL"),
         ("city", "text NOT NULL"), ("state", "text"), ("country", "text NOT NULL"),
         ("region_id", "smallint NOT NULL"), ("opened_date", "date NOT NULL"), ("sq_ft", "integer NOT NULL")],
        ["store_id"],
        "Physical stores and the online fulfillment centers (store_type 'fulfillment center').",
    ),
    "products": (
        [("product_id", "integer NOT NULL"), ("sku", "text NOT NULL"), ("product_name", "text NOT NULL"),
         ("brand", "text"), ("category", "text NOT NULL"), ("size", "text"),
         ("list_price", "numeric(10,2) NOT NULL"), ("unit_cost", "numeric(10,2) NOT NULL")],
        ["product_id"],
        "Product catalog, one row per SKU (a product line in several sizes has several rows).",
    ),
    "customers": (
        [("cust_id", "integer NOT NULL"), ("first_name", "text NOT NULL"), ("last_name", "text NOT NULL"),
         ("email", "text"), ("city", "text NOT NULL"), ("state", "text"), ("country", "text NOT NULL"),
         ("segment", "text NOT NULL"), ("signup_date", "date NOT NULL")],
        ["cust_id"],
        "Customers.",
    ),
    "order_items": (
        [("order_item_id", "bigint NOT NULL"), ("order_id", "integer NOT NULL"), ("line_no", "smallint NOT NULL"),
         ("product_id", "integer NOT NULL"), ("qty", "integer NOT NULL"),
         ("unit_price", "numeric(10,2) NOT NULL"), ("discount", "numeric(4,2) NOT NULL")],
        ["order_item_id"],
        "Order lines.",
    ),
    "orders": (
        [("order_id", "integer NOT NULL"), ("cust_id", "integer NOT NULL"), ("store_id", "integer NOT NULL"),
         ("order_date", "timestamp NOT NULL"), ("status", "text NOT NULL"), ("channel", "text NOT NULL"),
         ("total_amt", "numeric(12,2) NOT NULL")],
        ["order_id"],
        "Orders (one row per checkout).",
    ),
}

#: (table, columns, referenced table, referenced columns)
FOREIGN_KEYS: list[tuple[str, list[str], str, list[str]]] = [
    ("stores", ["region_id"], "regions", ["region_id"]),
    ("orders", ["cust_id"], "customers", ["cust_id"]),
    ("orders", ["store_id"], "stores", ["store_id"]),
    ("order_items", ["order_id"], "orders", ["order_id"]),
    ("order_items", ["product_id"], "products", ["product_id"]),
]

UNIQUE_KEYS: list[tuple[str, list[str]]] = [
    ("products", ["sku"]),
    ("order_items", ["order_id", "line_no"]),
]

#: Secondary indexes a warehouse would have for the common joins and date filters.
INDEXES: list[tuple[str, list[str]]] = [
    ("orders", ["order_date"]),
    ("orders", ["cust_id"]),
    ("order_items", ["product_id"]),
]

COLUMN_COMMENTS: dict[tuple[str, str], str] = {
    ("order_items", "discount"): "Discount as a fraction of the line price (0.10 = 10 %).",
    ("order_items", "unit_price"): "Price of one unit before the discount.",
    ("orders", "total_amt"): "Sum over the order's lines of qty * unit_price * (1 - discount).",
}


@dataclass
class DemoLoadReport:
    schema: str
    scale: int
    seed: int
    seconds: float
    tables: dict[str, dict[str, float | int]] = field(default_factory=dict)  # name -> {rows, seconds}
    phases: dict[str, float] = field(default_factory=dict)  # keys, analyze, swap -> seconds
    date_range: tuple[str, str] = (generate.START_DATE.isoformat(), generate.END_DATE.isoformat())


def validate(scale: int, seed: int) -> None:
    """Raise InputError unless scale and seed are usable."""
    if not isinstance(scale, int) or isinstance(scale, bool) or not generate.MIN_SCALE <= scale <= generate.MAX_SCALE:
        raise InputError(
            f"Demo scale (--scale, the number of order items) must be between {generate.MIN_SCALE:,} and "
            f"{generate.MAX_SCALE:,}; got {scale}.",
            hint=f"Try --scale {generate.DEFAULT_SCALE} (the default) or --scale 1000000.",
        )
    if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 2**63:
        raise InputError(f"Demo seed (--seed) must be an integer from 0 to 2**63-1; got {seed}.", hint="Try --seed 42.")


def _ident(*parts: str) -> sql.Identifier:
    return sql.Identifier(*parts)


def _copy(cur: psycopg.Cursor, schema: str, table: str, chunks: Iterable[tuple[bytes, int]],
          total: int, progress: ProgressCallback | None) -> int:
    columns = [c for c, _ in TABLES[table][0]]
    stmt = sql.SQL("COPY {} ({}) FROM STDIN WITH (FREEZE)").format(
        _ident(schema, table), sql.SQL(", ").join(map(sql.Identifier, columns))
    )
    done = 0
    if progress:
        progress(table, 0, total)
    # A queued writer sends the previous chunk from a worker thread while numpy
    # builds the next one (the server parses COPY on its own core meanwhile).
    with cur.copy(stmt, writer=QueuedLibpqWriter(cur) if _QUEUED_WRITER else None) as copy:
        for data, n in chunks:
            copy.write(data)
            done += n
            if progress:
                progress(table, done, total)
    return done


def _in_chunks(rows: list[tuple], size: int = 50_000) -> Iterable[tuple[bytes, int]]:
    for start in range(0, len(rows), size):
        part = rows[start : start + size]
        yield encode.format_rows(part), len(part)


def _create_tables(cur: psycopg.Cursor, schema: str) -> None:
    cur.execute(sql.SQL("CREATE SCHEMA {}").format(_ident(schema)))
    cur.execute(sql.SQL("COMMENT ON SCHEMA {} IS {}").format(
        _ident(schema), sql.Literal(f"{SCHEMA_MARKER} (sqlgenie demo load). Reloading replaces this schema.")))
    for table, (columns, _pk, comment) in TABLES.items():
        cols = sql.SQL(", ").join(sql.SQL("{} {}").format(sql.Identifier(c), sql.SQL(t)) for c, t in columns)
        cur.execute(sql.SQL("CREATE TABLE {} ({})").format(_ident(schema, table), cols))
        cur.execute(sql.SQL("COMMENT ON TABLE {} IS {}").format(_ident(schema, table), sql.Literal(comment)))
    for (table, column), comment in COLUMN_COMMENTS.items():
        cur.execute(sql.SQL("COMMENT ON COLUMN {} IS {}").format(_ident(schema, table, column), sql.Literal(comment)))


def _add_keys(cur: psycopg.Cursor, schema: str, progress: ProgressCallback | None) -> None:
    steps: list[sql.Composable] = []
    for table, (_cols, pk, _c) in TABLES.items():
        steps.append(sql.SQL("ALTER TABLE {} ADD CONSTRAINT {} PRIMARY KEY ({})").format(
            _ident(schema, table), sql.Identifier(f"{table}_pkey"), sql.SQL(", ").join(map(sql.Identifier, pk))))
    for table, cols in UNIQUE_KEYS:
        steps.append(sql.SQL("ALTER TABLE {} ADD CONSTRAINT {} UNIQUE ({})").format(
            _ident(schema, table), sql.Identifier(f"{table}_{'_'.join(cols)}_key"),
            sql.SQL(", ").join(map(sql.Identifier, cols))))
    for table, cols, ref, ref_cols in FOREIGN_KEYS:
        steps.append(sql.SQL("ALTER TABLE {} ADD CONSTRAINT {} FOREIGN KEY ({}) REFERENCES {} ({})").format(
            _ident(schema, table), sql.Identifier(f"{table}_{'_'.join(cols)}_fkey"),
            sql.SQL(", ").join(map(sql.Identifier, cols)), _ident(schema, ref),
            sql.SQL(", ").join(map(sql.Identifier, ref_cols))))
    for table, cols in INDEXES:
        steps.append(sql.SQL("CREATE INDEX {} ON {} ({})").format(
            sql.Identifier(f"{table}_{'_'.join(cols)}_idx"), _ident(schema, table),
            sql.SQL(", ").join(map(sql.Identifier, cols))))
    for i, stmt in enumerate(steps):
        if progress:
            progress("keys", i, len(steps))
        cur.execute(stmt)
    if progress:
        progress("keys", len(steps), len(steps))


def _check_replaceable(cur: psycopg.Cursor) -> None:
    row = cur.execute(
        "SELECT obj_description(n.oid, 'pg_namespace'),"
        " (SELECT count(*) FROM pg_class c WHERE c.relnamespace = n.oid)"
        " FROM pg_namespace n WHERE n.nspname = %s",
        (SCHEMA,),
    ).fetchone()
    if row is None:
        return
    comment, n_relations = row
    if n_relations and not (comment or "").startswith(SCHEMA_MARKER):
        raise InputError(
            f"Schema {SCHEMA!r} already exists in the target database and was not created by `sqlgenie demo load`; "
            "it is left untouched.",
            hint=f'Drop or rename it yourself (DROP SCHEMA "{SCHEMA}" CASCADE) or load the demo into another database.',
        )


def load_demo(url: str, scale: int = generate.DEFAULT_SCALE, seed: int = generate.DEFAULT_SEED,
              progress: ProgressCallback | None = None) -> DemoLoadReport:
    """(Re)create schema ``demo`` in the database at ``url``; deterministic in ``(scale, seed)``."""
    validate(scale, seed)
    t_start = time.perf_counter()
    plan = generate.make_plan(scale, seed)
    report = DemoLoadReport(schema=SCHEMA, scale=scale, seed=seed, seconds=0.0)
    conn = open_connection(url)
    try:
        with conn, conn.cursor() as cur:
            cur.execute("SET LOCAL client_encoding = 'UTF8'")
            encoding = cur.execute("SHOW server_encoding").fetchone()[0]
            if encoding.upper() not in ("UTF8", "SQL_ASCII"):
                raise InputError(
                    f"The target database uses encoding {encoding}; the demo contains non-ASCII text (ロックポット, München).",
                    hint="Load the demo into a database created with ENCODING 'UTF8'.",
                )
            cur.execute("SET LOCAL maintenance_work_mem = '256MB'")
            cur.execute("SET LOCAL synchronous_commit = off")
            cur.execute("SELECT pg_advisory_xact_lock(%s)", (_LOCK_KEY,))
            _check_replaceable(cur)
            _create_tables(cur, BUILD_SCHEMA)

            def copy(table: str, chunks: Iterable[tuple[bytes, int]], total: int, t0: float) -> None:
                """COPY one table; its seconds count from ``t0`` (so they include generation)."""
                n = _copy(cur, BUILD_SCHEMA, table, chunks, total, progress)
                report.tables[table] = {"rows": n, "seconds": round(time.perf_counter() - t0, 3)}

            t0 = time.perf_counter()
            cal = generate.calendar()
            copy("regions", _in_chunks(generate.region_rows()), plan.n_regions, t0)
            t0 = time.perf_counter()
            stores = generate.stores(plan)
            copy("stores", _in_chunks(stores.rows), plan.n_stores, t0)
            t0 = time.perf_counter()
            products = generate.products(plan)
            copy("products", _in_chunks(products.rows), plan.n_products, t0)
            t0 = time.perf_counter()
            customers = generate.customers(plan)
            copy("customers", _in_chunks(customers.rows), plan.n_customers, t0)
            t0 = time.perf_counter()
            orders = generate.orders(plan, cal, customers, stores)
            # the items come first: generating them fills in the order totals
            copy("order_items", generate.order_item_chunks(plan, cal, orders, products, customers),
                 plan.n_order_items, t0)
            t0 = time.perf_counter()
            copy("orders", generate.order_chunks(plan, cal, orders), plan.n_orders, t0)
            del orders, customers, products, stores

            t0 = time.perf_counter()
            _add_keys(cur, BUILD_SCHEMA, progress)
            report.phases["keys"] = round(time.perf_counter() - t0, 3)

            t0 = time.perf_counter()
            for i, table in enumerate(TABLES):
                if progress:
                    progress("analyze", i, len(TABLES))
                cur.execute(sql.SQL("ANALYZE {}").format(_ident(BUILD_SCHEMA, table)))
            if progress:
                progress("analyze", len(TABLES), len(TABLES))
            report.phases["analyze"] = round(time.perf_counter() - t0, 3)

            t0 = time.perf_counter()
            cur.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(_ident(SCHEMA)))
            cur.execute(sql.SQL("ALTER SCHEMA {} RENAME TO {}").format(_ident(BUILD_SCHEMA), _ident(SCHEMA)))
            report.phases["swap"] = round(time.perf_counter() - t0, 3)
    except psycopg.Error as exc:
        raise StoreError(
            f"Loading the demo failed: {str(exc).strip()}",
            hint="Nothing was changed: the previous demo schema (if any) is intact. "
            "Check that the role may CREATE schemas in the target database.",
        ) from exc
    finally:
        conn.close()
    report.seconds = round(time.perf_counter() - t_start, 3)
    return report


# --- inspection --------------------------------------------------------------------


def demo_summary(url: str) -> dict[str, int]:
    """Row counts per demo table (``{}`` when the demo is not loaded)."""
    out: dict[str, int] = {}
    with open_connection(url, autocommit=True) as conn:
        for table in TABLES:
            exists = conn.execute("SELECT to_regclass(%s) IS NOT NULL",
                                  (sql.Identifier(SCHEMA, table).as_string(conn),)).fetchone()[0]
            if exists:
                out[table] = conn.execute(sql.SQL("SELECT count(*) FROM {}").format(_ident(SCHEMA, table))).fetchone()[0]
    return out


def demo_checksum(url: str) -> str:
    """md5 over every demo row in key order (equal for equal data)."""
    with open_connection(url, autocommit=True) as conn:
        parts = []
        for table, (_cols, pk, _c) in TABLES.items():
            query = sql.SQL("SELECT md5(coalesce(string_agg(md5(t::text), '' ORDER BY {}), '')) FROM {} AS t").format(
                sql.SQL(", ").join(sql.Identifier("t", c) for c in pk), _ident(SCHEMA, table))
            parts.append(conn.execute(query).fetchone()[0])
        return conn.execute("SELECT md5(%s)", ("".join(parts),)).fetchone()[0]
