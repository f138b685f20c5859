"""The lessons' exercises, with answers the package computes (so nbval keeps them honest).

Each exercise states a question and computes its answer with the same functions the lessons use;
:func:`check` compares a reader's answer with it and explains. A lesson's answer cell (collapsed)
calls ``check("01", 1, answer)``: should the model ever change, the printed verdict changes and
the notebook test fails.

>>> print(check("04", 1, 100))
Right: 100 s. 1 GB over T - R x IN = 40 - 3 x 10 MB/s = 10 MB/s: 100 s, not the KIP's 33 s.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from kipviz.kafka.config.declarations import CONSUMER

__all__ = ["EXERCISES", "Exercise", "Verdict", "answer", "check", "exercises_for", "question"]

_MiB = 1024 * 1024


@dataclass(frozen=True)
class Exercise:
    """A question, how to compute its answer, its unit and why the answer is what it is."""

    question: str
    answer: Callable[[], float]
    unit: str
    why: str
    solution: str  # the expression the answer cell passes to check()
    rel_tol: float = 1e-9


def _second_partition_bytes() -> float:
    from kipviz.kafka.fetch.response import fill_response

    parts = fill_response([[600 * 1024, 600 * 1024], [300 * 1024]],
                          response_max_bytes=_MiB, partition_max_bytes=_MiB)
    return parts[1].raw_bytes


def _consumer_bound_mib(kafka_version: str, partitions: int, brokers: int,
                        fetch_max_bytes: int = CONSUMER.default_of("fetch.max.bytes")) -> float:
    from kipviz.kafka.consumer.memory import consumer_memory_bounds
    from kipviz.scenarios.consumer.scenario import ConsumerScenario

    s = ConsumerScenario(partitions=partitions, brokers=brokers, fetch_max_bytes=fetch_max_bytes,
                         kafka_version=kafka_version)
    return consumer_memory_bounds(s, lagging=True).bound_bytes / _MiB


def _pool_mib(strict: bool) -> float:
    from kipviz.kafka.broker.pool import max_outstanding_bytes

    return max_outstanding_bytes(200 * _MiB, 100 * _MiB, strict=strict) / _MiB


def _move_s() -> float:
    from kipviz.kafka.replication.planning import move_time_s

    return move_time_s(1.0, 1e9, 1, 40e6, 10e6, in_sync_followers=2)


def _record_bytes() -> float:
    from kipviz.kafka.streams.input_buffer import record_size_bytes

    return record_size_bytes(16, 1000, "orders")


def _thread_share() -> float:
    from kipviz.kafka.streams.input_buffer import INPUT_BUFFER_MAX_BYTES, thread_share_bytes

    return thread_share_bytes(INPUT_BUFFER_MAX_BYTES, 4, global_thread=True)


def _largest_uniform_share() -> float:
    from kipviz.kafka.share.fetch import uniform_partition_max_bytes

    return max(uniform_partition_max_bytes(1_000_000, ["a", "b", "c"], 3).values())


def _sharing() -> float:
    from kipviz.kafka.share.assign import simple_assign

    assignment = simple_assign(12, 5)
    return max(sum(p in parts for parts in assignment) for p in range(5))


def _in_flight() -> float:
    from kipviz.kafka.share.fetch import in_flight_bound_records

    return in_flight_bound_records(2000, 500)


def _l8_reads_per_request() -> float:
    from kipviz.scenarios.tiered_fetch.scenario import TieredFetchScenario, simulate

    trace = simulate(TieredFetchScenario(kafka_version="4.1", remote_partitions=8,
                                         duration_ms=1_000))
    return int(trace.fetches.reads_scheduled.max())


def _l8_copy_gap_s() -> float:
    from kipviz.scenarios.tiered_fetch.quotas import copy_under_quota

    seg = copy_under_quota(1024**3, 2, 100 * 1024**2)["segments"]
    return float(seg.recorded_ms.iloc[1] - seg.recorded_ms.iloc[0]) / 1000.0


def _l8_bucket_throttle_ms() -> float:
    from kipviz.kafka.quotas.token_bucket import token_bucket_throttle_time_ms

    return token_bucket_throttle_time_ms(-20.0, 5.0)


def _grid_bound_mib(kafka_version: str) -> float:
    from dataclasses import replace

    from kipviz.kafka.consumer.memory import consumer_memory_bounds
    from kipviz.widgets.grid import GRID_LESSON_SCENARIO

    s = replace(GRID_LESSON_SCENARIO, fetch_max_bytes=16 * _MiB,
                max_partition_fetch_bytes=2 * _MiB, kafka_version=kafka_version)
    return consumer_memory_bounds(s, lagging=True).bound_bytes / _MiB


EXERCISES: dict[tuple[str, int], Exercise] = {
    ("01", 1): Exercise(
        "fetch.max.bytes = 1 MiB, max.partition.fetch.bytes = 1 MiB. Partition A has two 600 KiB "
        "batches, partition B one 300 KiB batch, in that request order. How many bytes does B "
        "get?", _second_partition_bytes, "bytes",
        "A's budget is the whole 1 MiB: it returns 1 MiB of raw bytes (one whole batch and a "
        "partial one the consumer drops), and nothing is left for B", "0"),
    ("01", 2): Exercise(
        "A lagging Kafka 4.3 consumer reads 1,000 partitions from 3 brokers with the defaults. "
        "At most how many MiB of fetch responses does it hold?",
        lambda: _consumer_bound_mib("4.3", 1000, 3), "MiB",
        "one response per broker: 3 x 50 MiB (KAFKA-17182); on 3.9 it would be 1,000 x 1 MiB "
        "plus the 50 MiB response being drained",
        "150"),
    ("02", 1): Exercise(
        "queued.max.request.bytes = 200 MiB, socket.request.max.bytes = 100 MiB. At most how "
        "many MiB of requests can the broker's pool have handed out?",
        lambda: _pool_mib(False), "MiB",
        "the pool is non-strict: it grants a request while one byte is free, so up to "
        "200 MiB + 100 MiB - 1 byte", "300 - 1 / 1048576", rel_tol=1e-12),
    ("02", 2): Exercise(
        "The same pool made strict (the what-if): at most how many MiB?",
        lambda: _pool_mib(True), "MiB", "a strict pool never goes below zero: 200 MiB", "200"),
    ("03", 1): Exercise(
        "Kafka 3.9, 120 partitions on 10 brokers, fetch.max.bytes 4 MiB, the application "
        "lagging: at most how many MiB of fetch responses?",
        lambda: _consumer_bound_mib("3.9", 120, 10, 4 * _MiB), "MiB",
        "before 4.0 every partition keeps a completed fetch, and the response being drained stays "
        "whole: 120 x 1 MiB + 4 MiB", "124"),
    ("03", 2): Exercise(
        "The same consumer on Kafka 4.3?",
        lambda: _consumer_bound_mib("4.3", 120, 10, 4 * _MiB), "MiB",
        "one response per broker: 10 x 4 MiB (KAFKA-17182)", "40"),
    ("04", 1): Exercise(
        "R = 3, IN = 10 MB/s, a throttle T = 40 MB/s set with --throttle, 1 GB to move. How "
        "many seconds?", _move_s, "s",
        "1 GB over T - R x IN = 40 - 3 x 10 MB/s = 10 MB/s: 100 s, not the KIP's 33 s", "100"),
    ("04", 2): Exercise(
        "R = 3, IN = 10 MB/s: at or below which throttle (MB/s) does the move never finish?",
        lambda: 3 * 10.0, "MB/s",
        "the leader's quota counts the 2 in-sync followers too: T must exceed R x IN", "30"),
    ("05", 1): Exercise(
        "A record with a 16-byte key and a 1,000-byte value on topic 'orders': how many bytes "
        "does KIP-770 count?", _record_bytes, "bytes",
        "key + value + 8 (offset) + 8 (timestamp) + the topic's 6 UTF-8 bytes + 4 (partition)",
        "1042"),
    ("05", 2): Exercise(
        "input.buffer.max.bytes = 512 MiB, 4 stream threads and a global thread: each thread's "
        "share in bytes?", _thread_share, "bytes",
        "the global thread counts too: 536,870,912 // 5", "107374182"),
    ("06", 1): Exercise(
        "Lesson 6's grid at fetch.max.bytes 16 MiB, max.partition.fetch.bytes 2 MiB, Kafka 4.3: "
        "the bound in MiB?", lambda: _grid_bound_mib("4.3"), "MiB",
        "10 brokers x min(16 MiB, 12 partitions x 2 MiB)", "160"),
    ("06", 2): Exercise(
        "The same cell on Kafka 3.9?", lambda: _grid_bound_mib("3.9"), "MiB",
        "120 partitions x 2 MiB: a completed fetch of every partition, plus the 16 MiB response "
        "being drained", "256"),
    ("07", 1): Exercise(
        "A share fetch with MaxBytes 1,000,000 reads 3 partitions, all 3 acquired: how many "
        "bytes may the largest partition return?", _largest_uniform_share, "bytes",
        "1,000,000 // 3 = 333,333 each and the remainder, 1, to one random partition "
        "(PartitionMaxBytesStrategy.UNIFORM)", "333_334"),
    ("07", 2): Exercise(
        "A share group of 12 consumers reads a topic of 5 partitions: at most how many consumers "
        "share one partition?", _sharing, "consumers",
        "ceil(12 / 5) = 3 members per partition (SimpleAssignor)", "3"),
    ("07", 3): Exercise(
        "group.share.partition.max.record.locks is 2000 and producers write batches of 500 "
        "records: at most how many records can be in flight on a partition?", _in_flight,
        "records", "2,000 + 500 - 1: acquisition runs to the end of the log batch holding the "
        "last record the cap allows (Kafka's code, not the KIP's text)", "2499"),
    ("08", 1): Exercise(
        "On Kafka 4.1, a consumer catches up on 8 remote partitions of one broker: how many "
        "remote reads can one fetch request start?", _l8_reads_per_request, "reads",
        "before 4.2 ReplicaManager kept only the first remote partition's "
        "RemoteStorageFetchInfo (KAFKA-14915)", "1"),
    ("08", 2): Exercise(
        "remote.log.manager.copy.max.bytes.per.second = 100 MiB/s, 1 GiB segments: how many "
        "seconds apart are two uploads?", _l8_copy_gap_s, "s",
        "the whole segment is recorded at once; SimpleRate spreads it over 10.24 s, the copy "
        "thread checks every second, and after 11 s the 11 windows have dropped it", "11",
        rel_tol=0.01),
    ("08", 3): Exercise(
        "A TokenBucket of 5 units/s is at -20 credits: what throttle time (ms) does "
        "ControllerMutationQuotaManager give?", _l8_bucket_throttle_ms, "ms",
        "-credits / quota x 1000 = 20 / 5 x 1000: the time the refill needs to get back to 0",
        "4000"),
}
"""Every exercise, by (lesson, number)."""


@dataclass(frozen=True)
class Verdict:
    """The outcome of :func:`check`: ``ok`` and a message that says why (``str()``)."""

    ok: bool
    message: str

    def __str__(self) -> str:
        return self.message

    def __bool__(self) -> bool:
        return self.ok


def exercises_for(lesson: str) -> list[tuple[int, Exercise]]:
    """A lesson's exercises in order."""
    return sorted((n, e) for (l_, n), e in EXERCISES.items() if l_ == lesson)


def _exercise(lesson: str | int, number: int) -> Exercise:
    key = (str(lesson).zfill(2), number)
    if key not in EXERCISES:
        raise ValueError(f"no exercise {number} in lesson {lesson!r}; there are "
                         f"{', '.join(f'{a} {b}' for a, b in sorted(EXERCISES))}")
    return EXERCISES[key]


def answer(lesson: str | int, number: int) -> float:
    """The answer the package computes for exercise ``number`` of ``lesson``."""
    return _exercise(lesson, number).answer()


def question(lesson: str, number: int) -> str:
    """The text of exercise ``number`` of ``lesson`` (``"07"``)."""
    return _exercise(lesson, number).question


def check(lesson: str | int, number: int, answer: float | None) -> Verdict:
    """The verdict on ``answer`` to exercise ``number`` of ``lesson``, with the reason; it
    prints as its message and is true when right (``None``: the question, not answered yet)."""
    e = _exercise(lesson, number)
    if answer is None:
        return Verdict(False, f"Not answered yet: {e.question}")
    right = e.answer()
    if isinstance(answer, bool) or not isinstance(answer, int | float):
        return Verdict(False, f"Not yet: answer with a number of {e.unit}: {answer!r}.")
    if math.isclose(answer, right, rel_tol=e.rel_tol, abs_tol=1e-9):
        return Verdict(True, f"Right: {answer:,.10g} {e.unit}. {e.why[0].upper()}{e.why[1:]}.")
    return Verdict(False, f"Not yet: {answer:,.10g} {e.unit}; kipviz computes {right:,.10g} "
                          f"{e.unit}: {e.why}.")
