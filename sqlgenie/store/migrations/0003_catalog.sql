-- Catalog of onboarded tables (issue 4 writes it; bank, autocorrectors and ask read it).
-- Read model: sqlgenie/catalog.py. One onboarding of one table = one transaction.

CREATE TABLE sqlgenie.catalog_tables (
    id             bigserial PRIMARY KEY,
    schema_name    text NOT NULL,
    table_name     text NOT NULL,
    row_estimate   bigint,
    description    text,
    primary_key    text[] NOT NULL DEFAULT '{}',
    pk_source      text NOT NULL DEFAULT 'none' CHECK (pk_source IN ('declared', 'inferred', 'human', 'none')),
    partition_pick jsonb,                      -- {"column": ..., "reason": ..., "ddl": ...}
    index_picks    jsonb NOT NULL DEFAULT '[]'::jsonb,
    profile        jsonb NOT NULL DEFAULT '{}'::jsonb,
    onboarded_at   timestamptz NOT NULL DEFAULT now(),
    UNIQUE (schema_name, table_name)
);

CREATE TABLE sqlgenie.catalog_columns (
    id            bigserial PRIMARY KEY,
    table_id      bigint NOT NULL REFERENCES sqlgenie.catalog_tables (id) ON DELETE CASCADE,
    column_name   text NOT NULL,
    ordinal       integer NOT NULL,
    data_type     text NOT NULL,               -- format_type() text, e.g. 'numeric(10,2)'
    nullable      boolean NOT NULL DEFAULT true,
    null_frac     real,
    n_distinct    double precision,            -- estimated distinct count (absolute)
    min_value     text,
    max_value     text,
    synonyms      text[] NOT NULL DEFAULT '{}',
    aggregation   text CHECK (aggregation IN ('SUM', 'AVG', 'MIN', 'MAX', 'COUNT', 'STRING_AGG')),
    searchable    boolean NOT NULL DEFAULT false, -- has a frequent-value cache
    mandatory     boolean NOT NULL DEFAULT false,
    description   text,
    human_fields  text[] NOT NULL DEFAULT '{}', -- fields set by a human; re-onboarding keeps them
    UNIQUE (table_id, column_name)
);

CREATE TABLE sqlgenie.catalog_joins (
    id            bigserial PRIMARY KEY,
    from_table_id bigint NOT NULL REFERENCES sqlgenie.catalog_tables (id) ON DELETE CASCADE,
    from_columns  text[] NOT NULL,             -- referencing side
    to_table_id   bigint NOT NULL REFERENCES sqlgenie.catalog_tables (id) ON DELETE CASCADE,
    to_columns    text[] NOT NULL,             -- referenced side
    score         real NOT NULL,
    evidence      jsonb NOT NULL DEFAULT '{}'::jsonb,
    status        text NOT NULL DEFAULT 'proposed' CHECK (status IN ('proposed', 'accepted', 'rejected')),
    decided_by    text CHECK (decided_by IN ('declared', 'score', 'llm', 'human')),
    cost          double precision,            -- C(T1,T2) = k0 + k1(|T1|log|T1| + |T2|log|T2|)
    created_at    timestamptz NOT NULL DEFAULT now(),
    updated_at    timestamptz NOT NULL DEFAULT now(),
    UNIQUE (from_table_id, from_columns, to_table_id, to_columns)
);

-- Frequent values of searchable text columns, with a trigram index for fuzzy candidates.
CREATE TABLE sqlgenie.value_cache (
    column_id  bigint NOT NULL REFERENCES sqlgenie.catalog_columns (id) ON DELETE CASCADE,
    value      text NOT NULL,
    frequency  bigint NOT NULL,
    PRIMARY KEY (column_id, value)
);
CREATE INDEX value_cache_value_trgm_idx ON sqlgenie.value_cache USING gin (value gin_trgm_ops);
CREATE INDEX value_cache_lower_idx ON sqlgenie.value_cache (lower(value));

-- Small key/value settings that belong to the store (e.g. join cost model k0, k1).
CREATE TABLE sqlgenie.store_settings (
    key        text PRIMARY KEY,
    value      jsonb NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT now()
);
