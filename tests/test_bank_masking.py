"""Noun masking (example_bank.masking): pure, deterministic, spans with positions."""

from __future__ import annotations

import pytest

from example_bank.masking import MASK, SchemaVocabulary, mask_question, masked_key, split_identifier, substitute

VOCAB = SchemaVocabulary.from_names(
    ["influencers", "reel_count", "age", "city", "first_name", "last_name", "orders", "order_date", "productCode",
     "customer_name", "amount"]
)


def kinds(masked):
    return [(s.text, s.kind) for s in masked.spans]


def test_influencer_pair_gives_the_same_template():
    a = mask_question("Get reel counts of top influencers aged 18 residing in San Francisco", VOCAB)
    b = mask_question("Get reel counts of top influencers aged 30 residing in Tokyo", VOCAB)
    assert a.text == b.text == "Get reel counts of top influencers aged [MASK] residing in [MASK]"
    assert a.key == b.key
    assert kinds(a) == [("18", "number"), ("San Francisco", "proper_noun")]
    assert kinds(b) == [("30", "number"), ("Tokyo", "proper_noun")]


@pytest.mark.parametrize(
    ("question", "span"),
    [
        ("Orders placed on 2024-03-01 please", ("2024-03-01", "date")),
        ("Orders placed last March", ("last March", "date")),
        ("Orders placed on March 3rd 2024", ("March 3rd 2024", "date")),
        ("Orders placed on 03/01/2024", ("03/01/2024", "date")),
        ("Orders placed in the last 30 days", ("last 30 days", "date")),
        ("Orders placed in Q1 2023", ("Q1 2023", "date")),
        ("Orders placed in 2019", ("2019", "date")),
        ("Orders with amount above 1,250.50", ("1,250.50", "number")),
        ("Orders with amount above 15%", ("15%", "number")),
        ("Orders with at least three items", ("three", "number")),
        ('Orders of customer "Acme Corp"', ('"Acme Corp"', "quoted")),
        ("Orders of customer 'acme'", ("'acme'", "quoted")),
        ("Orders for SKU-1234", ("SKU-1234", "code")),
        ("Orders for product CS101", ("CS101", "code")),
        ("The 3rd largest order", ("3rd", "ordinal")),
    ],
)
def test_values_are_masked(question, span):
    masked = mask_question(question, VOCAB)
    assert span in kinds(masked), kinds(masked)
    assert MASK in masked.text


def test_spans_have_correct_positions_and_are_deterministic():
    q = "Total amount of orders on 2024-03-01 for SKU-1234 in New York, at least 5 units, customer 'Bob'"
    first = mask_question(q, VOCAB)
    again = mask_question(q, VOCAB)
    assert first == again
    for span in first.spans:
        assert q[span.start : span.end] == span.text
    starts = [s.start for s in first.spans]
    assert starts == sorted(starts)
    assert kinds(first) == [
        ("2024-03-01", "date"), ("SKU-1234", "code"), ("New York", "proper_noun"), ("5", "number"), ("'Bob'", "quoted"),
    ]
    assert first.text == "Total amount of orders on [MASK] for [MASK] in [MASK], at least [MASK] units, customer [MASK]"
    # the adapter substitutes new values span by span
    assert substitute(first, ["2025-01-02", "SKU-9", "Oslo", "7", "'Ann'"]) == (
        "Total amount of orders on 2025-01-02 for SKU-9 in Oslo, at least 7 units, customer 'Ann'"
    )


def test_schema_words_and_ordinary_english_are_kept():
    for q in [
        "How many orders does each customer have?",
        "What is the average age of influencers in each city?",
        "Show the First Name and Last Name of customers ordered by Order Date",
        "List the City with the highest average Amount",
    ]:
        masked = mask_question(q, VOCAB)
        assert masked.spans == [], (q, kinds(masked))
        assert masked.text == q


def test_schema_words_break_no_proper_noun_runs_but_non_schema_names_are_masked():
    masked = mask_question("Orders of customers from the University of Texas and Boston", VOCAB)
    assert kinds(masked) == [("University of Texas", "proper_noun"), ("Boston", "proper_noun")]
    # "A and B" stays two spans
    masked = mask_question("Films directed by Nicholas Meyer and Walter Hill", VOCAB)
    assert kinds(masked) == [("Nicholas Meyer", "proper_noun"), ("Walter Hill", "proper_noun")]


def test_value_lookup_masks_known_lower_case_values():
    values = {"gold tier": "customers.segment", "food": "products.category"}
    masked = mask_question(
        "How many orders of gold tier customers bought food?", VOCAB, lambda t: values.get(t.lower())
    )
    assert [(s.text, s.kind, s.source) for s in masked.spans] == [
        ("gold tier", "value", "customers.segment"),
        ("food", "value", "products.category"),
    ]
    # schema words are never looked up as values
    masked = mask_question("How many orders per city?", VOCAB, lambda t: "x")
    assert masked.spans == []


def test_sentence_initial_word_is_not_a_proper_noun_and_may_is_not_a_month():
    assert mask_question("Return all orders", VOCAB).spans == []
    assert kinds(mask_question("Orders that may be late", VOCAB)) == []
    assert kinds(mask_question("Orders placed in May", VOCAB)) == [("in May", "date")]


def test_masked_key_and_identifier_split():
    assert masked_key("  How many  [MASK] orders? ") == "how many [mask] orders"
    assert split_identifier("customerOrderID") == ["customer", "order", "id"]
    assert split_identifier("first_name") == ["first", "name"]
    assert "customers" in VOCAB and "customer" in VOCAB and "Product" in VOCAB


def test_an_abbreviation_with_its_period_joins_a_cached_value(monkeypatch):
    """"ST. LOUIS" is one stored value: masked whole, not "ST" alone (issue 13, helper atis12)."""
    import example_bank.masking as masking

    values = {"st. louis": "city.city_name", "st. paul": "city.city_name", "denver": "city.city_name"}
    lookup = lambda t: values.get(t.lower())  # noqa: E731
    masked = mask_question("flights from ST. LOUIS to ST. PAUL", VOCAB, lookup)
    assert [s.text for s in masked.spans] == ["ST. LOUIS", "ST. PAUL"]
    assert masked.text == "flights from [MASK] to [MASK]"
    # a period after a word whose joined text is no stored value still ends the value
    assert [s.text for s in mask_question("flights from Denver. Dr. Who asks", VOCAB, lookup).spans][0] == "Denver"
    monkeypatch.setattr(masking, "ABBREVIATION_JOIN", False)
    assert [s.text for s in mask_question("flights from ST. LOUIS to ST. PAUL", VOCAB, lookup).spans][0] == "ST"


def test_a_common_word_in_capitals_is_a_value_when_the_cache_holds_it(monkeypatch):
    """"FIRST class" on ATIS is ``class_type = 'FIRST'``: masked when the cache holds it and the question is
    not written in capitals; "the first flight" stays a word (issue 13, helper atis12)."""
    import example_bank.masking as masking

    values = {"first": "fare_basis.class_type", "tuesday": "days.day_name"}
    lookup = lambda t: values.get(t.lower())  # noqa: E731
    assert mask_question("show me FIRST class fares on a TUESDAY", VOCAB, lookup).text == \
        "show me [MASK] class fares on a [MASK]"
    assert mask_question("show me the first flight", VOCAB, lookup).spans == []
    assert all(s.kind != "value" for s in mask_question("SHOW ME FIRST CLASS FARES", VOCAB, lookup).spans)
    monkeypatch.setattr(masking, "SHOUTED_WORDS", False)
    assert mask_question("show me FIRST class fares on a TUESDAY", VOCAB, lookup).spans == []
