"""Every dashboard, every control, end to end: a redrawn figure or a visible warning, never a raise.

Dashboards are discovered from ``kipviz.widgets.__all__``, so one added later is covered without
editing this file, and every scenario kind registered in ``kipviz.scenarios.registry.SCENARIOS``
must have one. Each control is moved to its edges and an inner value (every option of a dropdown or
toggle) through ``update``, the path a slider takes, on a small scenario (fewer ticks,
partitions, connections) so the sweep stays fast.
"""

from __future__ import annotations

import inspect
import math
from dataclasses import fields, replace
from typing import Any

import ipywidgets as w
import plotly.io as pio
import pytest

import kipviz.widgets
from kipviz.kafka.config.versions import BEHAVIOURS, KAFKA_VERSIONS, fetch_request_version, has
from kipviz.plots.checks import figure_problems
from kipviz.scenarios import SCENARIOS, kind_of
from kipviz.scenarios.tour.scenario import ClusterScenario
from kipviz.widgets import Dashboard

pytestmark = pytest.mark.spark

DASHBOARDS = sorted(
    (obj for name in kipviz.widgets.__all__
     if isinstance(obj := getattr(kipviz.widgets, name), type) and issubclass(obj, Dashboard)
     and obj is not Dashboard),
    key=lambda cls: cls.__name__)

# Small runs that still show each mechanism at work (the spike inside the run, the move
# finishing); a dashboard not listed here gets its scenario's size fields lowered to SMALL.
_TOUR = ClusterScenario()
KNOWN_SMALL: dict[str, dict[str, Any]] = {
    "FetchDashboard": {"partitions": 12, "ticks": 200, "windows": 5},
    "BrokerDashboard": {"connections": 20, "ticks": 300, "spike_start_ms": 500,
                        "spike_duration_ms": 1000, "large_share": 0.3},
    "ReassignmentDashboard": {"partitions": 4, "log_bytes": 25_000_000, "ticks": 300},
    "ShareGroupDashboard": {"ticks": 200, "initial_lag_records": 2000,
                            "record_lock_duration_ms": 500},
    "TieredStorageDashboard": {"duration_ms": 3_000},
    "TourDashboard": {"cluster": replace(
        _TOUR, consumer=replace(_TOUR.consumer, partitions=24, ticks=300, windows=6),
        broker=replace(_TOUR.broker, connections=20, ticks=300, spike_start_ms=500,
                       spike_duration_ms=1000),
        reassignment=replace(_TOUR.reassignment, partitions=3, log_bytes=20_000_000, ticks=400))},
}
SMALL = {"ticks": 300, "windows": 5, "partitions": 12, "connections": 20}
# The BEHAVIOURS areas whose rules a dashboard's Kafka-version control can change, where fewer than
# all: the broker scenario reads its release only through ``releases_invalid_request_buffer``
# (kipviz.kafka.broker.receive, the "broker" rules), so 4 of its releases run unlike each other.
RULE_AREAS: dict[str, set[str]] = {"BrokerDashboard": {"broker"}}


def _small_overrides(cls: type[Dashboard]) -> dict[str, Any]:
    """Overrides that shrink the dashboard's default scenario (fields it has, lowered only)."""
    if cls.__name__ in KNOWN_SMALL:
        return KNOWN_SMALL[cls.__name__]
    parameters = inspect.signature(cls.__init__).parameters
    takes_overrides = any(p.kind is p.VAR_KEYWORD for p in parameters.values())
    scenario = _default_scenario(cls)
    if not takes_overrides or scenario is None or scenario is inspect.Parameter.empty:
        return {}  # e.g. a dashboard built from several scenarios: its own defaults
    have = {f.name: getattr(scenario, f.name) for f in fields(scenario)}
    return {name: limit for name, limit in SMALL.items()
            if isinstance(have.get(name), int) and have[name] > limit}


def _default_scenario(cls: type[Dashboard]) -> Any:
    """The scenario a dashboard starts from when given none (None: it takes no ``scenario``)."""
    parameter = inspect.signature(cls.__init__).parameters.get("scenario")
    return None if parameter is None else parameter.default


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_every_registered_scenario_kind_has_a_dashboard(name):
    """A kind registered in ``SCENARIOS`` is explored on a dashboard of its own (whose default
    scenario is of that kind), so the tests above move its controls."""
    kind = SCENARIOS[name]
    ours = [cls.__name__ for cls in DASHBOARDS if kind_of(_default_scenario(cls)) is kind]
    assert ours, f"no dashboard in kipviz.widgets starts from a {kind.scenario.__name__}"


def _make(cls: type[Dashboard], spark: Any) -> Dashboard:
    """The dashboard on a small scenario, or on its own one if the small one is rejected."""
    try:
        d = cls(spark=spark, **_small_overrides(cls))
    except ValueError:
        d = None
    if d is None or d.curves is None:
        d = cls(spark=spark)
    return d


@pytest.fixture(scope="module")
def fresh(spark: Any) -> Any:
    """``fresh(cls)``: the dashboard of :func:`_make`, built once per class for the tests that
    only read it (its static fallback, its figure, what a browser first sees): each of them
    checks the same freshly built dashboard, without a simulation and Spark job of its own.
    The test that moves the controls builds its own."""
    made: dict[type[Dashboard], Dashboard] = {}

    def get(cls: type[Dashboard]) -> Dashboard:
        if cls not in made:
            made[cls] = _make(cls, spark)
        return made[cls]

    return get


def _special(value: Any) -> bool:
    """Values that often mean something else (-1 = disabled, 0, unlimited)."""
    return isinstance(value, int | float) and not isinstance(value, bool) and (
        value <= 0 or not math.isfinite(value))


def _values(control: w.ValueWidget, areas: set[str] | None = None) -> list[Any]:
    """Where a user can put the control: every option of a dropdown or toggle, the first and
    last of a selection slider (and its special options: <= 0 or unlimited), min and max of a
    number slider, and an inner value: the one it starts from (the test moves every control
    back there last), or the middle when it starts at an edge."""
    if isinstance(control, w.SelectionSlider):
        options = [v for _, v in control.options]
        picked = [options[0], options[-1]]
        if control.value in picked:
            picked.insert(1, options[len(options) // 2])
        return list(dict.fromkeys([*picked, *filter(_special, options)]))
    if hasattr(control, "options"):
        return _one_release_per_rule_set([v for _, v in control.options], areas)
    if isinstance(control.value, bool):
        return [not control.value, control.value]
    if hasattr(control, "min") and hasattr(control, "max"):
        low, high = control.min, control.max
        if low < control.value < high:
            return [low, high]
        middle = (low + high) // 2 if isinstance(control.value, int) else (low + high) / 2
        return list(dict.fromkeys([low, middle, high]))
    return [control.value]


def _one_release_per_rule_set(options: list[Any], areas: set[str] | None = None) -> list[Any]:
    """A Kafka-version control's options cut to the newest release of each set of releases the
    model runs alike (the same rules of ``BEHAVIOURS`` in force, those of ``areas`` if given, and
    for the consumer the same newest FetchRequest version): 20 of 29, the others differing from
    their set's release only in the name shown (every release runs through ``simulate`` in
    ``test_consumer_versions.py``). Other controls' options are returned as they are."""
    if not options or not all(isinstance(v, str) and v in KAFKA_VERSIONS for v in options):
        return options
    behaviours = [b.name for b in BEHAVIOURS if areas is None or b.area in areas]
    consumer = areas is None or "consumer" in areas
    picked: dict[tuple[Any, ...], str] = {}
    for v in options:  # newest first, as the control lists them
        rules = tuple(has(v, name) for name in behaviours)
        picked.setdefault((rules, fetch_request_version(v) if consumer else None), v)
    return list(picked.values())


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    return bool(a == b)


def _has_data(fig: Any) -> bool:
    def size(values: Any) -> int:
        return 0 if values is None else len(values)

    return any(size(getattr(t, axis, None)) for t in fig.data for axis in ("x", "y", "z"))


@pytest.mark.parametrize("cls", DASHBOARDS, ids=lambda cls: cls.__name__)
def test_every_control_value_redraws_the_figure_or_warns_and_never_raises(cls, spark):
    """Each control at its min, max and an inner value (each option of a dropdown or toggle):
    ``update`` returns curves and redraws, or returns None with a visible warning; the controls
    show the settings in use and the figure stays serialisable. Failures are collected, then
    reported."""
    d = _make(cls, spark)
    assert d.curves is not None, f"{cls.__name__}: its own scenario is rejected: {d.warning.value}"
    redraws = []
    original = d._redraw
    d._redraw = lambda curves: (redraws.append(1), original(curves))[-1]  # type: ignore[method-assign]
    start = {name: control.value for name, control in d.controls.items()}
    problems: list[str] = []

    def move(**settings: Any) -> Any:
        where = f"{cls.__name__}.update({', '.join(f'{k}={v!r}' for k, v in settings.items())})"
        before = len(redraws)
        result = d.update(**settings)  # an exception fails the test here, as it should
        if result is None:
            if not d.warning.value:
                problems.append(f"{where}: rejected without a visible warning")
        elif len(redraws) != before + 1 or not _has_data(d.figure):
            problems.append(f"{where}: the figure was not redrawn with data")
        for shown_name, shown in d.controls.items():
            in_use = d._control_values(d.scenario)[shown_name]
            if not _same(shown.value, in_use):
                problems.append(f"{where}: control {shown_name} shows {shown.value!r}, "
                                f"the setting in use is {in_use!r}")
        try:
            pio.to_json(d.figure, validate=False)
        except Exception as err:  # a figure the browser cannot be sent
            problems.append(f"{where}: figure not serialisable: {err!r}")
        return result

    # Each value is tried with every other control where it started: the control moved before
    # goes back there in the same update as the next control's first value (one Spark job, not
    # two); should that update be rejected, the reset and the value are each sent alone.
    reset: dict[str, Any] = {}
    for name, control in d.controls.items():
        for value in [v for v in _values(control, RULE_AREAS.get(cls.__name__))
                      if not _same(v, start[name])]:
            if move(**reset, **{name: value}) is None and reset:
                move(**reset)
                move(**{name: value})
            reset = {}
        if not _same(control.value, start[name]):
            reset = {name: start[name]}
    if reset:
        move(**reset)
    assert not problems, "\n".join(problems)
    assert d.warning in d.widget.children and d.figure in d.widget.children


@pytest.mark.parametrize("cls", DASHBOARDS, ids=lambda cls: cls.__name__)
def test_every_dashboard_has_a_static_html_fallback(cls, fresh, monkeypatch):
    """``kipviz report`` shows a dashboard as its settings, summary and current figure."""
    d = fresh(cls)
    fragment = d.to_html(include_plotlyjs=False, div_id="f")
    assert 'id="f"' in fragment and cls.__name__ in fragment
    for control in d.controls.values():
        assert str(control.description) in fragment
    shown: list[Any] = []
    monkeypatch.setenv(kipviz.widgets._base.STATIC_ENV, "1")
    monkeypatch.setattr("IPython.display.display", lambda *objs, **kw: shown.extend(objs))
    d._ipython_display_()
    assert [type(o).__name__ for o in shown] == ["HTML", "Figure"]


@pytest.mark.parametrize("cls", DASHBOARDS, ids=lambda cls: cls.__name__)
def test_every_dashboards_figure_teaches(cls, fresh):
    """The figure a dashboard draws (and its static fallback shows) passes the figure checks
    (issue 29): no empty legend entry, no unexplained flat panel, no hidden series."""
    d = fresh(cls)
    assert figure_problems(d.static_figure()) == []


def test_the_figure_a_browser_first_sees_already_holds_the_curves(fresh):
    """A FigureWidget syncs only the data it was made with (later changes are messages a page
    opened afterwards never gets): the dashboard's figure must carry its first curves."""
    d = fresh(kipviz.widgets.consumer.FetchDashboard)
    assert d.scenario.partitions == KNOWN_SMALL["FetchDashboard"]["partitions"]
    synced = d.figure._widget_data  # the state a new view is built from (plotly's trait)
    assert all("y" in trace and len(trace["y"]) for trace in synced)
    assert d.figure in d.widget.children


def test_a_peak_above_kip74_from_oversized_batches_is_blamed_on_the_first_batch_exception(spark):
    """16 KiB responses and 4 KiB partitions against 16 KiB batches: each fetch returns a whole
    batch (KIP-74's first-batch exception), not a lagging application; small sizes in KiB."""
    d = kipviz.widgets.consumer.FetchDashboard(spark=spark, **KNOWN_SMALL["FetchDashboard"],
                                      fetch_max_bytes=16384, max_partition_fetch_bytes=4096)
    assert "first-batch exception" in d.warning.value
    assert "application lagged" not in d.warning.value and "0.0 MiB" not in d.warning.value
    assert "KiB" in d.summary.value


def test_a_zero_throttle_is_described_in_bytes_not_as_an_infinite_ratio(spark):
    """Kafka accepts a throttle of 0; the first window's overshoot has no ratio then."""
    d = kipviz.widgets.reassignment.ReassignmentDashboard(spark=spark,
                                             **KNOWN_SMALL["ReassignmentDashboard"],
                                             leader_throttle_bytes_per_s=0)
    assert "inf" not in d.warning.value and "inf" not in d.summary.value
    assert "against a throttle of 0" in d.summary.value


def test_a_reader_thread_count_that_cannot_matter_says_so(spark):
    """Lesson 8's dashboard at its defaults: one catch-up consumer starts at most four remote
    reads at once (4.3), below 10 reader threads, so moving remote.log.reader.threads from 10 to
    13 changes nothing on the figure: the dashboard says why instead of staying silent."""
    d = kipviz.widgets.tiered_fetch.TieredStorageDashboard(spark=spark, duration_ms=3_000)
    d.update(remote_log_reader_threads=13)
    assert "the readers are not the bottleneck here" in d.warning.value
    assert "remote.log.reader.threads = 13" in d.warning.value
