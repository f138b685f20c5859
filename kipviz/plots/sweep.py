"""Pure plotly figure builders for sweeps (summary tables in, figures out).

``safe_region_figure`` colours a grid of two settings by a metric (peak memory, say) and draws a
second metric's floor as a contour (the fairness floor); ``pareto_figure`` plots every
configuration of a sweep by memory and throughput with the Pareto front drawn through them.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go

__all__ = ["pareto_figure", "safe_region_figure"]

_MiB = 1024 * 1024


def _labels(values: np.ndarray) -> list[str]:
    return [f"{v / _MiB:g} MiB" if v >= _MiB else f"{v / 1024:g} KiB" for v in values]


def safe_region_figure(table: pd.DataFrame, x: str, y: str, z: str, *, floor: str | None = None,
                       floor_value: float | None = None, limit: float | None = None,
                       title: str = "") -> go.Figure:
    """A heatmap of ``z`` (bytes, shown in MiB) over the ``x`` by ``y`` grid of byte settings;
    cells above ``limit`` are hatched out by an overlay, and the ``floor`` metric's contour at
    ``floor_value`` (e.g. the lowest Jain index acceptable) is drawn over it."""
    xs, ys = np.sort(table[x].unique()), np.sort(table[y].unique())
    grid = table.pivot_table(index=y, columns=x, values=z).reindex(index=ys, columns=xs)
    fig = go.Figure(go.Heatmap(x=_labels(xs), y=_labels(ys), z=grid.to_numpy() / _MiB,
                               colorscale="Viridis", colorbar={"title": "MiB"},
                               name=z, hovertemplate="%{x} x %{y}: %{z:.1f} MiB<extra></extra>"))
    if limit is not None:
        over = np.where(grid.to_numpy() > limit, 1.0, np.nan)
        fig.add_trace(go.Heatmap(x=_labels(xs), y=_labels(ys), z=over, showscale=False,
                                 colorscale=[[0, "rgba(214,39,40,0.55)"],
                                             [1, "rgba(214,39,40,0.55)"]],
                                 name=f"above {limit / _MiB:g} MiB", hoverinfo="skip"))
    if floor is not None and floor_value is not None:
        f = table.pivot_table(index=y, columns=x, values=floor).reindex(index=ys, columns=xs)
        fig.add_trace(go.Contour(x=_labels(xs), y=_labels(ys), z=f.to_numpy(), showscale=False,
                                 contours={"start": floor_value, "end": floor_value, "size": 1,
                                           "coloring": "none", "showlabels": True},
                                 line={"color": "white", "width": 3},
                                 name=f"{floor} = {floor_value}"))
    fig.update_layout(height=460, title=title or None, xaxis_title=x, yaxis_title=y,
                      margin={"t": 60, "b": 50, "l": 90, "r": 20})
    return fig


def pareto_figure(table: pd.DataFrame, front: pd.DataFrame, *, x: str, y: str, label: str,
                  title: str = "") -> go.Figure:
    """Every configuration by ``x`` (bytes, in MiB) and ``y`` (bytes/s, in MB/s), coloured by
    ``label``, and the Pareto front through the best of them."""
    fig = go.Figure()
    for value, rows in table.groupby(label, sort=True):
        fig.add_trace(go.Scatter(x=rows[x] / _MiB, y=rows[y] / 1e6, mode="markers",
                                 name=f"{label} = {value}", marker={"size": 9}))
    fig.add_trace(go.Scatter(x=front[x] / _MiB, y=front[y] / 1e6, mode="lines",
                             name="Pareto front", line={"color": "black", "dash": "dash"}))
    fig.update_layout(height=420, title=title or None, xaxis_title=f"{x} (MiB)",
                      yaxis_title=f"{y} (MB/s)", margin={"t": 60, "b": 50, "l": 60, "r": 20})
    return fig
