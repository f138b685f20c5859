"""The ``consumer`` kind's dashboard (KIP-74): fetch limits, partitions, brokers, skew and order
-> Spark curves."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any, ClassVar

import plotly.graph_objects as go

from kipviz.curves.consumer import consumer_curves
from kipviz.kafka.fetch.request import Ordering
from kipviz.kafka.units import KiB, MiB, mib_or_kib
from kipviz.plots import consumer as plots
from kipviz.scenarios.consumer.scenario import ConsumerScenario, simulate
from kipviz.scenarios.workload import Profile, Workload
from kipviz.widgets._base import Dashboard
from kipviz.widgets._versions import memory_answer_html, ordering_options, version_control
from kipviz.widgets.controls import Control

__all__ = ["LESSON_SCENARIO", "FetchDashboard", "run_summary_html"]

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

_SESSIONS = (("on: incremental fetches (Kafka)", True),
             ("off: every fetch full (cache.slots=0)", False))


class FetchDashboard(Dashboard):
    """KIP-74 dashboard: ``fetch.max.bytes``, ``max.partition.fetch.bytes``, partitions, brokers,
    skew (Zipf exponent; 0 = uniform), the partition order and fetch sessions (KIP-227: on,
    incremental fetches; off, every fetch full, as a broker with
    ``max.incremental.fetch.session.cache.slots=0``), redrawn from Spark curves.

    ``FetchDashboard(partitions=1000, ticks=2000)`` overrides fields of :data:`LESSON_SCENARIO`;
    ``update(...)`` also takes the workload settings ``skew``, ``produce_bytes_per_s``,
    ``initial_lag_bytes`` and ``record_bytes``, and an order by name
    (``ordering="round-robin"``). It returns :class:`kipviz.curves.consumer.ConsumerCurves`, or None
    when the settings were rejected (the reason shows in ``warning``).
    """

    CONTROLS: ClassVar[tuple[Control, ...]] = (
        Control("fetch_max_bytes", options=(*(2**k * KiB for k in range(4, 17)), 52428800)),
        Control("max_partition_fetch_bytes", options=tuple(2**k * KiB for k in range(2, 15))),
        Control("partitions", range=(1, 2000)),
        Control("brokers", range=(1, 12)),
        Control("workload.zipf_s", name="skew", range=(0.0, 2.0), step=0.1, label="skew (Zipf s)"),
        Control("ordering", "dropdown", options=ordering_options(Ordering),
                unset="as this Kafka version does", label="order"),
        Control("incremental_fetch_sessions", "toggle", options=_SESSIONS, label="fetch sessions",
                tooltips=("KIP-227: the broker keeps a fetch session per consumer",
                          "max.incremental.fetch.session.cache.slots=0 on the broker")),
        version_control(),
    )
    ALIASES: ClassVar[Mapping[str, str | None]] = {
        name: f"workload.{name}"
        for name in ("produce_bytes_per_s", "initial_lag_bytes", "record_bytes")}

    def __init__(self, scenario: ConsumerScenario = LESSON_SCENARIO, *, seed: int = 0,
                 spark: Any = None, **overrides: Any) -> None:
        super().__init__(scenario, seed=seed, spark=spark, **overrides)

    def _figure(self) -> go.Figure:
        return plots.consumer_figure()

    def _apply(self, scenario: ConsumerScenario, params: dict[str, Any]) -> ConsumerScenario:
        # not in the table: skew also sets the workload's profile (zipf above 0, else uniform)
        if "workload" in params:
            raise ValueError("unknown setting 'workload'; set skew, produce_bytes_per_s, "
                             "initial_lag_bytes or record_bytes instead")
        scenario = super()._apply(scenario, params)
        if "skew" in params:
            profile: Profile = "zipf" if scenario.workload.zipf_s > 0 else "uniform"
            scenario = replace(scenario, workload=replace(scenario.workload, profile=profile))
        return scenario

    def _compute(self, scenario: ConsumerScenario) -> Any:
        self.trace = simulate(scenario, seed=self.seed, record_fetches=False,
                              batches=self.batches(scenario))
        return consumer_curves(self.spark, self.trace)

    def _redraw(self, curves: Any) -> None:
        plots.update_consumer_figure(self.figure, curves)

    def _advice(self, scenario: ConsumerScenario, curves: Any) -> list[str]:
        meta = self.trace.meta if self.trace is not None else {}
        return _advice(scenario, curves, meta)

    def _summary(self, curves: Any) -> str:
        return run_summary_html(curves) + memory_answer_html(
            self.trace.meta if self.trace is not None else {})


def _advice(s: ConsumerScenario, c: Any, meta: dict[str, Any]) -> list[str]:
    """Warnings for legal but risky or surprising combinations.

    Held memory is measured against the one answer of :mod:`kipviz.kafka.consumer.memory` for the
    run's Kafka version (``meta["memory_bound_bytes"]``): above KIP-74's one-round figure and the
    one drained response still next in line (which every Java consumer keeps for a moment,
    measured on real 4.4 and 3.9 consumers) but within it is the version's rule at work (a
    lagging pre-4.0 consumer, or record batches larger than the limits returned whole by the
    first-batch exception).
    """
    notes = []
    if s.max_partition_fetch_bytes > s.response_max_bytes:
        notes.append("max.partition.fetch.bytes is above the response limit "
                     f"({s.response_max_bytes:,} bytes): the response limit applies first.")
    peak = int(c.memory["held_max_bytes"].max()) if len(c.memory) else 0
    drained = int(meta.get("largest_response_bytes", 0)) if s.client == "java" else 0
    if peak > c.kip74_bound_bytes + drained and meta.get("memory_rule"):
        notes.append(f"Held memory peaked at {mib_or_kib(peak)}, above KIP-74's min(brokers x "
                     f"fetch.max.bytes, partitions x max.partition.fetch.bytes) = "
                     f"{mib_or_kib(c.kip74_bound_bytes)}"
                     + (f" and the {mib_or_kib(drained)} drained response still next in line"
                        if drained else "") + f": {meta['memory_sentence']}")
    return notes


def run_summary_html(c: Any, bound: tuple[str, int] | None = None) -> str:
    """The run in one line; the peak held beside KIP-74's one-round bound, or beside ``bound``
    (a label and bytes: another client's own)."""
    bound_label, bound_bytes = bound or ("KIP-74 bound", c.kip74_bound_bytes)
    jain = c.fairness["jain_index"].dropna()
    peak = int(c.memory["held_max_bytes"].max()) if len(c.memory) else 0
    rate = float(c.memory["consumed_bytes_per_s"].mean()) if len(c.memory) else 0.0
    streak = int(c.fairness["max_starvation_streak"].max()) if len(c.fairness) else 0
    return (f"<b>min Jain index</b> {jain.min():.3f} &middot; <b>mean</b> {jain.mean():.3f} "
            f"&middot; <b>longest starvation</b> {streak} fetches &middot; <b>peak held</b> "
            f"{mib_or_kib(peak)} ({bound_label} {mib_or_kib(bound_bytes)}) &middot; "
            f"<b>consumed</b> {rate / 1e6:.1f} MB/s")
