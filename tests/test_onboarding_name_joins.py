"""Join candidates from names alone when tables hold no rows (schema-only databases without
declared keys): proposed, never accepted, with the name-only reason; tables with rows still go
through value inclusion unchanged (real PostgreSQL, real MiniLM for the pruner)."""

from __future__ import annotations

import dataclasses
import os

import psycopg
import pytest

from onboarding import joins
from onboarding.joins import NAME_ONLY_REASON, JoinRow, resolve
from onboarding.service import OnboardOptions, onboard_schema
from sqlgenie.catalog import load_catalog
from sqlgenie.config import load_settings
from sqlgenie.store.migrations import ensure_migrated

# no PRIMARY KEY, no REFERENCES: keys dropped, as in `eval load --keys drop`
DDL = """
CREATE SCHEMA {s};
CREATE TABLE {s}.singer (singer_id integer, name text, country text, age integer);
CREATE TABLE {s}.concert (concert_id integer, concert_name text, year integer, singer_id {t});
CREATE TABLE {s}.singer_in_concert (concert_id integer, singer_id integer);
"""

ROWS = """
INSERT INTO {s}.singer SELECT g, 'Singer ' || g, (ARRAY['France','Chile','Japan'])[1 + g % 3], 20 + g
FROM generate_series(1, 30) g;
INSERT INTO {s}.concert SELECT g, 'Concert ' || g, 2010 + g % 8, 1 + (g * 7) % 30 FROM generate_series(1, 20) g;
INSERT INTO {s}.singer_in_concert SELECT DISTINCT 1 + g % 20, 1 + (g * 3) % 30 FROM generate_series(1, 40) g;
ANALYZE;
"""


def _key(j) -> tuple:
    return (j.from_table.split(".")[-1], tuple(j.from_columns), j.to_table.split(".")[-1], tuple(j.to_columns))


@pytest.fixture(scope="module")
def onboarded(module_db_url: str, pg_data_dir):
    """``nj_so``: empty tables; ``nj_rows``: the same tables with rows; ``nj_badtype``: empty tables
    whose ``concert.singer_id`` is a boolean (no comparable type)."""
    os.environ["SQLGENIE_DATA_DIR"] = str(pg_data_dir)
    settings = load_settings(database_url=module_db_url)
    ensure_migrated(module_db_url)
    out = {}
    with psycopg.connect(module_db_url, autocommit=True) as conn:
        for schema, rows, t in (("nj_so", False, "integer"), ("nj_rows", True, "integer"), ("nj_badtype", False, "boolean")):
            conn.execute(DDL.format(s=schema, t=t) + (ROWS.format(s=schema) if rows else ""))
            results = onboard_schema(schema, settings=settings, target=conn, store=conn, provider=None,
                                     options=OnboardOptions(llm=None, measure_indexes=False))
            evidence = {
                (r[0], tuple(r[1]), r[2], tuple(r[3])): r[4]
                for r in conn.execute(
                    """SELECT a.table_name, j.from_columns, b.table_name, j.to_columns, j.evidence
                       FROM sqlgenie.catalog_joins j JOIN sqlgenie.catalog_tables a ON a.id = j.from_table_id
                       JOIN sqlgenie.catalog_tables b ON b.id = j.to_table_id WHERE a.schema_name = %s""", (schema,))
            }
            out[schema] = (load_catalog(conn, schemas=[schema], search_path=(schema,)), results, evidence)
        yield conn, out


def test_empty_tables_get_proposed_joins_from_names(onboarded):
    _conn, out = onboarded
    cat, _results, evidence = out["nj_so"]
    assert all(t.row_estimate == 0 for t in cat.tables)
    by_key = {_key(j): j for j in cat.joins}
    want = {
        ("concert", ("singer_id",), "singer", ("singer_id",)),
        ("singer_in_concert", ("singer_id",), "singer", ("singer_id",)),
        ("singer_in_concert", ("concert_id",), "concert", ("concert_id",)),
    }
    assert want <= set(by_key), sorted(by_key)
    for k in want:
        j = by_key[k]
        assert j.status == "proposed" and j.decided_by == "score"  # never accepted without evidence
        assert joins.REVIEW_FLOOR <= j.score < joins.THRESHOLD
        notes = " ".join(evidence[k].get("notes", []))
        assert NAME_ONLY_REASON in notes
        assert evidence[k]["inclusion"] is None
    assert not cat.accepted_joins()
    # the link table's first column names another table: it is a reference, not its key,
    # so nothing references singer_in_concert, and no table's own key references another
    assert not any(k[2] == "singer_in_concert" for k in by_key)
    assert not any(k[:2] == ("singer", ("singer_id",)) or k[:2] == ("concert", ("concert_id",)) for k in by_key)


def test_tables_with_rows_use_value_inclusion_unchanged(onboarded):
    _conn, out = onboarded
    cat, results, evidence = out["nj_rows"]
    accepted = {_key(j) for j in cat.accepted_joins()}
    assert ("concert", ("singer_id",), "singer", ("singer_id",)) in accepted
    k = ("concert", ("singer_id",), "singer", ("singer_id",))
    assert evidence[k]["inclusion"] == 1.0
    assert NAME_ONLY_REASON not in " ".join(evidence[k].get("notes", []))
    # no candidate of any table came from names only
    for r in results:
        assert not any("name_only" in c.features for c in r.candidates)
    assert all(NAME_ONLY_REASON not in " ".join(e.get("notes", [])) for e in evidence.values())


def test_name_match_with_incompatible_types_is_not_proposed(onboarded):
    _conn, out = onboarded
    cat, _results, _evidence = out["nj_badtype"]
    keys = {_key(j) for j in cat.joins}
    assert ("concert", ("singer_id",), "singer", ("singer_id",)) not in keys  # boolean vs integer
    assert ("singer_in_concert", ("singer_id",), "singer", ("singer_id",)) in keys  # integer: proposed


def test_resolution_never_accepts_a_name_only_pair():
    row = JoinRow(key=(1, ("singer_id",), 2, ("singer_id",)), score=0.99, status="proposed", decided_by="score",
                  features={"name_only": 1.0, "names_table": 1.0, "same_name": 1.0})
    (status, by), = resolve([row]).values()
    assert status == "proposed" and by == "score"
    assert row.score == 0.99  # not rescored by the inclusion model


def test_pruner_joins_empty_tables_along_name_only_joins(onboarded):
    """The schema-only catalog is in the no-values situation (it has joins now), and the join
    tree brings in the join columns between the tables a question needs."""
    from example_bank.embedder import get_embedder
    from sqlgenie.inference.pruning import SchemaPruner, situation

    conn, out = onboarded
    cat, _results, _evidence = out["nj_so"]
    assert situation(cat) == "no_values"
    pruner = SchemaPruner(cat, embedder=get_embedder(), value_matcher=conn, threshold=0.3)
    pruned = pruner.prune("What are the names of the singers who performed in the concert of 2014?")
    kept = {(t.split(".")[-1], c) for t, c in pruned.kept_columns()}
    assert {"singer", "concert"} <= {t.split(".")[-1] for t in pruned.tables}
    assert pruned.joins, pruned.render()
    join_cols = {(j.from_table.split(".")[-1], c) for j in pruned.joins for c in j.from_columns}
    join_cols |= {(j.to_table.split(".")[-1], c) for j in pruned.joins for c in j.to_columns}
    assert join_cols <= kept
    assert ("singer", "singer_id") in kept


def _ref(table: str, column: str, ordinal: int, data_type: str = "integer") -> joins.ColumnRef:
    family = "numeric" if data_type in ("integer", "bigint") else "text"
    return joins.ColumnRef("s", table, column, data_type, family, family == "numeric", 0, ordinal=ordinal)


def test_name_only_rules_on_columns():
    singer = [_ref("singer", "singer_id", 1), _ref("singer", "name", 2, "text")]
    concert = [_ref("concert", "concert_id", 1), _ref("concert", "singer_id", 2)]
    pairs = {(c.src.table, c.src.column, c.dst.table, c.dst.column)
             for c in joins.name_only_candidates(concert, singer, ["singer", "concert"])}
    assert pairs == {("concert", "singer_id", "singer", "singer_id")}
    # a declared foreign key says what the column references: no name-only pair for it
    assert not joins.name_only_candidates(concert, singer, ["singer", "concert"], {("s", "concert", "singer_id")})
    # glued key words and a key that does not name its table: countrycode -> country.code
    country = [_ref("country", "code", 1, "text"), _ref("country", "name", 2, "text")]
    city = [_ref("city", "id", 1), _ref("city", "countrycode", 2, "text")]
    pairs = {(c.src.table, c.src.column, c.dst.table, c.dst.column)
             for c in joins.name_only_candidates(city, country, ["country", "city"])}
    assert pairs == {("city", "countrycode", "country", "code")}
    # both tables hold rows: nothing from names (value inclusion decides)
    full = [dataclasses.replace(c, rows=10) for c in singer + concert]
    assert not joins.name_only_candidates(full[2:], full[:2], ["singer", "concert"])
