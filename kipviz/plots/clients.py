"""Issue 31's figure: one workload on each client, memory and fairness side by side."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from kipviz.kafka.units import MiB

__all__ = ["clients_figure"]

_COLORS = {"held": "#2ca02c", "bound": "#d62728", "fair": "#1f77b4"}


def clients_figure(table: pd.DataFrame, *, title: str = "") -> go.Figure:
    """Left: each client's simulated peak held memory beside its bound (MiB); right: Jain's
    index of the bytes each partition got. ``table`` is
    :func:`kipviz.scenarios.consumer.clients.memory_by_client`'s (``label``,
    ``peak_held_bytes``, ``bound_bytes``, ``jain_index``)."""
    fig = make_subplots(rows=1, cols=2, column_widths=[0.65, 0.35], horizontal_spacing=0.12,
                        subplot_titles=("memory held by the client", "fairness across partitions"))
    fig.add_trace(go.Bar(x=table["label"], y=table["peak_held_bytes"] / MiB,
                         name="simulated peak held", marker_color=_COLORS["held"]), 1, 1)
    fig.add_trace(go.Bar(x=table["label"], y=table["bound_bytes"] / MiB,
                         name="the client's bound", marker_color=_COLORS["bound"]), 1, 1)
    fig.add_trace(go.Bar(x=table["label"], y=table["jain_index"], name="Jain's index",
                         marker_color=_COLORS["fair"]), 1, 2)
    fig.update_yaxes(title_text="memory (MiB)", row=1, col=1)
    fig.update_yaxes(title_text="Jain's index of bytes per partition (1 = equal)",
                     range=[0, 1.05], row=1, col=2)
    fig.update_xaxes(title_text="client (and its settings)", row=1, col=1)
    fig.update_xaxes(title_text="client (and its settings)", row=1, col=2)
    fig.update_layout(barmode="group", height=430, title=title or None,
                      margin={"t": 70, "b": 60, "l": 60, "r": 20},
                      legend={"orientation": "h", "y": -0.35})
    return fig
