"""The share-group kernel's named column blocks: its settings, inputs, state and outputs.

Numba takes namedtuples of numpy arrays (and of scalars) as arguments, so
:func:`kipviz.scenarios.share_group.kernel.share_group_kernel` gets a few named blocks instead
of dozens of positional arguments (as :mod:`kipviz.scenarios.consumer.columns` does for the
consumer kernel); ``DELIVERY_ROWS`` names the rows of the delivery table it fills.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

__all__ = ["ACKNOWLEDGED", "ACQUIRED", "DELIVERY_ROWS", "REDELIVERED", "ShareGroupInputs",
           "ShareGroupOutputs", "SharePartitionArrays", "ShareSettings"]


class ShareSettings(NamedTuple):
    """The run's numbers (Kafka settings in the scenario's units; per tick where said)."""

    ticks: int
    tick_ms: int
    brokers: int
    classic_consumers: int
    batch_records: int
    record_bytes: int
    produce_batches_per_tick: float
    initial_batches: int
    response_max_bytes: int  # the share fetch's MaxBytes (fetch.max.bytes, capped)
    max_poll_records: int  # MaxRecords
    max_locks: int  # group.share.partition.max.record.locks
    lock_ms: int  # group.share.record.lock.duration.ms
    max_delivery: int  # group.share.delivery.count.limit
    record_limit: bool  # share.acquire.mode=record_limit
    batch_size: int  # the acquire batch size (max.poll.records)
    process_per_tick: float  # records a consumer processes per tick


class ShareGroupInputs(NamedTuple):
    """Who reads what: share assignment ``[consumer, partition]``, each partition's classic
    consumer, stalled share consumers, the random draws of the UNIFORM split, and the last
    offset of the log batch holding each offset ``[partition, offset]``."""

    assign: np.ndarray
    classic_owner: np.ndarray
    stalled: np.ndarray
    draws: np.ndarray
    batch_last: np.ndarray


class SharePartitionArrays(NamedTuple):
    """:func:`kipviz.kafka.share.partition.new_share_partition`'s arrays, one row per partition."""

    sp: np.ndarray
    rec_state: np.ndarray
    delivery: np.ndarray
    lock_exp: np.ndarray
    owner: np.ndarray
    inflight_last: np.ndarray
    split: np.ndarray


ACQUIRED, REDELIVERED, ACKNOWLEDGED = range(3)  # a tick's counts per [consumer, partition]
DELIVERY_ROWS = ("tick", "consumer", "partition", "acquired", "redelivered", "acknowledged")


class ShareGroupOutputs(NamedTuple):
    """What the kernel fills: ``deliveries`` (the ``DELIVERY_ROWS`` by column, one per
    consumer and partition with records acquired, redelivered or acknowledged in a tick, in
    tick, consumer, partition order; the kernel returns how many), per tick ``[tick,
    consumer]`` held and processed records, ``[tick, partition]`` partition numbers and
    ``[tick, classic consumer]`` records the classic group consumed."""

    deliveries: np.ndarray
    held: np.ndarray
    processed: np.ndarray
    in_flight: np.ndarray
    start_offset: np.ndarray
    archived: np.ndarray
    log_end: np.ndarray
    classic_consumed: np.ndarray
