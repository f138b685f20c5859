"""Pure plotly figure builders for the KIP-932 share-group lesson (curves in, figures out).

``share_group_figure`` has a fixed list of traces, so a ``FigureWidget`` is redrawn in place by
``update_share_group_figure``; ``scaling_figure`` draws each group's records/s against its size.
Subplot titles are short, so a 2 x 2 grid reads at JupyterLab's default width.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from kipviz.curves.share_group import ShareGroupCurves
from kipviz.kafka.units import KiB
from kipviz.plots.grid import finish_grid, panel_traces, set_trace_data

__all__ = ["SHARE_TRACES", "scaling_figure", "share_group_figure", "update_share_group_figure"]

_COLORS = {"share": "#1f77b4", "classic": "#d62728", "cap": "#7f7f7f", "soft": "#ff7f0e",
           "mean": "#9edae5", "bound": "#2ca02c"}

# (subplot row, col, name, mode, colour, dash) of every trace, in figure order; mode "bar" is
# a bar chart.
SHARE_TRACES = panel_traces({
    (1, 1): [
        ("share group", "lines+markers", "share"),
        ("classic group", "lines+markers", "classic"),
    ],
    (1, 2): [
        ("in flight (max)", "lines", "share"),
        ("in flight (mean)", "lines", "mean", "dot"),
        ("record.locks cap", "lines", "cap", "dash"),
        ("cap + batch - 1", "lines", "soft", "dot"),
    ],
    (2, 1): [
        ("oldest unacked (max)", "lines", "share"),
        ("oldest unacked (mean)", "lines", "mean", "dot"),
    ],
    (2, 2): [
        ("held (peak)", "bar", "share"),
        ("max.poll.records x size", "lines", "soft", "dash"),
        ("fetch bound", "lines", "bound", "dash"),
    ],
})


def _share_data(c: ShareGroupCurves) -> list[dict[str, Any]]:
    """x and y of each trace of ``SHARE_TRACES``, in the same order."""
    def jain(group: str) -> dict[str, Any]:
        rows = c.of(group)
        return {"x": rows["window_start_ms"].to_numpy() / 1000.0,
                "y": rows["jain_index"].to_numpy(dtype=float)}

    f, lat, mem, meta = c.in_flight, c.latency, c.memory, c.meta
    t = f["window_start_ms"].to_numpy() / 1000.0
    span = [0.0, float(t.max()) if len(t) else 1.0]
    members = [-0.5, len(mem) - 0.5]
    return [
        jain("share"), jain("classic"),
        {"x": t, "y": f["in_flight_max_records"].to_numpy()},
        {"x": t, "y": f["in_flight_mean_records"].to_numpy()},
        {"x": span, "y": [meta.get("max_record_locks", np.nan)] * 2},
        {"x": span, "y": [meta.get("in_flight_bound_records", np.nan)] * 2},
        {"x": lat["window_start_ms"].to_numpy() / 1000.0,
         "y": lat["latency_max_ms"].to_numpy() / 1000.0},
        {"x": lat["window_start_ms"].to_numpy() / 1000.0,
         "y": lat["latency_mean_ms"].to_numpy() / 1000.0},
        {"x": mem["consumer"].to_numpy(), "y": mem["held_max_bytes"].to_numpy() / KiB},
        {"x": members, "y": [meta.get("max_records_bytes", np.nan) / KiB] * 2},
        {"x": members, "y": [meta.get("memory_bound_bytes", np.nan) / KiB] * 2},
    ]


def share_group_figure(curves: ShareGroupCurves | None = None, *, title: str = "") -> go.Figure:
    """Fairness across consumers, in-flight records against the lock cap, the oldest
    unacknowledged record's age, and each share consumer's peak memory against its bounds."""
    fig = make_subplots(rows=2, cols=2, horizontal_spacing=0.12, vertical_spacing=0.2,
                        subplot_titles=("Jain across consumers", "Records in flight",
                                        "Oldest unacked record (s)", "Held per consumer (KiB)"))
    for row, col, name, mode, colour, dash in SHARE_TRACES:
        if mode == "bar":
            trace: Any = go.Bar(name=name, marker_color=_COLORS[colour])
        else:
            trace = go.Scatter(name=name, mode=mode, line={"color": _COLORS[colour],
                                                           "dash": dash},
                               marker={"color": _COLORS[colour], "size": 5})
        fig.add_trace(trace, row=row, col=col)
    fig.update_yaxes(range=[0, 1.05], row=1, col=1)
    fig.update_yaxes(type="log", row=2, col=2)
    finish_grid(fig, [(1, 1, "time (s)"), (1, 2, "time (s)"), (2, 1, "time (s)"),
                      (2, 2, "share consumer")], height=640, title=title)
    fig.update_layout(legend={"orientation": "h", "y": -0.14, "font": {"size": 11}},
                      margin={"t": 70, "b": 110, "l": 50, "r": 20}, bargap=0.2)
    if curves is not None:
        update_share_group_figure(fig, curves)
    return fig


def update_share_group_figure(fig: go.Figure, curves: ShareGroupCurves) -> None:
    """Put new curves into a figure made by :func:`share_group_figure`, in place (one redraw)."""
    set_trace_data(fig, _share_data(curves))


def scaling_figure(scaling: pd.DataFrame, *, partitions: int | None = None,
                   title: str = "") -> go.Figure:
    """Records/s of each group against its number of consumers (``share_scaling``'s table);
    a dotted line at the partition count, where a classic group stops growing."""
    fig = go.Figure()
    for group in ("share", "classic"):
        rows = scaling[scaling["group"] == group]
        fig.add_trace(go.Scatter(x=rows["consumers"], y=rows["records_per_s"],
                                 name=f"{group} group", mode="lines+markers",
                                 line={"color": _COLORS[group]},
                                 customdata=rows["active_consumers"],
                                 hovertemplate="%{x} consumers, %{customdata} working: "
                                               "%{y:,.0f} records/s"))
    if partitions is not None:
        fig.add_vline(x=partitions, line={"color": _COLORS["cap"], "dash": "dot"},
                      annotation_text=f"{partitions} partitions", annotation_position="top left")
    fig.update_layout(height=380, title=title or None, xaxis_title="consumers in the group",
                      yaxis_title="records consumed (records/s)",
                      legend={"orientation": "h", "y": -0.2},
                      margin={"t": 60, "b": 60, "l": 60, "r": 20})
    return fig
