"""The KIP-932 dashboard: a share group and a classic group side by side on the same topic."""

from __future__ import annotations

from typing import Any

import plotly.graph_objects as go

from kipviz.curves.share_group import share_group_curves
from kipviz.kafka.units import MiB
from kipviz.plots.share_group import share_group_figure, update_share_group_figure
from kipviz.scenarios.share_group.scenario import ShareGroupScenario, simulate
from kipviz.widgets._base import Dashboard
from kipviz.widgets._versions import version_control
from kipviz.widgets.controls import Control

__all__ = ["SHARE_LESSON_SCENARIO", "ShareGroupDashboard"]

# Eight consumers in each group on 2 partitions of one broker, each partition 10,000 records
# (of 1 KB, in batches of 10) behind while producers add 2,000 a second; every consumer
# processes 500 a second, so the partitions hold more than two consumers can take. One share
# consumer stalls: it acquires and never acknowledges. Locks of 1 s and 3 deliveries (Kafka's
# defaults are 30 s and 5) let a 5 s run show its records redelivered and archived.
SHARE_LESSON_SCENARIO = ShareGroupScenario(
    partitions=2, brokers=1, share_consumers=8, classic_consumers=8, stalled_consumers=1,
    produce_records_per_s=2000.0, initial_lag_records=10_000, record_bytes=1000,
    batch_records=10, max_poll_records=100, record_lock_duration_ms=1000,
    delivery_count_limit=3, process_records_per_s=500.0, tick_ms=10, ticks=500,
)

_FETCH_MAX = (*(k * 1024 for k in (1, 4, 16, 64, 256)), MiB, 16 * MiB, 52428800)
_MODES = (("batch_optimized", "batch_optimized"), ("record_limit", "record_limit"))


class ShareGroupDashboard(Dashboard):
    """KIP-932 dashboard: consumers (both groups), partitions, ``fetch.max.bytes``,
    ``max.poll.records``, ``group.share.partition.max.record.locks`` (unset: the release's
    default), ``share.acquire.mode`` and the Kafka version (4.0 on: each release's rules).

    ``ShareGroupDashboard(partitions=4)`` overrides fields of :data:`SHARE_LESSON_SCENARIO`;
    ``update(consumers=16)`` sets both groups' sizes, other names are
    :class:`~kipviz.scenarios.share_group.scenario.ShareGroupScenario` fields. It returns
    :class:`kipviz.curves.share_group.ShareGroupCurves`, or None when the settings were rejected
    (fewer consumers than stalled ones: the reason shows in ``warning``).
    """

    CONTROLS = (
        Control("share_consumers", name="consumers", also=("classic_consumers",), range=(1, 32),
                label="consumers (each group)"),
        Control("partitions", range=(1, 16)),
        Control("fetch_max_bytes", options=_FETCH_MAX),
        Control("max_poll_records", options=(10, 50, 100, 200, 500, 1000)),
        Control("max_record_locks", options=(20, 50, 100, 200, 500, 1000, 2000),
                unset="this version's default"),
        Control("acquire_mode", "toggle", options=_MODES, label="share.acquire.mode"),
        version_control("share", oldest="4.0"),
    )

    def __init__(self, scenario: ShareGroupScenario = SHARE_LESSON_SCENARIO, *, seed: int = 0,
                 spark: Any = None, windows: int = 20, **overrides: Any) -> None:
        self.windows = windows
        super().__init__(scenario, seed=seed, spark=spark, **overrides)

    def _figure(self) -> go.Figure:
        return share_group_figure()

    def _compute(self, scenario: ShareGroupScenario) -> Any:
        self.trace = simulate(scenario, seed=self.seed)
        return share_group_curves(self.spark, self.trace, windows=self.windows)

    def _redraw(self, curves: Any) -> None:
        update_share_group_figure(self.figure, curves)

    def _advice(self, s: ShareGroupScenario, c: Any) -> list[str]:
        notes = []
        idle = s.classic_consumers - min(s.classic_consumers, s.partitions)
        if idle:
            notes.append(f"The classic group leaves {idle} of its {s.classic_consumers} "
                         f"consumers idle (one consumer per partition); the share group's "
                         f"{s.share_consumers} share the {s.partitions} partitions.")
        peak = int(c.in_flight["in_flight_max_records"].max()) if len(c.in_flight) else 0
        if peak > s.record_locks and c.meta.get("in_flight_bound_records") is None:
            notes.append(f"In flight peaked at {peak:,} records, above "
                         f"group.share.partition.max.record.locks = {s.record_locks:,}: "
                         f"Kafka {s.kafka_version} checks the cap only before a fetch, and not "
                         f"when it starts among released records (4.2 checks it inside "
                         f"acquire, KAFKA-19555).")
        elif peak > s.record_locks:
            notes.append(f"In flight peaked at {peak:,} records, above "
                         f"group.share.partition.max.record.locks = {s.record_locks:,}: "
                         f"Kafka acquires to the end of the log batch (Kafka's code, not the "
                         f"KIP's text), so the cap is soft by up to {s.batch_records - 1}.")
        archived = int(c.in_flight["archived_records"].max()) if len(c.in_flight) else 0
        if archived:
            notes.append(f"{archived:,} record{'s were' if archived != 1 else ' was'} archived: "
                         f"delivered "
                         f"{s.delivery_count_limit} times (group.share.delivery.count.limit) "
                         f"without an acknowledgement, they are never delivered again.")
        return notes

    def _summary(self, c: Any) -> str:
        held = int(c.memory["held_max_bytes"].max()) if len(c.memory) else 0
        redelivered = int(c.in_flight["redelivered_records"].sum())
        return (f"<b>Jain across consumers</b> share {c.mean_jain('share'):.2f}, classic "
                f"{c.mean_jain('classic'):.2f} &middot; <b>records/s</b> share "
                f"{c.of('share')['records_per_s'].mean():,.0f}, classic "
                f"{c.of('classic')['records_per_s'].mean():,.0f} &middot; <b>held per "
                f"consumer</b> up to {held / 1024:,.0f} KiB (max.poll.records x record size "
                f"{c.meta['max_records_bytes'] / 1024:,.0f} KiB; fetch bound "
                f"{c.meta['memory_bound_bytes'] / MiB:,.1f} MiB) &middot; <b>redelivered</b> "
                f"{redelivered:,} records")
