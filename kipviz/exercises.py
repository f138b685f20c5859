"""The lessons' exercises: ``check(lesson, number, answer)`` says whether an answer is right.

Each lesson registers its exercises in :data:`EXERCISES` under its number, in a block of its own
below. An expected answer is computed by the package (the model's own numbers), never typed in,
so an exercise stays right when the model is corrected. A lesson's cell calls ``check`` and
prints the sentence it returns; the answers sit in collapsed cells below the questions.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = ["EXERCISES", "Exercise", "answer", "check"]


@dataclass(frozen=True)
class Exercise:
    """One question: ``expected()`` computes the answer; a number is right within ``rel_tol``;
    ``why`` is the sentence shown with a right answer (and after a wrong one)."""

    question: str
    expected: Callable[[], Any]
    why: str
    rel_tol: float = 0.0


EXERCISES: dict[int, dict[int, Exercise]] = {}


def answer(lesson: int, number: int) -> Any:
    """The expected answer of an exercise (what the collapsed answer cell prints)."""
    return _exercise(lesson, number).expected()


def check(lesson: int, number: int, answer: Any) -> str:
    """A sentence saying whether ``answer`` answers exercise ``number`` of ``lesson``:
    "not answered yet" for ``None``; numbers compared within the exercise's tolerance."""
    ex = _exercise(lesson, number)
    if answer is None:
        return f"Exercise {lesson}.{number}: not answered yet. {ex.question}"
    expected = ex.expected()
    if isinstance(expected, bool) or not isinstance(expected, int | float):
        right = answer == expected
    else:
        right = (not isinstance(answer, bool) and isinstance(answer, int | float)
                 and math.isclose(answer, expected, rel_tol=ex.rel_tol, abs_tol=1e-9))
    if right:
        return f"Exercise {lesson}.{number}: right ({expected!r}). {ex.why}"
    return f"Exercise {lesson}.{number}: not quite ({answer!r}); try again. {ex.question}"


def _exercise(lesson: int, number: int) -> Exercise:
    if lesson not in EXERCISES:
        raise ValueError(f"lesson must be one of {sorted(EXERCISES)}: {lesson!r}")
    if number not in EXERCISES[lesson]:
        raise ValueError(f"number must be one of {sorted(EXERCISES[lesson])} for lesson "
                         f"{lesson}: {number!r}")
    return EXERCISES[lesson][number]


# --- lesson 8: tiered storage (tools/lessons/tiered_storage.py) --------------------------------
def _l8_reads_per_request() -> int:
    from kipviz.scenarios.tiered_fetch import TieredFetchScenario, simulate

    trace = simulate(TieredFetchScenario(kafka_version="4.1", remote_partitions=8,
                                         duration_ms=1_000))
    return int(trace.fetches.reads_scheduled.max())


def _l8_copy_gap_s() -> float:
    from kipviz.scenarios.tiered_quotas import copy_under_quota

    seg = copy_under_quota(1024**3, 2, 100 * 1024**2)["segments"]
    return float(seg.recorded_ms.iloc[1] - seg.recorded_ms.iloc[0]) / 1000.0


def _l8_bucket_throttle_ms() -> int:
    from kipviz.token_bucket import token_bucket_throttle_time_ms

    return token_bucket_throttle_time_ms(-20.0, 5.0)


EXERCISES[8] = {
    1: Exercise("On Kafka 4.1, a consumer catches up on 8 remote partitions of one broker: how "
                "many remote reads can one fetch request start?", _l8_reads_per_request,
                "Before 4.2 ReplicaManager kept only the first remote partition's "
                "RemoteStorageFetchInfo (KAFKA-14915)."),
    2: Exercise("remote.log.manager.copy.max.bytes.per.second = 100 MiB/s, 1 GiB segments: how "
                "many seconds apart are two uploads?", _l8_copy_gap_s,
                "The whole segment is recorded at once; SimpleRate spreads it over 10.24 s, the "
                "copy thread checks every second, and after 11 s the 11 windows have dropped it.",
                rel_tol=0.01),
    3: Exercise("A TokenBucket of 5 units/s is at -20 credits: what throttle time (ms) does "
                "ControllerMutationQuotaManager give?", _l8_bucket_throttle_ms,
                "-credits / quota * 1000 = 20 / 5 * 1000: the time the refill needs to get back "
                "to 0."),
}
# --- end of lesson 8 ------------------------------------------------------------------------------
