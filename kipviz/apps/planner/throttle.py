"""KIP-73 throttle planner: a reassignment in, a throttle, its real move time and the commands out.

``plan_throttle`` applies the one move-time rule of :mod:`kipviz.kafka.replication.planning` and
its verdict (``throttle_verdict``) to brokers, network N, bytes-in IN, replication factor R and
the bytes to move, counting the F in-sync followers ``kafka-reassign-partitions --throttle``
puts under the leader's quota (F = R - 1 by default; F = 0 is KIP-73's idealisation): the range
``(F + 1) x IN < T < N - IN/R`` (Q&A 4), the move time ``bytes / (T - (F + 1) x IN)`` (Q&A 1),
the largest safe ``replica.fetch.response.max.bytes`` (Q&A 5). KIP-1023 (Kafka 4.3, tiered
storage, opt-in ``follower.fetch.last.tiered.offset.enable``) leaves only the local part of a log
to copy.
``plan_log_dir_move`` does the arithmetic of a move between log dirs of one broker
(``ReplicaAlterLogDirsThread``, ``replica.alter.log.dirs.io.max.bytes.per.second``).
``ThrottlePlan.to_text`` says which replicas count against the quota and writes the
``kafka-configs`` and ``kafka-reassign-partitions`` commands, every value shell-quoted.
The files are read by :mod:`kipviz.apps.planner.files`.
"""

from __future__ import annotations

import math
import shlex
from collections.abc import Mapping
from dataclasses import dataclass

from kipviz.kafka.config.checks import check_int as _check_int
from kipviz.kafka.config.checks import check_not_both, check_topic_name
from kipviz.kafka.config.checks import check_number as _check_number
from kipviz.kafka.config.settings import BrokerConfig
from kipviz.kafka.replication.planning import (
    THROTTLED_RATE,
    clients_keep_bytes_per_s,
    max_replica_fetch_response_bytes,
    move_time_s,
    resolve_in_sync_followers,
    throttle_bounds,
    throttle_verdict,
)
from kipviz.kafka.replication.reassignment import ReassignmentPlan
from kipviz.kafka.units import MB

__all__ = [
    "ThrottlePlan",
    "log_bytes_to_copy",
    "plan_log_dir_move",
    "plan_throttle",
    "throttle_commands",
]

_RATE = THROTTLED_RATE


@dataclass(frozen=True)
class ThrottlePlan:
    """What ``plan_throttle`` worked out; rates in bytes/s, times in s, sizes in bytes.

    ``in_sync_followers`` (F): the followers the leader's quota counts besides the new replica.
    ``throttle_range``: the open interval ``((F + 1) x IN, N - IN/R)``, or None and
    ``range_reason``. ``throttle_bytes_per_s``: the chosen T, or None (``reason`` says why, and
    the results after it are None too). ``move_time_s``: ``bytes / (T - (F + 1) x IN)``, ``inf``
    if the move never finishes; ``kip_move_time_s``: KIP-73's ``bytes / (T - IN)`` (F = 0) beside
    it. Q&A 4 sizes a broker's network as T plus the unthrottled produce traffic IN/R of its
    leaders, so clients have ``client_bytes_per_s = N - IN/R - T`` left to grow into.
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
    in_sync_followers: int = 0
    kip_move_time_s: float | None = None

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

    def _counted(self) -> list[str]:
        f, inbound = self.in_sync_followers, self.bytes_in_per_s
        return [f"counted by the leader quota (leader.replication.throttled.replicas = the "
                f"moving partitions' current replicas, as --throttle sets it): the new replica "
                f"and {f} in-sync follower{'s' * (f != 1)} ({f} x IN = {f * inbound / MB:g} "
                f"MB/s of keep-up, counted but never throttled); the new replica nets "
                f"T - {f + 1} x IN",
                "counted by the follower quota (follower.replication.throttled.replicas): "
                "the new replicas only"]

    def to_text(self, reassignment: ReassignmentPlan | None = None, *,
                bootstrap_server: str = "localhost:9092", additional: bool = False,
                ongoing: ReassignmentPlan | None = None,
                reassignment_json_file: str = "reassignment.json") -> str:
        """A short operator report and the commands that set the throttle, values quoted.

        ``additional``: the move is submitted beside one in progress (``--additional``);
        ``ongoing`` is that one, whose moves stay in the throttled-replica lists.
        """
        r, t, f = self.throttle_range, self.throttle_bytes_per_s, self.in_sync_followers
        low = "IN" if f == 0 else f"{f + 1} x IN"
        lines = [f"KIP-73 throttle plan: {self.brokers} brokers, N = "
                 f"{self.network_bytes_per_s / MB:g} MB/s, IN = {self.bytes_in_per_s / MB:g} "
                 f"MB/s, R = {self.replication_factor}, {self.bytes_to_move / MB:g} MB to move",
                 *self._counted(),
                 f"workable range: none ({self.range_reason})" if r is None
                 else f"workable range: {low} < T < N - IN/R: {r[0] / MB:g} < T < "
                      f"{r[1] / MB:g} MB/s"]
        lines += [f"warning: {self.reason}"] if self.reason else []
        if t is None or self.move_time_s is None:
            return "\n".join(lines)
        done = f"{self.move_time_s:.0f} s" if self.finishes else "never finishes"
        kip = self.kip_move_time_s if self.kip_move_time_s is not None else math.inf
        kip_text = f"{kip:.0f} s" if kip < math.inf else "never"
        lines += [f"throttle T: {t} B/s ({t / MB:g} MB/s); move time: {done} "
                  f"(KIP-73's T - IN, no followers counted: {kip_text})",
                  f"client bandwidth left per broker: {(self.client_bytes_per_s or 0) / MB:g} MB/s",
                  f"keep replica.fetch.response.max.bytes below "
                  f"{self.replica_fetch_response_max_bytes or 0:.0f} (default "
                  f"{BrokerConfig().replica_fetch_response_max_bytes})", ""]
        brokers = [str(b) for b in reassignment.brokers()] if reassignment else ["BROKER_ID"]
        lines += throttle_commands(reassignment, dict.fromkeys(brokers, t), t,
                                   bootstrap_server=bootstrap_server, additional=additional,
                                   ongoing=ongoing, reassignment_json_file=reassignment_json_file)
        return "\n".join(lines)


def throttle_commands(reassignment: ReassignmentPlan | None, broker_rates: Mapping[str, int],
                      throttle: int, *, bootstrap_server: str = "localhost:9092",
                      additional: bool = False, ongoing: ReassignmentPlan | None = None,
                      reassignment_json_file: str = "reassignment.json") -> list[str]:
    """The ``kafka-configs`` commands setting each broker's two rates (``broker_rates``) and each
    topic's throttled-replica lists, then ``kafka-reassign-partitions --execute --throttle
    throttle`` (which sets all of it at once) and ``--verify``; every value shell-quoted."""
    q = shlex.quote
    server = q(bootstrap_server)
    cmd = f"kafka-configs.sh --bootstrap-server {server}"
    lines = []
    for b, t in broker_rates.items():
        rates = f"leader.replication.throttled.rate={t},follower.replication.throttled.rate={t}"
        lines.append(f"{cmd} --entity-type brokers --entity-name {q(b)} --alter --add-config "
                     f"{q(rates)}")
    if reassignment is not None and reassignment.current is not None:
        lists = reassignment.throttled_replicas(ongoing if additional else None)
        for topic, (lead, follow) in lists.items():
            lines.append(f"{cmd} --entity-type topics --entity-name "
                         f"{q(check_topic_name(topic))} --alter --add-config "
                         + q(f"leader.replication.throttled.replicas=[{lead}],"
                             f"follower.replication.throttled.replicas=[{follow}]"))
    tool = (f"kafka-reassign-partitions.sh --bootstrap-server {server} "
            f"--reassignment-json-file {q(reassignment_json_file)}")
    lines += ["", "or let the tool set all of it (and keep ongoing moves throttled with "
                  "--additional):" if additional else "or let the tool set all of it:",
              f"{tool} --execute --throttle {throttle}" + (" --additional" * additional),
              f"{tool} --verify   # removes every throttle once all moves are done; "
              f"add --preserve-throttles to keep them"]
    return lines


def log_bytes_to_copy(log_bytes: float, *, local_log_bytes: float | None = None,
                      follower_fetch_last_tiered_offset_enable: bool = False) -> float:
    """Bytes a new replica copies: the whole log, or with KIP-1023 (Kafka 4.3, tiered storage,
    ``follower.fetch.last.tiered.offset.enable``, default false) only its local part: the new
    follower starts from the last tiered offset and reads the rest from remote storage."""
    total = _check_number("log_bytes", log_bytes, 0)
    if not isinstance(follower_fetch_last_tiered_offset_enable, bool):
        raise ValueError("follower_fetch_last_tiered_offset_enable "
                         "(follower.fetch.last.tiered.offset.enable) must be a bool: "
                         f"{follower_fetch_last_tiered_offset_enable!r}")
    if local_log_bytes is None:
        return total
    local = _check_number("local_log_bytes", local_log_bytes, 0)
    if local > total:
        raise ValueError(f"local_log_bytes must be <= log_bytes = {total:g}: {local:g}")
    return local if follower_fetch_last_tiered_offset_enable else total


def plan_log_dir_move(*, bytes_to_move: float, throttle_bytes_per_s: float,
                      bytes_in_per_s: float) -> float:
    """Seconds to move replicas between log dirs of one broker (``kafka-reassign-partitions
    --replica-alter-log-dirs-throttle`` sets ``replica.alter.log.dirs.io.max.bytes.per.second``).

    ``ReplicaAlterLogDirsThread`` copies the current log into the future one and records every
    byte it appends against that quota; no leader quota and no followers are involved, so the
    future replica nets T - IN (IN: the produce rate of the partitions moving). ``inf`` if never.
    """
    return move_time_s(1.0, _check_number("bytes_to_move", bytes_to_move, 0), 1,
                       _check_number("throttle_bytes_per_s "
                                     "(replica.alter.log.dirs.io.max.bytes.per.second)",
                                     throttle_bytes_per_s, 0), bytes_in_per_s)


def plan_throttle(*, brokers: int, network_bytes_per_s: float, bytes_in_per_s: float,
                  replication_factor: int, bytes_to_move: float,
                  target_completion_s: float | None = None,
                  throttle_bytes_per_s: float | None = None,
                  window_total_s: float = 11,
                  in_sync_followers: int | None = None) -> ThrottlePlan:
    """Plan a reassignment throttle (rates per broker) with the followers ``--throttle`` counts.

    ``in_sync_followers`` (F): None is ``replication_factor - 1``, what ``--throttle`` sets up;
    0 is KIP-73's arithmetic as written. T (whole bytes/s, as Kafka's long config) is the given
    ``throttle_bytes_per_s``; else, for a ``target_completion_s``, the smallest T meeting it,
    ``ceil((F + 1) x IN + bytes_to_move / target)``, if it lies in the workable range; else the
    floor of the middle of the range. ``bytes_to_move`` is the cluster total (the KIP's
    MoveRatio x TotalLogSizePerBroker x #Brokers; see ``log_bytes_to_copy`` for KIP-1023). An
    empty range or a T that never finishes is reported, not raised (see ``require_workable``).
    ``window_total_s`` is the KIP's total quota window (Q&A 5).
    """
    brokers = _check_int("brokers", brokers, 1)
    _check_number("network_bytes_per_s", network_bytes_per_s, 0, strict=True)
    _check_int("replication_factor", replication_factor, 1)
    f = resolve_in_sync_followers(in_sync_followers, replication_factor)
    moved = _check_number("bytes_to_move", bytes_to_move, 0)
    inbound = _check_number("bytes_in_per_s", bytes_in_per_s, 0)
    check_not_both("target_completion_s", target_completion_s,
                   "throttle_bytes_per_s", throttle_bytes_per_s)
    if target_completion_s is not None:
        _check_number("target_completion_s", target_completion_s, 0, strict=True)
    _check_number("window_total_s", window_total_s, 0, strict=True)
    for name, value in (("network_bytes_per_s", network_bytes_per_s),
                        ("bytes_in_per_s", inbound), ("bytes_to_move", moved)):
        if not math.isfinite(value):
            raise ValueError(f"{name} must be finite: {value}")
    bounds: tuple[float, float] | None = None
    range_reason = ""
    try:
        bounds = throttle_bounds(inbound, network_bytes_per_s, replication_factor,
                                 in_sync_followers=f)
    except ValueError as e:  # arguments are checked above: only an empty range is left
        range_reason = str(e)
    t: int | None = None
    reason = range_reason
    if throttle_bytes_per_s is not None:
        given = _check_number(f"throttle_bytes_per_s ({_RATE})", throttle_bytes_per_s, 0)
        if not given < 2**63:
            raise ValueError(f"throttle_bytes_per_s ({_RATE}) must be a whole number of bytes/s "
                             f"up to Java's Long.MAX_VALUE (None: no throttle): {given}")
        t = math.floor(given)
    elif bounds is not None:
        lo, hi = bounds
        target = target_completion_s is not None and moved > 0
        need = ((f + 1) * inbound + moved / target_completion_s
                if target_completion_s is not None and moved > 0 else (lo + hi) / 2)
        t = math.ceil(need) if target and need < 2**63 else math.floor(min(need, 2**63 - 1))
        if not lo < t < hi:
            why = (f"meeting target_completion_s = {target_completion_s:g} s needs {_RATE} = "
                   f"{t} B/s" if target else "the middle of the range is no whole B/s rate")
            reason, t = f"{why}, outside {lo:g} < T < {hi:g}", None
    time_s = kip = client = response = None
    if t is not None:
        time_s = move_time_s(1.0, moved, 1, t, inbound, in_sync_followers=f)
        kip = move_time_s(1.0, moved, 1, t, inbound)
        client = clients_keep_bytes_per_s(network_bytes_per_s, inbound, replication_factor, t)
        response = max_replica_fetch_response_bytes(t, window_total_s, network_bytes_per_s, brokers)
        reason = throttle_verdict(t, inbound, network_bytes_per_s, replication_factor,
                                  in_sync_followers=f)
    return ThrottlePlan(brokers, network_bytes_per_s, inbound, replication_factor, moved,
                        window_total_s, target_completion_s, bounds, range_reason, t, reason,
                        time_s, time_s is not None and time_s < math.inf, client, response,
                        f, kip)
