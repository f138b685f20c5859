"""Tiered storage (KIP-405): how a broker serves a consumer fetch that reaches remote data, by
Kafka version.

``ReplicaManager.readFromLog`` walks the request's partitions in order with the response limit
(KIP-74's loop, :mod:`kipviz.kafka.fetch.response`). A consumer's partition whose fetch offset is
below the local log start is *remote*: it returns no bytes now but, unless the fetch quota throttles
it (KIP-956, :mod:`kipviz.kafka.tiered.quota`: returned empty, no error), a
``RemoteStorageFetchInfo`` with ``fetchMaxBytes = min(partition max_bytes, limit left)`` (only when
that is > 0) and the current ``minOneMessage``.

* Before 4.2 only the *first* remote partition of a request is read; the others come back empty
  (``fetchMessages`` kept one ``remoteFetchInfo``). From 4.2 every one is read, in parallel, and
  ``DelayedRemoteFetch`` waits for all of them (KAFKA-14915, apache/kafka#20045).
* Before 4.2 a remote partition charges nothing to the response limit (its records are empty at
  that point), so the limit can be exceeded. From 4.2 it is charged its ``fetchMaxBytes`` up
  front (KAFKA-19462, apache/kafka#20088) and ends the first-batch exception (KAFKA-19795,
  apache/kafka#20706).
* ``RemoteLogManager.read``: ``maxBytes = fetchMaxBytes``; without ``minOneMessage`` a first batch
  bigger than that returns nothing; with it the buffer grows to the first batch; the read goes
  on to the end of that remote segment or the buffer, raw bytes, as a local read does.
* ``DelayedRemoteFetch`` (``remote.fetch.max.wait.ms``, 500, KIP-1018, 3.8; the request's
  ``fetch.max.wait.ms`` before) holds the *local*
  partitions' data until all remote reads are done or it expires; on expiry the remote
  partitions come back empty. Reads run on ``remote.log.reader.threads`` (10).

The version switches are rows of :data:`kipviz.kafka.config.versions.BEHAVIOURS`.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from kipviz.kafka.config.declarations import BROKER
from kipviz.kafka.config.versions import has
from kipviz.kafka.fetch.response import read_partition

__all__ = [
    "REMOTE_FETCH_MAX_WAIT_MS",
    "REMOTE_LOG_READER_THREADS",
    "LogRead",
    "ReadLimits",
    "RequestPartitions",
    "charges_remote_fetch_up_front",
    "delayed_remote_fetch_complete_ms",
    "read_from_log",
    "reads_several_remote_partitions",
    "remote_fetch_wait_ms",
    "remote_read_bytes",
]

REMOTE_FETCH_MAX_WAIT_MS = BROKER.default_of("remote.fetch.max.wait.ms")  # 500 (KIP-1018)
REMOTE_LOG_READER_THREADS = BROKER.default_of("remote.log.reader.threads")  # 10


def reads_several_remote_partitions(kafka_version: str) -> bool:
    """Whether one fetch request reads more than one remote partition (4.2+, KAFKA-14915;
    :func:`kipviz.kafka.config.versions.has` ``remote_fetch_several_partitions``).

    >>> reads_several_remote_partitions("4.1"), reads_several_remote_partitions("4.2")
    (False, True)
    """
    return has(kafka_version, "remote_fetch_several_partitions")


def charges_remote_fetch_up_front(kafka_version: str) -> bool:
    """Whether a remote partition's ``fetchMaxBytes`` is charged to the response limit when
    the request is read (4.2+, KAFKA-19462; ``remote_fetch_charged_up_front``)."""
    return has(kafka_version, "remote_fetch_charged_up_front")


def remote_fetch_wait_ms(kafka_version: str, remote_fetch_max_wait_ms: int,
                         fetch_max_wait_ms: int) -> int:
    """How long ``DelayedRemoteFetch`` waits for its remote reads: ``remote.fetch.max.wait.ms``
    from 3.8 (KIP-1018, ``remote_fetch_max_wait``), the request's ``fetch.max.wait.ms`` before
    (``DelayedOperation(fetchParams.maxWaitMs)``).

    >>> remote_fetch_wait_ms("3.7", 500, 100), remote_fetch_wait_ms("3.8", 500, 100)
    (100, 500)
    """
    if has(kafka_version, "remote_fetch_max_wait"):
        return remote_fetch_max_wait_ms
    return fetch_max_wait_ms


class RequestPartitions(NamedTuple):
    """A consumer fetch request's partitions in request order, an entry each: the size of the
    record batch at the fetch offset and the bytes from there to the end of the log (for a
    remote partition: of its remote segment), whether it is remote, whether the fetch quota
    throttles it, and its ``max.partition.fetch.bytes``."""

    first_batch_bytes: np.ndarray
    log_bytes: np.ndarray
    remote: np.ndarray
    throttled: np.ndarray
    partition_max_bytes: np.ndarray


class ReadLimits(NamedTuple):
    """What bounds one ``readFromLog``: the response limit and the version's remote rules."""

    response_max_bytes: int
    several_remote: bool  # every remote partition is read (4.2, KAFKA-14915)
    charge_remote: bool  # a remote partition is charged up front (4.2, KAFKA-19462)


class LogRead(NamedTuple):
    """What ``readFromLog`` gives each partition of the request (filled in place): the raw
    bytes of a local one, and for a remote one the ``fetchMaxBytes`` of the read it schedules
    (0: none) and its ``minOneMessage``."""

    raw_bytes: np.ndarray
    remote_max_bytes: np.ndarray
    remote_min_one: np.ndarray


def read_from_log(partitions: RequestPartitions, limits: ReadLimits, out: LogRead) -> int:
    """``readFromLog`` for a consumer (request v3+) over local and remote ``partitions``, in
    request order, under ``limits``; fills ``out`` and returns the local bytes in the response.

    Local partitions get their raw bytes by KIP-74's rule,
    :func:`kipviz.kafka.fetch.response.read_partition` (``min(partition max, limit)``, first batch
    allowed while no partition has returned or been charged bytes, an incomplete first batch
    emptied), as :func:`~kipviz.kafka.fetch.response.fill_raw_bytes` runs it. A remote partition
    gets the ``fetchMaxBytes`` of the read that will be scheduled (0: none: throttled, no limit
    left, or not the first remote partition before 4.2) and its ``minOneMessage``. Plain loops:
    numba compiles it, with ``read_partition`` beside it.
    """
    # the tuples' fields as locals, read once (a compiled caller counts a reference per read)
    first_batch_bytes, log_bytes = partitions.first_batch_bytes, partitions.log_bytes
    remote, throttled = partitions.remote, partitions.throttled
    partition_max_bytes = partitions.partition_max_bytes
    several_remote, charge_remote = limits.several_remote, limits.charge_remote
    out_raw_bytes, out_remote_max_bytes = out.raw_bytes, out.remote_max_bytes
    out_remote_min_one = out.remote_min_one
    limit = limits.response_max_bytes
    min_one = True
    total = 0
    scheduled = 0
    for i in range(first_batch_bytes.shape[0]):
        adjusted = min(partition_max_bytes[i], limit)
        out_raw_bytes[i] = 0
        out_remote_max_bytes[i] = 0
        out_remote_min_one[i] = False
        charge = 0
        if remote[i]:
            if not throttled[i] and adjusted > 0:
                if several_remote or scheduled == 0:
                    out_remote_max_bytes[i] = adjusted
                    out_remote_min_one[i] = min_one
                scheduled += 1  # pre-4.2 kept the first RemoteStorageFetchInfo only
                if charge_remote:
                    charge = adjusted
        else:
            raw = read_partition(first_batch_bytes[i], log_bytes[i], partition_max_bytes[i],
                                 limit, min_one, 3)
            out_raw_bytes[i] = raw
            total += raw
            charge = raw
        if charge > 0:
            min_one = False
        limit = max(0, limit - charge)
    return total


def remote_read_bytes(first_batch_bytes: int, segment_bytes_left: int, fetch_max_bytes: int,
                      min_one_message: bool) -> int:
    """``RemoteLogManager.read``: the raw bytes one remote read returns from the fetch offset,
    ``segment_bytes_left`` being the bytes from it to the end of its remote segment.

    >>> remote_read_bytes(300, 10_000, 1_000, False), remote_read_bytes(3_000, 10_000, 1_000, False)
    (1000, 0)
    >>> remote_read_bytes(3_000, 10_000, 1_000, True), remote_read_bytes(300, 700, 1_000, True)
    (3000, 700)
    """
    if segment_bytes_left <= 0 or fetch_max_bytes <= 0:
        return 0
    if first_batch_bytes > fetch_max_bytes:
        return first_batch_bytes if min_one_message else 0
    return min(fetch_max_bytes, segment_bytes_left)


def delayed_remote_fetch_complete_ms(read_done_ms: np.ndarray, created_ms: float,
                                     remote_fetch_max_wait_ms: float,
                                     out_served: np.ndarray) -> float:
    """When ``DelayedRemoteFetch`` answers: once every remote read of the request is done
    (``tryComplete``, case c), or at ``created + remote.fetch.max.wait.ms`` (``onExpiration``:
    reads not started are cancelled). ``out_served[i]`` is whether read i's data is in the
    response (a read not done by then comes back empty). The local partitions' data waits in the
    operation until then, whatever it is.

    >>> served = np.zeros(2, np.bool_)
    >>> float(delayed_remote_fetch_complete_ms(np.array([120.0, 300.0]), 0, 500, served)), served
    (300.0, array([ True,  True]))
    >>> float(delayed_remote_fetch_complete_ms(np.array([120.0, 900.0]), 0, 500, served)), served
    (500.0, array([ True, False]))
    """
    last = created_ms
    for i in range(read_done_ms.shape[0]):
        last = max(last, read_done_ms[i])
    complete = min(last, created_ms + remote_fetch_max_wait_ms)
    for i in range(read_done_ms.shape[0]):
        out_served[i] = read_done_ms[i] <= complete
    return complete
