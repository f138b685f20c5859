"""Lesson 4's plan dashboard: when a real reassignment finishes, per broker, as T and IN move.

Two sliders, the two numbers an operator has in hand: the throttle T that ``kafka-reassign-
partitions --execute --throttle`` sets as both rates on every broker of the plan, and the IN of
the plan's hottest topic (split over its partitions by size). Each move runs the cluster
simulation (:func:`kipviz.scenarios.reassignment.cluster.simulate_cluster`, compiled once per
process, with the flow schedule's plan in its ``meta``) and one Spark job for the lanes
(:func:`kipviz.curves.reassignment.plan.plan_curves`), then redraws the figure: when each broker's
last move finishes, simulated beside planned, and one lane per broker (lag, quotas against T).
"""

from __future__ import annotations

import math
from typing import Any

import plotly.graph_objects as go

from kipviz.curves.reassignment.plan import PlanCurves, plan_curves
from kipviz.kafka.units import MB, S_PER_HOUR, hours
from kipviz.plots.reassignment_plan import plan_figure, update_plan_figure
from kipviz.scenarios.reassignment.cluster import simulate_cluster
from kipviz.scenarios.reassignment.plan import ReassignmentPlanScenario, sample_plan
from kipviz.widgets._base import Dashboard
from kipviz.widgets.controls import Control

__all__ = ["ReassignmentPlanDashboard"]



def _rate(value: float) -> str:
    return f"{value / MB:g} MB/s"


def _hours(seconds: float | None) -> str:
    return hours(seconds, missing="not within the run")


class ReassignmentPlanDashboard(Dashboard):
    """A real plan (default: lesson 4's sample files, :func:`~kipviz.scenarios.reassignment.
    plan.sample_plan`) under ``--throttle T`` with the hottest topic's IN: sliders for both,
    the move time per broker (simulated and planned) and one lane per broker.

    ``update(throttle_bytes_per_s=..., hottest_in_bytes_per_s=...)`` takes
    :class:`~kipviz.scenarios.reassignment.plan.ReassignmentPlanScenario` field names (rates in
    bytes/s; None = unlimited, the slider's "unlimited") and returns
    :class:`~kipviz.curves.reassignment.plan.PlanCurves`, or None when rejected (the reason
    shows in ``warning``). A T that never finishes runs, with the plan's reason as a warning.
    """

    CONTROLS = (
        Control("throttle_bytes_per_s", options=tuple(r * MB for r in (
            5, 10, 15, 20, 25, 30, 35, 45, 55, 80, 100)), unset="unlimited", unset_last=True,
            fmt=_rate, label="throttle T (--throttle: both rates, every broker)"),
        Control("hottest_in_bytes_per_s", options=tuple(r * MB for r in (
            0, 2, 5, 10, 13.2, 20, 30, 40)), fmt=_rate,
            label=lambda s: f"IN of topic {s.hottest_topic} (the hottest), split by size"),
    )

    def __init__(self, scenario: ReassignmentPlanScenario | None = None, *, seed: int = 0,
                 spark: Any = None, **overrides: Any) -> None:
        scenario = scenario if scenario is not None else sample_plan()
        self._brokers = sorted({b for m in scenario.moves if m.added
                                for b in (m.leader, *m.added)})
        super().__init__(scenario, seed=seed, spark=spark, **overrides)

    def _figure(self) -> go.Figure:
        return plan_figure(self._brokers)

    def _compute(self, scenario: ReassignmentPlanScenario) -> PlanCurves:
        self.trace = simulate_cluster(scenario.cluster(), seed=self.seed)
        return plan_curves(self.spark, self.trace,
                           sample_ms=scenario.sample_ticks * scenario.tick_ms,
                           throttle_bytes_per_s=scenario.throttle_bytes_per_s)

    def _redraw(self, curves: PlanCurves) -> None:
        update_plan_figure(self.figure, curves)

    def _advice(self, s: ReassignmentPlanScenario, c: PlanCurves) -> list[str]:
        if c.never_reason:
            return [f"{c.never_reason} (Kafka accepts this throttle without a word)."]
        if c.move_time_s is None:
            return [f"The simulated move did not finish in the {c.run_s / S_PER_HOUR:g} h run; the "
                    f"plan says {_hours(c.planned_move_time_s)}."]
        return []

    def _summary(self, c: PlanCurves) -> str:
        gap = ""
        if c.move_time_s and math.isfinite(c.planned_move_time_s):
            gap = (f" ({(c.planned_move_time_s / c.move_time_s - 1) * 100:+.1f}% against the "
                   f"simulation)")
        return (f"<b>move time</b> simulated {_hours(c.move_time_s)}, planned "
                f"{_hours(c.planned_move_time_s)}{gap} &middot; <b>bottleneck</b> "
                f"{c.bottleneck or 'none'}<br><small>Per broker, simulated / planned: "
                + ", ".join(f"broker {b} {_hours(c.simulated_s.get(b))} / "
                            f"{_hours(c.planned_s.get(b))}" for b in sorted(c.planned_s))
                + ". Kafka's gate leaves which replica gets a binding quota's bytes to fetch "
                  "timing; both share it max-min fair (pinned), so brokers off the bottleneck "
                  "finish as the model says. The move time is T's at the bottleneck whatever "
                  "the split.</small>")
