-- Bank rows kept whole, vectors in the row (issue 13: a bank hit in a warm process).
-- pgvector declares its type EXTERNAL, and PostgreSQL moves values out of any row above ~2 kB: a
-- 384-dimension vector (1.5 kB) in a bank row of about 3 kB went to the TOAST table, and the
-- nearest-example query fetched it back for every candidate row of the scope (about 4 ms for 900
-- ADVISING examples; under 2 ms with the vectors in the row). PLAIN keeps the vector in the row, and a
-- tuple target of 4 kB keeps a row of ordinary size whole (its question and SQL are not moved out to make
-- room for the vector); wider rows still move their long texts out. Values are unchanged: rows stored
-- before are rewritten from their own floats (real[] round-trips float32 exactly); autovacuum reclaims
-- the old versions.
ALTER TABLE sqlgenie.bank_examples ALTER COLUMN embedding SET STORAGE PLAIN;
ALTER TABLE sqlgenie.bank_examples SET (toast_tuple_target = 4080);
UPDATE sqlgenie.bank_examples SET embedding = embedding::real[]::vector(384);
