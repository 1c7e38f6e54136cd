"""Example bank: verified question->SQL pairs with noun-masked embeddings (issue 5).

Modules (import what you need; nothing heavy is imported here):

* :mod:`example_bank.masking` - ``mask_question(question, vocabulary, value_lookup)``
  -> ``MaskedQuestion(text, spans=[MaskedSpan(start, end, text, kind)])``; ``substitute``.
* :mod:`example_bank.skeleton` - sqlglot analysis: ``sql_skeleton``, ``normalize_sql``,
  ``tables_and_columns``, ``extract_metrics``, ``analyze_sql``.
* :mod:`example_bank.embedder` - ``get_embedder()``: all-MiniLM-L6-v2 from the offline
  package, once per process; ``encode(list[str]) -> (n, 384) float32`` unit vectors.
* :mod:`example_bank.store` - ``BankStore`` over ``sqlgenie.bank_examples`` (migration 0004).
* :mod:`example_bank.retrieval` - ``Retriever`` / ``retrieve``: exact masked match first,
  then HNSW cosine above T, filtered to onboarded (else existing) tables.
* :mod:`example_bank.importer` - validation (``add_pair``), file import, export.
* :mod:`example_bank.eval_retrieval` - ``sqlgenie eval retrieval`` (Spider skeleton@1).
"""
