-- Value corrector: fast typo candidates on large value caches (issue 6).
--
-- A GiST trigram index (gist_trgm_ops, siglen 64) was tried first and made
-- the trigram search slower, not faster, on a 1M-value cache (KNN `<->` with LIMIT
-- 50: ~0.6-1 s; `%`: ~0.4 s, against ~45 ms for the GIN index), so none is created.
-- Instead, a typo leaves the head or the tail of a literal intact: the value corrector
-- looks up values by head on value_cache_lower_idx and by tail on this index (see
-- PgValueMatcher._edit_neighbours), ~1-2 ms instead of a GIN trigram scan.
-- "C" collation: range scans on the reversed text are prefix scans whatever the
-- database's collation.
CREATE INDEX IF NOT EXISTS value_cache_reverse_lower_idx
    ON sqlgenie.value_cache (column_id, (reverse(lower(value)) COLLATE "C"));
