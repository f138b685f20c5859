"""Spark curves and figures of the KIP-770 Streams input buffer, with worked numbers."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from kipviz.curves.sql import to_spark
from kipviz.curves.streams import (
    INSTANCE_MEMORY,
    PARTITION_MEMORY,
    THREAD_FAIRNESS,
    THREAD_MEMORY,
    bound_sweep,
    instance_memory_curve,
    partition_memory,
    streams_curves,
    thread_fairness,
    thread_memory_curve,
)
from kipviz.plots.streams import (
    MAX_THREADS,
    STREAMS_TRACES,
    bound_sweep_figure,
    compare_policies_figure,
    streams_figure,
)
from kipviz.scenarios.streams.scenario import THREADS, TICKS, simulate
from kipviz.widgets.streams import STREAMS_LESSON_SCENARIO
from tests.frames import assert_curves_match, assert_frames_close

pytestmark = pytest.mark.spark

# Two threads, four 10 ms ticks, windows of 20 ms. Per (thread, tick): after-poll bytes, end
# bytes, processed records, demand records, paused partitions, lag records. Share 100.
ROWS = {
    0: [(150, 90, 10, 10, 2, 5), (120, 100, 10, 10, 2, 0), (80, 60, 5, 5, 0, 0),
        (60, 0, 5, 5, 0, 0)],
    1: [(50, 40, 0, 10, 1, 7), (40, 40, 0, 10, 1, 7), (40, 40, 0, 10, 1, 7),
        (40, 40, 0, 10, 1, 7)],
}


def threads_table() -> pd.DataFrame:
    rows = []
    for thread, ticks in ROWS.items():
        for t, (after, end, done, demand, paused, lag) in enumerate(ticks):
            rows.append({"time_ms": 10 * t, "thread": thread, "threads": 2, "share_bytes": 100,
                         "polled_bytes": 0, "buffered_bytes_after_poll": after,
                         "buffered_bytes": end, "buffered_records": end // 10,
                         "processed_records": done, "processed_bytes": 10 * done,
                         "demand_records": demand, "partitions": 2, "paused_partitions": paused,
                         "paused_after_poll": paused, "nonempty_after_poll": paused,
                         "lag_records": lag})
    return pd.DataFrame(rows).astype(THREADS)


def ticks_table() -> pd.DataFrame:
    th = threads_table()
    sums = th.groupby("time_ms", as_index=False)[list(TICKS)[2:]].sum()
    return sums.assign(threads=2)[list(TICKS)].astype(TICKS)


def test_thread_memory_is_summarised_per_window_and_thread(spark):
    """Thread 0, window 0: peak 150, mean (90 + 100) / 2 = 95, both ticks over the share of
    100, 20 records. Thread 1 processes nothing with records waiting: stalled in both windows."""
    got = thread_memory_curve(to_spark(spark, threads_table()), 20).toPandas()
    assert_frames_close(got, pd.DataFrame({
        "window": [0, 0, 1, 1], "thread": [0, 1, 0, 1], "window_start_ms": [0, 0, 20, 20],
        "buffered_max_bytes": [150, 50, 80, 40], "buffered_mean_bytes": [95.0, 40.0, 30.0, 40.0],
        "share_bytes": [100] * 4, "over_share_ticks": [2, 0, 0, 0], "paused_max": [2, 1, 0, 1],
        "processed_records": [20, 0, 10, 0], "stalled": [False, True, False, True],
    }), by=["window", "thread"])


def test_instance_memory_sums_the_threads_per_tick(spark):
    """Window 0: after-poll sums 200 and 160 (peak 200), end sums 130 and 140 (mean 135), 3
    paused at most, 20 records in 20 ms = 1000/s, 200 bytes = 10000 B/s; window 1: 120, 90, 1,
    10 records = 500/s; lag at its last tick 7; no tick with nothing processed."""
    got = instance_memory_curve(to_spark(spark, ticks_table()), 20, tick_ms=10).toPandas()
    assert_frames_close(got, pd.DataFrame({
        "window": [0, 1], "window_start_ms": [0, 20], "ticks": [2, 2],
        "buffered_max_bytes": [200, 120], "buffered_mean_bytes": [135.0, 70.0],
        "threads_max": [2, 2], "paused_max": [3, 1], "paused_mean": [3.0, 1.0],
        "processed_records_per_s": [1000.0, 500.0], "processed_bytes_per_s": [10000.0, 5000.0],
        "stalled_ticks": [0, 0], "lag_end_records": [7, 7],
    }), by=["window"])


def test_fairness_across_threads_is_jain_over_max_min_fair_shares(spark):
    """Window 0: demands 20 and 20, 20 processed in all, so each thread's fair share is 10;
    thread 0 did 20 (x = 2), thread 1 nothing (x = 0): J = 4 / (2 * 4) = 0.5, one starved.
    Window 1: demands 10 and 20, 10 processed: shares 5 and 5, x = 2 and 0 again."""
    got = thread_fairness(to_spark(spark, threads_table()), 20).toPandas()
    assert_frames_close(got, pd.DataFrame({
        "window": [0, 1], "window_start_ms": [0, 20], "threads_with_work": [2, 2],
        "processed_records": [20, 10], "demand_records": [40, 30], "starved_threads": [1, 1],
        "jain_index": [0.5, 0.5],
    }), by=["window"])
    even = threads_table().assign(processed_records=5, demand_records=5)
    assert thread_fairness(to_spark(spark, even), 20).toPandas()["jain_index"].tolist() \
        == [1.0, 1.0]


def test_partition_memory_names_the_partitions_that_hold_the_bytes(spark):
    """Partition 1 (1000-byte records) held 3000 bytes at most and was paused half the time;
    partition 0 (10-byte records) held 50 bytes; its lag at the last tick is 4."""
    pa = pd.DataFrame({
        "time_ms": [0, 0, 10, 10], "partition": [0, 1, 0, 1], "task": [0, 0, 0, 0],
        "topic": [0, 1, 0, 1], "buffered_records": [5, 3, 0, 1],
        "buffered_bytes": [50, 3000, 0, 1000], "lag_records": [9, 2, 4, 2],
        "paused": [False, True, False, False], "processed_records": [0, 0, 5, 2],
    }).astype({"partition": "int32", "task": "int32", "topic": "int32"})
    got = partition_memory(to_spark(spark, pa)).toPandas()
    assert_frames_close(got, pd.DataFrame({
        "partition": [0, 1], "task": [0, 0], "topic": [0, 1], "record_bytes": [10, 1000],
        "buffered_max_bytes": [50, 3000], "buffered_max_records": [5, 3],
        "paused_share": [0.0, 0.5], "processed_records": [5, 2], "lag_end_records": [4, 2],
    }), by=["partition"])


@pytest.fixture(scope="module")
def lesson_trace():
    return simulate(replace(STREAMS_LESSON_SCENARIO, ticks=300, thread_changes=((1500, 3),)))


def test_streams_curves_match_the_separate_curves_and_their_schemas(spark, lesson_trace):
    """The one-job path returns the tables of the separate functions, sorted and typed by the
    module's schemas, and the bounds of the trace's meta."""
    trace = lesson_trace
    got = streams_curves(spark, trace, windows=30)
    window_ms = 10 * 10
    th, ticks = to_spark(spark, trace.threads), to_spark(spark, trace.ticks)
    assert_curves_match(got, {
        "instance_memory": (instance_memory_curve(ticks, window_ms, tick_ms=10), INSTANCE_MEMORY),
        "fairness": (thread_fairness(th, window_ms), THREAD_FAIRNESS),
        "partitions": (partition_memory(to_spark(spark, trace.partitions)), PARTITION_MEMORY),
    })
    assert got.thread_memory.dtypes.astype(str).to_dict() == THREAD_MEMORY
    assert_frames_close(got.thread_memory,
                        thread_memory_curve(th, window_ms).toPandas()[list(THREAD_MEMORY)],
                        by=["window", "thread"])
    assert got.bytes_bound_bytes == trace.meta["bytes_bound_bytes"]
    assert got.peak_bytes == trace.ticks.buffered_bytes_after_poll.max()
    assert got.thread_memory.groupby("window").thread.count().tolist()[-1] == 3
    assert not got.stalled


def test_the_merged_code_shows_as_stalled_threads(spark):
    """Under thread_bytes_as_merged the lesson instance ends with threads stalled."""
    trace = simulate(replace(STREAMS_LESSON_SCENARIO, policy="thread_bytes_as_merged"))
    c = streams_curves(spark, trace)
    assert c.stalled and c.stalled_threads >= 1
    assert c.instance_memory["processed_records_per_s"].iloc[-1] \
        < 0.5 * c.instance_memory["processed_records_per_s"].iloc[0]


def test_the_record_bound_grows_with_record_size_and_the_byte_bound_does_not(spark):
    """Ten times bigger records: buffered.records.per.partition lets the instance hold several
    times more; KIP-770's peak stays under its bound."""
    s = replace(STREAMS_LESSON_SCENARIO, ticks=150, record_size_spread=1.0)
    traces = {(p, v): simulate(replace(s, policy=p, value_bytes=v))
              for p in ("records_per_partition", "thread_bytes") for v in (100, 1000, 10_000)}
    table = bound_sweep(spark, traces)
    assert table[["policy", "value_bytes"]].values.tolist() == [
        ["records_per_partition", 100], ["records_per_partition", 1000],
        ["records_per_partition", 10_000], ["thread_bytes", 100], ["thread_bytes", 1000],
        ["thread_bytes", 10_000]]
    rec = table[table.policy == "records_per_partition"]
    assert rec.peak_bytes.iloc[2] > 3 * rec.peak_bytes.iloc[0]
    assert (rec.peak_bytes <= rec.records_bound_bytes).all()
    kip = table[table.policy == "thread_bytes"]
    assert (kip.peak_bytes <= kip.bytes_bound_bytes).all()
    assert kip.peak_bytes.max() < 2 * kip.peak_bytes.min()
    fig = bound_sweep_figure(table)
    assert len(fig.data) == 4 and fig.layout.xaxis.type == "log"
    with pytest.raises(ValueError, match="at least one trace"):
        bound_sweep(spark, {})


def test_the_figure_keeps_its_traces_and_redraws_in_place(spark, lesson_trace):
    """One trace per spec; a thread that does not exist has an empty line; update swaps data."""
    c = streams_curves(spark, lesson_trace, windows=30)
    fig = streams_figure(c, title="t")
    assert [t.name for t in fig.data] == [spec[2] for spec in STREAMS_TRACES]
    assert len(fig.data[0].y) == 30 and len(fig.data[MAX_THREADS - 1].y) == 0
    assert list(fig.data[MAX_THREADS + 2].y) == [32.0, 32.0]  # input.buffer.max.bytes, MiB
    both = compare_policies_figure({"a": c, "b": c})
    assert len(both.data) == 6
    assert np.isfinite(np.asarray(fig.data[-1].x, dtype=float)).all()


def test_bad_arguments_are_named(spark, lesson_trace):
    """Missing meta, columns or windows are ValueErrors that say what is missing."""
    from types import SimpleNamespace

    t = lesson_trace
    with pytest.raises(ValueError, match=r"^windows must be an integer >= 1: 0"):
        streams_curves(spark, t, windows=0)
    with pytest.raises(ValueError, match=r"trace\.meta is missing 'policy'"):
        streams_curves(spark, SimpleNamespace(threads=t.threads, partitions=t.partitions,
                                              ticks=t.ticks,
                                              meta={k: v for k, v in t.meta.items()
                                                    if k != "policy"}))
    with pytest.raises(ValueError, match="threads table is missing column 'share_bytes'"):
        thread_memory_curve(to_spark(spark, t.threads.drop(columns="share_bytes")), 10)
