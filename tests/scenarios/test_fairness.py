"""Jain's index and max-min fair shares (kipviz.scenarios.fairness), the one numpy definition, and
every Spark SQL text that computes them (consumer partitions, Streams threads, share consumers,
broker connections) checked against it on random inputs."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings

from kipviz.curves.broker import wait_fairness
from kipviz.curves.consumer import fair_shares, fairness
from kipviz.curves.share_group import share_group_curves, window_ms_of
from kipviz.curves.sql import to_spark
from kipviz.curves.streams import thread_fairness
from kipviz.scenarios.fairness import (
    fair_share_ratios,
    jain_by_window,
    jain_index,
    max_min_fair_shares,
    share_consumer_jain,
    thread_demand,
)
from kipviz.scenarios.streams.scenario import THREADS
from tests.curves.test_broker_curves import requests_table
from tests.curves.test_curves import windows_table
from tests.frames import assert_frames_close
from tests.strategies import (
    broker_requests,
    consumer_ticks,
    curve_windows,
    examples,
    fractions,
    thread_ticks,
    thread_window_ms,
    wait_ends_ms,
    wait_ticks_ms,
    window_batches,
    window_demands,
)

# ----------------------------------------------------------------------------- numpy


def test_jain_is_one_when_all_are_alike_one_nth_when_one_has_all_and_nan_with_nothing():
    """J = (sum x)^2 / (n sum x^2): 4 alike give 1, one of 4 with everything 1/4, 6 and 2 give
    64 / 80; no value, or only zeros, leave nothing to rate (NaN, as SQL's NULLIF)."""
    assert jain_index([3, 3, 3, 3]) == 1.0
    assert jain_index([5, 0, 0, 0]) == 0.25
    assert jain_index(np.array([6.0, 2.0])) == pytest.approx(0.8)
    assert math.isnan(jain_index([])) and math.isnan(jain_index([0, 0]))


@given(window_demands, fractions)
def test_water_filling_shares_the_delivered_total_max_min_fairly(ds, fraction):
    """Shares never exceed demands, add up to the delivered total, and whoever gets less than
    it asked for gets the largest share (nobody could gain without taking from a smaller one):
    the properties that define max-min fairness."""
    total = fraction * sum(ds)
    shares = max_min_fair_shares(ds, total)
    d = np.asarray(ds, dtype=float)
    assert np.all(shares <= d + 1e-9)
    assert shares.sum() == pytest.approx(total, rel=1e-9, abs=1e-9)
    short = shares < d - 1e-9
    if short.any():
        assert np.allclose(shares[short], shares.max(), rtol=1e-9)


def test_the_worked_example_gives_jain_0_6914():
    """Demands 10, 10, 1 and deliveries 10, 1, 1: C = 12 pours to a level of 5.5, shares are
    5.5, 5.5, 1, so x = 20/11, 2/11, 1 and J ~ 0.6914; nothing delivered is everyone's fair
    share of nothing (x = 1)."""
    assert fair_share_ratios([10, 10, 1], [10, 1, 1]).tolist() == pytest.approx(
        [10 / 5.5, 1 / 5.5, 1.0])
    assert jain_index(fair_share_ratios([10, 10, 1], [10, 1, 1])) == pytest.approx(0.6914,
                                                                                   abs=1e-4)
    assert fair_share_ratios([50, 70], [0, 0]).tolist() == [1.0, 1.0]


def test_share_consumers_are_rated_per_window_and_an_idle_window_has_no_index():
    """Two share consumers process 4 and 4, then 6 and 2 (J = 0.8), then nothing (NaN); the
    classic group's rows are left out."""
    consumers = pd.DataFrame({"time_ms": [0, 0, 20, 20, 40, 40, 0], "consumer": [0, 1] * 3 + [0],
                              "group": ["share"] * 6 + ["classic"],
                              "processed": [4, 4, 6, 2, 0, 0, 9]})
    got = share_consumer_jain(consumers, 20)
    assert got[:2].tolist() == pytest.approx([1.0, 0.8]) and math.isnan(got[2])


# ----------------------------------------------------------------------------- Spark SQL


@settings(max_examples=examples(0.16))  # each example is one Spark job over a batch of windows
@given(window_batches())
def test_the_consumers_sql_water_filling_and_jain_are_the_numpy_ones(spark, rows):
    """Per-partition shares and per-window Jain indexes from Spark (kipviz.curves.consumer.sql)
    equal kipviz.scenarios.fairness's on a batch of random windows."""
    table = windows_table(rows)
    df = to_spark(spark, table)
    expected = []
    for _, group in table.groupby("window"):
        group = group[group["demand_bytes"] > 0]
        d, x = group["demand_bytes"], group["delivered_bytes"]
        expected.append(group[["window", "partition", "demand_bytes", "delivered_bytes"]].assign(
            fair_share_bytes=max_min_fair_shares(d, x.sum()), x=fair_share_ratios(d, x)))
    assert_frames_close(fair_shares(df).toPandas(), pd.concat(expected),
                        by=["window", "partition"])
    got = fairness(df).toPandas().sort_values("window")
    np.testing.assert_allclose(got["jain_index"], jain_by_window(table), rtol=1e-9)


@settings(max_examples=examples(0.1))
@given(thread_ticks(), thread_window_ms)
def test_the_streams_sql_jain_across_threads_is_the_numpy_one(spark, rows, window_ms):
    """thread_fairness (the consumer's water-filling over threads) equals jain_by_window of
    thread_demand, window for window."""
    columns = ["time_ms", "thread", "threads", "demand_records", "processed_records"]
    threads = pd.DataFrame([{c: 0 for c in THREADS} | dict(zip(columns, r, strict=True))
                            for r in rows]).astype(THREADS)
    got = thread_fairness(to_spark(spark, threads), window_ms).toPandas().sort_values("window")
    np.testing.assert_allclose(got["jain_index"], jain_by_window(thread_demand(threads,
                                                                               window_ms)),
                               rtol=1e-9)


@settings(max_examples=examples(0.1))
@given(consumer_ticks(), curve_windows)
def test_the_share_group_sql_jain_across_consumers_is_the_numpy_one(spark, table, windows):
    """share_group_curves' fairness of the share group equals share_consumer_jain (NaN in a
    window where no share consumer processed a record)."""
    rows, ticks = table
    t, g, c, processed = zip(*rows, strict=True)
    consumers = pd.DataFrame({"time_ms": np.array(t, np.int64), "group": list(g),
                              "consumer": np.array(c, np.int32),
                              "held_bytes": np.zeros(len(t), np.int64),
                              "processed": np.array(processed, np.int64)})
    one = np.zeros(1, np.int64)
    trace = SimpleNamespace(
        consumers=consumers, meta={"tick_ms": 10, "ticks": ticks},
        partitions=pd.DataFrame({"time_ms": one, "partition": one.astype(np.int32),
                                 "log_end_offset": one, "start_offset": one,
                                 "in_flight_records": one, "archived_records": one}),
        deliveries=pd.DataFrame({"time_ms": one, "acquired": one, "redelivered": one,
                                 "acknowledged": one}))
    got = share_group_curves(spark, trace, windows=windows).of("share")
    np.testing.assert_allclose(
        got["jain_index"], share_consumer_jain(consumers, window_ms_of(trace.meta, windows)),
        rtol=1e-9)


@settings(max_examples=examples(0.1))
@given(broker_requests, wait_ticks_ms, wait_ends_ms)
def test_the_brokers_sql_jain_over_waits_is_the_numpy_one(spark, rows, tick_ms, end_ms):
    """wait_fairness equals jain_index over the connections' 1 / (mean wait + tick_ms), unread
    requests left out or counted as waiting until ``end_ms``."""
    table = requests_table([(c, s, a, r if r < 0 else a + r) for c, s, a, r in rows])
    ends = np.maximum((end_ms if end_ms is not None else 0) - table["arrival_ms"], 0)
    wait = np.where(table["read_ms"] >= 0, table["read_ms"] - table["arrival_ms"],
                    np.nan if end_ms is None else ends)
    mean = pd.Series(wait, dtype=float).groupby(table["connection"]).mean().dropna()
    got = wait_fairness(to_spark(spark, table), tick_ms=tick_ms, end_ms=end_ms).toPandas()
    assert got["fair_connections"].tolist() == [len(mean)]
    np.testing.assert_allclose(got["jain_index"], [jain_index(1.0 / (mean + tick_ms))],
                               rtol=1e-9)
