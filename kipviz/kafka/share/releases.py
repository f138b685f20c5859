"""KIP-932 by release: which share-group rules Kafka 4.0, 4.1, 4.2 and 4.3 run.

Each switch is a row of :data:`kipviz.kafka.config.versions.BEHAVIOURS` (area ``share``), each
default by release a declaration (:mod:`kipviz.kafka.config.declarations`); read on the 4.0 to
4.3 branches:

* 4.0 (early access): ``ShareFetchRequest`` v0 carries a ``PartitionMaxBytes`` per partition,
  the client's ``max.partition.fetch.bytes`` (``ShareFetchRequest.Builder.forConsumer``), and no
  ``MaxRecords``: the broker acquires everything it read (``share.fetch.max.fetch.records``,
  internal, ``Integer.MAX_VALUE``), as one in-flight batch. The lock cap
  (``group.share.partition.max.record.locks``, 200 then) is checked only before the fetch
  (``SharePartition.canAcquireRecords``).
* 4.1 (preview): v1 with ``MaxRecords`` and ``BatchSize`` (``max.poll.records``, KAFKA-19018),
  the bytes split by ``PartitionMaxBytesStrategy.UNIFORM`` (``DelayedShareFetch``), in-flight
  batches of ``BatchSize`` (KAFKA-18452); the lock cap 2000 (KAFKA-19245), still checked before
  the fetch only.
* 4.2 (generally available): the cap inside ``acquire`` (KAFKA-19555), the halving parts near the
  delivery limit (KAFKA-17541 part 2), ``share.acquire.mode`` (KIP-1206) and, in ``record_limit``
  mode, one node at a time (KAFKA-19767, :mod:`kipviz.kafka.share.consumer`).
* 4.3: group-level ``share.delivery.count.limit`` and ``share.partition.max.record.locks``
  (KIP-1240) and the assignment interval (KIP-1263): :mod:`kipviz.kafka.share.group`.

>>> share_fetch_version("4.0"), share_fetch_version("4.1"), share_fetch_version("4.3")
(0, 1, 2)
>>> default_max_record_locks("4.0"), default_max_record_locks("4.1")
(200, 2000)
>>> s = acquire_settings("4.1", max_record_locks=2000, delivery_count_limit=5,
...                      acquire_mode="batch_optimized", max_poll_records=500,
...                      lock_duration_ms=30_000)
>>> s.cap_in_acquire, s.throttle, s.batch_size
(False, False, 500)
"""

from __future__ import annotations

from kipviz.kafka.config.declarations import BROKER
from kipviz.kafka.config.versions import check_kafka_version, has
from kipviz.kafka.share.acquire import AcquireSettings

__all__ = [
    "INT_MAX",
    "acquire_settings",
    "check_share_version",
    "default_max_record_locks",
    "in_flight_bound",
    "max_fetch_records",
    "share_fetch_version",
]

INT_MAX = 2**31 - 1  # Java's Integer.MAX_VALUE: 4.0's share.fetch.max.fetch.records
_LOCKS = BROKER["group.share.partition.max.record.locks"]


def check_share_version(kafka_version: object) -> str:
    """``kafka_version`` when it is a release with share groups (4.0 on, KIP-932); ValueError
    otherwise."""
    version = check_kafka_version(kafka_version)
    if not has(version, "share_groups"):
        raise ValueError(f"kafka_version must be 4.0 or later (share groups, KIP-932): "
                         f"{kafka_version!r}")
    return version


def share_fetch_version(kafka_version: str) -> int:
    """The ``ShareFetchRequest`` version the release's consumer sends: 0 in 4.0 (a
    ``PartitionMaxBytes`` per partition), 1 in 4.1 (``MaxRecords``, ``BatchSize``), 2 from 4.2
    (``ShareAcquireMode``)."""
    version = check_share_version(kafka_version)
    if has(version, "share_acquire_mode"):
        return 2
    return 1 if has(version, "share_fetch_max_records") else 0


def default_max_record_locks(kafka_version: str) -> int:
    """``group.share.partition.max.record.locks``'s default in the release (200 in 4.0, 2000
    from 4.1: ``ShareGroupConfig``, KAFKA-19245)."""
    value = _LOCKS.default_in(check_share_version(kafka_version))
    assert value is not None
    return value


def max_fetch_records(kafka_version: str, max_poll_records: int) -> int:
    """The most records one share fetch asks the broker to acquire: ``max.poll.records``
    (``MaxRecords``) from 4.1, ``Integer.MAX_VALUE`` in 4.0 (no ``MaxRecords``; the broker's
    internal ``share.fetch.max.fetch.records``)."""
    if share_fetch_version(kafka_version) == 0:
        return INT_MAX
    return max_poll_records


def acquire_settings(kafka_version: str, *, max_record_locks: int, delivery_count_limit: int,
                     acquire_mode: str, max_poll_records: int,
                     lock_duration_ms: int) -> AcquireSettings:
    """The :class:`~kipviz.kafka.share.acquire.AcquireSettings` a release's share partitions
    acquire under: 4.0 keeps new records in one in-flight batch (``batch_size`` =
    ``Integer.MAX_VALUE``), 4.1 cuts them at ``BatchSize``; the cap inside ``acquire`` and the
    halving parts are 4.2's; ``record_limit`` needs 4.2 (KIP-1206)."""
    version = check_share_version(kafka_version)
    record_limit = acquire_mode == "record_limit"
    if record_limit and not has(version, "share_acquire_mode"):
        raise ValueError(f"acquire_mode (share.acquire.mode) must be batch_optimized before "
                         f"Kafka 4.2 (KIP-1206): {acquire_mode!r} in {version}")
    return AcquireSettings(
        max_in_flight_records=max_record_locks, max_delivery_count=delivery_count_limit,
        record_limit=record_limit,
        batch_size=max_poll_records if has(version, "share_batch_size") else INT_MAX,
        lock_duration_ms=lock_duration_ms,
        cap_in_acquire=has(version, "share_lock_cap_in_acquire"),
        throttle=has(version, "share_throttle_delivery"))


def in_flight_bound(kafka_version: str, max_record_locks: int,
                    largest_batch_records: int) -> int | None:
    """The most records a share partition can have in flight in the release, or None where
    nothing bounds them.

    From 4.2 ``acquire`` stops at the cap but finishes the log batch it is in: ``locks +
    largest batch - 1`` (:func:`kipviz.kafka.share.fetch.in_flight_bound_records`). Before, the
    cap is checked only before the fetch (``canAcquireRecords``), and not at all when the fetch
    starts inside the cached range (released or expired records): ``acquire`` then takes those
    and goes on past the cached end with new records up to ``MaxRecords`` (4.1's
    ``SharePartition.acquire``; 4.0: all it read), each time a lock expires: no bound.

    >>> in_flight_bound("4.2", 2000, 10), in_flight_bound("4.1", 2000, 10)
    (2009, None)
    """
    if has(check_share_version(kafka_version), "share_lock_cap_in_acquire"):
        return max_record_locks + largest_batch_records - 1
    return None
