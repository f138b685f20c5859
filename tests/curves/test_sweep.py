"""Sweeps: many configurations as one Spark job, summarised, and cached once each."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

import kipviz
from kipviz.curves import sweep as sw
from kipviz.curves.consumer import fairness
from kipviz.curves.sql import to_spark
from kipviz.curves.streams import thread_fairness
from kipviz.curves.summary import SUMMARY, summarise
from kipviz.curves.sweep import grid, pareto_front, sample, sweep
from kipviz.curves.sweep_cache import config_key
from kipviz.plots.sweep import pareto_figure, safe_region_figure
from kipviz.scenarios.consumer.scenario import ConsumerScenario, simulate
from kipviz.scenarios.fairness import jain_by_window
from kipviz.scenarios.reassignment.scenario import ReassignmentScenario
from kipviz.scenarios.reassignment.scenario import simulate as reassignment_simulate
from kipviz.scenarios.streams.scenario import StreamsScenario
from kipviz.scenarios.streams.scenario import simulate as streams_simulate
from kipviz.scenarios.workload import Workload

MiB = 2**20
BASE = ConsumerScenario(partitions=12, brokers=3, fetch_max_bytes=2 * MiB,
                        consume_bytes_per_s=20e6, ticks=200, windows=5,
                        workload=Workload(profile="zipf", initial_lag_bytes=2 * MiB))
CONFIGS = grid(BASE, fetch_max_bytes=[256 * 1024, 2 * MiB],
               max_partition_fetch_bytes=[64 * 1024, 1 * MiB])


def test_a_grid_is_every_combination_in_row_major_order():
    """Two values each: four scenarios, the last field varying fastest."""
    assert [(s.fetch_max_bytes, s.max_partition_fetch_bytes) for s in CONFIGS] == [
        (256 * 1024, 64 * 1024), (256 * 1024, 1 * MiB), (2 * MiB, 64 * 1024), (2 * MiB, 1 * MiB)]
    with pytest.raises(ValueError, match=r"buffer_memory_bytes \(buffer.memory\) must be >= "
                                         r"fetch.max.bytes"):
        grid(BASE, buffer_memory_bytes=[1 * MiB])


def test_a_sample_is_seeded_distinct_and_skips_rejected_combinations():
    """Same seed, same sample; buffer.memory below fetch.max.bytes is never drawn."""
    values = {"fetch_max_bytes": [1 * MiB, 4 * MiB], "buffer_memory_bytes": [2 * MiB, 8 * MiB]}
    a = sample(BASE, 10, seed=3, **values)
    assert a == sample(BASE, 10, seed=3, **values)
    assert len(a) == 3 and len(set(map(repr, a))) == 3
    assert all(s.buffer_memory_bytes >= s.fetch_max_bytes for s in a)


def test_jain_by_window_is_the_spark_fairness_curve(spark):
    """The tasks' numpy water-filling gives Spark's Jain index, window for window."""
    trace = simulate(BASE, seed=1, record_fetches=False)
    spark_jain = fairness(to_spark(spark, trace.windows)).toPandas().sort_values("window")
    np.testing.assert_allclose(jain_by_window(trace.windows), spark_jain["jain_index"],
                               rtol=1e-9)


def test_a_sweep_is_the_configurations_summarised_one_by_one(spark, tmp_path):
    """The Spark job's rows equal summarise() run in this process, in the order given."""
    result = sweep(spark, CONFIGS, seed=2, cache_dir=tmp_path)
    assert result.computed == 4 and list(result.table["config_id"]) == [0, 1, 2, 3]
    for i, scenario in enumerate(CONFIGS):
        expected = summarise(scenario, seed=2)
        got = result.table.iloc[i]
        for name in SUMMARY:
            assert got[name] == pytest.approx(expected[name], nan_ok=True), name
        np.testing.assert_allclose(got["curve_memory_bytes"], expected["curve_memory_bytes"])
    params = result.with_params("fetch_max_bytes", "max_partition_fetch_bytes")
    assert list(params.columns[:2]) == ["fetch_max_bytes", "max_partition_fetch_bytes"]


@pytest.mark.parametrize("partitions", [None, 1, 3])
def test_a_sweep_runs_as_many_tasks_as_asked_with_a_shuffle_only_to_resplit(spark, partitions):
    """The configurations' rows are a local relation Spark splits evenly over its default
    parallelism: the sweep's job then shuffles nothing; asked for another task count it
    deals the rows round robin. Each way, every configuration comes back once, in order."""
    stages: list[int] = []
    tracker = spark.sparkContext.statusTracker()
    seen = set(tracker.getJobIdsForGroup(None))
    result = sweep(spark, CONFIGS, seed=2, partitions=partitions)
    for job in sorted(set(tracker.getJobIdsForGroup(None)) - seen):
        info = tracker.getJobInfo(job)
        stages += [tracker.getStageInfo(i).numTasks for i in sorted(info.stageIds)] if info else []
    assert list(result.table["config_id"]) == [0, 1, 2, 3]
    split = min(spark.sparkContext.defaultParallelism, len(CONFIGS))  # the local relation's
    tasks = min(partitions or split, len(CONFIGS))
    assert stages[-1] == tasks  # the mapInPandas stage
    assert len(stages) == (1 if tasks == split else 2), stages


def test_a_sweep_with_a_progress_bar_returns_the_same_table(spark, capsys):
    """``progress=True`` collects in a thread while a tqdm bar counts the finished tasks."""
    plain = sweep(spark, CONFIGS[:2], seed=2)
    shown = sweep(spark, CONFIGS[:2], seed=2, progress=True)
    pd.testing.assert_frame_equal(plain.table, shown.table)
    assert "sweep: 100%" in capsys.readouterr().err


def test_a_second_sweep_reads_the_cache_and_a_new_configuration_joins_it(spark, tmp_path):
    """Cached configurations are not simulated again; one new one is, and is cached once."""
    first = sweep(spark, CONFIGS[:3], cache_dir=tmp_path)
    again = sweep(spark, CONFIGS, cache_dir=tmp_path)
    assert first.computed == 3 and again.computed == 1
    files = sorted((tmp_path / "ConsumerScenario").glob("*.parquet"))
    assert len(files) == 4
    pd.testing.assert_frame_equal(first.table[list(SUMMARY)],
                                  again.table[list(SUMMARY)].iloc[:3])


def test_a_corrupt_or_stale_cache_entry_is_recomputed_never_shown(spark, tmp_path, monkeypatch):
    """A truncated file, or one written by another version or for other parameters, is
    simulated again and replaced."""
    sweep(spark, CONFIGS[:2], cache_dir=tmp_path)
    first = sw._cache_path(tmp_path, CONFIGS[0], config_key(CONFIGS[0], 0))
    first.write_bytes(first.read_bytes()[:40])
    second = sw._cache_path(tmp_path, CONFIGS[1], config_key(CONFIGS[1], 0))
    stale = pd.read_parquet(second).assign(version="0.0.0", peak_memory_bytes=-1.0)
    stale.to_parquet(second, index=False)
    result = sweep(spark, CONFIGS[:2], cache_dir=tmp_path)
    assert result.computed == 2
    assert (result.table["peak_memory_bytes"] > 0).all()
    assert pd.read_parquet(second)["version"].iloc[0] == kipviz.__version__
    monkeypatch.setattr(kipviz, "__version__", "9.9.9")
    assert config_key(CONFIGS[0], 0) != sw.config_key(replace(CONFIGS[0]), 1)
    assert sweep(spark, CONFIGS[:1], cache_dir=tmp_path).computed == 1


def test_a_streams_instance_is_summarised_by_its_buffer_and_fairness_across_threads(spark):
    """KIP-770: peak buffered input within the byte bound, and the Jain index across stream
    threads equal to Spark's thread_fairness curve, window for window."""
    scenario = StreamsScenario(threads=2, tasks=4, ticks=300)
    row = summarise(scenario, seed=1)
    trace = streams_simulate(scenario, seed=1)
    assert row["peak_memory_bytes"] == trace.ticks["buffered_bytes_after_poll"].max()
    assert 0 < row["peak_memory_bytes"] <= row["bound_bytes"] == trace.meta["bytes_bound_bytes"]
    window_ms = 15 * scenario.tick_ms  # 300 ticks in 20 windows
    spark_jain = thread_fairness(to_spark(spark, trace.threads), window_ms).toPandas()
    np.testing.assert_allclose(row["curve_jain_index"],
                               spark_jain.sort_values("window")["jain_index"], rtol=1e-9)
    assert row["min_jain_index"] == pytest.approx(spark_jain["jain_index"].min())
    assert math.isnan(row["kip74_bound_bytes"]) and math.isnan(row["move_time_s"])


def test_a_reassignment_is_summarised_by_its_move_time():
    """KIP-73: the simulated completion of 2 partitions of 20 MB at T = 50 MB/s, IN = 10 MB/s,
    R = 3 (the two in-sync followers --throttle counts leave 20 MB/s); a reassignment has no
    partition fairness curve."""
    s = ReassignmentScenario(brokers=5, bytes_in_per_s=10e6, partitions=2, log_bytes=20_000_000,
                             leader_throttle_bytes_per_s=50e6,
                             follower_throttle_bytes_per_s=50e6, tick_ms=100, ticks=300)
    row = summarise(s)
    assert row["move_time_s"] == reassignment_simulate(s).meta["completed_ms"] / 1000.0 > 2.0
    assert np.isnan(row["min_jain_index"])


def test_bad_sweeps_are_rejected():
    """Nothing to sweep, or a scenario kind kipviz cannot summarise, is a ValueError."""
    with pytest.raises(ValueError, match="scenarios must hold at least one configuration"):
        sweep(None, [])
    with pytest.raises(ValueError, match="cannot sweep a Workload"):
        summarise(Workload())
    with pytest.raises(ValueError, match="cannot sweep a Workload"):
        sweep(None, [BASE, Workload()])  # in the driver, before any Spark job


def test_the_pareto_front_keeps_what_nothing_beats_on_both_memory_and_throughput():
    """(10, 50) and (20, 80) and (40, 90) are kept; (30, 60) is beaten by (20, 80); a tie on
    memory keeps the faster one."""
    table = pd.DataFrame({"peak_memory_bytes": [30.0, 10.0, 40.0, 20.0, 10.0],
                          "throughput_bytes_per_s": [60.0, 50.0, 90.0, 80.0, 40.0]})
    front = pareto_front(table, minimize="peak_memory_bytes", maximize="throughput_bytes_per_s")
    assert front[["peak_memory_bytes", "throughput_bytes_per_s"]].values.tolist() == [
        [10.0, 50.0], [20.0, 80.0], [40.0, 90.0]]


def test_the_sweep_figures_draw_the_grid_the_limit_the_floor_and_the_front():
    """A heatmap with the over-limit overlay and the fairness contour; a scatter per label."""
    table = pd.DataFrame({"a": [1, 1, 2, 2], "b": [1, 2, 1, 2],
                          "peak_memory_bytes": [1.0, 2.0, 3.0, 4.0],
                          "min_jain_index": [0.9, 0.5, 0.8, 0.2],
                          "throughput_bytes_per_s": [1.0, 2.0, 2.0, 3.0], "mode": list("xxyy")})
    fig = safe_region_figure(table, "a", "b", "peak_memory_bytes", floor="min_jain_index",
                             floor_value=0.6, limit=2.5)
    assert [t.type for t in fig.data] == ["heatmap", "heatmap", "contour"]
    front = pareto_front(table, minimize="peak_memory_bytes", maximize="throughput_bytes_per_s")
    assert len(pareto_figure(table, front, x="peak_memory_bytes", y="throughput_bytes_per_s",
                             label="mode").data) == 3
