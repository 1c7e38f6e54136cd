-- Ask (issue 7): what feedback needs to find in the query log (0001) without parsing details.
-- Written by sqlgenie/inference/query_log.py.

ALTER TABLE sqlgenie.query_log
    ADD COLUMN example_id  bigint,   -- bank example the match route used (no FK: examples may be removed)
    ADD COLUMN similarity  real,     -- retrieval score of the best example (1.0: same masked question)
    ADD COLUMN confidence  real;     -- confidence of the answer (adaptation or generation), 0..1

CREATE INDEX query_log_example_idx ON sqlgenie.query_log (example_id) WHERE example_id IS NOT NULL;
CREATE INDEX query_log_kind_idx ON sqlgenie.query_log (kind, created_at DESC);

-- Embeddings of masked questions already seen, so a one-shot `sqlgenie ask` (or a warm
-- quickstart) need not load the embedding model for a question template it has embedded before.
CREATE TABLE sqlgenie.ask_embedding_cache (
    model       text NOT NULL,          -- settings.embedding_model
    text_md5    text NOT NULL,          -- md5(text)
    text        text NOT NULL,          -- the masked question
    embedding   vector(384) NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (model, text_md5)
);
