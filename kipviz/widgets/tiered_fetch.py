"""The tiered-storage dashboard: a consumer catching up from remote storage beside a tail
consumer, under the chosen Kafka version and the release before KAFKA-14915 / KAFKA-19462."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import plotly.graph_objects as go

from kipviz.curves.tiered_fetch import tiered_curves
from kipviz.kafka.config.versions import KAFKA_VERSIONS, has
from kipviz.kafka.units import KiB, MiB, mib_per_s
from kipviz.plots.tiered_fetch import tiered_figure, update_tiered_figure
from kipviz.scenarios.tiered_fetch.scenario import TieredFetchScenario, simulate
from kipviz.widgets._base import Dashboard
from kipviz.widgets.controls import Control

__all__ = ["TIERED_LESSON_SCENARIO", "TieredStorageDashboard"]

# One catch-up consumer reading 4 partitions 2 GiB behind the local log start (remote storage,
# 100 ms to first byte, 100 MiB/s a reader thread) and 4 at the tail; one tail consumer with 4
# partitions; 256 KiB/s produced to each partition; 10 s of Kafka 4.3.
TIERED_LESSON_SCENARIO = TieredFetchScenario(duration_ms=10_000)

_VERSIONS = tuple((v, v) for v in reversed(KAFKA_VERSIONS) if has(v, "tiered_storage"))


class TieredStorageDashboard(Dashboard):
    """Tiered-storage dashboard: ``remote.log.reader.threads``, ``remote.fetch.max.wait.ms``,
    ``remote.log.manager.fetch.max.bytes.per.second``, the remote store's latency, the Kafka
    version, ``fetch.max.bytes``, ``max.partition.fetch.bytes`` and the partitions read.

    Every move runs the scenario twice, on the chosen release and on 4.1 (one remote partition
    per request, none charged to the response limit) — or on 4.2 when 4.1 or older is chosen —
    and redraws their Spark curves (:class:`kipviz.curves.tiered_fetch.TieredCurves`).
    ``update(...)`` takes :class:`~kipviz.scenarios.tiered_fetch.scenario.TieredFetchScenario` field
    names; a rejected value shows in ``warning`` and returns None.
    """

    CONTROLS = (
        Control("kafka_version", "dropdown", options=_VERSIONS, label="Kafka version (broker)"),
        Control("remote_log_reader_threads", range=(1, 20)),
        Control("remote_read_latency_ms", range=(0, 1000.0), step=10,
                label="remote read latency (ms, set by the store)"),
        Control("remote_fetch_max_wait_ms", range=(1, 2000), step=50),
        Control("remote_fetch_max_bytes_per_s", "dropdown", options=tuple(
            float(k * MiB) for k in (1, 2, 5, 10, 20, 50, 100)), fmt=mib_per_s,
            unset="none (Long.MAX_VALUE)"),
        Control("fetch_max_bytes", options=tuple(k * MiB for k in (1, 2, 4, 8, 16, 32, 50))),
        Control("max_partition_fetch_bytes", options=tuple(2**k * KiB for k in range(8, 14))),
        Control("remote_partitions", range=(0, 32), label="remote partitions (catch-up consumer)"),
    )

    def __init__(self, scenario: TieredFetchScenario = TIERED_LESSON_SCENARIO, *, seed: int = 0,
                 spark: Any = None, **overrides: Any) -> None:
        self.traces: dict[str, Any] = {}
        self._last_runs: list[tuple[TieredFetchScenario, Any]] = []
        super().__init__(scenario, seed=seed, spark=spark, **overrides)

    def _figure(self) -> go.Figure:
        return tiered_figure()

    def runs(self, s: TieredFetchScenario) -> dict[str, TieredFetchScenario]:
        """The two runs drawn: the chosen release, and 4.1 beside it (4.2 if 4.1 or older)."""
        other = "4.2" if not has(s.kafka_version, "remote_fetch_several_partitions") else "4.1"
        pair = {f"Kafka {s.kafka_version}": s, f"Kafka {other}": replace(s, kafka_version=other)}
        return dict(sorted(pair.items(), key=lambda kv: kv[1].kafka_version == other))

    def _compute(self, scenario: TieredFetchScenario) -> Any:
        # a run whose scenario did not move (the release beside the chosen one, when only the
        # version moved) is not simulated again
        runs = list(self.runs(scenario).items())
        kept = {label: next((t for s0, t in self._last_runs if s0 == s), None)
                for label, s in runs}
        self.traces = {label: simulate(s) if kept[label] is None else kept[label]
                       for label, s in runs}
        self._last_runs = [(s, self.traces[label]) for label, s in runs]
        self.trace = next(iter(self.traces.values()))
        return tiered_curves(self.spark, self.traces)

    def _redraw(self, curves: Any) -> None:
        update_tiered_figure(self.figure, curves)

    def _advice(self, s: TieredFetchScenario, c: Any) -> list[str]:
        notes = []
        summary = c.summary.set_index("mode")
        if int(summary.loc[0, "reads_cancelled"]) > 0:
            notes.append(f"{int(summary.loc[0, 'reads_cancelled'])} remote reads did not start "
                         f"before remote.fetch.max.wait.ms and came back empty: "
                         f"remote.log.reader.threads = {s.remote_log_reader_threads} is too few "
                         f"for the reads queued.")
        if float(summary.loc[0, "throttled_share"]) > 0:
            notes.append(f"The remote fetch quota emptied the remote partitions of "
                         f"{100 * float(summary.loc[0, 'throttled_share']):.0f}% of the "
                         f"requests (KIP-956: no error, the consumer just gets nothing).")
        trace = getattr(self, "trace", None)
        if trace is not None and len(trace.fetches):
            per_request = int(trace.fetches.reads_scheduled.max())
            most = s.catch_up_consumers * per_request
            if most < s.remote_log_reader_threads:
                notes.append(f"At most {most} remote reads run at once ({s.catch_up_consumers} "
                             f"catch-up consumer(s) x {per_request} read(s) per fetch request), "
                             f"fewer than remote.log.reader.threads = "
                             f"{s.remote_log_reader_threads}: the readers are not the bottleneck "
                             f"here, so more threads change nothing. Add catch-up consumers (or "
                             f"remote partitions, from 4.2) to see them bind.")
        if int(summary.loc[0, "peak_response_bytes"]) > s.fetch_max_bytes:
            notes.append(f"A response reached {summary.loc[0, 'peak_response_bytes'] / MiB:.1f} "
                         f"MiB, above fetch.max.bytes: before 4.2 a remote partition is not "
                         f"charged to the limit (KAFKA-19462).")
        return notes

    def _summary(self, c: Any) -> str:
        table = c.summary_table()
        cells = [f"<b>{r['run']}</b> {r['data']}: {r['MB/s']:.1f} MB/s, p99 {r['p99 ms']:.0f} ms"
                 for _, r in table.iterrows()]
        return " &middot; ".join(cells)
