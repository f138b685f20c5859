"""KIP-81 consumer ``buffer.memory``: kipviz's compiled kernel against SimPy and plain Python,
and the dashboard.

Throughput is counted in *partition-fetches* (partition entries in fetch requests: the sum of the
``fetches`` column of the windows table) per second, and for the compiled kernel also in
simulated ticks per second (the consumer here is bound by its application, so fetches are few).
The setting is the lesson's consumer
(:data:`kipviz.widgets.consumer_buffer.BUFFER_LESSON_SCENARIO`) in KIP-81's pool mode, run for
longer: 120 partitions on 10 brokers, each with a 64 MiB backlog while producers add 20 MB/s,
``fetch.max.bytes`` 20 MiB, an application processing 50 MB/s (slower than the network) and a
non-strict 30 MB pool, heartbeats every 3 s bypassing it; 10,000 ticks of 10 ms. The pool is dry
almost all the time: responses wait in their sockets, channels are muted for memory, and each
release lets the earliest waiting response in.

The references: :mod:`tools.oracles.simpy_consumer` over kipviz's own ``ConsumerBuffer`` and
``SimpleMemoryPool`` (checked table for table by
``tests/scenarios/consumer/test_simpy_consumer_buffer.py``) and the plain-Python kernel, timed as
the package says.

The dashboard figure is the latency of one slider move on ``BufferDashboard()`` (the lesson's
setting): three consumers re-simulated on one workload, their Spark curves, a redraw.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from benchmarks.harness import SliderMoves, compare_kernel, emit, note
from kipviz.scenarios.consumer.scenario import simulate
from kipviz.scenarios.workload import produce
from kipviz.widgets.consumer_buffer import BUFFER_LESSON_SCENARIO
from tools.oracles.simpy_consumer import simulate_simpy_trace

NAME = "kip81_consumer"
TICKS = 10_000
SEED = 0
KiB, MiB = 1024, 1024 * 1024
TABLES = ("windows", "memory", "buffer", "heartbeats")

SETTING = replace(BUFFER_LESSON_SCENARIO, ticks=TICKS)



def throughput() -> None:
    """Partition-fetches per second: compiled kernel, SimPy program, plain-Python kernel."""
    s = SETTING
    batches = produce(s.workload, s.partitions, s.ticks, s.tick_ms, seed=SEED)
    note(NAME, f"{s.partitions} partitions on {s.brokers} brokers catching up into a non-strict "
               f"{s.buffer_memory_bytes:,}-byte pool (fetch.max.bytes {s.fetch_max_bytes:,}, "
               f"application {s.consume_bytes_per_s / 1e6:g} MB/s), {s.ticks} ticks of "
               f"{s.tick_ms} ms, the same run for all three; workload generation not timed")

    def compiled_run() -> Any:
        return simulate(s, seed=SEED, record_fetches=False, batches=batches)

    trace = compiled_run()
    fetches = int(trace.windows.fetches.sum())
    emit(NAME, "partition_fetches", fetches, "partition-fetches")
    emit(NAME, "dry_ticks", int(trace.buffer.pool_dry.sum()), "ticks")
    emit(NAME, "waiting_max_bytes", int(trace.buffer.waiting_bytes.max()), "bytes")
    emit(NAME, "retained_max_bytes", int(trace.buffer.retained_bytes.max()), "bytes")
    emit(NAME, "depleted_time_total_ms", trace.meta["depleted_time_total_ms"], "ms")
    emit(NAME, "max_heartbeat_delay_ms", trace.meta["max_heartbeat_delay_ms"], "ms")
    reference = simulate_simpy_trace(s, seed=SEED, batches=batches)
    same = (all(getattr(reference, t).equals(getattr(trace, t)) for t in TABLES)
            and reference.depleted_time_total_ms == trace.meta["depleted_time_total_ms"])
    compiled = compare_kernel(
        NAME, compiled=compiled_run, count=fetches, unit="partition-fetches", same_model=same,
        simpy=lambda: simulate_simpy_trace(s, seed=SEED, batches=batches),
        python=lambda: simulate(s, seed=SEED, record_fetches=False, compiled=False,
                                batches=batches))
    emit(NAME, "compiled_ticks_per_s", compiled * s.ticks / fetches, "ticks/s")


# Every move is a setting the dashboard accepts from the lesson's (30 MB ``buffer.memory``, 20 MiB
# ``fetch.max.bytes``): ``buffer.memory`` never goes below the largest ``fetch.max.bytes``, so
# KIP-81's rule holds whatever the other slider shows.
SLIDERS = SliderMoves(
    "BufferDashboard",
    values={
        "buffer_memory_bytes": [50 * MiB, 104857600, 20 * MiB, 30_000_000],
        "fetch_max_bytes": [5 * MiB, 10 * MiB, 1 * MiB, 20 * MiB],
        "max_partition_fetch_bytes": [256 * KiB, 4 * MiB, 64 * KiB, 1 * MiB],
        "brokers": [5, 20, 3, 10],
        "partitions": [500, 60, 240, 120],
        "consume_bytes_per_s": [100e6, 25e6, 200e6, 50e6],
        "coordinator_bypass": [False, True],
    },
    what="buffer.memory, fetch.max.bytes, max.partition.fetch.bytes, brokers, "
         "partitions, the processing rate and the coordinator bypass")


def run() -> None:
    """The kernel against its references, then slider moves on BufferDashboard."""
    throughput()
    SLIDERS.time(NAME)
