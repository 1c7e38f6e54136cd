"""Each corrector on an in-memory catalog and value cache, and the chain."""

from __future__ import annotations

import datetime as dt

import pytest

from sqlgenie.autocorrect import (
    CHAIN_ORDER,
    AmbiguousIdentifierError,
    AutocorrectSettings,
    InMemoryValueMatcher,
    Resolver,
    add_limit,
    add_mandatory_columns,
    correct_values,
    match_datatypes,
    repair_identifiers,
    run_chain,
)
from sqlgenie.autocorrect.base import parse_sql, to_sql
from sqlgenie.catalog import Catalog, ColumnInfo, TableInfo

BRANDS = TableInfo("shop", "brands", (
    ColumnInfo("brand_id", "integer"),
    ColumnInfo("name", "text", searchable=True),
    ColumnInfo("country", "character varying(40)", searchable=True),
))
PRODUCTS = TableInfo("shop", "products", (
    ColumnInfo("product_id", "integer"),
    ColumnInfo("brand_id", "integer"),
    ColumnInfo("title", "text", searchable=True, mandatory=True, aggregation="MIN"),
    ColumnInfo("category", "text", searchable=True),
    ColumnInfo("price", "numeric(10,2)", aggregation="SUM"),
    ColumnInfo("launched", "date"),
    ColumnInfo("updated_at", "timestamp without time zone"),
    ColumnInfo("active", "boolean"),
    ColumnInfo("sku", "character varying(12)", searchable=True),
))
STUDENTS = TableInfo("shop", "students", (
    ColumnInfo("student_roll_number", "character varying(10)"),
    ColumnInfo("age", "integer"),
    ColumnInfo("student_name", "text", mandatory=True),
))
ORDERS = TableInfo("shop", "orders", (ColumnInfo("order_id", "integer"), ColumnInfo("amount", "numeric")))
ORDER_LINES = TableInfo("shop", "order_lines", (ColumnInfo("order_id", "integer"), ColumnInfo("qty", "integer")))
SALES = tuple(TableInfo("shop", f"sales_{y}", (ColumnInfo("amount", "numeric"),)) for y in (2023, 2024))
CATALOG = Catalog((BRANDS, PRODUCTS, STUDENTS, ORDERS, ORDER_LINES) + SALES, search_path=("shop",))

CACHES = {
    "shop.brands.name": {"Rockpot LLC": 3, "Rockpot": 5, "Rockpot ロックポット": 2, "Soundwave": 4, "Sakura": 2,
                         "Nordhaus": 1},
    "shop.brands.country": ["Japan", "Germany", "United States", "France"],
    "shop.products.title": ["1300 Headphone", "Headphone Pro 2", "Wireless Earbuds X2 (Black)", "Studio Monitor 5"],
    "shop.products.category": ["Headphones", "Speakers", "Cables", "Audio"],
    "shop.products.sku": ["1300", "HP-2", "A1"],
}
MATCHER = InMemoryValueMatcher(CACHES)
S = AutocorrectSettings(now=dt.datetime(2024, 3, 15, 9, 0))


def values(sql: str, settings: AutocorrectSettings = S):
    tree = parse_sql(sql)
    before = to_sql(tree)
    new, changes = correct_values(tree, CATALOG, MATCHER, settings)
    assert to_sql(tree) == before  # the input tree is never mutated
    return to_sql(new), changes


# --- resolution --------------------------------------------------------------------------


def test_resolution_through_aliases_joins_ctes_subqueries_and_unions():
    sql = """
        WITH c AS (SELECT b.name AS nm, b.brand_id FROM brands b)
        SELECT x.nm FROM (SELECT * FROM c) x JOIN products AS p ON p.brand_id = x.brand_id
        WHERE x.nm = 'a' AND category = 'b'
          AND p.product_id IN (SELECT product_id FROM products q WHERE q.title <> x.nm)
          AND EXISTS (SELECT 1 FROM (SELECT name FROM brands UNION SELECT b2.name FROM brands b2) u(n) WHERE u.n = 'z')
          AND unknown_t.k = 1
    """
    tree = parse_sql(sql)
    r = Resolver(tree, CATALOG)
    got = {}
    from sqlglot import exp

    for col in tree.find_all(exp.Column):
        ref = r.resolve(col)
        got.setdefault(col.sql(), set()).add(ref.key if ref else None)
    assert got["x.nm"] == {"shop.brands.name"}
    assert got["category"] == {"shop.products.category"}
    assert got["q.title"] == {"shop.products.title"}
    assert got["u.n"] == {"shop.brands.name"}
    assert got["unknown_t.k"] == {None}


def test_unqualified_name_in_two_tables_is_not_resolved():
    tree = parse_sql("SELECT 1 FROM products p JOIN brands b ON true WHERE brand_id = 1")
    from sqlglot import exp

    col = [c for c in tree.find_all(exp.Column) if c.name == "brand_id"][0]
    assert Resolver(tree, CATALOG).resolve(col) is None


# --- values ------------------------------------------------------------------------------


def test_rockpot_example():
    sql, changes = values("SELECT * FROM brands WHERE name = 'rockpot'")
    assert sql == "SELECT * FROM brands WHERE name IN ('Rockpot', 'Rockpot LLC', 'Rockpot ロックポット')"
    [c] = changes
    assert (c.corrector, c.before) == ("values", "name = 'rockpot'")
    assert "'rockpot' is not a cached value of shop.brands.name" in c.reason


def test_values_through_alias_cte_and_subquery():
    sql, changes = values(
        "WITH c AS (SELECT name AS brand FROM brands) SELECT * FROM c WHERE brand = 'soundwave'"
    )
    assert sql.endswith("WHERE brand = 'Soundwave'") and len(changes) == 1
    sql, _ = values("SELECT * FROM (SELECT b.name AS n FROM brands b) s WHERE s.n = 'sakura'")
    assert sql.endswith("WHERE s.n = 'Sakura'")
    sql, _ = values("SELECT * FROM products p WHERE p.brand_id IN (SELECT brand_id FROM brands WHERE country = 'japan')")
    assert "country = 'Japan'" in sql


def test_not_equal_and_not_in_and_in_lists():
    sql, _ = values("SELECT * FROM brands b WHERE b.name <> 'rockpot'")
    assert sql == "SELECT * FROM brands AS b WHERE NOT b.name IN ('Rockpot', 'Rockpot LLC', 'Rockpot ロックポット')"
    sql, _ = values("SELECT * FROM brands WHERE country NOT IN ('germany', 'France', 'Atlantis')")
    assert sql == "SELECT * FROM brands WHERE NOT country IN ('Germany', 'France', 'Atlantis')"
    sql, changes = values("SELECT * FROM brands WHERE country IN ('united states')")
    assert sql.endswith("country IN ('United States')") and len(changes) == 1


def test_like_patterns_are_corrected_conservatively():
    sql, changes = values("SELECT * FROM products WHERE title LIKE '%headphones pro%'")
    assert sql == "SELECT * FROM products WHERE title IN ('Headphone Pro 2')"
    assert "matches no cached value" in changes[0].reason
    # a pattern that matches a cached value is left alone, whatever the case of ILIKE
    assert values("SELECT * FROM products WHERE title ILIKE '%headphone%'")[1] == []
    assert values("SELECT * FROM products WHERE title LIKE '%Studio%'")[1] == []
    # NOT LIKE keeps its negation
    sql, _ = values("SELECT * FROM products WHERE title NOT LIKE 'studio monitor%'")
    assert sql == "SELECT * FROM products WHERE NOT title IN ('Studio Monitor 5')"
    # nothing close: untouched
    assert values("SELECT * FROM products WHERE title LIKE '%zzzz%'")[1] == []


def test_exact_literals_are_never_touched():
    for sql in (
        "SELECT * FROM brands WHERE name = 'Rockpot'",
        "SELECT * FROM brands WHERE name IN ('Rockpot', 'Sakura')",
        "SELECT * FROM brands WHERE name <> 'Rockpot LLC'",
        "SELECT * FROM products WHERE sku = '1300'",
    ):
        assert values(sql) == (to_sql(parse_sql(sql)), [])


def test_non_searchable_unknown_and_weak_literals_are_untouched():
    assert values("SELECT * FROM students WHERE student_name = 'bob'")[1] == []  # not searchable
    assert values("SELECT * FROM nowhere WHERE name = 'rockpot'")[1] == []  # not onboarded
    assert values("SELECT * FROM products WHERE sku = '1301'")[1] == []  # digits only: no fuzzy match
    assert values("SELECT * FROM products WHERE sku = 'a1'")[0].endswith("sku = 'A1'")  # case variant is fine
    assert values("SELECT * FROM products WHERE sku = 'B1'")[1] == []  # short: no fuzzy match
    assert values("SELECT * FROM brands WHERE name = 'qwxz'")[1] == []  # nothing close


def test_keep_original_when_the_cache_is_incomplete():
    big = TableInfo("shop", "brands", tuple(
        ColumnInfo(c.name, c.data_type, searchable=c.searchable, n_distinct=1000.0) for c in BRANDS.columns
    ))
    cat = Catalog((big,), search_path=("shop",))
    tree, _ = correct_values(parse_sql("SELECT * FROM brands WHERE name = 'sakra'"), cat, MATCHER, S)
    assert to_sql(tree).endswith("name IN ('sakra', 'Sakura')")
    never = S.model_copy(update={"value_keep_original": "never"})
    tree, _ = correct_values(parse_sql("SELECT * FROM brands WHERE name = 'sakra'"), cat, MATCHER, never)
    assert to_sql(tree).endswith("name = 'Sakura'")


def test_value_thresholds_are_configurable():
    strict = S.model_copy(update={"value_cutoff": 99.0})
    sql, _ = values("SELECT * FROM brands WHERE name = 'rockpot'", strict)
    assert sql.endswith("name = 'Rockpot'")
    off = S.model_copy(update={"value_cutoff": 95.0, "value_typo_distance": 0})
    assert values("SELECT * FROM brands WHERE name = 'rockpt'", off)[1] == []
    assert values("SELECT * FROM brands WHERE name = 'rockpt'", S)[0].endswith("name = 'Rockpot'")



# Spider's tvshow titles (the literal 'The Rise of the Blue Beetle' was once rewritten to
# 'The Hanged Man': WRatio's partial token-set ratio is 100 for any shared word, "the").
CARTOONS = TableInfo("tv", "cartoon", (ColumnInfo("title", "text", searchable=True),))
TV_CATALOG = Catalog((CARTOONS,), search_path=("tv",))
TV_TITLES = ["The Hanged Man", "Fall of the Blue Beetle!", "The Eyes of Despero!", "Evil Under the Sea!",
             "Day of the Dark Knight!", "Journey to the Center of the Bat!", "Enter the Outsiders!"]
TV_MATCHER = InMemoryValueMatcher({"tv.cartoon.title": TV_TITLES})


def tv(sql: str):
    new, changes = correct_values(parse_sql(sql), TV_CATALOG, TV_MATCHER, S)
    return to_sql(new), changes


def test_long_literal_sharing_only_stop_words_is_left_alone():
    sql = "SELECT * FROM cartoon WHERE title = 'The Rise of the Blue Beetle'"
    assert tv(sql) == (to_sql(parse_sql(sql)), [])
    # a content word swapped for another is a different title, not a slip
    assert tv("SELECT * FROM cartoon WHERE title = 'Rise of the Blue Beetle!'")[1] == []
    assert tv("SELECT * FROM cartoon WHERE title = 'The Hanged Woman and the Sea'")[1] == []
    assert tv("SELECT * FROM cartoon WHERE title IN ('The Rise of the Blue Beetle', 'the hanged man')")[0].endswith(
        "title IN ('The Rise of the Blue Beetle', 'The Hanged Man')")


def test_value_families_still_corrected_on_long_titles():
    for literal, fixed in [
        ("the hanged man", "The Hanged Man"),  # case
        ("The Eyes of Desparo!", "The Eyes of Despero!"),  # typo
        ("Fall of the Beetle!", "Fall of the Blue Beetle!"),  # dropped word
        ("The Eyes Despero", "The Eyes of Despero!"),  # dropped stop word and punctuation
        ("Evil Under the Seas", "Evil Under the Sea!"),  # plural
        ("Enter the  Outsiders", "Enter the Outsiders!"),  # spaces
    ]:
        sql, changes = tv(f"SELECT * FROM cartoon WHERE title = '{literal}'")
        assert sql.endswith(f"title = '{fixed.replace(chr(39), chr(39) * 2)}'"), (literal, sql)
        assert len(changes) == 1


def test_value_families_on_short_values():
    # plural/singular and containment of the literal's words
    assert values("SELECT * FROM products WHERE category = 'headphone'")[0].endswith("category = 'Headphones'")
    assert values("SELECT * FROM products WHERE title = '1300 headphones'")[0].endswith("title = '1300 Headphone'")
    assert values("SELECT * FROM products WHERE title = 'headphone'")[0].endswith(
        "title IN ('1300 Headphone', 'Headphone Pro 2')")
    # accents, spaces, an added word, swapped words
    assert values("SELECT * FROM brands WHERE name = 'Sákura'")[0].endswith("name = 'Sakura'")
    assert values("SELECT * FROM brands WHERE name = 'sound wave'")[0].endswith("name = 'Soundwave'")
    assert values("SELECT * FROM brands WHERE name = 'Rockpot Inc'")[0].endswith("name = 'Rockpot'")
    assert values("SELECT * FROM brands WHERE country = 'States United'")[0].endswith("country = 'United States'")
    # two words the value lacks: not a slip
    assert values("SELECT * FROM brands WHERE name = 'Rockpot Audio Company'")[1] == []


def test_explained():
    from sqlgenie.autocorrect.values import explained

    assert explained("the rise of the blue beetle", "fall of the blue beetle") is False
    assert explained("the rise of the blue beetle", "the hanged man") is False
    assert explained("the rise of the bluw beetle", "the rise of the blue beetle") is True
    assert explained("t inc", "t") is True  # one-letter codes
    assert explained("j smith", "john smith") is True  # initials
    assert explained("cities", "city") is True
    assert explained("english", "creole english") is True  # containment (ranked after exact variants)


# --- datatypes ---------------------------------------------------------------------------


def types_(sql: str):
    tree = parse_sql(sql)
    new, changes = match_datatypes(tree, CATALOG, S)
    return to_sql(new), changes


def test_number_literal_on_varchar_becomes_string_and_back():
    sql, changes = types_("SELECT * FROM students WHERE student_roll_number = 4")
    assert sql == "SELECT * FROM students WHERE student_roll_number = '4'"
    assert changes[0].corrector == "datatypes" and "character varying" in changes[0].reason
    assert types_("SELECT * FROM students WHERE age = '42'")[0].endswith("age = 42")
    assert types_("SELECT * FROM students s WHERE s.age IN ('1', '-2', 3)")[0].endswith("s.age IN (1, -2, 3)")
    assert types_("SELECT * FROM students WHERE age BETWEEN '1' AND '9'")[0].endswith("age BETWEEN 1 AND 9")
    assert types_("SELECT * FROM students WHERE age = 'old'")[1] == []  # not a number: left alone
    assert types_("SELECT * FROM students WHERE age = 42")[1] == []


def test_dates_and_timestamps():
    sql, _ = types_("SELECT * FROM products WHERE launched >= '03/01/2024' AND launched < '2024-04-01'")
    assert sql.endswith("launched >= CAST('2024-03-01' AS DATE) AND launched < CAST('2024-04-01' AS DATE)")
    sql, _ = types_("SELECT * FROM products WHERE updated_at > 'March 5, 2024 14:30'")
    assert sql.endswith("updated_at > CAST('2024-03-05 14:30:00' AS TIMESTAMP)")
    assert types_("SELECT * FROM products WHERE launched > 'March 2024'")[1] == []  # no day: left alone
    assert types_("SELECT * FROM products WHERE launched > '2024'")[1] == []


def test_booleans():
    assert types_("SELECT * FROM products WHERE active = 'yes'")[0].endswith("active = TRUE")
    assert types_("SELECT * FROM products WHERE active = 0")[0].endswith("active = FALSE")
    assert types_("SELECT * FROM products WHERE active = 'maybe'")[1] == []


# --- identifiers ---------------------------------------------------------------------------


def test_identifier_repair_unique_match():
    tree = parse_sql("SELECT prodcts.titel, b.nme FROM prodcts JOIN brands b ON true WHERE catgory = 'x'")
    new, changes = repair_identifiers(tree, CATALOG, S)
    assert to_sql(new) == (
        "SELECT products.title, b.name FROM products JOIN brands AS b ON TRUE WHERE category = 'x'"
    )
    assert [c.corrector for c in changes] == ["identifiers"] * 4
    new, changes = repair_identifiers(parse_sql("SELECT qty FROM order_line"), CATALOG, S)
    assert to_sql(new) == "SELECT qty FROM order_lines" and "order_line" in changes[0].reason


def test_identifier_repair_leaves_aliases_ctes_and_unknown_sources_alone():
    for sql in (
        "SELECT count(*) AS total FROM products ORDER BY total",
        "SELECT category AS cat FROM products GROUP BY cat",
        "WITH prods AS (SELECT 1 AS x) SELECT x FROM prods",
        "SELECT g FROM generate_series(1, 3) AS g",
        "SELECT whatever FROM not_onboarded_table_xyz_123",
        "SELECT relname FROM pg_class",
    ):
        new, changes = repair_identifiers(parse_sql(sql), CATALOG, S)
        assert changes == [], sql


def test_identifier_repair_ambiguous_is_an_error_listing_candidates():
    with pytest.raises(AmbiguousIdentifierError) as info:
        repair_identifiers(parse_sql("SELECT * FROM sales_2025"), CATALOG, S)
    err = info.value
    assert sorted(err.candidates) == ["shop.sales_2023", "shop.sales_2024"]
    assert "sales_2025" in err.message and err.kind == "table"
    with pytest.raises(AmbiguousIdentifierError) as info:
        repair_identifiers(parse_sql("SELECT brand_idd FROM products p JOIN brands b ON true"), CATALOG, S)
    assert sorted(info.value.candidates) == ["b.brand_id", "p.brand_id"]


# --- defaults ------------------------------------------------------------------------------


def limit(sql: str, question: str | None = None) -> str:
    return to_sql(add_limit(parse_sql(sql), S, question)[0])


def test_default_limit_and_its_exceptions():
    assert limit("SELECT title FROM products") == "SELECT title FROM products LIMIT 500"
    assert limit("SELECT title FROM products", "How many products are there?") == "SELECT title FROM products"
    assert limit("SELECT title FROM products ORDER BY price DESC", "top 5 products by price").endswith("DESC")
    assert limit("SELECT title FROM products ORDER BY price", "the 3 cheapest? no: 3 lowest prices").endswith("price")
    assert limit("SELECT count(*) FROM products") == "SELECT COUNT(*) FROM products"
    assert limit("SELECT max(price), min(price) FROM products") == "SELECT MAX(price), MIN(price) FROM products"
    assert limit("SELECT title FROM products LIMIT 10") == "SELECT title FROM products LIMIT 10"
    assert limit("SELECT category, count(*) FROM products GROUP BY category").endswith("LIMIT 500")
    assert limit("SELECT title FROM products UNION SELECT name FROM brands").endswith("LIMIT 500")
    assert limit("SELECT 1") == "SELECT 1"


def mandatory(sql: str) -> str:
    return to_sql(add_mandatory_columns(parse_sql(sql), CATALOG, S)[0])


def test_mandatory_columns_without_and_with_group_by():
    assert mandatory("SELECT p.price FROM products p") == "SELECT p.price, p.title FROM products AS p"
    assert mandatory("SELECT title, price FROM products") == "SELECT title, price FROM products"
    assert mandatory("SELECT * FROM products") == "SELECT * FROM products"
    assert mandatory("SELECT category, sum(price) FROM products GROUP BY category") == (
        "SELECT category, SUM(price), MIN(products.title) AS title FROM products GROUP BY category"
    )
    assert mandatory("SELECT title, sum(price) FROM products GROUP BY title") == (
        "SELECT title, SUM(price) FROM products GROUP BY title"
    )
    # student_name has no aggregation: not added to a grouped query
    assert mandatory("SELECT age, count(*) FROM students GROUP BY age") == (
        "SELECT age, COUNT(*) FROM students GROUP BY age"
    )
    assert mandatory("SELECT count(*) FROM products") == "SELECT COUNT(*) FROM products"
    assert mandatory("SELECT DISTINCT category FROM products") == "SELECT DISTINCT category FROM products"


# --- chain ---------------------------------------------------------------------------------


def test_chain_order_and_change_list():
    sql = (
        "SELECT p.product_id FROM prodcts p JOIN brands b ON b.brand_id = p.brand_id "
        "WHERE b.nme = 'rockpot' AND p.sku = 1300 "
        "AND p.launched >= '<python>(datetime.now()-relativedelta(weeks=6)).strftime('%Y-%m-%d')</python>'"
    )
    result = run_chain(sql, CATALOG, MATCHER, S, question="which products?")
    assert result.errors == []
    assert result.sql == (
        "SELECT p.product_id, p.title FROM products AS p JOIN brands AS b ON b.brand_id = p.brand_id "
        "WHERE b.name IN ('Rockpot', 'Rockpot LLC', 'Rockpot ロックポット') AND p.sku = '1300' "
        "AND p.launched >= CAST('2024-02-02' AS DATE) LIMIT 500"
    )
    order = [c.corrector for c in result.changes]
    assert order == ["python_spans", "identifiers", "identifiers", "datatypes", "datatypes", "values",
                     "defaults", "defaults"]
    ranks = [CHAIN_ORDER.index(n) for n in order]
    assert ranks == sorted(ranks)
    assert set(result.timings_ms) >= {"python_spans", "parse", "identifiers", "datatypes", "values", "defaults"}
    assert result.to_dict()["changes"][0]["corrector"] == "python_spans"


def test_chain_unchanged_sql_is_returned_verbatim_and_switches_work():
    sql = "select  title from products where category = 'Audio'  limit 3"
    result = run_chain(sql, CATALOG, MATCHER, S)
    assert result.sql == sql and result.changes == [] and result.ok
    off = AutocorrectSettings(values=False, limit=False, mandatory_columns=False, identifiers=False, datatypes=False)
    result = run_chain("SELECT price FROM prodcts WHERE name = 'rockpot'", CATALOG, MATCHER, off)
    assert result.changes == []


def test_chain_reports_errors_instead_of_raising():
    r = run_chain("SELECT <python>__import__('os')</python>", CATALOG, MATCHER, S)
    assert r.ast is None and type(r.errors[0]).__name__ == "SafeEvalError"
    r = run_chain("SELEC 1 FROM", CATALOG, MATCHER, S)
    assert type(r.errors[0]).__name__ == "SQLSyntaxError"
    r = run_chain("SELECT brand_idd, name FROM products p JOIN brands b ON true WHERE nme = 'sakura'", CATALOG,
                  MATCHER, S.without_defaults())
    assert isinstance(r.errors[0], AmbiguousIdentifierError)
    assert r.sql.endswith("WHERE name = 'Sakura'")  # the unique repair and the value fix still apply


def test_settings_from_global_settings_and_dict():
    from types import SimpleNamespace

    from sqlgenie.config import load_settings

    s = AutocorrectSettings.from_settings(load_settings(default_limit=123))
    assert s.default_limit == 123 and s.now is None
    pinned = dt.datetime(2020, 1, 1)
    fake = SimpleNamespace(default_limit=50, autocorrect={"values": False, "value_cutoff": 90}, now=pinned)
    s = AutocorrectSettings.from_settings(fake, limit=False)
    assert (s.default_limit, s.values, s.value_cutoff, s.now, s.limit) == (50, False, 90.0, pinned, False)
    with pytest.raises(ValueError):
        AutocorrectSettings.model_validate({"no_such_switch": True})
    r = run_chain("SELECT <python>today()</python>", CATALOG, MATCHER, s)
    assert r.sql == "SELECT CAST('2020-01-01' AS DATE)"
