"""The static page of lesson 4's dashboard: a real plan's move time, per broker, over a grid.

KIP-73's question is "if I set this throttle, when does my reassignment finish?", so this kind's
page answers it for lesson 4's sample plan (``data/reassignment.json``: orders-0 and payments-0
led by broker 1, orders-1 by broker 2, all three landing on broker 4) over the throttle T that
``--throttle`` sets on every broker and the produce rate IN of the hottest topic: the move time
over the grid (a heatmap) and, at the sliders' point, when each broker's last move finishes.
Each point is :func:`kipviz.apps.planner.reassignment.plan_reassignment`'s flow schedule (the
cluster simulation agrees within 5%: ``tests/test_reassignment_cluster.py``); nothing here
needs Spark. The page reuses the sliders' script and markup (:mod:`kipviz.apps.static.sliders`).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from typing import Any

from kipviz.apps.static.grids import SliderGrid

__all__ = ["SamplePlan", "move_grid_payload"]


@dataclass(frozen=True)
class SamplePlan:
    """Lesson 4's plan files and rates: ``throttle_bytes_per_s`` (T on every broker, None:
    unlimited), ``hottest_in_bytes_per_s`` (IN of ``hottest_topic``, split over its partitions
    by size) and ``bytes_in_per_s`` (the other topics' IN)."""

    reassignment: str = "reassignment.json"
    current: str = "current-assignment.json"
    log_dirs: str = "log-dirs.json"
    hottest_topic: str = "orders"
    throttle_bytes_per_s: float | None = 35e6
    hottest_in_bytes_per_s: float = 13.2e6
    bytes_in_per_s: dict[str, float] = field(default_factory=lambda: {"payments": 1.33e6})

    def plan(self, **change: Any) -> Any:
        """:func:`~kipviz.apps.planner.reassignment.plan_reassignment` at this point."""
        from kipviz import data_file
        from kipviz.apps.planner.reassignment import plan_reassignment

        t = change.get("throttle_bytes_per_s", self.throttle_bytes_per_s)
        hot = change.get("hottest_in_bytes_per_s", self.hottest_in_bytes_per_s)
        return plan_reassignment(
            data_file(self.reassignment), current=data_file(self.current),
            partition_sizes=data_file(self.log_dirs),
            bytes_in_per_s={**self.bytes_in_per_s, self.hottest_topic: hot},
            throttle_bytes_per_s=t)


def _hours(seconds: float) -> float | None:
    return None if math.isinf(seconds) else round(seconds / 3600, 3)


def move_grid_payload(spec: SliderGrid, label: Any) -> dict[str, Any]:
    """The sliders' data (see :func:`kipviz.apps.static.sliders.grid_payload`): per position,
    the heatmap of the whole grid, the point's marker and the per-broker bars, and a summary
    naming the move time and the bottleneck (or why the move never finishes). ``label`` is the
    sliders' value labeller."""
    (x, xs), (y, ys) = spec.axes.items()
    plans = {(i, j): spec.base.plan(**{x: xs[i], y: ys[j]})
             for i, j in itertools.product(range(len(xs)), range(len(ys)))}
    heat = [[_hours(plans[(i, j)].move_time_s) for i in range(len(xs))] for j in range(len(ys))]
    x_labels, y_labels = [label(x, v) for v in xs], [label(y, v) for v in ys]
    points: dict[str, Any] = {}
    for (i, j), plan in plans.items():
        brokers = plan.broker_move_time_s
        if plan.reason:
            summary = f"<b>never finishes</b>: {plan.reason}"
        else:
            summary = (f"move time <b>{plan.move_time_s / 3600:.2f} h</b>; bottleneck: "
                       f"{plan.schedule.bottleneck or 'none'}")
        points[f"{i}-{j}"] = {"summary": summary, "traces": [
            {"x": x_labels, "y": y_labels, "z": heat},
            {"x": [x_labels[i]], "y": [y_labels[j]]},
            {"x": [f"broker {b}" for b in brokers], "y": [_hours(t) for t in brokers.values()]}]}
    start = [next((i for i, v in enumerate(values) if v == getattr(spec.base, name)), 0)
             for name, values in spec.axes.items()]
    axes = [{"name": n, "label": spec.labels.get(n, n), "values": [label(n, v) for v in vs],
             "start": s} for (n, vs), s in zip(spec.axes.items(), start, strict=True)]
    return {"axes": axes, "points": points, "rejected": {}}
