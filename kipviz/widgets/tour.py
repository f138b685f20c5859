"""The tour dashboard: every knob of the five lessons' cluster on one screen, and your own config.

Thin wiring over :class:`~kipviz.scenarios.tour.scenario.ClusterScenario`: a move of a consumer
knob re-runs the consumer (today's and, with ``buffer.memory``, KIP-81's pool, as proposed), a move
of a broker knob the request pool, a move of a throttle the reassignment; each part's Spark curves
are recomputed only when its scenario changed. Pasting a ``consumer.properties`` or
``server.properties`` (or :meth:`TourDashboard.load`) runs the cluster with those settings and
lists the risky values (:func:`kipviz.kafka.config.advice.config_warnings`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import ipywidgets as w
import plotly.graph_objects as go

from kipviz.curves.broker import broker_curves
from kipviz.curves.consumer.buffer import buffer_curves
from kipviz.curves.reassignment import reassignment_curves
from kipviz.kafka.config.advice import UNSAFE, ConfigSource, Note, config_warnings, load_config
from kipviz.kafka.config.properties import parse_properties
from kipviz.kafka.config.settings import BrokerConfig, ConsumerConfig
from kipviz.kafka.units import MB, MiB
from kipviz.plots.tour import tour_figure, update_tour_figure
from kipviz.scenarios.broker import scenario as broker_scenario
from kipviz.scenarios.consumer import scenario as consumer_scenario
from kipviz.scenarios.consumer.buffer_memory import buffer_modes
from kipviz.scenarios.reassignment import scenario as reassignment_scenario
from kipviz.scenarios.tour.scenario import TOUR_SETTINGS, ClusterScenario
from kipviz.widgets._base import Dashboard
from kipviz.widgets._versions import memory_answer_html, version_control
from kipviz.widgets.controls import Control

__all__ = ["TourCurves", "TourDashboard"]

_THROTTLES = tuple(r * MB for r in (5, 10, 12, 15, 20, 30, 40, 50, 60, 80, 100))


@dataclass(frozen=True)
class TourCurves:
    """The three parts' curves: ``consumer`` (BufferCurves: KIP-74 fairness, KIP-81 memory),
    ``broker`` (BrokerCurves, KIP-72) and ``reassignment`` (ReassignmentCurves, KIP-73)."""

    consumer: Any
    broker: Any
    reassignment: Any


class TourDashboard(Dashboard):
    """All the knobs of the mission on one cluster: ``fetch.max.bytes``,
    ``max.partition.fetch.bytes``, ``buffer.memory`` (KIP-81, as proposed),
    ``queued.max.request.bytes`` and the leader / follower replication throttles, with a
    reassignment running; plus boxes to paste your own ``consumer.properties`` /
    ``server.properties``. ``update(**settings)`` takes the names of
    :data:`kipviz.scenarios.tour.scenario.TOUR_SETTINGS` and returns :class:`TourCurves`, or None
    when a setting was rejected (the reason shows in ``warning``).
    """

    CONTROLS = (
        version_control(path="consumer.kafka_version"),
        Control("consumer.fetch_max_bytes", options=tuple(
            k * MiB for k in (1, 2, 4, 8, 16, 32, 50))),
        Control("consumer.max_partition_fetch_bytes", options=tuple(k * 1024 for k in (
            64, 256, 512, 1024, 2048, 4096, 8192))),
        Control("consumer.buffer_memory_bytes", options=tuple(k * MiB for k in (
            8, 16, 32, 50, 64, 100, 200)), unset="unset (Kafka today)",
            label="buffer.memory (KIP-81)"),
        Control("broker.queued_max_request_bytes", options=(("-1 (no pool)", -1), *(
            k * MiB for k in (10, 20, 40, 100, 200)))),
        Control("reassignment.leader_throttle_bytes_per_s", options=_THROTTLES,
                unset="unlimited"),
        Control("reassignment.follower_throttle_bytes_per_s", options=_THROTTLES,
                unset="unlimited"),
    )
    #: every knob of TOUR_SETTINGS by name; update(cluster=...) replaces the whole ClusterScenario
    ALIASES: ClassVar[Mapping[str, str | None]] = {
        "cluster": None, **{name: f"{part}.{name}" for name, (part, _) in TOUR_SETTINGS.items()}}

    def __init__(self, cluster: ClusterScenario | None = None, *, seed: int = 0,
                 spark: Any = None, heap_bytes: int = 1024 * MiB) -> None:
        self._cache: dict[str, tuple[Any, Any]] = {}
        self.heap_bytes = heap_bytes
        self.config_notes: list[Note] = []
        # the two boxes share what the button's full label leaves of the row
        self.consumer_text = w.Textarea(placeholder="paste consumer.properties here",
                                        layout=w.Layout(flex="1 1 0", height="90px"))
        self.broker_text = w.Textarea(placeholder="paste server.properties here",
                                      layout=w.Layout(flex="1 1 0", height="90px"))
        self.load_button = w.Button(description="Run with these configs",
                                    layout=w.Layout(width="auto", min_width="max-content"))
        super().__init__(cluster or ClusterScenario(), seed=seed, spark=spark)
        self.load_button.on_click(lambda _: self.load_pasted())
        self.widget.children = (*self.widget.children[:-1], w.HBox(
            [self.consumer_text, self.broker_text, self.load_button]), self.widget.children[-1])

    def load_pasted(self) -> TourCurves | None:
        """:meth:`load` with the text of the two paste boxes (what the button runs); text that
        is not ``.properties`` syntax is a warning, never an exception."""
        try:
            consumer = parse_properties(self.consumer_text.value) or None
            broker = parse_properties(self.broker_text.value) or None
        except Exception as err:  # shown, never raised out of the button's handler
            self._refuse(err, "Not loaded")
            return None
        return self.load(consumer, broker)

    def load(self, consumer: ConfigSource | None = None,
             broker: ConfigSource | None = None) -> TourCurves | None:
        """Run the cluster with a consumer's and a broker's Kafka configs (objects, mappings of
        Kafka keys or ``.properties`` paths) and show the warnings for risky values; a config the
        cluster cannot run shows as the warning (None is returned), never as an exception."""
        try:
            c, _ = load_config(ConsumerConfig, consumer)
            b, _ = load_config(BrokerConfig, broker)
            s = self.scenario
            self.config_notes = config_warnings(
                consumer, broker, heap_bytes=self.heap_bytes, brokers=s.consumer.brokers,
                partitions=s.consumer.partitions, kafka_version=s.consumer.kafka_version,
                bytes_in_per_s=s.reassignment.bytes_in_per_s,
                network_bytes_per_s=s.reassignment.network_bytes_per_s,
                replication_factor=s.reassignment.replication_factor)
            cluster = ClusterScenario.from_configs(c, b, base=s)
        except Exception as err:  # shown, never raised out of the button's handler
            self._refuse(err, "Not loaded")
            return None
        return self.update(cluster=cluster)

    def _apply(self, scenario: ClusterScenario, params: dict[str, Any]) -> ClusterScenario:
        # not in the table: update(cluster=...) replaces the whole ClusterScenario first
        params = dict(params)
        base = params.pop("cluster", scenario)
        if not isinstance(base, ClusterScenario):
            raise ValueError(f"cluster must be a ClusterScenario: {base!r}")
        return super()._apply(base, params)

    def _figure(self) -> go.Figure:
        return tour_figure()

    def _compute(self, cluster: ClusterScenario) -> TourCurves:
        return TourCurves(consumer=self._part("consumer", cluster.consumer, self._consumer),
                          broker=self._part("broker", cluster.broker, self._broker),
                          reassignment=self._part("reassignment", cluster.reassignment,
                                                  self._reassignment))

    def _part(self, name: str, scenario: Any, compute: Any) -> Any:
        """The curves of one part, recomputed only when its scenario changed."""
        cached = self._cache.get(name)
        if cached is not None and cached[0] == scenario:
            return cached[1]
        curves = compute(scenario)
        self._cache[name] = (scenario, curves)
        return curves

    def _consumer(self, s: Any) -> Any:
        batches = self.batches(s)  # kept while the workload stays: fetch knobs re-run on them
        runs = {"today": s} if s.buffer_memory_bytes is None else {
            mode: scenario for mode, scenario in buffer_modes(s).items()
            if mode in ("today", "kip81_pool")}
        traces = {mode: consumer_scenario.simulate(scenario, seed=self.seed, batches=batches,
                                                   record_fetches=False)
                  for mode, scenario in runs.items()}
        self.trace = traces.get("kip81_pool", traces["today"])
        return buffer_curves(self.spark, traces)

    def _broker(self, s: Any) -> Any:
        return broker_curves(self.spark, broker_scenario.simulate(s, seed=self.seed),
                             windows=50)

    def _reassignment(self, s: Any) -> Any:
        return reassignment_curves(self.spark, reassignment_scenario.simulate(s))

    def _redraw(self, curves: TourCurves) -> None:
        update_tour_figure(self.figure, curves.consumer, curves.broker, curves.reassignment)

    def _advice(self, s: ClusterScenario, c: TourCurves) -> list[str]:
        notes: list[str] = list(self.config_notes)
        if c.reassignment.move_status == "never":
            notes.append(Note("The reassignment never finishes: the leader's throttle is at or "
                              "below R x IN (--throttle counts the R - 1 in-sync followers too; "
                              "KIP-73).", "The reassignment never finishes", UNSAFE))
        elif not c.reassignment.finished:
            notes.append(Note(f"The reassignment did not finish in the run; it would at about "
                              f"{c.reassignment.projected_move_time_s:.0f} s (KIP-73, followers "
                              f"counted).", f"The reassignment would finish at about "
                              f"{c.reassignment.projected_move_time_s:.0f} s, after the run"))
        return notes

    def _summary(self, c: TourCurves) -> str:
        summary = c.consumer.summary.set_index("mode")
        peak = {label: summary.loc[i, "peak_retained_bytes"] / MiB
                for i, label in enumerate(c.consumer.labels)}
        jain = float(c.consumer.summary["mean_jain_index"].iloc[0])
        pool = (f", with buffer.memory {peak['kip81_pool']:.0f} MiB"
                if "kip81_pool" in peak else " (buffer.memory unset)")
        broker_peak = float(c.broker.memory["pool_used_max_bytes"].max()) / MiB
        move = c.reassignment.move_text
        return (f"<b>consumer</b> mean Jain {jain:.2f}, memory {peak['today']:.0f} MiB without "
                f"a pool{pool} &middot; <b>broker</b> requests held {broker_peak:.0f} MiB "
                f"&middot; <b>reassignment</b> {move}"
                + memory_answer_html(self.trace.meta if self.trace is not None else {}))
