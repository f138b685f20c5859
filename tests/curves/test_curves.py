"""Spark curves: fairness by water-filling, starvation streaks, lag and memory."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Sequence
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from kipviz.curves import consumer as curves
from kipviz.curves.consumer import (
    bound_exceedance,
    consumer_curves,
    fair_shares,
    fairness,
    lag_by_partition,
    lag_over_time,
    memory_curve,
    starvation_streaks,
)
from kipviz.curves.sql import to_spark
from tests.frames import assert_curves_match, assert_frames_close

WINDOW_MS = 1000


WINDOWS_DTYPES = {
    "window": "int32", "window_start_ms": "int64", "window_end_ms": "int64",
    "partition": "int32", "demand_bytes": "int64", "delivered_bytes": "int64",
    "lag_end_bytes": "int64", "fetches": "int32", "starved_fetches": "int32",
    "max_starvation_streak": "int32",
}


def windows_table(rows: Sequence[tuple[int, ...]]) -> pd.DataFrame:
    """A ``windows`` trace table (docs/traces.md dtypes) from (window, partition, demand,
    delivered[, lag_end[, max_starvation_streak]]) tuples; lag_end defaults to what is left."""
    full = [(*r[:4], r[4] if len(r) > 4 else r[2] - r[3], r[5] if len(r) > 5 else 0) for r in rows]
    columns = ["window", "partition", "demand_bytes", "delivered_bytes", "lag_end_bytes",
               "max_starvation_streak"]
    table = pd.DataFrame(full, columns=columns)
    table["window_start_ms"] = table["window"] * WINDOW_MS
    table["window_end_ms"] = table["window_start_ms"] + WINDOW_MS
    table["fetches"], table["starved_fetches"] = 1, 0
    return table[list(WINDOWS_DTYPES)].astype(WINDOWS_DTYPES)


def fetches_table(rows: Sequence[tuple[int, int, int, int]]) -> pd.DataFrame:
    """A ``fetches`` trace table from (fetch_id, partition, lag_bytes, complete_bytes) tuples."""
    fetch_id, partition, lag, complete = (np.asarray(c) for c in zip(*rows, strict=True))
    return pd.DataFrame({
        "fetch_id": fetch_id.astype(np.int64), "time_ms": fetch_id.astype(np.int64) * 10,
        "broker": np.zeros(len(rows), dtype=np.int32), "partition": partition.astype(np.int32),
        "position": np.zeros(len(rows), dtype=np.int32), "lag_bytes": lag.astype(np.int64),
        "raw_bytes": complete.astype(np.int64), "complete_batches": (complete > 0).astype(np.int32),
        "complete_bytes": complete.astype(np.int64),
    })


def memory_table(held: Sequence[int], in_flight: Sequence[int], consumed: Sequence[int],
                 tick_ms: int = 10) -> pd.DataFrame:
    """A ``memory`` trace table with one row per tick of ``tick_ms``."""
    return pd.DataFrame({
        "time_ms": np.arange(len(held), dtype=np.int64) * tick_ms,
        "held_bytes": np.asarray(held, dtype=np.int64),
        "in_flight_bytes": np.asarray(in_flight, dtype=np.int64),
        "consumed_bytes": np.asarray(consumed, dtype=np.int64),
    })


# ----------------------------------------------------------------------------- fairness


def test_the_worked_example_gives_jain_0_6914(spark):
    """Demands 10, 10, 1 and deliveries 10, 1, 1: C = 12 pours to a level of 5.5, shares are
    5.5, 5.5, 1, so x = 20/11, 2/11, 1 and J = (sum x)^2 / (3 sum x^2) ~ 0.6914."""
    df = to_spark(spark, windows_table([(0, 0, 10, 10), (0, 1, 10, 1), (0, 2, 1, 1)]))
    x = np.array([10 / 5.5, 1 / 5.5, 1.0])
    expected_j = x.sum() ** 2 / (3 * (x * x).sum())
    assert expected_j == pytest.approx(0.6914, abs=1e-4)

    shares = fair_shares(df).toPandas()
    assert_frames_close(shares, pd.DataFrame({
        "window": [0, 0, 0], "partition": [0, 1, 2], "demand_bytes": [10, 10, 1],
        "delivered_bytes": [10, 1, 1], "fair_share_bytes": [5.5, 5.5, 1.0], "x": x,
    }), by=["partition"])
    assert_frames_close(fairness(df).toPandas(), pd.DataFrame({
        "window": [0], "window_start_ms": [0], "partitions_with_data": [3],
        "delivered_bytes": [12], "demand_bytes": [21], "jain_index": [expected_j],
        "starved_partitions": [0], "max_starvation_streak": [0],
    }), by=["window"])


def test_equal_deliveries_are_perfectly_fair(spark):
    """Every partition getting its equal share, whatever the demand above it, gives J = 1."""
    rows = [(0, p, 1000 + 100 * p, 500) for p in range(4)] + [(1, p, 7, 7) for p in range(3)]
    got = fairness(to_spark(spark, windows_table(rows))).toPandas()
    assert got["jain_index"].tolist() == pytest.approx([1.0, 1.0], rel=1e-12)


def test_windows_without_data_have_no_jain_index_and_empty_deliveries_count_as_fair(spark):
    """No partition with data: jain_index is NaN. Data but nothing delivered: everyone got its
    fair share of nothing, so J = 1, and every partition with data counts as starved.
    Partitions without demand never enter the index."""
    rows = [(0, 0, 0, 0), (0, 1, 0, 0),
            (1, 0, 50, 0), (1, 1, 70, 0), (1, 2, 0, 0),
            (2, 0, 10, 10), (2, 1, 10, 10), (2, 2, 0, 0)]
    got = fairness(to_spark(spark, windows_table(rows))).toPandas().sort_values("window")
    assert np.isnan(got["jain_index"].iloc[0])
    assert got["jain_index"].iloc[1:].tolist() == pytest.approx([1.0, 1.0])
    assert got["partitions_with_data"].tolist() == [0, 2, 2]
    assert got["starved_partitions"].tolist() == [0, 2, 0]


def test_fairness_reports_the_window_starvation_maximum(spark):
    """max_starvation_streak is the longest streak among the window's partitions."""
    rows = [(0, 0, 10, 0, 10, 4), (0, 1, 10, 10, 0, 0), (1, 0, 10, 5, 5, 7)]
    got = fairness(to_spark(spark, windows_table(rows))).toPandas().sort_values("window")
    assert got["max_starvation_streak"].tolist() == [4, 7]
    assert got["starved_partitions"].tolist() == [1, 0]


# ----------------------------------------------------------------------------- streaks


def test_the_longest_starvation_streak_counts_consecutive_starved_fetches(spark):
    """Partition 0 has data in fetches 1-5 and gets bytes only in fetch 4: its longest run is
    fetches 1-3. Partition 1 is starved in fetch 1, has no data in fetch 2 (which ends the
    run) and is starved again in 3 and 4. Rows arrive out of order."""
    rows = [(4, 0, 300, 100), (1, 0, 100, 0), (5, 0, 500, 0), (3, 0, 300, 0), (2, 0, 200, 0),
            (3, 1, 40, 0), (1, 1, 10, 0), (4, 1, 60, 0), (2, 1, 0, 0)]
    got = starvation_streaks(to_spark(spark, fetches_table(rows))).toPandas()
    assert_frames_close(got, pd.DataFrame({
        "partition": [0, 1], "longest_starvation_fetches": [3, 2], "starved_fetches": [4, 3],
        "fetches": [5, 4],
    }), by=["partition"])


# ----------------------------------------------------------------------------- lag


def test_lag_over_time_gives_percentiles_max_and_total_per_window(spark):
    """Percentiles interpolate linearly between partitions, as numpy does."""
    lags = {0: [0, 10, 20, 30, 1000], 1: [5, 5, 5, 5, 5]}
    rows = [(w, p, lag, 0, lag) for w, ls in lags.items() for p, lag in enumerate(ls)]
    got = lag_over_time(to_spark(spark, windows_table(rows))).toPandas()
    assert_frames_close(got, pd.DataFrame({
        "window": [0, 1], "window_start_ms": [0, WINDOW_MS],
        "lag_p50_bytes": [np.percentile(ls, 50) for ls in lags.values()],
        "lag_p99_bytes": [np.percentile(ls, 99) for ls in lags.values()],
        "lag_max_bytes": [1000, 5], "lag_total_bytes": [1060, 25],
    }), by=["window"])


def test_lag_by_partition_takes_the_final_lag_from_the_last_window(spark):
    """Final lag is the lag at the end of the last window, whatever the row order."""
    rows = [(2, 0, 9, 1, 8), (0, 0, 50, 20, 30), (1, 0, 40, 0, 40),
            (1, 1, 5, 5, 0), (0, 1, 7, 2, 5)]
    got = lag_by_partition(to_spark(spark, windows_table(rows))).toPandas()
    assert_frames_close(got, pd.DataFrame({
        "partition": [0, 1], "final_lag_bytes": [8, 0], "max_lag_bytes": [40, 5],
        "delivered_bytes": [21, 7],
    }), by=["partition"])


# ----------------------------------------------------------------------------- memory


def test_memory_curve_summarises_each_window_and_counts_ticks_over_the_bound(spark):
    """Windows of 20 ms over 10 ms ticks: two ticks per window, one in the partial last one;
    the consumed rate is over the ticks present."""
    mem = memory_table(held=[5, 15, 30, 10, 40], in_flight=[1, 0, 5, 30, 0],
                       consumed=[100, 300, 0, 0, 50])
    got = memory_curve(to_spark(spark, mem), 20, tick_ms=10, bound_bytes=12).toPandas()
    assert_frames_close(got, pd.DataFrame({
        "window": [0, 1, 2], "window_start_ms": [0, 20, 40], "ticks": [2, 2, 1],
        "held_max_bytes": [15, 30, 40], "held_mean_bytes": [10.0, 20.0, 40.0],
        "held_in_flight_max_bytes": [15, 40, 40],
        "consumed_bytes_per_s": [400 / 0.02, 0.0, 50 / 0.01], "ticks_above_bound": [1, 1, 1],
    }), by=["window"])
    assert bound_exceedance(to_spark(spark, mem), 12) == pytest.approx(3 / 5)
    assert bound_exceedance(to_spark(spark, mem), 40) == 0.0


def test_an_empty_trace_gives_empty_curves(spark):
    """Empty tables go through Arrow with their schema and give empty curves, not errors."""
    empty = to_spark(spark, windows_table([]))
    assert empty.schema["window"].dataType.simpleString() == "int"
    assert empty.schema["demand_bytes"].dataType.simpleString() == "bigint"
    assert fairness(empty).count() == 0
    assert np.isnan(bound_exceedance(to_spark(spark, memory_table([], [], [])), 1))


# ----------------------------------------------------------------------------- hot path


def small_trace() -> SimpleNamespace:
    rows = [(w, p, 100 * (p + 1), (100 * (p + 1)) // (w + 1), 0, w + p)
            for w in range(3) for p in range(4)]
    mem = memory_table(held=[0, 300, 900, 200, 50, 0], in_flight=[100] * 6,
                       consumed=[0, 100, 200, 300, 0, 0], tick_ms=500)
    meta = {"partitions": 4, "brokers": 1, "tick_ms": 500, "window_ms": WINDOW_MS, "ticks": 6,
            "pre_kip74_bound_bytes": 4000, "kip74_bound_bytes": 250}
    return SimpleNamespace(windows=windows_table(rows), memory=mem, meta=meta)


def test_consumer_curves_match_the_separate_curves_and_their_schemas(spark):
    """The one-job slider path returns the same tables as the separate Spark functions, sorted,
    with the dtypes of the module's schemas, and the bounds from the trace's meta."""
    trace = small_trace()
    got = consumer_curves(spark, trace)
    windows, memory = to_spark(spark, trace.windows), to_spark(spark, trace.memory)
    expected = {
        "fairness": (fairness(windows), curves.FAIRNESS),
        "lag_over_time": (lag_over_time(windows), curves.LAG_OVER_TIME),
        "lag_by_partition": (lag_by_partition(windows), curves.LAG_BY_PARTITION),
        "memory": (memory_curve(memory, WINDOW_MS, tick_ms=500, bound_bytes=250),
                   curves.MEMORY),
    }
    assert_curves_match(got, expected)
    assert (got.pre_kip74_bound_bytes, got.kip74_bound_bytes) == (4000, 250)
    assert got.kip74_exceedance == pytest.approx(2 / 6)


# ----------------------------------------------------------------------------- validation


def test_a_missing_column_is_named_in_the_error(spark):
    """Curves check their input tables and name the missing column."""
    table = windows_table([(0, 0, 10, 10)])
    with pytest.raises(ValueError, match="windows table is missing column 'demand_bytes'"):
        fairness(to_spark(spark, table.drop(columns="demand_bytes")))
    with pytest.raises(ValueError, match="fetches table is missing column 'complete_bytes'"):
        fetches = fetches_table([(1, 0, 10, 0)]).drop(columns="complete_bytes")
        starvation_streaks(to_spark(spark, fetches))
    trace = small_trace()
    with pytest.raises(ValueError, match="memory table is missing column 'held_bytes'"):
        consumer_curves(spark, SimpleNamespace(
            windows=trace.windows, memory=trace.memory.drop(columns="held_bytes"),
            meta=trace.meta))
    meta = {k: v for k, v in trace.meta.items() if k != "kip74_bound_bytes"}
    with pytest.raises(ValueError, match=r"trace\.meta is missing 'kip74_bound_bytes'"):
        consumer_curves(spark, SimpleNamespace(windows=trace.windows, memory=trace.memory,
                                               meta=meta))


def test_bad_windows_and_dtypes_are_rejected(spark):
    """A window length must be positive; a dtype Spark cannot take is named."""
    mem = to_spark(spark, memory_table([1], [0], [0]))
    with pytest.raises(ValueError, match=r"^window_ms must be a number > 0: 0"):
        memory_curve(mem, 0)
    with pytest.raises(ValueError, match="column 'when' has dtype datetime64"):
        to_spark(spark, pd.DataFrame({"when": pd.to_datetime([0])}))


def test_importing_the_curves_does_not_import_spark():
    """``import kipviz.curves`` and ``kipviz.curves.spark`` stay light: pyspark loads on first
    use."""
    code = "import sys, kipviz.curves, kipviz.curves.spark; print('pyspark' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_a_union_part_keeps_64_bit_integers_exact_and_refuses_a_null_integer():
    """part_table reads the collected union as Arrow: 2**63 - 1 on one part's rows stays 2**63 - 1
    although other parts leave that column NULL (as float64 in pandas it became -2**63); a NULL
    where the part's schema wants an integer is a ValueError, not a number; rows come sorted."""
    import pyarrow as pa

    from kipviz.curves.sql import part_table

    got = pa.table({"_part": pa.array([1, 0, 0, 1], pa.int32()),
                    "window": pa.array([None, 1, 0, None], pa.int64()),
                    "avail": pa.array([None, 2**63 - 1, 5, None], pa.int64()),
                    "n": pa.array([7, None, None, 3], pa.int64())})
    part = part_table(got, 0, {"window": "int32", "avail": "int64"})
    assert part["window"].tolist() == [0, 1] and part["avail"].tolist() == [5, 2**63 - 1]
    assert part.dtypes.astype(str).tolist() == ["int32", "int64"]
    with pytest.raises(ValueError, match="'n' has NULLs"):
        part_table(got, 0, {"window": "int32", "n": "int64"})
