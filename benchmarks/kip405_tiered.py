"""KIP-405 tiered storage: the compiled tiered-fetch kernel against SimPy and plain Python, and
the dashboard.

Throughput is counted in *fetches* (rows of the ``fetches`` table: requests answered) per
second. The setting is the lesson's (:data:`kipviz.widgets.TIERED_LESSON_SCENARIO`) made
busier and longer: three catch-up consumers of 12 remote and 4 local partitions and two tail
consumers, on Kafka's default 10 reader threads and ``remote.fetch.max.wait.ms`` 500, under an
80 MiB/s remote fetch quota (40% of the requests, 79% of the catch-up ones, come back with
their remote partitions emptied), on Kafka 4.3, for 120 s: about 7,700 fetches and 9,500
remote reads.

The references: :mod:`tools.oracles.simpy_tiered_fetch` (processes, a ``Resource`` of reader threads
and :class:`kipviz.kafka.tiered.quota.RemoteLogQuota` over ``SimpleRate``, checked table for table
by ``tests/scenarios/tiered_fetch/test_tiered_fetch.py``) and the plain-Python kernel, timed as the
package says.

The dashboard figure is the latency of one slider move on ``TieredStorageDashboard()`` (the
lesson's setting): two runs re-simulated (the chosen release and 4.1), their Spark curves, a
redraw.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from benchmarks.harness import SliderMoves, compare_kernel, emit, note
from kipviz.scenarios.tiered_fetch.columns import FETCH_COLUMNS
from kipviz.scenarios.tiered_fetch.scenario import simulate
from kipviz.widgets.tiered_fetch import TIERED_LESSON_SCENARIO
from tools.oracles.simpy_tiered_fetch import simulate_simpy

NAME = "kip405_tiered"
MiB = 1024 * 1024

SETTING = replace(TIERED_LESSON_SCENARIO, catch_up_consumers=3, tail_consumers=2,
                  remote_partitions=12, remote_log_reader_threads=10,
                  remote_fetch_max_wait_ms=500, remote_fetch_max_bytes_per_s=80.0 * MiB,
                  remote_read_latency_ms=83.7,
                  rtt_ms=1.3, duration_ms=120_000)


def throughput() -> None:
    """Fetches per second: compiled kernel, SimPy program, plain-Python kernel."""
    s = SETTING
    note(NAME, f"{s.catch_up_consumers} catch-up consumers ({s.remote_partitions} remote + "
               f"{s.local_partitions} local partitions) and {s.tail_consumers} tail consumers, "
               f"{s.remote_log_reader_threads} reader threads, remote.fetch.max.wait.ms "
               f"{s.remote_fetch_max_wait_ms}, fetch quota 80 MiB/s, Kafka {s.kafka_version}, "
               f"{s.duration_ms / 1000:g} s, the same run for all three")
    trace = simulate(s)
    fetches = len(trace.fetches)
    emit(NAME, "fetches", fetches, "fetches")
    emit(NAME, "remote_reads", len(trace.reads), "reads")
    emit(NAME, "reads_cancelled", int((trace.reads.started_ms < 0).sum()), "reads")
    ours = trace.fetches[list(FETCH_COLUMNS)].to_numpy(np.float64)
    ref = simulate_simpy(s)["fetches"].to_numpy()
    compare_kernel(NAME, compiled=lambda: simulate(s), count=fetches, unit="fetches",
                   same_model=ours.shape == ref.shape and np.allclose(ours, ref, rtol=1e-9),
                   simpy=lambda: simulate_simpy(s), python=lambda: simulate(s, compiled=False))


SLIDERS = SliderMoves(
    "TieredStorageDashboard",
    values={
        "remote_log_reader_threads": [2, 20, 5, 10],
        "remote_read_latency_ms": [300.0, 30.0, 600.0, 100.0],
        "remote_fetch_max_wait_ms": [200, 1000, 100, 500],
        "remote_fetch_max_bytes_per_s": [5.0 * MiB, 50.0 * MiB, None],
        "kafka_version": ["4.1", "3.9", "4.3"],
        "fetch_max_bytes": [2 * MiB, 8 * MiB, 52428800],
        "max_partition_fetch_bytes": [256 * 1024, 4 * MiB, 1 * MiB],
        "remote_partitions": [16, 1, 4],
    },
    what="remote.log.reader.threads, the remote latency, "
         "remote.fetch.max.wait.ms, the fetch quota, the Kafka version, "
         "fetch.max.bytes, max.partition.fetch.bytes, the remote partitions")


def run() -> None:
    """The kernel against its references, then slider moves on TieredStorageDashboard."""
    throughput()
    SLIDERS.time(NAME)
