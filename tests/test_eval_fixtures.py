"""Tiny Spider-layout dataset for the eval tests (helpers; holds no tests itself).

Awkward on purpose: mixed-case and reserved-word identifiers ("Order", "select",
"group"), spaces, unicode, a numeric column holding a stray '' (mixed types),
dates, declared keys, and a database whose file is missing (schema only).
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

SHOP_DDL = [
    'CREATE TABLE Customer (id INTEGER PRIMARY KEY, Name varchar(20), City TEXT, "Zip Code" TEXT)',
    'CREATE TABLE "Order" ("Order ID" INTEGER PRIMARY KEY, "Customer ID" INT REFERENCES Customer(id), '
    'amount REAL, qty INT, "group" TEXT, Created DATETIME, "Day" DATE, mixed INT, price DECIMAL(10,2), "naïve" TEXT)',
    'CREATE TABLE "select" (cid int REFERENCES CUSTOMER(ID), "Order ID" int REFERENCES "order"("order id"), note)',
    'CREATE TABLE "Café Menu" ("Prix €" REAL, "ÉLAN" TEXT)',
]
CUSTOMERS = [(1, "Alice", "Paris", "75001"), (2, "Bob", "Lyon", "69001"), (3, "Chloé", "paris", "75002"), (4, "Dan", None, None)]
ORDERS = [
    (10, 1, 12.5, 2, "A", "2020-01-02 10:00:00", "2020-01-02", 5, 9.99, "ü"),
    (11, 1, 7.25, 1, "B", "2020-02-03 11:30:00", "2020-02-03", 20, 19.5, "ñ"),
    (12, 2, 100.0, 5, "A", "2021-03-04 00:00:00", "2021-03-04", "", 1.0, None),
    (13, 3, 12.5, 2, "C", "2021-05-06 08:15:00", "2021-05-06", 7, 3.25, "x"),
    (14, 3, None, 3, "B", "2022-07-08 09:00:00", "2022-07-08", None, 2.5, "y"),
]
SELECTS = [(1, 10, "first"), (1, 11, 2), (2, 12, "third"), (3, 13, None)]
MENU = [(4.5, "Crème"), (3.0, "Thé")]

QUESTIONS = [
    {"db_id": "shop", "question": "How many customers?", "query": "SELECT count(*) FROM CUSTOMER"},
    {"db_id": "shop", "question": "Customers in Paris", "query": 'SELECT name FROM customer WHERE city LIKE "paris"'},
    {"db_id": "shop", "question": "Orders per customer", "query": "SELECT T1.Name, count(*) FROM Customer AS T1 JOIN \"ORDER\" AS T2 ON T1.id = T2.\"Customer ID\" GROUP BY T1.id"},
    {"db_id": "shop", "question": "Biggest order", "query": 'SELECT "Order ID", amount FROM "Order" ORDER BY amount DESC LIMIT 1'},
    {"db_id": "shop", "question": "Groups", "query": 'SELECT "group", sum(qty) FROM "order" GROUP BY "group" ORDER BY "group"'},
    {"db_id": "shop", "question": "Orders in 2021", "query": "SELECT count(*) FROM \"Order\" WHERE Created LIKE '2021%'"},
    {"db_id": "shop", "question": "Mixed above 6", "query": 'SELECT count(*) FROM "Order" WHERE mixed > 6'},
    {"db_id": "shop", "question": "Average price", "query": 'SELECT avg(price) FROM "Order"'},
    {"db_id": "shop", "question": "Zip 75001", "query": "SELECT name FROM customer WHERE \"Zip Code\" = 75001"},
    {"db_id": "shop", "question": "Unicode", "query": 'SELECT "ÉLAN", "Prix €" FROM "Café Menu" ORDER BY "Prix €"'},
    {"db_id": "shop", "question": "Notes", "query": 'SELECT note FROM "select" WHERE cid = 1'},
    {"db_id": "ghost", "question": "No file", "query": "SELECT count(*) FROM things"},
]

TABLES_JSON = [
    {
        "db_id": "shop",
        "table_names_original": ["Customer", "Order", "select", "Café Menu"],
        "table_names": ["customer", "order", "select", "cafe menu"],
        "column_names_original": [
            [-1, "*"], [0, "id"], [0, "Name"], [0, "City"], [0, "Zip Code"],
            [1, "Order ID"], [1, "Customer ID"], [1, "amount"], [1, "qty"], [1, "group"], [1, "Created"],
            [1, "Day"], [1, "mixed"], [1, "price"], [1, "naïve"],
            [2, "cid"], [2, "Order ID"], [2, "note"], [3, "Prix €"], [3, "ÉLAN"],
        ],
        "column_names": [],
        "column_types": ["text", "number", "text", "text", "text", "number", "number", "number", "number", "text",
                         "time", "time", "number", "number", "text", "number", "number", "text", "number", "text"],
        "primary_keys": [1, 5],
        "foreign_keys": [[6, 1], [15, 1], [16, 5]],
    },
    {
        "db_id": "ghost",
        "table_names_original": ["Things", "Owner"],
        "table_names": ["things", "owner"],
        "column_names_original": [[-1, "*"], [0, "Thing ID"], [0, "Owner"], [1, "id"], [1, "name"]],
        "column_names": [],
        "column_types": ["text", "number", "number", "number", "text"],
        "primary_keys": [1, 3],
        "foreign_keys": [[2, 3]],
    },
]


def make_spider_dataset(root: Path) -> Path:
    """Write the tiny dataset under ``root`` and return it."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "tables.json").write_text(json.dumps(TABLES_JSON), encoding="utf-8")
    (root / "dev.json").write_text(json.dumps(QUESTIONS), encoding="utf-8")
    db_dir = root / "database" / "shop"
    db_dir.mkdir(parents=True, exist_ok=True)
    path = db_dir / "shop.sqlite"
    if path.exists():
        path.unlink()
    conn = sqlite3.connect(path)
    for ddl in SHOP_DDL:
        conn.execute(ddl)
    conn.executemany("INSERT INTO Customer VALUES (?, ?, ?, ?)", CUSTOMERS)
    conn.executemany('INSERT INTO "Order" VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)', ORDERS)
    conn.executemany('INSERT INTO "select" VALUES (?, ?, ?)', SELECTS)
    conn.executemany('INSERT INTO "Café Menu" VALUES (?, ?)', MENU)
    conn.commit()
    conn.close()
    (root / "database" / "ghost").mkdir(exist_ok=True)  # no ghost.sqlite: schema only
    return root


def make_defog_dataset(root: Path) -> Path:
    """A two-database Defog-layout dataset: one plain dump, one with its own schema."""
    (root / "defog-data" / "tiny").mkdir(parents=True, exist_ok=True)
    (root / "defog-data" / "wallet").mkdir(parents=True, exist_ok=True)
    (root / "sql-eval").mkdir(parents=True, exist_ok=True)
    (root / "defog-data" / "tiny" / "tiny.sql").write_text(
        "CREATE TABLE public.author (aid bigint, name text, oid bigint);\n\n"
        "INSERT INTO public.author (aid, name, oid) VALUES\n(1, 'Ann', 10),\n(2, 'Ben', NULL),\n(3, 'Cy', 10)\n;\n",
        encoding="utf-8",
    )
    (root / "defog-data" / "wallet" / "wallet.sql").write_text(
        "CREATE SCHEMA IF NOT EXISTS consumer_div;\n\n"
        "CREATE TABLE consumer_div.users (uid BIGINT PRIMARY KEY, username VARCHAR(50) NOT NULL);\n\n"
        "INSERT INTO consumer_div.users (uid, username) VALUES (1, 'u1'), (2, 'u2');\n",
        encoding="utf-8",
    )
    rows = [
        ("Authors without organisation", "SELECT DISTINCT {name, aid} FROM author WHERE oid IS NULL", "tiny"),
        ("Authors per org", "SELECT oid, COUNT(*) AS n FROM author GROUP BY oid ORDER BY n DESC NULLS LAST;SELECT oid, COUNT(aid) FROM author GROUP BY oid", "tiny"),
        ("How many users?", "SELECT COUNT(*) FROM consumer_div.users;", "wallet"),
    ]
    import csv

    with (root / "sql-eval" / "questions_gen_postgres.csv").open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["question", "query", "db_name", "query_category", "instructions"])
        for q, sql, db in rows:
            w.writerow([q, sql, db, "test", ""])
    return root


def missing_predictions_error(command: str, tmp_path: Path, db_url: str) -> str:
    """Run ``sqlgenie eval <command>`` on the tiny Spider dataset with a predictions
    file that does not exist; it must fail. Its stderr, white space folded (the
    console folds long lines)."""
    import os
    import subprocess
    import sys

    data = make_spider_dataset(tmp_path / "spider")
    env = dict(os.environ, SQLGENIE_DATABASE_URL=db_url)
    proc = subprocess.run(
        [sys.executable, "-m", "sqlgenie", "eval", command, "--dataset", str(data), "--predictions",
         str(tmp_path / "missing.jsonl")], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)
    assert proc.returncode != 0, proc.stdout
    return " ".join(proc.stderr.split())
