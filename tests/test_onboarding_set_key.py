"""A person sets, confirms or removes a table's primary key (``sqlgenie tables set-key``),
on a real embedded PostgreSQL; inferred composite keys carry how likely they are by chance."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys

import psycopg
import pytest

from onboarding import catalog_admin
from onboarding.keys import WEAK_KEY_CHANCE, chance_unique
from onboarding.service import OnboardOptions, onboard_schema, onboard_table
from sqlgenie.errors import InputError, UnknownTableError
from sqlgenie.store import connect_store, open_connection, target_url

CLUB_DDL = """
CREATE SCHEMA club;
CREATE TABLE club.student (stuid integer NOT NULL, name text NOT NULL);
INSERT INTO club.student SELECT i, 'Student ' || i FROM generate_series(1, 40) i;
CREATE TABLE club.club (clubid integer PRIMARY KEY, clubname text NOT NULL);
INSERT INTO club.club VALUES (1, 'Chess'), (2, 'Rowing'), (3, 'Drama'), (4, 'Choir');
-- 8 memberships: each (stuid, clubid) once; clubid repeats, stuid repeats once
CREATE TABLE club.member_of_club (stuid integer NOT NULL, clubid integer NOT NULL, position text);
INSERT INTO club.member_of_club VALUES (1, 1, 'President'), (2, 1, NULL), (3, 2, 'Captain'), (4, 2, NULL),
    (5, 3, NULL), (6, 3, NULL), (7, 4, NULL), (1, 4, 'Treasurer');
ANALYZE;
"""
OPTS = OnboardOptions(llm=None, measure_indexes=False)


@pytest.fixture
def club(settings, fresh_db_url):
    with psycopg.connect(fresh_db_url, autocommit=True) as conn:
        conn.execute(CLUB_DDL)
    onboard_schema("club", settings=settings, options=OPTS)
    return settings


def _set(settings, spec, columns=None, **kw):
    with connect_store(settings) as store, open_connection(target_url(settings), autocommit=True) as target:
        return catalog_admin.set_primary_key(store, spec, columns, target=target, **kw)


def _show(settings, spec):
    with connect_store(settings) as store:
        return catalog_admin.show_table(store, spec)


def test_chance_unique_is_the_birthday_bound():
    assert chance_unique(15, [10, 9]) == pytest.approx(math.exp(-15 * 14 / (2 * 90)))
    assert chance_unique(1, [1, 1]) == 1.0
    assert chance_unique(10, [None, 4]) is None
    # a big table unique over a pair is not a coincidence; a tiny one often is
    assert chance_unique(1_000_000, [1_000, 5_000]) < 1e-9 < WEAK_KEY_CHANCE < chance_unique(8, [7, 4])


def test_inferred_composite_key_carries_its_chance(club):
    info = _show(club, "club.member_of_club")
    assert info["pk_source"] == "inferred" and info["primary_key"] == ["stuid", "clubid"]
    ev = info["pk_evidence"]
    assert ev["rows"] == 8 and ev["chance_unique"] == pytest.approx(chance_unique(8, [7, 4]), abs=1e-4)
    assert ev["chance_unique"] >= WEAK_KEY_CHANCE


def test_set_confirm_none_reset_and_reonboarding(club):
    out = _set(club, "member_of_club", ["STUID", "clubid"])  # column names resolved like the catalog stores them
    assert out["primary_key"] == ["stuid", "clubid"] and out["pk_source"] == "human"
    assert out["checked"] == {"rows": 8, "null_rows": 0, "duplicate_rows": 0}
    assert out["previous"] == {"primary_key": ["stuid", "clubid"], "pk_source": "inferred"}

    # a person's "no key" survives re-onboarding, and the onboarding itself uses it
    none = _set(club, "club.member_of_club", no_key=True)
    assert none["primary_key"] == [] and none["pk_source"] == "human"
    res = onboard_table("club.member_of_club", settings=club, options=OPTS)
    assert (res.primary_key, res.pk_source) == ([], "human")
    info = _show(club, "club.member_of_club")
    assert (info["primary_key"], info["pk_source"]) == ([], "human") and "primary_key" in info["human_fields"]
    assert info["pk_evidence"]["inferred_key"] == {"columns": ["stuid", "clubid"], "source": "inferred"}

    back = _set(club, "club.member_of_club", reset=True)
    assert (back["primary_key"], back["pk_source"]) == (["stuid", "clubid"], "inferred")
    assert "primary_key" not in _show(club, "club.member_of_club")["human_fields"]


def test_bad_keys_are_refused_with_what_is_wrong(club):
    with pytest.raises(InputError) as err:
        _set(club, "club.member_of_club", ["clubid"])
    assert "of its 8 rows, 4 repeat another row's values." in str(err.value)
    assert "--force" in err.value.hint
    with pytest.raises(InputError) as err:
        _set(club, "club.member_of_club", ["position"])
    assert "of its 8 rows, 5 have a NULL in it." in str(err.value)
    with pytest.raises(InputError) as err:
        _set(club, "club.member_of_club", ["stu_id"])
    assert "no column 'stu_id'" in str(err.value) and "stuid" in err.value.hint
    with pytest.raises(InputError) as err:
        _set(club, "club.club", ["clubname"])
    assert "declares PRIMARY KEY (clubid)" in str(err.value)
    with pytest.raises(InputError):
        _set(club, "club.student", ["stuid"], no_key=True)  # columns and --none together
    before = _show(club, "club.member_of_club")
    assert (before["primary_key"], before["pk_source"]) == (["stuid", "clubid"], "inferred")  # nothing changed

    forced = _set(club, "club.member_of_club", ["clubid"], force=True)
    assert forced["primary_key"] == ["clubid"] and forced["checked"] is None


def test_a_person_key_on_a_dropped_column_ends_on_reonboarding(club, fresh_db_url):
    _set(club, "club.member_of_club", ["stuid", "clubid", "position"], force=True)
    with psycopg.connect(fresh_db_url, autocommit=True) as conn:
        conn.execute("ALTER TABLE club.member_of_club DROP COLUMN position")
    res = onboard_table("club.member_of_club", settings=club, options=OPTS)
    assert res.pk_source == "inferred" and res.primary_key == ["stuid", "clubid"]
    assert any("no longer has (position)" in n for n in res.notes)
    assert "primary_key" not in _show(club, "club.member_of_club")["human_fields"]


def test_a_declared_key_ends_a_person_key(club, fresh_db_url):
    _set(club, "club.student", no_key=True)
    with psycopg.connect(fresh_db_url, autocommit=True) as conn:
        conn.execute("ALTER TABLE club.student ADD PRIMARY KEY (stuid)")
    onboard_table("club.student", settings=club, options=OPTS)
    info = _show(club, "club.student")
    assert (info["primary_key"], info["pk_source"]) == (["stuid"], "declared") and "primary_key" not in info["human_fields"]


def test_a_table_gone_from_the_target_is_a_clear_error(club, fresh_db_url):
    with psycopg.connect(fresh_db_url, autocommit=True) as conn:
        conn.execute("DROP TABLE club.member_of_club")
    with pytest.raises(UnknownTableError) as err:
        _set(club, "club.member_of_club", ["stuid", "clubid"])
    assert "no longer exists" in str(err.value)
    assert _show(club, "club.member_of_club")["pk_source"] == "inferred"  # catalog untouched


def _cli(url: str, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SQLGENIE_")}
    env.update(SQLGENIE_DATABASE_URL=url, SQLGENIE_DATA_DIR=os.environ["SQLGENIE_DATA_DIR"], COLUMNS="200")
    return subprocess.run([sys.executable, "-m", "sqlgenie", *args], capture_output=True, text=True, env=env, timeout=120)


def test_cli_set_key_and_show(club, fresh_db_url):
    onboarded = _cli(fresh_db_url, "onboard", "table", "club.member_of_club", "--no-index-benefit")
    assert onboarded.returncode == 0 and "by coincidence 37% of the time" in " ".join(onboarded.stdout.split())
    shown = _cli(fresh_db_url, "tables", "show", "club.member_of_club")
    assert shown.returncode == 0 and "by coincidence" in shown.stdout and "tables set-key" in shown.stdout
    proc = _cli(fresh_db_url, "tables", "set-key", "club.member_of_club", "stuid", "clubid", "--json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["pk_source"] == "human" and out["checked"]["rows"] == 8
    assert "set by a person" in _cli(fresh_db_url, "tables", "show", "club.member_of_club").stdout
    proc = _cli(fresh_db_url, "tables", "set-key", "club.member_of_club", "clubid")
    assert proc.returncode == 2 and "--force" in proc.stderr
    proc = _cli(fresh_db_url, "tables", "set-key", "club.member_of_club")
    assert proc.returncode == 2 and "--none" in proc.stderr
    assert "Example:" in _cli(fresh_db_url, "tables", "set-key", "--help").stdout
