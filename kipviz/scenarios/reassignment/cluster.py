"""A reassignment across a cluster: B brokers, each with its own leader and follower quota.

What ``kafka-reassign-partitions --execute --throttle T`` sets up (``ReassignPartitionsCommand``,
:mod:`kipviz.kafka.replication.cluster`): every broker of the plan gets both rates; each listed
partition's current replicas are leader-throttled, its added replicas follower-throttled. The
kernel (:func:`kipviz.scenarios.reassignment.kernel.run`) runs Kafka's mechanism per broker:

* each broker's leader quota records every byte it sends for the listed partitions it leads,
  in-sync followers' keep-up included (``KafkaApis``: ``quotas.leader.record``), and returns
  out-of-sync replicas empty while exceeded (``ReplicaManager.shouldLeaderThrottle``, KAFKA-4313);
* each destination's follower quota records what its new replicas append (``ReplicaFetcherThread``:
  ``quota.record``) and leaves its out-of-sync ones out of its requests while exceeded
  (``RemoteLeaderEndPoint.buildFetch`` / ``shouldFollowerThrottle``);
* one fetcher per (destination, source) pair (``num.replica.fetchers=1``), each tick within
  each broker's network N (out at the source, in at the destination),
  ``replica.fetch.max.bytes`` per partition, ``replica.fetch.response.max.bytes`` per response;
* pinned (issue 26): a binding quota is shared max-min fair among the out-of-sync replicas that
  want it, by what its window still allows each tick (:mod:`kipviz.scenarios.reassignment.share`,
  the planner's rule), where Kafka's gate leaves the split to fetch timing; the binding broker
  moves T either way. ``mode="delay"`` keeps the gate's fetch-by-fetch turns;
* a new replica joins the ISR when it reaches the log end (``Partition.maybeExpandIsr``); when a
  partition's last one does, its move completes: removed replicas stop fetching and a removed
  leader hands over to the first target (``leader_after_move``); the throttle lists stay (no
  ``--verify`` within the run), so caught-up replicas' keep-up is still recorded.

The single-pair :class:`~kipviz.scenarios.reassignment.scenario.ReassignmentScenario` is this
model's case of one leader and one destination. :func:`kipviz.kafka.replication.flow.flow_schedule`
plans the same moves as a fluid schedule (``meta["planned_move_time_s"]``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property
from typing import Literal, TypedDict

import numpy as np
import pandas as pd

from kipviz.kafka.config.declarations import BROKER
from kipviz.kafka.config.fields import (
    FieldRule,
    check_declared,
    choice,
    items,
    kafka_field,
    knob,
    setting_rule,
)
from kipviz.kafka.quotas.rate import bound_or_inf
from kipviz.kafka.replication.cluster import PartitionMove
from kipviz.kafka.replication.flow import flow_schedule
from kipviz.kafka.replication.quota import ReplicationQuotaManager
from kipviz.scenarios.limits import check_seed
from kipviz.scenarios.reassignment.arrays import brokers_of, plan_inputs, run_kernel
from kipviz.scenarios.reassignment.columns import BrokerColumns, ClusterSettings
from kipviz.scenarios.reassignment.meta import check_schedule

__all__ = ["ClusterReassignmentMeta", "ClusterReassignmentScenario", "ClusterReassignmentTrace",
           "simulate_cluster"]

_RATE = setting_rule(BROKER["leader.replication.throttled.rate"], number=True,
                     label="leader. and follower.replication.throttled.rate")


@dataclass(frozen=True)
class ClusterReassignmentScenario:
    """A plan's moves (:func:`kipviz.kafka.replication.cluster.partition_moves`) under per-broker
    quotas: ``leader_throttle_bytes_per_s`` / ``follower_throttle_bytes_per_s`` on every broker
    (None: unlimited), ``broker_throttle_bytes_per_s`` ``(broker, rate)`` pairs overriding both
    on one broker (a lower T on a hot broker); ``throttle_schedule`` ``(from_s, rate)`` pairs
    setting both on every broker from then on. The run lasts ``ticks`` ticks of ``tick_ms`` or
    ends when the last move completes; the ``brokers`` table has a row per ``sample_ticks``."""

    moves: tuple[PartitionMove, ...]
    leader_throttle_bytes_per_s: float | None = kafka_field(
        BROKER["leader.replication.throttled.rate"], 10e6, number=True)
    follower_throttle_bytes_per_s: float | None = kafka_field(
        BROKER["follower.replication.throttled.rate"], 10e6, number=True)
    broker_throttle_bytes_per_s: tuple[tuple[int, float | None], ...] = items(
        of=(("broker", FieldRule("int", at_least=0, java="int")), ("rate", _RATE)),
        rule="a tuple of (broker, rate) pairs")
    network_bytes_per_s: float = knob(125e6, above=0, number=True)
    replica_fetch_max_bytes: int = kafka_field(BROKER["replica.fetch.max.bytes"])
    replica_fetch_response_max_bytes: int = kafka_field(
        BROKER["replica.fetch.response.max.bytes"], at_least=1)
    replication_quota_window_num: int = kafka_field(BROKER["replication.quota.window.num"])
    replication_quota_window_size_seconds: int = kafka_field(
        BROKER["replication.quota.window.size.seconds"])
    tick_ms: int = knob(10, at_least=1, java="int")
    ticks: int = knob(360_000, at_least=1, java="int")
    sample_ticks: int = knob(100, at_least=1, java="int")
    # 'quota' (KIP-73 as shipped) or 'delay' (the rejected delay-based design)
    mode: Literal["quota", "delay"] = choice("quota", ("quota", "delay"))
    throttle_schedule: tuple[tuple[float, float | None], ...] = items(
        of=(("from_s", FieldRule("number", at_least=0, java=None)), ("rate", _RATE)),
        rule="a tuple of (from_s, rate) pairs")

    def __post_init__(self) -> None:
        moves = tuple(self.moves) if not isinstance(self.moves, (str, bytes)) else ()
        if not moves or not all(isinstance(m, PartitionMove) for m in moves):
            raise ValueError(f"moves must be a non-empty tuple of PartitionMove "
                             f"(kipviz.kafka.replication.cluster.partition_moves): "
                             f"{self.moves!r}"[:300])
        object.__setattr__(self, "moves", moves)
        check_declared(self)
        known = set(self._broker_ids)
        for i, (broker, _) in enumerate(self.broker_throttle_bytes_per_s):
            if broker not in known:
                raise ValueError(f"broker_throttle_bytes_per_s[{i}] broker must be a broker of "
                                 f"the plan {sorted(known)}: {broker}")
        check_schedule(self.throttle_schedule)

    @cached_property
    def _broker_ids(self) -> tuple[int, ...]:
        return tuple(brokers_of(self.moves))  # once: a big plan's moves are many

    @property
    def brokers(self) -> list[int]:
        """The plan's broker ids, sorted (sources and targets of every listed partition)."""
        return list(self._broker_ids)

    def rates(self) -> tuple[dict[int, float | None], dict[int, float | None]]:
        """Per broker, its (leader, follower) rate at t = 0 (None: unlimited)."""
        over = dict(self.broker_throttle_bytes_per_s)
        lead = {b: over.get(b, self.leader_throttle_bytes_per_s) for b in self._broker_ids}
        follow = {b: over.get(b, self.follower_throttle_bytes_per_s) for b in self._broker_ids}
        return lead, follow


class ClusterReassignmentMeta(TypedDict):
    """A cluster run's answer (docs/traces.md): the simulated and planned move times."""

    seed: int
    brokers: list[int]
    move_time_s: float | None  # when the last partition completed (None: not within the run)
    broker_move_time_s: dict[int, float | None]
    planned_move_time_s: float | None  # flow_schedule's (inf: never; None: not planned)
    planned_broker_move_time_s: dict[int, float] | None
    bottleneck_broker: int | None
    bottleneck: str
    never_reason: str
    run_s: float


@dataclass(frozen=True)
class ClusterReassignmentTrace:
    """``brokers`` (one row per broker and sample), ``replicas`` (one per new replica),
    ``partitions`` (one per listed partition) and ``meta`` (docs/traces.md)."""

    brokers: pd.DataFrame
    replicas: pd.DataFrame
    partitions: pd.DataFrame
    meta: ClusterReassignmentMeta


def simulate_cluster(scenario: ClusterReassignmentScenario, *, seed: int = 0,
                     compiled: bool = True, plan: bool = True) -> ClusterReassignmentTrace:
    """Run the cluster scenario; deterministic for a ``seed`` (it seeds the fetchers' order, in
    which they take their in-sync replicas' bytes).
    ``plan``: also plan it with the flow schedule (``meta``'s ``planned_*``, ``bottleneck*``
    and ``never_reason``; without, they are None / "")."""
    s = scenario
    seed = check_seed(seed)
    brokers = s.brokers
    lead, follow = s.rates()
    inp = plan_inputs(
        s.moves, brokers=brokers, leader_bounds=[bound_or_inf(lead[b]) for b in brokers],
        follower_bounds=[bound_or_inf(follow[b]) for b in brokers],
        sched_ms=np.array([round(at * 1000) for at, _ in s.throttle_schedule], np.float64),
        sched_bounds=np.array([bound_or_inf(r) for _, r in s.throttle_schedule], np.float64),
        start_in_sync=True)
    window_ms = ReplicationQuotaManager(None, s.replication_quota_window_num,
                                        s.replication_quota_window_size_seconds).rate.window_ms
    cfg = ClusterSettings(
        tick_ms=s.tick_ms, ticks=s.ticks, sample_ticks=s.sample_ticks,
        fetch_max=s.replica_fetch_max_bytes, response_max=s.replica_fetch_response_max_bytes,
        network_per_tick=math.floor(s.network_bytes_per_s * s.tick_ms / 1000.0),
        delay_mode=s.mode == "delay", samples=s.replication_quota_window_num,
        window_ms=window_ms, stop_when_done=True, order_seed=seed % 2**31,
        fair_share=s.mode == "quota")
    cols, res = run_kernel(
        cfg, inp, compiled=compiled,
        what=f"A reassignment of {len(s.moves)} partitions on {len(brokers)} brokers x "
             f"{s.ticks} ticks")
    return _trace(s, seed, brokers, cols, res.caught_up_ms, res.completed_ms,
                  int(res.ticks_run[0]), plan=plan)


def _trace(s: ClusterReassignmentScenario, seed: int, brokers: list[int], cols: BrokerColumns,
           caught_up_ms: np.ndarray, completed_ms: np.ndarray, ticks_run: int, *,
           plan: bool = True) -> ClusterReassignmentTrace:
    rows, nb = cols.leader_rate_bytes_per_s.shape
    last_tick = np.minimum((np.arange(rows) + 1) * s.sample_ticks, ticks_run) - 1
    table = {"time_ms": np.repeat(last_tick * s.tick_ms, nb),
             "broker": np.tile(np.array(brokers, np.int32), rows)}
    table.update({name: getattr(cols, name).reshape(-1) for name in BrokerColumns._fields})
    moves = s.moves
    n_added = np.array([len(m.added) for m in moves], np.int64)
    topic = np.array([m.topic for m in moves], object)
    number = np.array([m.partition for m in moves], np.int64)
    sizes = np.array([m.size_bytes for m in moves], np.int64)
    leader = np.array([m.leader for m in moves], np.int64)
    dest = np.fromiter((d for m in moves for d in m.added), np.int64, int(n_added.sum()))
    replicas = pd.DataFrame({
        "topic": topic.repeat(n_added), "partition": number.repeat(n_added),
        "broker": dest.astype(np.int32), "size_bytes": sizes.repeat(n_added),
        "caught_up_ms": caught_up_ms})
    partitions = pd.DataFrame({
        "topic": topic, "partition": number, "leader": leader,
        "leader_after": np.array([m.leader_after for m in moves], np.int64),
        "size_bytes": sizes,
        "bytes_in_per_s": np.array([m.bytes_in_per_s for m in moves], np.float64),
        "completed_ms": completed_ms})
    # per broker that leads or receives a moving partition, when its last one completed
    # (None: one did not within the run)
    moving = n_added > 0
    broker = np.concatenate([leader[moving], dest])
    at = np.concatenate([completed_ms[moving], completed_ms.repeat(n_added)])
    ids, which = np.unique(broker, return_inverse=True)
    last = np.full(ids.shape[0], -1, np.int64)
    np.maximum.at(last, which, at)
    never = np.zeros(ids.shape[0], np.bool_)
    never[which[at < 0]] = True
    per_broker = {int(b): None if n else t / 1000.0
                  for b, n, t in zip(ids.tolist(), never.tolist(), last.tolist(), strict=True)}
    lead, follow = s.rates()
    schedule = flow_schedule(
        s.moves, leader_rates=lead, follower_rates=follow,
        network_bytes_per_s=s.network_bytes_per_s,
        replica_fetch_max_bytes=s.replica_fetch_max_bytes,
        replica_fetch_response_max_bytes=s.replica_fetch_response_max_bytes,
        fetch_round_ms=s.tick_ms, throttle_schedule=s.throttle_schedule) if plan else None
    finished = bool((completed_ms >= 0).all())
    meta: ClusterReassignmentMeta = {
        "seed": seed, "brokers": brokers,
        "move_time_s": float(completed_ms.max(initial=0)) / 1000.0 if finished else None,
        "broker_move_time_s": dict(sorted(per_broker.items())),
        "planned_move_time_s": None if schedule is None else schedule.move_time_s,
        "planned_broker_move_time_s": None if schedule is None else schedule.broker_move_time_s,
        "bottleneck_broker": None if schedule is None else schedule.bottleneck_broker,
        "bottleneck": "" if schedule is None else schedule.bottleneck,
        "never_reason": "" if schedule is None else schedule.reason,
        "run_s": ticks_run * s.tick_ms / 1000.0}
    return ClusterReassignmentTrace(pd.DataFrame(table), replicas, partitions, meta)
