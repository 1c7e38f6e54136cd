"""Join inference on the demo warehouse: exactly the five real foreign keys are accepted,
with the declared constraints and with every key constraint dropped (inference only);
no pair whose only evidence is small integers included in a surrogate key range."""

from __future__ import annotations

import psycopg
import pytest

from onboarding import joins
from onboarding.joins import ColumnRef, JoinRow, chance_inclusion, resolve
from onboarding.service import OnboardOptions, onboard_schema
from sqlgenie.catalog import load_catalog
from sqlgenie.config import load_settings
from sqlgenie.demo import load_demo
from sqlgenie.store import connect_store

SCALE = 3000

EXPECTED = {
    ("stores", ("region_id",), "regions", ("region_id",)),
    ("orders", ("cust_id",), "customers", ("cust_id",)),
    ("orders", ("store_id",), "stores", ("store_id",)),
    ("order_items", ("order_id",), "orders", ("order_id",)),
    ("order_items", ("product_id",), "products", ("product_id",)),
}


def _drop_key_constraints(url: str) -> None:
    with psycopg.connect(url, autocommit=True) as conn:
        for contype in ("f", "p", "u"):
            for table, name in conn.execute(
                "SELECT conrelid::regclass::text, conname FROM pg_constraint"
                " WHERE connamespace = 'demo'::regnamespace AND contype = %s",
                (contype,),
            ).fetchall():
                conn.execute(f'ALTER TABLE {table} DROP CONSTRAINT "{name}"')
        conn.execute("ANALYZE")


def _accepted(url: str) -> tuple[set[tuple], dict[tuple, str]]:
    settings = load_settings(database_url=url)
    results = onboard_schema("demo", settings=settings, options=OnboardOptions(llm=None, measure_indexes=False))
    assert {r.table for r in results} == {"regions", "stores", "customers", "products", "orders", "order_items"}
    with connect_store(settings) as store:
        cat = load_catalog(store, schemas=["demo"])
    accepted = set()
    how = {}
    for j in cat.accepted_joins():
        key = (j.from_table.split(".")[-1], tuple(j.from_columns), j.to_table.split(".")[-1], tuple(j.to_columns))
        accepted.add(key)
        how[key] = j.decided_by
    return accepted, how


@pytest.mark.parametrize("keys", ["declared", "dropped"])
def test_demo_accepts_exactly_the_real_joins(fresh_db_url: str, keys: str):
    load_demo(fresh_db_url, scale=SCALE, seed=42)
    if keys == "dropped":
        _drop_key_constraints(fresh_db_url)
    accepted, how = _accepted(fresh_db_url)
    assert accepted == EXPECTED
    expected_by = "declared" if keys == "declared" else "score"
    assert set(how.values()) == {expected_by}


def _col(table: str, column: str, lo: int, hi: int, distinct: int, rows: int, *, unique: bool = False) -> ColumnRef:
    return ColumnRef("s", table, column, "integer", "numeric", True, rows, n_distinct=distinct, null_frac=0.0,
                     is_unique=unique, is_pk=unique, min_value=str(lo), max_value=str(hi))


CUST = _col("customers", "cust_id", 1, 2000, 2000, 2000, unique=True)
STORES = _col("stores", "store_id", 1, 107, 107, 107, unique=True)


@pytest.mark.parametrize(
    "src,dst",
    [
        (_col("order_items", "qty", 1, 10, 10, 100_000), CUST),  # small measure in a counter
        (_col("order_items", "qty", 1, 78, 39, 100_000), STORES),  # reaches far, but too few distinct values
        (_col("products", "product_id", 1, 600, 600, 600, unique=True), CUST),  # the key of something else
        (_col("order_items", "line_no", 1, 34, 34, 100_000), STORES),  # key-like name, no link
        (_col("stores", "sq_ft", 1500, 1999, 107, 107), CUST),  # covers 5 % of the keys
    ],
)
def test_chance_inclusion_flags_nameless_small_integer_pairs(src: ColumnRef, dst: ColumnRef):
    f = joins.features(src, dst, 1.0, min(1.0, (src.n_distinct or 0) / (dst.n_distinct or 1)))
    assert f["no_name"] == 1.0 or f["name_evidence"] == 0.0
    assert f["chance_inclusion"] == 1.0


@pytest.mark.parametrize(
    "src,dst",
    [
        # a nameless reference that behaves like one: spans and covers a small counter
        (_col("follows", "f1", 1, 7, 5, 20), _col("user_profiles", "uid", 1, 7, 7, 7, unique=True)),
        # a key range far from 1: inclusion is not what small integers give by chance
        (_col("voting_record", "president_vote", 1004, 1024, 3, 10),
         _col("student", "stuid", 1001, 1035, 34, 34, unique=True)),
        # a name link always stands
        (_col("orders", "cust_id", 1, 2000, 1900, 40_000), CUST),
    ],
)
def test_chance_inclusion_keeps_reference_like_pairs(src: ColumnRef, dst: ColumnRef):
    f = joins.features(src, dst, 1.0, min(1.0, (src.n_distinct or 0) / (dst.n_distinct or 1)))
    assert f["chance_inclusion"] == 0.0
    assert not chance_inclusion(src, dst, 1.0, None, f["name_evidence"], bool(f["src_id_like"]))


def test_resolve_never_accepts_a_chance_only_pair_by_score():
    a = JoinRow(key=(("s", "order_items"), ("qty",), ("s", "customers"), ("cust_id",)), score=0.99,
                status="proposed", decided_by="score", features=None, chance_only=True)
    b = JoinRow(key=(("s", "order_items"), ("qty",), ("s", "stores"), ("store_id",)), score=0.5,
                status="proposed", decided_by="score", features=None)
    human = JoinRow(key=(("s", "x"), ("qty",), ("s", "customers"), ("cust_id",)), score=0.01,
                    status="accepted", decided_by="human", chance_only=True)
    out = resolve([a, b, human])
    assert out[a.key] == ("proposed", "score")
    assert out[b.key] == ("accepted", "score")  # the next candidate of the column may win
    assert out[human.key] == ("accepted", "human")
