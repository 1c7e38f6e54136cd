-- Core tables: query log and background jobs.
-- Catalog (issue 4) and example bank (issue 5) tables come in later migrations.

CREATE TABLE sqlgenie.query_log (
    id            bigserial PRIMARY KEY,
    created_at    timestamptz NOT NULL DEFAULT now(),
    kind          text NOT NULL DEFAULT 'ask',        -- ask | sql
    question      text,
    sql           text,
    route         text,                               -- match | think | user
    status        text NOT NULL,                      -- ok | error | refused
    error         text,
    row_count     integer,
    elapsed_ms    double precision,
    llm_calls     integer NOT NULL DEFAULT 0,
    input_tokens  integer NOT NULL DEFAULT 0,
    output_tokens integer NOT NULL DEFAULT 0,
    details       jsonb NOT NULL DEFAULT '{}'::jsonb
);
CREATE INDEX query_log_created_at_idx ON sqlgenie.query_log (created_at DESC);

CREATE TABLE sqlgenie.jobs (
    id            bigserial PRIMARY KEY,
    kind          text NOT NULL,
    status        text NOT NULL DEFAULT 'queued'
                  CHECK (status IN ('queued', 'running', 'done', 'failed', 'cancelled')),
    payload       jsonb NOT NULL DEFAULT '{}'::jsonb,
    result        jsonb,
    error         text,
    attempts      integer NOT NULL DEFAULT 0,
    locked_by     text,
    heartbeat_at  timestamptz,
    created_at    timestamptz NOT NULL DEFAULT now(),
    updated_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX jobs_status_idx ON sqlgenie.jobs (status, created_at);
