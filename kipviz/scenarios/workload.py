"""Produce-rate profiles and the record batches they write, deterministic for a seed.

A workload says how fast each partition grows; :func:`produce` turns it into the record batches a
Kafka producer would append, tick by tick, as a compressed-sparse table per partition (the layout
scenarios read from). Batching follows the producer: records of ``record_bytes`` fill a batch up to
``batch.size`` (16384 by default); the batch open at the end of a tick is sent (``linger.ms`` of
one tick); a record bigger than ``batch.size`` travels alone. Every batch carries Kafka's 61-byte
record batch header (``DefaultRecordBatch.RECORD_BATCH_OVERHEAD``).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Literal, NamedTuple

import numpy as np

from kipviz.kafka.config.checks import check_int
from kipviz.kafka.config.fields import check_declared, choice, knob

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
    zipf_s: float = knob(1.1, at_least=0, number=True)
    fast_fraction: float = knob(0.5, at_least=0, at_most=1, number=True)
    fast_to_slow_ratio: float = knob(10.0, at_least=1, number=True)
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
    traffic does; the backlog is written as full batches at tick 0.
    """
    check_int("ticks", ticks, 1)
    check_int("tick_ms", tick_ms, 1)
    rng = np.random.default_rng(seed)
    rates = partition_rates(workload, partitions)
    record = _record_sizes(workload, partitions)
    mean_bytes = np.broadcast_to(rates * tick_ms / 1000.0, (ticks, partitions)).copy()
    if workload.profile == "bursts":
        period = max(1, workload.burst_period_ms // tick_ms)
        duration = workload.burst_duration_ms // tick_ms
        for burst_start in range(0, ticks, period):
            hot = rng.random(partitions) < workload.burst_fraction
            mean_bytes[burst_start : burst_start + duration, hot] *= workload.burst_multiplier
    counts = rng.poisson(mean_bytes / record).astype(np.int64)
    counts[0] += workload.initial_lag_bytes // record
    per_batch: np.ndarray = np.maximum(1, workload.batch_size_bytes // record)  # records per batch
    full, rest = counts // per_batch, counts % per_batch
    n_batches = full + (rest > 0)
    # cells in partition-major order, so each partition's batches are contiguous and in tick order
    n_cell = n_batches.T.ravel()
    cell = np.repeat(np.arange(n_cell.size), n_cell)
    first_of_cell = np.repeat(np.cumsum(n_cell) - n_cell, n_cell)
    rank = np.arange(cell.size) - first_of_cell
    part, tick = np.divmod(cell, ticks)
    is_last = rank == np.repeat(n_cell, n_cell) - 1
    records = np.where(is_last & (rest.T.ravel()[cell] > 0), rest.T.ravel()[cell], per_batch[part])
    size = records * record[part] + RECORD_BATCH_OVERHEAD_BYTES
    start = np.zeros(partitions + 1, dtype=np.int64)
    np.cumsum(n_batches.sum(axis=0), out=start[1:])
    return Batches(start=start, size_bytes=size.astype(np.int64), tick=tick.astype(np.int32))
