"""The lessons' exercises: answers computed by the package, checked by ``check``."""

from __future__ import annotations

import pytest

from kipviz.apps.exercises import EXERCISES, answer, check, exercise


def test_lesson_8_answers_are_kafkas_numbers():
    """One remote read per request before 4.2 and all eight from 4.2 (KAFKA-14915), 3 s between
    256 MiB uploads at 100 MiB/s, and a 4,000 ms throttle for a 5 units/s bucket at -20
    credits."""
    assert [answer(8, n) for n in (1, 2, 3, 4)] == [1, 8, 3.0, 4000]
    assert str(check(8, 4, 4000)).startswith("Right: 4,000 ms")
    assert "Not yet" in str(check(8, 4, 4001)) and "Not answered yet" in str(check(8, 1, None))
    assert "4,000" not in str(check(8, 4, 4001))  # a wrong try does not give the answer away
    assert not check(8, 1, True)  # a bool is not a count


def test_a_card_hides_its_answer_until_opened():
    """The card's HTML holds the answer only inside a collapsed <details>; its text, none."""
    card = exercise("03", 1)
    page = card._repr_html_()
    outside, inside = page.split("<details>")
    assert "52,428,799" not in outside and "52,428,799 bytes" in inside
    assert "<details open" not in page and "52,428,799" not in repr(card)
    assert "Right: 52,428,799 bytes" in exercise(3, 1, my_answer=50 * 2**20 - 1)._repr_html_()


@pytest.mark.parametrize(("lesson", "number"), [(99, 1), (8, 9)])
def test_an_unknown_exercise_is_named(lesson, number):
    """Unknown lessons and numbers raise ValueError naming the exercises there are."""
    assert ("08", 1) in EXERCISES
    with pytest.raises(ValueError, match=f"no exercise {number} in lesson {lesson!r}; there are"):
        check(lesson, number, 1)
