"""Spark curves, figure and dashboard of the KIP-81 consumer buffer lesson."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from kipviz.curves.consumer import fairness
from kipviz.curves.consumer.buffer import BUFFER_MEMORY, BUFFER_SUMMARY, buffer_curves
from kipviz.curves.sql import to_spark
from kipviz.plots.consumer_buffer import BUFFER_TRACES, buffer_figure, heap_figure
from kipviz.scenarios.consumer.buffer_memory import (
    buffer_modes,
    equivalent_in_flight_cap,
    heap_estimate_bytes,
    simulate_modes,
)
from kipviz.scenarios.consumer.scenario import ConsumerScenario
from kipviz.scenarios.workload import Workload
from kipviz.widgets import BufferDashboard

MiB = 2**20
SMALL = ConsumerScenario(
    partitions=24, brokers=4, fetch_max_bytes=4 * MiB, consume_bytes_per_s=20e6,
    buffer_memory_bytes=8 * MiB, ticks=400, windows=8, heartbeat_interval_ms=500,
    workload=Workload(produce_bytes_per_s=5e6, initial_lag_bytes=8 * MiB))


@pytest.fixture(scope="module")
def traces():
    return simulate_modes(SMALL, seed=2)


@pytest.fixture(scope="module")
def curves(spark, traces):
    return buffer_curves(spark, traces)


def test_the_three_modes_share_one_workload_and_differ_only_in_the_memory_rule():
    """Today's consumer, KIP-81's pool and a cap of as many 6 MiB responses as fit in 8 MiB."""
    modes = buffer_modes(SMALL)
    assert list(modes) == ["today", "kip81_pool", "in_flight_cap"]
    assert modes["today"].buffer_memory_bytes is None
    assert modes["kip81_pool"].buffer_memory_bytes == 8 * MiB
    assert SMALL.largest_response_bytes() == 4 * MiB  # 6 partitions of 1 MiB, capped at 4 MiB
    assert modes["in_flight_cap"].max_in_flight_fetches == 2 == equivalent_in_flight_cap(
        SMALL, 8 * MiB)
    with pytest.raises(ValueError, match=r"buffer_memory_bytes \(buffer.memory\) must be set"):
        buffer_modes(replace(SMALL, buffer_memory_bytes=None))


def test_the_curves_are_the_traces_summarised(curves, traces):
    """Per mode: the peak retained bytes and throughput are the trace's; the dtypes are the
    schemas'; heartbeats are never delayed with the bypass."""
    assert curves.labels == ("today", "kip81_pool", "in_flight_cap")
    assert curves.memory.dtypes.astype(str).to_dict() == BUFFER_MEMORY
    assert curves.summary.dtypes.astype(str).to_dict() == BUFFER_SUMMARY
    for i, trace in enumerate(traces.values()):
        row = curves.summary.iloc[i]
        assert row["mode"] == i
        assert row["peak_retained_bytes"] == trace.buffer.retained_bytes.max()
        assert row["p99_retained_bytes"] == pytest.approx(
            np.percentile(trace.buffer.retained_bytes, 99))
        span_s = trace.meta["ticks"] * trace.meta["tick_ms"] / 1000
        assert row["consumed_bytes_per_s"] == pytest.approx(
            trace.memory.consumed_bytes.sum() / span_s)
        assert row["dry_share"] == pytest.approx(trace.buffer.pool_dry.mean())
        assert row["heartbeats"] == len(trace.heartbeats) == 8
        assert row["max_heartbeat_delay_ms"] == 0
    assert curves.bounds["kip81_pool"]["pooled_bound_bytes"] == 12 * MiB - 1


def test_fairness_per_mode_is_kip74s_fairness_of_each_trace(spark, curves, traces):
    """The combined window key changes nothing: each mode's Jain index per window equals
    :func:`kipviz.curves.consumer.fairness` run on its trace alone."""
    for label, trace in traces.items():
        alone = fairness(to_spark(spark, trace.windows)).toPandas().sort_values("window")
        mine = curves.of("fairness", label)
        np.testing.assert_allclose(mine["jain_index"], alone["jain_index"], rtol=1e-9)
        assert mine["window"].tolist() == alone["window"].tolist()


def test_windowed_memory_matches_the_ticks(curves, traces):
    """retained_max_bytes per window is the max over that window's ticks."""
    trace = traces["kip81_pool"]
    window_ms = trace.meta["window_ms"]
    expected = trace.buffer.groupby(trace.buffer.time_ms // window_ms)["retained_bytes"].max()
    got = curves.of("memory", "kip81_pool")["retained_max_bytes"]
    assert got.tolist() == expected.tolist()


def test_traces_of_different_runs_are_rejected(spark, traces):
    """Curves compare one workload: traces with other windows are an error, as is nothing."""
    other = simulate_modes(replace(SMALL, ticks=300), seed=2)
    with pytest.raises(ValueError, match="traces must share 'window_ms'"):
        buffer_curves(spark, {"a": traces["today"], "b": other["today"]})
    with pytest.raises(ValueError, match="traces must name at least one"):
        buffer_curves(spark, {})


def test_the_figure_has_its_fixed_traces_and_draws_every_mode(curves):
    """One trace per spec; memory, throughput, heartbeats and fairness filled for all modes."""
    fig = buffer_figure(curves)
    assert len(fig.data) == len(BUFFER_TRACES) == 15
    assert all(len(trace.x) > 0 for trace in fig.data)
    bars = heap_figure(["no pool", "30 MB"], [2e8, 1.2e8], [2e8, 1.2e8])
    assert [t.name for t in bars.data] == ["simulated (kipviz)", "measured (KIP-81 pull request)"]


def test_the_heap_estimate_is_the_baseline_plus_peak_retained_bytes(traces):
    """heap = baseline + peak retained responses; a negative baseline is an error."""
    trace = traces["kip81_pool"]
    assert heap_estimate_bytes(trace, 80_000_000) == 80_000_000 + trace.buffer.retained_bytes.max()
    with pytest.raises(ValueError, match="baseline_heap_bytes must be an integer >= 0"):
        heap_estimate_bytes(trace, -1)


@pytest.fixture(scope="module")
def dashboard(spark):
    return BufferDashboard(SMALL, spark=spark)


def test_the_dashboard_redraws_three_consumers(dashboard):
    """A slider move re-runs the three consumers and redraws: a bigger pool holds more."""
    before = dashboard.curves.summary["peak_retained_bytes"].iloc[1]
    assert dashboard.update(buffer_memory_bytes=16 * MiB) is not None
    assert dashboard.curves.summary["peak_retained_bytes"].iloc[1] > before
    assert dashboard.controls["buffer_memory_bytes"].value == 16 * MiB
    assert "KIP-81 buffer.memory pool" in dashboard.summary.value


def test_buffer_memory_below_fetch_max_bytes_is_a_warning_not_a_traceback(dashboard):
    """KIP-81's rule shows as a red warning; the slider goes back to the setting in use."""
    dashboard.update(buffer_memory_bytes=8 * MiB)
    assert dashboard.update(fetch_max_bytes=32 * MiB) is None
    assert ("buffer_memory_bytes (buffer.memory) must be &gt;= fetch.max.bytes (33554432; "
            "KIP-81: a whole fetch response must fit in the pool): 8388608"
            ) in dashboard.warning.value
    assert dashboard.controls["fetch_max_bytes"].value == 4 * MiB


def test_turning_the_bypass_off_delays_heartbeats_and_says_why(dashboard):
    """Without the bypass the warning names KIP-81 step 3.b."""
    dashboard.update(coordinator_bypass=False, consume_bytes_per_s=5e6)
    if dashboard.curves.summary["max_heartbeat_delay_ms"].max() > 0:
        assert "step 3.b" in dashboard.warning.value
    dashboard.update(coordinator_bypass=True, consume_bytes_per_s=20e6)
    assert dashboard.curves.summary["max_heartbeat_delay_ms"].max() == 0
