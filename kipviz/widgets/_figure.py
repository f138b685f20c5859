"""The dashboards' ``FigureWidget``: data travels to the browser as plain lists, never typed arrays.

plotly's widget sends a 1-D numeric numpy array as a binary typed array (``serializers._py_to_js``).
After every redraw the browser sends back what plotly.js filled in (``_sendTraceDeltas``): its
delta builder treats a typed array as an object and walks it key by key, so the delta for an
array property is a dict, and ``BaseFigureWidget._remove_overlapping_props`` then meets the
numpy array on the Python side with ``not array``: ``ValueError: The truth value of an array
with more than one element is ambiguous``, in JupyterLab's log console on each slider move.
Sent as lists, arrays come back (if at all) as lists, which plotly's Python side handles; and
should a dict delta meet an array all the same, :meth:`FigureWidget._remove_overlapping_props`
keeps the array (the data the dashboard set) instead of raising.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import plotly.graph_objects as go
from plotly.serializers import custom_serializers
from traitlets import Dict, List

__all__ = ["FigureWidget", "to_plain"]


def to_plain(value: Any) -> Any:
    """``value`` with every numpy array and scalar replaced by lists and Python numbers."""
    if isinstance(value, dict):
        return {k: to_plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [to_plain(v) for v in value]
    if isinstance(value, np.ndarray | np.generic):
        return value.tolist()
    return value


def _to_js(value: Any, manager: Any) -> Any:
    return custom_serializers["to_json"](to_plain(value), manager)


_SERIALIZERS = {"from_json": custom_serializers["from_json"], "to_json": _to_js}


class FigureWidget(go.FigureWidget):
    """``plotly.graph_objects.FigureWidget`` whose messages to the browser carry lists, drawn
    with plotly.js's ``responsive`` config: with no ``layout.width`` it takes the output cell's
    full width (and follows it when the window is resized) instead of plotly's 700 px."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        config: dict[str, Any] = dict(self._config)  # type: ignore[has-type]
        self._config = {**config, "responsive": True}

    _widget_layout = Dict().tag(sync=True, **_SERIALIZERS)
    _widget_data: List[Any] = List().tag(sync=True, **_SERIALIZERS)
    _py2js_addTraces = Dict(allow_none=True).tag(sync=True, **_SERIALIZERS)
    _py2js_restyle = Dict(allow_none=True).tag(sync=True, **_SERIALIZERS)
    _py2js_relayout = Dict(allow_none=True).tag(sync=True, **_SERIALIZERS)
    _py2js_update = Dict(allow_none=True).tag(sync=True, **_SERIALIZERS)
    _py2js_animate = Dict(allow_none=True).tag(sync=True, **_SERIALIZERS)

    @staticmethod
    def _remove_overlapping_props(input_data: Any, delta_data: Any,
                                  prop_path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        """Drop from ``input_data`` what the browser's defaults ``delta_data`` also set (as
        plotly does), recursing into dicts and lists of dicts; a dict delta meeting an array
        or a scalar leaves it alone. Returns the paths removed."""
        removed: list[tuple[Any, ...]] = []
        nested = FigureWidget._remove_overlapping_props
        if isinstance(input_data, dict) and isinstance(delta_data, dict):
            for key, delta in delta_data.items():
                if key not in input_data or key == "uid":
                    continue
                value, path = input_data[key], (*prop_path, key)
                if not _is_nested(delta):
                    input_data.pop(key)
                    removed.append(path)
                elif isinstance(value, dict | list):
                    removed.extend(nested(value, delta, path))
                    if len(value) == 0:
                        input_data.pop(key)
                        removed.append(path)
        elif isinstance(input_data, list) and isinstance(delta_data, list):
            for i, (value, delta) in enumerate(zip(input_data, delta_data, strict=False)):
                if value is not None and _is_nested(delta):
                    removed.extend(nested(value, delta, (*prop_path, i)))
        return removed


def _is_nested(delta: Any) -> bool:
    """A dict, or a non-empty list of dicts (what plotly recurses into)."""
    return isinstance(delta, dict) or (isinstance(delta, list) and bool(delta)
                                       and isinstance(delta[0], dict))
