"""Pure plotly figure builders for the tiered-storage lesson (curves and tables in, figures out).

``tiered_figure`` has a fixed list of traces (two runs, e.g. Kafka 4.1 and 4.2), so a
``FigureWidget`` is redrawn in place by ``update_tiered_figure``; ``copy_quota_figure`` and
``three_rates_figure`` draw the tables of :mod:`kipviz.scenarios.tiered_fetch.quotas`. Subplot
titles are short so a 2 x 2 grid reads at JupyterLab's default width (~600 px).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from kipviz.curves.tiered_fetch import CLASSES, TieredCurves
from kipviz.kafka.units import MiB
from kipviz.plots.grid import add_fixed_traces, explain_flat_panels, finish_grid, set_trace_data

__all__ = ["RUNS", "TIERED_TRACES", "copy_quota_figure", "three_rates_figure", "tiered_figure",
           "update_tiered_figure"]

RUNS = 2  # runs drawn by tiered_figure: curves' modes 0 and 1
_COLORS = {"run0": "#d62728", "run1": "#1f77b4", "Rate": "#ff7f0e", "SimpleRate": "#1f77b4",
           "TokenBucket": "#2ca02c", "quota": "#7f7f7f", "load": "#9467bd"}
_SHORT = ("remote", "local (catch-up)", "local (tail)")

# (subplot row, col, name, mode, colour, dash) of every trace, in figure order
# (the second run dashed: where the runs agree, the first shows through)
_DASH = {"remote": (None, "dash"), "catch-up": (None, "dash"), "tail": ("dot", "dashdot")}
TIERED_TRACES = [
    *[(1, 1, f"run {r}", "lines", f"run{r}", _DASH["remote"][r]) for r in range(RUNS)],
    *[(1, 2, f"run {r}: catch-up", "lines", f"run{r}", _DASH["catch-up"][r])
      for r in range(RUNS)],
    *[(1, 2, f"run {r}: tail", "lines", f"run{r}", _DASH["tail"][r]) for r in range(RUNS)],
    *[(2, 1, f"run {r}", "lines+markers", f"run{r}", _DASH["remote"][r]) for r in range(RUNS)],
    *[(2, 2, f"run {r}", "markers", f"run{r}", None) for r in range(RUNS)],
]


def _tiered_data(c: TieredCurves) -> list[dict[str, Any]]:
    """x and y of each trace of ``TIERED_TRACES``; a run missing from the curves is empty."""
    def series(cls: int) -> list[dict[str, Any]]:
        out = []
        for r in range(RUNS):
            rows = c.throughput[(c.throughput["mode"] == r) & (c.throughput["cls"] == cls)]
            out.append({"x": rows["window_start_ms"].to_numpy() / 1000.0,
                        "y": rows["bytes_per_s"].to_numpy() / 1e6})
        return out

    latency, largest = [], []
    for r in range(RUNS):
        rows = c.latency[c.latency["mode"] == r]
        latency.append({"x": [_SHORT[k] for k in rows["cls"]],
                        "y": rows["p99_latency_ms"].to_numpy()})
        s = c.summary[c.summary["mode"] == r]
        largest.append({"x": [c.labels[r]] if len(s) else [],
                        "y": s["peak_response_bytes"].to_numpy() / MiB})
    return [*series(0), *series(1), *series(2), *latency, *largest]


def tiered_figure(curves: TieredCurves | None = None, *, title: str = "") -> go.Figure:
    """Remote and local throughput over time, p99 latency of the fetches that carried data of
    each class (sent to answered; empty fetches left out) and the largest response, for two runs
    (the curves' first two labels name them)."""
    fig = make_subplots(rows=2, cols=2, horizontal_spacing=0.12, vertical_spacing=0.2,
                        subplot_titles=("Remote MB/s", "Local MB/s",
                                        "p99 latency, fetches with data (ms)",
                                        "Largest response (MiB)"))
    add_fixed_traces(fig, TIERED_TRACES, _COLORS, marker_size=9)
    finish_grid(fig, [(1, 1, "time (s)"), (1, 2, "time (s)")], height=560, title=title)
    fig.update_xaxes(categoryorder="array", categoryarray=list(_SHORT), row=2, col=1)
    fig.update_layout(legend={"orientation": "h", "y": -0.12, "font": {"size": 10}})
    if curves is not None:
        update_tiered_figure(fig, curves)
    return fig


def update_tiered_figure(fig: go.Figure, curves: TieredCurves) -> None:
    """Put new curves into a figure made by :func:`tiered_figure`, in place (one redraw); the
    legend names the runs by the curves' labels."""
    names = [*curves.labels, *[f"run {r}" for r in range(len(curves.labels), RUNS)]]
    with fig.batch_update():
        for trace, spec in zip(fig.data, TIERED_TRACES, strict=True):
            r = int(spec[4][3:])
            trace.name = names[r] + (": " + spec[2].split(": ")[1] if ": " in spec[2] else "")
            trace.showlegend = spec[1] in (1, 2) and spec[0] == 1
    set_trace_data(fig, _tiered_data(curves))


def copy_quota_figure(tables: dict[str, pd.DataFrame], *, title: str = "") -> go.Figure:
    """The copy quota's ``byte-rate`` against its bound, segments recorded (markers), and the
    throttle time the copy thread sees."""
    rate, seg = tables["rate"], tables["segments"]
    t = rate["time_ms"].to_numpy() / 1000.0
    fig = make_subplots(rows=2, cols=1, shared_xaxes=True, vertical_spacing=0.12,
                        subplot_titles=("Copy rate (MB/s), SimpleRate", "Throttle time (s)"))
    fig.add_trace(go.Scatter(x=t, y=rate["rate_bytes_per_s"] / 1e6, name="measured rate",
                             line={"color": _COLORS["SimpleRate"]}), row=1, col=1)
    fig.add_trace(go.Scatter(x=t, y=rate["quota_bytes_per_s"] / 1e6, name="quota",
                             line={"color": _COLORS["quota"], "dash": "dash"}), row=1, col=1)
    at = np.searchsorted(rate["time_ms"].to_numpy(), seg["recorded_ms"].to_numpy())
    at = np.minimum(at, len(rate) - 1)
    fig.add_trace(go.Scatter(x=seg["recorded_ms"] / 1000.0,
                             y=rate["rate_bytes_per_s"].to_numpy()[at] / 1e6,
                             mode="markers", name="segment recorded",
                             marker={"color": _COLORS["run0"], "size": 9}), row=1, col=1)
    fig.add_trace(go.Scatter(x=t, y=rate["throttle_time_ms"] / 1000.0, name="throttle time",
                             line={"color": _COLORS["Rate"]}), row=2, col=1)
    finish_grid(fig, [(2, 1, "time (s)")], height=480, title=title)
    fig.update_layout(legend={"orientation": "h", "y": -0.2})  # below the axis title
    return fig


def three_rates_figure(table: pd.DataFrame, quota: float, load: pd.DataFrame | None = None, *,
                       title: str = "") -> go.Figure:
    """``Rate`` and ``SimpleRate`` against the quota, the ``TokenBucket``'s credits, the three
    throttle times, and the load itself."""
    fig = make_subplots(rows=2, cols=2, horizontal_spacing=0.12, vertical_spacing=0.2,
                        subplot_titles=("Rates vs quota (/s)", "Bucket credits",
                                        "Throttle time (s)", "Load recorded"))
    for meter in ("Rate", "SimpleRate", "TokenBucket"):
        rows = table[table["meter"] == meter]
        t = rows["time_ms"].to_numpy() / 1000.0
        colour = {"color": _COLORS[meter]}
        fig.add_trace(go.Scatter(x=t, y=rows["measure"], name=meter, line=colour,
                                 legendgroup=meter), row=1, col=1 if meter != "TokenBucket" else 2)
        fig.add_trace(go.Scatter(x=t, y=rows["throttle_time_ms"] / 1000.0, name=meter,
                                 line=colour, legendgroup=meter, showlegend=False), row=2, col=1)
    span = [0.0, float(table["time_ms"].max()) / 1000.0 if len(table) else 1.0]
    fig.add_trace(go.Scatter(x=span, y=[quota, quota], name="quota", mode="lines",
                             line={"color": _COLORS["quota"], "dash": "dash"}), row=1, col=1)
    if load is not None:
        fig.add_trace(go.Bar(x=load["time_ms"] / 1000.0, y=load["value"], name="load",
                             marker_color=_COLORS["load"], showlegend=False), row=2, col=2)
    finish_grid(fig, [(row, col, "time (s)") for row in (1, 2) for col in (1, 2)], height=560,
                title=title)
    fig.update_layout(legend={"orientation": "h", "y": -0.12})
    if load is not None and len(load):
        explain_flat_panels(fig, {(2, 2): f"every burst records {load['value'].iloc[0]:,g}"})
    return fig


_ = CLASSES  # the classes _SHORT abbreviates, in the same order
