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
* The request order: assignment order with KIP-74's move-to-end, or Java hash order (3.7 to
  4.1; 0.10.0's topic-grouped ``HashMap``s, :func:`group_data_by_topic_order`); see
  :func:`kipviz.kafka.config.versions.request_ordering`. With incremental fetch sessions (1.1
  on) the broker reads the session's order instead, except in full fetches and for re-added
  partitions (:mod:`kipviz.kafka.fetch.session`).
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
    "group_data_by_topic_order",
    "java_hash_order",
    "java_string_hash",
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
        result = (31 * (31 + self.partition) + java_string_hash(self.topic)) & 0xFFFFFFFF
        return result - 2**32 if result >= 2**31 else result


def java_string_hash(text: str) -> int:
    """``String.hashCode()`` (over UTF-16 code units), as an unsigned 32-bit value."""
    h = 0
    units = text.encode("utf-16-be")
    for i in range(0, len(units), 2):
        h = (31 * h + int.from_bytes(units[i : i + 2], "big")) & 0xFFFFFFFF
    return h


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
    HASH = 2  # Java hash order (3.7 to 4.1's HashSet of TopicPartition; 0.10.0's topic-grouped
    # HashMaps, group_data_by_topic_order)
    SESSION = 3  # a fetch session's rotation alone: the broker moves partitions that returned
    # records to the end (KIP-227), none forgotten (kipviz.kafka.fetch.session)
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
    return _hash_map_order([tp.java_hash() for tp in tps], copied=copied)


def group_data_by_topic_order(tps: Sequence[TopicPartition]) -> list[int]:
    """Indexes of one node's ``tps`` in the order a 0.10.0 ``FetchRequest`` lists them.

    0.10.0's ``Fetcher.createFetchRequests`` puts the node's partitions in a ``HashMap`` (in the
    order it iterates the fetchable ``HashSet``; here: :func:`java_hash_order`), and
    ``FetchRequest`` regroups them with ``CollectionUtils.groupDataByTopic`` into a
    ``HashMap<String, HashMap<Integer, PartitionData>>``, each filled one put at a time: topics in
    ``String`` hash order, and within a topic partitions in ``Integer`` hash order (the
    partition number modulo the table size), ties in insertion order. A request that lists
    fewer partitions can have a smaller table, hence another order; the model keeps the order of
    all the node's partitions (0.10.1's v3 request keeps the consumer's order instead).

    >>> group_data_by_topic_order([TopicPartition("t", p) for p in (20, 3, 17)])
    [2, 1, 0]
    """
    by_topic: dict[str, list[int]] = {}
    for i in java_hash_order(tps):
        by_topic.setdefault(tps[i].topic, []).append(i)
    topics = list(by_topic)
    out: list[int] = []
    for t in _hash_map_order([java_string_hash(name) for name in topics]):
        group = by_topic[topics[t]]
        out += [group[k] for k in _hash_map_order([tps[i].partition for i in group])]
    return out


def _hash_map_order(hashes: Sequence[int], *, copied: bool = False) -> list[int]:
    """Positions of keys with ``hashCode()`` ``hashes`` (inserted in that order) in a Java
    ``HashMap``'s iteration order (see :func:`java_hash_order`)."""
    n = len(hashes)
    if copied:
        wanted = max(int(n / 0.75) + 1, 16)
        capacity = 1 << (wanted - 1).bit_length()
    else:
        capacity = 16
        while n > capacity * 0.75:
            capacity *= 2

    def bucket(i: int) -> int:
        h = hashes[i] & 0xFFFFFFFF
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
