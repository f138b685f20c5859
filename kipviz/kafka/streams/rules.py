"""KIP-770's pause and resume rules for Kafka Streams' input buffer, once, as plain functions.

The decisions :mod:`kipviz.kafka.streams.input_buffer` documents (KIP-770 "Proposed Changes" and its
rejected alternatives, apache/kafka#13283, ``buffered.records.per.partition`` in ``StreamTask``)
with no argument checks, on ints and arrays only, so that numba compiles these very functions into
the Streams kernel (:mod:`kipviz.scenarios.streams.kernel`) while
:mod:`kipviz.kafka.streams.input_buffer`'s public functions (which check their arguments) and the
SimPy reference run them as they are.
"""

from __future__ import annotations

from typing import Any

__all__ = ["partition_over_share", "pause_above_records", "pause_over_share",
           "pick_biggest_partitions", "resume_all_within_share", "resume_at_records",
           "resume_emptied", "share_per_partition"]



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
