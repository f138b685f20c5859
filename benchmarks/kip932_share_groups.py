"""KIP-932 share groups: kipviz's compiled kernel against SimPy and plain Python, and the
dashboard.

Throughput is counted in *record deliveries* (records acquired by share consumers, the sum of
the ``acquired`` column of the deliveries table) per second, and for the compiled kernel also in
simulated ticks per second. The setting is the lesson's
(:data:`kipviz.widgets.share_group.SHARE_LESSON_SCENARIO`: 2 partitions, 8 share and 8 classic
consumers, one share consumer stalled, 1 s locks, 3 deliveries) with 16 consumers per group on
4 partitions of 2 brokers, run for 2,000 ticks of 10 ms.

The references: :mod:`tools.oracles.simpy_share_group` (the same mechanisms, checked table for table
by ``tests/scenarios/share_group/test_share_group.py``) and the plain-Python kernel, timed as the
package says.

The dashboard figure is the latency of one slider move on ``ShareGroupDashboard()`` (the
lesson's setting): both groups re-simulated, their Spark curves in one job, a redraw.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from benchmarks.harness import SliderMoves, compare_kernel, emit, note
from kipviz.scenarios.share_group.scenario import simulate
from kipviz.widgets.share_group import SHARE_LESSON_SCENARIO
from tools.oracles.simpy_share_group import simulate_simpy

NAME = "kip932_share_groups"
TICKS = 2000
SEED = 0
KiB, MiB = 1024, 1024 * 1024
TABLES = ("deliveries", "consumers", "partitions")

SETTING = replace(SHARE_LESSON_SCENARIO, partitions=4, brokers=2, share_consumers=16,
                  classic_consumers=16, ticks=TICKS)



def throughput() -> None:
    """Record deliveries per second: compiled kernel, SimPy program, plain-Python kernel."""
    s = SETTING
    note(NAME, f"{s.share_consumers} share consumers ({s.stalled_consumers} stalled) and "
               f"{s.classic_consumers} classic on {s.partitions} partitions of {s.brokers} "
               f"brokers, {s.ticks} ticks of {s.tick_ms} ms, the same run for all three")

    def compiled_run() -> Any:
        return simulate(s, seed=SEED)

    trace = compiled_run()
    deliveries = int(trace.deliveries.acquired.sum())
    emit(NAME, "record_deliveries", deliveries, "records")
    emit(NAME, "redelivered_records", int(trace.deliveries.redelivered.sum()), "records")
    emit(NAME, "archived_records", int(trace.partitions.groupby("partition")
                                       .archived_records.max().sum()), "records")
    emit(NAME, "in_flight_max_records", int(trace.partitions.in_flight_records.max()),
         "records")
    reference = simulate_simpy(s, seed=SEED)
    compiled = compare_kernel(
        NAME, compiled=compiled_run, count=deliveries, unit="record-deliveries",
        same_model=all(getattr(reference, t).equals(getattr(trace, t)) for t in TABLES),
        simpy=lambda: simulate_simpy(s, seed=SEED),
        python=lambda: simulate(s, seed=SEED, compiled=False))
    emit(NAME, "compiled_ticks_per_s", compiled * s.ticks / deliveries, "ticks/s")


# Every one a setting the dashboard accepts (at least one consumer more than the stalled one).
SLIDERS = SliderMoves(
    "ShareGroupDashboard",
    values={
        "consumers": [16, 4, 32, 8],
        "partitions": [4, 8, 1, 2],
        "fetch_max_bytes": [MiB, 64 * KiB, 16 * MiB, 52428800],
        "max_poll_records": [500, 50, 1000, 100],
        "max_record_locks": [200, 20, 1000, 2000],
        "acquire_mode": ["record_limit", "batch_optimized"],
    },
    what="consumers, partitions, fetch.max.bytes, max.poll.records, "
         "group.share.partition.max.record.locks and share.acquire.mode")


def run() -> None:
    """The kernel against its references, then slider moves on ShareGroupDashboard."""
    throughput()
    SLIDERS.time(NAME)
