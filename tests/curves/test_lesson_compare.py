"""The comparison tables lessons 2 and 5 print (kipviz.curves.broker.compare, streams_compare):
worked numbers, the same figures as the curves they reduce, bad input."""

from __future__ import annotations

from dataclasses import replace

import pytest

from kipviz.curves.broker.compare import (
    allocation_table,
    overshoot_table,
    pool_curves,
    pools_table,
    waits_table,
)
from kipviz.curves.streams.compare import (
    policies_table,
    policy_curves,
    record_size_sweep,
    skewed_value_bytes,
    thread_fairness_table,
)
from kipviz.scenarios.broker.scenario import BrokerScenario
from kipviz.scenarios.streams.scenario import StreamsScenario

MiB = 1024 * 1024
SMALL_STREAMS = StreamsScenario(threads=2, tasks=4, topics=2, input_buffer_max_bytes=4 * MiB,
                                initial_lag_records=2000, ticks=100)
SMALL_BROKER = BrokerScenario(connections=10, queued_max_request_bytes=20 * MiB,
                              socket_request_max_bytes=10 * MiB, large_request_bytes=4 * MiB,
                              spike_start_ms=100, spike_duration_ms=300, ticks=100)


def test_the_pool_table_walks_kip72s_worked_example_non_strict_then_strict():
    """A pool of 100 with a largest allocation of 60, asked 50, 60, 5: non-strict grants 60 with
    50 left (-10, out of memory) and refuses 5; strict refuses 60 and grants 5 (45 left)."""
    t = allocation_table(100, 60, asks=(50, 60, 5))
    assert t["granted"].tolist() == [True, True, False, True, False, True]
    assert t["available after"].tolist() == [50, -10, -10, 50, 50, 45]
    assert t["out of memory"].tolist() == [False, True, True, False, False, False]


def test_the_skewed_sizes_put_the_heavy_records_on_one_threads_tasks():
    """Task k runs on thread k % threads and owns partitions k * topics ..: with 2 threads and
    2 topics, thread 0 owns partitions 0, 1, 4, 5; a thread out of range is refused."""
    assert skewed_value_bytes(SMALL_STREAMS, thread=0, heavy_bytes=9, light_bytes=1) == \
        [9, 9, 1, 1, 9, 9, 1, 1]
    with pytest.raises(ValueError, match=r"thread must be in \[0, 2\): 2"):
        skewed_value_bytes(SMALL_STREAMS, thread=2)


def test_the_streams_tables_reduce_the_curves_of_each_run(spark):
    """The policy table shows each run's peak and its policy's bound as the curves have them;
    the fairness table counts every processed record; the sweep's peaks are the runs' peaks."""
    runs = {"records": replace(SMALL_STREAMS, policy="records_per_partition"),
            "merged": replace(SMALL_STREAMS, policy="thread_bytes_as_merged")}
    curves = policy_curves(spark, runs)
    table = policies_table(curves)
    assert list(table.index) == ["records", "merged"]
    assert table.loc["records", "peak buffered (MiB)"] == curves["records"].peak_bytes / MiB
    assert table.loc["records", "its bound (MiB)"] == curves["records"].records_bound_bytes / MiB
    assert table.loc["merged", "its bound (MiB)"] == curves["merged"].bytes_bound_bytes / MiB
    values = skewed_value_bytes(SMALL_STREAMS, heavy_bytes=5000, light_bytes=200)
    fair = thread_fairness_table(spark, SMALL_STREAMS, ("thread_bytes",), values)
    assert fair["policy"].tolist() == ["thread_bytes"]
    assert len(fair["records processed by thread 0..1"].iloc[0]) == 2
    sweep = record_size_sweep(spark, SMALL_STREAMS, ("records_per_partition",), (100, 1000))
    assert sweep["value_bytes"].tolist() == [100, 1000]
    assert (sweep["peak (MiB)"] == sweep["peak_bytes"] / MiB).all()


def test_the_broker_tables_reduce_the_curves_of_each_run(spark):
    """Bounds: the pool's outstanding bound (20 + 10 MiB - 1 byte), or one request per connection
    without a pool; the overshoot table keeps queued.max.request.bytes; the waits table has one
    row per run."""
    curves = pool_curves(spark, {"pool": SMALL_BROKER,
                                 "none": replace(SMALL_BROKER, queued_max_request_bytes=-1)})
    table = pools_table(curves)
    assert table.loc["pool", "bound (MiB)"] == (30 * MiB - 1) / MiB
    assert table.loc["none", "bound (MiB)"] == curves["none"].per_connection_bound_bytes / MiB
    over = overshoot_table(spark, SMALL_BROKER, large_request_mib=(1, 4))
    assert over["queued.max.request.bytes (MiB)"].tolist() == [20.0, 20.0]
    assert waits_table(curves, edge=3)["run"].tolist() == ["pool", "none"]
