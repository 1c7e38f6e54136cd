"""The quickstart's seed bank: at least 40 verified pairs on schema demo, every one
valid for the bank importer and returning rows on the demo at its default scale and seed."""

from __future__ import annotations

from collections import Counter

from example_bank.masking import masked_key
from sqlgenie.quickstart import DEMO_QUESTIONS, seed_pairs


def test_seed_bank_covers_the_topics():
    pairs = seed_pairs()
    assert len(pairs) >= 40
    topics = Counter(p["topic"] for p in pairs)
    assert set(topics) == {"filters", "dates", "group-bys", "joins", "top-n", "ratios"}
    assert min(topics.values()) >= 5
    questions = [p["question"] for p in pairs]
    assert len(set(questions)) == len(questions)
    bank = {masked_key(q) for q in questions}
    assert not any(masked_key(q) in bank for q in DEMO_QUESTIONS)  # the quickstart asks new questions


def test_every_seed_pair_is_valid_and_returns_rows(fresh_db_url):
    from example_bank.importer import BankContext, validate_pair
    from sqlgenie.demo import load_demo
    from sqlgenie.executor import SafeExecutor
    from sqlgenie.store.connection import open_connection

    load_demo(fresh_db_url)  # default scale and seed
    with open_connection(fresh_db_url, autocommit=True) as conn, SafeExecutor(fresh_db_url) as executor:
        ctx = BankContext.load(conn, conn, fresh_db_url)
        try:
            for pair in seed_pairs():
                analysis = validate_pair(ctx, pair["question"], pair["sql"])
                assert all(t.startswith("demo.") for t in analysis.tables), pair
                result = executor.run(pair["sql"])
                assert result.rows, f"no rows: {pair['question']}"
                assert all(v is not None for v in result.rows[0]), f"NULL in first row: {pair['question']}"
        finally:
            ctx.close()
