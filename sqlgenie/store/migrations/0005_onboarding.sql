-- Onboarding additions (issue 4), on top of the catalog contract of 0003.
-- Written by onboarding/catalog_writer.py (one transaction per table); read by sqlgenie/catalog.py.

-- Per-column: uniqueness in the data and the rest of the profile
-- (family, most common values, average width, exact or estimated, all-NULL).
ALTER TABLE sqlgenie.catalog_columns
    ADD COLUMN is_unique boolean,
    ADD COLUMN profile   jsonb NOT NULL DEFAULT '{}'::jsonb;

-- Per-table: fields a human set (e.g. primary_key, description), kept on re-onboarding,
-- and the options the table was onboarded with (priority metric, top values).
ALTER TABLE sqlgenie.catalog_tables
    ADD COLUMN human_fields text[] NOT NULL DEFAULT '{}',
    ADD COLUMN options      jsonb NOT NULL DEFAULT '{}'::jsonb;

-- Value cache: rank and, when a priority metric chose the values, the metric's sum per value.
ALTER TABLE sqlgenie.value_cache
    ADD COLUMN rank   integer,
    ADD COLUMN metric double precision;

CREATE INDEX catalog_joins_to_table_idx ON sqlgenie.catalog_joins (to_table_id);
CREATE INDEX catalog_joins_status_idx ON sqlgenie.catalog_joins (status);
