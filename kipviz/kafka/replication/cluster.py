"""A reassignment as a cluster does it: who sends, who receives, who leads after, who is counted.

``kafka-reassign-partitions --execute --throttle T`` (``ReassignPartitionsCommand``) sets both
rates on every broker of the plan (``calculateReassigningBrokers``: sources and destinations of
every listed partition, ``modifyInterBrokerThrottle``), lists every *current* replica of every
listed partition in ``leader.replication.throttled.replicas`` (``calculateLeaderThrottles``,
unchanged partitions included) and the added ones in ``follower.replication.throttled.replicas``
(``calculateFollowerThrottles``). So each quota is **per broker**:

* a leader's quota records every byte it sends for the listed partitions it leads (``KafkaApis``:
  ``quotas.leader.record(sizeOfThrottledPartitions(...))``): its in-sync followers' keep-up
  (IN_p each) and the new replicas' copying, and throttles only the out-of-sync ones
  (``ReplicaManager.shouldLeaderThrottle``: not in the ISR, listed, quota exceeded; KAFKA-4313);
* a destination's quota records what its new replicas append (``ReplicaFetcherThread``:
  ``quota.record(records.sizeInBytes)`` when listed), in sync or not, and leaves the out-of-sync
  ones out of its requests while exceeded (``RemoteLeaderEndPoint.buildFetch`` /
  ``shouldFollowerThrottle``: by the follower's own lag).

A partition's move completes when all its new replicas are in the ISR (``Partition.
maybeExpandIsr``: caught up to the high watermark); its removed replicas leave in the same change
and, if the leader was removed, the first target replica in the new ISR leads
(``PartitionChangeBuilder.electAnyLeader``: the current leader while it is a valid target, else
the first valid one in target order). A new leader that was not a source is in no leader list.
The lists stay until ``--verify`` finds no reassignment running (``--preserve-throttles`` keeps
them), so a caught-up replica's keep-up is recorded by both quotas to the end.

:class:`PartitionMove` is one listed partition with its size and produce rate IN_p (pinned:
an input; a topic's rate is split over its partitions by size, :func:`split_bytes_in`);
:func:`partition_moves` builds them from a plan; :func:`broker_loads` gives the per-broker
closed forms (a destination needs ``bytes / (T - IN of its new replicas)``, a leader
``bytes / (T - IN x its followers and new replicas)``), each a lower bound of the move time,
which is a flow schedule (:mod:`kipviz.kafka.replication.flow`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property

from kipviz.kafka.config.checks import check_int as _check_int
from kipviz.kafka.config.checks import check_number as _check_number
from kipviz.kafka.fetch.request import TopicPartition
from kipviz.kafka.replication.reassignment import ReassignmentPlan, partition_size

__all__ = ["BrokerLoad", "PartitionMove", "broker_loads", "leader_after_move", "make_move",
           "partition_moves", "split_bytes_in"]


def leader_after_move(sources: Sequence[int], targets: Sequence[int], leader: int) -> int:
    """Who leads once the move completes: ``leader`` if it is a target, else the first target
    (all targets are then in the ISR; ``PartitionChangeBuilder.electAnyLeader``).

    >>> leader_after_move((1, 2, 3), (4, 2, 3), 1), leader_after_move((1, 2), (4, 1), 1)
    (4, 1)
    """
    return leader if leader in targets else targets[0]


@dataclass(frozen=True)
class PartitionMove:
    """One partition of a plan: ``sources`` (current replicas), ``targets`` (proposed),
    ``leader`` (leading while it moves), ``size_bytes`` at the start and ``bytes_in_per_s``
    (IN_p, what producers append to it). What follows from them is worked out once per move
    (``cached_property``: a 2,000-partition plan asks for it tens of thousands of times)."""

    topic: str
    partition: int
    sources: tuple[int, ...]
    targets: tuple[int, ...]
    leader: int
    size_bytes: int
    bytes_in_per_s: float

    @property
    def tp(self) -> TopicPartition:
        """The partition (``str()`` gives ``topic-partition``)."""
        return TopicPartition(self.topic, self.partition)

    @cached_property
    def added(self) -> tuple[int, ...]:
        """The new replicas, in target order: each copies the whole log (follower-listed)."""
        return tuple(b for b in self.targets if b not in self.sources)

    @cached_property
    def removed(self) -> tuple[int, ...]:
        """The replicas that leave when the move completes."""
        return tuple(b for b in self.sources if b not in self.targets)

    @cached_property
    def leader_after(self) -> int:
        """The leader once the move completes (:func:`leader_after_move`)."""
        return leader_after_move(self.sources, self.targets, self.leader)

    @property
    def followers(self) -> int:
        """The current followers (in sync) counted by the leader's quota while it moves."""
        return len(self.sources) - 1

    @cached_property
    def followers_after(self) -> int:
        """The retained followers counted by the new leader's quota after the move: none when
        the new leader was not a source (it is in no leader list)."""
        if self.leader_after not in self.sources:
            return 0
        return sum(1 for b in self.sources if b in self.targets and b != self.leader_after)


def _check_broker_list(name: str, value: Sequence[int]) -> tuple[int, ...]:
    brokers = tuple(_check_int(name, b, 0) for b in value)
    if not brokers or len(set(brokers)) != len(brokers):
        raise ValueError(f"{name} must be a non-empty list of distinct broker ids: {value!r}")
    return brokers


def make_move(topic: str, partition: int, sources: Sequence[int], targets: Sequence[int], *,
              size_bytes: int, bytes_in_per_s: float = 0.0, leader: int | None = None
              ) -> PartitionMove:
    """A checked :class:`PartitionMove` (``leader`` None: the first source)."""
    where = f"{topic}-{partition}"
    src = _check_broker_list(f"sources of {where}", sources)
    dst = _check_broker_list(f"targets of {where}", targets)
    lead = src[0] if leader is None else _check_int(f"leader of {where}", leader, 0)
    if lead not in src:
        raise ValueError(f"leader of {where} must be one of its current replicas {list(src)}: "
                         f"{lead}")
    return PartitionMove(topic, partition, src, dst, lead,
                         _check_int(f"partition_sizes[{where!r}]", size_bytes, 0),
                         _check_number(f"bytes_in_per_s[{where!r}]", bytes_in_per_s, 0,
                                       finite=True))


def split_bytes_in(bytes_in_per_s: Mapping[str, float], partition_sizes: Mapping[str, int]
                   ) -> dict[str, float]:
    """IN per partition (``"topic-partition"`` -> bytes/s) from rates per partition or per topic.

    A key that is a partition of ``partition_sizes`` is that partition's rate; any other key is
    a topic, whose rate is split over its partitions in ``partition_sizes`` by size (equally when
    all are empty). A topic and one of its partitions may not both be given.

    >>> split_bytes_in({"orders": 9e6}, {"orders-0": 2, "orders-1": 1})
    {'orders-0': 6000000.0, 'orders-1': 3000000.0}
    """
    out: dict[str, float] = {}
    by_topic: dict[str, list[str]] = {}
    for key in partition_sizes:
        by_topic.setdefault(str(key).rpartition("-")[0], []).append(str(key))
    topics = []
    for key, rate in bytes_in_per_s.items():
        value = _check_number(f"bytes_in_per_s[{key!r}]", rate, 0, finite=True)
        if key in partition_sizes:
            out[key] = float(value)
        else:
            topics.append((key, float(value)))
    for topic, rate in topics:
        parts = by_topic.get(topic)
        if not parts:
            raise ValueError(f"bytes_in_per_s must name topics or partitions of partition_sizes"
                             f" (which has {sorted(by_topic)}): {topic!r}")
        clash = sorted(p for p in parts if p in out)
        if clash:
            raise ValueError(f"bytes_in_per_s must give topic {topic!r} or its partitions, not "
                             f"both: {clash}")
        total = sum(partition_sizes[p] for p in parts)
        for p in parts:
            share = partition_sizes[p] / total if total else 1 / len(parts)
            out[p] = rate * share
    return out


def partition_moves(plan: ReassignmentPlan, partition_sizes: Mapping[str, int],
                    bytes_in_per_s: Mapping[str, float], *,
                    leaders: Mapping[str, int] | None = None) -> tuple[PartitionMove, ...]:
    """Every partition the plan lists, in file order, as a :class:`PartitionMove`.

    ``bytes_in_per_s``: per ``"topic-partition"`` (:func:`split_bytes_in` makes it from topic
    rates; a partition not in it has IN 0); ``leaders``: who leads a partition now (pinned
    default: its first current replica)."""
    leaders = leaders or {}
    moves = []
    for cur, new in plan.pairs():
        key = str(new.tp)
        moves.append(make_move(new.topic, new.partition, cur.replicas, new.replicas,
                               size_bytes=partition_size(partition_sizes, key),
                               bytes_in_per_s=bytes_in_per_s.get(key, 0.0),
                               leader=leaders.get(key)))
    return tuple(moves)


@dataclass(frozen=True)
class BrokerLoad:
    """One broker's share of a move and the closed-form times its two quotas allow.

    ``bytes_in``: what its new replicas copy; ``bytes_out``: what it sends them as leader;
    ``new_replica_in``: IN of its new replicas (their keep-up, recorded by its follower quota);
    ``leader_counted_in``: IN x (followers + new replicas) of the listed partitions it leads
    (what its leader quota records besides the copying); ``destination_s`` =
    ``bytes_in / (T_follower - new_replica_in)`` and ``leader_s`` =
    ``bytes_out / (T_leader - leader_counted_in)``: ``inf`` when the headroom is not above 0
    (with bytes to move), 0 with none. Each is a lower bound of the move time."""

    broker: int
    bytes_in: int
    bytes_out: int
    new_replica_in: float
    leader_counted_in: float
    destination_s: float
    leader_s: float


def _time(moved: float, rate: float | None, used: float) -> float:
    if moved == 0:
        return 0.0
    if rate is None:
        return 0.0  # no quota: the flow schedule's other limits decide
    headroom = rate - used
    return moved / headroom if headroom > 0 else math.inf


def broker_loads(moves: Sequence[PartitionMove], leader_rates: Mapping[int, float | None],
                 follower_rates: Mapping[int, float | None]) -> dict[int, BrokerLoad]:
    """Per broker of the plan (sorted), its :class:`BrokerLoad` at these quotas (None:
    unlimited): the per-destination and per-leader rules."""
    brokers = sorted({b for m in moves for b in (*m.sources, *m.targets)})
    acc: dict[int, list[float]] = {b: [0, 0, 0.0, 0.0] for b in brokers}
    for m in moves:
        inbound = m.bytes_in_per_s
        for b in m.added:
            acc[b][0] += m.size_bytes
            acc[b][2] += inbound
        acc[m.leader][1] += m.size_bytes * len(m.added)
        acc[m.leader][3] += inbound * (m.followers + len(m.added))
    return {b: BrokerLoad(b, int(bytes_in), int(bytes_out), new_in, counted,
                          _time(bytes_in, follower_rates.get(b), new_in),
                          _time(bytes_out, leader_rates.get(b), counted))
            for b, (bytes_in, bytes_out, new_in, counted) in acc.items()}
