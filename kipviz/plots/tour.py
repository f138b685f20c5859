"""The tour's figure: one cluster's fairness and memory curves from four KIPs on one grid.

``tour_figure`` has the fixed traces of ``TOUR_TRACES`` so a ``FigureWidget`` is redrawn in place
by ``update_tour_figure``, from the curves each lesson computes: the consumer's
(:class:`~kipviz.curves.consumer.buffer.BufferCurves`, KIP-74 fairness and KIP-81 memory), the
broker's (:class:`~kipviz.curves.broker.BrokerCurves`, KIP-72) and the reassignment's
(:class:`~kipviz.curves.reassignment.ReassignmentCurves`, KIP-73).
"""

from __future__ import annotations

import math
from typing import Any

import plotly.graph_objects as go

from kipviz.curves.broker import BrokerCurves
from kipviz.curves.consumer.buffer import BufferCurves
from kipviz.curves.reassignment import ReassignmentCurves
from kipviz.kafka.units import MB, MiB
from kipviz.plots.grid import grid_figure, panel_traces, set_trace_data

__all__ = ["TOUR_TRACES", "tour_figure", "update_tour_figure"]

_COLORS = {"today": "#d62728", "pool": "#1f77b4", "bound": "#7f7f7f", "memory": "#2ca02c",
           "used": "#2ca02c", "queued": "#1f77b4", "true": "#d62728", "sent": "#2ca02c",
           "quota": "#1f77b4", "lag": "#ff7f0e"}
_EMPTY: dict[str, Any] = {"x": [], "y": []}

# every trace, panel by panel ((name, mode, colour[, dash])), in figure order
TOUR_TRACES = panel_traces({
    (1, 1): [
        ("consumer today: Jain's index", "lines+markers", "today"),
        # (the pool's lines dashed: where both consumers agree, today's shows through)
        ("consumer with buffer.memory: Jain's index", "lines+markers", "pool", "dash"),
    ],
    (1, 2): [
        ("consumer today: responses retained", "lines", "today"),
        ("consumer with buffer.memory: responses retained", "lines", "pool", "dashdot"),
        ("KIP-74 bound", "lines", "bound", "dash"),
        ("buffer.memory", "lines", "memory", "dash"),
    ],
    (2, 1): [
        ("broker pool used", "lines", "used"),
        ("queued.max.request.bytes", "lines", "queued", "dash"),
        ("queued.max.request.bytes + socket.request.max.bytes - 1", "lines", "true", "dot"),
    ],
    (2, 2): [
        ("throttled replication (MB/s)", "lines", "sent"),
        ("replication throttle (MB/s)", "lines", "quota", "dash"),
        ("replica lag left (100 MB)", "lines", "lag"),
    ],
})


def _tour_data(consumer: BufferCurves, broker: BrokerCurves,
               move: ReassignmentCurves) -> list[dict[str, Any]]:
    """x and y of each trace of ``TOUR_TRACES``, in the same order."""
    def mode(table: str, label: str, y: str, scale: float) -> dict[str, Any]:
        if label not in consumer.labels:
            return _EMPTY
        rows = consumer.of(table, label)
        return {"x": rows["window_start_ms"].to_numpy() / 1000.0, "y": rows[y].to_numpy() / scale}

    def level(x: Any, value: float | None, scale: float) -> dict[str, Any]:
        if value is None or not math.isfinite(value) or len(x) == 0:
            return _EMPTY
        return {"x": [0.0, float(x[-1])], "y": [value / scale] * 2}

    t_c = consumer.memory["window_start_ms"].to_numpy() / 1000.0
    bounds: dict[str, int] = {}
    for b in consumer.bounds.values():
        bounds.update(b)
    t_b = broker.memory["window_start_ms"].to_numpy() / 1000.0
    w = move.windows
    t_m = w["window_start_ms"].to_numpy() / 1000.0
    return [
        mode("fairness", "today", "jain_index", 1.0),
        mode("fairness", "kip81_pool", "jain_index", 1.0),
        mode("memory", "today", "retained_max_bytes", MiB),
        mode("memory", "kip81_pool", "retained_max_bytes", MiB),
        level(t_c, bounds.get("kip74_bound_bytes"), MiB),
        level(t_c, bounds.get("buffer_memory_bytes"), MiB),
        {"x": t_b, "y": broker.memory["pool_used_max_bytes"].to_numpy() / MiB},
        level(t_b, broker.queued_max_request_bytes if broker.has_pool else None, MiB),
        level(t_b, broker.nonstrict_bound_bytes, MiB),
        {"x": t_m, "y": w["throttled_bytes_per_s"].to_numpy() / MB},
        level(t_m, move.throttle_bytes_per_s, MB),
        {"x": t_m, "y": w["replica_lag_end_bytes"].to_numpy() / (100 * MB)},
    ]


def tour_figure(*, title: str = "") -> go.Figure:
    """Consumer fairness and memory, broker request memory and a throttled reassignment."""
    fig = grid_figure(("KIP-74: consumer fairness", "KIP-74 / 81: consumer memory",
                       "KIP-72: broker request memory", "KIP-73: throttled reassignment"),
                      TOUR_TRACES, _COLORS, height=680, title=title,
                      x_titles=("time (s)",) * 4,
                      y_titles=("Jain's index (1 = fair)", "MiB", "MiB", "MB/s; lag in 100 MB"))
    fig.update_yaxes(range=[0, 1.05], row=1, col=1)
    return fig


def update_tour_figure(fig: go.Figure, consumer: BufferCurves, broker: BrokerCurves,
                       move: ReassignmentCurves) -> None:
    """Put new curves into a figure made by :func:`tour_figure`, in place (one redraw)."""
    set_trace_data(fig, _tour_data(consumer, broker, move))
