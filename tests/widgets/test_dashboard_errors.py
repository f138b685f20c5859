"""Dashboards never raise: any failure is the red warning, the controls go back, typed values
beyond a slider's range are refused visibly; and the figure survives the browser's deltas."""

from __future__ import annotations

import json
import time
from dataclasses import replace
from typing import Any

import numpy as np
import plotly.graph_objects as go
import pytest

from kipviz.scenarios.tour.scenario import ClusterScenario
from kipviz.widgets import BrokerDashboard, BufferDashboard, FetchDashboard, TourDashboard
from kipviz.widgets._figure import FigureWidget

pytestmark = pytest.mark.spark


@pytest.fixture(scope="module")
def fetch(spark):
    return FetchDashboard(spark=spark, partitions=12, ticks=200, windows=5)


def test_an_overflowing_value_is_a_warning_naming_the_setting(fetch):
    """``version=10**30`` used to end in OverflowError; now it is refused, naming the field."""
    before = fetch.curves
    assert fetch.update(version=10**30) is None
    assert "version" in fetch.warning.value and "Java short" in fetch.warning.value
    assert fetch.curves is before


def test_any_exception_is_shown_with_its_type_and_the_controls_go_back(fetch, monkeypatch):
    """An error that is not a ValueError (here a MemoryError from the run) is shown, not
    raised, and a slider the user moved is put back to the setting in use."""
    def boom(scenario):
        raise MemoryError("no room")

    monkeypatch.setattr(fetch, "_compute", boom)
    partitions = fetch.scenario.partitions
    fetch.controls["partitions"].value = partitions + 1  # the user's move
    assert "MemoryError: no room" in fetch.warning.value
    assert fetch.controls["partitions"].value == partitions


def test_a_value_typed_beyond_a_sliders_range_is_refused_not_clamped(fetch):
    """Typing 10**6 partitions into a slider whose maximum is 2000 shows a warning and leaves
    the setting, the slider and its box as they were; a value inside the range applies."""
    box, slider = fetch.text_boxes["partitions"], fetch.controls["partitions"]
    partitions = fetch.scenario.partitions
    box.value = 10**6
    assert "outside the slider range 1..2000" in fetch.warning.value
    assert "not clamped" in fetch.warning.value
    assert (fetch.scenario.partitions, slider.value, box.value) == (partitions,) * 3
    box.value = partitions + 2
    assert fetch.scenario.partitions == slider.value == partitions + 2


def test_a_legal_but_huge_thread_count_runs_instead_of_failing(spark):
    """``num.io.threads=2**31-1`` is a legal Kafka value: the run scans only threads that can
    be busy (one request per connection), so it answers in seconds."""
    d = BrokerDashboard(spark=spark, connections=20, ticks=200)
    start = time.perf_counter()
    assert d.update(num_io_threads=2**31 - 1) is not None
    assert time.perf_counter() - start < 30


def test_a_string_for_a_bool_is_refused_not_read_as_true(spark):
    """``coordinator_bypass="no"`` used to run *with* the bypass (a non-empty string is true)."""
    d = BufferDashboard(spark=spark, partitions=12, ticks=200, windows=5)
    assert d.update(coordinator_bypass="no") is None
    assert "coordinator_bypass must be True or False" in d.warning.value
    assert d.scenario.coordinator_bypass is True


def _small_tour(spark):
    c = ClusterScenario()
    return TourDashboard(spark=spark, cluster=replace(
        c, consumer=replace(c.consumer, partitions=24, ticks=300, windows=6),
        broker=replace(c.broker, connections=20, ticks=300),
        reassignment=replace(c.reassignment, partitions=3, log_bytes=20_000_000, ticks=400)))


@pytest.mark.parametrize(("consumer", "broker", "message"), [
    ("fetch.max.bytes=\\u00zz", "", "malformed"),
    ("", "socket.request.max.bytes=1", "socket.request.max.bytes"),
])
def test_the_tours_paste_boxes_warn_instead_of_raising(spark, consumer, broker, message):
    """Text pasted into the tour's boxes that cannot run is the warning, out of the button."""
    tour = _small_tour(spark)
    tour.consumer_text.value, tour.broker_text.value = consumer, broker
    scenario = tour.scenario
    tour.load_button.click()
    assert message in tour.warning.value
    assert tour.scenario == scenario


def _browser_delta(sent: dict, python_side: dict) -> dict:
    """What plotly's widget in the browser sends back for one trace (``_sendTraceDeltas``):
    plotly.js's full data minus what Python sent, where a typed array (binary, from a numpy
    array) is walked like an object, so its delta is a dict of changed indices."""
    delta = {"uid": python_side["uid"], "type": python_side.get("type", "scatter"),
             "visible": True, "marker": {"size": 6}}
    for key, value in sent.items():
        if isinstance(value, dict) and "buffer" in value:  # a typed array in the browser
            delta[key] = {"0": float(np.asarray(python_side[key]).ravel()[0]) + 1}
    return delta


def test_browser_deltas_meeting_numpy_data_raise_nothing():
    """Numpy arrays in the figure meet the deltas the browser sends back after a redraw: in
    plotly's own widget that is ``ValueError: The truth value of an array ... is ambiguous``;
    the dashboards' widget sends lists (no typed array to come back as a dict) and keeps its
    data when a dict delta meets an array all the same."""
    figure = go.Figure([go.Scatter(x=np.arange(4.0), y=np.arange(4.0) * 2,
                                   marker={"color": np.arange(4.0)}),
                        go.Bar(x=np.arange(3), y=np.array([1.5, 2.5, 3.5], dtype=np.float32))])
    for cls, raises in ((go.FigureWidget, True), (FigureWidget, False)):
        widget = cls(figure)
        widget.data[0].y = np.arange(4.0) * 3  # a redraw, as a dashboard's update does
        serialize = widget.trait_metadata("_widget_data", "to_json")
        sent = serialize(widget._widget_data, None)
        assert any("buffer" in str(v) for t in sent for v in t.values()) is raises
        deltas = [_browser_delta(s, t) for s, t in zip(
            serialize(widget._data, None) if raises else
            go.FigureWidget._widget_data.metadata["to_json"](widget._data, None),
            widget._data, strict=True)]
        message = {"trace_deltas": deltas, "trace_edit_id": widget._last_trace_edit_id}
        if raises:
            with pytest.raises(ValueError, match="truth value of an array"):
                widget._js2py_traceDeltas = message
        else:
            widget._js2py_traceDeltas = message
            assert list(widget.data[0].y) == [0.0, 3.0, 6.0, 9.0]


def test_every_dashboard_figure_sends_lists(fetch):
    """A dashboard's figure, after an update, sends no typed array to the browser."""
    fetch.update(partitions=13)
    sent = fetch.figure.trait_metadata("_widget_data", "to_json")(fetch.figure._widget_data, None)
    assert "buffer" not in str(sent)
    assert isinstance(fetch.figure, FigureWidget)


def test_a_figures_model_opens_whole_with_a_small_module_and_plotlys_bundle_shared(monkeypatch):
    """The comm opens once, its first state holding the traces and layout (a model anywidget
    gave up on never gets a later update), as the module anywidget imports per model the few
    lines that import plotly's bundle once per page, and a reference to the one model that
    carries the bundle: 4.9 MB cross the wire once per kernel, not once per figure."""
    import ipywidgets.widgets.widget as ipywidget
    from plotly.basewidget import BaseFigureWidget

    from kipviz.widgets import _figure
    from kipviz.widgets._figure import LOADER_ESM, PLOTLY_ESM

    opened: list[dict[str, Any]] = []

    class Comm:
        def __init__(self, **args: Any) -> None:
            opened.append(args)
            self.comm_id = f"comm-{len(opened)}"

        def on_msg(self, callback: Any) -> None: ...

        def send(self, *args: Any, **kwargs: Any) -> None: ...

        def close(self, *args: Any, **kwargs: Any) -> None: ...

    monkeypatch.setattr(ipywidget.comm, "create_comm", Comm)
    monkeypatch.setattr(_figure, "_bundle", None)
    FigureWidget(go.Figure([go.Scatter(x=[0, 1], y=[2, 3])], layout={"title": {"text": "t"}}))
    FigureWidget(go.Figure())
    assert [args["data"]["state"]["_model_name"] for args in opened] == [
        "WidgetModel", "AnyModel", "AnyModel"]  # the bundle's model first, then each figure's
    bundle, first, second = (args["data"]["state"] for args in opened)
    assert bundle["source"] == PLOTLY_ESM == str(BaseFigureWidget._esm)
    assert first["_plotly_bundle"] == second["_plotly_bundle"] == "IPY_MODEL_comm-1"
    assert len(json.dumps(first)) < 20_000 and len(json.dumps(second)) < 20_000
    assert [trace["y"] for trace in first["_widget_data"]] == [[2, 3]]
    assert first["_widget_layout"]["title"] == {"text": "t"}
    assert first["_esm"] == LOADER_ESM and len(LOADER_ESM) < 2000
    assert 'model.get("_plotly_bundle")' in LOADER_ESM and "globalThis[KEY]" in LOADER_ESM
    _figure.plotly_bundle().close()  # as Widget.close_all() would close it
    third = FigureWidget(go.Figure())
    assert len(opened) == 5 and opened[3]["data"]["state"]["source"] == PLOTLY_ESM
    assert third.get_state()["_plotly_bundle"] == "IPY_MODEL_comm-4"
