"""The KIP-81 dashboard: one lagging consumer under today's rules, the pool, and the cap."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import plotly.graph_objects as go

from kipviz.curves.consumer.buffer import buffer_curves
from kipviz.kafka.consumer.memory import consumer_memory_bounds
from kipviz.kafka.units import KiB, MiB
from kipviz.plots.consumer_buffer import MODE_NAMES, buffer_figure, update_buffer_figure
from kipviz.scenarios.consumer.buffer_memory import MODES, buffer_modes
from kipviz.scenarios.consumer.scenario import ConsumerScenario, simulate
from kipviz.scenarios.workload import Workload
from kipviz.widgets._base import Dashboard
from kipviz.widgets._versions import memory_answer_html, version_control
from kipviz.widgets.controls import Control

__all__ = ["BUFFER_LESSON_SCENARIO", "BufferDashboard"]

# A consumer catching up: 120 partitions on 10 brokers, each with a 64 MiB backlog while
# producers add 20 MB/s; the application processes 50 MB/s, slower than the network, so fetched
# data piles up in the consumer. fetch.max.bytes 20 MiB, max.partition.fetch.bytes 1 MiB (its
# default), buffer.memory 30 MB: the calibration workload of lesson 3. KIP-81 (2016) was written
# against a consumer that handed each response to its fetch buffer as soon as it read it, as every
# release did up to 2.3; from 2.4 (KAFKA-8677) the classic consumer hands responses over only in a
# poll that found nothing buffered, which by itself keeps a lagging consumer near one round of
# responses (measured on real 3.9.2 consumers). So the proposal runs on 2.3's consumer (the
# version control shows 3.9's and 4.x's).
BUFFER_LESSON_SCENARIO = ConsumerScenario(
    partitions=120, brokers=10, fetch_max_bytes=20 * MiB, consume_bytes_per_s=50e6,
    buffer_memory_bytes=30_000_000, ticks=2000, windows=20,
    workload=Workload(produce_bytes_per_s=20e6, initial_lag_bytes=64 * MiB), kafka_version="2.3",
)

_MEMORY = (5, 10, 16, 20, 32, 50, 64, 100, 200)  # MiB, and 30 MB (lesson 3's)


class BufferDashboard(Dashboard):
    """KIP-81 dashboard: ``buffer.memory``, ``fetch.max.bytes``, ``max.partition.fetch.bytes``,
    brokers, partitions, the application's processing rate and the coordinator bypass.

    Every move runs three consumers on the same record batches: today's (no pool), KIP-81's
    pool of ``buffer.memory`` (as proposed; never shipped in Kafka) and the rejected cap on
    in-flight fetches sized to the same memory, and redraws their Spark curves.
    ``BufferDashboard(partitions=500)`` overrides fields of :data:`BUFFER_LESSON_SCENARIO`;
    ``update(...)`` takes :class:`~kipviz.scenarios.consumer.scenario.ConsumerScenario` field names
    and returns :class:`kipviz.curves.consumer.buffer.BufferCurves`, or None when the settings were
    rejected (``buffer.memory`` below ``fetch.max.bytes``: the reason shows in ``warning``).
    """

    CONTROLS = (
        Control("buffer_memory_bytes", options=tuple(sorted(
            {30_000_000, *(k * MiB for k in _MEMORY)}))),
        Control("fetch_max_bytes", options=tuple(k * MiB for k in (1, 2, 5, 10, 20, 32, 50))),
        Control("max_partition_fetch_bytes", options=tuple(2**k * KiB for k in range(6, 15))),
        Control("brokers", range=(1, 30)),
        Control("partitions", range=(1, 1000)),
        Control("consume_bytes_per_s", options=tuple(
            r * 1e6 for r in (5, 10, 25, 50, 100, 200, 300, 500, 1000)), label="processing rate"),
        Control("coordinator_bypass", "toggle", options=(("on (KIP-81)", True),
                                                         ("off (what-if)", False)),
                label="heartbeats bypass the pool"),
        version_control(),
    )

    def __init__(self, scenario: ConsumerScenario = BUFFER_LESSON_SCENARIO, *, seed: int = 0,
                 spark: Any = None, **overrides: Any) -> None:
        self.traces: dict[str, Any] = {}
        self._last_runs: list[tuple[ConsumerScenario, Any]] = []
        super().__init__(scenario, seed=seed, spark=spark, **overrides)

    def _figure(self) -> go.Figure:
        return buffer_figure()

    def _compute(self, scenario: ConsumerScenario) -> Any:
        # simulate_modes, on the batches kept while the workload stays (only partitions moves
        # it); a mode whose scenario did not move (today's consumer, when buffer.memory or the
        # bypass moved) keeps its trace
        runs = buffer_modes(scenario)
        batches = self.batches(scenario)
        kept = {mode: next((t for s, t in self._last_runs if s == runs[mode]), None)
                for mode in MODES}
        self.traces = {mode: simulate(runs[mode], seed=self.seed, batches=batches,
                                      record_fetches=False) if kept[mode] is None else kept[mode]
                       for mode in MODES}
        self._last_runs = [(runs[mode], self.traces[mode]) for mode in MODES]
        self.trace = self.traces["kip81_pool"]
        return buffer_curves(self.spark, self.traces)

    def _redraw(self, curves: Any) -> None:
        update_buffer_figure(self.figure, curves)

    def _advice(self, s: ConsumerScenario, c: Any) -> list[str]:
        summary = c.summary.set_index("mode")
        peak = {label: int(summary.loc[i, "peak_retained_bytes"])
                for i, label in enumerate(c.labels)}
        rate = {label: float(summary.loc[i, "consumed_bytes_per_s"])
                for i, label in enumerate(c.labels)}
        notes = []
        per_partition = s.max_partition_fetch_bytes
        answer = consumer_memory_bounds(replace(s, buffer_memory_bytes=None)).sentence()
        if peak["today"] > 4 * per_partition:
            notes.append(f"Kafka {s.kafka_version}'s consumer (no pool) held "
                         f"{peak['today'] / MiB:.0f} MiB of fetch responses with "
                         f"max.partition.fetch.bytes = {per_partition / MiB:g} MiB: that limit is "
                         f"per partition and per response, not per consumer. "
                         f"{answer}")
        if not s.coordinator_bypass and int(summary["max_heartbeat_delay_ms"].max()) > 0:
            notes.append(f"Without the bypass a heartbeat response waited "
                         f"{int(summary['max_heartbeat_delay_ms'].max()):,} ms for pool memory "
                         f"(KIP-81 step 3.b is why coordinator traffic skips the pool).")
        if rate["in_flight_cap"] < 0.95 * rate["kip81_pool"]:
            loss = 1 - rate["in_flight_cap"] / rate["kip81_pool"]
            notes.append(f"The in-flight cap gave the application {100 * loss:.0f}% less than "
                         f"the pool: each freed slot waits a round trip for its next response.")
        return notes

    def _summary(self, c: Any) -> str:
        cells = []
        for i, label in enumerate(c.labels):
            row = c.summary.set_index("mode").loc[i]
            cells.append(f"<b>{MODE_NAMES.get(label, label)}</b> peak "
                         f"{row['peak_retained_bytes'] / MiB:.1f} MiB, "
                         f"{row['consumed_bytes_per_s'] / 1e6:.0f} MB/s")
        today = self.traces.get("today")
        return " &middot; ".join(cells) + memory_answer_html(today.meta if today else {})

