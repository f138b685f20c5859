"""KIP-770 Streams input buffer: kipviz's compiled kernel against SimPy and plain Python, and
the dashboard.

Throughput is counted in *records processed* per second of wall time (each one produced,
fetched by a poll under the pause/resume policy, buffered and processed by its task). The setting
is an instance catching up: 4 stream threads, 16 tasks joining two co-partitioned topics (32
partitions) whose record sizes differ up to tenfold either way around 1 KB, 50,000 records of
backlog per partition and 4,000 more a second, each thread processing 100,000 records a second,
``input.buffer.max.bytes`` 64 MiB under KIP-770's per-thread shares (with the #13283 fix), a
fifth thread added at 5 s (shares recomputed, tasks moved), a 10 ms tick and 2,000 ticks (20 s).

The references: :mod:`tools.oracles.simpy_streams` (checked table for table by
``tests/scenarios/streams/test_simpy_streams.py``) and the plain-Python kernel, timed as the package
says (record costs included; the partitions' value sizes drawn before timing).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from benchmarks.harness import SliderMoves, compare_kernel, emit, note
from kipviz.scenarios.streams.scenario import StreamsScenario, partition_value_bytes, simulate
from tools.oracles.simpy_streams import simulate_simpy

NAME = "kip770_streams"
SEED = 0
MiB = 1024 * 1024

SETTING = StreamsScenario(
    input_buffer_max_bytes=64 * MiB, policy="thread_bytes", threads=4,
    thread_changes=((5000, 5),), tasks=16, topics=2, key_bytes=16, value_bytes=1000,
    record_size_spread=10.0, produce_records_per_s=4000.0, initial_lag_records=50000,
    process_records_per_s=100000.0, tick_ms=10, ticks=2000,
)



def throughput() -> None:
    """Records processed per second: compiled kernel, SimPy program, plain-Python kernel."""
    s = SETTING
    values = partition_value_bytes(s, np.random.default_rng(SEED)).tolist()
    note(NAME, f"{s.threads} stream threads (a 5th from 5 s), {s.partitions} partitions, "
               f"KIP-770 thread shares of {s.input_buffer_max_bytes // MiB} MiB in all, "
               f"{s.ticks} ticks of {s.tick_ms} ms, the same run for all three")

    def compiled_run() -> Any:
        return simulate(s, seed=SEED, value_bytes=values)

    trace = compiled_run()
    th = trace.threads
    records = int(th.processed_records.sum())
    emit(NAME, "records_processed", records, "records")
    emit(NAME, "partition_ticks", s.partitions * s.ticks, "partition-ticks")
    emit(NAME, "peak_buffered_bytes",
         int(th.groupby("time_ms").buffered_bytes_after_poll.sum().max()), "bytes")
    emit(NAME, "bytes_bound_bytes", trace.meta["bytes_bound_bytes"], "bytes")
    emit(NAME, "paused_partitions_max", int(th.groupby("time_ms").paused_partitions.sum().max()),
         "partitions")
    threads, partitions = simulate_simpy(s, seed=SEED, value_bytes=values)
    compare_kernel(NAME, compiled=compiled_run, count=records, unit="records",
                   same_model=threads.equals(th) and partitions.equals(trace.partitions),
                   simpy=lambda: simulate_simpy(s, seed=SEED, value_bytes=values),
                   python=lambda: simulate(s, seed=SEED, value_bytes=values, compiled=False))


# Every move is a setting the scenario accepts.
SLIDERS = SliderMoves(
    "StreamsDashboard",
    values={
        "input_buffer_max_bytes": [8 * MiB, 128 * MiB, 16 * MiB, 32 * MiB],
        "threads": [2, 6, 1, 4],
        "record_size_spread": [1.0, 30.0, 100.0, 10.0],
        "process_records_per_s": [5000.0, 50000.0, 10000.0, 20000.0],
        "policy": ["records_per_partition", "thread_bytes_as_merged", "instance_bytes",
                   "partition_bytes", "biggest_partitions", "thread_bytes"],
    },
    what="input.buffer.max.bytes, threads, record size spread, processing "
         "rate and policy")


def run() -> None:
    """The kernel against its references, then slider moves on StreamsDashboard."""
    throughput()
    SLIDERS.time(NAME)
