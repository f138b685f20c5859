"""The tiered-fetch kernel's named column blocks: settings, loop state and output tables.

Numba takes namedtuples of numpy arrays (and of scalars) as arguments, so
:func:`kipviz.scenarios.tiered_fetch.kernel.tiered_kernel` gets three named blocks; its output
tables are blocks of float64 columns named as the trace's (:class:`FetchRows`,
:class:`ReadRows`, :class:`DeliveryRows`). The remote fetch quota's window
(``remote.log.manager.fetch.quota.window.num`` x ``.window.size.seconds``) is Kafka's default.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from kipviz.kafka.config.declarations import BROKER
from kipviz.kafka.quotas.rate import new_rate

__all__ = ["CLOCK", "DELIVERY_COLUMNS", "DELIVERY_ROWS", "FETCH_COLUMNS", "FETCH_ROWS", "OK",
           "OVERFLOW", "PENDING", "QUOTA_WINDOW_MS", "QUOTA_WINDOW_NUM", "READ_COLUMNS",
           "READ_ROWS", "DeliveryRows", "FetchRows", "ReadRows", "TieredSettings", "TieredState",
           "TieredTables", "new_state", "new_tables"]

OK, OVERFLOW = 0, 1  # kernel status: OVERFLOW when the output arrays are too short
QUOTA_WINDOW_NUM = BROKER.default_of("remote.log.manager.fetch.quota.window.num")  # 11
QUOTA_WINDOW_MS = 1000.0 * BROKER.default_of(
    "remote.log.manager.fetch.quota.window.size.seconds")  # 1 s
FETCH_ROWS, READ_ROWS, DELIVERY_ROWS = 0, 1, 2  # entries of TieredTables.counts
CLOCK, PENDING = 0, 1  # entries of TieredState.scalars


class FetchRows(NamedTuple):
    """The ``fetches`` table, one row per fetch request answered (float64 columns)."""

    consumer: np.ndarray
    sent_ms: np.ndarray
    answered_ms: np.ndarray
    local_bytes: np.ndarray
    remote_bytes: np.ndarray
    reads_scheduled: np.ndarray
    reads_served: np.ndarray
    quota_throttled: np.ndarray


class ReadRows(NamedTuple):
    """The ``reads`` table, one row per remote read scheduled (float64 columns)."""

    fetch: np.ndarray
    partition: np.ndarray
    submitted_ms: np.ndarray
    started_ms: np.ndarray
    done_ms: np.ndarray
    bytes: np.ndarray
    served: np.ndarray


class DeliveryRows(NamedTuple):
    """The ``deliveries`` table, one row per partition that returned data (float64 columns)."""

    fetch: np.ndarray
    partition: np.ndarray
    remote: np.ndarray
    bytes: np.ndarray
    lag_bytes: np.ndarray


FETCH_COLUMNS = FetchRows._fields
READ_COLUMNS = ReadRows._fields
DELIVERY_COLUMNS = DeliveryRows._fields


class TieredSettings(NamedTuple):
    """The run's numbers: Kafka's settings, the remote store's speed, the version switches."""

    produce_bytes_per_ms: float  # per partition
    batch_bytes: int
    segment_bytes: int  # log.segment.bytes
    partition_max: int  # max.partition.fetch.bytes
    fetch_max: int  # fetch.max.bytes
    several: bool  # several remote partitions per request (4.2, KAFKA-14915)
    charge: bool  # remote partitions charged up front (4.2, KAFKA-19462)
    threads: int  # remote.log.reader.threads
    max_pending: int  # remote.log.reader.max.pending.tasks: the reader pool's queue
    read_latency_ms: float
    read_bytes_per_ms: float  # one reader thread's transfer rate
    wait_ms: float  # DelayedRemoteFetch's timeout
    fetch_max_wait_ms: float  # fetch.max.wait.ms
    rtt_ms: float
    quota_bound: float  # remote.log.manager.fetch.max.bytes.per.second (UNLIMITED: none)
    duration_ms: float


class TieredState(NamedTuple):
    """The loop's state, so a run that filled its tables can go on in bigger ones: each
    consumer's request order (``[consumer, slot]``) and partition count, each partition's bytes
    behind the local log start and bytes available locally, next send per consumer, when each
    partition's produced bytes were last added, each reader thread's free time, the fetch
    quota's rate (:mod:`kipviz.kafka.quotas.rate`'s slots and pos), pending reads to record (done
    ms, bytes), ``[clock, pending count]``, and when each read in the reader pool's queue leaves
    it (taken by a thread; <= now: a free place)."""

    order: np.ndarray
    n_parts: np.ndarray
    behind: np.ndarray
    avail: np.ndarray
    next_send: np.ndarray
    avail_at: np.ndarray
    thread_free: np.ndarray
    slots: np.ndarray
    pos: np.ndarray
    pend: np.ndarray
    scalars: np.ndarray
    queued: np.ndarray


class TieredTables(NamedTuple):
    """The output tables and the rows used in each (``counts``, at ``FETCH_ROWS``,
    ``READ_ROWS`` and ``DELIVERY_ROWS``)."""

    fetches: FetchRows
    reads: ReadRows
    deliveries: DeliveryRows
    counts: np.ndarray


def new_state(order: np.ndarray, n_parts: np.ndarray, behind: np.ndarray, threads: int,
              max_pending: int) -> TieredState:
    """The state at t = 0 of consumers reading ``order`` (their first ``n_parts`` entries),
    partitions ``behind`` bytes behind the local log start, ``threads`` reader threads over a
    queue of ``max_pending`` reads."""
    consumers, width = order.shape
    partitions = behind.shape[0]
    slots, pos = new_rate(QUOTA_WINDOW_NUM, False)
    return TieredState(order=order, n_parts=n_parts, behind=behind,
                       avail=np.zeros(partitions, np.float64),
                       next_send=np.zeros(consumers, np.float64),
                       avail_at=np.zeros(partitions, np.float64),
                       thread_free=np.zeros(threads, np.float64), slots=slots, pos=pos,
                       pend=np.zeros((threads + consumers * width + 16, 2), np.float64),
                       scalars=np.zeros(2, np.float64),
                       queued=np.full(max_pending, -1.0, np.float64))


def new_tables(fetches: int, reads: int, deliveries: int) -> TieredTables:
    """Empty tables with room for so many rows of each (pages untouched until written)."""
    return TieredTables(
        fetches=FetchRows(**{name: np.empty(fetches) for name in FetchRows._fields}),
        reads=ReadRows(**{name: np.empty(reads) for name in ReadRows._fields}),
        deliveries=DeliveryRows(**{name: np.empty(deliveries)
                                   for name in DeliveryRows._fields}),
        counts=np.zeros(3, np.int64))
