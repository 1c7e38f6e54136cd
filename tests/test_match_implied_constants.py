"""Match verification: a number the example's SQL compares with, that no value of its
question produced ("morning" -> departure_time BETWEEN 0 AND 1200), only carries over to
a question worded the same way (issue 13)."""

from __future__ import annotations

from sqlgenie.inference.verify import implied_constants

SQL = ("SELECT flight_id FROM flight WHERE from_city = 'BOSTON' AND departure_time BETWEEN 0 AND 1200")
EX = "flights from [MASK] in the morning"
SPANS = [{"start": 13, "end": 19, "text": "BOSTON", "kind": "value"}]


def test_other_wording_with_an_implied_number_is_refused():
    reasons = implied_constants(SQL, SPANS, EX, "flights from [MASK] in the evening")
    assert reasons and "'1200'" in reasons[0] and "evening" in reasons[0]
    assert implied_constants(SQL, SPANS, EX, "flights from [MASK]")  # the question drops "morning"


def test_same_wording_or_no_implied_number_passes():
    assert implied_constants(SQL, SPANS, EX, "morning flights from [MASK]") == []  # same words, other order
    plain = "SELECT flight_id FROM flight WHERE from_city = 'BOSTON'"
    assert implied_constants(plain, SPANS, EX, "flights from [MASK] in the evening") == []
    # a number the question's own value produced is bound, not implied
    bound = "SELECT flight_id FROM flight WHERE stops = 2"
    assert implied_constants(bound, [{"start": 13, "end": 14, "text": "2", "kind": "number"}],
                             "flights with [MASK] stops", "flights having [MASK] stops") == []
    # count bounds (HAVING), a date's default year and one entity's key are not wording
    having = "SELECT city FROM flight GROUP BY city HAVING COUNT(*) > 1"
    assert implied_constants(having, [], "cities with more than one flight", "cities served by several flights") == []
    year = "SELECT flight_id FROM flight WHERE from_city = 'BOSTON' AND year = 1991"
    assert implied_constants(year, SPANS, EX, "flights from [MASK] please") == []
    mine = "SELECT course_id FROM student_record WHERE student_id = 1"
    assert implied_constants(mine, [], "courses i have taken", "which courses did i take") == []
    assert implied_constants(mine.replace("student_id = 1", "student_id = 1 AND grade_points = 4"), [],
                             "courses i have taken", "which courses did i take")
