"""Kafka Streams' input buffer: KIP-770's byte bound and the record-count bound it was to replace.

**Streams ``input.buffer.max.bytes`` (KIP-770 "Proposed Changes", which the merged code did).**
Each ``StreamThread`` gets an even share of ``input.buffer.max.bytes`` (proposed default
536870912), one more share going to the global thread if there is one (:func:`thread_share_bytes`,
as ``KafkaStreams.getCacheSizePerThread`` splits ``statestore.cache.max.bytes``, the half of the
KIP that shipped in 3.4). A buffered record costs :func:`record_size_bytes` (Kafka's
``ClientUtils.recordSizeInBytes``, added to ``RecordQueue`` by the KIP; ``PartitionGroup`` and
``TaskManager`` sum it per task and per thread). After a poll, a thread over its share pauses
every partition with records buffered (:func:`partitions_to_pause`); after a processing round
that processed records it resumes every paused partition once it is back within its share
(:func:`resume_all_after_round`: the KIP's text and the merged code; it can stall). The rule it
replaced, ``buffered.records.per.partition`` (still Kafka's today, default 1000, not
deprecated), pauses one partition above N records and resumes it when processing
brings it back to N (``StreamTask.addRecords`` / ``process``). The KIP's rejected alternatives
are here as rules too: one bound for the whole instance, a byte bound per partition, pausing only
the biggest partitions. The decisions themselves are plain functions here (``pause_over_share``,
``resume_all_within_share``, ...: no checks, numba-ready), which the checked functions, the
Streams kernel and the SimPy reference run.

``input.buffer.max.bytes`` is not in Kafka: it was merged twice (apache/kafka#11424, #11796) and
reverted twice before any release (#12383); kipviz models it as the KIP and the merged code say.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from kipviz.kafka.config.checks import check_int as _check_int
from kipviz.kafka.config.checks import check_text
from kipviz.kafka.config.declarations import CONSUMER, STREAMS
from kipviz.kafka.config.fields import check_setting

__all__ = [
    "BUFFERED_RECORDS_PER_PARTITION",
    "INPUT_BUFFER_MAX_BYTES",
    "POLICY_NAMES",
    "RECORD_METADATA_BYTES",
    "STATESTORE_CACHE_MAX_BYTES",
    "STREAMS_POLICIES",
    "biggest_partitions_to_pause",
    "fetch_bytes",
    "partition_over_share",
    "partition_share_bytes",
    "partitions_to_pause",
    "pause_above_records",
    "pause_over_share",
    "pick_biggest_partitions",
    "record_queue_pauses",
    "record_queue_resumes",
    "record_size_bytes",
    "records_bound_bytes",
    "resume_all_after_round",
    "resume_all_within_share",
    "resume_at_records",
    "resume_emptied",
    "share_per_partition",
    "thread_bound_bytes",
    "thread_cache_bytes",
    "thread_share_bytes",
]

INPUT_BUFFER_MAX_BYTES = STREAMS.default_of("input.buffer.max.bytes")  # KIP-770's 512 MiB
STATESTORE_CACHE_MAX_BYTES = STREAMS.default_of("statestore.cache.max.bytes")  # 10 MiB, 3.4
BUFFERED_RECORDS_PER_PARTITION = STREAMS.default_of("buffered.records.per.partition")  # 1000
_MAX_PARTITION_FETCH_BYTES = CONSUMER.default_of("max.partition.fetch.bytes")  # 1 MiB
RECORD_METADATA_BYTES = 8 + 8 + 4  # timestamp, offset and partition in recordSizeInBytes
# The pause/resume rules the Streams scenario can run (kipviz.scenarios.streams):
STREAMS_POLICIES = (
    "records_per_partition",  # buffered.records.per.partition: Kafka today
    "thread_bytes",  # KIP-770's share + #13283's task-level resume of emptied partitions
    "thread_bytes_as_merged",  # KIP-770's text = the merged, reverted code: can stall for ever
    "instance_bytes",  # rejected alternative: one bound across the instance's threads
    "partition_bytes",  # rejected alternative: the thread's share split per partition
    "biggest_partitions",  # rejected alternative: pause only the biggest partitions
)
# How a reader names each policy (dashboards, legends, tables).
POLICY_NAMES = {
    "records_per_partition": "buffered.records.per.partition (Kafka today)",
    "thread_bytes": "KIP-770 + #13283's resume of emptied partitions (beyond the KIP)",
    "thread_bytes_as_merged": "KIP-770 as written and merged (stalls)",
    "instance_bytes": "one bound for the instance (rejected)",
    "partition_bytes": "bytes per partition (rejected)",
    "biggest_partitions": "pause the biggest partitions (rejected)",
}
_SHARE_TOTAL = "total_bytes (input.buffer.max.bytes or statestore.cache.max.bytes)"
_THREADS = "threads (num.stream.threads)"


# The pause and resume decisions, once, as plain functions: no argument checks, ints and arrays
# only, so that numba compiles these very functions into the Streams kernel
# (kipviz.scenarios.streams.kernel) while the checked functions further down and the SimPy
# reference run them as they are.


def pause_over_share(over_share: bool, queued_records: int) -> bool:
    """KIP-770 after a poll: a thread over its share pauses a partition with records buffered."""
    return over_share and queued_records > 0


def resume_all_within_share(processed_records: int, buffered_total_bytes: int,
                            share_bytes: int) -> bool:
    """KIP-770 after a round: resume every paused partition if the round processed records
    and the thread is back within its share."""
    return processed_records > 0 and buffered_total_bytes <= share_bytes


def resume_emptied(queued_records: int) -> bool:
    """apache/kafka#13283 (beyond the KIP): resume a paused partition the round emptied."""
    return queued_records == 0


def pause_above_records(queue_records: int, buffered_records_per_partition: int) -> bool:
    """``buffered.records.per.partition`` (``StreamTask.addRecords``): pause above N."""
    return queue_records > buffered_records_per_partition


def resume_at_records(queue_records: int, buffered_records_per_partition: int) -> bool:
    """``buffered.records.per.partition`` (``StreamTask.process``): resume back at exactly N."""
    return queue_records == buffered_records_per_partition


def share_per_partition(share_bytes: int, partitions: int) -> int:
    """Rejected "fine grained allocation": the thread's share // its partitions (>= 1)."""
    return share_bytes // partitions


def partition_over_share(queued_bytes: int, partition_share: int) -> bool:
    """Rejected "fine grained allocation": a partition over its share is paused, and resumed
    once back within it."""
    return queued_bytes > partition_share


def pick_biggest_partitions(buffered_bytes: Any, excess_bytes: int, out_indices: Any) -> int:
    """Rejected "heuristic based pauses": the biggest partitions, largest first (ties: lower
    index), until they hold ``excess_bytes``; their indices go to ``out_indices``; how many."""
    n = len(buffered_bytes)
    count = 0
    while excess_bytes > 0 and count < n:
        best = -1
        for j in range(n):
            taken = False
            for c in range(count):
                taken = taken or out_indices[c] == j
            if not taken and (best < 0 or buffered_bytes[j] > buffered_bytes[best]):
                best = j
        out_indices[count] = best
        count += 1
        excess_bytes -= buffered_bytes[best]
    return count


def record_size_bytes(key_bytes: int, value_bytes: int, topic: str,
                      headers: Iterable[tuple[str, bytes | None]] = ()) -> int:
    """What one buffered record costs: key + value + 8 + 8 + utf8(topic) + 4 + header bytes.

    Kafka's ``ClientUtils.recordSizeInBytes`` (``RecordQueue`` adds it per record): serialized
    key and value sizes, the timestamp and offset (8 bytes each), the topic name in UTF-8, the
    partition (4), and per header its key in UTF-8 plus its value (a null value counts 0).
    Pass 0 for a null key or value, as ``producerRecordSizeInBytes`` does.

    >>> record_size_bytes(3, 5, "topic", [("h1", b"headerVal1"), ("h2", b"headerVal2")])
    57
    """
    key = _check_int("key_bytes", key_bytes, 0)
    value = _check_int("value_bytes", value_bytes, 0)
    check_text("topic", topic)
    header_bytes = 0
    for header in headers:
        if (not isinstance(header, tuple) or len(header) != 2 or not isinstance(header[0], str)
                or not isinstance(header[1], bytes | bytearray | None)):
            raise ValueError(f"headers must be (key: str, value: bytes or None) pairs: {header!r}")
        header_bytes += len(header[0].encode("utf-8")) + len(header[1] or b"")
    return key + value + len(topic.encode("utf-8")) + RECORD_METADATA_BYTES + header_bytes


def thread_share_bytes(total_bytes: int, threads: int, global_thread: bool = False) -> int:
    """Each stream thread's share of an instance-wide byte budget: total // (threads + 1 if a
    global thread exists).

    ``KafkaStreams.getCacheSizePerThread`` (``resizeThreadCache`` on every thread added or
    removed), which KIP-770 reuses for ``input.buffer.max.bytes``. With no stream thread Kafka
    gives the whole budget to the global thread (``threads`` 0 returns ``total_bytes``).
    """
    total = _check_int(_SHARE_TOTAL, total_bytes, 0)
    n = _check_int(_THREADS, threads, 0)
    if not isinstance(global_thread, bool):
        raise ValueError(f"global_thread must be True or False: {global_thread!r}")
    return total if n == 0 else total // (n + (1 if global_thread else 0))


def thread_cache_bytes(statestore_cache_max_bytes: int = STATESTORE_CACHE_MAX_BYTES,
                       threads: int = 1, global_thread: bool = False) -> int:
    """The shipped half of KIP-770: each thread's record cache, split like the input buffer."""
    check_setting("statestore_cache_max_bytes", statestore_cache_max_bytes,
                  STREAMS["statestore.cache.max.bytes"])
    return thread_share_bytes(statestore_cache_max_bytes, threads, global_thread)


def _sizes(name: str, values: Sequence[int], minimum: int = 0) -> list[int]:
    return [_check_int(f"{name}[{i}]", v, minimum) for i, v in enumerate(values)]


def partitions_to_pause(buffered_bytes: Sequence[int], share_bytes: int) -> list[int]:
    """KIP-770 after a poll: the partitions a thread pauses (indices into ``buffered_bytes``).

    When the thread's buffered bytes exceed its share, every partition with something buffered
    is paused (``StreamThread.pollPhase`` pauses ``TaskManager.nonEmptyPartitions()``); empty
    ones keep fetching, since pausing them could leave a task waiting for ever on a partition
    it needs. Within the share, none.
    """
    sizes = _sizes("buffered_bytes", buffered_bytes)
    over = sum(sizes) > _check_int("share_bytes", share_bytes, 0)
    return [i for i, b in enumerate(sizes) if pause_over_share(over, b)]


def resume_all_after_round(buffered_total_bytes: int, share_bytes: int,
                           processed_records: int) -> bool:
    """KIP-770 after a processing round: resume every paused partition of the thread?

    Yes when the round processed records and the thread is back within its share: KIP-770's
    text ("resumed after the buffered size for all tasks in the thread are lesser than the bytes
    allocated") and the merged code (``StreamThread.runOnce``, apache/kafka#11424 and #11796,
    both reverted, in no release) do only this, so a task waiting on a paused partition that
    processing had emptied never ran again. apache/kafka#13283 (closed unmerged) proposed also
    resuming, in ``StreamTask``, the partitions a round emptied: a rule beyond the KIP, which the
    scenario's ``thread_bytes`` policy adds; ``thread_bytes_as_merged`` is the KIP's rule alone.
    """
    total = _check_int("buffered_total_bytes", buffered_total_bytes, 0)
    share = _check_int("share_bytes", share_bytes, 0)
    return resume_all_within_share(_check_int("processed_records", processed_records, 0), total,
                                   share)


def record_queue_pauses(queue_records: int,
                        buffered_records_per_partition: int = BUFFERED_RECORDS_PER_PARTITION
                        ) -> bool:
    """``buffered.records.per.partition`` after records are added: pause above N records."""
    n = _check_int("buffered_records_per_partition (buffered.records.per.partition)",
                   buffered_records_per_partition, 1)
    return pause_above_records(_check_int("queue_records", queue_records, 0), n)


def record_queue_resumes(queue_records: int,
                         buffered_records_per_partition: int = BUFFERED_RECORDS_PER_PARTITION
                         ) -> bool:
    """``buffered.records.per.partition`` after one record is processed: resume the partition
    when its queue is back to exactly N (``StreamTask.process``)."""
    n = _check_int("buffered_records_per_partition (buffered.records.per.partition)",
                   buffered_records_per_partition, 1)
    return resume_at_records(_check_int("queue_records", queue_records, 0), n)


def partition_share_bytes(share_bytes: int, partitions: int) -> int:
    """Rejected alternative "fine grained allocation": a thread's share // its partitions; a
    partition above it is paused alone and resumed once back within it."""
    share = _check_int("share_bytes", share_bytes, 0)
    return share_per_partition(share, _check_int("partitions", partitions, 1))


def biggest_partitions_to_pause(buffered_bytes: Sequence[int], share_bytes: int) -> list[int]:
    """Rejected alternative "heuristic based pauses": over its share, a thread pauses only its
    biggest partitions, largest first (ties: lower index), until they hold the excess."""
    sizes = _sizes("buffered_bytes", buffered_bytes)
    excess = sum(sizes) - _check_int("share_bytes", share_bytes, 0)
    chosen = [0] * len(sizes)
    return chosen[:pick_biggest_partitions(sizes, excess, chosen)]


def fetch_bytes(record_bytes: int,
                max_partition_fetch_bytes: int = _MAX_PARTITION_FETCH_BYTES) -> int:
    """Most bytes one poll adds to a partition of records of ``record_bytes``: the whole records
    that fit in ``max.partition.fetch.bytes``, and at least one (KIP-74's first-batch rule)."""
    size = _check_int("record_bytes", record_bytes, 1)
    limit = check_setting("max_partition_fetch_bytes", max_partition_fetch_bytes,
                          CONSUMER["max.partition.fetch.bytes"])
    return max(1, limit // size) * size


def thread_bound_bytes(share_bytes: int, record_bytes: Sequence[int],
                       max_partition_fetch_bytes: int = _MAX_PARTITION_FETCH_BYTES) -> int:
    """KIP-770's bound for one thread: its share plus one fetch per partition it owns.

    Within its share, a poll may add a fetch to every unpaused partition; over it, only empty
    partitions fetch, and each is paused as soon as it holds records. So the bound is share +
    sum of :func:`fetch_bytes` over the thread's partitions, not the share alone.
    """
    share = _check_int("share_bytes", share_bytes, 0)
    sizes = _sizes("record_bytes", record_bytes, 1)
    return share + sum(fetch_bytes(r, max_partition_fetch_bytes) for r in sizes)


def records_bound_bytes(record_bytes: Sequence[int],
                        buffered_records_per_partition: int = BUFFERED_RECORDS_PER_PARTITION,
                        max_partition_fetch_bytes: int = _MAX_PARTITION_FETCH_BYTES) -> int:
    """``buffered.records.per.partition``'s bound: per partition (N records + one fetch) x its
    record size. It grows with the partitions and their record sizes, KIP-770's motivation."""
    n = _check_int("buffered_records_per_partition (buffered.records.per.partition)",
                   buffered_records_per_partition, 1)
    return sum(n * r + fetch_bytes(r, max_partition_fetch_bytes)
               for r in _sizes("record_bytes", record_bytes, 1))
