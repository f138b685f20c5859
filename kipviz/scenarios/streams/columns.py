"""The Streams kernel's named column blocks: its inputs, settings and per-partition outputs.

Numba takes namedtuples of numpy arrays (and of scalars), so
:func:`kipviz.scenarios.streams.kernel.streams_kernel` gets a few named blocks instead of
sixteen positional arguments and seven output arrays. The output blocks' field names are the
trace's column names (:class:`ThreadTicks`) or name them (:class:`PartitionTicks`).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

__all__ = ["PartitionTicks", "StreamsPartitions", "StreamsSettings", "ThreadChanges",
           "ThreadTicks"]


class StreamsPartitions(NamedTuple):
    """Per partition: record size (bytes), records one poll fetches, initial lag (records)."""

    size: np.ndarray
    fetch_records: np.ndarray
    lag0: np.ndarray


class ThreadChanges(NamedTuple):
    """``KafkaStreams.addStreamThread`` / ``removeStreamThread``: at which tick, to how many."""

    tick: np.ndarray
    threads: np.ndarray


class StreamsSettings(NamedTuple):
    """The kernel's scalar settings (``policy``: a ``_streams_kernel.POLICY_CODES`` value)."""

    rate_per_ms: float  # records produced per partition per ms
    topics: int
    n_tasks: int
    threads0: int
    total_bytes: int  # input.buffer.max.bytes
    global_thread: int
    policy: int
    records_per_partition: int  # buffered.records.per.partition
    records_per_tick: float  # one thread's processing rate
    tick_ms: int
    ticks: int


class PartitionTicks(NamedTuple):
    """Per (tick, partition) outputs."""

    buffered: np.ndarray
    lag: np.ndarray
    paused: np.ndarray
    polled: np.ndarray
    processed: np.ndarray
    thread: np.ndarray


class ThreadTicks(NamedTuple):
    """Per (tick, thread slot) outputs, int64: ``alive`` (1 while the thread runs) and the
    ``threads`` table's columns of that name (:data:`kipviz.scenarios.streams.scenario.THREADS`)."""

    alive: np.ndarray
    share_bytes: np.ndarray
    polled_bytes: np.ndarray
    buffered_bytes_after_poll: np.ndarray
    buffered_bytes: np.ndarray
    buffered_records: np.ndarray
    processed_records: np.ndarray
    processed_bytes: np.ndarray
    demand_records: np.ndarray
    partitions: np.ndarray
    paused_partitions: np.ndarray
    paused_after_poll: np.ndarray
    nonempty_after_poll: np.ndarray
    lag_records: np.ndarray
