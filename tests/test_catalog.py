"""Catalog read model over the real catalog tables."""

from __future__ import annotations

from sqlgenie.catalog import Catalog, ColumnInfo, TableInfo, load_catalog, type_family
from sqlgenie.store import connect_store


def _insert_table(conn, schema, name, cols, pk=()):
    tid = conn.execute(
        "INSERT INTO sqlgenie.catalog_tables (schema_name, table_name, primary_key, row_estimate)"
        " VALUES (%s, %s, %s, 10) RETURNING id",
        (schema, name, list(pk)),
    ).fetchone()[0]
    for i, (cname, ctype, searchable) in enumerate(cols):
        conn.execute(
            "INSERT INTO sqlgenie.catalog_columns (table_id, column_name, ordinal, data_type, searchable, synonyms)"
            " VALUES (%s, %s, %s, %s, %s, %s)",
            (tid, cname, i, ctype, searchable, [cname.replace("_", " ")]),
        )
    return tid


def test_load_catalog_round_trip(settings):
    with connect_store(settings) as conn:
        assert load_catalog(conn).tables == ()
        a = _insert_table(conn, "demo", "products", [("product_id", "integer", False), ("Name", "text", True)], ["product_id"])
        b = _insert_table(conn, "demo", "order_items", [("item_id", "integer", False), ("product_id", "integer", False)])
        conn.execute(
            "INSERT INTO sqlgenie.catalog_joins (from_table_id, from_columns, to_table_id, to_columns, score, status, cost)"
            " VALUES (%s, '{product_id}', %s, '{product_id}', 0.93, 'accepted', 12.5)",
            (b, a),
        )
        cat = load_catalog(conn, search_path=("demo",))
    products = cat.table("PRODUCTS")
    assert products is not None and products.qualified == "demo.products"
    assert products.primary_key == ("product_id",)
    assert products.column("name").name == "Name" and products.column("name").searchable
    assert products.column("name").synonyms == ("Name",)
    assert cat.table("order_items", schema="demo").column("product_id").family == "numeric"
    [join] = cat.accepted_joins()
    assert (join.from_table, join.to_table, join.cost) == ("demo.order_items", "demo.products", 12.5)
    assert cat.joins_of("demo.products") == [join]
    assert cat.table("missing") is None


def test_resolution_prefers_search_path_then_unique_match():
    t1 = TableInfo("public", "sales", (ColumnInfo("id", "integer"),))
    t2 = TableInfo("demo", "sales", (ColumnInfo("id", "bigint"),))
    t3 = TableInfo("demo", "stores", (ColumnInfo("id", "bigint"),))
    cat = Catalog(tables=(t1, t2, t3))
    assert cat.table("sales") is t1
    assert cat.with_search_path("demo").table("Sales") is t2
    assert cat.table("stores") is t3  # unique across schemas
    assert [type_family(t) for t in ("numeric(10,2)", "character varying(20)", "timestamp without time zone", "boolean", "jsonb")] == [
        "numeric", "text", "temporal", "boolean", "other"]
