"""The dashboards' ``FigureWidget``: plotly's widget with the fixes kipviz needs, each tied to where
it applies (plotly 6.x-7.1 with anywidget 0.9-0.11; checked on plotly 7.1.0, anywidget 0.11.0).

* Arrays travel as plain lists (:func:`to_plain`). plotly's widget sends a 1-D numeric numpy array
  as a binary typed array (``serializers._py_to_js``); after every redraw the browser sends back
  what plotly.js filled in (``_sendTraceDeltas``), its delta builder walks a typed array key by
  key, and ``BaseFigureWidget._remove_overlapping_props`` then meets the numpy array with
  ``not array``: ``ValueError: The truth value of an array with more than one element is
  ambiguous`` in JupyterLab's log console on each slider move (plotly/plotly.py#4160, the same
  line of ``basewidget.py``; still so in 7.1). :meth:`FigureWidget._remove_overlapping_props`
  keeps the array (the data the dashboard set) should a dict delta meet one all the same.
* The comm opens once the figure is whole (:meth:`FigureWidget.open`): plotly sets the data and
  layout traits at the end of its ``__init__``, after ipywidgets opened the comm, so they reach
  the browser as an update after the model's creation, which a model anywidget has given up on
  drops (below).
* plotly's 4.9 MB bundle crosses the wire once per kernel and is imported once per page, and no
  model waits for it (:class:`PlotlyBundle`, :data:`LOADER_ESM`). anywidget (0.10, 0.11:
  ``AnyModel`` in its ``widget.js``) gives a model two seconds to load its front-end module and
  otherwise rejects the model's ``ready`` promise for good ("[anywidget] Failed to initialize
  model."): the view still draws the data it was made with, every later message is dropped. No
  upstream issue tracks it that we know of. The bundle travels in one plain ipywidgets model
  (``source``), made with the kernel's first figure; every figure's state holds a reference to it
  (``_plotly_bundle``, ipywidgets' ``IPY_MODEL_`` form) and, as its front-end module, a few lines
  that on the page's first figure fetch that model from the widget manager and start importing
  its source, keep the import on ``globalThis`` under plotly's version, and return at once; the
  kernel's updates that arrive meanwhile are applied when the bundle is there, and views are
  drawn after.
* :meth:`FigureWidget.fit_width_soon`: under anywidget no resize message reaches plotly's view,
  which drew before its output was in the page and fell back to 700 px.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import plotly
import plotly.graph_objects as go
from ipywidgets import Widget, widget_serialization
from plotly.basewidget import BaseFigureWidget
from plotly.serializers import custom_serializers
from traitlets import Dict, Instance, List, Unicode, default

__all__ = ["LOADER_ESM", "FigureWidget", "PlotlyBundle", "plotly_bundle", "to_plain"]

PLOTLY_ESM = str(BaseFigureWidget._esm)  # plotly's widget bundle (anywidget read it from disk)
# The front-end module of every FigureWidget. plotly's bundle (the source of the PlotlyBundle model
# that the figure's _plotly_bundle names) is imported once per page, keyed by plotly's version
# (kernels with different plotly releases on one page keep their own). The model's initialize does
# not wait for it: anywidget gives up on a model whose initialize takes over two seconds, and
# importing 4.9 MB of JavaScript can take longer on a busy machine. Updates the kernel sends while
# the bundle loads (the _py2js_* traits) are kept and, once it is there, applied to the model's data
# by plotly's own FigureModel methods (do_restyle, ...) in the order they came, before plotly's
# widget initializes and listens itself; render waits for all that, so a view draws the current
# data.
LOADER_ESM = """\
const KEY = "kipviz.plotly-widget.VERSION";
const UPDATES = ["addTraces", "deleteTraces", "moveTraces", "restyle", "relayout", "update",
                 "animate", "removeLayoutProps", "removeTraceProps"];
function plotlyModule(model) {
  if (!globalThis[KEY]) {
    const id = model.get("_plotly_bundle").slice("IPY_MODEL_".length);
    const loading = model.widget_manager.get_model(id).then((bundle) => {
      const url = URL.createObjectURL(new Blob([bundle.get("source")],
                                               { type: "text/javascript" }));
      return import(url).finally(() => URL.revokeObjectURL(url));
    });
    loading.catch(() => { if (globalThis[KEY] === loading) delete globalThis[KEY]; });
    globalThis[KEY] = loading;
  }
  return globalThis[KEY];
}
export default () => {
  let ready;
  return {
    initialize(context) {
      const model = context.model;
      const early = [];
      const listeners = UPDATES.map((name) => {
        const listener = () => early.push([name, model.get("_py2js_" + name)]);
        model.on("change:_py2js_" + name, listener);
        return [name, listener];
      });
      ready = plotlyModule(model).then(async (plotly) => {
        const make = plotly.default;
        const widget = typeof make === "function" ? await make() : make;
        for (const [name, listener] of listeners) model.off("change:_py2js_" + name, listener);
        for (const [name, value] of early) {
          const key = "_py2js_" + name;
          const one = { get: (k) => (k === key ? value : model.get(k)), on() {} };
          new plotly.FigureModel(one, {})["do_" + name]();
        }
        if (widget.initialize) await widget.initialize(context);
        return widget;
      });
      ready.catch((error) => console.error("[kipviz] plotly's widget did not load:", error));
    },
    async render(context) {
      return (await ready).render(context);
    },
  };
};
""".replace("VERSION", plotly.__version__)


class PlotlyBundle(Widget):
    """plotly's widget bundle as one widget model (ipywidgets' plain ``WidgetModel``: no view, no
    front-end code of its own), shared by every :class:`FigureWidget` of a kernel."""

    source = Unicode(PLOTLY_ESM, read_only=True).tag(sync=True)


_bundle: PlotlyBundle | None = None


def plotly_bundle() -> PlotlyBundle:
    """The kernel's :class:`PlotlyBundle`: the one made before, unless it was closed since (its
    ``close()``, or ``Widget.close_all()``); then a new one, which later figures refer to."""
    global _bundle
    if _bundle is None or _bundle.comm is None:
        _bundle = PlotlyBundle()
    return _bundle


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
    """``plotly.graph_objects.FigureWidget`` whose messages to the browser carry lists, and
    that can be told to take its output's full width (:meth:`fit_width_soon`).

    plotly's widget draws as soon as its view is made, before the output is attached to the
    page, so plotly.js finds no width and falls back to 700 px: half a JupyterLab cell. Under
    anywidget no resize message reaches it, and nothing comes back to the kernel when it has
    drawn. A ``relayout(autosize=True)`` (what ``Plotly.Plots.resize`` does) once the output is
    in the page makes it fit.
    """

    _esm = LOADER_ESM
    _plotly_bundle = Instance(PlotlyBundle).tag(sync=True, **widget_serialization)

    @default("_plotly_bundle")
    def _shared_bundle(self) -> PlotlyBundle:
        return plotly_bundle()  # made (its comm opened) before this figure's comm opens

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # plotly sets the figure's data and layout traits at the end of its __init__, after
        # ipywidgets opened the comm: they reached the browser as an update after the model's
        # creation, and a model anywidget gave up on drops every update (module docstring): its
        # view drew empty axes. Held until the figure is whole, the comm opens once, carrying the
        # data and layout in the model's first state (plotly 6.x-7.1, anywidget 0.10-0.11).
        self._hold_comm = True
        super().__init__(*args, **kwargs)
        self._hold_comm = False
        self.open()

    def open(self) -> None:
        """Open the comm to the browser (ipywidgets'), once the figure is whole."""
        if not getattr(self, "_hold_comm", False):
            super().open()

    def fit_width_soon(self, delays_s: tuple[float, ...] = (1.0, 4.0)) -> None:
        """Send ``relayout(autosize=True)`` ``delays_s`` seconds from now, on the kernel's event
        loop (after the cell that displays the figure has finished and the browser has shown
        it); does nothing outside a running event loop (a script) or when the figure has a
        width of its own."""
        import asyncio

        if self._layout.get("width") is not None:
            return
        try:
            loop = asyncio.get_running_loop()  # ipykernel runs each cell in its loop
        except RuntimeError:  # no running event loop: a script, a test
            return
        for delay in delays_s:
            loop.call_later(delay, self._send_relayout_msg, {"autosize": True})

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
