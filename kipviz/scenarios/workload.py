"""Produce-rate profiles and the record batches they write, deterministic for a seed.

A workload says how fast each partition grows; :func:`produce` turns it into the record batches a
Kafka producer would append, tick by tick, as a compressed-sparse table per partition (the layout
scenarios read from). Batching follows the producer: records of ``record_bytes`` fill a batch up to
``batch.size`` (16384 by default); the batch open at the end of a tick is sent (``linger.ms`` of
one tick); a record bigger than ``batch.size`` travels alone. Every batch carries Kafka's 61-byte
record batch header (``DefaultRecordBatch.RECORD_BATCH_OVERHEAD``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Literal, NamedTuple

import numpy as np

from kipviz.kafka.config.checks import check_int
from kipviz.kafka.config.fields import check_declared, choice, knob
from kipviz.scenarios.limits import WORKLOAD_BLOCK_CELLS, check_workload

__all__ = ["RECORD_BATCH_OVERHEAD_BYTES", "Batches", "Workload", "partition_rates", "produce"]

RECORD_BATCH_OVERHEAD_BYTES = 61
Profile = Literal["uniform", "zipf", "fast_slow", "bursts"]
PROFILES: tuple[str, ...] = ("uniform", "zipf", "fast_slow", "bursts")


@dataclass(frozen=True)
class Workload:
    """How records arrive: total produce rate, how it is spread, record and batch sizes.

    Profiles: ``uniform``; ``zipf`` (partition k gets a share proportional to 1 / k**zipf_s);
    ``fast_slow`` (the KIP-74 example: the first ``fast_fraction`` of partitions produce
    ``fast_to_slow_ratio`` times faster than the rest); ``bursts`` (uniform, and every
    ``burst_period_ms`` a seeded ``burst_fraction`` of partitions produce ``burst_multiplier``
    times faster for ``burst_duration_ms``). ``initial_lag_bytes`` is a backlog every partition
    has at time 0 (a consumer catching up); ``large_record_bytes`` makes the last partition write
    records of that size (to show the first-batch exception).
    """

    profile: Profile = choice("uniform", PROFILES)
    produce_bytes_per_s: float = knob(10e6, at_least=0, number=True)
    record_bytes: int = knob(1024, at_least=1)
    # the producer's batch.size (ProducerConfig, atLeast(0))
    batch_size_bytes: int = knob(16384, at_least=0, label="batch.size")
    # at 10 the second partition gets 1/1024 of the first one's rate; beyond, partition powers
    # overflow a float for large partition counts
    zipf_s: float = knob(1.1, at_least=0, at_most=10, number=True)
    fast_fraction: float = knob(0.5, at_least=0, at_most=1, number=True)
    # a million: the slow partitions get nothing a run of hours would show
    fast_to_slow_ratio: float = knob(10.0, at_least=1, at_most=1e6, number=True)
    burst_period_ms: int = knob(5000, at_least=1)
    burst_duration_ms: int = knob(1000, at_least=0)  # and <= burst_period_ms
    burst_fraction: float = knob(0.1, at_least=0, at_most=1, number=True)
    burst_multiplier: float = knob(20.0, at_least=1, number=True)
    initial_lag_bytes: int = knob(0, at_least=0)
    large_record_bytes: int = knob(0, at_least=0)

    def __post_init__(self) -> None:
        check_declared(self)  # each field's rule (kipviz.kafka.config.fields)
        if self.burst_duration_ms > self.burst_period_ms:
            raise ValueError(f"burst_duration_ms must be <= burst_period_ms "
                             f"({self.burst_period_ms}): {self.burst_duration_ms}")


def partition_rates(workload: Workload, partitions: int) -> np.ndarray:
    """Mean produce rate of each partition in bytes per second (they sum to the total)."""
    check_int("partitions", partitions, 1)
    if workload.profile == "zipf":
        weights = 1.0 / np.arange(1, partitions + 1) ** workload.zipf_s
    elif workload.profile == "fast_slow":
        fast = np.arange(partitions) < max(1, round(workload.fast_fraction * partitions))
        weights = np.where(fast, workload.fast_to_slow_ratio, 1.0)
    else:
        weights = np.ones(partitions)
    return workload.produce_bytes_per_s * weights / weights.sum()


@dataclass(frozen=True)
class Batches:
    """Record batches per partition, in append order (CSR layout).

    Partition p owns entries ``start[p]:start[p + 1]``: ``size_bytes`` of each batch and the
    ``tick`` it is appended in (backlog batches have tick 0).
    """

    start: np.ndarray  # int64, partitions + 1
    size_bytes: np.ndarray  # int64
    tick: np.ndarray  # int32

    @classmethod
    def backlog(cls, sizes: Sequence[Sequence[int]]) -> Batches:
        """A backlog already on the log: ``sizes[p]`` are partition p's batch sizes, oldest
        first, all at tick 0 (what a real broker stored, :mod:`kipviz.reality`)."""
        flat = np.array([b for part in sizes for b in part], dtype=np.int64)
        start = np.cumsum([0, *[len(part) for part in sizes]]).astype(np.int64)
        return cls(start=start, size_bytes=flat, tick=np.zeros(flat.size, dtype=np.int32))

    @property
    def partitions(self) -> int:
        return len(self.start) - 1

    def of(self, partition: int) -> np.ndarray:
        """Sizes of one partition's batches."""
        return self.size_bytes[self.start[partition] : self.start[partition + 1]]

    @cached_property
    def by_time(self) -> TimeOrderedBatches:
        """The same batches in append order across partitions (computed once).

        Simulations read batches near the log end of every partition each tick; in time order
        those reads stay close together in memory, and producers append by walking forward.
        """
        n = self.size_bytes.size
        order = np.argsort(self.tick, kind="stable")  # ties keep partition order
        position = np.empty(n, dtype=np.int64)
        position[order] = np.arange(n)
        counts = np.diff(self.start)
        partition = np.repeat(np.arange(self.partitions, dtype=np.int64), counts)
        last = np.zeros(n, dtype=bool)
        last[self.start[1:][counts > 0] - 1] = True
        following = np.where(last, n, position[np.minimum(np.arange(1, n + 1), n - 1)])
        next_batch = np.empty(n, dtype=np.int64)
        next_batch[position] = following
        first = np.full(self.partitions, n, dtype=np.int64)
        first[counts > 0] = position[self.start[:-1][counts > 0]]
        return TimeOrderedBatches(size_bytes=self.size_bytes[order], tick=self.tick[order],
                                  partition=partition[order], next_batch=next_batch, first=first)


class TimeOrderedBatches(NamedTuple):
    """Batches in append order: ``next_batch[k]`` is the same partition's next batch (or n),
    ``first[p]`` partition p's first batch (or n)."""

    size_bytes: np.ndarray
    tick: np.ndarray
    partition: np.ndarray
    next_batch: np.ndarray
    first: np.ndarray


def _record_sizes(workload: Workload, partitions: int) -> np.ndarray:
    sizes = np.full(partitions, workload.record_bytes, dtype=np.int64)
    if workload.large_record_bytes:
        sizes[-1] = workload.large_record_bytes
    return sizes


def produce(workload: Workload, partitions: int, ticks: int, tick_ms: int, *, seed: int) -> Batches:
    """The batches producers append over ``ticks`` ticks of ``tick_ms``; same seed, same batches.

    Records per tick and partition are Poisson with the profile's mean, so rates fluctuate as real
    traffic does; the backlog is written as full batches at tick 0. The size is checked first
    (:func:`kipviz.scenarios.limits.check_workload`); the draws are made a block of ticks at a
    time and only the (tick, partition) cells that got records are kept, so memory follows the
    records written rather than ticks x partitions.
    """
    check_int("partitions", partitions, 1)
    check_int("ticks", ticks, 1)
    check_int("tick_ms", tick_ms, 1)
    check_workload(workload, partitions, ticks, tick_ms)
    rng = np.random.default_rng(seed)
    rates = partition_rates(workload, partitions)
    record = _record_sizes(workload, partitions)
    per_tick = rates * tick_ms / 1000.0
    bursts = _burst_cells(workload, partitions, ticks, tick_ms, rng)  # drawn before the records
    block = max(1, WORKLOAD_BLOCK_CELLS // partitions)
    found: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    for first in range(0, ticks, block):
        last = min(ticks, first + block)
        mean_bytes = np.broadcast_to(per_tick, (last - first, partitions)).copy()
        for burst_start, duration, hot in bursts:
            lo, hi = max(first, burst_start), min(last, burst_start + duration)
            if lo < hi:
                mean_bytes[lo - first : hi - first, hot] *= workload.burst_multiplier
        counts = rng.poisson(mean_bytes / record).astype(np.int64)  # the same draws, in order
        if first == 0:
            counts[0] += workload.initial_lag_bytes // record
        tick, part = np.nonzero(counts)  # tick-major: each partition's cells in tick order
        found.append((tick + first, part, counts[tick, part]))
    tick, part, count = (np.concatenate(column) for column in zip(*found, strict=True))
    by_partition = np.argsort(part, kind="stable")  # partition-major, ticks still in order
    tick, part, count = tick[by_partition], part[by_partition], count[by_partition]
    per_batch: np.ndarray = np.maximum(1, workload.batch_size_bytes // record)  # records per batch
    full, rest = count // per_batch[part], count % per_batch[part]
    n_cell = full + (rest > 0)
    cell = np.repeat(np.arange(n_cell.size), n_cell)
    first_of_cell = np.repeat(np.cumsum(n_cell) - n_cell, n_cell)
    rank = np.arange(cell.size) - first_of_cell
    is_last = rank == np.repeat(n_cell, n_cell) - 1
    batch_part = part[cell]
    records = np.where(is_last & (rest[cell] > 0), rest[cell], per_batch[batch_part])
    size = records * record[batch_part] + RECORD_BATCH_OVERHEAD_BYTES
    batches_before = np.concatenate([[0], np.cumsum(n_cell)])  # by cell, partition-major
    start = batches_before[np.searchsorted(part, np.arange(partitions + 1))].astype(np.int64)
    return Batches(start=start, size_bytes=size.astype(np.int64), tick=tick[cell].astype(np.int32))


def _burst_cells(workload: Workload, partitions: int, ticks: int, tick_ms: int,
                 rng: np.random.Generator) -> list[tuple[int, int, np.ndarray]]:
    """The bursts of a ``bursts`` workload (none for another profile): (first tick, ticks,
    the partitions it makes hot), drawn from ``rng`` in time order."""
    if workload.profile != "bursts":
        return []
    period = max(1, workload.burst_period_ms // tick_ms)
    duration = workload.burst_duration_ms // tick_ms
    return [(burst_start, duration, rng.random(partitions) < workload.burst_fraction)
            for burst_start in range(0, ticks, period)]
