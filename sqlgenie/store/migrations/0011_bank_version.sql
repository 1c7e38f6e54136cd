-- The bank's version, kept by a trigger (issue 13: a bank hit in a warm process).
-- The match route's per-bank caches (sqlgenie.inference.verify.bank_stamp) used to stamp the bank of a
-- scope with count(*) and max(id) of its verified examples: a bitmap heap scan of the scope's wide rows
-- on every ask (1.5-2.7 ms). One row now counts the changes of sqlgenie.bank_examples: every INSERT,
-- UPDATE, DELETE or TRUNCATE statement adds one, in the writer's own transaction, so a reader sees the
-- new version exactly when it sees the new rows (and an update the count missed, such as a corrected SQL
-- or a status change of an example below max(id), now changes it too). Writers of the bank serialize on
-- this row until they commit; the bank is written rarely (imports, feedback, review).
CREATE TABLE sqlgenie.bank_version (
    one      boolean PRIMARY KEY DEFAULT true CHECK (one),
    version  bigint NOT NULL
);
INSERT INTO sqlgenie.bank_version (one, version) VALUES (true, 1);

CREATE FUNCTION sqlgenie.bump_bank_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE sqlgenie.bank_version SET version = version + 1 WHERE one;
    RETURN NULL;
END
$$;

CREATE TRIGGER bank_examples_version
    AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON sqlgenie.bank_examples
    FOR EACH STATEMENT EXECUTE FUNCTION sqlgenie.bump_bank_version();
