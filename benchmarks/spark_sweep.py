"""Spark at scale: a 1,000-configuration sweep, curve throughput, and the largest scenario.

* ``sweep_speedup_vs_sequential``: 1,000 configurations of a small KIP-74 consumer (a 10 x 10 x 10
  grid of ``fetch.max.bytes``, ``max.partition.fetch.bytes`` and the processing rate) summarised
  by :func:`kipviz.sweep.sweep` through the session's Spark (``local[*]``: 2 cores here) against
  the same :func:`kipviz.sweep.summarise` calls run one after another in this process (no cache,
  both after a warm-up of the compiled kernel).
* ``curve_rows_per_s_100k`` / ``_1m``: :func:`kipviz.curves.consumer_curves` on traces whose
  ``windows`` table has about 100,000 and 1,000,000 rows (5,000 and 50,000 partitions x 20).
* ``largest_partition_fetches_60s`` and ``peak_rss_gib``: a consumer of 10,000 partitions on 10
  brokers fetching for 10,000 rounds (simulate + Spark curves, end to end) if it finishes in 60 s,
  with the peak resident memory of this process and the Spark JVM.

Not measured yet: the grid-backed slider latencies (``grid_update_p95_s``,
``ondemand_update_p95_s``), which need the grid-backed dashboard of issue 7, item 2.
"""

from __future__ import annotations

import time
from dataclasses import replace

import psutil

from benchmarks.harness import emit, note
from kipviz.curves import consumer_curves
from kipviz.scenarios.consumer import ConsumerScenario, simulate
from kipviz.spark import get_spark
from kipviz.sweep import grid, summarise, sweep
from kipviz.workload import Workload

NAME = "spark_sweep"
MiB = 1024 * 1024
BASE = ConsumerScenario(partitions=24, brokers=3, ticks=300, windows=10, fetch_max_bytes=4 * MiB,
                        workload=Workload(profile="zipf", initial_lag_bytes=4 * MiB))


def _rss_gib() -> float:
    """Resident memory of this process and its children (the Spark JVM), in GiB."""
    me = psutil.Process()
    total = me.memory_info().rss
    for child in me.children(recursive=True):
        try:
            total += child.memory_info().rss
        except psutil.Error:
            continue
    return total / 2**30


def run() -> None:
    spark = get_spark()
    configs = grid(BASE, fetch_max_bytes=[(k + 1) * 512 * 1024 for k in range(10)],
                   max_partition_fetch_bytes=[(k + 1) * 64 * 1024 for k in range(10)],
                   consume_bytes_per_s=[(k + 1) * 10e6 for k in range(10)])
    summarise(configs[0])  # compile the kernel in this process
    sweep(spark, configs[:8])  # warm the Python workers
    start = time.perf_counter()
    for scenario in configs:
        summarise(scenario)
    sequential = time.perf_counter() - start
    start = time.perf_counter()
    sweep(spark, configs)
    spark_s = time.perf_counter() - start
    note(NAME, f"{len(configs)} configurations of a 24-partition, 300-tick consumer; "
               f"sequential {sequential:.1f} s in one process, Spark {spark_s:.1f} s")
    emit(NAME, "sweep_sequential_s", sequential, "s")
    emit(NAME, "sweep_spark_s", spark_s, "s")
    emit(NAME, "sweep_speedup_vs_sequential", sequential / spark_s, "x", ">= 1.7")

    for label, partitions in (("100k", 5_000), ("1m", 50_000)):
        trace = simulate(replace(BASE, partitions=partitions, brokers=10, ticks=200, windows=20),
                         seed=0, record_fetches=False)
        consumer_curves(spark, trace)  # warm-up
        start = time.perf_counter()
        consumer_curves(spark, trace)
        took = time.perf_counter() - start
        emit(NAME, f"curve_rows_per_s_{label}", len(trace.windows) / took, "rows/s")

    big = replace(BASE, partitions=10_000, brokers=10, ticks=10_000, windows=20,
                  consume_bytes_per_s=1e9, workload=Workload(initial_lag_bytes=1 * MiB))
    start = time.perf_counter()
    trace = simulate(big, seed=0, record_fetches=False)
    consumer_curves(spark, trace)
    took = time.perf_counter() - start
    fetches = int(trace.windows["fetches"].sum())
    note(NAME, f"10,000 partitions x 10,000 ticks end to end in {took:.1f} s "
               f"({fetches:,} partition-fetches)")
    size = big.partitions * big.ticks  # the scenario's partitions x fetch rounds
    emit(NAME, "largest_partition_fetches_60s", size if took <= 60 else 0,
         "partitions x fetches", ">= 100000000")
    emit(NAME, "peak_rss_gib", _rss_gib(), "GiB", "<= 4")
    note(NAME, "grid_update_p95_s and ondemand_update_p95_s: not measured (no grid-backed "
               "dashboard yet)")


if __name__ == "__main__":
    run()
