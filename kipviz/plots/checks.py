"""What makes a figure teach, checked on its plotly JSON (issue 29: every lesson and dashboard
figure goes through :func:`figure_problems` in the tests).

A figure fails when it has

* a legend entry for a trace with nothing to draw (no finite point);
* a panel whose every series is one and the same constant, unless the figure says why: its
  ``layout.meta["constant_panels"]`` maps the panel's y axis (``"y"``, ``"y2"`` ...) to the
  reason, and an annotation on the figure shows that reason to the reader;
* two series drawn on top of each other (the same points) in one panel with nothing but their
  colour to tell them apart (the one drawn last hides the other: a dash, a marker symbol or
  size, or a line width must differ), or a series whose points all sit at one place;
* an axis with data but no title, or a title or legend entry that reads like a field name
  (``peak_memory_bytes``, ``mode = in_flight_cap``) rather than words.
"""

from __future__ import annotations

import base64
import math
import re
from collections import defaultdict
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

__all__ = ["figure_problems"]

_FIELD_NAME = re.compile(r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b")
_UNITS = re.compile(r"\b(?:[KMG]i?B|[KMG]i?B/s|bytes?(?:/s)?|ms|s|%|MB/s|records?/s)(?=\W|$)")
_WORD = re.compile(r"[A-Za-z]{3,}")


def _numbers(values: Any) -> list[float]:
    """The finite numbers in a trace's array (plotly JSON may hold a dict for typed arrays)."""
    if values is None:
        return []
    if isinstance(values, Mapping):  # plotly's typed array: {"dtype": "f8", "bdata": base64}
        if not values.get("bdata"):
            return []
        flat = np.frombuffer(base64.b64decode(values["bdata"]), dtype=values.get("dtype", "f8"))
        return [float(v) for v in flat]
    if isinstance(values, str | bytes):
        return []
    out = []
    for v in values if isinstance(values, Iterable) else [values]:
        if isinstance(v, bool) or (isinstance(v, int | float) and math.isfinite(v)):
            out.append(float(v))
        elif isinstance(v, str) and v:
            out.append(math.nan)  # a category: data, not a number
    return out


def _raw(values: Any) -> tuple[str, ...]:
    """A trace's array as comparable text, typed arrays decoded."""
    if isinstance(values, Mapping):
        return tuple(f"{v:g}" for v in _numbers(values))
    if values is None or isinstance(values, str | bytes) or not isinstance(values, Iterable):
        return ()
    return tuple(str(v) for v in values)


def _has_points(trace: Mapping[str, Any]) -> bool:
    """True when the trace draws something: a finite number in the array that carries its
    values (``values`` for a pie, ``z`` for a heatmap, ``x`` for a horizontal bar, else ``y``),
    or text for a text-only trace."""
    if trace.get("visible") is False:
        return False
    kind = trace.get("type", "scatter")
    key = {"pie": "values", "heatmap": "z", "contour": "z"}.get(kind)
    if key is None:
        key = "x" if trace.get("orientation") == "h" else "y"
    values = trace.get(key)
    if key == "z" and isinstance(values, list):
        values = [v for row in values for v in (row if isinstance(row, list) else [row])]
    if any(math.isfinite(v) for v in _numbers(values)):
        return True
    return bool(trace.get("text")) and "text" in str(trace.get("mode", ""))


def _in_legend(trace: Mapping[str, Any], layout: Mapping[str, Any]) -> bool:
    if layout.get("showlegend") is False or trace.get("showlegend") is False:
        return False
    if not trace.get("name"):
        return False
    kind = trace.get("type", "scatter")
    # plotly shows a lone trace of a figure in the legend only when showlegend is set
    return kind not in {"table", "indicator", "sankey", "heatmap"} or bool(trace.get("showlegend"))


def _axis_key(ref: str | None, letter: str) -> str:
    """``"x2"`` -> ``"xaxis2"``; a missing reference is the first axis."""
    ref = ref or letter
    return f"{letter}axis{ref[1:]}"


def _title(axis: Mapping[str, Any] | None) -> str:
    if not axis:
        return ""
    title = axis.get("title")
    if isinstance(title, Mapping):
        return str(title.get("text") or "")
    return str(title or "")


def _style(trace: Mapping[str, Any]) -> tuple[Any, ...]:
    line = trace.get("line") or {}
    marker = trace.get("marker") or {}
    return (trace.get("type", "scatter"), trace.get("mode"), line.get("dash"),
            marker.get("symbol"), marker.get("size"), line.get("width"))


def _annotation_texts(layout: Mapping[str, Any]) -> str:
    return " ".join(str(a.get("text", "")) for a in layout.get("annotations") or [])


def _panel_title(layout: Mapping[str, Any], key: str) -> str:
    """The subplot title above the panel of axis ``key`` (``make_subplots`` writes it as an
    annotation centred over the panel's top edge), or ``""``."""
    axis = layout.get(key) or {}
    if key.startswith("x"):
        x_domain = axis.get("domain", [0, 1])
        y_axis = layout.get(_axis_key(axis.get("anchor"), "y")) or {}
    else:
        y_axis = axis
        x_domain = (layout.get(_axis_key(axis.get("anchor"), "x")) or {}).get("domain", [0, 1])
    top = (y_axis.get("domain") or [0, 1])[1]
    for note in layout.get("annotations") or []:
        x, y = note.get("x"), note.get("y")
        if (note.get("xref") == "paper" and note.get("yref") == "paper"
                and isinstance(x, int | float) and isinstance(y, int | float)
                and x_domain[0] - 1e-6 <= x <= x_domain[1] + 1e-6 and top - 0.02 <= y <= top + 0.12
                and _WORD.search(str(note.get("text", "")))):
            return str(note["text"])
    return ""


def figure_problems(figure: Any) -> list[str]:
    """The reasons ``figure`` (a plotly figure or its JSON dict) fails to teach; empty when
    it passes. Each reason names the trace or axis."""
    fig = figure.to_plotly_json() if hasattr(figure, "to_plotly_json") else figure
    data: list[Mapping[str, Any]] = list(fig.get("data") or [])
    layout: Mapping[str, Any] = fig.get("layout") or {}
    meta = layout.get("meta") if isinstance(layout.get("meta"), Mapping) else {}
    explained: Mapping[str, str] = (meta or {}).get("constant_panels") or {}
    notes = _annotation_texts(layout)
    problems: list[str] = []

    panels: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
    used_axes: set[str] = set()
    categorical: set[str] = set()
    for trace in data:
        name = str(trace.get("name") or "")
        if _in_legend(trace, layout) and not _has_points(trace):
            problems.append(f"legend entry {name!r} has nothing to draw")
        if _in_legend(trace, layout) and _FIELD_NAME.search(name):
            problems.append(f"legend entry {name!r} reads like a field name")
        if trace.get("type", "scatter") in {"table", "indicator", "pie", "sankey"}:
            continue
        if _has_points(trace):
            used_axes.add(_axis_key(trace.get("xaxis"), "x"))
            xs = _numbers(trace.get("x"))  # a category reads NaN; dates and the like, nothing
            if any(math.isnan(v) for v in xs) or (not xs and _raw(trace.get("x"))):
                categorical.add(_axis_key(trace.get("xaxis"), "x"))
            used_axes.add(_axis_key(trace.get("yaxis"), "y"))
            panels[trace.get("yaxis") or "y"].append(trace)

    for key in sorted(used_axes):
        title = _title(layout.get(key))
        words = _WORD.search(_UNITS.sub(" ", re.sub(r"\([^)]*\)", " ", title)))
        if _FIELD_NAME.search(title):
            problems.append(f"{key} title {title!r} reads like a field name")
        elif words or (key.startswith("x") and key in categorical) or (
                (layout.get(key) or {}).get("matches")):  # shared: titled on the axis it matches
            continue
        elif not _panel_title(layout, key):
            problems.append(f"{key} title {title!r} names no quantity in words, and its panel "
                            "has no title")
        elif key.startswith("x") and not title:
            problems.append(f"{key} has data but no title")

    for axis, traces in sorted(panels.items()):
        ys = [v for t in traces for v in _numbers(t.get("y")) if math.isfinite(v)]
        if len(ys) > 1 and max(ys) == min(ys):
            reason = explained.get(axis)
            if not reason:
                problems.append(f"panel {axis} is flat at {ys[0]:g} for every series, "
                                "and the figure does not say why")
            elif reason not in notes:
                problems.append(f"panel {axis}: the reason it is flat is not shown on the figure")
        seen: dict[tuple[Any, ...], str] = {}
        for t in traces:
            points = (_raw(t.get("x")), _raw(t.get("y")), _raw(t.get("z")))
            if len(points[1]) < 2:
                continue
            if t.get("type", "scatter") == "scatter" and len(set(zip(*points[:2],
                                                                       strict=False))) == 1:
                problems.append(f"all {len(points[1])} points of series {t.get('name')!r} are "
                                f"drawn at one place in panel {axis}")
            drawn = (*points, _style(t))
            other = seen.get(drawn)
            if other is not None:
                problems.append(f"series {t.get('name')!r} and {other!r} are drawn on top of "
                                f"each other in panel {axis} with nothing to tell them apart")
            seen[drawn] = str(t.get("name"))
    return problems
