"""Spark curves of the share-group lesson (issue 20, item 3) on tiny inline traces, and on a
simulated one: Jain's index across consumers, in-flight records, the oldest record's age,
memory per consumer, and the two groups' scaling."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from kipviz.curves.share_group import (
    SHARE_FAIRNESS,
    SHARE_LATENCY,
    SHARE_MEMORY,
    SHARE_SCALING,
    share_group_curves,
    share_scaling,
    window_ms_of,
)
from kipviz.scenarios.share_group.scenario import ShareGroupScenario, simulate, simulate_scaling
from tests.frames import assert_frames_close

pytestmark = pytest.mark.spark


def _trace(consumers: pd.DataFrame, partitions: pd.DataFrame,
           deliveries: pd.DataFrame | None = None, ticks: int = 4) -> SimpleNamespace:
    if deliveries is None:
        deliveries = pd.DataFrame({"time_ms": np.array([0], np.int64),
                                   "consumer": np.array([0], np.int32),
                                   "partition": np.array([0], np.int32),
                                   "acquired": np.array([3], np.int64),
                                   "redelivered": np.array([1], np.int64),
                                   "acknowledged": np.array([2], np.int64)})
    return SimpleNamespace(consumers=consumers, partitions=partitions, deliveries=deliveries,
                           meta={"tick_ms": 10, "ticks": ticks})


def _consumers(rows: list[tuple[int, str, int, int, int]]) -> pd.DataFrame:
    t, g, c, held, processed = zip(*rows, strict=True)
    return pd.DataFrame({"time_ms": np.array(t, np.int64), "group": list(g),
                         "consumer": np.array(c, np.int32), "held_records": np.zeros(len(t),
                                                                                     np.int64),
                         "held_bytes": np.array(held, np.int64),
                         "processed": np.array(processed, np.int64)})


def _partitions(rows: list[tuple[int, int, int, int, int, int]]) -> pd.DataFrame:
    t, p, end, start, flight, archived = zip(*rows, strict=True)
    return pd.DataFrame({"time_ms": np.array(t, np.int64), "partition": np.array(p, np.int32),
                         "log_end_offset": np.array(end, np.int64),
                         "start_offset": np.array(start, np.int64),
                         "in_flight_records": np.array(flight, np.int64),
                         "archived_records": np.array(archived, np.int64)})


ONE_PARTITION = _partitions([(0, 0, 10, 0, 5, 0), (10, 0, 20, 0, 10, 0), (20, 0, 20, 15, 5, 1),
                             (30, 0, 30, 20, 0, 1)])


def test_jain_across_consumers_is_one_when_all_work_alike_and_one_nth_when_one_works(spark):
    """Two windows of 20 ms: the share group's two consumers process 4 and 4 records, then 6
    and 2 (J = 64 / (2 x 40) = 0.8); the classic group's second consumer never works (J = 1/2)."""
    rows = [(0, "share", 0, 100, 2), (0, "share", 1, 100, 2), (10, "share", 0, 0, 2),
            (10, "share", 1, 50, 2), (20, "share", 0, 0, 6), (20, "share", 1, 0, 2),
            (30, "share", 0, 0, 0), (30, "share", 1, 0, 0)]
    rows += [(t, "classic", c, 0, 3 if c == 0 else 0) for t in (0, 10, 20, 30) for c in (0, 1)]
    curves = share_group_curves(spark, _trace(_consumers(rows), ONE_PARTITION), windows=2)
    expected = pd.DataFrame({
        "group": ["classic", "classic", "share", "share"], "window": [0, 1, 0, 1],
        "window_start_ms": [0, 20, 0, 20], "consumers": [2, 2, 2, 2],
        "active_consumers": [1, 1, 2, 2], "processed_records": [6, 6, 8, 8],
        "records_per_s": [300.0, 300.0, 400.0, 400.0], "jain_index": [0.5, 0.5, 1.0, 0.8]})
    assert curves.fairness.dtypes.astype(str).to_dict() == SHARE_FAIRNESS
    assert_frames_close(curves.fairness, expected, by=["group", "window"])
    memory = pd.DataFrame({"consumer": [0, 1], "held_max_bytes": [100, 100],
                           "held_mean_bytes": [25.0, 37.5], "processed_records": [10, 6]})
    assert curves.memory.dtypes.astype(str).to_dict() == SHARE_MEMORY
    assert_frames_close(curves.memory, memory, by=["consumer"])


def test_in_flight_peaks_archived_and_redelivered_records_per_window(spark):
    """The most in flight on any partition, the mean, the archived count at the window's end,
    and the deliveries table's acquired / redelivered / acknowledged summed per window."""
    rows = [(t, "share", 0, 0, 1) for t in (0, 10, 20, 30)]
    curves = share_group_curves(spark, _trace(_consumers(rows), ONE_PARTITION), windows=2)
    got = curves.in_flight
    assert got["in_flight_max_records"].tolist() == [10, 5]
    assert got["in_flight_mean_records"].tolist() == [7.5, 2.5]
    assert got["archived_records"].tolist() == [0, 1]
    assert got["acquired_records"].tolist() == [3, 0]
    assert got["redelivered_records"].tolist() == [1, 0]
    assert got["acknowledged_records"].tolist() == [2, 0]


def test_latency_is_the_age_of_the_oldest_record_not_yet_acknowledged(spark):
    """Offset 0 was readable at 0 ms and is still SPSO at 10 ms (age 10); at 20 ms SPSO is 15,
    readable since 10 ms (age 10); at 30 ms SPSO 20 was readable from 30 ms (log end 20 until
    then): age 0. Windows of 20 ms: mean (0 + 10) / 2 and (10 + 0) / 2, max 10 and 10."""
    rows = [(t, "share", 0, 0, 1) for t in (0, 10, 20, 30)]
    curves = share_group_curves(spark, _trace(_consumers(rows), ONE_PARTITION), windows=2)
    expected = pd.DataFrame({"window": [0, 1], "window_start_ms": [0, 20],
                             "latency_mean_ms": [5.0, 5.0], "latency_max_ms": [10, 10]})
    assert curves.latency.dtypes.astype(str).to_dict() == SHARE_LATENCY
    assert_frames_close(curves.latency, expected, by=["window"])


def test_a_simulated_run_gives_the_traces_own_numbers(spark):
    """On a simulated run: the in-flight peak is the partitions table's, within the soft lock
    cap; a share consumer's peak memory is the consumers table's, within its bound."""
    s = ShareGroupScenario(partitions=2, share_consumers=8, classic_consumers=8,
                           stalled_consumers=1, produce_records_per_s=2000,
                           initial_lag_records=2000, record_lock_duration_ms=300,
                           delivery_count_limit=2, ticks=200, max_poll_records=100,
                           max_record_locks=200)
    trace = simulate(s)
    c = share_group_curves(spark, trace, windows=5)
    assert c.in_flight["in_flight_max_records"].max() == trace.partitions.in_flight_records.max()
    assert c.in_flight["in_flight_max_records"].max() <= c.meta["in_flight_bound_records"]
    share = trace.consumers[trace.consumers.group == "share"]
    assert c.memory["held_max_bytes"].tolist() == share.groupby("consumer").held_bytes.max(
        ).tolist()
    assert c.memory["held_max_bytes"].max() <= c.meta["memory_bound_bytes"]
    assert c.in_flight["redelivered_records"].sum() == trace.deliveries.redelivered.sum() > 0
    assert c.mean_jain("classic") == pytest.approx(0.25)


def test_the_classic_group_stops_at_the_partition_count_where_the_share_group_goes_on(spark):
    """1, 2, 4 and 8 consumers on 2 partitions with a backlog: the classic group works with 2
    at most (1,000 records/s); the share group's throughput grows with its size."""
    s = ShareGroupScenario(partitions=2, produce_records_per_s=5000, initial_lag_records=10_000,
                           ticks=200, max_poll_records=100)
    got = share_scaling(spark, simulate_scaling(s, (1, 2, 4, 8)))
    assert got.dtypes.astype(str).to_dict() == SHARE_SCALING
    classic = got[got.group == "classic"]
    share = got[got.group == "share"]
    assert classic["active_consumers"].tolist() == [1, 2, 2, 2]
    assert classic["records_per_s"].tolist() == [500.0, 1000.0, 1000.0, 1000.0]
    assert share["active_consumers"].tolist() == [1, 2, 4, 8]
    assert share["records_per_s"].is_monotonic_increasing
    assert share["records_per_s"].iloc[-1] > 3.5 * classic["records_per_s"].iloc[-1]


def test_bad_windows_and_traces_are_rejected():
    """Windows must be a positive integer; a trace without tick_ms cannot be cut in windows."""
    assert window_ms_of({"tick_ms": 10, "ticks": 500}, 20) == 250
    assert window_ms_of({"tick_ms": 10, "ticks": 5}, 20) == 10
    with pytest.raises(ValueError, match=r"^windows must be an integer >= 1"):
        window_ms_of({"tick_ms": 10, "ticks": 5}, 0)
    with pytest.raises(ValueError, match="missing 'tick_ms'"):
        window_ms_of({"ticks": 5}, 2)
    with pytest.raises(ValueError, match="at least one group size"):
        share_scaling(None, {})  # type: ignore[arg-type]


def test_the_figure_has_a_fixed_trace_list_and_the_dashboard_warns_instead_of_raising(spark):
    """Every trace of the 2 x 2 figure gets data; the dashboard's ``consumers`` sets both
    groups; fewer consumers than stalled ones is a visible warning, not an exception."""
    from kipviz.plots.share_group import SHARE_TRACES, scaling_figure, share_group_figure
    from kipviz.widgets import ShareGroupDashboard

    d = ShareGroupDashboard(spark=spark, ticks=150, stalled_consumers=2)
    fig = share_group_figure(d.curves)
    assert len(fig.data) == len(SHARE_TRACES)
    assert all(len(t.x) for t in fig.data)
    assert d.update(consumers=4) is not None
    assert (d.scenario.share_consumers, d.scenario.classic_consumers) == (4, 4)
    assert "leaves 2 of its 4 consumers idle" in d.warning.value
    assert d.update(consumers=1) is None
    assert "stalled_consumers must be &lt;= share_consumers" in d.warning.value
    assert d.controls["consumers"].value == 4
    widths = {c.style.description_width for c in d.controls.values()}  # one, fitting them all
    longest = max(len(c.description) for c in d.controls.values())
    assert len(widths) == 1 and int(widths.pop().removesuffix("px")) >= 7 * longest
    table = pd.DataFrame({"group": ["share", "classic"], "consumers": [4, 4],
                          "active_consumers": [4, 2], "records_per_s": [2000.0, 1000.0],
                          "jain_index": [1.0, 0.5]})
    assert len(scaling_figure(table, partitions=2).data) == 2
