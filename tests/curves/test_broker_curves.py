"""Spark curves and figures of the KIP-72 broker memory pool, with worked numbers."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Sequence
from dataclasses import replace
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from kipviz.curves import broker as bc
from kipviz.curves.broker import (
    broker_curves,
    large_request_starvation,
    pool_memory_curve,
    request_waits,
    wait_fairness,
    wait_summary,
)
from kipviz.curves.sql import to_spark
from kipviz.plots.broker import (
    BROKER_TRACES,
    broker_figure,
    compare_pools_figure,
    update_broker_figure,
)
from kipviz.scenarios.broker.scenario import BrokerScenario, request_wait_ms, simulate
from kipviz.scenarios.fairness import jain_index
from tests.frames import assert_curves_match, assert_frames_close

NaN = float("nan")


def ticks_table(rows: Sequence[tuple[int, int, int, int, int]], tick_ms: int = 10) -> pd.DataFrame:
    """A ``ticks`` trace table from (used, available, in_queue, muted, bytes_read) per tick."""
    used, avail, queue, muted, read = (np.asarray(c) for c in zip(*rows, strict=True))
    return pd.DataFrame({
        "time_ms": np.arange(len(rows), dtype=np.int64) * tick_ms,
        "pool_used_bytes": used.astype(np.int64), "pool_available_bytes": avail.astype(np.int64),
        "requests_in_queue": queue.astype(np.int32), "muted_for_memory": muted.astype(np.int32),
        "bytes_read": read.astype(np.int64), "shuffled": np.zeros(len(rows), dtype=bool),
    })


def requests_table(rows: Sequence[tuple[int, int, int, int]]) -> pd.DataFrame:
    """A ``requests`` trace table from (connection, size_bytes, arrival_ms, read_ms) tuples."""
    conn, size, arrival, read = (np.asarray(c) for c in zip(*rows, strict=True))
    return pd.DataFrame({
        "connection": conn.astype(np.int32), "request_id": np.arange(len(rows), dtype=np.int64),
        "size_bytes": size.astype(np.int64), "arrival_ms": arrival.astype(np.int64),
        "read_ms": read.astype(np.int64),
        "done_ms": np.where(read >= 0, read + 10, -1).astype(np.int64),
    })


# Worked ticks (tick 10 ms, windows of 20 ms): used, available, in queue, muted, bytes read.
TICKS = [(100, 50, 1, 0, 100), (160, -10, 2, 3, 60), (150, 0, 0, 1, 0), (40, 110, 1, 0, 40)]
# Worked requests: connection 0 waits 0, 20, 40; connection 1 waits 10 and has one unread;
# connection 2 never gets its request read.
REQUESTS = [(0, 10, 0, 0), (0, 10, 0, 20), (0, 100, 10, 50), (1, 10, 0, 10), (1, 100, 20, -1),
            (2, 100, 30, -1)]




# ----------------------------------------------------------------------------- worked curves


def test_pool_memory_curve_summarises_each_window(spark):
    """Window 0 = ticks 0-1: peak 160, mean 130, lowest available -10, one tick out of memory
    (available <= 0), 3 muted, 2 queued, 160 B read in 20 ms = 8000 B/s. Window 1: 150, 95, 0
    (available 0 is out of memory too), 1, 1, 40 B / 20 ms = 2000 B/s."""
    got = pool_memory_curve(to_spark(spark, ticks_table(TICKS)), 20, tick_ms=10).toPandas()
    assert_frames_close(got, pd.DataFrame({
        "window": [0, 1], "window_start_ms": [0, 20], "ticks": [2, 2],
        "pool_used_max_bytes": [160, 150], "pool_used_mean_bytes": [130.0, 95.0],
        "pool_available_min_bytes": [-10, 0], "depleted_ticks": [1, 1],
        "depleted_share": [0.5, 0.5], "muted_max": [3, 1], "queue_max": [2, 1],
        "bytes_read_per_s": [8000.0, 2000.0],
    }), by=["window"])


def test_request_waits_per_connection_and_overall(spark):
    """Connection 0 waits 0, 20, 40: p50 20, p99 = 20 + 0.98 * 20 = 39.6 (numpy's linear
    interpolation). Overall waits 0, 10, 20, 40: p50 15, p99 = 20 + 0.97 * 20 = 39.4. Unread
    requests are counted, not waited on; a connection with nothing read has NaN waits."""
    df = to_spark(spark, requests_table(REQUESTS))
    assert_frames_close(request_waits(df).toPandas(), pd.DataFrame({
        "connection": [0, 1, 2], "requests": [3, 2, 1], "read_requests": [3, 1, 0],
        "unread_requests": [0, 1, 1], "read_bytes": [120, 10, 0],
        "wait_p50_ms": [20.0, 10.0, NaN], "wait_p99_ms": [39.6, 10.0, NaN],
        "wait_max_ms": [40.0, 10.0, NaN], "wait_mean_ms": [20.0, 10.0, NaN],
    }), by=["connection"])
    assert np.percentile([0, 20, 40], 99) == pytest.approx(39.6)
    assert_frames_close(wait_summary(df).toPandas(), pd.DataFrame({
        "connections": [3], "requests": [6], "read_requests": [4], "unread_requests": [2],
        "read_bytes": [130], "wait_p50_ms": [15.0], "wait_p99_ms": [39.4],
        "wait_max_ms": [40.0], "wait_mean_ms": [17.5],
    }), by=["connections"])


def test_large_requests_are_compared_with_small_ones(spark):
    """At large_bytes = 100 the three 10 B requests waited 0, 10, 20 and of the three 100 B
    ones only one was read, after 40 ms."""
    got = large_request_starvation(to_spark(spark, requests_table(REQUESTS)), 100).toPandas()
    assert_frames_close(got, pd.DataFrame({
        "large": [False, True], "requests": [3, 3], "read_requests": [3, 1],
        "unread_requests": [0, 2], "read_bytes": [30, 100], "wait_p50_ms": [10.0, 40.0],
        "wait_p99_ms": [19.8, 40.0], "wait_max_ms": [20.0, 40.0], "wait_mean_ms": [10.0, 40.0],
    }), by=["large"])


def test_wait_fairness_is_jain_over_inverse_mean_waits(spark):
    """Read requests only: x = 1/(20 + 10), 1/(10 + 10), J = (1/30 + 1/20)^2 / (2 (1/900 +
    1/400)) = 25/26; connection 2 has no wait and is left out. Counting unread requests as
    waiting until 60 ms: connection 1 waits (10 + 40) / 2 = 25, connection 2 waits 30."""
    df = to_spark(spark, requests_table(REQUESTS))
    got = wait_fairness(df, tick_ms=10).toPandas()
    assert got["fair_connections"].tolist() == [2]
    assert got["jain_index"].iloc[0] == pytest.approx(25 / 26, rel=1e-12)
    censored = wait_fairness(df, tick_ms=10, end_ms=60).toPandas()
    assert censored["fair_connections"].tolist() == [3]
    assert censored["jain_index"].iloc[0] == pytest.approx(jain_index([1 / 30, 1 / 35, 1 / 40]))
    equal = requests_table([(c, 10, 0, 30) for c in range(4)])
    assert wait_fairness(to_spark(spark, equal)).toPandas()["jain_index"].iloc[0] == 1.0


# ----------------------------------------------------------------------------- slider path

META = {"tick_ms": 10, "ticks": 4, "queued_max_request_bytes": 150,
        "socket_request_max_bytes": 100, "outstanding_bound_bytes": 249,
        "per_connection_bound_bytes": 300}


def test_broker_curves_match_the_separate_curves_and_their_schemas(spark):
    """The one-job path returns the tables of the separate functions, sorted, typed by the
    module's schemas, and the settings and bounds of the trace's meta."""
    trace = SimpleNamespace(ticks=ticks_table(TICKS), requests=requests_table(REQUESTS),
                            meta=META)
    got = broker_curves(spark, trace, windows=2, large_bytes=100)
    ticks, requests = to_spark(spark, trace.ticks), to_spark(spark, trace.requests)
    expected = {
        "memory": (pool_memory_curve(ticks, 20, tick_ms=10), bc.POOL_MEMORY),
        "waits": (request_waits(requests), bc.REQUEST_WAITS),
        "wait_summary": (wait_summary(requests), bc.WAIT_SUMMARY),
        "large_vs_small": (large_request_starvation(requests, 100), bc.LARGE_STARVATION),
    }
    assert_curves_match(got, expected)
    # unread requests wait until the run's end, 4 ticks = 40 ms: 1 / (15 + 10), 1 / (10 + 10)
    assert got.wait_jain_index == pytest.approx(jain_index([1 / 30, 1 / 25, 1 / 20]))
    assert (got.queued_max_request_bytes, got.nonstrict_bound_bytes) == (150, 249)
    assert (got.outstanding_bound_bytes, got.per_connection_bound_bytes) == (249, 300)
    assert got.depleted_share == pytest.approx(0.5)


SCENARIO = BrokerScenario(
    connections=12, ticks=300, queued_max_request_bytes=2 * 1024 * 1024,
    socket_request_max_bytes=1024 * 1024, small_request_bytes=16 * 1024,
    large_request_bytes=512 * 1024, large_share=0.3, spike_start_ms=500, spike_duration_ms=1000,
    requests_per_s_per_connection=50.0, handler_bytes_per_s=20e6, num_io_threads=2,
)


@pytest.fixture(scope="module")
def simulated(spark):
    """No pool, non-strict and strict runs of the same spike, through broker_curves."""
    runs = {"no pool": replace(SCENARIO, queued_max_request_bytes=-1),
            "non-strict": SCENARIO, "strict": replace(SCENARIO, strict=True)}
    traces = {label: simulate(s, seed=7) for label, s in runs.items()}
    curves = {label: broker_curves(spark, t, windows=30, large_bytes=512 * 1024)
              for label, t in traces.items()}
    return traces, curves


def test_simulated_runs_keep_the_pool_invariants(simulated):
    """A pool's peak stays under its outstanding bound (strict: the pool size); depleted
    shares are shares; every request is counted once, read or unread, as in the trace."""
    traces, curves = simulated
    for label, c in curves.items():
        trace = traces[label]
        assert len(c.memory) == 30, label
        assert c.memory["depleted_share"].between(0, 1).all(), label
        assert 0 <= c.depleted_share <= 1, label
        assert c.memory["pool_used_max_bytes"].max() == trace.ticks["pool_used_bytes"].max()
        if c.has_pool:
            assert c.memory["pool_used_max_bytes"].max() <= c.outstanding_bound_bytes, label
        else:
            assert c.outstanding_bound_bytes is None and c.depleted_share == 0, label
            assert c.memory["pool_used_max_bytes"].max() <= c.per_connection_bound_bytes
            # MemoryPool.NONE's availableMemory is Long.MAX_VALUE, exactly (through a float64
            # column it came back as -2**63)
            assert (c.memory["pool_available_min_bytes"] == 2**63 - 1).all(), label
        waits = request_wait_ms(trace)
        summary = c.wait_summary.iloc[0]
        assert summary["requests"] == len(trace.requests), label
        assert summary["unread_requests"] == int(waits.isna().sum()), label
        assert c.waits["unread_requests"].sum() == summary["unread_requests"], label
        assert c.large_vs_small["requests"].sum() == len(trace.requests), label
        assert summary["wait_p99_ms"] == pytest.approx(np.nanpercentile(waits, 99)), label
        assert 0 < c.wait_jain_index <= 1, label
    assert curves["strict"].outstanding_bound_bytes == SCENARIO.queued_max_request_bytes
    assert curves["non-strict"].nonstrict_bound_bytes == curves["non-strict"] \
        .outstanding_bound_bytes == 3 * 1024 * 1024 - 1


def test_figures_have_fixed_traces_and_update_in_place(simulated):
    """The dashboard figure keeps its traces (same objects) when new curves come in, the
    bound lines are empty without a pool, and the comparison draws each run."""
    _, curves = simulated
    empty = broker_figure()
    assert len(empty.data) == len(BROKER_TRACES) == 7
    fig = broker_figure(curves["non-strict"])
    first = fig.data[0]
    assert fig.data[2].y[0] == pytest.approx((3 * 1024 * 1024 - 1) / 1024**2)
    update_broker_figure(fig, curves["no pool"])
    assert len(fig.data) == 7 and fig.data[0] is first
    assert list(fig.data[0].y) == pytest.approx(
        curves["no pool"].memory["pool_used_max_bytes"] / 1024**2)
    assert len(fig.data[1].y) == len(fig.data[2].y) == 0
    # four traces a run, less the bound line of a run without a pool (nothing bounds it)
    unbounded = sum(c.outstanding_bound_bytes is None for c in curves.values())
    assert len(compare_pools_figure(curves).data) == 4 * len(curves) - unbounded


# ----------------------------------------------------------------------------- validation


def test_a_missing_column_is_named_in_the_error(spark):
    """Curves check their input tables and trace meta, and name what is missing."""
    requests = requests_table(REQUESTS)
    with pytest.raises(ValueError, match="requests table is missing column 'read_ms'"):
        request_waits(to_spark(spark, requests.drop(columns="read_ms")))
    with pytest.raises(ValueError, match="ticks table is missing column 'muted_for_memory'"):
        pool_memory_curve(to_spark(spark, ticks_table(TICKS).drop(columns="muted_for_memory")),
                          20)
    with pytest.raises(ValueError, match="requests table is missing column 'size_bytes'"):
        broker_curves(spark, SimpleNamespace(ticks=ticks_table(TICKS), meta=META,
                                             requests=requests.drop(columns="size_bytes")))
    meta = {k: v for k, v in META.items() if k != "outstanding_bound_bytes"}
    with pytest.raises(ValueError, match=r"trace\.meta is missing 'outstanding_bound_bytes'"):
        broker_curves(spark, SimpleNamespace(ticks=ticks_table(TICKS), requests=requests,
                                             meta=meta))
    with pytest.raises(ValueError, match=r"^window_ms must be a number > 0: 0"):
        pool_memory_curve(to_spark(spark, ticks_table(TICKS)), 0)


def test_importing_the_broker_curves_and_plots_does_not_import_spark():
    """``import kipviz.curves.broker`` and ``kipviz.plots.broker`` stay light."""
    code = "import sys, kipviz.curves.broker, kipviz.plots.broker; print('pyspark' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_the_p99_wait_of_large_or_small_requests_reads_the_starvation_table():
    """wait_p99_ms(large) is the LARGE_STARVATION row's p99; NaN when no such request was made."""
    table = pd.DataFrame({"large": [False, True], "wait_p99_ms": [12.5, 480.0]})
    curves = bc.BrokerCurves(
        memory=pd.DataFrame(), waits=pd.DataFrame(), wait_summary=pd.DataFrame(),
        large_vs_small=table, wait_jain_index=1.0, large_bytes=1, queued_max_request_bytes=-1,
        socket_request_max_bytes=1, outstanding_bound_bytes=None, per_connection_bound_bytes=1)
    assert curves.wait_p99_ms(large=True) == 480.0
    assert curves.wait_p99_ms(large=False) == 12.5
    assert np.isnan(replace(curves, large_vs_small=table.iloc[:1]).wait_p99_ms(large=True))
