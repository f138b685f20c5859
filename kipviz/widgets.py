"""Dashboards: sliders -> scenario -> Spark curves -> a plotly FigureWidget redrawn in place.

Thin wiring only. Every slider calls :meth:`FetchDashboard.update`, which tests and benchmarks
call too. Bad settings never raise out of a dashboard: they show as a visible warning and the
figure keeps its last good curves.
"""

from __future__ import annotations

import html
from dataclasses import fields, replace
from typing import Any

import ipywidgets as w
import plotly.graph_objects as go

from kipviz import plots
from kipviz.fetch import Ordering
from kipviz.scenarios.consumer import ConsumerScenario, ConsumerTrace, simulate
from kipviz.workload import Batches, Workload, produce

__all__ = ["LESSON_SCENARIO", "FetchDashboard", "byte_options"]

KiB, MiB = 1024, 1024 * 1024

# A consumer catching up after a pause: every partition has an 8 MiB backlog and producers keep
# writing 100 MB/s, skewed (Zipf) across 100 partitions on 3 brokers. The application keeps up
# (1 GB/s), so each broker's 1 Gbit/s link and the response limit decide who gets the bandwidth.
# fetch.max.bytes starts at 2 MiB and the order fixed, where KIP-74's starvation shows.
LESSON_SCENARIO = ConsumerScenario(
    partitions=100, brokers=3, fetch_max_bytes=2 * MiB, ordering=Ordering.FIXED,
    consume_bytes_per_s=1e9, ticks=2000, windows=20,
    workload=Workload(profile="zipf", zipf_s=1.1, produce_bytes_per_s=100e6,
                      initial_lag_bytes=8 * MiB),
)


def byte_options(*values: int) -> list[tuple[str, int]]:
    """Slider options labelled in KiB/MiB, exact byte values (Kafka defaults included)."""
    def label(v: int) -> str:
        return f"{v / MiB:g} MiB" if v >= MiB else f"{v / KiB:g} KiB"
    return [(label(v), v) for v in sorted(set(values))]


_FETCH_MAX = byte_options(*(2**k * KiB for k in range(4, 17)), 52428800)
_PARTITION_MAX = byte_options(*(2**k * KiB for k in range(2, 15)))
_SCENARIO_FIELDS = {f.name for f in fields(ConsumerScenario)} - {"workload"}
_WORKLOAD_PARAMS = {"skew": "zipf_s", "produce_bytes_per_s": "produce_bytes_per_s",
                    "initial_lag_bytes": "initial_lag_bytes", "record_bytes": "record_bytes"}


class FetchDashboard:
    """KIP-74 dashboard: ``fetch.max.bytes``, ``max.partition.fetch.bytes``, partitions, brokers,
    skew (Zipf exponent; 0 = uniform) and the partition order, redrawn from Spark curves.

    ``FetchDashboard(partitions=1000, ticks=2000)`` overrides fields of :data:`LESSON_SCENARIO`.
    Display it as the last expression of a cell (or ``display(d.widget)``).
    """

    def __init__(self, scenario: ConsumerScenario = LESSON_SCENARIO, *, seed: int = 0,
                 spark: Any = None, **overrides: Any) -> None:
        if spark is None:
            from kipviz.spark import get_spark

            spark = get_spark()
        self.spark = spark
        self.seed = seed
        self.scenario = self._apply(scenario, overrides)
        self.trace: ConsumerTrace | None = None
        self.curves: Any = None
        self.figure = go.FigureWidget(plots.consumer_figure())
        self.warning = w.HTML()
        self.summary = w.HTML()
        s = self.scenario
        self.controls: dict[str, w.ValueWidget] = {
            "fetch_max_bytes": w.SelectionSlider(options=_with(_FETCH_MAX, s.fetch_max_bytes),
                                                 value=s.fetch_max_bytes,
                                                 description="fetch.max.bytes"),
            "max_partition_fetch_bytes": w.SelectionSlider(
                options=_with(_PARTITION_MAX, s.max_partition_fetch_bytes),
                value=s.max_partition_fetch_bytes, description="max.partition.fetch.bytes"),
            "partitions": w.IntSlider(value=s.partitions, min=1, max=max(2000, s.partitions),
                                      description="partitions"),
            "brokers": w.IntSlider(value=s.brokers, min=1, max=12, description="brokers"),
            "skew": w.FloatSlider(value=s.workload.zipf_s, min=0.0, max=2.0, step=0.1,
                                  description="skew (Zipf s)"),
            "ordering": w.Dropdown(options=[(o.name.lower().replace("_", "-"), o)
                                            for o in Ordering],
                                   value=Ordering(s.ordering), description="order"),
        }
        for name, control in self.controls.items():
            control.style = {"description_width": "170px"}
            control.layout = w.Layout(width="480px")
            if hasattr(control, "continuous_update"):
                control.continuous_update = False  # Spark-backed: redraw on release
            control.observe(self._on_change(name), names="value")
        self._syncing = False
        self._batches: Batches | None = None
        self._batches_key: tuple[Any, ...] | None = None
        self.widget = w.VBox([w.VBox(list(self.controls.values())), self.warning, self.summary,
                              self.figure])
        self.update()

    def _ipython_display_(self) -> None:
        from IPython.display import display

        display(self.widget)

    def _on_change(self, name: str) -> Any:
        def handler(change: dict[str, Any]) -> None:
            if not self._syncing:
                self.update(**{name: change["new"]})
        return handler

    @staticmethod
    def _apply(scenario: ConsumerScenario, params: dict[str, Any]) -> ConsumerScenario:
        unknown = sorted(set(params) - _SCENARIO_FIELDS - set(_WORKLOAD_PARAMS))
        if unknown:
            raise ValueError(f"unknown setting {unknown[0]!r}; the dashboard knows "
                             f"{', '.join(sorted(_SCENARIO_FIELDS | set(_WORKLOAD_PARAMS)))}")
        params = dict(params)
        if isinstance(params.get("ordering"), str):
            name = params["ordering"].upper().replace("-", "_")
            if name not in Ordering.__members__:
                raise ValueError(f"ordering must be one of "
                                 f"{', '.join(o.name.lower() for o in Ordering)}: "
                                 f"{params['ordering']!r}")
            params["ordering"] = Ordering[name]
        workload = {_WORKLOAD_PARAMS[k]: params.pop(k) for k in list(params)
                    if k in _WORKLOAD_PARAMS}
        if workload:
            wl = scenario.workload
            if "zipf_s" in workload:
                wl = replace(wl, profile="zipf" if workload["zipf_s"] > 0 else "uniform")
            params["workload"] = replace(wl, **workload)
        return replace(scenario, **params)

    def update(self, **params: Any) -> Any:
        """Apply settings (scenario field names, ``skew``), re-simulate, recompute, redraw.

        Returns the new :class:`kipviz.curves.ConsumerCurves`, or None when the settings were
        rejected; then the reason is shown in ``self.warning`` and nothing else changes.
        """
        from kipviz.curves import consumer_curves

        try:
            scenario = self._apply(self.scenario, params)
        except (ValueError, TypeError) as err:
            self.warning.value = _box(f"Not applied: {err}", "#fdecea", "#b71c1c")
            return None
        self.scenario = scenario
        self._sync_controls()
        key = (scenario.workload, scenario.partitions, scenario.ticks, scenario.tick_ms)
        if self._batches_key != key:  # fetch settings and order do not change what is produced
            self._batches = produce(scenario.workload, scenario.partitions, scenario.ticks,
                                    scenario.tick_ms, seed=self.seed)
            self._batches_key = key
        self.trace = simulate(scenario, seed=self.seed, record_fetches=False,
                              batches=self._batches)
        self.curves = consumer_curves(self.spark, self.trace)
        plots.update_consumer_figure(self.figure, self.curves)
        notes = _advice(scenario, self.curves)
        self.warning.value = _box(" ".join(notes), "#fff8e1", "#8a6d00") if notes else ""
        self.summary.value = _summary(self.curves)
        return self.curves

    def _sync_controls(self) -> None:
        s = self.scenario
        values: dict[str, Any] = {"fetch_max_bytes": s.fetch_max_bytes,
                  "max_partition_fetch_bytes": s.max_partition_fetch_bytes,
                  "partitions": s.partitions, "brokers": s.brokers, "skew": s.workload.zipf_s,
                  "ordering": Ordering(s.ordering)}
        self._syncing = True
        try:
            for name, value in values.items():
                control = self.controls[name]
                if isinstance(control, w.SelectionSlider):
                    control.options = _with(list(control.options), value)
                elif isinstance(control, w.IntSlider | w.FloatSlider):
                    control.max = max(control.max, value)
                control.value = value
        finally:
            self._syncing = False


def _with(options: list[tuple[str, int]], value: int) -> list[tuple[str, int]]:
    """Options of a byte slider that include ``value`` (a value set from code or a file)."""
    return options if any(v == value for _, v in options) else byte_options(
        value, *(v for _, v in options))


def _box(text: str, background: str, colour: str) -> str:
    return (f'<div style="background:{background};color:{colour};padding:6px 10px;'
            f'border-radius:4px;margin:4px 0">{html.escape(text)}</div>')


def _advice(s: ConsumerScenario, c: Any) -> list[str]:
    """Warnings for legal but risky or surprising combinations."""
    notes = []
    if s.max_partition_fetch_bytes > s.response_max_bytes:
        notes.append("max.partition.fetch.bytes is above the response limit "
                     f"({s.response_max_bytes:,} bytes): the response limit applies first.")
    peak = int(c.memory["held_max_bytes"].max()) if len(c.memory) else 0
    if peak > c.kip74_bound_bytes:
        notes.append(f"Held memory peaked at {peak / MiB:.1f} MiB, above KIP-74's "
                     f"min(brokers x fetch.max.bytes, partitions x max.partition.fetch.bytes) = "
                     f"{c.kip74_bound_bytes / MiB:.1f} MiB: completed fetches piled up while the "
                     "application lagged (what KIP-81's buffer.memory set out to bound).")
    return notes


def _summary(c: Any) -> str:
    jain = c.fairness["jain_index"].dropna()
    peak = int(c.memory["held_max_bytes"].max()) if len(c.memory) else 0
    rate = float(c.memory["consumed_bytes_per_s"].mean()) if len(c.memory) else 0.0
    streak = int(c.fairness["max_starvation_streak"].max()) if len(c.fairness) else 0
    return (f"<b>min Jain index</b> {jain.min():.3f} &middot; <b>mean</b> {jain.mean():.3f} "
            f"&middot; <b>longest starvation</b> {streak} fetches &middot; <b>peak held</b> "
            f"{peak / MiB:.1f} MiB (KIP-74 bound {c.kip74_bound_bytes / MiB:.1f} MiB) &middot; "
            f"<b>consumed</b> {rate / 1e6:.1f} MB/s")
