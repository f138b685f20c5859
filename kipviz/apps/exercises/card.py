"""How an exercise looks in a lesson: a card with the question, the reader's verdict and the
answer behind a collapsed "Show the answer"; :func:`check` and :func:`answer` for code."""

from __future__ import annotations

import html
import math
from dataclasses import dataclass

from kipviz.apps.exercises.catalogue import EXERCISES, Exercise

__all__ = ["Card", "Verdict", "answer", "check", "exercise", "question"]


@dataclass(frozen=True)
class Verdict:
    """The outcome of :func:`check`: ``ok`` and a message that says why (``str()``)."""

    ok: bool
    message: str

    def __str__(self) -> str:
        return self.message

    def __bool__(self) -> bool:
        return self.ok


def _key(lesson: str | int, number: int) -> tuple[str, int]:
    key = (str(lesson).zfill(2), number)
    if key not in EXERCISES:
        raise ValueError(f"no exercise {number} in lesson {lesson!r}; there are "
                         f"{', '.join(f'{a} {b}' for a, b in sorted(EXERCISES))}")
    return key


def _exercise(lesson: str | int, number: int) -> Exercise:
    return EXERCISES[_key(lesson, number)]


def answer(lesson: str | int, number: int) -> float:
    """The answer the package computes for exercise ``number`` of ``lesson``."""
    return _exercise(lesson, number).answer()


def question(lesson: str | int, number: int) -> str:
    """The text of exercise ``number`` of ``lesson`` (``"07"``)."""
    return _exercise(lesson, number).question


def _number(value: float) -> str:
    return f"{value:,.10g}"


def check(lesson: str | int, number: int, answer: float | None) -> Verdict:
    """The verdict on ``answer`` to exercise ``number`` of ``lesson``: right (with why), not
    yet (the right number stays hidden), or not answered (``None``). It prints as its message
    and is true when right."""
    e = _exercise(lesson, number)
    if answer is None:
        return Verdict(False, f"Not answered yet: put your number ({e.unit}) in place of None "
                              "and run the cell.")
    if isinstance(answer, bool) or not isinstance(answer, int | float):
        return Verdict(False, f"Not yet: answer with a number of {e.unit}: {answer!r}.")
    if math.isclose(answer, e.answer(), rel_tol=e.rel_tol, abs_tol=1e-9):
        return Verdict(True, f"Right: {_number(answer)} {e.unit}. {e.why[0].upper()}{e.why[1:]}.")
    return Verdict(False, f"Not yet: {_number(answer)} {e.unit} is not what Kafka's rule gives. "
                          "Try again, or open \"Show the answer\".")


@dataclass(frozen=True)
class Card:
    """Exercise ``lesson``.``number`` as a lesson shows it: the question, the verdict on
    ``my_answer`` and the answer in a collapsed ``<details>`` (HTML); as text, without the
    answer."""

    lesson: str
    number: int
    my_answer: float | None = None

    @property
    def title(self) -> str:
        """``Exercise 1.2``."""
        return f"Exercise {int(self.lesson)}.{self.number}"

    def _repr_html_(self) -> str:
        e = _exercise(self.lesson, self.number)
        verdict = check(self.lesson, self.number, self.my_answer)
        colour = "#1b5e20" if verdict else ("#555" if self.my_answer is None else "#b71c1c")
        solved = f"{_number(e.answer())} {e.unit}"
        return (f'<div class="kipviz-exercise" style="border-left:3px solid #1f77b4;'
                f'padding:4px 10px;margin:4px 0"><p><b>{self.title}.</b> '
                f"{html.escape(e.question)}</p>"
                f'<p style="color:{colour}">{html.escape(str(verdict))}</p>'
                f"<details><summary>Show the answer</summary><p><b>{html.escape(solved)}</b>: "
                f"{html.escape(e.why)}.</p></details></div>")

    def __repr__(self) -> str:
        e = _exercise(self.lesson, self.number)
        return (f"{self.title}. {e.question}\n{check(self.lesson, self.number, self.my_answer)}"
                "\n(The answer is under \"Show the answer\" in the notebook.)")


def exercise(lesson: str | int, number: int, my_answer: float | None = None) -> Card:
    """The card of exercise ``number`` of ``lesson`` for a lesson's cell: run it with your
    number as ``my_answer`` for a verdict; the answer stays collapsed until opened."""
    key = _key(lesson, number)
    return Card(key[0], key[1], my_answer)
