"""The lessons' exercises, checked by the package so nbval keeps each answer honest.

``check(lesson, number, answer)`` compares an answer with what the package computes and returns
a :class:`Verdict` (``ok``, and a message saying why); an exercise that does not exist is a
``ValueError``. Each exercise is one entry of :data:`EXERCISES`: its question and a function
computing the expected answer from the models themselves.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from kipviz.share import in_flight_bound_records, uniform_partition_max_bytes
from kipviz.share_assign import simple_assign

__all__ = ["EXERCISES", "Verdict", "check", "question"]


def _largest_uniform_share() -> tuple[int, str]:
    split = uniform_partition_max_bytes(1_000_000, ["a", "b", "c"], 3)
    return max(split.values()), (f"1,000,000 // 3 = 333,333 each and the remainder 1 to one "
                                 f"random partition: {sorted(split.values())}")


def _sharing() -> tuple[int, str]:
    assignment = simple_assign(12, 5)
    holders = max(sum(p in parts for parts in assignment) for p in range(5))
    return holders, f"ceil(12 / 5) = {holders} members per partition (SimpleAssignor)"


def _in_flight() -> tuple[int, str]:
    bound = in_flight_bound_records(2000, 500)
    return bound, (f"2,000 + 500 - 1 = {bound:,}: acquisition runs to the end of the log batch "
                   f"holding the last record the cap allows (Kafka's code)")


# (lesson, number) -> (question, expected answer with its reason)
EXERCISES: dict[tuple[str, int], tuple[str, Callable[[], tuple[Any, str]]]] = {
    ("07", 1): ("A share fetch with MaxBytes 1,000,000 reads 3 partitions, all 3 acquired: how "
                "many bytes may the largest partition return?", _largest_uniform_share),
    ("07", 2): ("A share group of 12 consumers reads a topic of 5 partitions: at most how many "
                "consumers share one partition?", _sharing),
    ("07", 3): ("group.share.partition.max.record.locks is 2000 and producers write batches of "
                "500 records: at most how many records can be in flight on a partition?",
                _in_flight),
}


@dataclass(frozen=True)
class Verdict:
    """The outcome of :func:`check`: ``ok`` and a message that says why."""

    ok: bool
    message: str

    def __str__(self) -> str:
        return self.message

    def __bool__(self) -> bool:
        return self.ok


def _key(lesson: str, number: int) -> tuple[str, int]:
    key = (str(lesson).zfill(2), number)
    if key not in EXERCISES:
        raise ValueError(f"no exercise {number} in lesson {lesson!r}; there are "
                         f"{sorted(EXERCISES)}")
    return key


def question(lesson: str, number: int) -> str:
    """The text of exercise ``number`` of ``lesson`` (``"07"``)."""
    return EXERCISES[_key(lesson, number)][0]


def check(lesson: str, number: int, answer: Any) -> Verdict:
    """Compare ``answer`` with the package's own; a numeric answer must match exactly.

    >>> print(check("07", 2, 3))
    Correct: 3. ceil(12 / 5) = 3 members per partition (SimpleAssignor)
    >>> check("07", 2, 4).ok
    False
    """
    expected, why = EXERCISES[_key(lesson, number)][1]()
    if answer == expected:
        return Verdict(True, f"Correct: {expected!r}. {why}")
    return Verdict(False, f"Not yet: {answer!r} is not the answer ({expected!r}). {why}")
