"""Spark at scale: a 1,000-configuration sweep, curve throughput, instant sliders, and the
largest scenario.

* ``sweep_speedup_vs_sequential``: 1,000 configurations of a KIP-74 consumer (60 partitions on 6
  brokers, 5 s of fetching; a 10 x 10 x 10 grid of ``fetch.max.bytes``,
  ``max.partition.fetch.bytes`` and the processing rate) summarised by
  :func:`kipviz.curves.sweep.sweep` through the session's Spark (``local[*]``: 2 cores here) against
  the same :func:`kipviz.curves.summary.summarise` calls run one after another in this process (no
  cache; medians of three runs each, after a warm-up of the compiled kernel, the Python workers and
  the JVM).
* ``curve_rows_per_s_100k`` / ``_1m``: :func:`kipviz.curves.consumer.consumer_curves` on traces
  whose ``windows`` table has about 100,000 and 1,000,000 rows (5,000 and 50,000 partitions x 20).
* ``largest_partition_rounds_60s``, ``largest_partition_fetches_60s`` and ``peak_rss_gib``: a
  consumer of 10,000 partitions on 10 brokers for 10,000 ticks (simulate + Spark curves, end to
  end), if it finishes in 60 s (0 if not): its size in partitions x ticks (the 10^8 the target
  asks for), the partition-fetches it really made (the sum of the windows' ``fetches``, the
  fetch requests that included each partition: fewer, since not every partition is in a request
  every tick; 91.9 million when last measured), and the peak resident memory of this process
  and the Spark JVM (each process's high-water mark, ``VmHWM``, summed: at least their peak
  together).

* ``grid_update_p95_s``: slider moves on a :class:`kipviz.widgets.grid.GridDashboard` over a 10 x 10
  grid of the two fetch limits (sweep done once, before timing), each a full ``update`` (lookup,
  heatmap slice, redraw) with no Spark job; ``ondemand_update_p95_s``: moves to positions off the
  grid, each computed on demand by a one-configuration Spark job.
"""

from __future__ import annotations

import tempfile
import time
from dataclasses import replace

import numpy as np
import psutil

from benchmarks.harness import emit, note, time_call, time_each
from kipviz.curves.consumer import consumer_curves
from kipviz.curves.spark import get_spark
from kipviz.curves.summary import summarise
from kipviz.curves.sweep import grid, sweep
from kipviz.scenarios.consumer.scenario import ConsumerScenario
from kipviz.scenarios.consumer.simulation import simulate
from kipviz.scenarios.workload import Workload
from kipviz.widgets import GridDashboard

NAME = "spark_sweep"
MiB = 1024 * 1024
BASE = ConsumerScenario(partitions=24, brokers=3, ticks=300, windows=10, fetch_max_bytes=4 * MiB,
                        workload=Workload(profile="zipf", initial_lag_bytes=4 * MiB))
SWEPT = replace(BASE, partitions=60, brokers=6, ticks=500)
FETCH_MAX = [(k + 1) * 512 * 1024 for k in range(10)]
PARTITION_MAX = [(k + 1) * 64 * 1024 for k in range(10)]


def _peak_rss_bytes(process: psutil.Process) -> int:
    """The most resident memory ``process`` has held (Linux ``VmHWM``); its current resident
    memory where the kernel does not report a high-water mark."""
    try:
        with open(f"/proc/{process.pid}/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024  # kB
    except OSError:
        pass
    return int(process.memory_info().rss)


def _peak_rss_gib() -> float:
    """Peak resident memory of this process plus that of each child (the Spark JVM), in GiB."""
    me = psutil.Process()
    total = _peak_rss_bytes(me)
    for child in me.children(recursive=True):
        try:
            total += _peak_rss_bytes(child)
        except psutil.Error:
            continue
    return total / 2**30


def run() -> None:
    spark = get_spark()
    configs = grid(SWEPT, fetch_max_bytes=FETCH_MAX, max_partition_fetch_bytes=PARTITION_MAX,
                   consume_bytes_per_s=[(k + 1) * 10e6 for k in range(10)])
    summarise(configs[0])  # compile the kernel in this process
    sweep(spark, configs[::10])  # warm the Python workers and the JVM's code for the job

    def sequential() -> None:
        for scenario in configs:
            summarise(scenario)

    sequential_s = time_call(sequential, repeat=3, warmup=0).median_s
    spark_s = time_call(lambda: sweep(spark, configs), repeat=3, warmup=0).median_s
    note(NAME, f"{len(configs)} configurations of a 60-partition, 500-tick consumer; "
               f"sequential {sequential_s:.1f} s in one process, Spark {spark_s:.1f} s "
               f"(medians of 3)")
    emit(NAME, "sweep_sequential_s", sequential_s, "s")
    emit(NAME, "sweep_spark_s", spark_s, "s")
    emit(NAME, "sweep_speedup_vs_sequential", sequential_s / spark_s, "x", ">= 1.7")

    _instant_sliders(spark)

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
    note(NAME, f"{big.partitions:,} partitions x {big.ticks:,} ticks end to end in {took:.1f} s "
               f"({fetches:,} partition-fetches)")
    in_time = took <= 60
    emit(NAME, "largest_partition_rounds_60s", big.partitions * big.ticks if in_time else 0,
         "partitions x ticks", ">= 100000000")
    emit(NAME, "largest_partition_fetches_60s", fetches if in_time else 0, "partition-fetches")
    emit(NAME, "peak_rss_gib", _peak_rss_gib(), "GiB", "<= 4")


def _instant_sliders(spark: object) -> None:
    """Slider moves on and off a Spark-computed grid (see the module)."""
    rng = np.random.default_rng(0)
    with tempfile.TemporaryDirectory(prefix="kipviz-bench-") as cache:
        d = GridDashboard(replace(SWEPT, consume_bytes_per_s=50e6),
                          axes={"fetch_max_bytes": FETCH_MAX,
                                "max_partition_fetch_bytes": PARTITION_MAX},
                          spark=spark, cache_dir=cache)
        on = [{"fetch_max_bytes": FETCH_MAX[i], "max_partition_fetch_bytes": PARTITION_MAX[j]}
              for i, j in rng.integers(10, size=(60, 2))]
        off = [{"fetch_max_bytes": FETCH_MAX[i] + 256 * 1024} for i in range(10)]

        def move(params: dict[str, int], source: str) -> None:
            if d.update(**params) is None or d.source != source:
                raise RuntimeError(f"{params}: {d.source}, {d.warning.value}")

        grid_t = time_each(lambda p: move(p, "grid"), on, warmup=5)
        ondemand_t = time_each(lambda p: move(p, "spark"), off, warmup=1)
    note(NAME, f"GridDashboard over a 10 x 10 grid ({d.simulated} configurations swept once); "
               f"{grid_t.repeat} moves on the grid, {ondemand_t.repeat} off it (one Spark job "
               f"each)")
    emit(NAME, "grid_update_median_s", grid_t.median_s, "s")
    emit(NAME, "grid_update_p95_s", grid_t.p95_s, "s", "<= 0.05")
    emit(NAME, "ondemand_update_median_s", ondemand_t.median_s, "s")
    emit(NAME, "ondemand_update_p95_s", ondemand_t.p95_s, "s")
    emit(NAME, "ondemand_vs_grid_p95", ondemand_t.p95_s / grid_t.p95_s, "x")


if __name__ == "__main__":
    run()
