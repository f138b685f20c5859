"""Pure plotly figure builders for the KIP-73 replication quota lesson (curves in, figures out).

``reassignment_figure`` has the fixed traces of ``REASSIGNMENT_TRACES``, so a ``FigureWidget``
can be redrawn in place by ``update_reassignment_figure``; ``compare_throttles_figure`` puts
several throttles side by side: a higher T moves the data sooner and leaves clients less.
Rates and sizes are in MB (10**6 bytes), the unit KIP-73's examples use. The lag drawn is the
replica lag summed over the moving partitions: KIP-73 proposed it as ``SumReplicaLag``, a metric
Kafka never shipped (watch ``ReassignmentBytesInPerSec`` / ``ReassignmentBytesOutPerSec``,
``UnderReplicatedPartitions``, ``ReassigningPartitions`` and the fetchers' ``MaxLag``
instead). The planned move time counts the in-sync followers ``--throttle`` puts under the
leader's quota; KIP-73's own formula (no followers) is drawn beside it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, TypeGuard

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from kipviz.curves.reassignment import ReassignmentCurves
from kipviz.kafka.units import MB
from kipviz.plots.grid import explain_flat_panel, grid_figure, set_trace_data

__all__ = [
    "REASSIGNMENT_TRACES",
    "broker_lanes_figure",
    "compare_throttles_figure",
    "move_grid_figure",
    "reassignment_figure",
    "update_reassignment_figure",
]

_COLORS = {"leader": "#1f77b4", "follower": "#9467bd", "sent": "#2ca02c", "lag": "#ff7f0e",
           "kip": "#d62728", "done": "#2ca02c", "client": "#17becf", "min": "#8c564b",
           "plan": "#7f7f7f", "planned": "#000000"}
_LAG = "replica lag (KIP-73's SumReplicaLag, never shipped)"

# (subplot row, col, name, mode, colour, dash) of every trace, in figure order.
REASSIGNMENT_TRACES = [
    (1, 1, "leader rate (measured)", "lines", "leader", None),
    (1, 1, "follower rate (measured)", "lines", "follower", "dot"),
    (1, 1, "throttled bytes sent per s", "lines+markers", "sent", None),
    (1, 1, "all moving bytes sent per s (in sync too)", "lines", "sent", "dot"),
    (1, 1, "leader.replication.throttled.rate", "lines", "leader", "dash"),
    (1, 1, "follower.replication.throttled.rate", "lines", "follower", "dashdot"),
    (1, 2, _LAG, "lines", "lag", None),
    (1, 2, "KIP-73 move time (Q&A 1)", "lines", "kip", "dash"),
    (1, 2, "simulated completion", "lines", "done", None),
    (1, 2, "planned move time, T - (F + 1) x IN", "lines", "planned", "dot"),
    (2, 1, "client bandwidth left (mean)", "lines", "client", None),
    (2, 1, "client bandwidth left (min tick)", "lines", "min", "dot"),
    (2, 1, "N - IN/R - T (Q&A 4)", "lines", "plan", "dash"),
    (2, 2, "partition caught up (simulated)", "markers", "done", None),
    (2, 2, "KIP-73 formula", "lines", "kip", "dash"),
    (2, 2, "planned, followers counted", "lines", "planned", "dot"),
]

_EMPTY: dict[str, Any] = {"x": [], "y": []}


def _finite(x: float | None) -> TypeGuard[float]:
    return x is not None and math.isfinite(x)


def _distinct(x: np.ndarray, y: np.ndarray) -> dict[str, Any]:
    """The points (x, y) once each: partitions that catch up together (an even share of the
    throttle) are one marker, not a stack of identical ones."""
    pairs = list(dict.fromkeys(zip(x.tolist(), y.tolist(), strict=True)))
    return {"x": [p[0] for p in pairs], "y": [p[1] for p in pairs]}


def _reassignment_data(c: ReassignmentCurves) -> list[dict[str, Any]]:
    """x and y of each trace of ``REASSIGNMENT_TRACES``, in the same order."""
    w, up = c.windows, c.catch_up
    t = w["window_start_ms"].to_numpy() / 1000.0
    span = [0.0, float(t[-1] + c.window_ms / 1000.0) if len(t) else 1.0]
    top = float(w["replica_lag_max_bytes"].max()) / MB if len(w) else 0.0
    top = top if top > 0 else 1.0

    def level(rate: float | None) -> dict[str, Any]:
        return {"x": span, "y": [rate / MB] * 2} if _finite(rate) else _EMPTY

    def at(seconds: float) -> dict[str, Any]:
        return {"x": [seconds] * 2, "y": [0.0, top]} if _finite(seconds) else _EMPTY

    done = up[up["caught_up_ms"] >= 0].sort_values("caught_up_bytes")
    cum = done["caught_up_bytes"].to_numpy() / MB
    kip = done["kip_move_time_s"].to_numpy()
    planned = done["planned_move_time_s"].to_numpy()

    def line(times: np.ndarray) -> dict[str, Any]:
        return ({"x": np.concatenate([[0.0], cum]), "y": np.concatenate([[0.0], times])}
                if len(done) and np.isfinite(times).all() else _EMPTY)

    return [
        {"x": t, "y": w["leader_rate_mean_bytes_per_s"].to_numpy() / MB},
        {"x": t, "y": w["follower_rate_mean_bytes_per_s"].to_numpy() / MB},
        {"x": t, "y": w["throttled_bytes_per_s"].to_numpy() / MB},
        {"x": t, "y": w["sent_bytes_per_s"].to_numpy() / MB},
        level(c.leader_quota_bytes_per_s),
        level(c.follower_quota_bytes_per_s),
        {"x": t, "y": w["replica_lag_end_bytes"].to_numpy() / MB},
        at(c.kip_move_time_s),
        at(c.completed_s),
        at(c.planned_move_time_s),
        {"x": t, "y": w["client_left_mean_bytes_per_s"].to_numpy() / MB},
        {"x": t, "y": w["client_left_min_bytes_per_s"].to_numpy() / MB},
        level(c.planned_client_bytes_per_s),
        _distinct(cum, done["caught_up_s"].to_numpy()),
        line(kip),
        line(planned),
    ]


def reassignment_figure(curves: ReassignmentCurves | None = None, *,
                        title: str = "") -> go.Figure:
    """The measured rates and the bytes sent per s (throttled, and all that the quotas count:
    in-sync replicas too, KAFKA-4313) against the leader and follower quotas, the replica lag
    with the planned move time (followers counted), KIP-73's and the simulated completion, the
    client bandwidth left, and each partition's catch-up against the planned and the KIP's
    times, on a 2 x 2 grid (``REASSIGNMENT_TRACES``)."""
    fig = grid_figure(("Replication against the quotas", "Replica lag and move times",
                       "Client bandwidth left", "Catch-up time"),
                      REASSIGNMENT_TRACES, _COLORS, marker_size=6, height=640, title=title,
                      x_titles=("time (s)", "time (s)", "time (s)", "MB of partitions caught up"),
                      y_titles=("MB/s", "MB", "MB/s", "s"))
    if curves is not None:
        update_reassignment_figure(fig, curves)
    return fig


def update_reassignment_figure(fig: go.Figure, curves: ReassignmentCurves) -> None:
    """Put new curves into a figure made by :func:`reassignment_figure`, in place (one redraw)."""
    set_trace_data(fig, _reassignment_data(curves))


def _seconds_or_note(x: float, note: str) -> tuple[float, str]:
    return (x, f"{x:.1f} s") if _finite(x) else (0.0, note)


def _simulated(c: ReassignmentCurves) -> tuple[float, str]:
    """The simulated bar: the completion, else "never" or the projected time, marked so."""
    if c.finished:
        return _seconds_or_note(c.completed_s, "")
    if c.move_status == "not within this run" and _finite(c.projected_move_time_s):
        return c.projected_move_time_s, f"not within this run ({c.projected_move_time_s:.0f} s?)"
    return 0.0, "never" if c.move_status == "never" else "not done"


def compare_throttles_figure(runs: Mapping[str, ReassignmentCurves], *,
                             title: str = "") -> go.Figure:
    """The trade-off of several throttles (labels, e.g. ``"10 MB/s"``): move time simulated
    ("never", or "not within this run" with the projected time), planned with the followers
    counted and by KIP-73's formula ("never" when T is too low); the client bandwidth left while
    the move runs, with Q&A 4's N - IN/R - T; and the replica lag over time."""
    fig = make_subplots(rows=1, cols=3, horizontal_spacing=0.08,
                        subplot_titles=("Move time (s)", "Client bandwidth left (MB/s)",
                                        "Replica lag (MB)"))
    labels = list(runs)
    done = [_simulated(c) for c in runs.values()]
    planned = [_seconds_or_note(c.planned_move_time_s, "never") for c in runs.values()]
    kip = [_seconds_or_note(c.kip_move_time_s, "never") for c in runs.values()]
    for name, values, colour in (("simulated", done, "done"),
                                 ("planned, followers counted", planned, "planned"),
                                 ("KIP-73 formula", kip, "kip")):
        fig.add_trace(go.Bar(x=labels, y=[v for v, _ in values], text=[s for _, s in values],
                             textposition="outside", name=name,
                             marker_color=_COLORS[colour]), row=1, col=1)
    left = [float(c.move["client_left_moving_mean_bytes_per_s"].iloc[0]) / MB
            if len(c.move) else math.nan for c in runs.values()]
    plan = [c.planned_client_bytes_per_s / MB if _finite(c.planned_client_bytes_per_s)
            else None for c in runs.values()]
    fig.add_trace(go.Bar(x=labels, y=left, name="left while moving (mean)",
                         marker_color=_COLORS["client"]), row=1, col=2)
    fig.add_trace(go.Scatter(x=labels, y=plan, mode="markers", name="N - IN/R - T (Q&A 4)",
                             marker={"color": _COLORS["plan"], "symbol": "line-ew-open",
                                     "size": 24, "line": {"width": 3}}), row=1, col=2)
    palette = ["#d62728", "#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e"]
    for i, (label, c) in enumerate(runs.items()):
        fig.add_trace(go.Scatter(x=c.windows["window_start_ms"] / 1000.0,
                                 y=c.windows["replica_lag_end_bytes"] / MB, name=label,
                                 mode="lines", line={"color": palette[i % len(palette)]}),
                      row=1, col=3)
    fig.update_xaxes(title_text="throttle", row=1, col=1)
    fig.update_xaxes(title_text="throttle", row=1, col=2)
    fig.update_xaxes(title_text="time (s)", row=1, col=3)
    fig.update_layout(height=420, title=title or None, barmode="group",
                      margin={"t": 70, "b": 40, "l": 50, "r": 20},
                      legend={"orientation": "h", "y": -0.2})
    return fig


def move_grid_figure(x_label: str, y_label: str) -> go.Figure:
    """The static page of a real plan: the move time (hours) over the grid of two settings
    (heatmap, trace 0), this point on it (trace 1), and each broker's finish at this point
    (bars, trace 2). Empty: the page fills the traces (``x``, ``y``, ``z``) per position."""
    fig = make_subplots(rows=1, cols=2, column_widths=[0.55, 0.45], subplot_titles=(
        "move time over the grid (h; blank: never finishes)",
        "when each broker's last move finishes (h)"))
    fig.add_trace(go.Heatmap(x=[], y=[], z=[], colorscale="Viridis", name="move time",
                             colorbar={"title": "h", "x": 0.5}, hoverongaps=False), 1, 1)
    fig.add_trace(go.Scatter(x=[], y=[], mode="markers", name="this setting",
                             marker={"symbol": "x", "size": 14, "color": "#d62728"}), 1, 1)
    fig.add_trace(go.Bar(x=[], y=[], name="broker's last move", marker_color="#1f77b4"), 1, 2)
    fig.update_xaxes(title_text=x_label, type="category", row=1, col=1)
    fig.update_yaxes(title_text=y_label, type="category", row=1, col=1)
    fig.update_xaxes(title_text="broker", type="category", row=1, col=2)
    fig.update_yaxes(title_text="hours", row=1, col=2)
    fig.update_layout(height=420, showlegend=False, margin={"t": 60})
    return fig


def broker_lanes_figure(brokers: Any, throttle_bytes_per_s: float | None, *,
                        title: str = "") -> go.Figure:
    """One lane per broker of a cluster reassignment's ``brokers`` table (docs/traces.md):
    its fetching new replicas' lag (GB, left) and its two quotas' measured rates against T
    (MB/s, right); brokers that neither send nor receive are left out."""
    busy = [b for b, rows in brokers.groupby("broker")
            if rows.received_bytes.sum() + rows.throttled_bytes.sum()
            + rows.unthrottled_bytes.sum() > 0]
    fig = make_subplots(rows=len(busy), cols=2, shared_xaxes=True, vertical_spacing=0.06,
                        subplot_titles=[t for b in busy for t in (
                            f"broker {b}: lag of its new replicas (GB)",
                            f"broker {b}: quotas' measured rates (MB/s)")])
    for row, b in enumerate(busy, start=1):
        lane = brokers[brokers.broker == b]
        hours = lane.time_ms / 3.6e6
        fig.add_trace(go.Scatter(x=hours, y=lane.lag_bytes / 1e9, name="lag",
                                 line={"color": _COLORS["lag"]}, showlegend=row == 1), row, 1)
        for name, colour in (("leader", "leader"), ("follower", "follower")):
            fig.add_trace(go.Scatter(x=hours, y=lane[f"{name}_rate_bytes_per_s"] / MB,
                                     name=f"{name} quota's rate", line={"color": _COLORS[colour]},
                                     showlegend=row == 1), row, 2)
        if throttle_bytes_per_s is not None:
            fig.add_trace(go.Scatter(x=[hours.min(), hours.max()],
                                     y=[throttle_bytes_per_s / MB] * 2, name="T",
                                     line={"color": _COLORS["plan"], "dash": "dash"},
                                     showlegend=row == 1), row, 2)
        if not (lane.lag_bytes > 0).any():
            explain_flat_panel(fig, row, 1, f"no new replica on broker {b}: it only sends")
    fig.update_xaxes(title_text="hours", row=len(busy))
    fig.update_layout(height=220 * len(busy) + 80, title=title)
    return fig
