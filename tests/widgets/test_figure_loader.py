"""The figures' front-end module (``kipviz.widgets._figure.LOADER_ESM``) in Chromium, with plotly's
real widget bundle in a second model the figure's state refers to (``PlotlyBundle``) and a model
that holds its state in the page (what ipywidgets' model does for it): its initialize returns at
once, updates sent while plotly's bundle loads reach the model's data and the view, and later
updates reach both as plotly's own widget would have them."""

from __future__ import annotations

from typing import Any

import pytest

from tests.widgets.test_browser import CHROMIUM, launch_chromium

pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(not CHROMIUM.exists(), reason="no /usr/bin/chromium")]

# A model as anywidget hands it to the module (get, set with change events, on, off), two updates
# the kernel sends before plotly's bundle has loaded, a view, then one update more.
SCRIPT = """async ([loader, bundle]) => {
  const attrs = {_plotly_bundle: "IPY_MODEL_bundle-1", _config: {}, _last_layout_edit_id: 0,
                 _last_trace_edit_id: 0, _widget_layout: {title: {text: "before"}},
                 _widget_data: [{type: "scatter", x: [0, 1], y: [2, 3], uid: "a"}]};
  const handlers = {};
  const model = {
    get: (key) => attrs[key],
    set(key, value) {
      attrs[key] = value;
      for (const handler of (handlers["change:" + key] || []).slice()) handler();
    },
    on(event, handler) { (handlers[event] = handlers[event] || []).push(handler); },
    off(event, handler) { handlers[event] = (handlers[event] || []).filter((h) => h !== handler); },
    save_changes() {}, send() {}, touch() {},
    // the widget manager hands over the bundle's model by id, once it has arrived
    widget_manager: {get_model: async (id) => ({get: (key) =>
      id === "bundle-1" && key === "source" ? bundle : undefined})},
  };
  const url = URL.createObjectURL(new Blob([loader], {type: "text/javascript"}));
  const widget = (await import(url)).default();
  const returned = widget.initialize({model});
  model.set("_py2js_restyle", {restyle_data: {y: [[5, 6]]}, restyle_traces: [0],
                               trace_edit_id: 1});
  model.set("_py2js_relayout", {relayout_data: {"title.text": "during"}, layout_edit_id: 1});
  const el = document.createElement("div");
  el.style.width = "600px";
  document.body.appendChild(el);
  const rendered = new Promise((resolve) => document.addEventListener(
    "plotlywidget-after-render", resolve, {once: true}));
  await widget.render({model, el});
  await rendered;
  const plot = el;  // plotly draws into the view's element
  const drawn = {y: Array.from(plot.data[0].y), title: plot.layout.title.text};
  model.set("_py2js_restyle", {restyle_data: {y: [[7, 8]]}, restyle_traces: [0],
                               trace_edit_id: 2});
  await new Promise((resolve) => setTimeout(resolve, 200));
  return {returnedPromise: returned instanceof Promise, drawn,
          modelY: attrs._widget_data[0].y, modelTitle: attrs._widget_layout.title.text,
          viewY: Array.from(plot.data[0].y)};
}"""


def test_a_figure_initializes_at_once_and_keeps_the_updates_sent_while_plotly_loads() -> None:
    playwright = pytest.importorskip("playwright.sync_api", reason="needs the dev extra")
    from kipviz.widgets._figure import LOADER_ESM, PLOTLY_ESM

    errors: list[str] = []
    with playwright.sync_playwright() as p:
        browser = launch_chromium(p)
        try:
            page = browser.new_page()
            page.on("pageerror", lambda err: errors.append(str(err)))
            page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
            result: dict[str, Any] = page.evaluate(SCRIPT, [LOADER_ESM, PLOTLY_ESM])
        finally:
            browser.close()
    assert errors == []
    # anywidget waits on initialize for at most two seconds: it must not wait for the bundle (it
    # returns nothing to wait for; how long it takes is the machine's, not asserted here)
    assert not result["returnedPromise"]
    assert result["drawn"] == {"y": [5, 6], "title": "during"}  # the view drew the current data
    assert result["modelY"] == [7, 8] and result["modelTitle"] == "during"  # plotly's model kept up
    assert result["viewY"] == [7, 8]  # and the view applies later updates itself
