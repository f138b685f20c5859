"""Instant sliders (issue 7, item 2): a grid Spark computed once answers slider moves from memory;
positions off the grid are computed on demand and join the grid and the cache."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from kipviz.curves.instant import SweepGrid
from kipviz.curves.summary import SUMMARY, summarise
from kipviz.plots.sweep import setting_label
from kipviz.scenarios.consumer.scenario import ConsumerScenario
from kipviz.scenarios.workload import Workload
from kipviz.widgets import GridDashboard
from kipviz.widgets._base import with_option

MiB = 2**20
BASE = ConsumerScenario(partitions=12, brokers=3, fetch_max_bytes=2 * MiB,
                        max_partition_fetch_bytes=64 * 1024, consume_bytes_per_s=20e6,
                        ticks=200, windows=5,
                        workload=Workload(profile="zipf", initial_lag_bytes=2 * MiB))
AXES = {"fetch_max_bytes": (256 * 1024, 2 * MiB),
        "max_partition_fetch_bytes": (64 * 1024, 1 * MiB)}


class NoSpark:
    """Stands in for the Spark session where no Spark job may run: any use fails the test."""

    def __getattr__(self, name: str) -> None:
        raise AssertionError(f"Spark was used on the hot path (spark.{name})")


def test_bad_axes_are_rejected_naming_the_axis():
    with pytest.raises(ValueError, match=r"unknown axis 'fetch_max'.*fetch_max_bytes"):
        SweepGrid(BASE, {"fetch_max": [1]})
    with pytest.raises(ValueError, match=r"axis 'fetch_max_bytes' needs one or more distinct"):
        SweepGrid(BASE, {"fetch_max_bytes": [MiB, MiB]})
    with pytest.raises(ValueError, match=r"axis 'fetch_max_bytes' needs"):
        SweepGrid(BASE, {"fetch_max_bytes": []})
    with pytest.raises(ValueError, match=r"at least one axis"):
        SweepGrid(BASE, {})
    with pytest.raises(ValueError, match=r"no combination of the axes buffer_memory_bytes"):
        SweepGrid(BASE, {"buffer_memory_bytes": [MiB]})  # below fetch.max.bytes: all rejected


def test_combinations_kafka_rejects_are_holes_in_the_grid():
    """buffer.memory below fetch.max.bytes is not a configuration: it is left out, not clamped."""
    grid = SweepGrid(BASE, {"fetch_max_bytes": (MiB, 4 * MiB),
                            "buffer_memory_bytes": (2 * MiB, 8 * MiB)})
    assert [(s.fetch_max_bytes, s.buffer_memory_bytes) for s in grid.scenarios] == [
        (MiB, 2 * MiB), (MiB, 8 * MiB), (4 * MiB, 8 * MiB)]


def test_the_grid_answers_from_memory_with_spark_computed_rows(spark, tmp_path):
    """On the grid: the rows Spark computed (equal to summarise), with no Spark job. Off the
    grid: one on-demand Spark computation, which joins the grid and the cache."""
    grid = SweepGrid(BASE, AXES, seed=1, cache_dir=tmp_path)
    assert grid.fill(spark) == 4 and len(grid) == 4
    on = replace(BASE, fetch_max_bytes=256 * 1024, max_partition_fetch_bytes=MiB)
    point = grid.lookup(on)
    assert point is not None and point.origin == "sweep" and on in grid
    expected = summarise(on, seed=1)
    for name in SUMMARY:
        assert point.metrics[name] == pytest.approx(expected[name], nan_ok=True), name
    np.testing.assert_allclose(point.curves["memory_bytes"], expected["curve_memory_bytes"])
    assert point.curves["window_ms"].tolist() == expected["curve_window_ms"].tolist()
    assert grid.point(NoSpark(), on) is point  # on the grid: Spark is never touched

    off = replace(on, consume_bytes_per_s=25e6)
    assert grid.lookup(off) is None and off not in grid
    with pytest.raises(AssertionError, match="Spark was used"):
        grid.point(NoSpark(), off)
    got = grid.point(spark, off)
    assert got.origin == "on demand" and off in grid and len(grid) == 5 and grid.simulated == 5
    assert got.metrics["throughput_bytes_per_s"] == pytest.approx(
        summarise(off, seed=1)["throughput_bytes_per_s"])
    assert len(list((tmp_path / "ConsumerScenario").glob("*.parquet"))) == 5

    again = SweepGrid(BASE, AXES, seed=1, cache_dir=tmp_path)  # a new session, same cache
    assert again.fill(spark) == 0
    assert again.point(spark, off).curves.equals(got.curves) and again.simulated == 0


def test_a_slice_is_the_metric_over_the_first_two_axes_with_holes_as_nan(spark):
    grid = SweepGrid(BASE, AXES)
    grid.fill(spark)
    heat = grid.slice(BASE)
    assert list(heat.columns) == list(AXES["fetch_max_bytes"])
    assert list(heat.index) == list(AXES["max_partition_fetch_bytes"])
    here = grid.lookup(replace(BASE, fetch_max_bytes=2 * MiB, max_partition_fetch_bytes=MiB))
    assert here is not None
    assert heat.loc[MiB, 2 * MiB] == here.metrics["peak_memory_bytes"]
    other = grid.slice(replace(BASE, consume_bytes_per_s=25e6), "min_jain_index")
    assert other.isna().all().all()  # another processing rate: nothing held there
    with pytest.raises(ValueError, match="unknown metric 'peak'"):
        grid.slice(BASE, "peak")


def test_a_grid_dashboard_moves_on_the_grid_without_spark_and_off_it_with_spark(spark, tmp_path):
    d = GridDashboard(BASE, axes=AXES, spark=spark, cache_dir=tmp_path)
    assert d.simulated == 4 and d.source == "grid"
    heatmap, marker = d.figure.data[:2]
    assert np.isfinite(np.asarray(heatmap.z, dtype=float)).all()
    assert list(marker.x) == ["2 MiB"] and list(marker.y) == ["64 KiB"]

    d.spark = NoSpark()  # every slider position of the grid answers with Spark gone
    for fetch_max in AXES["fetch_max_bytes"]:
        for partition_max in AXES["max_partition_fetch_bytes"]:
            d.controls["fetch_max_bytes"].value = fetch_max
            d.controls["max_partition_fetch_bytes"].value = partition_max
            assert d.source == "grid" and d.curves is not None
            assert d.curves.scenario.fetch_max_bytes == fetch_max
            assert "no Spark job" in d.summary.value
    assert list(marker.x) == ["2 MiB"] and list(marker.y) == ["1 MiB"]

    d.spark = spark
    point = d.update(fetch_max_bytes=3 * MiB)  # off the grid, set from code
    assert point is not None and d.source == "spark" and "computed on demand" in d.summary.value
    assert ("3 MiB (off grid)", 3 * MiB) in d.controls["fetch_max_bytes"].options
    assert list(d.figure.data[1].x) == []  # not on the grid: no marker
    d.update(fetch_max_bytes=2 * MiB)
    d.spark = NoSpark()
    d.update(fetch_max_bytes=3 * MiB)  # it joined the grid: instant now
    assert d.source == "grid"


def test_slider_positions_off_the_grid_are_labelled_and_computed_on_demand(spark):
    d = GridDashboard(BASE, axes={"fetch_max_bytes": (MiB, 4 * MiB)}, spark=spark,
                      slider_values={"fetch_max_bytes": [2 * MiB]})
    control = d.controls["fetch_max_bytes"]
    assert control.options == (("1 MiB", MiB), ("2 MiB (off grid)", 2 * MiB),
                               ("4 MiB", 4 * MiB))
    control.value = 2 * MiB
    assert d.source == "spark" and d.curves.origin == "on demand"
    control.value = MiB
    assert d.source == "grid"
    with pytest.raises(ValueError, match="slider_values names 'partitions', not an axis"):
        GridDashboard(BASE, axes={"fetch_max_bytes": (MiB,)}, spark=spark,
                      slider_values={"partitions": [1]})


def test_a_grid_dashboard_shows_bad_settings_as_warnings(spark):
    d = GridDashboard(BASE, axes={"fetch_max_bytes": (MiB, 2 * MiB)}, spark=spark)
    before = d.curves
    assert d.update(fetch_max_bytes=-1) is None
    assert "fetch.max.bytes" in d.warning.value and d.curves is before
    assert d.update(fetch_max=1) is None and "unknown setting &#x27;fetch_max" in d.warning.value
    with pytest.raises(ValueError, match="cannot sweep a Workload"):
        GridDashboard(Workload(), axes={"produce_bytes_per_s": (1e6, 2e6)}, spark=spark)


@pytest.mark.parametrize(("name", "value", "label"), [
    ("fetch_max_bytes", 4 * MiB, "4 MiB"), ("max_partition_fetch_bytes", 64 * 1024, "64 KiB"),
    ("socket_request_max_bytes", 100, "100 B"),
    ("queued_max_request_bytes", -1, "-1 (no limit)"), ("consume_bytes_per_s", 50e6, "50 MB/s"),
    ("rtt_ms", 10, "10 ms"), ("buffer_memory_bytes", None, "none"), ("partitions", 120, "120"),
    ("strict_pool", True, "True"), ("large_share", 0.1, "0.1")])
def test_settings_are_labelled_by_the_unit_their_name_carries(name, value, label):
    assert setting_label(name, value) == label


def test_a_value_set_from_code_joins_a_slider_in_order_and_keeps_the_other_labels():
    options = [("-1 (no pool)", -1), ("5 MiB", 5 * MiB), ("50 MB/s", 50e6)]
    assert with_option(options, 5 * MiB) is options
    assert with_option(options, 3 * MiB) == [("-1 (no pool)", -1), ("3 MiB", 3 * MiB),
                                             ("5 MiB", 5 * MiB), ("50 MB/s", 50e6)]
    assert with_option([("none", None)], 1, "1 B")[-1] == ("1 B", 1)
