"""Table onboarding: profiles, keys, joins, partition/index picks, value cache (issue 4).

Entry points (``onboarding.service``)::

    from onboarding.service import OnboardOptions, onboard_table, onboard_schema, calibrate_costs
    res = onboard_table("demo.orders", options=OnboardOptions(priority_metric="total_amt"))
    results = onboard_schema("demo", options=OnboardOptions(llm=None))

Modules: ``names`` (identifier words, abbreviations both ways, synonyms, similarity),
``profile`` (pg_stats + TABLESAMPLE on big tables, exact on small ones), ``aggregation``,
``keys`` (primary key), ``joins`` (foreign-key candidates, features, calibrated score,
decision), ``cost`` (join cost model and calibration), ``indexes`` (partition/index
picks with EXPLAIN benefit), ``value_cache`` (searchable columns, frequent values,
trigram search), ``enrich`` (LLM synonyms), ``catalog_writer`` (one transaction per
table, human decisions kept), ``catalog_admin`` (tables/joins/columns commands),
``eval_keys`` (``sqlgenie eval fk`` / ``eval pk``).

Everything is stored in the ``sqlgenie`` schema of the store (migrations 0003 and
0005) and read back through :func:`sqlgenie.catalog.load_catalog`.
"""
