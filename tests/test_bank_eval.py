"""`eval retrieval` on a tiny Spider-layout dataset with the real model."""

from __future__ import annotations

import json

from example_bank.embedder import get_embedder
from example_bank.eval_retrieval import evaluate_retrieval


def test_retrieval_eval_reports_masked_and_unmasked(tmp_path):
    tables = [{
        "db_id": "shop",
        "table_names_original": ["orders", "customers"],
        "table_names": ["orders", "customers"],
        "column_names_original": [[-1, "*"], [0, "amount"], [0, "city"], [1, "name"], [1, "age"]],
        "column_names": [[-1, "*"], [0, "amount"], [0, "city"], [1, "name"], [1, "age"]],
    }]
    pairs = [
        ("What is the total amount of orders from Paris?", 'SELECT sum(amount) FROM orders WHERE city = "Paris"'),
        ("What is the total amount of orders from Tokyo?", 'SELECT sum(amount) FROM orders WHERE city = "Tokyo"'),
        ("List the names of customers older than 30.", "SELECT name FROM customers WHERE age > 30"),
        ("Show names of customers older than 45.", "SELECT name FROM customers WHERE age > 45"),
        ("How many orders come from Paris?", 'SELECT count(*) FROM orders WHERE city = "Paris"'),
    ]
    (tmp_path / "tables.json").write_text(json.dumps(tables))
    (tmp_path / "q.json").write_text(json.dumps([{"question": q, "query": s, "db_id": "shop"} for q, s in pairs]))
    result = evaluate_retrieval(tmp_path / "q.json", tmp_path / "tables.json", encode=get_embedder().encode)
    assert result["questions"] == 5 and result["databases"] == 1
    assert result["unparsed_gold"] == 0
    # the two templates with different values are found through masking
    assert result["skeleton_at1_masked"] >= 0.8
    assert result["template_subset"]["questions"] == 4
    assert result["template_subset"]["skeleton_at1_masked"] == 1.0
    assert result["exact_masked_match_rate"] == 0.4  # the Paris/Tokyo pair masks identically
    for key in ("skeleton_at1_unmasked", "margin", "skeleton_oracle", "identical_sql_partner_rate"):
        assert key in result
