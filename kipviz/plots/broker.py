"""Pure plotly figure builders for the KIP-72 memory pool lesson (curves in, figures out).

``broker_figure`` has a fixed list of traces, so a ``FigureWidget`` can be redrawn in place by
``update_broker_figure``; ``compare_pools_figure`` puts several runs (no pool, non-strict,
strict) side by side, ``compare_waits_figure`` their mean wait per connection (key order).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from kipviz.curves.broker import BrokerCurves
from kipviz.kafka.units import MiB
from kipviz.plots.grid import grid_figure, panel_traces, run_line, set_trace_data

__all__ = ["BROKER_TRACES", "broker_figure", "compare_pools_figure", "compare_waits_figure",
           "update_broker_figure"]

_COLORS = {"used": "#2ca02c", "pool": "#1f77b4", "true": "#d62728", "depleted": "#9467bd",
           "p50": "#7f7f7f", "p99": "#ff7f0e", "muted": "#8c564b"}

# every trace, panel by panel ((name, mode, colour[, dash])), in figure order
BROKER_TRACES = panel_traces({
    (1, 1): [
        ("pool used (peak)", "lines", "used"),
        ("queued.max.request.bytes", "lines", "pool", "dash"),
        ("queued.max.request.bytes + socket.request.max.bytes - 1", "lines", "true", "dash"),
    ],
    (1, 2): [
        ("pool depleted (% of ticks)", "lines", "depleted"),
    ],
    (2, 1): [
        ("wait p50", "markers", "p50"),
        ("wait p99", "markers", "p99"),
    ],
    (2, 2): [
        ("muted for memory (max)", "lines", "muted"),
    ],
})


def _broker_data(c: BrokerCurves) -> list[dict[str, Any]]:
    """x and y of each trace of ``BROKER_TRACES``, in the same order."""
    m, w = c.memory, c.waits
    t = m["window_start_ms"].to_numpy() / 1000.0
    span = [0.0, float(t[-1]) if len(t) else 1.0]

    def level(bytes_: int | None) -> dict[str, Any]:
        return {"x": [], "y": []} if bytes_ is None else {"x": span, "y": [bytes_ / MiB] * 2}

    return [
        {"x": t, "y": m["pool_used_max_bytes"].to_numpy() / MiB},
        level(c.queued_max_request_bytes if c.has_pool else None),
        level(c.nonstrict_bound_bytes),
        {"x": t, "y": 100.0 * m["depleted_share"].to_numpy()},
        {"x": w["connection"].to_numpy(), "y": w["wait_p50_ms"].to_numpy()},
        {"x": w["connection"].to_numpy(), "y": w["wait_p99_ms"].to_numpy()},
        {"x": t, "y": m["muted_max"].to_numpy()},
    ]


def broker_figure(curves: BrokerCurves | None = None, *, title: str = "") -> go.Figure:
    """Pool memory against its two bounds, depleted time, waits per connection and muted
    channels, on a 2 x 2 grid with the fixed traces of ``BROKER_TRACES``."""
    fig = grid_figure(("Request pool used", "Time the pool was dry",
                       "Wait before a request is read", "Channels muted for memory"),
                      BROKER_TRACES, _COLORS, height=620, title=title,
                      x_titles=("time (s)", "time (s)", "connection", "time (s)"),
                      y_titles=("MiB", "% of ticks", "ms", "channels"))
    fig.update_yaxes(range=[0, 105], row=1, col=2)
    if curves is not None:
        update_broker_figure(fig, curves)
    return fig


def update_broker_figure(fig: go.Figure, curves: BrokerCurves) -> None:
    """Put new curves into a figure made by :func:`broker_figure`, in place (one redraw)."""
    set_trace_data(fig, _broker_data(curves))


def compare_pools_figure(curves_by_label: Mapping[str, BrokerCurves], *,
                         title: str = "") -> go.Figure:
    """Several runs side by side (e.g. no pool / non-strict / strict): pool used over time with
    each run's outstanding bound dashed, depleted time, and the p99 wait of small against large
    requests."""
    fig = make_subplots(rows=1, cols=3, horizontal_spacing=0.08,
                        subplot_titles=("Pool used (MiB)", "Out of memory (% of ticks)",
                                        "p99 wait (ms): small vs large requests"))
    palette = ["#d62728", "#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e"]
    for i, (label, c) in enumerate(curves_by_label.items()):
        colour = palette[i % len(palette)]
        t = c.memory["window_start_ms"].to_numpy() / 1000.0
        fig.add_trace(go.Scatter(x=t, y=c.memory["pool_used_max_bytes"] / MiB, name=label,
                                 mode="lines", line=run_line(i, colour), legendgroup=label),
                      row=1, col=1)
        bound = c.outstanding_bound_bytes
        if bound is not None:  # no pool: nothing bounds it
            span = [0.0, float(t[-1]) if len(t) else 1.0]
            fig.add_trace(go.Scatter(x=span, y=[bound / MiB] * 2, name=f"{label}: bound",
                                     mode="lines", showlegend=False, legendgroup=label,
                                     line={"color": colour, "dash": "longdash", "width": 1}),
                          row=1, col=1)
        fig.add_trace(go.Scatter(x=t, y=100.0 * c.memory["depleted_share"], name=label,
                                 mode="lines", line=run_line(i, colour), legendgroup=label,
                                 showlegend=False), row=1, col=2)
        sizes = c.large_vs_small
        fig.add_trace(go.Bar(x=np.where(sizes["large"], "large", "small"),
                             y=sizes["wait_p99_ms"], name=label, marker_color=colour,
                             legendgroup=label, showlegend=False), row=1, col=3)
    fig.update_yaxes(range=[0, 105], row=1, col=2)
    for col in (1, 2):
        fig.update_xaxes(title_text="time (s)", row=1, col=col)
    fig.update_layout(height=400, title=title or None, barmode="group",
                      margin={"t": 70, "b": 40, "l": 50, "r": 20})
    return fig


def compare_waits_figure(curves_by_label: Mapping[str, BrokerCurves], *,
                         title: str = "") -> go.Figure:
    """Mean wait before a request is read, per connection in key order, for several runs (e.g.
    key shuffling on and off): without shuffling the last keys wait behind the first ones."""
    fig = go.Figure()
    palette = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e"]
    for i, (label, c) in enumerate(curves_by_label.items()):
        w = c.waits
        fig.add_trace(go.Scatter(
            x=w["connection"], y=w["wait_mean_ms"], mode="lines+markers", marker={"size": 4},
            line={"color": palette[i % len(palette)]},
            name=f"{label} (Jain over waits {c.wait_jain_index:.2f})"))
    fig.update_layout(height=380, title=title or None, xaxis_title="connection (key order)",
                      yaxis_title="mean wait (ms)", margin={"t": 60, "b": 40, "l": 60, "r": 20},
                      legend={"orientation": "h", "y": -0.2})
    return fig
