"""Lesson 7's "your cluster": a share group's numbers from your own settings (KIP-932).

:func:`share_group_advice` reads a ``.properties`` file (or a mapping) holding any of the share
group's client and group settings and fills in the lesson's formulas: who shares which
partition (``SimpleAssignor``), what a share fetch gives each partition
(``PartitionMaxBytesStrategy.UNIFORM``), how many records a partition can have in flight (the
lock cap, soft by a batch in Kafka's code), what a consumer holds, and how long a stalled
consumer's records take to come back and to be archived; then the metric to watch and the knob
to turn.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from kipviz.kafka.config.checks import check_int
from kipviz.kafka.config.properties import parse_properties
from kipviz.kafka.fetch.response import CONSUMER_FETCH_MAX_BYTES
from kipviz.kafka.share.assign import simple_assign
from kipviz.kafka.share.fetch import (
    DELIVERY_COUNT_LIMIT,
    MAX_POLL_RECORDS,
    PARTITION_MAX_RECORD_LOCKS,
    RECORD_LOCK_DURATION_MS,
    SHARE_ACQUIRE_MODES,
    in_flight_bound_records,
    share_fetch_max_bytes,
    uniform_partition_max_bytes,
)

__all__ = ["SHARE_SETTINGS", "share_group_advice"]

# setting -> (default, where it is set)
SHARE_SETTINGS: dict[str, tuple[int | str, str]] = {
    "fetch.max.bytes": (CONSUMER_FETCH_MAX_BYTES, "consumer"),
    "max.poll.records": (MAX_POLL_RECORDS, "consumer"),
    "share.acquire.mode": ("batch_optimized", "consumer (KIP-1206)"),
    "group.share.partition.max.record.locks": (PARTITION_MAX_RECORD_LOCKS, "group / broker"),
    "group.share.record.lock.duration.ms": (RECORD_LOCK_DURATION_MS, "group / broker"),
    "group.share.delivery.count.limit": (DELIVERY_COUNT_LIMIT, "group / broker"),
}


def _settings(source: str | os.PathLike[str] | Mapping[str, object]) -> dict[str, object]:
    if isinstance(source, Mapping):
        return {str(k): v for k, v in source.items()}
    return dict(parse_properties(Path(source).read_text(encoding="utf-8")))


def _int(settings: Mapping[str, object], key: str) -> int:
    raw = settings.get(key, SHARE_SETTINGS[key][0])
    try:
        value = int(str(raw).strip())
    except ValueError:
        raise ValueError(f"'{key}' must be an integer: {raw!r}") from None
    return check_int(f"'{key}'", value, 1)


def share_group_advice(source: str | os.PathLike[str] | Mapping[str, object], *,
                       partitions: int, consumers: int, brokers: int = 1,
                       record_bytes: int = 1000, batch_records: int = 10) -> str:
    """The lesson's formulas filled in with ``source``'s settings (defaults for the others).

    >>> text = share_group_advice({"max.poll.records": "200"}, partitions=4, consumers=10,
    ...                           brokers=2)
    >>> "shared by up to 3 consumers" in text, "would leave 6 of 10 idle" in text
    (True, True)
    """
    check_int("partitions", partitions, 1)
    check_int("consumers", consumers, 1)
    check_int("brokers", brokers, 1)
    check_int("record_bytes", record_bytes, 1)
    check_int("batch_records", batch_records, 1)
    settings = _settings(source)
    fetch_max = _int(settings, "fetch.max.bytes")
    max_poll = _int(settings, "max.poll.records")
    locks = _int(settings, "group.share.partition.max.record.locks")
    lock_ms = _int(settings, "group.share.record.lock.duration.ms")
    deliveries = _int(settings, "group.share.delivery.count.limit")
    mode = str(settings.get("share.acquire.mode", "batch_optimized")).strip()
    if mode not in SHARE_ACQUIRE_MODES:
        raise ValueError(f"'share.acquire.mode' must be one of {SHARE_ACQUIRE_MODES}: {mode!r}")
    assignment = simple_assign(consumers, partitions)
    sharing = max(sum(p in parts for parts in assignment) for p in range(partitions))
    most = max(len(parts) for parts in assignment)
    leaders = max(len({p % brokers for p in parts}) for parts in assignment)
    response = share_fetch_max_bytes(fetch_max)
    per_partition = max(uniform_partition_max_bytes(response, list(range(most)), most).values())
    batch_bytes = batch_records * record_bytes
    usual = leaders * max_poll * record_bytes
    bound = leaders * max(response, batch_bytes)
    idle = consumers - min(consumers, partitions)
    unused = sorted(set(settings) - set(SHARE_SETTINGS))
    lines = [
        f"Share group of {consumers} consumers on {partitions} partitions led by {brokers} "
        f"broker(s), records of {record_bytes:,} bytes in batches of {batch_records}:",
        f"  who: each partition shared by up to {sharing} consumers (SimpleAssignor: "
        f"ceil({consumers} / {partitions})); a classic group would leave {idle} of {consumers} "
        f"idle",
        f"  a share fetch: MaxBytes = fetch.max.bytes = {response:,} bytes split evenly over the "
        f"partitions it acquires (PartitionMaxBytesStrategy.UNIFORM): {most} partition(s) -> "
        f"up to {per_partition:,} bytes each; MaxRecords = max.poll.records = {max_poll}",
        f"  in flight per partition <= group.share.partition.max.record.locks + batch - 1 = "
        f"{locks:,} + {batch_records - 1} = {in_flight_bound_records(locks, batch_records):,} "
        f"records (Kafka's code: the cap is soft by up to a log batch; mode {mode})",
        f"  held per consumer: about {leaders} leader(s) x max.poll.records x record size = "
        f"{usual:,} bytes; at most {leaders} x max(fetch cap, one batch) = {bound:,} bytes",
        f"  a stalled consumer: its records come back after group.share.record.lock.duration.ms "
        f"= {lock_ms:,} ms and are archived after {deliveries} deliveries (about "
        f"{lock_ms * deliveries / 1000:g} s if every attempt times out)",
        "Watch: kafka.server:type=SharePartitionMetrics InFlightMessageCount (against the lock "
        "cap) and AcquisitionLockTimeoutPerSec (stalled consumers); ShareGroupMetrics "
        "RecordAcknowledgementsPerSec by ackType.",
        "Turn: max.poll.records (records and memory per fetch), "
        "group.share.record.lock.duration.ms (how soon a stalled consumer's records return), "
        "group.share.partition.max.record.locks (records in flight per partition).",
    ]
    if unused:
        lines.append(f"Not used here: {', '.join(unused)}")
    return "\n".join(lines)
