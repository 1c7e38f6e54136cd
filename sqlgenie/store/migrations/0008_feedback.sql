-- Feedback, the durable job queue and the review queue (issue 16).
-- Written by sqlgenie/feedback/ (service.py, queue.py, review.py).

-- The jobs table of 0001 becomes a leased queue: a worker takes a job with
-- FOR UPDATE SKIP LOCKED and holds it until lease_until; a job whose lease ran out
-- (its worker died) is taken again; after max_attempts failures it is 'dead' and
-- keeps its last error. 'failed' / 'cancelled' of 0001 stay allowed (never written).
ALTER TABLE sqlgenie.jobs DROP CONSTRAINT IF EXISTS jobs_status_check;
ALTER TABLE sqlgenie.jobs
    ADD CONSTRAINT jobs_status_check
        CHECK (status IN ('queued', 'running', 'done', 'dead', 'failed', 'cancelled')),
    ADD COLUMN lease_until   timestamptz,                 -- running: another worker may take it after this
    ADD COLUMN run_after     timestamptz NOT NULL DEFAULT now(),  -- back-off: not taken before this
    ADD COLUMN max_attempts  integer NOT NULL DEFAULT 5,
    ADD COLUMN finished_at   timestamptz,
    ADD COLUMN history       jsonb NOT NULL DEFAULT '[]'::jsonb;  -- [{attempt, worker, error, at}]

-- One row per attempt taken (written in the claim's transaction): how many times a
-- job ran, by whom (benchmarks check that no job ran twice without a lost lease).
CREATE TABLE sqlgenie.job_runs (
    id          bigserial PRIMARY KEY,
    job_id      bigint NOT NULL REFERENCES sqlgenie.jobs (id) ON DELETE CASCADE,
    attempt     integer NOT NULL,
    worker      text NOT NULL,
    started_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX job_runs_job_idx ON sqlgenie.job_runs (job_id);

CREATE INDEX jobs_ready_idx ON sqlgenie.jobs (run_after, id) WHERE status = 'queued';
CREATE INDEX jobs_lease_idx ON sqlgenie.jobs (lease_until) WHERE status = 'running';

-- One row per thumbs up / down on an answer of the query log.
CREATE TABLE sqlgenie.feedback (
    id                 bigserial PRIMARY KEY,
    ask_id             bigint NOT NULL REFERENCES sqlgenie.query_log (id),
    verdict            text NOT NULL CHECK (verdict IN ('up', 'down')),
    comment            text,
    corrected_sql      text,                 -- down --sql, after the safe executor ran it
    user_name          text,
    source_example_id  bigint,               -- the bank example the answer came from (no FK: may be removed)
    bank_example_id    bigint,               -- up: the bank row the pair went into (or merged with)
    merged             boolean,              -- up: the pair was already in the bank
    job_id             bigint REFERENCES sqlgenie.jobs (id),
    created_at         timestamptz NOT NULL DEFAULT now(),
    details            jsonb NOT NULL DEFAULT '{}'::jsonb
);
CREATE INDEX feedback_ask_idx ON sqlgenie.feedback (ask_id);
CREATE INDEX feedback_source_example_idx ON sqlgenie.feedback (source_example_id) WHERE verdict = 'down';

-- The review queue: a corrected SQL from a thumbs-down, or a regeneration job's winner.
-- job_id is unique: a job's result is written once even when the job runs again
-- after its worker was killed.
CREATE TABLE sqlgenie.review_items (
    id                 bigserial PRIMARY KEY,
    kind               text NOT NULL CHECK (kind IN ('correction', 'regeneration')),
    state              text NOT NULL DEFAULT 'pending'
                       CHECK (state IN ('pending', 'accepted', 'rejected', 'superseded')),
    ask_id             bigint NOT NULL REFERENCES sqlgenie.query_log (id),
    feedback_id        bigint REFERENCES sqlgenie.feedback (id),
    job_id             bigint UNIQUE REFERENCES sqlgenie.jobs (id),
    question           text NOT NULL,
    question_key       text,                 -- the question lower-cased, spaces collapsed (next asker lookup)
    sql                text,                 -- the proposed SQL (None: no candidate)
    downvoted_sql      text,                 -- the answer that got the thumbs-down
    runner_up_sql      text,
    differs            boolean NOT NULL DEFAULT true,  -- false: no candidate differs from the downvoted answer
    evidence           jsonb NOT NULL DEFAULT '{}'::jsonb,
    source_example_id  bigint,
    bank_example_id    bigint,               -- accepted: the bank row
    decided_by         text,
    decided_at         timestamptz,
    reason             text,
    created_at         timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX review_items_state_idx ON sqlgenie.review_items (state, id);
CREATE INDEX review_items_question_idx ON sqlgenie.review_items (md5(question_key)) WHERE state = 'pending';
