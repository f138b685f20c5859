"""The figure of a real plan's dashboard: the move time per broker, and one lane per broker.

``plan_figure(brokers)`` has fixed traces (so a ``FigureWidget`` is redrawn in place by
``update_plan_figure``): on top, when each broker's last move finishes, simulated (Kafka's quotas
tick by tick, one fetcher per broker pair, a binding quota shared max-min fair) beside the flow
schedule's plan; below, one lane per broker as in lesson 4's figure
(:func:`kipviz.plots.reassignment.broker_lanes_figure`): the lag of the new replicas it receives
(GB) and the rates its leader and follower quotas measured against T (MB/s). Times are in hours,
sizes in GB and rates in MB/s (10**9 and 10**6 bytes).
"""

from __future__ import annotations

from collections.abc import Sequence

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from kipviz.curves.reassignment.plan import PlanCurves
from kipviz.kafka.units import in_hours
from kipviz.plots.grid import explain_flat_panels

__all__ = ["plan_figure", "update_plan_figure"]

_COLORS = {"simulated": "#2ca02c", "planned": "#7f7f7f", "lag": "#ff7f0e", "leader": "#1f77b4",
           "follower": "#9467bd", "T": "#d62728"}
_LANE = ("lag", "leader", "follower", "T")  # the traces of a lane, in figure order


def plan_figure(brokers: Sequence[int], *, title: str = "") -> go.Figure:
    """The empty figure for ``brokers`` (those that send or receive a new replica): two bars
    per broker, then four traces per lane (lag; leader rate, follower rate, T)."""
    rows = 1 + len(brokers)
    titles = ["when each broker's last move finishes (h)", ""]
    for b in brokers:
        titles += [f"broker {b}: lag of the new replicas it receives (GB)",
                   f"broker {b}: its quotas' measured rates against T (MB/s)"]
    fig = make_subplots(rows=rows, cols=2, specs=[[{"colspan": 2}, None]] + [[{}, {}]] * len(
        brokers), subplot_titles=[t for t in titles if t], vertical_spacing=0.35 / rows,
        row_heights=[1.3] + [1.0] * len(brokers))
    fig.add_trace(go.Bar(x=[], y=[], name="simulated (tick by tick)",
                         marker_color=_COLORS["simulated"]), 1, 1)
    fig.add_trace(go.Bar(x=[], y=[], name="planned (flow schedule)",
                         marker_color=_COLORS["planned"]), 1, 1)
    fig.update_yaxes(title_text="hours", row=1, col=1)
    fig.update_xaxes(title_text="broker", type="category", row=1, col=1)
    for row, _ in enumerate(brokers, start=2):
        first = row == 2
        fig.add_trace(go.Scatter(x=[], y=[], mode="lines", name="lag of its new replicas",
                                 line={"color": _COLORS["lag"]}, showlegend=first), row, 1)
        fig.add_trace(go.Scatter(x=[], y=[], mode="lines", name="leader quota's rate",
                                 line={"color": _COLORS["leader"]}, showlegend=first), row, 2)
        fig.add_trace(go.Scatter(x=[], y=[], mode="lines", name="follower quota's rate",
                                 line={"color": _COLORS["follower"], "dash": "dot"},
                                 showlegend=first), row, 2)
        fig.add_trace(go.Scatter(x=[], y=[], mode="lines", name="T (--throttle)",
                                 line={"color": _COLORS["T"], "dash": "dash"},
                                 showlegend=first), row, 2)
        fig.update_yaxes(title_text="GB", row=row, col=1)
        fig.update_yaxes(title_text="MB/s", row=row, col=2)
        fig.update_xaxes(title_text="hours", row=row, col=1)
        fig.update_xaxes(title_text="hours", row=row, col=2)
    fig.update_layout(height=260 + 200 * len(brokers), title=title or None, barmode="group",
                      margin={"t": 70, "b": 40, "l": 50, "r": 20},
                      legend={"orientation": "h", "y": 1.02, "yanchor": "bottom"},
                      meta={"brokers": list(brokers)})
    return fig


def update_plan_figure(fig: go.Figure, curves: PlanCurves) -> None:
    """Put new curves into a figure made by :func:`plan_figure`, in place (one redraw); a lane
    that is flat says why (a broker that only sends has no lag; no quota at work)."""
    brokers: list[int] = list(fig.layout.meta["brokers"])
    t = curves.throttle_bytes_per_s
    labels = [f"broker {b}" for b in brokers]
    with fig.batch_update():
        simulated = [in_hours(curves.simulated_s.get(b)) for b in brokers]
        planned = [in_hours(curves.planned_s.get(b)) for b in brokers]
        for bar, hours in zip(fig.data[:2], (simulated, planned), strict=True):
            bar.x, bar.y = labels, hours
            bar.showlegend = any(h is not None for h in hours)  # none: never, or not in the run
        for i, b in enumerate(brokers):
            lane = curves.lane(b)
            hours = (lane["window_end_ms"] / 3.6e6).to_numpy()
            lag, leader, follower, line = fig.data[2 + 4 * i: 6 + 4 * i]
            lag.x, lag.y = hours, (lane["lag_end_bytes"] / 1e9).to_numpy()
            leader.x, leader.y = hours, (lane["leader_rate_mean_bytes_per_s"] / 1e6).to_numpy()
            follower.x = hours
            follower.y = (lane["follower_rate_mean_bytes_per_s"] / 1e6).to_numpy()
            span = [0.0, float(hours.max())] if len(hours) else []
            line.x, line.y = (span, [t / 1e6] * len(span)) if t is not None else ([], [])
            line.showlegend = i == 0 and t is not None
    explain_flat_panels(fig, {
        (2 + i, col): reason for i, b in enumerate(brokers) for col, reason in (
            (1, f"broker {b} receives no new replica, or they never lag: it only sends"),
            (2, f"broker {b}'s quotas record nothing here"))})

