"""When does a real reassignment finish under a throttle? Per broker, from the operator's files.

``kafka-reassign-partitions --execute --throttle T`` sets T as the leader and the follower rate
of *every* broker of the plan (``ReassignPartitionsCommand``), each leader's quota counting the
followers of the listed partitions it leads, each destination's the new replicas it receives
(:mod:`kipviz.kafka.replication.cluster`); moves between different brokers run in parallel. So
the move time is a flow schedule (:func:`kipviz.kafka.replication.flow.flow_schedule`, the
pinned max-min fair sharing), not one broker's ``bytes / (T - (F + 1) x IN)``: that is
KIP-73's single-pair arithmetic (``plan_throttle``), a lower bound here.

:func:`plan_reassignment` reads the plan (``--generate`` output, ``kafka-log-dirs --describe``,
IN per topic or partition, or the JMX exporter's Prometheus scrapes,
:mod:`kipviz.apps.planner.metrics`), plans it, and with ``simulate=True`` runs the cluster
scenario (:mod:`kipviz.scenarios.reassignment.cluster`) on the same inputs.
:meth:`ReassignmentForecast.to_text` prints the per-broker table and the commands;
:meth:`ReassignmentForecast.to_json` the same for machines.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from kipviz.apps.planner.files import Source, load_partition_sizes, load_reassignment, read_json
from kipviz.apps.planner.metrics import bytes_in_from_scrapes, looks_like_scrape
from kipviz.apps.planner.throttle import throttle_commands
from kipviz.kafka.config.checks import check_not_both
from kipviz.kafka.config.checks import check_number as _check_number
from kipviz.kafka.replication.cluster import (
    BrokerLoad,
    PartitionMove,
    broker_loads,
    partition_moves,
    split_bytes_in,
)
from kipviz.kafka.replication.flow import FlowSchedule, flow_schedule
from kipviz.kafka.replication.planning import THROTTLED_RATE
from kipviz.kafka.replication.reassignment import ReassignmentPlan
from kipviz.kafka.units import GB, MB, hours

__all__ = ["ReassignmentForecast", "load_bytes_in", "plan_reassignment"]

BytesIn = Mapping[str, float] | str | os.PathLike[str] | Sequence[str | os.PathLike[str]]
_TICK_MS = 10  # the simulation's fetch round trip (and the flow schedule's)


def load_bytes_in(source: BytesIn) -> dict[str, float]:
    """IN as ``{"topic" or "topic-partition": bytes/s}``: a mapping, a JSON file of one, or
    Prometheus text (one text or file per broker, :mod:`kipviz.apps.planner.metrics`)."""
    if isinstance(source, Mapping):
        return dict(source)
    many = [source] if isinstance(source, (str, os.PathLike)) else list(source)
    if len(many) == 1 and not (isinstance(many[0], str) and looks_like_scrape(many[0])):
        path = many[0]
        try:
            with open(path, encoding="utf-8") as handle:
                head = handle.read(65536)
        except (OSError, UnicodeDecodeError) as err:
            raise ValueError(f"bytes_in_per_s file {os.fspath(path)!r} cannot be read: "
                             f"{err}") from err
        if not looks_like_scrape(head):
            data = read_json(path, "bytes_in_per_s")
            if not isinstance(data, Mapping):
                raise ValueError(f"bytes_in_per_s file {os.fspath(path)!r} must hold a JSON "
                                 f"object of bytes/s by topic or partition: {data!r}"[:300])
            return dict(data)
    return bytes_in_from_scrapes(many)


@dataclass(frozen=True)
class ReassignmentForecast:
    """What :func:`plan_reassignment` worked out (bytes, bytes/s, seconds).

    ``move_time_s``: the flow schedule's makespan (``inf``: some move never finishes; ``reason``
    names the partition, the broker and the limit); ``broker_move_time_s``: per broker that sends
    or receives a new replica, when its last such partition completes (by the pinned sharing rule:
    Kafka's gate leaves per-replica and non-bottleneck finish times to fetch timing, the move time
    is T's at the bottleneck whatever the split); ``bottleneck_broker`` / ``bottleneck``;
    ``throttle_bytes_per_s``: the T set on every broker (the smallest meeting
    ``target_completion_s`` when one was given), ``broker_throttle_bytes_per_s`` the per-broker
    overrides; ``loads``: each broker's closed forms (:class:`BrokerLoad`, lower bounds);
    ``simulated_move_time_s`` from the cluster scenario with ``simulate=True`` (None without).
    """

    moves: tuple[PartitionMove, ...]
    plan: ReassignmentPlan
    network_bytes_per_s: float
    throttle_bytes_per_s: int | None
    broker_throttle_bytes_per_s: dict[int, int]
    target_completion_s: float | None
    schedule: FlowSchedule
    loads: dict[int, BrokerLoad]
    simulated_move_time_s: float | None = None
    simulated_broker_move_time_s: dict[int, float] | None = None

    @property
    def move_time_s(self) -> float:
        """When the last move finishes (``inf``: never)."""
        return self.schedule.move_time_s

    @property
    def broker_move_time_s(self) -> dict[int, float]:
        """Per broker, when its last move finishes."""
        return self.schedule.broker_move_time_s

    @property
    def partition_move_time_s(self) -> dict[str, float]:
        """Per moving partition, when all its new replicas are in the ISR."""
        return self.schedule.partition_move_time_s

    @property
    def bottleneck_broker(self) -> int | None:
        """The broker whose limit held the last replica longest."""
        return self.schedule.bottleneck_broker

    @property
    def reason(self) -> str:
        """Why the move never finishes ("" when it does)."""
        return self.schedule.reason

    def rates(self) -> dict[int, int | None]:
        """Each broker's rate (both quotas), None: unlimited."""
        return {b: self.broker_throttle_bytes_per_s.get(b, self.throttle_bytes_per_s)
                for b in self.loads}

    def to_json(self) -> dict[str, Any]:
        """The forecast as plain JSON types (``inf`` as None, with ``reason``)."""
        def num(x: float | None) -> float | None:
            return None if x is None or math.isinf(x) else round(x, 3)

        return {
            "move_time_s": num(self.move_time_s), "reason": self.reason,
            "bottleneck_broker": self.bottleneck_broker, "bottleneck": self.schedule.bottleneck,
            "throttle_bytes_per_s": self.throttle_bytes_per_s,
            "broker_throttle_bytes_per_s": {str(b): t for b, t in
                                            self.broker_throttle_bytes_per_s.items()},
            "target_completion_s": self.target_completion_s,
            "network_bytes_per_s": self.network_bytes_per_s,
            "broker_move_time_s": {str(b): num(t) for b, t in self.broker_move_time_s.items()},
            "partition_move_time_s": {k: num(t) for k, t in self.partition_move_time_s.items()},
            "brokers": [{"broker": b, "bytes_in": ld.bytes_in, "bytes_out": ld.bytes_out,
                         "new_replica_in_bytes_per_s": ld.new_replica_in,
                         "leader_counted_in_bytes_per_s": ld.leader_counted_in,
                         "destination_bound_s": num(ld.destination_s),
                         "leader_bound_s": num(ld.leader_s)} for b, ld in self.loads.items()],
            "simulated_move_time_s": num(self.simulated_move_time_s),
            "simulated_broker_move_time_s": None if self.simulated_broker_move_time_s is None
            else {str(b): num(t) for b, t in self.simulated_broker_move_time_s.items()},
        }

    def to_text(self, *, bootstrap_server: str = "localhost:9092",
                reassignment_json_file: str = "reassignment.json") -> str:
        """The per-broker table, the bottleneck, the move time and the commands."""
        t = self.throttle_bytes_per_s
        lines = [f"reassignment plan: {len(self.moves)} listed partitions, "
                 f"{sum(len(m.added) for m in self.moves)} new replicas, "
                 f"{len(self.loads)} brokers, N = {self.network_bytes_per_s / MB:g} MB/s, "
                 f"T = {'unlimited' if t is None else f'{t / MB:g} MB/s'} on every broker"
                 + "".join(f", {r / MB:g} MB/s on broker {b}"
                           for b, r in self.broker_throttle_bytes_per_s.items()),
                 "per broker (bound: bytes / headroom of one quota, a lower bound; finish: the "
                 "flow schedule" + (", and simulated)" if self.simulated_move_time_s is not None
                                    else ")"),
                 f"{'broker':>6} {'in GB':>7} {'out GB':>7} {'IN new':>8} {'IN lead':>8} "
                 f"{'dest bound':>10} {'lead bound':>10} {'finish':>8}"
                 + (f" {'simulated':>9}" if self.simulated_broker_move_time_s else "")]
        for b, ld in self.loads.items():
            sim = (self.simulated_broker_move_time_s or {}).get(b)
            lines.append(
                f"{b:>6} {ld.bytes_in / GB:>7.1f} {ld.bytes_out / GB:>7.1f} "
                f"{ld.new_replica_in / MB:>8.2f} {ld.leader_counted_in / MB:>8.2f} "
                f"{hours(ld.destination_s if ld.bytes_in else None):>10} "
                f"{hours(ld.leader_s if ld.bytes_out else None):>10} "
                f"{hours(self.broker_move_time_s.get(b)):>8}"
                + (f" {hours(sim):>9}" if self.simulated_broker_move_time_s else ""))
        lines.append("(IN new: IN of the new replicas it receives, recorded by its follower "
                     "quota; IN lead: IN x (followers + new replicas) of the listed partitions "
                     "it leads, recorded by its leader quota)")
        if self.reason:
            lines.append(f"never finishes: {self.reason}")
        else:
            lines.append(f"move time: {hours(self.move_time_s)} ({self.move_time_s:.0f} s); "
                         f"bottleneck: {self.schedule.bottleneck or 'none'}")
        if self.simulated_move_time_s is not None:
            lines.append(f"simulated (tick by tick, one fetcher per broker pair): "
                         f"{hours(self.simulated_move_time_s)}")
        if t is not None and not self.reason:  # no commands for a plan that never finishes
            lines += ["", *throttle_commands(
                self.plan, {str(b): r if r is not None else t for b, r in self.rates().items()},
                t, bootstrap_server=bootstrap_server,
                reassignment_json_file=reassignment_json_file)]
            if self.broker_throttle_bytes_per_s:
                lines.append("then lower the hot brokers again (--throttle sets T on all): the "
                             "kafka-configs lines above for broker "
                             + ", ".join(str(b) for b in self.broker_throttle_bytes_per_s))
        return "\n".join(lines)


def _schedule(moves: Sequence[PartitionMove], rate: float | None,
              overrides: Mapping[int, float], network: float) -> FlowSchedule:
    brokers = {b for m in moves for b in (*m.sources, *m.targets)}
    rates = {b: overrides.get(b, rate) for b in brokers}
    return flow_schedule(moves, leader_rates=rates, follower_rates=rates,
                         network_bytes_per_s=network, fetch_round_ms=_TICK_MS)


def _smallest_rate(moves: Sequence[PartitionMove], target: float,
                   overrides: Mapping[int, float], network: float) -> int:
    """The smallest whole T (every broker but the overridden) whose move time meets ``target``
    (bisection: more T never slows a move); ValueError when even N does not."""
    hi = float(network)
    if _schedule(moves, hi, overrides, network).move_time_s > target:
        raise ValueError(f"target_completion_s must be reachable with a throttle below the "
                         f"network ({network / 1e6:g} MB/s per broker): {target:g}")
    lo = 0.0
    while hi - lo > 1.0:
        mid = (lo + hi) / 2
        if _schedule(moves, mid, overrides, network).move_time_s <= target:
            hi = mid
        else:
            lo = mid
    return math.ceil(hi)


def plan_reassignment(reassignment: Source, *, partition_sizes: Source,
                      current: Source | None = None, bytes_in_per_s: BytesIn,
                      throttle_bytes_per_s: float | None = None,
                      target_completion_s: float | None = None,
                      network_bytes_per_s: float = 125e6, simulate: bool = False,
                      broker_throttle_bytes_per_s: Mapping[int, float] | None = None,
                      leaders: Mapping[str, int] | None = None) -> ReassignmentForecast:
    """Plan a reassignment per broker (see the module).

    ``reassignment``/``current``: paths or mappings (``--generate`` output, header lines
    skipped; a file of its whole output holds both, and ``current`` may then be left out);
    ``partition_sizes``: a ``kafka-log-dirs --describe`` file or ``{"topic-partition": bytes}``;
    ``bytes_in_per_s``: ``{"topic": B/s}`` (split over its partitions by size),
    ``{"topic-partition": B/s}``, a JSON file of either, or Prometheus scrapes (one text or file
    per broker); ``throttle_bytes_per_s`` (T on every broker) or ``target_completion_s`` (the
    smallest T meeting it), not both (neither: unthrottled); ``broker_throttle_bytes_per_s``:
    ``{broker: T}`` overrides (a lower T on a hot broker); ``leaders``: who leads a partition
    now (default: its first current replica); ``simulate``: also run the cluster scenario.
    """
    plan = load_reassignment(reassignment, current=current)
    sizes = load_partition_sizes(partition_sizes)
    network = _check_number("network_bytes_per_s", network_bytes_per_s, 0, strict=True,
                            finite=True)
    moves = partition_moves(plan, sizes, split_bytes_in(load_bytes_in(bytes_in_per_s), sizes),
                            leaders=leaders)
    brokers = sorted({b for m in moves for b in (*m.sources, *m.targets)})
    overrides: dict[int, int] = {}
    for b, r in (broker_throttle_bytes_per_s or {}).items():
        if b not in brokers:
            raise ValueError(f"broker_throttle_bytes_per_s must name brokers of the plan "
                             f"{brokers}: {b}")
        overrides[b] = math.floor(_check_number(
            f"broker_throttle_bytes_per_s[{b}] ({THROTTLED_RATE})", r, 0, finite=True))
    check_not_both("target_completion_s", target_completion_s,
                   "throttle_bytes_per_s", throttle_bytes_per_s)
    rate: int | None = None
    if throttle_bytes_per_s is not None:
        rate = math.floor(_check_number(f"throttle_bytes_per_s ({THROTTLED_RATE})",
                                        throttle_bytes_per_s, 0, finite=True))
    elif target_completion_s is not None:
        target = _check_number("target_completion_s", target_completion_s, 0, strict=True,
                               finite=True)
        rate = _smallest_rate(moves, target, overrides, network)
    schedule = _schedule(moves, rate, overrides, network)
    rates = {b: overrides.get(b, rate) for b in brokers}
    loads = broker_loads(moves, rates, rates)
    forecast = ReassignmentForecast(moves, plan, network, rate, overrides,
                                    target_completion_s, schedule, loads)
    if not simulate:
        return forecast
    from dataclasses import replace

    from kipviz.scenarios.reassignment.cluster import (
        ClusterReassignmentScenario,
        simulate_cluster,
    )

    horizon = schedule.move_time_s if math.isfinite(schedule.move_time_s) else 86400.0
    ticks = min(2**31 - 1, math.ceil((horizon * 1.5 + 60) * 1000 / _TICK_MS))
    meta = simulate_cluster(ClusterReassignmentScenario(
        moves, leader_throttle_bytes_per_s=rate, follower_throttle_bytes_per_s=rate,
        broker_throttle_bytes_per_s=tuple(overrides.items()), network_bytes_per_s=network,
        tick_ms=_TICK_MS, ticks=ticks, sample_ticks=1000)).meta
    done = meta["move_time_s"]
    per_broker = {b: math.inf if t is None else t for b, t in meta["broker_move_time_s"].items()}
    return replace(forecast, simulated_move_time_s=math.inf if done is None else done,
                   simulated_broker_move_time_s=per_broker)
