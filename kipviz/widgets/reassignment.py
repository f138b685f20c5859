"""The KIP-73 dashboard: a throttled reassignment, its move time and what clients keep."""

from __future__ import annotations

import math
from typing import Any

import ipywidgets as w
import plotly.graph_objects as go

from kipviz.plots.reassignment import reassignment_figure, update_reassignment_figure
from kipviz.scenarios.reassignment import ReassignmentScenario, simulate
from kipviz.widgets._base import Dashboard

__all__ = ["REASSIGNMENT_LESSON_SCENARIO", "UNLIMITED", "ReassignmentDashboard"]

MB = 1_000_000

# Five brokers on 1 Gbit/s links (125 MB/s), producers writing 10 MB/s into the moving
# partitions, replication factor 3; ten partitions of 200 MB (2 GB) move to a new broker with
# both throttles at 30 MB/s: the KIP's formula says 2 GB / (30 - 10) MB/s = 100 s. The run
# covers 200 s in fetch rounds of 100 ms, each returning up to replica.fetch.max.bytes (1 MiB)
# per partition.
REASSIGNMENT_LESSON_SCENARIO = ReassignmentScenario(
    brokers=5, network_bytes_per_s=125e6, bytes_in_per_s=10e6, replication_factor=3,
    partitions=10, log_bytes=200 * MB, leader_throttle_bytes_per_s=30e6,
    follower_throttle_bytes_per_s=30e6, tick_ms=100, ticks=2000,
)
_THROTTLES = ("leader_throttle_bytes_per_s", "follower_throttle_bytes_per_s")
UNLIMITED = math.inf  # a throttle slider's "unlimited" (the scenario's None, Kafka's default)

_RATES = [("unlimited", UNLIMITED), *((f"{r:g} MB/s", r * MB) for r in (
    0, 1, 2, 5, 8, 10, 12, 15, 20, 30, 40, 50, 60, 80, 100, 120))]
_IN = [(f"{r:g} MB/s", r * MB) for r in (0, 1, 2, 5, 8, 10, 15, 20, 30, 40, 60)]


def _rate_options(options: list[tuple[str, Any]], value: float) -> list[tuple[str, Any]]:
    """Rate slider options that include ``value`` (a value set from code)."""
    if any(v == value for _, v in options):
        return options
    return sorted([*options, (f"{value / MB:g} MB/s", value)], key=lambda o: o[1])


def _slider(value: Any) -> Any:
    """A scenario value as its slider shows it: an unlimited (None) throttle is UNLIMITED."""
    return UNLIMITED if value is None else value


class ReassignmentDashboard(Dashboard):
    """KIP-73 dashboard: the leader and follower throttle rates, IN (bytes in per s), brokers,
    and the quota window count and size, redrawn from Spark curves.

    ``ReassignmentDashboard(partitions=20)`` overrides fields of
    :data:`REASSIGNMENT_LESSON_SCENARIO`; ``update(**params)`` takes
    :class:`~kipviz.scenarios.reassignment.ReassignmentScenario` field names (rates in bytes/s,
    None or ``math.inf`` = unlimited) and returns
    :class:`kipviz.curves.reassignment.ReassignmentCurves`, or None when the settings were
    rejected (the reason shows in ``warning``). A throttle at or below IN is legal in Kafka and
    runs, with a warning that the move never finishes.
    """

    def __init__(self, scenario: ReassignmentScenario = REASSIGNMENT_LESSON_SCENARIO, *,
                 seed: int = 0, spark: Any = None, **overrides: Any) -> None:
        super().__init__(scenario, seed=seed, spark=spark, **overrides)

    def _apply(self, scenario: ReassignmentScenario,
               params: dict[str, Any]) -> ReassignmentScenario:
        params = {k: None if k in _THROTTLES and v == UNLIMITED else v
                  for k, v in params.items()}
        return super()._apply(scenario, params)

    def _figure(self) -> go.Figure:
        return reassignment_figure()

    def _controls(self, s: ReassignmentScenario) -> dict[str, w.ValueWidget]:
        return {
            "leader_throttle_bytes_per_s": w.SelectionSlider(
                options=_rate_options(_RATES, _slider(s.leader_throttle_bytes_per_s)),
                value=_slider(s.leader_throttle_bytes_per_s),
                description="leader.replication.throttled.rate"),
            "follower_throttle_bytes_per_s": w.SelectionSlider(
                options=_rate_options(_RATES, _slider(s.follower_throttle_bytes_per_s)),
                value=_slider(s.follower_throttle_bytes_per_s),
                description="follower.replication.throttled.rate"),
            "bytes_in_per_s": w.SelectionSlider(
                options=_rate_options(_IN, s.bytes_in_per_s), value=s.bytes_in_per_s,
                description="IN (bytes in per s)"),
            "brokers": w.IntSlider(value=s.brokers, min=1, max=max(50, s.brokers),
                                   description="brokers"),
            "replication_quota_window_num": w.IntSlider(
                value=s.replication_quota_window_num, min=1,
                max=max(30, s.replication_quota_window_num),
                description="replication.quota.window.num"),
            "replication_quota_window_size_seconds": w.IntSlider(
                value=s.replication_quota_window_size_seconds, min=1,
                max=max(10, s.replication_quota_window_size_seconds),
                description="replication.quota.window.size.seconds"),
        }

    def _control_values(self, s: ReassignmentScenario) -> dict[str, Any]:
        return {name: _slider(getattr(s, name)) for name in self.controls}

    def _sync_controls(self) -> None:
        values = self._control_values(self.scenario)
        for name in (*_THROTTLES, "bytes_in_per_s"):
            control = self.controls[name]
            options = _rate_options(list(control.options), values[name])
            if options != list(control.options):
                self._syncing = True
                try:
                    control.options = options
                finally:
                    self._syncing = False
        super()._sync_controls()

    def _compute(self, scenario: ReassignmentScenario) -> Any:
        from kipviz.curves.reassignment import reassignment_curves

        self.trace = simulate(scenario, seed=self.seed)
        return reassignment_curves(self.spark, self.trace)

    def _redraw(self, curves: Any) -> None:
        update_reassignment_figure(self.figure, curves)

    def _advice(self, s: ReassignmentScenario, c: Any) -> list[str]:
        notes = []
        reason = self.trace.meta.get("reason", "") if self.trace is not None else ""
        if reason:
            notes.append(f"{reason}.")
        if math.isfinite(c.kip_move_time_s) and not c.finished:
            notes.append(f"The move did not finish in the {s.ticks * s.tick_ms / 1000:g} s run "
                         f"(KIP-73's formula: {c.kip_move_time_s:.0f} s).")
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
        done = f"{c.completed_s:.1f} s" if c.finished else "not within the run"
        left = float(c.move["client_left_moving_mean_bytes_per_s"].iloc[0]) / MB \
            if len(c.move) else math.nan
        if math.isinf(c.throttle_bytes_per_s):
            kip, overshoot = "no throttle", "none (unthrottled)"
        else:
            kip = (f"KIP-73 formula {c.kip_move_time_s:.1f} s"
                   if math.isfinite(c.kip_move_time_s) else "KIP-73 formula: never")
            overshoot = (f"{_first_window_mb(c):.1f} MB against a throttle of 0"
                         if math.isinf(c.first_window_overshoot)
                         else f"{c.first_window_overshoot:.2f} x the quota")
        return (f"<b>move completed</b> {done} ({kip}) &middot; <b>first window</b> "
                f"{overshoot} &middot; <b>client bandwidth left while moving</b> "
                f"{left:.1f} MB/s")


def _first_window_mb(c: Any) -> float:
    """Throttled MB sent in the first quota window (NaN if the run has no move row)."""
    return float(c.move["first_window_throttled_bytes"].iloc[0]) / MB if len(c.move) else math.nan
