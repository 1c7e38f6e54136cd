"""The match route never widens a case variant of a stored value (issue 13, 'dallas' ->
IN ('Dallas', 'DALLAS FORT WORTH') was a silent wrong answer)."""

from __future__ import annotations

from sqlgenie.autocorrect import AutocorrectSettings, correct_values
from sqlgenie.autocorrect.base import parse_sql, to_sql

from tests.test_autocorrect_correctors import CATALOG, MATCHER, S

FOLDED = S.model_copy(update={"value_same_folded": True})


def _run(sql: str, settings: AutocorrectSettings) -> str:
    return to_sql(correct_values(parse_sql(sql), CATALOG, MATCHER, settings)[0])


def test_default_widens_and_same_folded_keeps_the_one_value():
    sql = "SELECT * FROM brands WHERE name = 'rockpot'"
    widened = _run(sql, S)
    assert "IN (" in widened and "'Rockpot LLC'" in widened  # the general corrector offers every close value
    assert _run(sql, FOLDED).endswith("name = 'Rockpot'")
    assert _run("SELECT * FROM brands WHERE name = 'ROCKPOT  '", FOLDED).endswith("name = 'Rockpot'")


def test_same_folded_inside_in_lists_and_only_for_case_variants():
    out = _run("SELECT * FROM brands WHERE name IN ('rockpot', 'Sakura')", FOLDED)
    assert out.endswith("name IN ('Rockpot', 'Sakura')")
    # a literal that is no case variant of any value is still corrected as before
    assert _run("SELECT * FROM brands WHERE name = 'rockpt'", FOLDED) == _run(
        "SELECT * FROM brands WHERE name = 'rockpt'", S)
    # an exact value is never touched
    assert _run("SELECT * FROM brands WHERE name = 'Rockpot'", FOLDED).endswith("name = 'Rockpot'")
