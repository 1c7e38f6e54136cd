-- Evaluation harness (issue 3): cache of benchmark databases loaded into the target.
-- One row per PostgreSQL schema created by `sqlgenie eval load`; `fingerprint`
-- (loader version, keys mode, source file size/mtime, sha256 of the source schema)
-- lets an unchanged database be skipped. The loader runs this same file against the
-- target database when it is not the store, so it must stay idempotent.

CREATE SCHEMA IF NOT EXISTS sqlgenie;

CREATE TABLE IF NOT EXISTS sqlgenie.eval_loads (
    schema_name   text PRIMARY KEY,
    dataset       text NOT NULL,                      -- spider | defog
    db_id         text NOT NULL,
    fingerprint   text NOT NULL,
    keys          text NOT NULL,                      -- keep | drop | dump
    tables        integer NOT NULL DEFAULT 0,
    rows          bigint NOT NULL DEFAULT 0,
    loaded_at     timestamptz NOT NULL DEFAULT now(),
    details       jsonb NOT NULL DEFAULT '{}'::jsonb  -- column types, original names, warnings
);
