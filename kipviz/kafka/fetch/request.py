"""The consumer's side of a fetch: which partitions go into the next request to each broker, in
which order, by Kafka version.

* ``AbstractFetch.prepareFetchRequests`` lists the *fetchable* partitions (assigned, not paused,
  with a position) that have nothing buffered (``fetchablePartitions``), grouped by the node that
  serves them (the leader, or the preferred read replica when one is set), and sends nothing to a
  node that already has a request in flight.
* Since Kafka 4.0 (KAFKA-17182, PR #18795) it also sends nothing to a node while any fetchable
  partition it serves still has buffered data (``bufferedNodes``): leaving a buffered partition
  out of a request dropped it from the broker's fetch session cache and could get the whole
  session evicted. Paused (and otherwise unfetchable) partitions keep their buffered data but do
  not block their node. :func:`request_partitions` is that rule, once, for the kernel and the
  SimPy reference alike.
* The request order: assignment order with KIP-74's move-to-end, or Java hash order (0.10.0, and
  3.7 to 4.1); see :func:`kipviz.kafka.config.versions.request_ordering`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import IntEnum

import numpy as np

__all__ = [
    "Ordering",
    "PartitionStates",
    "TopicPartition",
    "java_hash_order",
    "next_order",
    "request_partitions",
]


@dataclass(frozen=True, order=True)
class TopicPartition:
    """Kafka's ``TopicPartition``; ``str()`` gives ``topic-partition`` as Kafka prints it."""

    topic: str
    partition: int

    def __str__(self) -> str:
        return f"{self.topic}-{self.partition}"

    def java_hash(self) -> int:
        """``TopicPartition.hashCode()``: ``31 * (31 + partition) + topic.hashCode()`` as int32."""
        h = 0  # String.hashCode over UTF-16 code units
        units = self.topic.encode("utf-16-be")
        for i in range(0, len(units), 2):
            h = (31 * h + int.from_bytes(units[i : i + 2], "big")) & 0xFFFFFFFF
        result = (31 * (31 + self.partition) + h) & 0xFFFFFFFF
        return result - 2**32 if result >= 2**31 else result


class PartitionStates:
    """Kafka's ``PartitionStates``: the consumer's ordered assignment (``SubscriptionState``).

    Partitions are grouped by topic in order of first appearance, as ``PartitionStates.set`` does.
    The KIP-74 round-robin moves a partition that returned bytes to the end.
    """

    def __init__(self, tps: Iterable[TopicPartition] = ()) -> None:
        by_topic: dict[str, list[TopicPartition]] = {}
        for tp in tps:
            by_topic.setdefault(tp.topic, []).append(tp)
        self._map: dict[TopicPartition, None] = {
            tp: None for group in by_topic.values() for tp in group
        }

    def order(self) -> list[TopicPartition]:
        """Partitions in the order the next fetch request lists them."""
        return list(self._map)

    def move_to_end(self, tp: TopicPartition) -> None:
        """Move ``tp`` to the end; a partition not in the assignment is ignored, as in Kafka."""
        if tp in self._map:
            del self._map[tp]
            self._map[tp] = None

    def update_and_move_to_end(self, tp: TopicPartition) -> None:
        """Put ``tp`` at the end, adding it if absent (``updateAndMoveToEnd``)."""
        self._map.pop(tp, None)
        self._map[tp] = None

    def remove(self, tp: TopicPartition) -> None:
        self._map.pop(tp, None)

    def __len__(self) -> int:
        return len(self._map)

    def __contains__(self, tp: object) -> bool:
        return tp in self._map


class Ordering(IntEnum):
    """How the next request orders partitions (the orders DESIGN.md lists)."""

    FIXED = 0  # always the assignment order: what KIP-74 warns about
    ROUND_ROBIN = 1  # consumer moves partitions that returned bytes to the end (KIP-74; 0.10.1
    # to 3.6 and 4.2 on)
    HASH = 2  # Java hash order of TopicPartition (0.10.0's HashMap; 3.7 to 4.1's HashSet)
    SESSION = 3  # broker moves partitions that returned records to the end (KIP-227)
    RANDOM = 4  # random shuffle before each request (the KIP's other option)


def next_order(order: np.ndarray, returned: np.ndarray, ordering: int,
               random_keys: np.ndarray, scratch: np.ndarray | None = None) -> None:
    """Reorder ``order`` (partition indexes of one request, in place) after its response.

    ``returned[i]`` is true when the partition at place i got bytes (round-robin) or records
    (session). Moving each of them to the end, in response order, is a stable partition: the rest
    keep their order and the returned ones follow. ``random_keys`` (one per place) drives the
    random shuffle. Fixed and hash orders do not change. ``scratch`` (at least as long as
    ``order``) is working space, so a caller in a loop allocates nothing; without it one is made.
    Plain loops: numba compiles it.
    """
    n = order.shape[0]
    if ordering == Ordering.ROUND_ROBIN or ordering == Ordering.SESSION:
        moved = np.empty(n, dtype=order.dtype) if scratch is None else scratch
        k = 0
        m = 0
        for i in range(n):  # in place: k <= i, so unread places are never overwritten
            p = order[i]  # written to both places, kept in one: no branch to mispredict
            moved[m] = p
            order[k] = p
            r = 1 if returned[i] else 0
            m += r
            k += 1 - r
        for j in range(m):
            order[k + j] = moved[j]
    elif ordering == Ordering.RANDOM:
        perm = np.argsort(random_keys)
        tmp = order.copy()
        for i in range(n):
            order[i] = tmp[perm[i]]


def java_hash_order(tps: Sequence[TopicPartition], *, copied: bool = False) -> list[int]:
    """Indexes of ``tps`` in ``java.util.HashSet`` / ``HashMap`` iteration order (load 0.75).

    Buckets are ``(h ^ (h >>> 16)) & (capacity - 1)``; within a bucket, insertion order. Filled
    one put at a time (0.10.0's ``HashMap`` assignment) the table starts at 16 and doubles when
    it passes 0.75 full; ``copied=True`` is ``new HashSet<>(collection)`` (3.7 to 4.1's
    ``fetchablePartitions``), sized at once to ``max(n / .75 + 1, 16)`` rounded up to a power
    of two, which is larger for some n (12 partitions: 32 buckets, not 16).
    """
    n = len(tps)
    if copied:
        wanted = max(int(n / 0.75) + 1, 16)
        capacity = 1 << (wanted - 1).bit_length()
    else:
        capacity = 16
        while n > capacity * 0.75:
            capacity *= 2

    def bucket(i: int) -> int:
        h = tps[i].java_hash() & 0xFFFFFFFF
        return (h ^ (h >> 16)) & (capacity - 1)

    return sorted(range(n), key=lambda i: (bucket(i), i))


def request_partitions(order: np.ndarray, buffered: np.ndarray, fetchable: np.ndarray,
                       skip_buffered_nodes: bool, out_partitions: np.ndarray,
                       out_places: np.ndarray) -> int:
    """The partitions of a node's next fetch request, in ``order``; how many (0: send nothing).

    ``order`` holds the partitions the node serves, in the consumer's order; ``buffered[p]`` is
    true while partition p has a completed fetch not yet handed to the application (or a part of
    a response in flight); ``fetchable[p]`` is false for a paused (or unassigned, or
    position-less) partition. A request lists the fetchable partitions with nothing buffered
    (``AbstractFetch.fetchablePartitions``); with ``skip_buffered_nodes`` (Kafka 4.0 on,
    KAFKA-17182) a node with any fetchable buffered partition gets no request at all
    (``bufferedNodes``). ``out_places[k]`` is where the k-th listed partition stands in
    ``order``. Plain loops: the consumer kernel compiles this very function with numba.
    """
    n = 0
    for j in range(len(order)):
        p = order[j]
        if not fetchable[p]:
            continue
        if buffered[p]:
            if skip_buffered_nodes:
                return 0
            continue
        out_partitions[n] = p
        out_places[n] = j
        n += 1
    return n
