"""Primary-key inference rules (:mod:`onboarding.keys`) on real tables of the embedded
PostgreSQL: each table is built with no key constraint, profiled, and given to
:func:`infer_primary_key`."""

from __future__ import annotations

import psycopg
import pytest

from onboarding import keys
from onboarding.names import table_words
from onboarding.profile import profile_table

TABLES = '''
CREATE SCHEMA k;
-- the key's stem abbreviates the table: its initial, its acronym
CREATE TABLE k.department (dname text, dnumber integer, mgr_ssn integer);
INSERT INTO k.department VALUES ('Research', 5, 333), ('Admin', 4, 987), ('HQ', 1, 888);
CREATE TABLE k.first_notification_of_loss (fnol_id integer, customer_id integer, policy_id integer, service_id integer);
INSERT INTO k.first_notification_of_loss SELECT 100 + i, i % 4, 50 + i, i % 3 FROM generate_series(1, 7) i;
-- a subtype keyed by its supertype's id, beside another unique identifier
CREATE TABLE k.nurse (employee_id integer, name text, ssn integer);
INSERT INTO k.nurse VALUES (101, 'Carla', 111), (102, 'Laverne', 222), (103, 'Paul', 333);
-- a key word glued to the table word
CREATE TABLE k.airports (city text, airportcode text, airportname text, country text);
INSERT INTO k.airports SELECT 'City ' || (i % 7), 'A' || i, 'Airport ' || (i % 9), 'US' FROM generate_series(1, 30) i;
-- link table whose second reference is unique by chance; an entity leading with its own key
CREATE TABLE k.supplier_addresses (supplier_id integer, address_id integer, date_from date);
INSERT INTO k.supplier_addresses VALUES (1, 5, '2020-01-01'), (1, 6, '2020-02-01'), (2, 7, '2020-03-01'), (3, 8, '2020-04-01');
CREATE TABLE k.customer_orders (order_id integer, customer_id integer, order_status text);
INSERT INTO k.customer_orders SELECT i, 1 + i % 4, 'new' FROM generate_series(1, 15) i;
-- sequence numbers are not references: no link table
CREATE TABLE k.draft_copies (document_id integer, draft_number integer, copy_number integer);
INSERT INTO k.draft_copies VALUES (1, 1, 1), (1, 1, 2), (2, 2, 1), (2, 2, 2), (1, 3, 1);
-- history rows: an id completed by a date that is unique on its own
CREATE TABLE k.customer_payments (customer_id integer, payment_datetime timestamp, payment_method_code text,
                                  amount_payment numeric(10, 2));
INSERT INTO k.customer_payments SELECT 1 + i % 5, TIMESTAMP '2024-01-01' + i * INTERVAL '1 day', 'card', i * 1.5
FROM generate_series(1, 15) i;
-- composite keys lead the table: (room_number, capacity) is unique too, by chance
CREATE TABLE k.classroom (building text, room_number text, capacity integer);
INSERT INTO k.classroom SELECT 'B' || (i % 4), 'R' || (i % 9), 10 + i % 7 FROM generate_series(1, 30) i;
-- a year stored as a float; a fractional float is a measure
CREATE TABLE k.match_season (season double precision, player text, team integer);
INSERT INTO k.match_season SELECT 1995 + i, 'Player ' || i, i % 3 FROM generate_series(1, 16) i;
CREATE TABLE k.readings (reading double precision, station text);
INSERT INTO k.readings SELECT i + 0.25, 'S' || (i % 3) FROM generate_series(1, 12) i;
-- a unique name beats a coincidental combination of plain columns
CREATE TABLE k.phone (company_name text, hardware_model_name text, accreditation_type text, chip_model text);
INSERT INTO k.phone SELECT 'Co ' || (i % 3), 'Model ' || i, (ARRAY['Full','Provisional'])[1 + i % 2], 'X' || (i % 5)
FROM generate_series(1, 8) i;
-- descriptive payload never completes a key: no key at all
CREATE TABLE k.product_characteristics (product_id integer, characteristic_id integer, product_characteristic_value text);
INSERT INTO k.product_characteristics VALUES (1, 10, 'low'), (1, 10, 'high'), (2, 11, 'low'), (3, 12, 'mid');
'''


@pytest.fixture(scope="module")
def conn(module_db_url: str):
    with psycopg.connect(module_db_url, autocommit=True) as c:
        c.execute(TABLES)
        c.execute("ANALYZE")
        yield c


def _key(conn: psycopg.Connection, table: str) -> keys.KeyPick:
    return keys.infer_primary_key(conn, profile_table(conn, "k", table))


@pytest.mark.parametrize(
    "table, key",
    [
        ("department", ["dnumber"]),
        ("first_notification_of_loss", ["fnol_id"]),
        ("nurse", ["employee_id"]),
        ("airports", ["airportcode"]),
        ("supplier_addresses", ["supplier_id", "address_id"]),
        ("customer_orders", ["order_id"]),
        ("customer_payments", ["customer_id", "payment_datetime"]),
        ("classroom", ["building", "room_number"]),
        ("match_season", ["season"]),
        ("phone", ["hardware_model_name"]),
    ],
)
def test_inferred_keys(conn, table, key):
    pick = _key(conn, table)
    assert (pick.columns, pick.source) == (key, "inferred"), pick.evidence


def test_sequence_numbers_are_not_a_link_table(conn):
    pick = _key(conn, "draft_copies")
    assert pick.columns == ["document_id", "draft_number", "copy_number"]
    assert "link table" not in pick.evidence["reason"]


@pytest.mark.parametrize("table", ["readings", "product_characteristics"])
def test_no_key_from_measures_or_descriptions(conn, table):
    pick = _key(conn, table)
    assert (pick.columns, pick.source) == ([], "none"), pick.evidence


def test_name_helpers():
    assert keys.key_words("airportcode") == ["airport", "code"]
    assert keys.key_words("decode") == ["decode"]  # too short a head to split
    assert keys.abbreviates_table(["d"], table_words("department"))
    assert keys.abbreviates_table(["fnol"], table_words("first_notification_of_loss"))
    assert keys.abbreviates_table(["fnl"], table_words("first_notification_of_loss"))
    assert not keys.abbreviates_table(["e"], table_words("department"))
    assert not keys.abbreviates_table(["d"], table_words("dept_locations"))
