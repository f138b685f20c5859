"""The KIP-770 dashboard: a Kafka Streams instance catching up under an input buffer bound."""

from __future__ import annotations

from typing import Any

import plotly.graph_objects as go

from kipviz.curves.streams import streams_curves
from kipviz.kafka.streams.input_buffer import POLICY_NAMES
from kipviz.kafka.units import MiB
from kipviz.plots.streams import MAX_THREADS, streams_figure, update_streams_figure
from kipviz.scenarios.streams.scenario import StreamsScenario, simulate
from kipviz.widgets._base import Dashboard
from kipviz.widgets.controls import Control

__all__ = ["STREAMS_LESSON_SCENARIO", "StreamsDashboard"]

# Four stream threads run 8 tasks, each joining two co-partitioned topics (16 partitions) whose
# record sizes differ up to tenfold either way around 1 KB. Every partition starts 20,000 records
# behind and gets 2,000 more a second; a thread processes 20,000 records a second, so the
# instance catches up over the 6 s run with its buffers full. input.buffer.max.bytes is 32 MiB.
STREAMS_LESSON_SCENARIO = StreamsScenario(
    input_buffer_max_bytes=32 * MiB, policy="thread_bytes", threads=4, tasks=8, topics=2,
    key_bytes=16, value_bytes=1000, record_size_spread=10.0, produce_records_per_s=2000.0,
    initial_lag_records=20000, process_records_per_s=20000.0, tick_ms=10, ticks=600,
)



class StreamsDashboard(Dashboard):
    """KIP-770 dashboard: ``input.buffer.max.bytes``, stream threads, the spread of record sizes,
    each thread's processing rate and the pause/resume policy.

    ``StreamsDashboard(threads=2)`` overrides fields of :data:`STREAMS_LESSON_SCENARIO`;
    ``update(**params)`` takes :class:`~kipviz.scenarios.streams.scenario.StreamsScenario` field
    names and returns :class:`kipviz.curves.streams.StreamsCurves`, or None when the settings were
    rejected (the reason shows in ``warning``). Only ``buffered.records.per.partition`` is in Kafka
    today; the byte policies are KIP-770 (merged twice and reverted): ``thread_bytes_as_merged`` as
    its text says, ``thread_bytes`` with apache/kafka#13283's task-level resume rule on top.
    """

    CONTROLS = (
        Control("input_buffer_max_bytes", options=tuple(k * MiB for k in (
            1, 4, 8, 16, 32, 64, 128, 256, 512))),
        Control("threads", range=(1, MAX_THREADS)),
        Control("record_size_spread", range=(1.0, 100.0), step=0.5,
                label="record size spread (x)"),
        Control("process_records_per_s", range=(1000.0, 100000.0), step=1000.0,
                label="records/s per thread"),
        Control("policy", "dropdown", options=tuple((label, name)
                                                    for name, label in POLICY_NAMES.items())),
    )

    def __init__(self, scenario: StreamsScenario = STREAMS_LESSON_SCENARIO, *, seed: int = 0,
                 spark: Any = None, **overrides: Any) -> None:
        super().__init__(scenario, seed=seed, spark=spark, **overrides)

    def _figure(self) -> go.Figure:
        return streams_figure()

    def _compute(self, scenario: StreamsScenario) -> Any:
        self.trace = simulate(scenario, seed=self.seed)
        return streams_curves(self.spark, self.trace)

    def _redraw(self, curves: Any) -> None:
        update_streams_figure(self.figure, curves)

    def _advice(self, s: StreamsScenario, c: Any) -> list[str]:
        notes = []
        if c.stalled:
            notes.append(f"Stalled: {c.stalled_threads} thread(s) processed nothing at the end. "
                         "Each of their tasks waits on a partition that was paused while it had "
                         "records and that processing has since emptied; the thread stays above "
                         "its share, so nothing resumes it. This is the deadlock of KIP-770's "
                         "resume rule as merged (apache/kafka#11424, #11796, both reverted; "
                         "apache/kafka#13283 describes it).")
        if s.policy in ("thread_bytes", "thread_bytes_as_merged") and \
                c.peak_bytes > s.input_buffer_max_bytes:
            notes.append(f"The instance buffered {c.peak_bytes / MiB:.1f} MiB, more than "
                         f"input.buffer.max.bytes: a thread pauses only after the poll that "
                         f"took it over its share, so up to one fetch per partition comes on "
                         f"top (bound {c.bytes_bound_bytes / MiB:.1f} MiB).")
        if s.threads > MAX_THREADS:
            notes.append(f"The figure draws the first {MAX_THREADS} threads.")
        if s.policy != "records_per_partition":
            notes.append("Not in Kafka today: input.buffer.max.bytes was merged and reverted "
                         "twice; Kafka bounds input with buffered.records.per.partition.")
        return notes

    def _summary(self, c: Any) -> str:
        m = c.instance_memory
        rate = float(m["processed_records_per_s"].mean()) if len(m) else float("nan")
        return (f"<b>peak buffered</b> {c.peak_bytes / MiB:.1f} MiB (input.buffer.max.bytes "
                f"{c.input_buffer_max_bytes / MiB:g} MiB; KIP-770 bound "
                f"{c.bytes_bound_bytes / MiB:.1f} MiB; buffered.records.per.partition bound "
                f"{c.records_bound_bytes / MiB:.1f} MiB) &middot; <b>throughput</b> "
                f"{rate:,.0f} records/s &middot; <b>Jain across threads</b> "
                f"{c.mean_jain_index:.2f} &middot; <b>paused</b> up to "
                f"{int(m['paused_max'].max()) if len(m) else 0} partitions")
