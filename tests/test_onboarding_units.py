"""Pure parts of onboarding: names, synonyms, aggregation, cost model, join scoring and
decision rules, LLM answer parsing, value-shape detection, workload parsing."""

from __future__ import annotations

import math
from collections import Counter

import pytest

from onboarding import aggregation, cost, enrich, indexes, joins, names, value_cache
from onboarding.profile import ColumnProfile, split_table_spec


@pytest.mark.parametrize(
    "name, words",
    [
        ("total_amt", ["total", "amt"]),
        ("totalAmtUSD", ["total", "amt", "usd"]),
        ("EmployeeID", ["employee", "id"]),
        ("stuid", ["stu", "id"]),
        ("Order Items", ["order", "items"]),
        ("sq_ft", ["sq", "ft"]),
        ("club_id_1", ["club", "id", "1"]),
        ("paid", ["paid"]),
        ("dno", ["d", "no"]),
        ('say "hi"', ["say", "hi"]),
        ("MünchenStadt", ["münchen", "stadt"]),
    ],
)
def test_split_identifier(name, words):
    assert names.split_identifier(name) == words


@pytest.mark.parametrize("short, long", [("qty", "quantity"), ("amt", "amount"), ("cust", "customer"),
                                         ("no", "number"), ("num", "number"), ("dt", "date"), ("desc", "description")])
def test_abbreviations_both_directions(short, long):
    assert long in names.expand_word(short)
    assert short in names.abbreviations_of(long)


def test_synonyms_both_directions():
    assert "quantity" in names.synonyms_for("qty")
    assert "total amount" in names.synonyms_for("total_amt")
    assert "customer id" in names.synonyms_for("cust_id") and "customer" in names.synonyms_for("cust_id")
    assert "cust no" in names.synonyms_for("customer_number")
    assert "ord dt" in names.synonyms_for("order_date")
    assert "desc" in names.synonyms_for("description")
    assert "date of birth" in names.synonyms_for("dob")
    assert names.synonyms_for("qty") == ["quantity"]  # the name itself is never a synonym


def test_word_and_table_matching():
    assert names.words_match("cust", "customers") == 1.0
    assert names.words_match("campus", "campuses") == 1.0
    assert names.words_match("amen", "amenity") == 0.8  # abbreviation by subsequence
    assert names.words_match("price", "quantity") == 0.0
    assert names.mentions_table(names.split_identifier("Host_city_ID"), "city") == 1.0
    assert names.mentions_table(["person"], "people") == 1.0


def _col(name, data_type="integer", family="numeric", **kw) -> ColumnProfile:
    return ColumnProfile(name=name, ordinal=kw.pop("ordinal", 2), data_type=data_type, category="N", family=family,
                         integral=data_type in ("integer", "bigint", "smallint"), **kw)


@pytest.mark.parametrize(
    "col, agg",
    [
        (_col("qty"), "SUM"),
        (_col("total_amt", "numeric(12,2)"), "SUM"),
        (_col("unit_price", "numeric(10,2)"), "AVG"),
        (_col("discount", "numeric(4,2)"), "AVG"),
        (_col("order_date", "timestamp without time zone", "temporal"), "MAX"),
        (_col("year"), "MAX"),
        (_col("cust_id"), "COUNT"),
        (_col("is_active", "boolean", "boolean"), "COUNT"),
        (_col("city", "text", "text"), "STRING_AGG"),
        (_col("rating", "integer", n_distinct=5), "AVG"),
    ],
)
def test_aggregation_picks(col, agg):
    assert aggregation.pick_aggregation(col, row_count=1000) == agg


def test_cost_formula_and_fit():
    assert cost.join_cost(1, 1, k0=2.0, k1=1.0) == 2.0  # n ln n = 0 for n <= 1
    expected = 0.5 + 1e-5 * (1000 * math.log(1000) + 50 * math.log(50))
    assert cost.join_cost(1000, 50, 0.5, 1e-5) == pytest.approx(expected)
    model = cost.CostModel(1.0, 2e-5)
    samples = [(a, b, model.cost(a, b)) for a, b in [(10, 10), (100, 1000), (5000, 20000), (1e5, 1e5)]]
    k0, k1, r2 = cost.fit(samples)
    assert k0 == pytest.approx(1.0, rel=1e-6) and k1 == pytest.approx(2e-5, rel=1e-6) and r2 == pytest.approx(1.0)


def _ref(table, column, **kw):
    base = dict(schema="s", table=table, column=column, data_type="integer", family="numeric", integral=True, rows=100)
    base.update(kw)
    return joins.ColumnRef(**base)


def test_join_features_and_score_prefer_named_keys():
    customers_id = _ref("customers", "customer_id", is_unique=True, is_pk=True, ordinal=1, min_value="1", max_value="100",
                        n_distinct=100)
    good = joins.features(_ref("orders", "customer_id", n_distinct=60, min_value="1", max_value="99"), customers_id, 1.0, 0.6)
    measure = joins.features(_ref("orders", "quantity", n_distinct=8, min_value="1", max_value="8"), customers_id, 1.0, 0.08)
    assert good["same_name"] == 1 and good["names_table"] == 1 and good["inclusion_full"] == 1
    assert measure["src_measure"] == 1 and measure["no_name"] == 1
    assert joins.score(good) >= joins.THRESHOLD > joins.score(measure)
    # order_items.order_item_id names its own table, not orders
    own = joins.features(_ref("order_items", "order_item_id", is_unique=True, is_pk=True),
                         _ref("orders", "order_id", is_unique=True, is_pk=True), 1.0, 1.0)
    assert own["names_table"] == 0 and own["src_own_key"] == 1


def test_resolve_one_target_per_column_and_humans_win():
    a = (1, ("cust_id",), 2, ("id",))
    b = (1, ("cust_id",), 3, ("id",))
    rev = (2, ("id",), 1, ("cust_id",))
    rows = [joins.JoinRow(a, 0.9, "proposed", "score"), joins.JoinRow(b, 0.8, "proposed", "score"),
            joins.JoinRow(rev, 0.5, "proposed", "score")]
    out = joins.resolve(rows, threshold=0.3)
    assert out[a] == ("accepted", "score") and out[b][0] == "proposed" and out[rev][0] == "proposed"
    rows[1] = joins.JoinRow(b, 0.8, "accepted", "human")
    out = joins.resolve(rows, threshold=0.3)
    assert out[b] == ("accepted", "human") and out[a][0] == "proposed"
    rows[1] = joins.JoinRow(b, 0.8, "rejected", "human")
    assert joins.resolve(rows, threshold=0.3)[b] == ("rejected", "human")


def test_sole_target_group_feature():
    full = {"inclusion_full": 1.0, "dst_pk": 1.0, "no_name": 1.0, "range_span": 0.9}
    other = {"inclusion_full": 0.0, "dst_pk": 1.0}
    extra = joins.group_features([full, other])
    assert extra[0]["sole_target"] == 1 and extra[1]["sole_target"] == 0
    assert joins.group_features([full, dict(full)])[0]["sole_target"] == 0  # two candidates: not sole


def test_llm_answer_parsing():
    text = 'Sure!\n```json\n[{"id": 1, "verdict": "accept", "reason": "same entity"}, {"id": "2", "verdict": "no"}]\n```'
    assert joins.parse_verdicts(text) == {1: ("accept", "same entity"), 2: ("reject", "")}
    assert joins.parse_verdicts("no json here") == {}
    syn = enrich.parse_synonyms('{"QTY": ["Units", "qty", "pieces"], "nope": ["x"], "price": "bad"}', ["qty", "price"])
    assert syn == {"qty": ["units", "pieces"]}


def test_searchable_rules():
    text = dict(data_type="text", category="S", family="text", avg_width=8.0, n_distinct=20.0, non_null=100, null_frac=0.0)
    assert value_cache.searchable(ColumnProfile("city", 1, **text), ["Berlin", "München"])[0]
    assert not value_cache.searchable(ColumnProfile("contact", 1, **text), ["a@b.com", "c@d.org"])[0]
    assert not value_cache.searchable(ColumnProfile("homepage", 1, **text), ["https://x.org", "http://y.com"])[0]
    assert not value_cache.searchable(ColumnProfile("customer_id", 1, **text), ["A1"])[0]
    assert not value_cache.searchable(ColumnProfile("city", 1, **{**text, "n_distinct": 250_000.0}), ["x"])[0]
    assert not value_cache.searchable(ColumnProfile("notes", 1, **{**text, "avg_width": 5000.0}), ["x"])[0]
    assert not value_cache.searchable(ColumnProfile("photo", 1, "bytea", "U", "binary"), None)[0]
    assert not value_cache.searchable(ColumnProfile("empty", 1, **{**text, "non_null": 0, "null_frac": 1.0}), [])[0]


def test_workload_usage_with_sqlglot():
    cols = {("demo", "orders"): {"order_id", "cust_id", "order_date", "status"}, ("demo", "customers"): {"cust_id", "city"}}
    sqls = [
        "SELECT c.city, count(*) FROM demo.orders o JOIN demo.customers c ON o.cust_id = c.cust_id"
        " WHERE o.status = 'shipped' GROUP BY c.city ORDER BY 2 DESC",
        "SELECT order_id FROM demo.orders WHERE order_date >= DATE '2025-01-01' ORDER BY order_date",
        "not sql at all ((",
    ]
    usage, touching = indexes.workload_usage(sqls, cols, search_path=("demo",))
    assert usage[("demo", "orders")]["cust_id"] == Counter({"join": 1})
    assert usage[("demo", "orders")]["order_date"] == Counter({"where": 1, "order": 1})
    assert usage[("demo", "customers")]["city"]["group"] == 1
    assert len(touching[("demo", "orders")]) == 2


def test_table_spec_parsing():
    assert split_table_spec('shop."Order Items"') == ("shop", "Order Items", True)
    assert split_table_spec('"my.schema"."a""b"') == ("my.schema", 'a"b', True)
    assert split_table_spec("orders") == (None, "orders", False)
