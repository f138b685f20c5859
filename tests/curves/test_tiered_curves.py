"""Spark's tiered-storage curves: remote against local throughput, latency by data class, and
the summary, against the traces they come from."""

from __future__ import annotations

import pytest

from kipviz.curves.tiered_fetch import CLASSES, tiered_curves
from kipviz.plots.tiered_fetch import TIERED_TRACES, tiered_figure
from kipviz.scenarios.tiered_fetch.scenario import TieredFetchScenario, simulate_versions

pytestmark = pytest.mark.spark


def test_the_curves_count_every_byte_and_show_4_2_reading_remote_data_four_times_as_fast(spark):
    """The throughput windows add up to the bytes delivered per class; 4.2 reads 4 remote
    partitions per request, 4.1 one; local data of the catch-up consumer waits 112 ms at p50 (the
    remote read), the tail consumer's far less."""
    traces = simulate_versions(TieredFetchScenario(duration_ms=5_000))
    c = tiered_curves(spark, traces)
    assert c.labels == ("4.1", "4.2")
    for mode, trace in enumerate(traces.values()):
        thr = c.throughput[c.throughput["mode"] == mode]
        in_run = trace.deliveries.query("answered_ms < 5000")
        assert thr.bytes_per_s.sum() == pytest.approx(in_run.bytes.sum())  # 1 s windows
    remote = c.latency[c.latency["cls"] == 0].set_index("mode").bytes_per_s
    assert remote[1] == pytest.approx(4 * remote[0])
    lat = c.latency[c.latency["mode"] == 1].set_index("cls")
    assert lat.loc[1, "p50_latency_ms"] == 112.0 and lat.loc[2, "p50_latency_ms"] < 100
    table = c.summary_table()
    assert list(table.columns[:2]) == ["run", "data"] and set(table["data"]) == set(CLASSES)
    assert (c.summary.reads_cancelled == 0).all()
    fig = tiered_figure(c)
    assert len(fig.data) == len(TIERED_TRACES) and fig.data[0].name == "4.1"


def test_no_traces_is_refused(spark):
    """An empty mapping names what is missing."""
    with pytest.raises(ValueError, match="at least one tiered-fetch trace"):
        tiered_curves(spark, {})
