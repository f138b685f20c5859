"""A static page whose sliders move: a dashboard's main controls over a grid Spark computed.

:func:`fill_grid` has Spark sweep every valid combination of a :class:`~kipviz.apps.static.grids.
SliderGrid`'s axes (:class:`kipviz.curves.instant.SweepGrid`, one job; the Parquet cache is used
when given). :func:`slider_section` turns the filled grid into HTML: one ``<input type="range">``
per axis offering exactly the grid's values, the figure of :func:`kipviz.plots.sweep.
grid_point_figure` (the curves and bounds :class:`kipviz.widgets.grid.GridDashboard` draws: memory
per window against KIP-74's and the mechanism's bound, throughput, Jain's index, and where the
point sits on the grid), and, as JSON in the page, each point's trace data as
:func:`kipviz.plots.sweep.update_grid_point_figure` computes it. A small script
(``sliders.js``) maps the controls' positions to that data and redraws with ``Plotly.react``:
no kernel, no network. A combination Kafka rejects shows the reason instead.
"""

from __future__ import annotations

import datetime
import enum
import functools
import html
import itertools
import json
import math
from dataclasses import replace
from importlib import resources
from typing import TYPE_CHECKING, Any

import numpy as np

from kipviz.apps.static.grids import SliderGrid
from kipviz.apps.static.html import figure_html
from kipviz.curves.instant import GridPoint, SweepGrid
from kipviz.curves.summary import metric_parts
from kipviz.plots.sweep import grid_point_figure, setting_label, update_grid_point_figure

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

__all__ = ["fill_grid", "grid_payload", "slider_section"]



def fill_grid(spec: SliderGrid, spark: SparkSession, *, seed: int = 0,
              cache_dir: Any = None) -> SweepGrid | None:
    """Sweep ``spec``'s grid as one Spark job (cached configurations are read, not simulated);
    None for a ``"move_time"`` grid, which plans each point when its section is built."""
    if spec.kind == "move_time":
        return None
    grid = SweepGrid(spec.base, spec.axes, seed=seed, cache_dir=cache_dir)
    grid.fill(spark)
    return grid


def _plain(values: Any) -> Any:
    """Trace data as JSON: numbers to 5 significant digits, NaN as null, labels as they are."""
    if values is None:
        return []
    array = np.asarray(values, dtype=object)
    if array.ndim > 1:
        return [_plain(row) for row in array]
    out: list[Any] = []
    for v in array.tolist():
        if isinstance(v, float | np.floating):
            out.append(None if not math.isfinite(v) else float(f"{v:.5g}"))
        else:
            out.append(v)
    return out


def _summary(point: GridPoint) -> str:
    m = point.metrics
    parts = metric_parts(m, labels={"bound_bytes": "the mechanism's bound"},
                         skip=("mean_jain_index",))
    if m["peak_memory_bytes"] > m["kip74_bound_bytes"]:
        parts.append("<b>above KIP-74's bound</b>")
    return " &middot; ".join(parts)


def grid_payload(spec: SliderGrid, grid: SweepGrid) -> dict[str, Any]:
    """What the page's script needs: the axes (labels, start positions) and, by position key
    (``"i-j-k"``), each point's trace data and summary, or the reason Kafka rejects it."""
    names = list(spec.axes)
    x, y = names[0], names[1] if len(names) > 1 else None
    figure = grid_point_figure(x, y, labels=spec.labels)
    label = _labeller(spec)
    points: dict[str, Any] = {}
    rejected: dict[str, str] = {}
    for index in itertools.product(*(range(len(spec.axes[n])) for n in names)):
        key = "-".join(map(str, index))
        change = {n: spec.axes[n][i] for n, i in zip(names, index, strict=True)}
        try:
            scenario = replace(spec.base, **change)
        except ValueError as err:
            rejected[key] = f"Kafka rejects this combination: {err}"
            continue
        point = grid.lookup(scenario)
        if point is None:
            raise RuntimeError(f"grid point {change} was not computed")
        update_grid_point_figure(figure, point, grid.slice(scenario), x=x, y=y)
        traces = []
        for trace in figure.data:
            data = {"x": _plain(trace.x), "y": _plain(trace.y)}
            if getattr(trace, "type", "") == "heatmap":
                data["z"] = _plain(trace.z)
            traces.append(data)
        # the grid's cells and this point's marker labelled as the sliders are (a None value,
        # "no pool" or "unlimited", would read NaN in the slice's pandas index)
        traces[0]["x"] = [label(x, v) for v in spec.axes[x]]
        traces[0]["y"] = [label(y, v) for v in spec.axes[y]] if y is not None else ["-"]
        traces[1]["x"] = [label(x, change[x])]
        traces[1]["y"] = [label(y, change[y]) if y is not None else "-"]
        points[key] = {"traces": traces, "summary": _summary(point)}
    axes = [{"name": n, "label": spec.labels.get(n, n.replace("_", ".")),
             "values": [label(n, v) for v in spec.axes[n]],
             "start": _start(spec.axes[n], _base_value(spec.base, n))} for n in names]
    return {"axes": axes, "points": points, "rejected": rejected}


def _labeller(spec: SliderGrid) -> Any:
    """How ``spec``'s sliders read a value: enums by name, booleans yes/no, None as the
    dashboard's control offers it (its unset choice, ``spec.unset``: "unlimited"), the rest by
    the unit of the axis (:func:`kipviz.plots.sweep.setting_label`)."""
    def label(name: str, value: Any) -> str:
        if isinstance(value, enum.Enum):
            return value.name.lower().replace("_", "-")
        if isinstance(value, bool):
            return "yes" if value else "no"
        if value is None and name in spec.unset:
            return spec.unset[name]
        return setting_label(name, value)

    return label


def _label(name: str, value: Any) -> str:
    """A value as the sliders of a grid of no particular dashboard read it: None as the unset
    choice of a dashboard's control of that field (:func:`unset_labels`), else as
    :func:`_labeller` does."""
    unset = unset_labels()
    return _labeller(SliderGrid("", "", None, {}, {}, "", unset=unset))(name, value)


@functools.cache
def unset_labels() -> dict[str, str]:
    """Field name -> the unset choice of the dashboards' controls of that field (the first
    dashboard, in ``kipviz.widgets``' order, that has one)."""
    import kipviz.widgets as dashboards

    out: dict[str, str] = {}
    for name in dashboards.__all__:
        for c in getattr(getattr(dashboards, name), "CONTROLS", ()):
            if c.unset is not None:
                out.setdefault(c.path.rsplit(".", 1)[-1], c.unset)
    return out


def _base_value(base: Any, name: str) -> Any:
    """The base scenario's value of an axis; an order left to the Kafka version
    (``ordering=None``) is the order that version uses (``request_ordering``)."""
    value = getattr(base, name)
    if value is None and name == "ordering":
        return base.request_ordering
    return value


def _start(values: Any, value: Any) -> int:
    return next((i for i, v in enumerate(values) if v == value), 0)


def _first_point(payload: dict[str, Any]) -> str:
    start = "-".join(str(a["start"]) for a in payload["axes"])
    return start if start in payload["points"] else next(iter(payload["points"]))


def slider_section(spec: SliderGrid, grid: SweepGrid | None, *, div_id: str) -> str:
    """The HTML of a grid's sliders, figure, data and script (see the module); the page must
    load plotly.js. ``div_id`` names the figure's ``div`` (unique in the page)."""
    if spec.kind == "move_time":
        return _move_time_section(spec, div_id)
    assert grid is not None
    payload = grid_payload(spec, grid)
    first = _first_point(payload)
    names = list(spec.axes)
    figure = grid_point_figure(names[0], names[1] if len(names) > 1 else None,
                               labels=spec.labels)
    windows = max(len(p["traces"][2]["x"]) for p in payload["points"].values())
    combos = math.prod(len(v) for v in spec.axes.values())
    about = _precomputed(spec, (
        f"Spark simulated and summarised {len(payload['points'])} configurations of this "
        f"scenario (<code>kipviz.curves.sweep</code> / "
        f"<code>kipviz.curves.instant.SweepGrid</code>): every combination of the slider values "
        f"below ({combos}; {len(payload['rejected'])} of them rejected by Kafka's rules). Each "
        f"curve is downsampled to {windows} windows (<code>kipviz.curves.summary</code>); values "
        f"between the grid's are not offered."))
    return _section(spec, figure, payload, first, about, div_id)


def _precomputed(spec: SliderGrid, what: str) -> str:
    """The note above a precomputed section: ``what`` was computed when (now), and where the
    live dashboard is."""
    built = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    return (f"<p class='kipviz-note'><b>Precomputed when this page was built ({built}), no "
            f"kernel:</b> {what} The live dashboard: {spec.live}.</p>")


def _move_time_section(spec: SliderGrid, div_id: str) -> str:
    """A real plan's move time per broker over the grid (:mod:`kipviz.apps.static.move_grid`)."""
    from kipviz.apps.static.move_grid import move_grid_payload
    from kipviz.plots.reassignment import move_grid_figure

    payload = move_grid_payload(spec, _labeller(spec))
    x, y = (spec.labels.get(n, n) for n in spec.axes)
    about = _precomputed(spec, (
        f"<code>kipviz.plan_reassignment</code> planned lesson 4's sample plan (orders-0 and "
        f"payments-0 led by broker 1, orders-1 by broker 2, all landing on broker 4) at each "
        f"of the {len(payload['points'])} combinations below: each broker's leader and follower "
        f"quota as <code>--throttle</code> sets them, moves between different brokers in "
        f"parallel (the flow schedule; the cluster simulation agrees within 5%)."))
    return _section(spec, move_grid_figure(x, y), payload, _first_point(payload), about, div_id)


def _section(spec: SliderGrid, figure: Any, payload: dict[str, Any], first: str, about: str,
             div_id: str) -> str:
    """The section's HTML: the figure drawn at ``first``, the sliders' data and script."""
    for trace, data in zip(figure.data, payload["points"][first]["traces"], strict=True):
        trace.update(data)
    payload["axes"] = [{**a, "start": int(i)} for a, i in zip(payload["axes"],
                                                                first.split("-"), strict=True)]
    fixed = html.escape(repr(spec.base))
    script = resources.files("kipviz.apps.static").joinpath("sliders.js").read_text("utf-8")
    data = json.dumps(payload, separators=(",", ":"), allow_nan=False).replace("</", "<\\/")
    return (f'<section class="kipviz-grid" id="{div_id}-grid" data-figure="{div_id}">\n'
            f"<h2>{html.escape(spec.title)}</h2>\n{about}\n"
            f'<div class="kipviz-controls"></div>\n'
            f'<div class="kipviz-grid-message" role="status"></div>\n'
            f'<div class="kipviz-grid-summary"></div>\n'
            f"{figure_html(figure, div_id)}\n"
            f"<details><summary>the other settings (fixed)</summary><pre>{fixed}</pre></details>\n"
            f'<script type="application/json" class="kipviz-grid-data">{data}</script>\n'
            f"<script>{script}\nkipvizSliders(document.getElementById('{div_id}-grid'));"
            f"</script>\n</section>")
