"""Spark curves and figures of a KIP-73 throttled reassignment, with worked numbers."""

from __future__ import annotations

import math
import subprocess
import sys
from dataclasses import replace
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from kipviz.curves import reassignment as rc
from kipviz.curves.reassignment import (
    ReassignmentCurves,
    catch_up_curve,
    move_summary,
    reassignment_curves,
    throttle_curve,
)
from kipviz.curves.sql import to_spark
from kipviz.plots.reassignment import (
    REASSIGNMENT_TRACES,
    compare_throttles_figure,
    reassignment_figure,
    update_reassignment_figure,
)
from kipviz.scenarios.reassignment.scenario import simulate
from tests.cases import MB, MIB, ONE
from tests.frames import assert_curves_match, assert_frames_close

# Six partitions of different sizes under produce traffic: they catch up one by one.
MIXED = replace(ONE, sizes=(2 * MB, 9 * MB, 5 * MB, 14 * MB, 1 * MB, 7 * MB), bytes_in_per_s=2 * MB,
                leader_throttle_bytes_per_s=8 * MB, follower_throttle_bytes_per_s=12 * MB,
                ticks=1500, in_sync_followers=0)  # (the KIP's F = 0)
# T = 1 MB/s below IN = 2 MB/s: KIP-73 Q&A 1 says the move never finishes.
BELOW_IN = replace(ONE, partitions=4, log_bytes=5 * MB, bytes_in_per_s=2 * MB,
                   leader_throttle_bytes_per_s=MB, follower_throttle_bytes_per_s=None,
                   tick_ms=100, ticks=600)


# ----------------------------------------------------------------------------- references


def reference_windows(trace, window_ms: int) -> pd.DataFrame:
    """THROTTLE computed with pandas straight from the trace's ticks."""
    t = trace.ticks.sort_values("time_ms")
    g = t.groupby((t["time_ms"] // window_ms).astype("int32"))
    span = g.size() * trace.meta["tick_ms"]
    sent = (t["throttled_bytes"] + t["unthrottled_bytes"]).groupby(g.ngroup().to_numpy()).sum()
    client = g["client_bandwidth_left_bytes_per_s"]
    return pd.DataFrame({
        "window": g.size().index, "window_start_ms": g.size().index.astype("int64") * window_ms,
        "ticks": g.size(),
        "leader_rate_mean_bytes_per_s": g["leader_rate_bytes_per_s"].mean(),
        "leader_rate_max_bytes_per_s": g["leader_rate_bytes_per_s"].max(),
        "follower_rate_mean_bytes_per_s": g["follower_rate_bytes_per_s"].mean(),
        "follower_rate_max_bytes_per_s": g["follower_rate_bytes_per_s"].max(),
        "throttled_bytes": g["throttled_bytes"].sum(),
        "unthrottled_bytes": g["unthrottled_bytes"].sum(),
        "throttled_bytes_per_s": g["throttled_bytes"].sum() * 1000.0 / span,
        "sent_bytes_per_s": sent.to_numpy() * 1000.0 / span,
        "replica_lag_end_bytes": g["replica_lag_bytes"].last(),
        "replica_lag_max_bytes": g["replica_lag_bytes"].max(),
        "moved_end_bytes": g["moved_bytes"].last(),
        "client_left_min_bytes_per_s": client.min(),
        "client_left_mean_bytes_per_s": client.mean(),
    }).reset_index(drop=True)


def reference_catch_up(trace) -> pd.DataFrame:
    """CATCH_UP with numpy: bytes caught up no later than each partition, over (T - IN) and
    over the planned T - (F + 1) x IN."""
    p, meta = trace.partitions, trace.meta
    at, size = p["caught_up_ms"].to_numpy(), p["size_bytes"].to_numpy()
    cum = np.array([size[(at >= 0) & (at <= a)].sum() if a >= 0 else np.nan for a in at])
    def over(headroom):
        return np.where(np.isnan(cum), np.nan,
                        np.where(cum == 0, 0.0, cum / headroom if headroom > 0 else np.inf))

    t, inbound = meta["throttle_bytes_per_s"], meta["bytes_in_per_s"]
    kip = over(t - inbound)
    planned = over(t - (meta["in_sync_followers"] + 1) * inbound)
    return pd.DataFrame({
        "partition": p["partition"], "size_bytes": size, "caught_up_ms": at,
        "caught_up_s": np.where(at >= 0, at / 1000.0, np.nan), "caught_up_bytes": cum,
        "kip_move_time_s": kip, "planned_move_time_s": planned,
    })


def reference_move(trace, quota_window_s: float = 1.0) -> pd.DataFrame:
    """MOVE from the trace's meta (the scenario's own completion, formula and overshoot) and
    its last tick."""
    meta, t, p = trace.meta, trace.ticks, trace.partitions
    quota_bytes = meta["throttle_bytes_per_s"] * quota_window_s
    moving = t.loc[t["replica_lag_bytes"] > 0, "client_bandwidth_left_bytes_per_s"]
    done = meta["completed_ms"]
    return pd.DataFrame({
        "partitions": [len(p)], "caught_up_partitions": [int((p["caught_up_ms"] >= 0).sum())],
        "bytes_to_move": [meta["bytes_to_move"]],
        "completed_s": [math.nan if done is None else done / 1000.0],
        "kip_move_time_s": [meta["kip_move_time_s"]],
        "moved_bytes": [t["moved_bytes"].iloc[-1]],
        "replica_lag_end_bytes": [t["replica_lag_bytes"].iloc[-1]],
        "first_window_throttled_bytes": [meta["first_window_throttled_bytes"]],
        "first_window_quota_bytes": [quota_bytes],
        "first_window_overshoot": [meta["first_window_throttled_bytes"] / quota_bytes],
        "client_left_moving_mean_bytes_per_s": [moving.mean()],
        "client_left_moving_min_bytes_per_s": [moving.min()],
    })


@pytest.fixture(scope="module")
def runs(spark):
    """Traces and slider-path curves of the worked scenarios."""
    scenarios = {"one": ONE, "mixed": MIXED, "below IN": BELOW_IN,
                 "unlimited": replace(ONE, leader_throttle_bytes_per_s=None,
                                      follower_throttle_bytes_per_s=None, ticks=300)}
    traces = {label: simulate(s) for label, s in scenarios.items()}
    curves = {label: reassignment_curves(spark, t) for label, t in traces.items()}
    return traces, curves


# ----------------------------------------------------------------------------- against numpy


@pytest.mark.parametrize("label", ["one", "mixed", "below IN", "unlimited"])
def test_curves_equal_a_pandas_reference_computed_from_the_trace(runs, label):
    """Per 1 s quota window, per partition and for the whole move, the Spark curves are the
    numbers pandas and numpy compute from the trace and its meta (completion, the KIP's
    formula, the first window's throttled bytes)."""
    traces, curves = runs
    trace, c = traces[label], curves[label]
    assert c.window_ms == c.quota_window_ms == 1000
    assert_frames_close(c.windows, reference_windows(trace, 1000), by=["window"])
    assert_frames_close(c.catch_up, reference_catch_up(trace), by=["partition"])
    assert_frames_close(c.move, reference_move(trace), by=["partitions"])
    for table, schema in ((c.windows, rc.THROTTLE), (c.catch_up, rc.CATCH_UP), (c.move, rc.MOVE)):
        assert table.dtypes.astype(str).to_dict() == schema


def test_the_slider_path_matches_the_separate_curves_and_their_schemas(spark, runs):
    """``reassignment_curves`` returns, in one job, the tables of the three DataFrame functions,
    sorted and typed by the module's schemas, and the settings of the trace's meta."""
    traces, curves = runs
    trace, got = traces["mixed"], curves["mixed"]
    ticks, partitions = to_spark(spark, trace.ticks), to_spark(spark, trace.partitions)
    rates = {"throttle_bytes_per_s": 8 * MB, "bytes_in_per_s": 2 * MB}
    assert_curves_match(got, {
        "windows": (throttle_curve(ticks, 1000, tick_ms=10), rc.THROTTLE),
        "catch_up": (catch_up_curve(partitions, **rates), rc.CATCH_UP),
        "move": (move_summary(ticks, partitions, **rates), rc.MOVE),
    })
    assert (got.leader_quota_bytes_per_s, got.follower_quota_bytes_per_s) == (8 * MB, 12 * MB)
    assert (got.throttle_bytes_per_s, got.bytes_in_per_s) == (8 * MB, 2 * MB)
    assert got.planned_client_bytes_per_s == pytest.approx(125 * MB - 2 * MB / 3 - 8 * MB)


def test_long_runs_are_summarised_over_several_quota_windows(spark, runs):
    """With ``windows=4`` a 15 s run is cut into windows of ceil(15 / 4) = 4 quota windows;
    sums over them are the run's totals."""
    trace = runs[0]["mixed"]
    c = reassignment_curves(spark, trace, windows=4)
    assert c.window_ms == 4000 and len(c.windows) == 4
    assert_frames_close(c.windows, reference_windows(trace, 4000), by=["window"])
    assert c.windows["throttled_bytes"].sum() == trace.ticks["throttled_bytes"].sum()
    assert c.windows["ticks"].tolist() == [400, 400, 400, 300]


def test_a_two_second_quota_window_is_measured_as_the_scenario_did(spark):
    """The trace's meta may not record replication.quota.window.size.seconds: passed as
    ``quota_window_s`` (or found as ``meta["window_size_s"]``), the first window's bytes are
    those of the scenario's meta."""
    s = replace(ONE, replication_quota_window_size_seconds=2, ticks=600)
    trace = simulate(s)
    c = reassignment_curves(spark, trace, quota_window_s=2)
    assert c.quota_window_ms == 2000 and c.window_ms == 2000
    assert_frames_close(c.move, reference_move(trace, quota_window_s=2), by=["partitions"])
    recorded = SimpleNamespace(ticks=trace.ticks, partitions=trace.partitions,
                               meta={**trace.meta, "window_size_s": 2})
    assert reassignment_curves(spark, recorded).quota_window_ms == 2000  # read from meta


# ----------------------------------------------------------------------------- worked numbers


def test_ten_mb_per_s_over_eleven_one_second_windows_keeps_the_quota_plus_one_response(runs):
    """T = 10 MB/s, 11 x 1 s windows, 1 MiB responses every 10 ms. Nothing is measured before
    the first responses, so the first second carries ten of them, 10 MiB = 1.048576 x T x 1 s
    (the optimistic overshoot). From then on the leader sends a response only while (bytes so
    far) / elapsed <= T: no window carries more than T x 1 s + one response, the bytes moved by
    the end of second k stay within T x k s + one response, and the measured rates never pass
    T + one response per window. 100 MB take 9.97 s against Q&A 1's 100 MB / 10 MB/s = 10 s."""
    c = runs[1]["one"]
    w = c.windows
    assert c.first_window_overshoot == pytest.approx(MIB * 10 / (10 * MB))
    assert c.move["first_window_throttled_bytes"].iloc[0] == 10 * MIB
    assert (w["throttled_bytes_per_s"] <= 10 * MB + MIB).all()
    elapsed_s = (w["window"] + 1).to_numpy()
    assert (w["moved_end_bytes"] <= 10 * MB * elapsed_s + MIB).all()
    for side in ("leader", "follower"):
        assert w[f"{side}_rate_max_bytes_per_s"].max() <= 10 * MB + MIB
    assert (c.kip_move_time_s, c.completed_s) == (10.0, 9.97)
    assert c.finished and c.catch_up["kip_move_time_s"].tolist() == [10.0]
    lag = w["replica_lag_end_bytes"]
    assert lag.is_monotonic_decreasing and lag.iloc[9] == 0 and lag.iloc[0] == 100 * MB - 10 * MIB


def test_clients_keep_what_replication_leaves_of_the_network(runs):
    """Q&A 4: N - IN/R - sent. With IN = 0 a window's mean is 125 MB/s minus the bytes sent per
    second, a tick carrying a 1 MiB response leaves 125 MB/s - 1 MiB / 10 ms = 20.1424 MB/s, and
    the plan's N - IN/R - T is 115 MB/s."""
    c = runs[1]["one"]
    w = c.windows
    np.testing.assert_allclose(w["client_left_mean_bytes_per_s"], 125 * MB - w["sent_bytes_per_s"],
                               rtol=1e-12)
    assert w["client_left_min_bytes_per_s"].iloc[0] == 125 * MB - MIB * 100
    assert c.planned_client_bytes_per_s == 115 * MB
    assert c.move["client_left_moving_min_bytes_per_s"].iloc[0] == 20_142_400
    assert 115 * MB < c.move["client_left_moving_mean_bytes_per_s"].iloc[0] < 125 * MB


def test_partitions_catch_up_one_by_one_the_small_ones_ahead_of_the_formula(runs):
    """Six partitions (38 MB) under IN = 2 MB/s and T = 8 MB/s: Q&A 1 gives 38 MB / 6 MB/s =
    6.33 s, and the last partition completes the move within 5% of it. The smallest two (1 and
    2 MB) are done within the first 100 ms, far ahead of the formula's 1/6 s and 1/2 s for
    their bytes: the optimistic first responses carry them before the quota is measured."""
    c = runs[1]["mixed"]
    up = c.catch_up.sort_values("caught_up_ms")
    assert c.finished and len(up) == 6 and (up["caught_up_ms"] >= 0).all()
    assert up["caught_up_bytes"].iloc[-1] == 38 * MB
    assert up["kip_move_time_s"].iloc[-1] == c.kip_move_time_s == pytest.approx(38 / 6)
    assert c.completed_s == up["caught_up_s"].iloc[-1] == pytest.approx(38 / 6, rel=0.05)
    assert up["size_bytes"].iloc[:2].tolist() == [MB, 2 * MB]
    assert (up["caught_up_s"].iloc[:2] < 0.1).all()
    assert up["kip_move_time_s"].iloc[:2].tolist() == pytest.approx([1 / 6, 1 / 2])


def test_a_throttle_below_in_never_completes(runs):
    """T = 1 MB/s < IN = 2 MB/s: the formula says never (inf), the run ends with partitions
    still out of sync and SumReplicaLag above zero."""
    c = runs[1]["below IN"]
    assert c.kip_move_time_s == math.inf and not c.finished and math.isnan(c.completed_s)
    move = c.move.iloc[0]
    assert move["caught_up_partitions"] < move["partitions"] == 4
    assert move["replica_lag_end_bytes"] > 0
    caught = c.catch_up[c.catch_up["caught_up_ms"] >= 0]
    assert (caught["kip_move_time_s"] == math.inf).all()
    assert c.catch_up.loc[c.catch_up["caught_up_ms"] < 0, "caught_up_s"].isna().all()


def test_without_a_throttle_nothing_is_over_the_quota(runs):
    """Unlimited rates (Kafka's default): T = inf, the formula gives 0 s, the first window has
    no overshoot and Q&A 4's client line is undefined."""
    c = runs[1]["unlimited"]
    assert c.throttle_bytes_per_s == math.inf and c.kip_move_time_s == 0.0
    assert c.first_window_overshoot == 0.0 and c.planned_client_bytes_per_s is None
    assert c.leader_quota_bytes_per_s is None and c.finished


# ----------------------------------------------------------------------------- figures


def test_the_figure_has_fixed_traces_and_updates_in_place(runs):
    """The dashboard figure keeps its trace objects when new curves come in; quota and client
    lines vanish without a throttle, the completion line when the move never completes."""
    _, curves = runs
    assert len(reassignment_figure().data) == len(REASSIGNMENT_TRACES) == 16
    fig = reassignment_figure(curves["one"])
    first = fig.data[0]
    trace = {t.name: t for t in fig.data}
    assert list(trace["leader.replication.throttled.rate"].y) == [10.0, 10.0]  # MB/s
    assert list(trace["KIP-73 move time (Q&A 1)"].x) == [10.0, 10.0]
    assert list(trace["simulated completion"].x) == [9.97, 9.97]
    update_reassignment_figure(fig, curves["below IN"])
    assert len(fig.data) == 16 and fig.data[0] is first
    assert list(trace["throttled bytes sent per s"].y) == pytest.approx(
        curves["below IN"].windows["throttled_bytes_per_s"] / MB)
    assert list(trace["leader.replication.throttled.rate"].y) == [1.0, 1.0]
    assert len(trace["follower.replication.throttled.rate"].y) == 0  # unlimited
    assert len(trace["simulated completion"].x) == 0
    assert len(trace["KIP-73 formula"].x) == 0  # T <= IN: infinite
    update_reassignment_figure(fig, curves["unlimited"])
    assert len(trace["N - IN/R - T (Q&A 4)"].y) == 0


def test_the_throttle_comparison_shows_move_time_against_client_bandwidth(runs):
    """One bar per run for the simulated and the formula's move time ("never" below IN), the
    client bandwidth left while moving beside Q&A 4's line, and each run's SumReplicaLag."""
    _, curves = runs
    chosen = {k: curves[k] for k in ("one", "mixed", "below IN")}
    fig = compare_throttles_figure(chosen)
    assert len(fig.data) == 5 + len(chosen)
    simulated, planned, formula = fig.data[0], fig.data[1], fig.data[2]
    assert list(simulated.x) == list(chosen)
    assert list(formula.text) == ["10.0 s", "6.3 s", "never"]
    assert list(planned.text) == ["10.0 s", "6.3 s", "never"]  # IN = 0, F = 0, T < IN
    assert list(simulated.text)[2] == "never"
    assert fig.data[4].y[0] == pytest.approx(115.0)


# ----------------------------------------------------------------------------- validation

META = {"tick_ms": 10, "ticks": 2, "leader_throttle_bytes_per_s": 10.0,
        "follower_throttle_bytes_per_s": None, "throttle_bytes_per_s": 10.0, "bytes_in_per_s": 0.0,
        "network_bytes_per_s": 100.0, "replication_factor": 3}


def tiny_trace(**meta):
    """A two-tick, one-partition trace with the documented columns and ``meta`` overrides."""
    ticks = pd.DataFrame({
        "time_ms": np.array([0, 10], dtype=np.int64), "leader_rate_bytes_per_s": [5.0, 10.0],
        "follower_rate_bytes_per_s": [5.0, 10.0], "throttled_bytes": np.array([5, 5]),
        "unthrottled_bytes": np.array([0, 0]), "replica_lag_bytes": np.array([5, 0]),
        "moved_bytes": np.array([5, 10]), "client_bandwidth_left_bytes_per_s": [-400.0, -400.0],
    })
    partitions = pd.DataFrame({"partition": np.array([0], dtype=np.int32),
                               "size_bytes": np.array([10]), "caught_up_ms": np.array([10])})
    return SimpleNamespace(ticks=ticks, partitions=partitions, meta={**META, **meta})


def test_bad_input_is_named_in_the_error(spark):
    """Missing columns and meta keys, windows <= 0 and a bad quota window or rate are refused
    with the name of what is wrong; extra columns are ignored."""
    good = tiny_trace()
    good.ticks["in_sync_bytes"] = 0  # a column the curves do not know
    assert isinstance(reassignment_curves(spark, good), ReassignmentCurves)
    bad = tiny_trace()
    bad.ticks = bad.ticks.drop(columns="replica_lag_bytes")
    with pytest.raises(ValueError, match="ticks table is missing column 'replica_lag_bytes'"):
        reassignment_curves(spark, bad)
    bad = tiny_trace()
    bad.partitions = bad.partitions.drop(columns="caught_up_ms")
    with pytest.raises(ValueError, match="partitions table is missing column 'caught_up_ms'"):
        reassignment_curves(spark, bad)
    bad = tiny_trace()
    del bad.meta["bytes_in_per_s"]
    with pytest.raises(ValueError, match=r"trace\.meta is missing 'bytes_in_per_s'"):
        reassignment_curves(spark, bad)
    for windows in (0, -1):
        with pytest.raises(ValueError, match=f"^windows must be an integer >= 1: {windows}"):
            reassignment_curves(spark, good, windows=windows)
    with pytest.raises(ValueError, match=r"^quota_window_s \(replication\.quota\.window\.size"
                                         r"\.seconds\) must be a number > 0: 0"):
        reassignment_curves(spark, good, quota_window_s=0)
    ticks = to_spark(spark, good.ticks)
    with pytest.raises(ValueError, match=r"^window_ms must be a number > 0: 0"):
        throttle_curve(ticks, 0)
    with pytest.raises(ValueError, match=r"^throttle_bytes_per_s must be a number >= 0: -1"):
        catch_up_curve(to_spark(spark, good.partitions), throttle_bytes_per_s=-1)
    with pytest.raises(ValueError, match="ticks table is missing column 'moved_bytes'"):
        move_summary(to_spark(spark, good.ticks.drop(columns="moved_bytes")),
                     to_spark(spark, good.partitions), throttle_bytes_per_s=10)


def test_a_zero_throttle_is_an_infinite_overshoot(spark):
    """Kafka accepts a rate of 0: any byte sent in the first window is infinitely over it."""
    c = reassignment_curves(spark, tiny_trace(throttle_bytes_per_s=0.0,
                                              leader_throttle_bytes_per_s=0.0))
    assert c.first_window_overshoot == math.inf and c.kip_move_time_s == math.inf


def test_importing_the_reassignment_curves_and_plots_does_not_import_spark():
    """``import kipviz.curves.reassignment`` and ``kipviz.plots.reassignment`` stay light."""
    code = ("import sys, kipviz.curves.reassignment, kipviz.plots.reassignment; "
            "print('pyspark' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
