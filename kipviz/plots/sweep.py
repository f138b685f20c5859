"""Pure plotly figure builders for sweeps (summary tables in, figures out).

``safe_region_figure`` colours a grid of two settings by a metric (peak memory, say) and draws a
second metric's floor as a contour (the fairness floor); ``pareto_figure`` plots every
configuration of a sweep by memory and throughput with the Pareto front drawn through them;
``grid_point_figure`` / ``update_grid_point_figure`` show one point of a
:class:`kipviz.curves.instant.SweepGrid`: where it sits on the grid, and its curves.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from kipviz.kafka.units import MiB, byte_label

if TYPE_CHECKING:
    from kipviz.curves.instant import GridPoint

from kipviz.kafka.config.declarations import BROKER, CONSUMER, STREAMS
from kipviz.plots.grid import explain_flat_panels

__all__ = ["byte_label", "grid_point_figure", "pareto_figure", "quantity_label",
           "safe_region_figure", "setting_label", "update_grid_point_figure", "value_label"]



def _labels(values: np.ndarray) -> list[str]:
    return [byte_label(v) for v in values]


def setting_label(name: str, value: Any) -> str:
    """A setting's value as a person reads it, by the unit its name carries: ``*_bytes`` in
    B/KiB/MiB (a negative size, Kafka's "no limit", reads so), ``*_bytes_per_s`` in MB/s, ``*_ms``
    in ms; None reads "none"."""
    if value is None:
        return "none"
    if isinstance(value, enum.Enum):
        return str(value.value)
    if isinstance(value, bool) or not isinstance(value, int | float):
        return str(value)
    if name.endswith("_bytes_per_s"):
        return f"{value / 1e6:g} MB/s"
    if name.endswith("_bytes"):
        return f"{value:g} (no limit)" if value < 0 else byte_label(value)
    if name.endswith("_ms"):
        return f"{value:g} ms"
    return f"{value:g}"


_QUANTITIES = {"peak_memory_bytes": "peak memory (MiB)", "p99_memory_bytes": "p99 memory (MiB)",
               "bound_bytes": "memory bound (MiB)", "kip74_bound_bytes": "KIP-74 bound (MiB)",
               "throughput_bytes_per_s": "throughput (MB/s)",
               "min_jain_index": "lowest Jain's index of a window",
               "mean_jain_index": "mean Jain's index", "move_time_s": "move time (s)",
               "longest_starvation_fetches": "longest starvation (fetch rounds)",
               "kafka_version": "Kafka version", "mode": "design"}
_VALUES = {"mode": {"today": "today's consumer (no pool)", "kip81_pool": "KIP-81 pool",
                    "in_flight_cap": "in-flight cap (rejected)"}}


def quantity_label(name: str) -> str:
    """How an axis or legend names a sweep column: a metric in words with its unit (``peak
    memory (MiB)``), a setting by Kafka's key (``fetch.max.bytes``)."""
    if name in _QUANTITIES:
        return _QUANTITIES[name]
    for table in (CONSUMER, BROKER, STREAMS):
        for setting in table.values():
            if setting.name == name:
                return setting.key
    return name.replace("_", " ")


def value_label(name: str, value: Any) -> str:
    """A column's value as a legend reads it (a design's name, a setting's value with its unit)."""
    return _VALUES.get(name, {}).get(value) or setting_label(name, value)


def safe_region_figure(table: pd.DataFrame, x: str, y: str, z: str, *, floor: str | None = None,
                       floor_value: float | None = None, limit: float | None = None,
                       title: str = "") -> go.Figure:
    """A heatmap of ``z`` (bytes, shown in MiB) over the ``x`` by ``y`` grid of byte settings;
    cells above ``limit`` are hatched out by an overlay, and the ``floor`` metric's contour at
    ``floor_value`` (e.g. the lowest Jain index acceptable) is drawn over it."""
    xs, ys = np.sort(table[x].unique()), np.sort(table[y].unique())
    grid = table.pivot_table(index=y, columns=x, values=z).reindex(index=ys, columns=xs)
    fig = go.Figure(go.Heatmap(x=_labels(xs), y=_labels(ys), z=grid.to_numpy() / MiB,
                               colorscale="Viridis", colorbar={"title": "MiB"},
                               name=quantity_label(z),
                               hovertemplate="%{x} x %{y}: %{z:.1f} MiB<extra></extra>"))
    if limit is not None:
        over = np.where(grid.to_numpy() > limit, 1.0, np.nan)
        fig.add_trace(go.Heatmap(x=_labels(xs), y=_labels(ys), z=over, showscale=False,
                                 colorscale=[[0, "rgba(214,39,40,0.55)"],
                                             [1, "rgba(214,39,40,0.55)"]],
                                 name=f"above {limit / MiB:g} MiB", hoverinfo="skip"))
    if floor is not None and floor_value is not None:
        f = table.pivot_table(index=y, columns=x, values=floor).reindex(index=ys, columns=xs)
        fig.add_trace(go.Contour(x=_labels(xs), y=_labels(ys), z=f.to_numpy(), showscale=False,
                                 contours={"start": floor_value, "end": floor_value, "size": 1,
                                           "coloring": "none", "showlabels": True},
                                 line={"color": "white", "width": 3},
                                 name=f"{quantity_label(floor)} = {floor_value}"))
    fig.update_layout(height=460, title=title or None, xaxis_title=quantity_label(x),
                      yaxis_title=quantity_label(y),
                      margin={"t": 60, "b": 50, "l": 90, "r": 20})
    return fig


def pareto_figure(table: pd.DataFrame, front: pd.DataFrame, *, x: str, y: str, label: str,
                  title: str = "") -> go.Figure:
    """Every configuration by ``x`` (bytes, in MiB) and ``y`` (bytes/s, in MB/s), coloured by
    ``label``, and the Pareto front through the best of them."""
    fig = go.Figure()
    for value, rows in table.groupby(label, sort=True):
        fig.add_trace(go.Scatter(x=rows[x] / MiB, y=rows[y] / 1e6, mode="markers",
                                 name=value_label(label, value), marker={"size": 9}))
    fig.add_trace(go.Scatter(x=front[x] / MiB, y=front[y] / 1e6, mode="lines",
                             name="Pareto front", line={"color": "black", "dash": "dash"}))
    fig.update_layout(height=420, title=title or None, xaxis_title=quantity_label(x),
                      yaxis_title=quantity_label(y), legend_title_text=quantity_label(label),
                      margin={"t": 60, "b": 50, "l": 60, "r": 20})
    return fig


def grid_point_figure(x: str, y: str | None, *, metric: str = "peak_memory_bytes",
                      title: str = "", labels: Mapping[str, str] | None = None) -> go.Figure:
    """An empty 2 x 2 figure for one grid point: ``metric`` (bytes, in MiB) over the ``x`` by
    ``y`` grid with the point marked, and the point's memory per window against its bounds,
    throughput per window and Jain's index per window. ``labels`` names the axes (Kafka's
    keys; :func:`quantity_label` otherwise)."""
    names = labels or {}
    fig = make_subplots(rows=2, cols=2, horizontal_spacing=0.16, vertical_spacing=0.18,
                        subplot_titles=(f"{metric.removesuffix('_bytes').replace('_', ' ')} "
                                        "over the grid",
                                        "Memory against the bounds", "Throughput per window",
                                        "Fairness per window"))
    fig.add_trace(go.Heatmap(colorscale="Viridis", colorbar={"title": "MiB", "len": 0.42,
                                                             "y": 0.79, "x": 0.44,
                                                             "thickness": 12},
                             name=metric, hovertemplate="%{x} x %{y}: %{z:.1f} MiB"
                                                        "<extra></extra>"), row=1, col=1)
    fig.add_trace(go.Scatter(mode="markers", name="this setting", showlegend=False,
                             marker={"symbol": "x", "size": 14, "color": "#d62728",
                                     "line": {"width": 2, "color": "white"}}), row=1, col=1)
    for name, colour, dash in (("memory held", "#1f77b4", "solid"),
                               ("KIP-74 bound", "#2ca02c", "dash"),
                               ("the mechanism's bound", "#9467bd", "dot")):
        fig.add_trace(go.Scatter(mode="lines", name=name, line={"color": colour, "dash": dash}),
                      row=1, col=2)
    fig.add_trace(go.Scatter(mode="lines+markers", name="throughput", showlegend=False,
                             line={"color": "#ff7f0e"}), row=2, col=1)
    fig.add_trace(go.Scatter(mode="lines+markers", name="Jain's index", showlegend=False,
                             line={"color": "#17becf"}), row=2, col=2)
    fig.update_xaxes(title_text=names.get(x) or quantity_label(x), type="category", row=1, col=1)
    fig.update_yaxes(title_text=(names.get(y) or quantity_label(y)) if y else "",
                     type="category", row=1, col=1)
    for col in (2,):
        fig.update_xaxes(title_text="time (s)", row=1, col=col)
    for col in (1, 2):
        fig.update_xaxes(title_text="time (s)", row=2, col=col)
    fig.update_yaxes(rangemode="tozero", title_text="MiB", row=1, col=2)
    fig.update_yaxes(rangemode="tozero", title_text="MB/s", row=2, col=1)
    fig.update_yaxes(range=[0, 1.05], title_text="Jain's index (1 = fair)", row=2, col=2)
    fig.update_layout(height=640, title=title or None, margin={"t": 80, "b": 40, "l": 90, "r": 20},
                      legend={"orientation": "h", "y": -0.08})
    return fig


def update_grid_point_figure(fig: go.Figure, point: GridPoint, heat: pd.DataFrame, *, x: str,
                             y: str | None) -> None:
    """Put ``point`` and the grid slice ``heat`` (from
    :meth:`kipviz.curves.instant.SweepGrid.slice`) into a figure made by :func:`grid_point_figure`,
    in place (one redraw). The point is marked when it lies on the grid."""
    xs = [setting_label(x, v) for v in heat.columns]
    ys = [setting_label(y, v) for v in heat.index] if y is not None else ["-"]
    x_here = setting_label(x, getattr(point.scenario, x))
    y_here = setting_label(y, getattr(point.scenario, y)) if y is not None else "-"
    on_grid = x_here in xs and y_here in ys
    c = point.curves
    t = c["window_ms"].to_numpy() / 1000.0
    span = [t[0], t[-1] + (t[1] - t[0] if len(t) > 1 else 0.0)] if len(t) else []
    bound, kip74 = point.metrics["bound_bytes"], point.metrics["kip74_bound_bytes"]
    with fig.batch_update():
        heatmap, marker, memory, kip74_line, bound_line, throughput, jain = fig.data
        heatmap.x, heatmap.y, heatmap.z = xs, ys, heat.to_numpy() / MiB
        marker.x, marker.y = ([x_here], [y_here]) if on_grid else ([], [])
        memory.x, memory.y = t, c["memory_bytes"].to_numpy() / MiB
        kip74_line.x, kip74_line.y = _level(span, kip74)
        bound_line.x, bound_line.y = _level(span, bound)
        bound_line.showlegend = not math.isnan(bound)
        throughput.x, throughput.y = t, c["throughput_bytes_per_s"].to_numpy() / 1e6
        jain.x, jain.y = t, c["jain_index"].to_numpy()
    explain_flat_panels(fig, {(1, 2): "the consumer holds its whole bound in every window:"
                                      "<br>it lags, and every response is full"
                              if not math.isnan(kip74) else "memory held: the same in every "
                                                            "window"})


def _level(span: Sequence[float], value: float) -> tuple[Sequence[float], list[float]]:
    """A horizontal line at ``value`` bytes (in MiB) across ``span``, or nothing for NaN."""
    if math.isnan(value) or not span:
        return [], []
    return span, [value / MiB] * 2
