"""The lessons' exercises: answers computed by the package, checked by ``check``."""

from __future__ import annotations

import pytest

from kipviz.apps.exercises import EXERCISES, answer, check


def test_lesson_8_answers_are_kafkas_numbers():
    """One remote read per request before 4.2, 11 s between 1 GiB uploads at 100 MiB/s, and a
    4,000 ms throttle for a 5 units/s bucket at -20 credits."""
    assert [answer(8, n) for n in (1, 2, 3)] == [1, 11.0, 4000]
    assert str(check(8, 3, 4000)).startswith("Right: 4,000 ms")
    assert "Not yet" in str(check(8, 3, 4001)) and "Not answered yet" in str(check(8, 1, None))
    assert not check(8, 1, True)  # a bool is not a count


@pytest.mark.parametrize(("lesson", "number"), [(99, 1), (8, 9)])
def test_an_unknown_exercise_is_named(lesson, number):
    """Unknown lessons and numbers raise ValueError naming the exercises there are."""
    assert ("08", 1) in EXERCISES
    with pytest.raises(ValueError, match=f"no exercise {number} in lesson {lesson!r}; there are"):
        check(lesson, number, 1)
