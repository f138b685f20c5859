"""The share-group kernel's named column blocks: its settings, inputs, scratch and outputs.

Numba takes namedtuples of numpy arrays (and of scalars) as arguments, so
:func:`kipviz.scenarios.share_group.kernel.share_group_kernel` gets a few named blocks instead
of dozens of positional arguments (as :mod:`kipviz.scenarios.consumer.columns` does for the
consumer kernel); :class:`DeliveryRows` are the columns of the delivery table it fills. Its
partitions' state is :class:`kipviz.kafka.share.partition.SharePartitionState`, a row per
partition.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from kipviz.kafka.share.acquire import AcquireSettings

__all__ = ["ACKNOWLEDGED", "ACQUIRED", "REDELIVERED", "DeliveryRows", "ShareGroupInputs",
           "ShareGroupOutputs", "ShareScratch", "ShareSettings"]


class ShareSettings(NamedTuple):
    """The run's numbers (Kafka settings in the scenario's units; per tick where said) and the
    group's ``acquire`` settings (:class:`kipviz.kafka.share.acquire.AcquireSettings`)."""

    ticks: int
    tick_ms: int
    brokers: int
    classic_consumers: int
    batch_records: int
    record_bytes: int
    produce_batches_per_tick: float
    initial_batches: int
    response_max_bytes: int  # the share fetch's MaxBytes (fetch.max.bytes, capped)
    max_poll_records: int  # max.poll.records
    max_fetch_records: int  # MaxRecords (4.0: none, INT_MAX)
    partition_max_bytes: int  # 4.0's PartitionMaxBytes; 0: the UNIFORM split (4.1 on)
    one_node_per_poll: bool  # record_limit from 4.2: one node fetches records (KAFKA-19767)
    fetch_out_len: int  # room for the offsets one share fetch acquires
    process_per_tick: float  # records a consumer processes per tick
    acquire: AcquireSettings


class ShareGroupInputs(NamedTuple):
    """Who reads what: share assignment ``[consumer, partition]``, each partition's classic
    consumer, stalled share consumers, the random draws of the UNIFORM split, and the last
    offset of the log batch holding each offset ``[offset]`` (every partition's log is cut into
    batches alike)."""

    assign: np.ndarray
    classic_owner: np.ndarray
    stalled: np.ndarray
    draws: np.ndarray
    batch_last: np.ndarray


class ShareScratch(NamedTuple):
    """The arrays one share fetch works in, made once per run rather than once per fetch: per
    partition fetched (in request order), its number, fetch offset, max bytes, first batch, log
    bytes, batch base and raw bytes; and the offsets acquired."""

    parts: np.ndarray
    fetch_offset: np.ndarray
    max_bytes: np.ndarray
    first: np.ndarray
    log: np.ndarray
    base: np.ndarray
    raw: np.ndarray
    out: np.ndarray


ACQUIRED, REDELIVERED, ACKNOWLEDGED = 0, 1, 2  # a tick's counts per [consumer, partition]


class DeliveryRows(NamedTuple):
    """The delivery table's columns (int64): one row per consumer and partition with records
    acquired, redelivered or acknowledged in a tick, in tick, consumer, partition order."""

    tick: np.ndarray
    consumer: np.ndarray
    partition: np.ndarray
    acquired: np.ndarray
    redelivered: np.ndarray
    acknowledged: np.ndarray


class ShareGroupOutputs(NamedTuple):
    """What the kernel fills: ``deliveries`` (:class:`DeliveryRows`; the kernel returns how many
    rows), per tick ``[tick, consumer]`` held and processed records, ``[tick, partition]``
    partition numbers and ``[tick, classic consumer]`` records the classic group consumed."""

    deliveries: DeliveryRows
    held: np.ndarray
    processed: np.ndarray
    in_flight: np.ndarray
    start_offset: np.ndarray
    archived: np.ndarray
    log_end: np.ndarray
    classic_consumed: np.ndarray
