"""The grid every dashboard figure starts from: fixed traces in a rows x 2 subplot grid, filled in
place.

A dashboard's figure has a fixed set of traces, so a ``FigureWidget`` can be redrawn in place:
:func:`grid_figure` builds the grid with empty traces (:func:`add_fixed_traces`) and titled axes
(:func:`finish_grid`), and :func:`set_trace_data` swaps the data of the same traces in one redraw.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from kipviz.kafka.units import MiB

__all__ = ["MiB", "add_fixed_traces", "explain_flat_panel", "explain_flat_panels", "finish_grid",
           "grid_figure", "run_line", "set_trace_data"]



# Line styles for runs drawn side by side: where two runs agree, the wider line stays visible
# under the narrower, dashed one drawn after it.
_RUN_STYLES = ({"width": 4.5}, {"width": 2.5, "dash": "dash"}, {"width": 2, "dash": "dot"},
               {"width": 1.5, "dash": "dashdot"}, {"width": 1, "dash": "longdash"})


def run_line(index: int, colour: str) -> dict[str, Any]:
    """The line of run ``index`` of a figure comparing runs: its colour, and a width and dash
    that keep it visible where it coincides with another run's."""
    return {"color": colour, **_RUN_STYLES[index % len(_RUN_STYLES)]}


def add_fixed_traces(fig: go.Figure, specs: list[tuple[Any, ...]], colors: Mapping[str, str], *,
                     marker_size: int = 4) -> None:
    """Add one empty ``Scatter`` per ``(row, col, name, mode, colour, dash)`` spec, in order, so
    that :func:`set_trace_data` can later fill them in place."""
    for row, col, name, mode, colour, dash in specs:
        fig.add_trace(go.Scatter(name=name, mode=mode, line={"color": colors[colour], "dash": dash},
                                 marker={"color": colors[colour], "size": marker_size}),
                      row=row, col=col)


def finish_grid(fig: go.Figure, x_titles: list[tuple[int, int, str]], *, height: int,
                title: str = "", y_titles: Sequence[tuple[int, int, str]] = ()) -> None:
    """Label each subplot's axes and lay a grid figure out with the legend below it.

    Subplot titles stay short (a few words: they share a row at JupyterLab's default width);
    units go on the axes (``y_titles``). The figure takes its container's width (``autosize``).
    """
    for row, col, label in x_titles:
        fig.update_xaxes(title_text=label, row=row, col=col)
    for row, col, label in y_titles:
        fig.update_yaxes(title_text=label, title_standoff=4, row=row, col=col)
    fig.update_layout(height=height, title=title or None, autosize=True,
                      margin={"t": 80, "b": 40, "l": 60, "r": 20},
                      legend={"orientation": "h", "y": -0.08, "yanchor": "top"})


def grid_figure(titles: Sequence[str], specs: list[tuple[Any, ...]], colors: Mapping[str, str],
                *, x_titles: Sequence[str], y_titles: Sequence[str], height: int, title: str = "",
                rows: int = 2, vertical_spacing: float = 0.2, marker_size: int = 4) -> go.Figure:
    """A ``rows`` x 2 grid of short subplot ``titles`` holding the fixed traces ``specs``
    (:func:`add_fixed_traces`), its axes titled in subplot order (row by row), laid out by
    :func:`finish_grid`: what every dashboard's figure starts from."""
    fig = make_subplots(rows=rows, cols=2, horizontal_spacing=0.1,
                        vertical_spacing=vertical_spacing, subplot_titles=tuple(titles))
    add_fixed_traces(fig, specs, colors, marker_size=marker_size)
    cells = [(row, col) for row in range(1, rows + 1) for col in (1, 2)]
    finish_grid(fig, [(*cell, label) for cell, label in zip(cells, x_titles, strict=True)],
                height=height, title=title,
                y_titles=[(*cell, label) for cell, label in zip(cells, y_titles, strict=True)])
    return fig


def panel_traces(panels: Mapping[tuple[int, int], Sequence[tuple[Any, ...]]]
                 ) -> list[tuple[Any, ...]]:
    """A grid's fixed traces written panel by panel, ``{(row, col): [(name, mode, colour) or
    (name, mode, colour, dash), ...]}``, as the ``(row, col, name, mode, colour, dash)`` rows
    :func:`add_fixed_traces` takes, in figure order."""
    return [(row, col, name, mode, colour, dash[0] if dash else None)
            for (row, col), traces in panels.items() for name, mode, colour, *dash in traces]


def set_trace_data(fig: go.Figure, data: list[dict[str, Any]]) -> None:
    """Give each trace of ``fig`` the x and y of ``data`` (same order), as one redraw."""
    with fig.batch_update():
        for trace, xy in zip(fig.data, data, strict=True):
            trace.x, trace.y = xy["x"], xy["y"]



def _panel_axes(fig: go.Figure, row: int, col: int) -> tuple[str, str]:
    """The short names (``"x2"``, ``"y2"``) of the axes of the subplot at ``row``, ``col``."""
    (x_axis,) = [a.plotly_name.replace("axis", "") for a in fig.select_xaxes(row=row, col=col)]
    (y_axis,) = [a.plotly_name.replace("axis", "") for a in fig.select_yaxes(row=row, col=col)]
    return x_axis, y_axis


def explain_flat_panel(fig: go.Figure, row: int, col: int, reason: str | None) -> None:
    """Say on the figure why the panel at ``row``, ``col`` is flat for every series (a note in
    the panel, recorded in ``layout.meta["constant_panels"]`` under its y axis, where
    :func:`kipviz.plots.checks.figure_problems` looks for it); ``None`` takes the note away."""
    x_axis, y_axis = _panel_axes(fig, row, col)
    meta = dict(fig.layout.meta or {})
    panels = dict(meta.get("constant_panels") or {})
    notes = [a for a in fig.layout.annotations if a.name != f"flat {y_axis}"]
    if reason:
        panels[y_axis] = reason
        notes.append(go.layout.Annotation(
            name=f"flat {y_axis}", text=reason, showarrow=False, align="center",
            font={"size": 11, "color": "#555"}, bgcolor="rgba(255,255,255,0.8)",
            xref=f"{x_axis} domain", yref=f"{y_axis} domain", x=0.5, y=0.6))
    else:
        panels.pop(y_axis, None)
    meta["constant_panels"] = panels
    fig.layout.annotations = notes
    fig.layout.meta = meta


def explain_flat_panels(fig: go.Figure, reasons: Mapping[tuple[int, int], str]) -> None:
    """For each panel ``(row, col)`` of ``reasons``: show its reason while every series drawn
    there is one constant (:func:`explain_flat_panel`), and no note otherwise. Call it after a
    ``batch_update`` that changed the data, not inside it (inside, traces still read old data)."""
    for (row, col), reason in reasons.items():
        _, y_axis = _panel_axes(fig, row, col)
        values = [v for t in fig.data if (t.yaxis or "y") == y_axis and t.y is not None
                  for v in np.asarray(t.y, dtype=float).ravel() if np.isfinite(v)]
        flat = len(values) > 1 and min(values) == max(values)
        explain_flat_panel(fig, row, col, reason if flat else None)
