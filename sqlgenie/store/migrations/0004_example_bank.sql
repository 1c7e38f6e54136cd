-- Example bank (issue 5): verified question -> SQL pairs with noun-masked embeddings.
-- Written and read by example_bank/store.py.

CREATE TABLE sqlgenie.bank_examples (
    id               bigserial PRIMARY KEY,
    question         text NOT NULL,
    masked_question  text NOT NULL,                -- values replaced with [MASK]
    masked_key       text NOT NULL,                -- masked_question lower-cased, spaces collapsed (exact match)
    mask_spans       jsonb NOT NULL DEFAULT '[]'::jsonb,  -- [{start, end, text, kind}] in question
    sql              text NOT NULL,                -- PostgreSQL
    sql_normalized   text NOT NULL,                -- sqlglot canonical form (duplicate detection)
    skeleton         text NOT NULL,                -- sql_normalized with literals abstracted to ?
    tables           text[] NOT NULL DEFAULT '{}', -- tables the SQL uses (lower-case, schema.table when qualified)
    columns          text[] NOT NULL DEFAULT '{}', -- columns the SQL uses (table.column when resolvable)
    status           text NOT NULL DEFAULT 'verified'
                     CHECK (status IN ('verified', 'pending', 'disputed', 'rejected')),
    source           text NOT NULL DEFAULT 'user'
                     CHECK (source IN ('import', 'user', 'critic', 'feedback')),
    embedding        vector(384) NOT NULL,         -- of masked_question, unit length
    embedding_model  text,
    use_count        integer NOT NULL DEFAULT 0,   -- times served by the match route
    merge_count      integer NOT NULL DEFAULT 0,   -- duplicates merged into this row
    last_used_at     timestamptz,
    created_at       timestamptz NOT NULL DEFAULT now(),
    updated_at       timestamptz NOT NULL DEFAULT now(),
    details          jsonb NOT NULL DEFAULT '{}'::jsonb
);

-- Duplicates: same masked question and same normalised SQL (md5: texts may exceed btree limits).
CREATE UNIQUE INDEX bank_examples_dedup_idx
    ON sqlgenie.bank_examples (md5(masked_key), md5(sql_normalized));
CREATE INDEX bank_examples_embedding_idx
    ON sqlgenie.bank_examples USING hnsw (embedding vector_cosine_ops);
CREATE INDEX bank_examples_tables_idx ON sqlgenie.bank_examples USING gin (tables);
CREATE INDEX bank_examples_skeleton_idx ON sqlgenie.bank_examples (md5(skeleton));
CREATE INDEX bank_examples_status_idx ON sqlgenie.bank_examples (status, id);

-- (metric, formula, column dependency) tuples of design section 3.3.
CREATE TABLE sqlgenie.bank_metrics (
    id          bigserial PRIMARY KEY,
    example_id  bigint NOT NULL REFERENCES sqlgenie.bank_examples (id) ON DELETE CASCADE,
    metric      text NOT NULL,
    formula     text NOT NULL,
    columns     text[] NOT NULL DEFAULT '{}',
    UNIQUE (example_id, metric, formula)
);
CREATE INDEX bank_metrics_metric_idx ON sqlgenie.bank_metrics (lower(metric));
