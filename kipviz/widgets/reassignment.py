"""The KIP-73 dashboard: a throttled reassignment, its move time and what clients keep.

The move time is planned as ``kafka-reassign-partitions --throttle`` really sets it up: the
R - 1 in-sync followers are counted by the leader's quota, so the new replica nets
T - R x IN (KIP-73's T - IN is shown beside it). A throttle schedule control changes both
rates mid-move. The metrics an operator can watch in Kafka are named in ``METRICS_TEXT``.
"""

from __future__ import annotations

import math
from typing import Any

import plotly.graph_objects as go

from kipviz.curves.reassignment import reassignment_curves
from kipviz.kafka.units import MB
from kipviz.plots.reassignment import reassignment_figure, update_reassignment_figure
from kipviz.scenarios.reassignment.scenario import ReassignmentScenario, simulate
from kipviz.widgets._base import Dashboard
from kipviz.widgets.controls import Control

__all__ = ["METRICS_TEXT", "REASSIGNMENT_LESSON_SCENARIO", "ReassignmentDashboard"]


# Five brokers on 1 Gbit/s links (125 MB/s), producers writing 10 MB/s into the moving
# partitions, replication factor 3; ten partitions of 200 MB (2 GB) move to a new broker with
# both throttles at 50 MB/s, as --throttle sets them: the two in-sync followers' 20 MB/s count
# against the leader's quota, so the move nets 50 - 3 x 10 = 20 MB/s: 2 GB / 20 MB/s = 100 s
# (KIP-73's formula, T - IN, says 50 s). The run covers 200 s in fetch rounds of 100 ms, each
# returning up to replica.fetch.max.bytes (1 MiB) per partition.
REASSIGNMENT_LESSON_SCENARIO = ReassignmentScenario(
    brokers=5, network_bytes_per_s=125e6, bytes_in_per_s=10e6, replication_factor=3,
    partitions=10, log_bytes=200 * MB, leader_throttle_bytes_per_s=50e6,
    follower_throttle_bytes_per_s=50e6, tick_ms=100, ticks=2000,
)

METRICS_TEXT = (
    "Watch in Kafka (JMX): kafka.server:type=BrokerTopicMetrics,name=ReassignmentBytesInPerSec "
    "and ReassignmentBytesOutPerSec (the throttled replication), kafka.server:type="
    "ReplicaManager,name=UnderReplicatedPartitions and ReassigningPartitions, and the replica "
    "fetchers' lag: kafka.server:type=ReplicaFetcherManager,name=MaxLag,clientId=Replica and "
    "type=FetcherLagMetrics,name=ConsumerLag per partition. KIP-73's SumReplicaLag was never "
    "shipped: the lag drawn here is what it would have shown.")
"""The JMX metrics that show a reassignment's progress, as Kafka names them."""
_RATES = tuple(r * MB for r in (0, 1, 2, 5, 8, 10, 12, 15, 20, 30, 40, 50, 60, 80, 100, 120))
_IN = tuple(r * MB for r in (0, 1, 2, 5, 8, 10, 15, 20, 30, 40, 60))
_SCHEDULES: tuple[tuple[str, Any], ...] = (("no change", ()), *(
    (f"{r:g} MB/s from 30 s", ((30.0, r * MB),)) for r in (0, 20, 30, 40, 80)),
    ("0 (paused) from 30 s, 80 MB/s from 60 s", ((30.0, 0.0), (60.0, 80 * MB))))
_FOLLOWERS = tuple((f"{f} (KIP-73's idealisation)" if f == 0 else str(f), f) for f in range(4))


def _rate(value: float) -> str:
    return f"{value / MB:g} MB/s"


def _schedule_label(schedule: Any) -> str:
    """A throttle schedule in words: "20 MB/s from 30 s, unlimited from 60 s"."""
    if not schedule:
        return "no change"
    return ", ".join(f"{'unlimited' if r is None else f'{r / MB:g} MB/s'} from {at:g} s"
                     for at, r in schedule)


class ReassignmentDashboard(Dashboard):
    """KIP-73 dashboard: the leader and follower throttle rates, a throttle schedule (both rates
    changed mid-move), IN (bytes in per s), brokers, the in-sync followers the leader's quota
    counts (R - 1 under ``--throttle``; 0 is the KIP's idealisation) and the quota window count
    and size, redrawn from Spark curves.

    ``ReassignmentDashboard(partitions=20)`` overrides fields of
    :data:`REASSIGNMENT_LESSON_SCENARIO`; ``update(**params)`` takes
    :class:`~kipviz.scenarios.reassignment.scenario.ReassignmentScenario` field names (rates in
    bytes/s, None = unlimited, the slider's "unlimited") and returns
    :class:`kipviz.curves.reassignment.ReassignmentCurves`, or None when the settings were
    rejected (the reason shows in ``warning``). A throttle at or below IN is legal in Kafka and
    runs, with a warning that the move never finishes.
    """

    CONTROLS = (
        Control("leader_throttle_bytes_per_s", options=_RATES, unset="unlimited"),
        Control("follower_throttle_bytes_per_s", options=_RATES, unset="unlimited"),
        Control("throttle_schedule", "dropdown", options=_SCHEDULES, fmt=_schedule_label,
                label="throttle schedule"),
        Control("in_sync_followers", "dropdown", options=_FOLLOWERS, unset="R - 1 (as --throttle)",
                fmt=str, label="in-sync followers counted"),
        Control("bytes_in_per_s", options=_IN, fmt=_rate, label="IN (bytes in per s)"),
        Control("brokers", range=(1, 50)),
        Control("replication_quota_window_num", range=(1, 30)),
        Control("replication_quota_window_size_seconds", range=(1, 10)),
    )

    def __init__(self, scenario: ReassignmentScenario = REASSIGNMENT_LESSON_SCENARIO, *,
                 seed: int = 0, spark: Any = None, **overrides: Any) -> None:
        super().__init__(scenario, seed=seed, spark=spark, **overrides)

    def _figure(self) -> go.Figure:
        return reassignment_figure()

    def _compute(self, scenario: ReassignmentScenario) -> Any:
        self.trace = simulate(scenario, seed=self.seed)
        return reassignment_curves(self.spark, self.trace)

    def _redraw(self, curves: Any) -> None:
        update_reassignment_figure(self.figure, curves)

    def _advice(self, s: ReassignmentScenario, c: Any) -> list[str]:
        notes = []
        reason = self.trace.meta.get("reason", "") if self.trace is not None else ""
        if reason:
            notes.append(f"{reason}.")
        if c.move_status == "not within this run":
            notes.append(f"The move did not finish in the {s.ticks * s.tick_ms / 1000:g} s run; "
                         f"it would at about {c.projected_move_time_s:.0f} s (T - "
                         f"{c.in_sync_followers + 1} x IN).")
        if math.isinf(c.first_window_overshoot):  # a throttle of 0: no ratio to give
            notes.append(f"The first quota window carried {_first_window_mb(c):.1f} MB of "
                         "throttled replication although the throttle is 0: the mechanism is "
                         "optimistic, it throttles only after a window has gone over.")
        elif c.first_window_overshoot > 1.0:
            notes.append(f"The first quota window carried {c.first_window_overshoot:.2f} x the "
                         "quota: the mechanism is optimistic, it throttles only after a window "
                         "has gone over.")
        return notes

    def _summary(self, c: Any) -> str:
        done = c.move_text
        left = float(c.move["client_left_moving_mean_bytes_per_s"].iloc[0]) / MB \
            if len(c.move) else math.nan
        if math.isinf(c.throttle_bytes_per_s):
            kip, overshoot = "no throttle", "none (unthrottled)"
        else:
            planned = (f"planned {c.planned_move_time_s:.1f} s"
                       if math.isfinite(c.planned_move_time_s) else "planned: never")
            kip = planned + (f", KIP-73 formula {c.kip_move_time_s:.1f} s"
                             if math.isfinite(c.kip_move_time_s) else ", KIP-73 formula: never")
            overshoot = (f"{_first_window_mb(c):.1f} MB against a throttle of 0"
                         if math.isinf(c.first_window_overshoot)
                         else f"{c.first_window_overshoot:.2f} x the quota")
        return (f"<b>move</b> {done} ({kip}) &middot; <b>first window</b> "
                f"{overshoot} &middot; <b>client bandwidth left while moving</b> "
                f"{left:.1f} MB/s<br><small>{METRICS_TEXT}</small>")


def _first_window_mb(c: Any) -> float:
    """Throttled MB sent in the first quota window (NaN if the run has no move row)."""
    return float(c.move["first_window_throttled_bytes"].iloc[0]) / MB if len(c.move) else math.nan
