"""A reassignment plan as ``kafka-reassign-partitions`` reads it, and the throttle lists it sets.

:func:`parse_assignment` checks the entries of a reassignment JSON (``--generate``'s proposed
and current assignments); topic names follow Kafka's rule
(:func:`kipviz.kafka.config.checks.check_topic_name`). :func:`partition_sizes` reads sizes
from what ``kafka-log-dirs --describe`` prints. ``ReassignmentPlan`` works out what moves and the
throttled-replica lists ``--throttle`` sets (``ReassignPartitionsCommand.
calculateProposedMoveMap`` / ``calculateLeaderThrottles`` / ``calculateFollowerThrottles``),
with ``--additional`` keeping ongoing moves in the lists. Reading the files themselves is the
planner's (:mod:`kipviz.apps.planner.files`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from kipviz.kafka.config.checks import check_int as _check_int
from kipviz.kafka.config.checks import check_topic_name
from kipviz.kafka.fetch.request import TopicPartition

__all__ = ["PartitionAssignment", "ReassignmentPlan", "parse_assignment", "partition_size",
           "partition_sizes"]


@dataclass(frozen=True)
class PartitionAssignment:
    """One entry of a reassignment JSON: a partition, its replicas and optional log dirs."""

    topic: str
    partition: int
    replicas: tuple[int, ...]
    log_dirs: tuple[str, ...] | None = None

    @property
    def tp(self) -> TopicPartition:
        """The partition as a ``TopicPartition`` (``str()`` gives ``topic-partition``)."""
        return TopicPartition(self.topic, self.partition)


def _entry(i: int, raw: object) -> PartitionAssignment:
    where = f"partitions[{i}]"
    if not isinstance(raw, Mapping):
        raise ValueError(f"{where} must be an object with topic, partition and replicas: {raw!r}")
    topic, partition = raw.get("topic"), raw.get("partition")
    topic = check_topic_name(topic, where)
    if isinstance(partition, bool) or not isinstance(partition, int) or partition < 0:
        raise ValueError(f"{where} ({topic}): partition must be an integer >= 0: {partition!r}")
    where = f"{where} ({topic}-{partition})"
    replicas = raw.get("replicas")
    if (not isinstance(replicas, list) or not replicas
            or any(isinstance(b, bool) or not isinstance(b, int) or b < 0 for b in replicas)):
        raise ValueError(f"{where}: replicas must be a non-empty list of broker ids >= 0: "
                         f"{replicas!r}")
    if len(set(replicas)) != len(replicas):
        raise ValueError(f"{where}: replicas must be distinct broker ids: {replicas!r}")
    log_dirs = raw.get("log_dirs")
    if log_dirs is not None and (not isinstance(log_dirs, list) or len(log_dirs) != len(replicas)
                                 or not all(isinstance(d, str) for d in log_dirs)):
        raise ValueError(f"{where}: log_dirs must be a list of strings as long as replicas "
                         f"({len(replicas)}): {log_dirs!r}")
    return PartitionAssignment(topic, partition, tuple(replicas),
                               None if log_dirs is None else tuple(log_dirs))


def parse_assignment(data: object, name: str) -> tuple[PartitionAssignment, ...]:
    """The entries of a ``kafka-reassign-partitions`` JSON already loaded (``name`` says which
    file in errors).

    Rules (ValueError naming the entry and the rule): ``version`` 1, a non-empty ``partitions``
    list, each with a non-empty ``topic``, ``partition >= 0``, a non-empty list of distinct
    broker ids >= 0 as ``replicas``, optional ``log_dirs`` of the same length, no partition
    twice.
    """
    if not isinstance(data, Mapping) or data.get("version") != 1:
        raise ValueError(f"{name}: version must be 1")
    raw = data.get("partitions")
    if not isinstance(raw, list) or not raw:
        raise ValueError(f"{name}: partitions must be a non-empty list: {raw!r}")
    entries = tuple(_entry(i, e) for i, e in enumerate(raw))
    first: dict[TopicPartition, int] = {}
    for i, e in enumerate(entries):
        if first.setdefault(e.tp, i) != i:
            raise ValueError(f"{name}: partitions[{i}] ({e.tp}) is listed twice")
    return entries


@dataclass(frozen=True)
class ReassignmentPlan:
    """A proposed assignment (``partitions``) and, if known, the ``current`` one.

    A replica *moves* when its broker is in the proposed list but not in the current one: that
    broker copies the whole partition. Moves need the current assignment.
    """

    partitions: tuple[PartitionAssignment, ...]
    current: tuple[PartitionAssignment, ...] | None = None

    def pairs(self) -> list[tuple[PartitionAssignment, PartitionAssignment]]:
        """Each listed partition's (current, proposed) entries, in file order; ValueError
        without the current assignment or an entry of it."""
        return self._pairs()

    def _pairs(self) -> list[tuple[PartitionAssignment, PartitionAssignment]]:
        now = {e.tp: e for e in self.current or ()}
        if self.current is None:
            raise ValueError("moves need the current assignment: load_reassignment(current=...)")
        missing = [str(e.tp) for e in self.partitions if e.tp not in now]
        if missing:
            raise ValueError(f"current assignment has no entry for {', '.join(missing)}")
        return [(now[e.tp], e) for e in self.partitions]

    def moves(self) -> dict[int, tuple[TopicPartition, ...]]:
        """Per destination broker (sorted), the partitions it gains, in JSON order."""
        out: dict[int, list[TopicPartition]] = {}
        for cur, new in self._pairs():
            for broker in new.replicas:
                if broker not in cur.replicas:
                    out.setdefault(broker, []).append(new.tp)
        return {b: tuple(out[b]) for b in sorted(out)}

    def bytes_per_broker(self, partition_sizes: Mapping[str, int]) -> dict[int, int]:
        """Bytes each destination broker must copy; sizes are keyed ``"topic-partition"``."""
        return {b: sum(partition_size(partition_sizes, str(tp)) for tp in tps)
                for b, tps in self.moves().items()}

    def bytes_to_move(self, partition_sizes: Mapping[str, int]) -> int:
        """Bytes copied over the whole cluster: the numerator of the KIP's move time."""
        return sum(self.bytes_per_broker(partition_sizes).values())

    def brokers(self) -> tuple[int, ...]:
        """Every broker in the current or proposed replicas of the listed partitions, sorted."""
        listed = {e.tp for e in self.partitions}
        entries = self.partitions + tuple(e for e in self.current or () if e.tp in listed)
        return tuple(sorted({b for e in entries for b in e.replicas}))

    def throttled_replicas(self, ongoing: ReassignmentPlan | None = None
                           ) -> dict[str, tuple[str, str]]:
        """Per topic, the (leader, follower) ``*.replication.throttled.replicas`` values.

        As ``kafka-reassign-partitions --throttle`` sets them (``calculateProposedMoveMap``,
        ``calculateLeaderThrottles``, ``calculateFollowerThrottles``): leader = the sources
        (current replicas) of every listed partition, follower = the replicas being added, each
        a sorted set of ``partition:broker`` strings (Java's ``TreeSet``), for every topic with
        a listed partition. ``ongoing``: the reassignment in progress when this one is submitted
        with ``--additional`` (its ``current`` and proposed assignment); its moves stay in the
        lists, and a partition it is moving keeps its sources.
        """
        moves: dict[TopicPartition, tuple[tuple[int, ...], tuple[int, ...]]] = {}
        for cur, new in (ongoing._pairs() if ongoing is not None else []):
            moves[new.tp] = (cur.replicas, tuple(b for b in new.replicas
                                                 if b not in cur.replicas))
        for cur, new in self._pairs():
            sources = moves[new.tp][0] if new.tp in moves else cur.replicas
            moves[new.tp] = (sources, tuple(b for b in new.replicas if b not in sources))
        lists: dict[str, tuple[set[str], set[str]]] = {}
        for tp, (sources, added) in moves.items():
            leader, follower = lists.setdefault(tp.topic, (set(), set()))
            leader.update(f"{tp.partition}:{b}" for b in sources)
            follower.update(f"{tp.partition}:{b}" for b in added)
        return {t: (",".join(sorted(lead)), ",".join(sorted(follow)))
                for t, (lead, follow) in lists.items()}


def partition_size(partition_sizes: Mapping[str, int], key: str) -> int:
    """The size of partition ``key`` (``"topic-partition"``) in ``partition_sizes``, checked (a
    whole number of bytes >= 0); the one "has no size" verdict, for the plan and its moves."""
    if key not in partition_sizes:
        raise ValueError(f"partition_sizes has no size for {key!r}")
    return _check_int(f"partition_sizes[{key!r}]", partition_sizes[key], 0)


def partition_sizes(data: object) -> dict[str, int]:
    """Partition sizes in bytes keyed ``"topic-partition"`` from loaded JSON: a flat mapping
    (``{"orders-0": 5000000000}``) or what ``kafka-log-dirs --describe --json`` prints
    (``{"brokers": [{"broker": 1, "logDirs": [{"partitions": [{"partition": "orders-0",
    "size": ...}]}]}]}``), where a partition's size is its largest replica (future replicas of an
    ongoing move, ``isFuture``, left out).
    """
    if not isinstance(data, Mapping):
        raise ValueError(f"partition sizes must be a JSON object: {data!r}")
    if "brokers" not in data:
        return {str(k): _check_int(f"partition_sizes[{k!r}]", v, 0) for k, v in data.items()}
    sizes: dict[str, int] = {}
    try:
        for broker in data["brokers"]:
            for log_dir in broker.get("logDirs", ()):
                for part in log_dir.get("partitions", ()):
                    if part.get("isFuture"):
                        continue
                    key = str(part["partition"])
                    size = _check_int(f"size of {key!r} on broker {broker.get('broker')}",
                                      part["size"], 0)
                    sizes[key] = max(size, sizes.get(key, 0))
    except (TypeError, KeyError, AttributeError) as err:
        raise ValueError(f"not kafka-log-dirs --describe output: {err!r}") from err
    return sizes
