"""KIP-74: the fetch response size limit, and the partition orders that keep it fair.

What a broker puts in one fetch response, as ``ReplicaManager.readFromLog`` does it for request
versions >= 3 (Kafka 0.10.1 and later), and the client-side orders that decide which partition is
served first (KIP-74 "Proposed Changes", ``PartitionStates``, KIP-227 fetch sessions).

* Partitions are served in request order. ``limit`` starts at the response max bytes
  (:func:`effective_response_max_bytes`). Each partition reads up to
  ``min(partition max_bytes, limit)`` raw log bytes; a partial record batch at the end counts as
  raw bytes (the consumer drops it and asks again from the same offset).
* First-batch exception (``minOneMessage``): until some partition has returned bytes, the budget
  is raised to at least the size of the batch at the fetch offset, so a fetch always makes
  progress. It applies to the first *non-empty* partition only.
* A partition whose budget cannot hold its whole first batch returns nothing
  (``firstEntryIncomplete`` is replaced by an empty set) and leaves ``limit`` unchanged.
* Versions <= 2 (``hardMaxBytesLimit``): no exception and no emptying; the partial batch is returned
  and the consumer fails with ``RecordTooLargeException``.

Guarantee (KIP-74): a v3+ response is never bigger than ``max(max_bytes, first batch)``.

A request whose partitions hold less than ``fetch.min.bytes`` waits as a ``DelayedFetch``
(:func:`delayed_fetch_completes`) and returns the data that arrived meanwhile.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from kipviz.kafka.config.checks import check_int as _check_int
from kipviz.kafka.config.declarations import BROKER, CONSUMER
from kipviz.kafka.config.fields import check_setting
from kipviz.kafka.config.versions import has
from kipviz.kafka.fetch.request import (
    Ordering,
    PartitionStates,
    TopicPartition,
    java_hash_order,
    next_order,
    request_partitions,
)
from kipviz.kafka.quotas.rate import max_value_in_quota_window

__all__ = [
    "BROKER_FETCH_MAX_BYTES",
    "CONSUMER_FETCH_MAX_BYTES",
    "FILL_FUNCTIONS",
    "INT32_MAX",
    "MAX_PARTITION_FETCH_BYTES",
    "Ordering",
    "PartitionData",
    "PartitionStates",
    "TopicPartition",
    "delayed_fetch_complete_ms",
    "delayed_fetch_completes",
    "effective_response_max_bytes",
    "fill_raw_bytes",
    "fill_response",
    "java_hash_order",
    "largest_response_bytes",
    "next_order",
    "read_partition",
    "request_partitions",
    "response_limit_bytes",
]

INT32_MAX = 2**31 - 1
CONSUMER_FETCH_MAX_BYTES = CONSUMER.default_of("fetch.max.bytes")  # 50 MiB
MAX_PARTITION_FETCH_BYTES = CONSUMER.default_of("max.partition.fetch.bytes")  # 1 MiB
BROKER_FETCH_MAX_BYTES = BROKER.default_of("fetch.max.bytes")  # 55 MiB
# what a kernel compiles (kipviz.scenarios.jit.jit_functions over this module): fill_raw_bytes
# with the partition rule it calls
FILL_FUNCTIONS = ("read_partition", "fill_raw_bytes")
_MPFB = CONSUMER["max.partition.fetch.bytes"]


@dataclass(frozen=True)
class PartitionData:
    """One partition of a fetch response: raw bytes sent and whole record batches in them."""

    raw_bytes: int
    complete_batches: int

    @property
    def record_too_large(self) -> bool:
        """Bytes but no whole batch: a v<=2 consumer throws ``RecordTooLargeException`` here."""
        return self.raw_bytes > 0 and self.complete_batches == 0


def effective_response_max_bytes(
    request_max_bytes: int,
    broker_fetch_max_bytes: int = BROKER_FETCH_MAX_BYTES,
    fetch_quota_bytes_per_s: float | None = None,
    quota_window_num: int = 11,
    quota_window_size_s: float = 1,
) -> int:
    """The response limit a broker applies (``KafkaApis.handleFetchRequest``).

    ``min(request max_bytes, broker fetch.max.bytes, quota * (quota.window.num - 1) *
    quota.window.size.seconds)``; the last term only for a consumer with a fetch quota
    (``ClientQuotaManager.getMaxValueInQuotaWindow``, truncated to an int as Scala's ``toInt``).
    """
    check_setting("request_max_bytes", request_max_bytes, CONSUMER["fetch.max.bytes"],
                  label="consumer fetch.max.bytes")
    check_setting("broker_fetch_max_bytes", broker_fetch_max_bytes, BROKER["fetch.max.bytes"],
                  label="broker fetch.max.bytes")
    limit = min(request_max_bytes, broker_fetch_max_bytes)
    if fetch_quota_bytes_per_s is None:
        return limit
    # a zero quota blocks every fetch: a mistake here
    check_setting("fetch_quota_bytes_per_s", fetch_quota_bytes_per_s,
                  CONSUMER["consumer_byte_rate"], above=0, number=True)
    window_max = max_value_in_quota_window(fetch_quota_bytes_per_s, quota_window_num,
                                           quota_window_size_s)
    return min(limit, min(int(window_max), INT32_MAX))


def response_limit_bytes(kafka_version: str, fetch_max_bytes: int,
                         broker_fetch_max_bytes: int = BROKER_FETCH_MAX_BYTES,
                         fetch_quota_bytes_per_s: float | None = None) -> int:
    """The broker's response limit for a consumer, as its Kafka version applies it
    (:func:`effective_response_max_bytes`): the broker's ``fetch.max.bytes`` (KIP-541) and the
    quota window (KAFKA-9677) only from the releases :mod:`kipviz.kafka.config.versions` names.

    >>> response_limit_bytes("2.4", 100 * 2**20) == 100 * 2**20
    True
    >>> response_limit_bytes("4.3", 100 * 2**20)
    57671680
    """
    broker = broker_fetch_max_bytes if has(kafka_version, "broker_fetch_max_bytes") else INT32_MAX
    quota = fetch_quota_bytes_per_s if has(kafka_version, "quota_window_cap") else None
    return effective_response_max_bytes(fetch_max_bytes, broker, quota)


def read_partition(first_batch_bytes, log_bytes, partition_max_bytes, limit, min_one_batch,
                   version):
    """The raw bytes one partition returns in ``readFromLog``'s loop (KIP-74), the one rule that
    :func:`fill_raw_bytes` and the tiered fetch's local partitions
    (:func:`kipviz.kafka.tiered.fetch.read_from_log`) run.

    The budget is ``min(partition max_bytes, limit)``, raised to the whole first batch while
    ``min_one_batch`` (no earlier partition has returned bytes, v3+) and the log has data; the
    partition returns its log up to the budget, and nothing (v3+) when that cannot hold its first
    batch (``firstEntryIncomplete``). The caller then lowers ``limit`` and ends ``min_one_batch``.

    >>> read_partition(600, 1200, 1000, 1000, True, 3)  # the first batch fits: up to the budget
    1000
    >>> read_partition(600, 1200, 1000, 400, False, 3)  # it does not: nothing
    0
    >>> read_partition(1500, 3000, 1000, 5000, True, 3)  # a bigger first batch: all of it
    1500
    >>> read_partition(1500, 3000, 1000, 5000, False, 2)  # v2: part of it, RecordTooLarge
    1000
    """
    budget = min(partition_max_bytes, limit)
    if min_one_batch and log_bytes > 0:
        budget = max(budget, first_batch_bytes)
    raw = min(budget, log_bytes)
    if version >= 3 and raw < first_batch_bytes:
        raw = 0  # firstEntryIncomplete: replaced by an empty record set
    return raw


def delayed_fetch_completes(accumulated_bytes, fetch_min_bytes, waited_ms, max_wait_ms):
    """Whether a fetch answers now: ``ReplicaManager.fetchMessages`` answers a request at once
    when its partitions hold ``fetch.min.bytes`` (or it may not wait); else it parks a
    ``DelayedFetch``, which completes when an append brings the bytes its partitions have
    accumulated to ``fetch.min.bytes`` (``tryComplete``, case G, checked on each append that
    moves the high watermark) or when it has waited ``fetch.max.wait.ms`` (``onExpiration``).
    Either way ``onComplete`` reads the logs again and returns what they hold *then*. The
    consumer kernel asks it each tick; :func:`delayed_fetch_complete_ms` is its first instant.

    >>> delayed_fetch_completes(0, 1, 0, 500), delayed_fetch_completes(0, 1, 500, 500)
    (False, True)
    >>> delayed_fetch_completes(1, 1, 0, 500), delayed_fetch_completes(0, 1, 0, 0)
    (True, True)
    """
    return accumulated_bytes >= fetch_min_bytes or waited_ms >= max_wait_ms


def delayed_fetch_complete_ms(created_ms, max_wait_ms, min_bytes_at_ms):
    """When a ``DelayedFetch`` parked at ``created_ms`` answers, ``min_bytes_at_ms`` being the
    first instant its partitions hold ``fetch.min.bytes`` (``inf``: never): the first instant
    :func:`delayed_fetch_completes` holds, for a kernel that moves from event to event. The
    answer carries the data the logs hold at that instant (``onComplete`` reads them again).

    >>> delayed_fetch_complete_ms(100.0, 500.0, 160.5)  # a batch lands at 160.5 ms
    160.5
    >>> delayed_fetch_complete_ms(100.0, 500.0, float("inf"))  # none: expires
    600.0
    """
    return min(min_bytes_at_ms, created_ms + max_wait_ms)


def fill_raw_bytes(
    first_batch_bytes: np.ndarray,
    log_bytes: np.ndarray,
    partition_max_bytes: np.ndarray,
    response_max_bytes: int,
    version: int,
    out_raw_bytes: np.ndarray,
) -> int:
    """The broker's loop over one request, on arrays in request order; returns the response size.

    ``first_batch_bytes[i]`` is the size of the batch at partition i's fetch offset (0 when the
    log has nothing there), ``log_bytes[i]`` the bytes from the fetch offset to the log end. Raw
    bytes per partition go to ``out_raw_bytes``; each partition's are :func:`read_partition`'s.
    Plain loops only: scenarios compile this very function with numba (with
    :data:`FILL_FUNCTIONS`), so the rules live in one place.
    """
    limit = response_max_bytes
    min_one_batch = version >= 3
    total = 0
    for i in range(first_batch_bytes.shape[0]):
        raw = read_partition(first_batch_bytes[i], log_bytes[i], partition_max_bytes[i], limit,
                             min_one_batch, version)
        out_raw_bytes[i] = raw
        if raw > 0:
            min_one_batch = False
        limit = max(0, limit - raw)
        total += raw
    return total


def fill_response(
    batches: Sequence[Sequence[int]],
    *,
    response_max_bytes: int,
    partition_max_bytes: int | Sequence[int],
    version: int = 3,
) -> list[PartitionData]:
    """Fill one fetch response as a Kafka broker does (KIP-74, ``ReplicaManager.readFromLog``).

    ``batches`` holds, per partition in request order, the sizes of the record batches from the
    fetch offset to the log end. ``partition_max_bytes`` is the request's per-partition
    ``max_bytes`` (consumer ``max.partition.fetch.bytes``), one int for all or one per partition.

    >>> out = fill_response([[600, 600], [300]], response_max_bytes=1000, partition_max_bytes=1000)
    >>> [(p.raw_bytes, p.complete_batches) for p in out]
    [(1000, 1), (0, 0)]
    """
    response_max_bytes = _check_int("response_max_bytes", response_max_bytes, 0)
    version = _check_int("version", version, 0)
    n = len(batches)
    if isinstance(partition_max_bytes, int | np.integer) and not isinstance(
        partition_max_bytes, bool
    ):
        limits = [check_setting("partition_max_bytes", partition_max_bytes, _MPFB)] * n
    else:
        limits = [check_setting("partition_max_bytes", v, _MPFB)
                  for v in partition_max_bytes]  # type: ignore[union-attr]
        if len(limits) != n:
            raise ValueError(f"partition_max_bytes must have one value per partition: "
                             f"{len(limits)} values for {n} partitions")
    sizes = [[_check_int("record batch size", b, 1) for b in part] for part in batches]
    first = np.array([s[0] if s else 0 for s in sizes], dtype=np.int64)
    log = np.array([sum(s) for s in sizes], dtype=np.int64)
    raw = np.zeros(n, dtype=np.int64)
    fill_raw_bytes(first, log, np.array(limits, dtype=np.int64), response_max_bytes, version, raw)
    out = []
    for s, r in zip(sizes, raw.tolist(), strict=True):
        complete = int(np.searchsorted(np.cumsum(s), r, side="right")) if s else 0
        out.append(PartitionData(raw_bytes=r, complete_batches=complete))
    return out


def largest_response_bytes(partitions: int, brokers: int, response_max_bytes: int,
                           max_partition_fetch_bytes: int, *, max_batch_bytes: int = 0,
                           version: int = 3) -> int:
    """The largest fetch response one broker can send a consumer of ``partitions`` on
    ``brokers`` (partition p on broker p % brokers).

    Each of the broker's partitions returns at most ``max.partition.fetch.bytes``, and KIP-74
    (version >= 3) caps the total at the response limit; the first-batch exception can raise
    either to one whole record batch. Versions <= 2 have no response limit.

    >>> largest_response_bytes(60, 3, 4 * 2**20, 2**20) // 2**20
    4
    """
    per_broker = -(-partitions // brokers)
    if version <= 2:
        return per_broker * max_partition_fetch_bytes
    return min(max(response_max_bytes, max_batch_bytes),
               per_broker * max(max_partition_fetch_bytes, max_batch_bytes))
