"""Pure plotly figure builders for the KIP-770 Streams input buffer lesson (curves in, figures out).

``streams_figure`` has a fixed list of traces (one line per stream thread up to
:data:`MAX_THREADS`), so a ``FigureWidget`` can be redrawn in place by ``update_streams_figure``;
``compare_policies_figure`` puts several runs side by side and ``bound_sweep_figure`` shows peak
memory against record size for both bounds.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from kipviz.curves.streams import StreamsCurves
from kipviz.kafka.streams.input_buffer import POLICY_NAMES
from kipviz.kafka.units import MiB
from kipviz.plots.grid import (
    explain_flat_panels,
    grid_figure,
    panel_traces,
    run_line,
    set_trace_data,
)

__all__ = ["MAX_THREADS", "STREAMS_TRACES", "bound_sweep_figure", "compare_policies_figure",
           "streams_figure", "update_streams_figure"]

MAX_THREADS = 8  # thread lines the dashboard figure keeps; more threads are drawn up to this
_PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
            "#bcbd22"]
_COLORS = {f"t{i}": c for i, c in enumerate(_PALETTE)} | {
    "share": "#d62728", "instance": "#17becf", "total": "#d62728", "bytes": "#2ca02c",
    "records": "#9467bd", "paused": "#8c564b", "tput": "#1f77b4", "jain": "#1f77b4",
    "part": "#ff7f0e"}

# every trace, panel by panel ((name, mode, colour[, dash])), in figure order
STREAMS_TRACES = panel_traces({
    (1, 1): [*[(f"thread {i}", "lines", f"t{i}") for i in range(MAX_THREADS)],
             ("thread share", "lines", "share", "dash")],
    (1, 2): [
        ("instance (peak)", "lines", "instance"),
        ("input.buffer.max.bytes", "lines", "total", "dash"),
        ("KIP-770 bound (shares + one fetch per partition)", "lines", "bytes", "dot"),
        ("buffered.records.per.partition bound", "lines", "records", "dot"),
    ],
    (2, 1): [("paused partitions (most)", "lines", "paused")],
    (2, 2): [("records processed / s", "lines", "tput")],
    (3, 1): [("Jain across threads", "lines+markers", "jain")],
    (3, 2): [("peak buffered per partition", "markers", "part")],
})


def _streams_data(c: StreamsCurves) -> list[dict[str, Any]]:
    """x and y of each trace of ``STREAMS_TRACES``, in the same order."""
    m, tm, f, p = c.instance_memory, c.thread_memory, c.fairness, c.partitions
    t = m["window_start_ms"].to_numpy() / 1000.0
    span = [0.0, float(t[-1]) if len(t) else 1.0]
    data = []
    for i in range(MAX_THREADS):
        own = tm[tm["thread"] == i]
        data.append({"x": own["window_start_ms"].to_numpy() / 1000.0,
                     "y": own["buffered_max_bytes"].to_numpy() / MiB})
    share = tm.groupby("window_start_ms", sort=True)["share_bytes"].max()
    data += [
        {"x": share.index.to_numpy() / 1000.0, "y": share.to_numpy() / MiB},
        {"x": t, "y": m["buffered_max_bytes"].to_numpy() / MiB},
        {"x": span, "y": [c.input_buffer_max_bytes / MiB] * 2},
        {"x": span, "y": [c.bytes_bound_bytes / MiB] * 2},
        {"x": span, "y": [c.records_bound_bytes / MiB] * 2},
        {"x": t, "y": m["paused_max"].to_numpy()},
        {"x": t, "y": m["processed_records_per_s"].to_numpy()},
        {"x": f["window_start_ms"].to_numpy() / 1000.0, "y": f["jain_index"].to_numpy()},
        {"x": p["record_bytes"].to_numpy(), "y": p["buffered_max_bytes"].to_numpy() / MiB},
    ]
    return data


def streams_figure(curves: StreamsCurves | None = None, *, title: str = "") -> go.Figure:
    """Per-thread memory against the share, instance memory against the bounds, paused
    partitions, throughput, fairness across threads and memory per partition, on a 3 x 2 grid
    with the fixed traces of ``STREAMS_TRACES``."""
    fig = grid_figure(("Buffered per thread (peak)", "Instance buffer", "Paused partitions",
                       "Throughput", "Fairness across threads", "Peak buffered per partition"),
                      STREAMS_TRACES, _COLORS, rows=3, vertical_spacing=0.13, height=900,
                      title=title, x_titles=("time (s)",) * 5 + ("record bytes",),
                      y_titles=("MiB", "MiB", "partitions", "records / s", "Jain (1 = fair)",
                                "MiB"))
    fig.update_yaxes(range=[0, 1.05], row=3, col=1)
    fig.update_xaxes(type="log", row=3, col=2)
    if curves is not None:
        update_streams_figure(fig, curves)
    return fig


def update_streams_figure(fig: go.Figure, curves: StreamsCurves) -> None:
    """Put new curves into a figure made by :func:`streams_figure`, in place (one redraw): a
    thread line with no data leaves the legend, and a paused-partitions panel that is one
    number throughout says so."""
    data = _streams_data(curves)
    with fig.batch_update():
        set_trace_data(fig, data)
        for trace, xy in zip(fig.data[:MAX_THREADS], data, strict=False):
            trace.showlegend = len(xy["y"]) > 0
    paused = data[MAX_THREADS + 5]["y"]  # (after the batch: the note reads the new data)
    explain_flat_panels(fig, {(2, 1): f"{paused[0]:g} partitions paused in every window"
                              if len(paused) else ""})


def compare_policies_figure(curves_by_label: Mapping[str, StreamsCurves], *,
                            title: str = "") -> go.Figure:
    """Several runs side by side (e.g. one per policy): instance memory, throughput and Jain's
    index across threads over time."""
    fig = make_subplots(rows=1, cols=3, horizontal_spacing=0.08,
                        subplot_titles=("Instance buffer (MiB)", "Records processed / s",
                                        "Jain across threads"))
    for i, (label, c) in enumerate(curves_by_label.items()):
        colour = _PALETTE[i % len(_PALETTE)]
        m = c.instance_memory
        t = m["window_start_ms"].to_numpy() / 1000.0
        common = {"mode": "lines", "line": run_line(i, colour), "legendgroup": label}
        fig.add_trace(go.Scatter(x=t, y=m["buffered_max_bytes"] / MiB, name=label, **common),
                      row=1, col=1)
        fig.add_trace(go.Scatter(x=t, y=m["processed_records_per_s"], name=label,
                                 showlegend=False, **common), row=1, col=2)
        fig.add_trace(go.Scatter(x=c.fairness["window_start_ms"] / 1000.0,
                                 y=c.fairness["jain_index"], name=label, showlegend=False,
                                 **common), row=1, col=3)
    fig.update_yaxes(range=[0, 1.05], row=1, col=3)
    for col in (1, 2, 3):
        fig.update_xaxes(title_text="time (s)", row=1, col=col)
    fig.update_layout(height=400, title=title or None, legend={"orientation": "h", "y": -0.2},
                      margin={"t": 70, "b": 40, "l": 50, "r": 20})
    return fig


def bound_sweep_figure(table: pd.DataFrame, *, title: str = "") -> go.Figure:
    """Peak instance memory against record size (``kipviz.curves.streams.bound_sweep``'s table),
    one line per policy, with each bound dashed: the record-count bound grows with the records,
    the byte bound does not."""
    fig = go.Figure()
    for i, (policy, rows) in enumerate(table.groupby("policy", sort=False)):
        colour = _PALETTE[i % len(_PALETTE)]
        x = rows["record_bytes_mean"].to_numpy()
        fig.add_trace(go.Scatter(x=x, y=rows["peak_bytes"] / MiB, mode="lines+markers",
                                 name=f"{POLICY_NAMES.get(policy, policy)}: simulated peak",
                                 line={"color": colour}))
        bound = "records_bound_bytes" if policy == "records_per_partition" else \
            "bytes_bound_bytes"
        fig.add_trace(go.Scatter(x=x, y=np.asarray(rows[bound]) / MiB, mode="lines",
                                 name=f"{POLICY_NAMES.get(policy, policy)}: its bound",
                                 line={"color": colour, "dash": "dash"}))
    fig.update_layout(height=400, title=title or None, xaxis_title="mean record cost (bytes)",
                      yaxis_title="peak instance buffer (MiB)", xaxis_type="log",
                      yaxis_type="log",
                      margin={"t": 60, "b": 40, "l": 60, "r": 20},
                      legend={"orientation": "h", "y": -0.25})
    return fig
