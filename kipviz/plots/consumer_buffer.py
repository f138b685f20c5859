"""Pure plotly figure builders for the KIP-81 consumer buffer lesson (curves in, figures out).

``buffer_figure`` has a fixed list of traces (three consumers: today's, KIP-81's pool, the
in-flight cap), so a ``FigureWidget`` is redrawn in place by ``update_buffer_figure``;
``heap_figure`` sets simulated heap estimates beside a published measurement.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import plotly.graph_objects as go

from kipviz.curves.consumer.buffer import BufferCurves
from kipviz.kafka.units import MiB
from kipviz.plots.grid import explain_flat_panels, grid_figure, set_trace_data

__all__ = ["BUFFER_TRACES", "MODE_NAMES", "buffer_figure", "heap_figure",
           "update_buffer_figure"]

MODE_NAMES = {"today": "today's consumer (no pool)", "kip81_pool": "KIP-81 buffer.memory pool",
              "in_flight_cap": "in-flight cap (rejected)"}
_MODES = tuple(MODE_NAMES)
_LINE_STYLES = {"today": (5, None), "kip81_pool": (2.5, None), "in_flight_cap": (2, "dot")}
_MARKER_STYLES = {"today": (11, "circle"), "kip81_pool": (7, "diamond"),
                  "in_flight_cap": (5, "x")}
_COLORS = {"today": "#d62728", "kip81_pool": "#1f77b4", "in_flight_cap": "#ff7f0e",
           "kip74": "#7f7f7f", "memory": "#2ca02c", "pooled": "#9467bd"}

# (subplot row, col, name, mode, colour, dash) of every trace, in figure order.
BUFFER_TRACES = [
    *[(1, 1, MODE_NAMES[m], "lines", m, None) for m in _MODES],
    (1, 1, "KIP-74 bound min(B x fetch.max.bytes, P x max.partition.fetch.bytes)", "lines",
     "kip74", "dash"),
    (1, 1, "buffer.memory", "lines", "memory", "dash"),
    (1, 1, "buffer.memory + largest response - 1", "lines", "pooled", "dot"),
    *[(1, 2, MODE_NAMES[m], "lines", m, None) for m in _MODES],
    *[(2, 1, MODE_NAMES[m], "markers", m, None) for m in _MODES],
    *[(2, 2, MODE_NAMES[m], "lines+markers", m, None) for m in _MODES],
]


def _buffer_data(c: BufferCurves) -> list[dict[str, Any]]:
    """x and y of each trace of ``BUFFER_TRACES``, in the same order; a mode missing from the
    curves gets empty traces."""
    def mode_xy(table: str, x: str, y: str, scale: float) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for mode in _MODES:
            if mode not in c.labels:
                out.append({"x": [], "y": []})
                continue
            rows = c.of(table, mode)
            out.append({"x": rows[x].to_numpy() / 1000.0, "y": rows[y].to_numpy() / scale})
        return out

    t = c.memory["window_start_ms"].to_numpy() / 1000.0
    span = [0.0, float(t.max()) if len(t) else 1.0]
    bounds: dict[str, int] = {}
    for b in c.bounds.values():
        bounds.update(b)

    def level(key: str) -> dict[str, Any]:
        value = bounds.get(key)
        return {"x": [], "y": []} if value is None else {"x": span, "y": [value / MiB] * 2}

    return [
        *mode_xy("memory", "window_start_ms", "retained_max_bytes", MiB),
        level("kip74_bound_bytes"), level("buffer_memory_bytes"), level("pooled_bound_bytes"),
        *mode_xy("memory", "window_start_ms", "consumed_bytes_per_s", 1e6),
        *[{"x": xy["x"], "y": xy["y"] * 1000.0} for xy in
          mode_xy("heartbeats", "sent_ms", "delay_ms", 1000.0)],
        *[{"x": xy["x"], "y": np.asarray(xy["y"], dtype=float)} for xy in
          mode_xy("fairness", "window_start_ms", "jain_index", 1.0)],
    ]


def buffer_figure(curves: BufferCurves | None = None, *, title: str = "") -> go.Figure:
    """Memory against its bounds, throughput, heartbeat delay and fairness, per consumer."""
    fig = grid_figure(("Responses retained (peak)", "Throughput to the application",
                       "Heartbeat response delay", "Fairness per window"),
                      BUFFER_TRACES, _COLORS, marker_size=6, height=640, title=title,
                      x_titles=("time (s)", "time (s)", "heartbeat sent (s)", "time (s)"),
                      y_titles=("MiB", "MB/s", "ms", "Jain's index (1 = fair)"))
    # one legend entry per consumer: the same names recur in the other subplots
    for trace in fig.data[len(_MODES) + 3:]:
        trace.showlegend = False
    # where the three consumers agree (throughput when the application is the bottleneck) the
    # lines coincide: widths and a dotted line keep each one visible under the next
    for trace in fig.data:
        for mode, name in MODE_NAMES.items():
            if trace.name == name:
                trace.line.width, trace.line.dash = _LINE_STYLES[mode]
                trace.marker.size, trace.marker.symbol = _MARKER_STYLES[mode]
    fig.update_yaxes(range=[0, 1.05], row=2, col=2)
    if curves is not None:
        update_buffer_figure(fig, curves)
    return fig


def update_buffer_figure(fig: go.Figure, curves: BufferCurves) -> None:
    """Put new curves into a figure made by :func:`buffer_figure`, in place (one redraw); a
    heartbeat panel at 0 ms for every consumer says why."""
    set_trace_data(fig, _buffer_data(curves))
    explain_flat_panels(fig, {(2, 1): "0 ms for every consumer:<br>no heartbeat response "
                                      "waited for memory"})


def heap_figure(labels: Sequence[str], simulated_bytes: Sequence[float],
                measured_bytes: Sequence[float], *, title: str = "") -> go.Figure:
    """Grouped bars: the heap each consumer needs, simulated beside the published measurement."""
    fig = go.Figure([
        go.Bar(x=list(labels), y=np.asarray(simulated_bytes) / 1e6, name="simulated (kipviz)",
               marker_color=_COLORS["kip81_pool"]),
        go.Bar(x=list(labels), y=np.asarray(measured_bytes) / 1e6,
               name="measured (KIP-81 pull request)", marker_color=_COLORS["kip74"]),
    ])
    fig.update_layout(barmode="group", height=360, title=title or None, yaxis_title="heap (MB)",
                      margin={"t": 60, "b": 40, "l": 60, "r": 20})
    return fig
