"""The tiered-fetch kernel's named column blocks: settings, loop state and output tables.

Numba takes namedtuples of numpy arrays (and of scalars) as arguments, so
:func:`kipviz.scenarios.tiered_fetch.kernel.tiered_kernel` gets three named blocks; the
``*_COLUMNS`` name the columns of its float64 tables. The remote fetch quota's window
(``remote.log.manager.fetch.quota.window.num`` x ``.window.size.seconds``) is Kafka's default.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from kipviz.kafka.config.declarations import BROKER
from kipviz.kafka.quotas.rate import new_rate

__all__ = ["DELIVERY_COLUMNS", "FETCH_COLUMNS", "OK", "OVERFLOW", "QUOTA_WINDOW_MS",
           "QUOTA_WINDOW_NUM", "READ_COLUMNS", "TieredSettings", "TieredState", "TieredTables",
           "new_state"]

OK, OVERFLOW = 0, 1  # kernel status: OVERFLOW when the output arrays are too short
QUOTA_WINDOW_NUM = BROKER.default_of("remote.log.manager.fetch.quota.window.num")  # 11
QUOTA_WINDOW_MS = 1000.0 * BROKER.default_of(
    "remote.log.manager.fetch.quota.window.size.seconds")  # 1 s
# columns of the float64 output tables
FETCH_COLUMNS = ("consumer", "sent_ms", "answered_ms", "local_bytes", "remote_bytes",
                 "reads_scheduled", "reads_served", "quota_throttled")
READ_COLUMNS = ("fetch", "partition", "submitted_ms", "started_ms", "done_ms", "bytes", "served")
DELIVERY_COLUMNS = ("fetch", "partition", "remote", "bytes", "lag_bytes")


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
    ms, bytes), and ``[clock, pending count]``."""

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


class TieredTables(NamedTuple):
    """The float64 output tables (rows of the ``*_COLUMNS``) and the rows used in each."""

    fetches: np.ndarray
    reads: np.ndarray
    deliveries: np.ndarray
    counts: np.ndarray


def new_state(order: np.ndarray, n_parts: np.ndarray, behind: np.ndarray, threads: int
              ) -> TieredState:
    """The state at t = 0 of consumers reading ``order`` (their first ``n_parts`` entries),
    partitions ``behind`` bytes behind the local log start, ``threads`` reader threads."""
    consumers, width = order.shape
    partitions = behind.shape[0]
    slots, pos = new_rate(QUOTA_WINDOW_NUM, False)
    return TieredState(order, n_parts, behind, np.zeros(partitions, np.float64),
                       np.zeros(consumers, np.float64), np.zeros(partitions, np.float64),
                       np.zeros(threads, np.float64), slots, pos,
                       np.zeros((threads + consumers * width + 16, 2), np.float64),
                       np.zeros(2, np.float64))
