"""The JOIN planner on the real embedded PostgreSQL: tables loaded with no key
constraints, keys and joins inferred by onboarding (no LLM), then planned; the
planned FROM clauses run through the safe executor. ``sqlgenie eval joins`` on a
tiny Spider-layout dataset (keys dropped, onboarding, gold join sites)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import psycopg
import pytest

from sqlgenie.catalog import load_catalog
from sqlgenie.executor import SafeExecutor
from sqlgenie.inference.join_planner import JoinPlan, build_graph, plan_joins

from pg_helpers import onboard_fixture_schema

S = "shopj"
DDL = [
    f"CREATE SCHEMA {S}",
    f"CREATE TABLE {S}.customers (customer_id int, customer_name text, region text)",
    f"CREATE TABLE {S}.orders (order_id int, customer_id int, order_date date, status text)",
    f"CREATE TABLE {S}.order_items (order_item_id int, order_id int, product_id int, quantity int)",
    f"CREATE TABLE {S}.products (product_id int, product_name text, price numeric)",
    f"CREATE TABLE {S}.airports (airport_code text, airport_name text, city text)",
    f"CREATE TABLE {S}.flights (flight_id int, source_airport_code text, destination_airport_code text, airline text)",
    f"CREATE TABLE {S}.addresses (address_id int, street text, country text)",
    f"CREATE TABLE {S}.students (student_id int, student_name text, current_address_id int, permanent_address_id int)",
    f"CREATE TABLE {S}.weather (day date, rainfall numeric)",
    f"CREATE TABLE {S}.region_managers (region text, manager_name text, since date)",
    f"CREATE TABLE {S}.customer_notes (note_id int, customer_id int, note text)",
]


def _fill(conn: psycopg.Connection) -> None:
    with conn.cursor() as cur:
        cur.executemany(f"INSERT INTO {S}.customers VALUES (%s, %s, %s)",
                        [(i, f"Customer {i}", ["north", "south", "east"][i % 3]) for i in range(1, 41)])
        cur.executemany(f"INSERT INTO {S}.orders VALUES (%s, %s, DATE '2024-01-01' + %s, %s)",
                        [(100 + i, 1 + (i * 7) % 40, i % 90, ["open", "paid"][i % 2]) for i in range(200)])
        cur.executemany(f"INSERT INTO {S}.products VALUES (%s, %s, %s)",
                        [(500 + i, f"Product {i}", 3 + i) for i in range(30)])
        cur.executemany(f"INSERT INTO {S}.order_items VALUES (%s, %s, %s, %s)",
                        [(9000 + i, 100 + (i * 13) % 200, 500 + (i * 11) % 30, 1 + i % 4) for i in range(600)])
        codes = [f"A{c}{d}" for c in "BCDEFG" for d in "XYZ"]
        cur.executemany(f"INSERT INTO {S}.airports VALUES (%s, %s, %s)",
                        [(c, f"Airport {c}", f"City {i % 9}") for i, c in enumerate(codes)])
        cur.executemany(f"INSERT INTO {S}.flights VALUES (%s, %s, %s, %s)",
                        [(i, codes[i % 18], codes[(i * 5 + 3) % 18], ["Blue", "Red"][i % 2]) for i in range(120)])
        cur.executemany(f"INSERT INTO {S}.addresses VALUES (%s, %s, %s)",
                        [(700 + i, f"{i} Main St", ["Haiti", "Peru", "Chad"][i % 3]) for i in range(50)])
        cur.executemany(f"INSERT INTO {S}.students VALUES (%s, %s, %s, %s)",
                        [(i, f"Student {i}", 700 + (i * 3) % 50, 700 + (i * 7 + 1) % 50) for i in range(1, 61)])
        cur.executemany(f"INSERT INTO {S}.weather VALUES (DATE '2024-01-01' + %s, %s)", [(i, i % 5) for i in range(30)])
        # two managers per region: region is no key here, so no stored join can reach it
        cur.executemany(f"INSERT INTO {S}.region_managers VALUES (%s, %s, DATE '2020-01-01' + %s)",
                        [(["north", "south", "east"][i % 3], f"Manager {i}", i) for i in range(6)])
        cur.executemany(f"INSERT INTO {S}.customer_notes VALUES (%s, %s, %s)",
                        [(i, 1 + (i * 3) % 40, f"note {i}") for i in range(80)])


def _fill_and_analyze(conn: psycopg.Connection) -> None:
    _fill(conn)
    conn.execute("ANALYZE")


@pytest.fixture(scope="module")
def db(module_db_url):
    return onboard_fixture_schema(module_db_url, S, DDL, _fill_and_analyze)


@pytest.fixture(scope="module")
def catalog(db):
    with psycopg.connect(db, autocommit=True) as store:
        return load_catalog(store, schemas=[S], search_path=(S,))


def _run(db: str, plan: JoinPlan, select: str = "count(*)") -> list[tuple]:
    ex = SafeExecutor(db, statement_timeout_ms=5000, row_cap=1000)
    try:
        return [tuple(r) for r in ex.run(f"SELECT {select} {plan.from_clause()}").rows]
    finally:
        ex.close()


def test_onboarding_inferred_the_keys_the_planner_uses(catalog):
    assert catalog.table("orders").primary_key == ("order_id",)
    assert catalog.table("customers").primary_key == ("customer_id",)
    accepted = {(j.from_table, j.from_columns, j.to_table) for j in catalog.joins if j.status == "accepted"}
    assert (f"{S}.orders", ("customer_id",), f"{S}.customers") in accepted


def test_two_tables_one_join_with_cardinality_and_text(db, catalog):
    plan = plan_joins(catalog, ["customers", "orders"])
    assert plan.complete and plan.bridges == () and len(plan.joins) == 1
    j = plan.joins[0]
    assert (j.left_table, j.left_columns, j.right_table, j.right_columns) == (
        f"{S}.orders", ("customer_id",), f"{S}.customers", ("customer_id",))
    assert j.cardinality == "n:1" and j.fans_out and j.repeated_table == f"{S}.customers" and j.confirmed
    assert plan.fan_out() == [j]
    assert "orders.customer_id = shopj.customers.customer_id (n:1; each customers row repeats once per matching " \
           "orders row)" in plan.render()
    assert plan.condition_pairs() == {frozenset({f"{S}.orders.customer_id", f"{S}.customers.customer_id"})}
    assert _run(db, plan) == [(200,)]  # every order has its customer
    d = plan.to_dict()
    assert d["complete"] and d["joins"][0]["cardinality"] == "n:1" and d["fan_out"] == [j.condition()]
    json.dumps(d)


def test_steiner_tree_adds_the_bridge_table(db, catalog):
    plan = plan_joins(catalog, ["customers", "products"])
    assert plan.complete
    assert set(plan.bridges) == {f"{S}.orders", f"{S}.order_items"}
    assert len(plan.joins) == 3
    assert plan.tables[0] == f"{S}.customers"
    assert "Tables added only to connect the others" in plan.render()
    # the planned FROM clause runs and joins every order line once
    assert _run(db, plan) == [(600,)]
    # three requested tables: the same tree, products joined through order_items
    plan3 = plan_joins(catalog, ["products", "customers", "orders"])
    assert plan3.bridges == (f"{S}.order_items",)
    assert plan3.condition_pairs() == plan.condition_pairs()


def test_single_and_unknown_and_unconnected_tables(catalog):
    assert plan_joins(catalog, ["orders"]).joins == ()
    assert plan_joins(catalog, ["orders"]).render() == "Single table; no join needed."
    plan = plan_joins(catalog, ["orders", "no_such_table"])
    assert plan.unknown == ("no_such_table",) and not plan.complete
    assert "Not in the catalog: no_such_table" in plan.render()
    lonely = plan_joins(catalog, ["orders", "weather"], guess=False, rejected=False)
    assert lonely.unconnected == (f"{S}.weather",) and not lonely.complete
    assert "No known join reaches" in lonely.render()


def test_parallel_roles_chosen_by_question_then_column_order(db, catalog):
    default = plan_joins(catalog, ["students", "addresses"])
    assert [j.left_columns for j in default.joins] == [("current_address_id",)]
    assert default.joins[0].alternatives and default.joins[0].alternatives[0].left_columns == ("permanent_address_id",)
    assert "other joins of these tables" in default.render()
    asked = plan_joins(catalog, ["students", "addresses"], question="Which students permanently live in Haiti?")
    assert [j.left_columns for j in asked.joins] == [("permanent_address_id",)]


def test_a_table_twice_gets_a_second_role(db, catalog):
    plan = plan_joins(catalog, ["flights", "airports", "airports"], question="flights arriving in City 3")
    cols = sorted(j.left_columns[0] for j in plan.joins)
    assert cols == ["destination_airport_code", "source_airport_code"]
    second = [j for j in plan.joins if j.right_alias]
    assert len(second) == 1 and second[0].right_alias == "airports_2"
    # the question names the destination: the first copy joins it
    assert plan.joins[0].left_columns == ("destination_airport_code",)
    assert "airports_2 is a second copy of shopj.airports" in plan.render()
    rows = _run(db, plan, "count(*), count(DISTINCT airports_2.airport_code)")
    assert rows == [(120, 18)]


def test_name_only_guess_is_a_last_resort_and_says_so(db, catalog):
    assert not [j for j in catalog.joins if f"{S}.region_managers" in (j.from_table, j.to_table)
                and j.status != "rejected"]
    plan = plan_joins(catalog, ["customers", "region_managers"])
    assert plan.complete and len(plan.joins) == 1
    j = plan.joins[0]
    assert j.status == "guessed" and j.decided_by == "name" and not j.confirmed
    assert {j.left_columns, j.right_columns} == {("region",)} and j.cardinality == "n:m"
    assert "guessed from column names only" in plan.render()
    assert _run(db, plan) == [(80,)]  # 40 customers, each region has 2 managers
    assert plan_joins(catalog, ["customers", "region_managers"], guess=False, rejected=False).unconnected


def test_key_bridge_not_asked_for_is_left_out(db, catalog):
    plan = plan_joins(catalog, ["orders", "customer_notes"])
    assert plan.bridges == () and len(plan.joins) == 1
    j = plan.joins[0]
    assert {j.left_table, j.right_table} == {f"{S}.orders", f"{S}.customer_notes"}
    assert j.left_columns == j.right_columns == ("customer_id",) and j.cardinality == "n:m"
    assert j.decided_by == "shortcut" and j.fans_out
    with_bridge = plan_joins(catalog, ["orders", "customer_notes", "customers"])
    assert with_bridge.bridges == () and len(with_bridge.joins) == 2
    # same rows either way when every reference holds
    assert _run(db, plan) == _run(db, with_bridge)


def test_graph_reuse_gives_the_same_plan(catalog):
    g = build_graph(catalog)
    assert plan_joins(catalog, ["customers", "products"], graph=g) == plan_joins(catalog, ["customers", "products"])


# --- sqlgenie eval joins -------------------------------------------------------------------

from test_eval_fixtures import make_spider_dataset  # noqa: E402

JOIN_QUESTIONS = [
    {"db_id": "shop", "question": "Orders per customer",
     "query": 'SELECT T1.Name, count(*) FROM Customer AS T1 JOIN "ORDER" AS T2 ON T1.id = T2."Customer ID" GROUP BY T1.id'},
    {"db_id": "shop", "question": "Notes of orders of Paris customers",
     "query": 'SELECT T1.note FROM "select" AS T1 JOIN "Order" AS T2 ON T1."Order ID" = T2."Order ID" '
              'JOIN Customer AS T3 ON T2."Customer ID" = T3.id WHERE T3.city = "Paris"'},
    {"db_id": "shop", "question": "How many customers?", "query": "SELECT count(*) FROM CUSTOMER"},
    {"db_id": "shop", "question": "Customers with a noted big order",
     "query": 'SELECT name FROM customer WHERE id IN (SELECT cid FROM "select" AS s JOIN "Order" AS o '
              'ON s."Order ID" = o."Order ID" WHERE o.amount > 10)'},
]


def test_eval_joins_command(tmp_path, fresh_db_url):
    data = make_spider_dataset(tmp_path / "spider")
    (data / "dev.json").write_text(json.dumps(JOIN_QUESTIONS), encoding="utf-8")
    out = tmp_path / "joins.jsonl"
    env = dict(os.environ, SQLGENIE_DATABASE_URL=fresh_db_url)
    proc = subprocess.run(
        [sys.executable, "-m", "sqlgenie", "eval", "joins", "--dataset", str(data), "--out", str(out)],
        capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    s = json.loads(proc.stdout.strip().splitlines()[-1])
    assert s["task"] == "joins" and s["questions"] == 3 and s["questions_without_join"] == 1
    assert s["sites"] == 3 and s["by_tables"]["2"]["questions"] == 2 and s["by_tables"]["3"]["questions"] == 1
    records = {r["index"]: r for r in (json.loads(line) for line in out.read_text().splitlines())}
    assert records[0]["sites"][0]["gold"] == ["customer.id = order.customer id"]
    assert records[3]["sites"][0]["tables"] == ["select", "order"]
    for r in records.values():
        for site in r["sites"]:
            assert site["exact"] == (site["gold"] == site["predicted"])
    assert s["join_exact"] == round(sum(r["exact"] for r in records.values()) / 3, 4)
    assert sum(h["questions"] for h in s["db_halves"].values()) == 3
    # the shop's keys are all found once declared keys are hidden: every join site matches
    assert s["join_exact"] == 1.0, records
    assert "join_exact" in proc.stderr


# --- rules on catalogs built in memory (pure planner passes; figures in docs/benchmarks.md) ---------------

from sqlgenie.catalog import Catalog, ColumnInfo, JoinInfo, TableInfo  # noqa: E402
from sqlgenie.inference.join_planner import _weight, guessed_joins, link_key, reference_shape  # noqa: E402

M = "mem"


def _mem_catalog(tables: dict[str, tuple[list[str], list[str]]], joins: list[tuple]) -> Catalog:
    """``tables``: name -> (integer columns, primary key); ``joins``: (from, cols, to, cols,
    score, status, inclusion, cost)."""
    infos = tuple(TableInfo(M, name, tuple(ColumnInfo(c, "integer") for c in cols), tuple(pk))
                  for name, (cols, pk) in tables.items())
    js = tuple(JoinInfo(f"{M}.{a}", tuple(ac), f"{M}.{b}", tuple(bc), score, status, cost=cost, join_id=i + 1,
                        decided_by="score", inclusion=inc)
               for i, (a, ac, b, bc, score, status, inc, cost) in enumerate(joins))
    return Catalog(infos, js, (M,))


def _pairs(plan: JoinPlan) -> set[str]:
    return {" = ".join(sorted(p)) for p in plan.condition_pairs()}


def test_a_sure_join_of_two_large_tables_beats_a_cheap_detour_over_a_coincidence():
    # flight_4's shape: routes (67k rows) -> airports by a proposed join with names that link;
    # airports.elevation happens to hold airline ids. The cost is added (log scale), not
    # multiplied, so the large tables' cost does not buy the detour.
    cat = _mem_catalog(
        {"routes": (["rid", "src_apid", "alid"], ["rid"]), "airports": (["apid", "elevation"], ["apid"]),
         "airlines": (["alid"], ["alid"])},
        [("routes", ["src_apid"], "airports", ["apid"], 0.19, "proposed", 0.95, 40.8),
         ("routes", ["alid"], "airlines", ["alid"], 0.83, "accepted", 1.0, 40.3),
         ("airports", ["elevation"], "airlines", ["alid"], 0.029, "rejected", 0.91, 6.1)])
    plan = plan_joins(cat, ["routes", "airports"])
    assert _pairs(plan) == {"mem.airports.apid = mem.routes.src_apid"} and plan.bridges == ()
    direct, detour = (j for j in cat.joins if j.to_table == "mem.airports" or j.from_table == "mem.airports")
    assert _weight(direct) < _weight(cat.joins[1]) + _weight(detour)
    # the same tree with the airlines asked for too: the routes join it, not the elevation
    three = plan_joins(cat, ["routes", "airports", "airlines"])
    assert _pairs(three) == {"mem.airports.apid = mem.routes.src_apid", "mem.airlines.alid = mem.routes.alid"}


HOSPITAL = (
    {"physician": (["employeeid"], ["employeeid"]), "procedures": (["code"], ["code"]),
     "trained_in": (["physician", "treatment"], ["physician", "treatment"]),
     "undergoes": (["patient", "procedures", "physician"], ["patient", "procedures"])},
    [("trained_in", ["physician"], "physician", ["employeeid"], 0.82, "accepted", 1.0, 0.25),
     ("trained_in", ["treatment"], "procedures", ["code"], 0.053, "rejected", 1.0, 0.25),
     ("trained_in", ["physician"], "procedures", ["code"], 0.03, "rejected", 1.0, 0.25),
     ("undergoes", ["physician"], "physician", ["employeeid"], 0.85, "accepted", 1.0, 0.25),
     ("undergoes", ["procedures"], "procedures", ["code"], 0.91, "accepted", 1.0, 0.25)],
)


def test_a_link_tables_other_key_column_is_a_reference_and_asked_tables_need_no_bridge():
    cat = _mem_catalog(*HOSPITAL)
    treatment, physician_col = cat.joins[1], cat.joins[2]
    assert link_key(cat, treatment)  # trained_in(physician, treatment): physician already goes to physician
    assert not link_key(cat, physician_col)  # that column is a reference to another table already
    plan = plan_joins(cat, ["procedures", "trained_in", "physician"], question="procedures with a trained physician")
    assert _pairs(plan) == {"mem.procedures.code = mem.trained_in.treatment",
                            "mem.physician.employeeid = mem.trained_in.physician"}
    assert plan.bridges == ()
    # two tables that no join links directly still get the cheapest bridge (sure joins)
    two = plan_joins(cat, ["physician", "procedures"])
    assert two.bridges == ("mem.undergoes",) and two.complete


def test_reference_shaped_columns_beat_coincidental_key_matches_on_small_tables():
    # wedding's shape: a few rows, so every integer column holds every key's values
    cat = _mem_catalog(
        {"church": (["church_id"], ["church_id"]), "people": (["people_id"], ["people_id"]),
         "wedding": (["church_id", "male_id", "female_id", "year"], ["church_id"])},
        [("wedding", ["church_id"], "church", ["church_id"], 0.74, "accepted", 1.0, 0.25),
         ("church", ["church_id"], "people", ["people_id"], 0.0215, "rejected", 1.0, 0.25),
         ("wedding", ["male_id"], "people", ["people_id"], 0.0138, "rejected", 1.0, 0.25),
         ("wedding", ["female_id"], "people", ["people_id"], 0.0138, "rejected", 1.0, 0.25),
         ("wedding", ["church_id"], "people", ["people_id"], 0.0035, "rejected", 1.0, 0.25)])
    shapes = {j.from_table + "." + j.from_columns[0] + ">" + j.to_table: reference_shape(cat, j) for j in cat.joins}
    assert shapes["mem.wedding.male_id>mem.people"] > 0
    assert shapes["mem.church.church_id>mem.people"] == 0  # its own table's key
    assert shapes["mem.wedding.church_id>mem.people"] == 0  # names another table (church)
    plan = plan_joins(cat, ["church", "people", "wedding"])
    assert _pairs(plan) == {"mem.church.church_id = mem.wedding.church_id",
                            "mem.people.people_id = mem.wedding.male_id"}
    females = plan_joins(cat, ["people", "wedding"], question="names of the female people in weddings")
    assert _pairs(females) == {"mem.people.people_id = mem.wedding.female_id"}


def test_a_tables_own_named_key_is_no_role_and_id_columns_are_references():
    # chinook's shape: customer.supportrepid -> employee.employeeid, 8 employees
    cat = _mem_catalog(
        {"customer": (["customerid", "supportrepid"], ["customerid"]),
         "employee": (["employeeid", "reportsto"], ["employeeid"])},
        [("employee", ["employeeid"], "customer", ["customerid"], 0.0028, "rejected", 1.0, 0.26),
         ("employee", ["reportsto"], "customer", ["customerid"], 0.024, "rejected", 1.0, 0.26),
         ("customer", ["supportrepid"], "employee", ["employeeid"], 0.0103, "rejected", 1.0, 0.26)])
    plan = plan_joins(cat, ["customer", "employee"])
    assert _pairs(plan) == {"mem.customer.supportrepid = mem.employee.employeeid"}


def test_a_keyless_table_is_guessed_through_its_self_named_id_column():
    # an empty table: onboarding found no key, the names still say rental.staff_id -> staff.staff_id
    cat = _mem_catalog({"staff": (["staff_id", "store_id"], []), "rental": (["rental_id", "staff_id"], ["rental_id"]),
                        "store": (["store_id"], ["store_id"]), "payment": (["payment_id", "staff_id"], ["payment_id"]),
                        "inventory": (["inventory_id", "staff_id"], ["inventory_id"])}, [])
    guesses = {(g.from_table, g.from_columns, g.to_table, g.to_columns) for g in guessed_joins(cat, (), ["mem.rental"])}
    assert ("mem.rental", ("staff_id",), "mem.staff", ("staff_id",)) in guesses
    plan = plan_joins(cat, ["rental", "staff"])
    assert _pairs(plan) == {"mem.rental.staff_id = mem.staff.staff_id"} and plan.joins[0].status == "guessed"


def test_start_and_end_name_source_and_destination_roles():
    cat = _mem_catalog(
        {"routes": (["rid", "src_apid", "dst_apid"], ["rid"]), "airports": (["apid"], ["apid"])},
        [("routes", ["dst_apid"], "airports", ["apid"], 0.18, "proposed", 0.95, 40.8),
         ("routes", ["src_apid"], "airports", ["apid"], 0.19, "proposed", 0.95, 40.8)])
    start = plan_joins(cat, ["airports", "routes"], question="the airport with the most routes that start in China")
    end = plan_joins(cat, ["airports", "routes"], question="the airport where the most routes end")
    assert _pairs(start) == {"mem.airports.apid = mem.routes.src_apid"}
    assert _pairs(end) == {"mem.airports.apid = mem.routes.dst_apid"}


def test_eval_joins_miss_kinds_for_gold_artefacts_and_the_database_halves():
    from sqlgenie.inference.eval_joins import db_half, gold_join_sites, score_site
    from sqlgenie.inference.join_planner import PlannedJoin

    def plan(*pairs: tuple[str, str, str, str]) -> JoinPlan:
        joins = tuple(PlannedJoin(f"s.{a}", (ac,), f"s.{b}", (bc,), "n:1", "accepted", "score", 0.9, 1.0)
                      for a, ac, b, bc in pairs)
        tables = tuple(dict.fromkeys(t for j in joins for t in (j.left_table, j.right_table)))
        return JoinPlan(tables, tables, joins)

    cols = {"participates_in": {"stuid", "actid"}, "activity": {"actid", "activity_name"},
            "employees": {"employee_id", "department_id"}, "departments": {"department_id", "manager_id"}}
    # the gold compares a column with itself: the tables are joined with no condition
    (site,) = gold_join_sites("SELECT T1.stuid FROM participates_in AS T1 JOIN activity AS T2 ON T2.actid = T2.actid "
                              "WHERE T2.activity_name = 'Canoeing'", cols)
    ok, kind, _ = score_site(site, plan(("participates_in", "actid", "activity", "actid")), "s")
    assert (ok, kind) == (False, "no_gold_condition")
    # the gold adds a filter between columns next to the join the planner found
    (site,) = gold_join_sites("SELECT * FROM employees AS T1 JOIN departments AS T2 ON T1.department_id = "
                              "T2.department_id WHERE T1.employee_id = T2.manager_id", cols)
    right = plan(("employees", "department_id", "departments", "department_id"))
    assert score_site(site, right, "s")[:2] == (False, "gold_extra_pairs")
    wrong = plan(("employees", "employee_id", "departments", "department_id"))
    assert score_site(site, wrong, "s")[:2] == (False, "wrong_pairs")
    # a fixed split of the databases by the MD5 of their id
    assert db_half("hospital_1") == "A" and db_half("college_1") == "B"
