"""KIP-932 share groups: how a share fetch's bytes are split, and one share partition's records.

* ``PartitionMaxBytesStrategy.UNIFORM`` (``server/.../share/fetch/PartitionMaxBytesStrategy``):
  the request's ``MaxBytes`` (``fetch.max.bytes``, capped by the broker's ``fetch.max.bytes`` and
  the fetch quota as for any fetch:
  :func:`kipviz.kafka.fetch.response.effective_response_max_bytes`) over the partitions being read,
  given how many the request acquired. Case 1, bytes >= acquired: each gets ``bytes // acquired``
  and one random partition also the remainder ``bytes % acquired``. Case 2, partitions <= bytes <
  acquired: the same over the partitions read. Case 3, bytes < partitions: one byte each to
  ``bytes`` partitions in a row, from a random index, wrapping. Kafka draws from a static
  ``Random``; here from a seeded ``numpy`` generator, once where Kafka calls ``nextInt`` (only when
  there is a remainder in cases 1 and 2; always in case 3).
* :class:`SharePartition` wraps :mod:`kipviz.kafka.share.partition`'s and
  :mod:`kipviz.kafka.share.acquire`'s functions (``SharePartition``'s
  acquire / acknowledge / lock timeout rules) for one partition. The client sends ``MaxRecords``
  and ``BatchSize`` both = ``max.poll.records`` (500) (``ShareSessionHandler``).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import TypeVar

import numpy as np

from kipviz.kafka.config.checks import check_choice
from kipviz.kafka.config.checks import check_int as _check_int
from kipviz.kafka.config.declarations import BROKER, CONSUMER
from kipviz.kafka.config.fields import check_setting
from kipviz.kafka.config.versions import NEWEST_KAFKA_VERSION
from kipviz.kafka.fetch.response import BROKER_FETCH_MAX_BYTES, effective_response_max_bytes
from kipviz.kafka.share import acquire as sa
from kipviz.kafka.share import partition as spf
from kipviz.kafka.share.releases import acquire_settings, in_flight_bound

__all__ = [
    "DELIVERY_COUNT_LIMIT",
    "MAX_POLL_RECORDS",
    "PARTITION_MAX_RECORD_LOCKS",
    "RECORD_LOCK_DURATION_MS",
    "SHARE_ACQUIRE_MODES",
    "SharePartition",
    "in_flight_bound_records",
    "share_fetch_max_bytes",
    "uniform_partition_max_bytes",
    "uniform_split_into",
]

PARTITION_MAX_RECORD_LOCKS = BROKER.default_of("group.share.partition.max.record.locks")
RECORD_LOCK_DURATION_MS = BROKER.default_of("group.share.record.lock.duration.ms")
DELIVERY_COUNT_LIMIT = BROKER.default_of("group.share.delivery.count.limit")
MAX_POLL_RECORDS = CONSUMER.default_of("max.poll.records")  # a share fetch's MaxRecords
SHARE_ACQUIRE_MODES = ("batch_optimized", "record_limit")  # share.acquire.mode (KIP-1206)

P = TypeVar("P", bound=Hashable)


def share_fetch_max_bytes(fetch_max_bytes: int,
                          broker_fetch_max_bytes: int = BROKER_FETCH_MAX_BYTES,
                          fetch_quota_bytes_per_s: float | None = None) -> int:
    """The bytes a share fetch may return (``KafkaApis.handleShareFetchRequest``): the same caps
    as any consumer fetch, min(``MaxBytes``, broker ``fetch.max.bytes``, the fetch quota's window
    bytes) (:func:`kipviz.kafka.fetch.response.effective_response_max_bytes`).

    >>> share_fetch_max_bytes(52_428_800), share_fetch_max_bytes(52_428_800, 10_485_760)
    (52428800, 10485760)
    """
    return effective_response_max_bytes(fetch_max_bytes, broker_fetch_max_bytes,
                                        fetch_quota_bytes_per_s)


def in_flight_bound_records(max_record_locks: int, largest_batch_records: int) -> int:
    """The most records a share partition can have in flight: ``max.record.locks +
    largest batch - 1``. ``SharePartition.acquire`` takes new records to the end of the log batch
    holding the last one the cap allows (``lastOffsetFromBatchWithRequestOffset``): Kafka's
    ``testAcquireWithMaxInFlightRecordsAndTryAcquireNewBatch`` ends with 25 in flight under a cap
    of 20. Kafka's code, not the KIP's text (which reads as a hard cap).

    >>> in_flight_bound_records(2000, 500), in_flight_bound_records(20, 10)
    (2499, 29)
    """
    # wider than ShareGroupConfig's between(100, 10000): the lessons' small what-ifs
    check_setting("max_record_locks", max_record_locks,
                  BROKER["group.share.partition.max.record.locks"], at_least=1, at_most=None)
    _check_int("largest_batch_records (records in the largest log batch)",
               largest_batch_records, 1)
    bound = in_flight_bound(NEWEST_KAFKA_VERSION, max_record_locks, largest_batch_records)
    assert bound is not None
    return bound


def uniform_split_into(request_max_bytes: int, partitions: int, acquired_partitions: int,
                       random_index: int, out: np.ndarray) -> None:
    """The UNIFORM split on arrays: ``out[i]`` for the i-th partition read, ``random_index`` in
    ``range(partitions)`` being Kafka's ``RANDOM.nextInt(partitions)`` (unused when there is no
    remainder in cases 1 and 2). Plain loops: numba compiles it."""
    if request_max_bytes >= partitions:
        share = acquired_partitions if request_max_bytes >= acquired_partitions else partitions
        each = request_max_bytes // share
        out[:partitions] = each
        out[random_index] = each + request_max_bytes % share
    else:
        out[:partitions] = 0
        for k in range(request_max_bytes):
            out[(random_index + k) % partitions] = 1


def uniform_partition_max_bytes(request_max_bytes: int, partitions: Sequence[P],
                                acquired_partitions: int, *,
                                rng: np.random.Generator | None = None) -> dict[P, int]:
    """``PartitionMaxBytesStrategy.UNIFORM``: each partition's ``max_bytes``, in the order of
    ``partitions``. ``rng`` (default: seeded with 0) stands for Kafka's static ``Random``.

    >>> tps = [f"t-{i}" for i in range(7)]
    >>> sorted(uniform_partition_max_bytes(1_000_000, tps, 7).values())
    [142857, 142857, 142857, 142857, 142857, 142857, 142858]
    >>> set(uniform_partition_max_bytes(1_000_000, tps, 10).values())
    {100000}
    >>> list(uniform_partition_max_bytes(3, tps, 7, rng=np.random.default_rng(1)).values())
    [0, 0, 0, 1, 1, 1, 0]
    """
    parts = list(partitions)
    if not parts:
        raise ValueError(f"partitions (the share fetch's partitions to read) must be non-empty: "
                         f"{parts!r}")
    if len(set(parts)) != len(parts):
        raise ValueError(f"partitions must be distinct (a set in Kafka): {parts!r}")
    _check_int("request_max_bytes (share fetch MaxBytes)", request_max_bytes, 1)
    _check_int("acquired_partitions", acquired_partitions, 1)
    n = len(parts)
    rng = np.random.default_rng(0) if rng is None else rng
    share = acquired_partitions if request_max_bytes >= acquired_partitions else n
    draws = request_max_bytes < n or request_max_bytes % share != 0
    index = int(rng.integers(n)) if draws else 0
    out = np.zeros(n, dtype=np.int64)
    uniform_split_into(request_max_bytes, n, acquired_partitions, index, out)
    return dict(zip(parts, out.tolist(), strict=True))


class SharePartition:
    """One partition of one share group (``SharePartition``), over a log of record batches.

    ``batch_records`` are the record counts of the log's batches in offset order. Members are
    ints. ``acquire`` reads the log from ``fetch_offset`` (default: the next fetch offset) up to
    ``fetched_last_offset`` (default: the log end) and returns the offsets acquired, by the rules
    of ``kafka_version`` (:func:`kipviz.kafka.share.releases.acquire_settings`; 4.0 has no
    ``BatchSize``, so ``batch_size`` is unused there).

    ``SharePartitionTest.testAcquisitionLockTimeoutCauseMaxDeliveryCountExceed``:

    >>> sp = SharePartition([10, 10], max_delivery_count=2, lock_duration_ms=100)
    >>> len(sp.acquire(0, fetch_offset=0, fetched_last_offset=9, now_ms=0))
    10
    >>> len(sp.acquire(0, fetch_offset=10, now_ms=0))
    10
    >>> sp.expire_locks(120), sp.next_fetch_offset, sp.delivery_count(10)
    (20, 0, 1)
    >>> len(sp.acquire(0, fetch_offset=10, now_ms=120)), sp.delivery_count(10)
    (10, 2)
    >>> sp.expire_locks(240), sp.state(10) == spf.ARCHIVED, sp.start_offset
    (0, True, 0)
    """

    def __init__(self, batch_records: Sequence[int], *,
                 max_in_flight_records: int = PARTITION_MAX_RECORD_LOCKS,
                 max_delivery_count: int = DELIVERY_COUNT_LIMIT,
                 lock_duration_ms: int = RECORD_LOCK_DURATION_MS,
                 acquire_mode: str = "batch_optimized", batch_size: int = MAX_POLL_RECORDS,
                 start_offset: int = 0, kafka_version: str = NEWEST_KAFKA_VERSION) -> None:
        sizes = [_check_int("batch_records (records in a log batch)", b, 1) for b in batch_records]
        # ShareGroupConfig's between(...) ranges are wider here (>= 1), as in the scenario
        self.max_in_flight_records = check_setting(
            "max_in_flight_records", max_in_flight_records,
            BROKER["group.share.partition.max.record.locks"], at_least=1, at_most=None)
        self.max_delivery_count = check_setting(
            "max_delivery_count", max_delivery_count, BROKER["group.share.delivery.count.limit"],
            at_least=1, at_most=None)
        self.lock_duration_ms = check_setting(
            "lock_duration_ms", lock_duration_ms, BROKER["group.share.record.lock.duration.ms"],
            at_least=1, at_most=None)
        check_choice("acquire_mode (share.acquire.mode)", acquire_mode, SHARE_ACQUIRE_MODES)
        self.record_limit = acquire_mode == "record_limit"
        self.batch_size = _check_int("batch_size (share fetch BatchSize)", batch_size, 1)
        self.log_end = start_offset + sum(sizes)
        self.batch_last = np.arange(self.log_end, dtype=np.int64)
        o = start_offset
        for size in sizes:
            self.batch_last[o : o + size] = o + size - 1
            o += size
        self.part = spf.new_share_partition(self.log_end)  # the state the rules change
        self.sp, self.record_state, self.owner = self.part.sp, self.part.record_state, \
            self.part.owner
        self.delivery, self.lock_expiry_ms = self.part.delivery_count, self.part.lock_expiry_ms
        self.inflight_last, self.split = self.part.inflight_last, self.part.split
        self.sp[:] = (start_offset, start_offset, 0)
        self.kafka_version = kafka_version
        self.settings = acquire_settings(  # the release's rules (kipviz.kafka.share.releases)
            kafka_version, max_record_locks=self.max_in_flight_records,
            delivery_count_limit=self.max_delivery_count, acquire_mode=acquire_mode,
            max_poll_records=self.batch_size, lock_duration_ms=self.lock_duration_ms)

    @property
    def start_offset(self) -> int:
        """SPSO: the first record not yet acknowledged or archived."""
        return int(self.sp[0])

    @property
    def in_flight_records(self) -> int:
        """``SPEO - SPSO + 1`` while records are cached (the quantity the lock cap bounds)."""
        return spf.in_flight_records(self.sp)

    @property
    def next_fetch_offset(self) -> int:
        """Where the next share fetch reads the log from."""
        return spf.next_fetch_offset(self.sp, self.record_state)

    def state(self, offset: int) -> int:
        """The record's ``RecordState`` id (``share_partition.AVAILABLE`` ...)."""
        return int(self.record_state[offset])

    def delivery_count(self, offset: int) -> int:
        """How many times the record has been acquired."""
        return int(self.delivery[offset])

    def acquire(self, member: int, *, max_fetch_records: int = MAX_POLL_RECORDS,
                fetch_offset: int | None = None, fetched_last_offset: int | None = None,
                now_ms: int = 0) -> list[int]:
        """Acquire for ``member`` from the fetched data; the offsets acquired, in order."""
        first = self.next_fetch_offset if fetch_offset is None else fetch_offset
        last = self.log_end - 1 if fetched_last_offset is None else fetched_last_offset
        if first >= self.log_end or last < first:
            return []
        out = np.zeros(self.log_end, dtype=np.int64)
        n = sa.acquire(self.part, self.settings, self.batch_last, member, first, last,
                       max_fetch_records, now_ms, out)
        return out[:n].tolist()

    def acknowledge(self, member: int, first_offset: int, last_offset: int,
                    ack_type: int) -> int:
        """ACCEPT / RELEASE / REJECT ``first..last``; -1 if not all acquired by ``member``."""
        return spf.acknowledge(self.part, member, first_offset, last_offset, ack_type,
                               self.max_delivery_count)

    def expire_locks(self, now_ms: int) -> int:
        """Release the records whose lock expired by ``now_ms``; how many are available again
        (the others reached the delivery limit and are archived)."""
        return spf.expire_locks(self.part, self.max_delivery_count, now_ms)
