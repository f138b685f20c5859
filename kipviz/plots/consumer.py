"""The KIP-74 consumer's figures: fairness, memory against its bounds, lag and delivery.

``consumer_figure`` builds the dashboard's figure and ``update_consumer_figure`` swaps the data
of its fixed traces in place (:mod:`kipviz.plots.grid`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from kipviz.curves.consumer import ConsumerCurves
from kipviz.kafka.units import MiB
from kipviz.plots.grid import (
    explain_flat_panels,
    finish_grid,
    panel_traces,
    run_line,
    set_trace_data,
)

__all__ = [
    "compare_fairness_figure",
    "consumer_figure",
    "memory_bounds_figure",
    "update_consumer_figure",
]
_COLORS = {"fair": "#1f77b4", "held": "#2ca02c", "wire": "#98df8a", "kip74": "#d62728",
           "pre": "#9467bd", "p50": "#7f7f7f", "p99": "#ff7f0e", "max": "#8c564b",
           "bar": "#17becf"}

# (subplot row, col, name, kind, colour, dash) of every trace, in figure order.
_CONSUMER_TRACES = panel_traces({
    (1, 1): [
        ("Jain index", "lines+markers", "fair"),
    ],
    (1, 2): [
        ("held (peak)", "lines", "held"),
        ("held + in flight (peak)", "lines", "wire", "dot"),
        ("KIP-74 bound", "lines", "kip74", "dash"),
        ("pre-KIP-74 bound", "lines", "pre", "dash"),
    ],
    (2, 1): [
        ("lag p50", "lines", "p50"),
        ("lag p99", "lines", "p99"),
        ("lag max", "lines", "max", "dot"),
    ],
    (2, 2): [
        ("delivered", "bar", "bar"),
    ],
})


def _seconds(ms: pd.Series) -> np.ndarray:
    return ms.to_numpy() / 1000.0


def _consumer_data(c: ConsumerCurves) -> list[dict[str, Any]]:
    """x and y of each trace of ``_CONSUMER_TRACES``, in the same order."""
    f, m, lag, part = c.fairness, c.memory, c.lag_over_time, c.lag_by_partition
    t_mem = _seconds(m["window_start_ms"])
    span = [0.0, float(t_mem[-1]) if len(t_mem) else 1.0]
    return [
        {"x": _seconds(f["window_start_ms"]), "y": f["jain_index"].to_numpy()},
        {"x": t_mem, "y": m["held_max_bytes"].to_numpy() / MiB},
        {"x": t_mem, "y": m["held_in_flight_max_bytes"].to_numpy() / MiB},
        {"x": span, "y": [c.kip74_bound_bytes / MiB] * 2},
        {"x": span, "y": [c.pre_kip74_bound_bytes / MiB] * 2},
        {"x": _seconds(lag["window_start_ms"]), "y": lag["lag_p50_bytes"].to_numpy() / MiB},
        {"x": _seconds(lag["window_start_ms"]), "y": lag["lag_p99_bytes"].to_numpy() / MiB},
        {"x": _seconds(lag["window_start_ms"]), "y": lag["lag_max_bytes"].to_numpy() / MiB},
        {"x": part["partition"].to_numpy(), "y": part["delivered_bytes"].to_numpy() / MiB},
    ]


def consumer_figure(curves: ConsumerCurves | None = None, *, title: str = "") -> go.Figure:
    """Fairness, memory against its bounds, lag, and bytes per partition, on a 2 x 2 grid."""
    fig = make_subplots(
        rows=2, cols=2, horizontal_spacing=0.1, vertical_spacing=0.2,
        subplot_titles=("Fairness per window", "Memory against the bounds",
                        "Lag across partitions", "Delivered per partition"),
    )
    for row, col, name, kind, colour, dash in _CONSUMER_TRACES:
        if kind == "bar":
            trace: Any = go.Bar(name=name, marker_color=_COLORS[colour], showlegend=False)
        else:
            trace = go.Scatter(name=name, mode=kind, line={"color": _COLORS[colour], "dash": dash})
        fig.add_trace(trace, row=row, col=col)
    fig.update_yaxes(range=[0, 1.05], row=1, col=1)
    finish_grid(fig, [(1, 1, "time (s)"), (1, 2, "time (s)"), (2, 1, "time (s)"),
                      (2, 2, "partition")], height=620, title=title,
                y_titles=[(1, 1, "Jain's index (1 = fair)"), (1, 2, "MiB"), (2, 1, "lag (MiB)"),
                          (2, 2, "MiB")])
    fig.update_layout(bargap=0.05)
    if curves is not None:
        update_consumer_figure(fig, curves)
    return fig


def update_consumer_figure(fig: go.Figure, curves: ConsumerCurves) -> None:
    """Put new curves into a figure made by :func:`consumer_figure`, in place (one redraw)."""
    set_trace_data(fig, _consumer_data(curves))
    explain_flat_panels(fig, {(2, 2): "every partition was delivered the same bytes:<br>"
                                      "the fetches shared the bandwidth equally"})


def compare_fairness_figure(curves_by_label: Mapping[str, ConsumerCurves], *,
                            title: str = "") -> go.Figure:
    """Jain's index per window and bytes per partition for several runs side by side."""
    fig = make_subplots(rows=1, cols=2, horizontal_spacing=0.12,
                        subplot_titles=("Jain's index per window", "MiB delivered per partition"))
    palette = ["#d62728", "#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e"]
    for i, (label, c) in enumerate(curves_by_label.items()):
        colour = palette[i % len(palette)]
        fig.add_trace(go.Scatter(x=_seconds(c.fairness["window_start_ms"]),
                                 y=c.fairness["jain_index"], name=label, mode="lines+markers",
                                 line=run_line(i, colour), legendgroup=label), row=1, col=1)
        fig.add_trace(go.Bar(x=c.lag_by_partition["partition"].astype(str),
                             y=c.lag_by_partition["delivered_bytes"] / MiB, name=label,
                             marker_color=colour, legendgroup=label, showlegend=False),
                      row=1, col=2)
    fig.update_yaxes(range=[0, 1.05], row=1, col=1)
    fig.update_xaxes(title_text="time (s)", row=1, col=1)
    fig.update_xaxes(title_text="partition", row=1, col=2)
    fig.update_layout(height=380, title=title or None, barmode="group",
                      margin={"t": 70, "b": 40, "l": 50, "r": 20})
    return fig


def memory_bounds_figure(table: pd.DataFrame, *, title: str = "") -> go.Figure:
    """Grouped bars per configuration: simulated peak memory against the analytic bounds.

    ``table`` has a ``label`` column and any of ``peak_held_bytes``, ``kip74_bound_bytes`` and
    ``pre_kip74_bound_bytes``.
    """
    names = {"pre_kip74_bound_bytes": ("pre-KIP-74 bound", "pre"),
             "kip74_bound_bytes": ("KIP-74 bound", "kip74"),
             "peak_held_bytes": ("simulated peak", "held")}
    fig = go.Figure()
    for column, (name, colour) in names.items():
        if column in table:
            fig.add_trace(go.Bar(x=table["label"], y=table[column] / MiB, name=name,
                                 marker_color=_COLORS[colour]))
    fig.update_layout(barmode="group", height=380, title=title or None,
                      yaxis_title="memory (MiB, log scale)",
                      yaxis_type="log", margin={"t": 60, "b": 40, "l": 60, "r": 20})
    return fig
