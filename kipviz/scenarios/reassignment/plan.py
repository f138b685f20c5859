"""A real reassignment plan as an operator tunes it: one throttle T and the hottest topic's IN.

``kafka-reassign-partitions --execute --throttle T`` sets T as the leader and the follower rate
of every broker of the plan; the produce rate that matters most is the hottest topic's, split
over its partitions by size (pinned: :func:`kipviz.kafka.replication.cluster.split_bytes_in`).
:class:`ReassignmentPlanScenario` holds a plan's moves with those two settings as fields, so a
dashboard moves them by name; :meth:`~ReassignmentPlanScenario.cluster` is the cluster scenario
(:mod:`kipviz.scenarios.reassignment.cluster`) it runs and :meth:`~ReassignmentPlanScenario.
schedule` the flow schedule that plans it (:mod:`kipviz.kafka.replication.flow`).
:func:`sample_plan` is lesson 4's plan (``data/reassignment.json``: orders-0 and payments-0 led
by broker 1, orders-1 by broker 2, all three landing on broker 4).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from kipviz.kafka.config.declarations import BROKER
from kipviz.kafka.config.fields import check_declared, kafka_field, knob
from kipviz.kafka.replication.cluster import PartitionMove, partition_moves, split_bytes_in
from kipviz.kafka.replication.flow import FlowSchedule, flow_schedule
from kipviz.kafka.replication.reassignment import (
    ReassignmentPlan,
    parse_assignment,
    partition_sizes,
)
from kipviz.scenarios.reassignment.cluster import ClusterReassignmentScenario

__all__ = ["SAMPLE_BYTES_IN", "ReassignmentPlanScenario", "sample_plan"]

SAMPLE_BYTES_IN = {"orders": 13.2e6, "payments": 1.33e6}
"""Lesson 4's produce rates per topic: about 10 MB/s into the three moving partitions, split by
size (orders-2, listed unchanged, takes the rest of orders' 13.2 MB/s)."""


@dataclass(frozen=True)
class ReassignmentPlanScenario:
    """A plan's ``moves`` (:func:`kipviz.kafka.replication.cluster.partition_moves`) under
    ``throttle_bytes_per_s`` T on every broker, both rates (None: unlimited), with
    ``hottest_in_bytes_per_s``, the IN of ``hottest_topic``, split over its partitions by size
    (``hottest_topic_bytes``: the topic's size, all its partitions, the split's denominator);
    the other topics keep their moves' IN_p. Network N per broker; ``ticks`` of ``tick_ms`` at
    most, a ``brokers`` row per ``sample_ticks``: the run lasts the planned move time and a
    quarter more, plus a minute, or an hour when the plan says the move never finishes
    (:meth:`run_ticks`), and ends when the last move completes."""

    moves: tuple[PartitionMove, ...]
    hottest_topic: str
    hottest_topic_bytes: int = knob(at_least=1)
    throttle_bytes_per_s: float | None = kafka_field(
        BROKER["leader.replication.throttled.rate"], 35e6, number=True,
        label="leader. and follower.replication.throttled.rate (--throttle)")
    hottest_in_bytes_per_s: float = knob(13.2e6, at_least=0, number=True)
    network_bytes_per_s: float = knob(125e6, above=0, number=True)
    tick_ms: int = knob(10, at_least=1, java="int")
    ticks: int = knob(1_440_000, at_least=1, java="int")  # 4 hours of 10 ms fetches
    sample_ticks: int = knob(1000, at_least=1, java="int")

    def __post_init__(self) -> None:
        check_declared(self)
        if not any(m.topic == self.hottest_topic for m in self.moves):
            raise ValueError(f"hottest_topic must be a topic of the plan "
                             f"{sorted({m.topic for m in self.moves})}: {self.hottest_topic!r}")

    def rated_moves(self) -> tuple[PartitionMove, ...]:
        """The moves with the hottest topic's IN split by size, the others' IN_p unchanged."""
        share = self.hottest_in_bytes_per_s / self.hottest_topic_bytes
        return tuple(replace(m, bytes_in_per_s=m.size_bytes * share)
                     if m.topic == self.hottest_topic else m for m in self.moves)

    def run_ticks(self) -> int:
        """The run's ticks: the planned move time x 1.25 + 60 s (3600 s when it never
        finishes), at most ``ticks``."""
        planned = self.schedule().move_time_s
        horizon_s = planned * 1.25 + 60 if math.isfinite(planned) else 3600.0
        return max(1, min(self.ticks, math.ceil(horizon_s * 1000 / self.tick_ms)))

    def cluster(self) -> ClusterReassignmentScenario:
        """The cluster scenario of this plan at these settings (T on every broker), over
        :meth:`run_ticks`."""
        t = self.throttle_bytes_per_s
        return ClusterReassignmentScenario(
            self.rated_moves(), leader_throttle_bytes_per_s=t, follower_throttle_bytes_per_s=t,
            network_bytes_per_s=self.network_bytes_per_s, tick_ms=self.tick_ms,
            ticks=self.run_ticks(), sample_ticks=self.sample_ticks)

    def schedule(self) -> FlowSchedule:
        """The flow schedule of this plan at these settings (what ``plan_reassignment``
        computes; the cluster run's ``meta["planned_*"]`` is the same)."""
        t = self.throttle_bytes_per_s
        rates = {b: t for m in self.moves for b in (*m.sources, *m.targets)}
        return flow_schedule(self.rated_moves(), leader_rates=rates, follower_rates=rates,
                             network_bytes_per_s=self.network_bytes_per_s,
                             fetch_round_ms=self.tick_ms)


def sample_plan(*, hottest_topic: str = "orders",
                bytes_in_per_s: Mapping[str, float] = SAMPLE_BYTES_IN,
                **settings: Any) -> ReassignmentPlanScenario:
    """Lesson 4's plan from the sample files (``data/reassignment.json``,
    ``current-assignment.json``, ``log-dirs.json``) with IN per topic ``bytes_in_per_s``;
    ``settings``: fields of :class:`ReassignmentPlanScenario` (T, the hottest topic's IN...)."""
    from kipviz import data_file

    def load(name: str) -> Any:
        return json.loads(data_file(name).read_text(encoding="utf-8"))

    plan = ReassignmentPlan(parse_assignment(load("reassignment.json"), "reassignment"),
                            parse_assignment(load("current-assignment.json"), "current"))
    sizes = partition_sizes(load("log-dirs.json"))
    moves = partition_moves(plan, sizes, split_bytes_in(bytes_in_per_s, sizes))
    topic_bytes = sum(size for key, size in sizes.items()
                      if key.rpartition("-")[0] == hottest_topic)
    hot = settings.pop("hottest_in_bytes_per_s", bytes_in_per_s.get(hottest_topic, 0.0))
    return ReassignmentPlanScenario(moves, hottest_topic, topic_bytes,
                                    hottest_in_bytes_per_s=hot, **settings)
