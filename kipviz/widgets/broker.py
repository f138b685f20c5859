"""The KIP-72 dashboard: a broker's request memory pool under a spike of large requests."""

from __future__ import annotations

import math
from typing import Any

import plotly.graph_objects as go

from kipviz.curves.broker import broker_curves
from kipviz.kafka.units import MiB
from kipviz.plots.broker import broker_figure, update_broker_figure
from kipviz.scenarios.broker.scenario import BrokerScenario, simulate
from kipviz.widgets._base import Dashboard
from kipviz.widgets._versions import version_control
from kipviz.widgets.controls import Control

__all__ = ["BROKER_LESSON_SCENARIO", "BrokerDashboard"]

# 100 clients send 20 small (16 KiB) produce requests a second each; from 4 s to 8 s one request
# in ten is a 4 MiB batch (the KIP's Hadoop job). Eight request handlers process 100 MB/s each.
# The pool (queued.max.request.bytes) is 40 MiB, socket.request.max.bytes 10 MiB: the spike
# needs more memory than the pool holds, so channels are muted until handlers release it.
BROKER_LESSON_SCENARIO = BrokerScenario(
    connections=100, queued_max_request_bytes=40 * MiB, socket_request_max_bytes=10 * MiB,
    small_request_bytes=16 * 1024, large_request_bytes=4 * MiB, large_share=0.1,
    spike_start_ms=4000, spike_duration_ms=4000, requests_per_s_per_connection=20.0,
    num_io_threads=8, handler_bytes_per_s=100e6, tick_ms=10, ticks=2000,
)



class BrokerDashboard(Dashboard):
    """KIP-72 dashboard: ``queued.max.request.bytes``, ``socket.request.max.bytes``, connections,
    the share and size of large requests, strict vs non-strict pool and key shuffling, the share
    of invalid requests and the Kafka version (KAFKA-20302: 4.0 and 4.1 never return an invalid
    request's buffer to the pool).

    ``BrokerDashboard(connections=200)`` overrides fields of :data:`BROKER_LESSON_SCENARIO`;
    ``update(**params)`` takes :class:`~kipviz.scenarios.broker.scenario.BrokerScenario` field names
    and returns :class:`kipviz.curves.broker.BrokerCurves`, or None when the settings were rejected
    (for example ``queued.max.request.bytes`` below ``socket.request.max.bytes``: the reason
    shows in ``warning``). ``strict`` and ``shuffle=False`` are what-ifs: a broker's pool is
    never strict and always shuffles ready keys under memory pressure.
    """

    CONTROLS = (
        Control("queued_max_request_bytes", options=(("-1 (no pool)", -1), *(
            k * MiB for k in (5, 10, 20, 40, 60, 100, 200, 500)))),
        Control("socket_request_max_bytes", options=tuple(
            k * MiB for k in (1, 4, 10, 20, 50, 100))),
        Control("connections", range=(1, 1000)),
        Control("large_share", range=(0.0, 1.0), step=0.01, label="large share (in the spike)"),
        Control("large_request_bytes", options=(512 * 1024, *(
            k * MiB for k in (1, 2, 4, 8, 10, 20, 50, 100))), label="large request size"),
        Control("strict", "toggle", options=(("non-strict (Kafka)", False),
                                             ("strict (what-if)", True)), label="pool"),
        Control("shuffle", "toggle", options=(("on (Kafka)", True), ("off (what-if)", False)),
                label="shuffle under pressure"),
        Control("invalid_share", range=(0.0, 0.1), step=0.005, readout_format=".3f",
                label="invalid requests (share)"),
        version_control("broker"),
    )

    def __init__(self, scenario: BrokerScenario = BROKER_LESSON_SCENARIO, *, seed: int = 0,
                 spark: Any = None, **overrides: Any) -> None:
        super().__init__(scenario, seed=seed, spark=spark, **overrides)

    def _figure(self) -> go.Figure:
        return broker_figure()

    def _compute(self, scenario: BrokerScenario) -> Any:
        self.trace = simulate(scenario, seed=self.seed)
        return broker_curves(self.spark, self.trace)

    def _redraw(self, curves: Any) -> None:
        update_broker_figure(self.figure, curves)

    def _advice(self, s: BrokerScenario, c: Any) -> list[str]:
        notes = []
        peak = int(c.memory["pool_used_max_bytes"].max()) if len(c.memory) else 0
        if not c.has_pool:
            notes.append(f"No pool (queued.max.request.bytes <= 0, Kafka's default): requests "
                         f"held up to {peak / MiB:.1f} MiB, bounded only by one request per "
                         f"connection ({c.per_connection_bound_bytes / MiB:.1f} MiB here).")
        elif peak > s.queued_max_request_bytes:
            notes.append(f"The pool handed out {peak / MiB:.2f} MiB, more than "
                         f"queued.max.request.bytes: a non-strict pool grants any request while "
                         f"memory is left, up to queued.max.request.bytes + "
                         f"socket.request.max.bytes - 1 = {c.nonstrict_bound_bytes / MiB:.2f} MiB.")
        meta = self.trace.meta if self.trace is not None else {}
        if meta.get("leaked_bytes"):
            notes.append(f"{meta['invalid_requests']:,} invalid requests kept "
                         f"{meta['leaked_bytes'] / MiB:.2f} MiB of the pool for good: Kafka "
                         f"{s.kafka_version}'s processCompletedReceives never returns an invalid "
                         f"request's buffer (KAFKA-20302, fixed in 3.9.3, 4.2.1 and 4.3.0).")
        total = c.wait_summary[["requests", "unread_requests"]].sum()
        if total["unread_requests"] > 0.01 * total["requests"]:
            notes.append(f"{int(total['unread_requests']):,} of {int(total['requests']):,} "
                         "requests were still waiting in their sockets when the run ended: the "
                         "broker cannot keep up with this load.")
        return notes

    def _summary(self, c: Any) -> str:
        dry_s = (self.trace.meta["depleted_time_total_ms"] / 1000.0 if self.trace is not None
                 else float("nan"))
        peak = int(c.memory["pool_used_max_bytes"].max()) if len(c.memory) else 0
        sizes = c.large_vs_small.set_index("large")["wait_p99_ms"]
        small, large = (_ms(sizes.get(flag, float("nan"))) for flag in (False, True))
        bound = ("none (one request per connection)" if c.outstanding_bound_bytes is None
                 else f"{c.outstanding_bound_bytes / MiB:.2f} MiB")
        return (f"<b>peak pool use</b> {peak / MiB:.2f} MiB (bound {bound}) &middot; "
                f"<b>out of memory</b> {100 * c.depleted_share:.0f}% of ticks, "
                f"memory-pool-depleted-time-total {dry_s:.1f} s &middot; "
                f"<b>Jain over waits</b> {c.wait_jain_index:.2f} &middot; <b>p99 wait</b> small "
                f"{small}, large {large}")


def _ms(wait_ms: float) -> str:
    """A p99 wait, or "none" when no request of that size was made (large_share 0)."""
    return "none" if math.isnan(wait_ms) else f"{wait_ms:,.0f} ms"
