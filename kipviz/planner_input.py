"""Reading a reassignment: the JSON ``kafka-reassign-partitions`` and ``kafka-log-dirs`` print.

``load_reassignment`` reads what ``kafka-reassign-partitions --generate`` writes (proposed and,
optionally, current assignment); ``load_partition_sizes`` what ``kafka-log-dirs --describe``
prints (two status lines, then the JSON) or a flat ``{"topic-partition": bytes}`` mapping.
File errors name the file and the line; topic names follow Kafka's rule (``Topic.validate``:
1 to 249 characters of ``[a-zA-Z0-9._-]``, not ``.`` or ``..``). ``ReassignmentPlan`` works out
what moves and the throttled-replica lists ``--throttle`` sets
(``ReassignPartitionsCommand.calculateProposedMoveMap`` / ``calculateLeaderThrottles`` /
``calculateFollowerThrottles``), with ``--additional`` keeping ongoing moves in the lists.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kipviz._checks import check_int as _check_int
from kipviz.fetch import TopicPartition

__all__ = [
    "PartitionAssignment",
    "ReassignmentPlan",
    "check_topic_name",
    "load_partition_sizes",
    "load_reassignment",
    "read_json",
]

Source = str | os.PathLike[str] | Mapping[str, Any]
_TOPIC = re.compile(r"[a-zA-Z0-9._-]+")
_TOPIC_MAX = 249  # Topic.MAX_NAME_LENGTH


def check_topic_name(topic: object, where: str = "topic") -> str:
    """``topic`` if Kafka accepts it as a topic name (``Topic.validate``), else ValueError."""
    if not isinstance(topic, str) or not topic:
        raise ValueError(f"{where}: topic must be a non-empty string: {topic!r}")
    if topic in (".", ".."):
        raise ValueError(f"{where}: topic name cannot be '.' or '..': {topic!r}")
    if len(topic) > _TOPIC_MAX:
        raise ValueError(f"{where}: topic name must be at most {_TOPIC_MAX} characters long: "
                         f"{len(topic)} characters")
    if not _TOPIC.fullmatch(topic):
        raise ValueError(f"{where}: topic name {topic!r} is illegal, it contains a character "
                         f"other than ASCII alphanumerics, '.', '_' and '-'")
    return topic


def read_json(path: str | os.PathLike[str], what: str) -> Any:
    """The JSON in the file at ``path``, after any lines of text before it (as
    ``kafka-log-dirs --describe`` prints); ValueError naming the file (and the line) if it
    cannot be read or is not JSON."""
    name = os.fspath(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise ValueError(f"{what} file {name!r} cannot be read: {err}") from err
    lines = text.splitlines(keepends=True)
    skipped = next((i for i, line in enumerate(lines) if line.lstrip().startswith(("{", "["))),
                   None)
    if skipped is None:
        detail = "it is empty" if not text.strip() else "it holds no JSON object"
        raise ValueError(f"{what} file {name!r} is not JSON: {detail}")
    try:
        return json.loads("".join(lines[skipped:]))
    except json.JSONDecodeError as err:
        raise ValueError(f"{what} file {name!r}, line {err.lineno + skipped}, column "
                         f"{err.colno}: not JSON: {err.msg}") from err


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


def _parse(source: Source, name: str) -> tuple[PartitionAssignment, ...]:
    data = source if isinstance(source, Mapping) else read_json(source, name)
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
        def size(key: str) -> int:
            if key not in partition_sizes:
                raise ValueError(f"partition_sizes has no size for {key!r}")
            return _check_int(f"partition_sizes[{key!r}]", partition_sizes[key], 0)

        return {b: sum(size(str(tp)) for tp in tps) for b, tps in self.moves().items()}

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


def load_reassignment(path_or_mapping: Source, *,
                      current: Source | None = None) -> ReassignmentPlan:
    """Parse a ``kafka-reassign-partitions`` JSON (a path or an already-loaded mapping).

    Rules (ValueError naming the entry and the rule): ``version`` 1, a non-empty ``partitions``
    list, each with a non-empty ``topic``, ``partition >= 0``, a non-empty list of distinct broker
    ids >= 0 as ``replicas``, optional ``log_dirs`` of the same length, no partition twice.
    """
    return ReassignmentPlan(_parse(path_or_mapping, "reassignment"),
                            None if current is None else _parse(current, "current"))


def load_partition_sizes(path_or_mapping: Source) -> dict[str, int]:
    """Partition sizes in bytes keyed ``"topic-partition"``, for ``bytes_per_broker``.

    Takes a flat mapping (``{"orders-0": 5000000000}``) or what ``kafka-log-dirs.sh --describe
    --json`` prints (``{"brokers": [{"broker": 1, "logDirs": [{"partitions": [{"partition":
    "orders-0", "size": ...}]}]}]}``), where a partition's size is its largest replica (future
    replicas of an ongoing move, ``isFuture``, left out).
    """
    data = (path_or_mapping if isinstance(path_or_mapping, Mapping)
            else read_json(path_or_mapping, "partition sizes"))
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
