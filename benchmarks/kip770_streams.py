"""KIP-770 Streams input buffer: kipviz's compiled kernel against SimPy and plain Python, and
the dashboard.

Throughput is counted in *records processed* per second of wall time (each one produced,
fetched by a poll under the pause/resume policy, buffered and processed by its task). The setting
is an instance catching up: 4 stream threads, 16 tasks joining two co-partitioned topics (32
partitions) whose record sizes differ up to tenfold either way around 1 KB, 50,000 records of
backlog per partition and 4,000 more a second, each thread processing 100,000 records a second,
``input.buffer.max.bytes`` 64 MiB under KIP-770's per-thread shares (with the #13283 fix), a
fifth thread added at 5 s (shares recomputed, tasks moved), a 10 ms tick and 2,000 ticks (20 s).

The speedups compare the three implementations on that same run: the compiled kernel, the SimPy
program (:mod:`benchmarks.simpy_streams`, the same model, checked table for table by
``tests/test_simpy_streams.py``) and the kernel run as plain Python (``compiled=False``). Whole
``simulate`` calls are timed (record costs, tables and ``meta`` included); the partitions' value
sizes are drawn before timing and passed in. Each figure is the median of several runs after a
warm-up; for SimPy the run that checks its tables against the kernel's is the warm-up.

The dashboard figure is the latency of one slider move on ``StreamsDashboard()`` (the lesson's
setting): re-simulate, recompute the Spark curves, redraw.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from benchmarks.harness import SliderMoves, emit, emit_speedups, note, timed_rate
from benchmarks.simpy_streams import simulate_simpy
from kipviz.scenarios.streams.scenario import StreamsScenario, partition_value_bytes, simulate

NAME = "kip770_streams"
COMPILED_REPEAT = 21
REFERENCE_REPEAT = 3
WARMUP = 1
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
               f"{s.ticks} ticks of {s.tick_ms} ms; the same run for all three (compiled median "
               f"of {COMPILED_REPEAT}, SimPy and plain Python of {REFERENCE_REPEAT}, {WARMUP} "
               f"warm-up run each); speedups are ratios of records/s measured in this run")

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
    compiled = timed_rate(NAME, "compiled", compiled_run, records, "records",
                          repeat=COMPILED_REPEAT, warmup=WARMUP)

    threads, partitions = simulate_simpy(s, seed=SEED, value_bytes=values)
    emit_speedups(NAME, compiled, count=records, unit="records",
                  same_model=threads.equals(th) and partitions.equals(trace.partitions),
                  simpy=lambda: simulate_simpy(s, seed=SEED, value_bytes=values),
                  python=lambda: simulate(s, seed=SEED, value_bytes=values, compiled=False),
                  repeat=REFERENCE_REPEAT, warmup=WARMUP)


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
