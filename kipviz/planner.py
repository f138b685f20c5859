"""KIP-73 throttle planner: a reassignment JSON in, a throttle and the commands to set it out.

``load_reassignment`` reads what ``kafka-reassign-partitions --generate`` writes (proposed and,
optionally, current assignment). ``plan_throttle`` applies the KIP's Q&A arithmetic from
``kipviz.quota`` to brokers, network N, bytes-in IN, replication factor R and the bytes to move:
the range ``IN < T < N - IN/R`` (Q&A 4), the move time (Q&A 1), the largest safe
``replica.fetch.response.max.bytes`` (Q&A 5); ``ThrottlePlan.to_text`` adds ``kafka-configs``.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kipviz._checks import check_int as _check_int
from kipviz._checks import check_number as _check_number
from kipviz.config import BrokerConfig
from kipviz.fetch import TopicPartition
from kipviz.quota import max_replica_fetch_response_bytes, move_time_s, throttle_bounds

__all__ = [
    "PartitionAssignment",
    "ReassignmentPlan",
    "ThrottlePlan",
    "load_partition_sizes",
    "load_reassignment",
    "plan_throttle",
]

_RATE = "leader.replication.throttled.rate / follower.replication.throttled.rate"
Source = str | os.PathLike[str] | Mapping[str, Any]


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
    if not isinstance(topic, str) or not topic:
        raise ValueError(f"{where}: topic must be a non-empty string: {topic!r}")
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
    data = (source if isinstance(source, Mapping)
            else json.loads(Path(source).read_text(encoding="utf-8")))
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

    def throttled_replicas(self) -> dict[str, tuple[str, str]]:
        """Per topic, the (leader, follower) ``*.replication.throttled.replicas`` values.

        As Kafka's reassignment tool sets them: leader = current replicas of each moving
        partition, follower = replicas being added, both as ``partition:broker`` lists.
        """
        lists: dict[str, tuple[list[str], list[str]]] = {}
        for cur, new in self._pairs():
            added = [b for b in new.replicas if b not in cur.replicas]
            if added:
                leader, follower = lists.setdefault(new.topic, ([], []))
                leader += [f"{new.partition}:{b}" for b in cur.replicas]
                follower += [f"{new.partition}:{b}" for b in added]
        return {t: (",".join(lead), ",".join(follow)) for t, (lead, follow) in lists.items()}


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
            else json.loads(Path(path_or_mapping).read_text(encoding="utf-8")))
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


@dataclass(frozen=True)
class ThrottlePlan:
    """What ``plan_throttle`` worked out; rates in bytes/s, times in s, sizes in bytes.

    ``throttle_range``: the open interval ``(IN, N - IN/R)``, or None and ``range_reason``.
    ``throttle_bytes_per_s``: the chosen T, or None (``reason`` says why, and the results after
    it are None too). ``move_time_s`` is ``inf`` if the move never finishes. Q&A 4 sizes a
    broker's network as T plus the unthrottled produce traffic IN/R of its leaders, so clients
    have ``client_bytes_per_s = N - IN/R - T`` left to grow into: > 0 exactly when T < N - IN/R.
    """

    brokers: int
    network_bytes_per_s: float
    bytes_in_per_s: float
    replication_factor: int
    bytes_to_move: float
    window_total_s: float
    target_completion_s: float | None
    throttle_range: tuple[float, float] | None
    range_reason: str
    throttle_bytes_per_s: int | None
    reason: str
    move_time_s: float | None
    finishes: bool
    client_bytes_per_s: float | None
    replica_fetch_response_max_bytes: float | None

    @property
    def workable(self) -> bool:
        """A throttle was chosen, it lies inside the workable range and the move finishes."""
        r, t = self.throttle_range, self.throttle_bytes_per_s
        return r is not None and t is not None and r[0] < t < r[1] and self.finishes

    def require_workable(self) -> ThrottlePlan:
        """This plan, or ValueError with the reason when it is not ``workable``."""
        if not self.workable:
            raise ValueError(self.reason or self.range_reason)
        return self

    def to_text(self, reassignment: ReassignmentPlan | None = None, *,
                bootstrap_server: str = "localhost:9092") -> str:
        """A short operator report and the ``kafka-configs`` commands that set the throttle."""
        mb = 1e6
        r, t = self.throttle_range, self.throttle_bytes_per_s
        lines = [f"KIP-73 throttle plan: {self.brokers} brokers, N = "
                 f"{self.network_bytes_per_s / mb:g} MB/s, IN = {self.bytes_in_per_s / mb:g} "
                 f"MB/s, R = {self.replication_factor}, {self.bytes_to_move / mb:g} MB to move",
                 f"workable range: none ({self.range_reason})" if r is None
                 else f"workable range: {r[0] / mb:g} < T < {r[1] / mb:g} MB/s"]
        lines += [f"warning: {self.reason}"] if self.reason else []
        if t is None or self.move_time_s is None:
            return "\n".join(lines)
        done = f"{self.move_time_s:.0f} s" if self.finishes else "never finishes"
        lines += [f"throttle T: {t} B/s ({t / mb:g} MB/s); move time: {done}",
                  f"client bandwidth left per broker: {(self.client_bytes_per_s or 0) / mb:g} MB/s",
                  f"keep replica.fetch.response.max.bytes below "
                  f"{self.replica_fetch_response_max_bytes or 0:.0f} (default "
                  f"{BrokerConfig().replica_fetch_response_max_bytes})", ""]
        cmd = f"kafka-configs.sh --bootstrap-server {bootstrap_server}"
        rates = f"leader.replication.throttled.rate={t},follower.replication.throttled.rate={t}"
        brokers = [str(b) for b in reassignment.brokers()] if reassignment else ["BROKER_ID"]
        lines += [f"{cmd} --entity-type brokers --entity-name {b} --alter --add-config '{rates}'"
                  for b in brokers]
        if reassignment is not None and reassignment.current is not None:
            for topic, (lead, follow) in reassignment.throttled_replicas().items():
                lines.append(f"{cmd} --entity-type topics --entity-name {topic} --alter "
                             f"--add-config 'leader.replication.throttled.replicas=[{lead}],"
                             f"follower.replication.throttled.replicas=[{follow}]'")
        return "\n".join(lines)


def plan_throttle(*, brokers: int, network_bytes_per_s: float, bytes_in_per_s: float,
                  replication_factor: int, bytes_to_move: float,
                  target_completion_s: float | None = None,
                  throttle_bytes_per_s: float | None = None,
                  window_total_s: float = 11) -> ThrottlePlan:
    """Plan a reassignment throttle with the KIP-73 Q&A arithmetic (rates per broker).

    T (whole bytes/s, as Kafka's long config) is the given ``throttle_bytes_per_s``; else, for a
    ``target_completion_s``, the smallest T meeting it, ``ceil(IN + bytes_to_move / target)``, if
    it lies in the workable range; else (no target, nothing to move) the floor of the middle of
    the range, splitting the headroom evenly between the move and the clients. ``bytes_to_move``
    is the cluster total (the KIP's MoveRatio x TotalLogSizePerBroker x #Brokers). An empty range
    or a T that never finishes is reported, not raised (see ``require_workable``).
    ``window_total_s`` is the KIP's total quota window (Q&A 5).
    """
    brokers = _check_int("brokers", brokers, 1)
    _check_number("network_bytes_per_s", network_bytes_per_s, 0, strict=True)
    _check_int("replication_factor", replication_factor, 1)
    moved = _check_number("bytes_to_move", bytes_to_move, 0)
    inbound = _check_number("bytes_in_per_s", bytes_in_per_s, 0)
    if target_completion_s is not None and throttle_bytes_per_s is not None:
        raise ValueError("give target_completion_s or throttle_bytes_per_s, not both")
    if target_completion_s is not None:
        _check_number("target_completion_s", target_completion_s, 0, strict=True)
    _check_number("window_total_s", window_total_s, 0, strict=True)
    bounds: tuple[float, float] | None = None
    range_reason = ""
    try:
        bounds = throttle_bounds(inbound, network_bytes_per_s, replication_factor)
    except ValueError as e:  # arguments are checked above: only an empty range is left
        range_reason = str(e)
    t: int | None = None
    reason = range_reason
    if throttle_bytes_per_s is not None:
        t = math.floor(_check_number(f"throttle_bytes_per_s ({_RATE})", throttle_bytes_per_s, 0))
    elif bounds is not None:
        lo, hi = bounds
        target = target_completion_s is not None and moved > 0
        t = (math.ceil(inbound + moved / target_completion_s)
             if target_completion_s is not None and moved > 0 else math.floor((lo + hi) / 2))
        if not lo < t < hi:
            need = (f"meeting target_completion_s = {target_completion_s:g} s needs {_RATE} = "
                    f"{t} B/s" if target else "the middle of the range is no whole B/s rate")
            reason, t = f"{need}, outside {lo:g} < T < {hi:g}", None
    time_s = client = response = None
    if t is not None:
        time_s = move_time_s(1.0, moved, 1, t, inbound)  # ratio 1 x the cluster total x 1
        client = network_bytes_per_s - inbound / replication_factor - t
        response = max_replica_fetch_response_bytes(t, window_total_s, network_bytes_per_s, brokers)
        if not t > inbound:
            reason = (f"{_RATE} = {t} B/s must be above bytes_in_per_s (IN) = {inbound:g}: "
                      "no move ever finishes")
        elif bounds is not None and not t < bounds[1]:
            reason = (f"{_RATE} = {t} B/s is not below N - IN/R = {bounds[1]:g}: "
                      "clients lose bandwidth")
    return ThrottlePlan(brokers, network_bytes_per_s, inbound, replication_factor, moved,
                        window_total_s, target_completion_s, bounds, range_reason, t, reason,
                        time_s, time_s is not None and time_s < math.inf, client, response)
