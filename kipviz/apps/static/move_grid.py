"""The static page of lesson 4's dashboard: a real plan's move time, per broker, over a grid.

KIP-73's question is "if I set this throttle, when does my reassignment finish?", so this kind's
page answers it for lesson 4's sample plan (``data/reassignment.json``: orders-0 and payments-0
led by broker 1, orders-1 by broker 2, all three landing on broker 4) over the throttle T that
``--throttle`` sets on every broker and the produce rate IN of the hottest topic: the move time
over the grid (a heatmap) and, at the sliders' point, when each broker's last move finishes.
The grid's base is the live dashboard's scenario (:func:`kipviz.scenarios.reassignment.plan.
sample_plan`, :class:`kipviz.widgets.ReassignmentPlanDashboard`); each point is its flow schedule
(:meth:`~kipviz.scenarios.reassignment.plan.ReassignmentPlanScenario.schedule`, what
:func:`kipviz.plan_reassignment` computes; the cluster simulation agrees within 5%:
``tests/kafka/replication/test_reassignment_cluster.py``); nothing here needs Spark. The page
reuses the sliders' script and markup (:mod:`kipviz.apps.static.sliders`).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import replace
from typing import Any

from kipviz.apps.static.grids import SliderGrid
from kipviz.kafka.units import S_PER_HOUR

__all__ = ["move_grid_payload"]


def _hours(seconds: float) -> float | None:
    return None if math.isinf(seconds) else round(seconds / S_PER_HOUR, 3)


def move_grid_payload(spec: SliderGrid, label: Any) -> dict[str, Any]:
    """The sliders' data (see :func:`kipviz.apps.static.sliders.grid_payload`): per position,
    the heatmap of the whole grid, the point's marker and the per-broker bars, and a summary
    naming the move time and the bottleneck (or why the move never finishes). ``label`` is the
    sliders' value labeller."""
    (x, xs), (y, ys) = spec.axes.items()
    plans = {(i, j): replace(spec.base, **{x: xs[i], y: ys[j]}).schedule()
             for i, j in itertools.product(range(len(xs)), range(len(ys)))}
    heat = [[_hours(plans[(i, j)].move_time_s) for i in range(len(xs))] for j in range(len(ys))]
    x_labels, y_labels = [label(x, v) for v in xs], [label(y, v) for v in ys]
    points: dict[str, Any] = {}
    for (i, j), plan in plans.items():
        brokers = plan.broker_move_time_s
        if plan.reason:
            summary = f"<b>never finishes</b>: {plan.reason}"
        else:
            summary = (f"move time <b>{plan.move_time_s / S_PER_HOUR:.2f} h</b>; bottleneck: "
                       f"{plan.bottleneck or 'none'}")
        points[f"{i}-{j}"] = {"summary": summary, "traces": [
            {"x": x_labels, "y": y_labels, "z": heat},
            {"x": [x_labels[i]], "y": [y_labels[j]]},
            {"x": [f"broker {b}" for b in brokers], "y": [_hours(t) for t in brokers.values()]}]}
    start = [next((i for i, v in enumerate(values) if v == getattr(spec.base, name)), 0)
             for name, values in spec.axes.items()]
    axes = [{"name": n, "label": spec.labels.get(n, n), "values": [label(n, v) for v in vs],
             "start": s} for (n, vs), s in zip(spec.axes.items(), start, strict=True)]
    return {"axes": axes, "points": points, "rejected": {}}
