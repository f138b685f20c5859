"""Tiered storage fetches (KIP-405) by Kafka version: the scenario, its kernel against plain
Python and the SimPy reference, and the fairness story of DelayedRemoteFetch."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings

from kipviz.scenarios.tiered_fetch.columns import DELIVERY_COLUMNS, FETCH_COLUMNS, READ_COLUMNS
from kipviz.scenarios.tiered_fetch.scenario import TieredFetchScenario, simulate, simulate_versions
from tests.strategies import examples, tiered_scenarios
from tools.oracles.simpy_tiered_fetch import simulate_simpy

MiB = 1024 * 1024
# odd times, so no two events of the reference fall on the same instant
ODD = TieredFetchScenario(duration_ms=3_000, remote_read_latency_ms=37.3, rtt_ms=1.7,
                          remote_read_bytes_per_s=97.1 * MiB, backlog_bytes=40 * MiB,
                          segment_bytes=8 * MiB, produce_bytes_per_s=201_003.0)

CASES = {
    "4.3": ODD,
    "4.1": replace(ODD, kafka_version="4.1"),
    "3.7 (fetch.max.wait.ms)": replace(ODD, kafka_version="3.7", fetch_max_wait_ms=61),
    "one reader thread, two catch-up consumers": replace(
        ODD, remote_log_reader_threads=1, catch_up_consumers=2, remote_fetch_max_wait_ms=99),
    "fetch quota": replace(ODD, remote_fetch_max_bytes_per_s=3.3 * MiB),
    "three catch-up consumers due at one instant, two threads": replace(
        ODD, catch_up_consumers=3, tail_consumers=2, remote_partitions=8,
        remote_log_reader_threads=2, remote_fetch_max_wait_ms=300,
        remote_fetch_max_bytes_per_s=20.0 * MiB),
    "fetch.max.wait.ms 1 (the tables outgrow their first size)": replace(ODD, fetch_max_wait_ms=1),
    "small response limit": replace(ODD, fetch_max_bytes=2_500_000, local_partitions=2),
    "a reader queue of 3 (remote.log.reader.max.pending.tasks), cancelled reads in it": replace(
        ODD, remote_log_reader_threads=1, catch_up_consumers=3, remote_fetch_max_wait_ms=150,
        remote_log_reader_max_pending_tasks=3),
}


@pytest.mark.parametrize("name", list(CASES))
def test_the_simpy_program_gives_the_kernels_tables(name):
    """SimPy processes, a Resource of reader threads and RemoteLogQuota over SimpleRate give the
    compiled kernel's fetches, reads and deliveries, and so does the kernel run as plain Python."""
    scenario = CASES[name]
    trace = simulate(scenario)
    plain = simulate(scenario, compiled=False)
    ref = simulate_simpy(scenario)
    for table, cols in (("fetches", FETCH_COLUMNS), ("reads", READ_COLUMNS),
                        ("deliveries", DELIVERY_COLUMNS)):
        ours = getattr(trace, table)[list(cols)].astype(np.float64)
        pd.testing.assert_frame_equal(ours, getattr(plain, table)[list(cols)].astype(np.float64))
        pd.testing.assert_frame_equal(ours.reset_index(drop=True), ref[table], rtol=1e-9)
    assert len(trace.fetches) > 20


def test_before_4_2_a_fetch_reads_one_remote_partition_and_from_4_2_all_of_them():
    """KAFKA-14915: four remote partitions of 1 MiB reads, 100 ms each: 4.1 reads one per
    request, 4.2 four in parallel, so the catch-up is four times as fast."""
    traces = simulate_versions(TieredFetchScenario(duration_ms=10_000))
    per_fetch = {v: t.fetches.query("consumer_kind == 'catch_up'").reads_scheduled.max()
                 for v, t in traces.items()}
    assert per_fetch == {"4.1": 1, "4.2": 4}
    remote = {v: t.fetches.remote_bytes.sum() for v, t in traces.items()}
    assert remote["4.2"] == 4 * remote["4.1"]


def test_delayed_remote_fetch_holds_the_local_partitions_data():
    """The catch-up consumer's local partitions are answered only with its remote reads (100 ms
    latency + 10 ms transfer + 2 ms round trip); the tail consumer's never wait that long."""
    t = simulate(TieredFetchScenario(duration_ms=5_000))
    f = t.fetches.assign(latency=t.fetches.answered_ms - t.fetches.sent_ms)
    assert f.query("consumer_kind == 'catch_up'").latency.min() == 112.0
    assert f.query("consumer_kind == 'tail'").latency.max() < 100


def test_a_fetch_with_nothing_to_read_waits_for_the_next_batch_and_returns_it():
    """DelayedFetch (fetch.min.bytes 1): a tail consumer finds no whole batch, so the broker
    parks its fetch until a 16 KiB batch lands (every 62.5 ms at 256 KiB/s) and answers with
    it; no fetch comes back empty, and none waits fetch.max.wait.ms."""
    t = simulate(TieredFetchScenario(duration_ms=5_000, catch_up_consumers=0))
    f = t.fetches.assign(latency=t.fetches.answered_ms - t.fetches.sent_ms)
    assert (f.local_bytes > 0).all()
    assert f.latency.iloc[1:].eq(62.5).all()  # a batch every 62.5 ms, 2 ms of it on the wire
    assert f.latency.max() < 500


def test_reads_not_started_before_remote_fetch_max_wait_are_cancelled():
    """One reader thread, two catch-up consumers of four partitions, 4.2: eight reads of
    110 ms queue for one thread; those not started by remote.fetch.max.wait.ms (200) are
    cancelled and their partitions come back empty."""
    s = TieredFetchScenario(duration_ms=3_000, remote_log_reader_threads=1, catch_up_consumers=2,
                            remote_fetch_max_wait_ms=200)
    reads = simulate(s).reads
    assert (reads.started_ms == -1).any() and not reads.served[reads.started_ms == -1].any()


def test_a_full_reader_queue_refuses_the_read_at_once():
    """``remote.log.reader.max.pending.tasks`` 2 with one thread and three catch-up consumers
    (4.2 on: four reads a fetch): reads beyond the queue are refused (``RejectedExecutionException``
    in ``ReplicaManager.processRemoteFetch``: answered at once, no data); 100 refuses none."""
    s = TieredFetchScenario(duration_ms=3_000, remote_log_reader_threads=1, catch_up_consumers=3,
                            remote_log_reader_max_pending_tasks=2)
    reads = simulate(s).reads
    refused = (reads.started_ms == -1) & (reads.done_ms == reads.submitted_ms)
    assert refused.any() and not reads.served[refused].any()
    reads = simulate(replace(s, remote_log_reader_max_pending_tasks=100)).reads
    assert not ((reads.started_ms == -1) & (reads.done_ms == reads.submitted_ms)).any()


def test_the_fetch_quota_returns_remote_partitions_empty_and_bounds_the_rate():
    """KIP-956: at 2 MiB/s the remote bytes read over 20 s stay near 2 MiB/s (SimpleRate lets a
    burst through first), and some requests are throttled."""
    s = TieredFetchScenario(duration_ms=20_000, remote_fetch_max_bytes_per_s=2 * MiB)
    f = simulate(s).fetches
    assert f.quota_throttled.any()
    assert f.remote_bytes.sum() <= 2 * MiB * 20 + 4 * MiB


@pytest.mark.parametrize(("kwargs", "match"), [
    ({"kafka_version": "3.5"}, r"kafka_version must be 3\.6 or later"),
    ({"remote_log_reader_threads": 0},
     r"remote_log_reader_threads \(remote\.log\.reader\.threads\) must be an integer >= 1: 0"),
    ({"remote_fetch_max_bytes_per_s": 0}, r"remote\.log\.manager\.fetch\.max\.bytes\.per\.second"),
    ({"segment_bytes": 10}, r"segment_bytes \(log\.segment\.bytes\) must be >= batch_bytes "
                            r"\(16384\): 10"),
    ({"rtt_ms": 0}, r"rtt_ms must be a number > 0"),
])
def test_bad_settings_name_the_kafka_setting(kwargs, match):
    """Bad values raise ValueError naming the setting and the rule."""
    with pytest.raises(ValueError, match=match):
        TieredFetchScenario(**kwargs)


@given(tiered_scenarios())
@settings(max_examples=examples(0.8))
def test_any_scenario_keeps_kafkas_limits_and_the_compiled_kernel_equals_the_plain_one(s):
    """For any settings: before 4.2 a request starts at most one remote read, from 4.2 a
    response stays within max(fetch.max.bytes, one batch) (KAFKA-19462); a read is served only
    if it started; no fetch is answered before it was sent; compiled equals plain Python."""
    trace = simulate(s)
    f, r = trace.fetches, trace.reads
    if s.kafka_version in ("4.2", "4.3"):
        assert (f.response_bytes <= max(s.fetch_max_bytes, s.batch_bytes)).all()
    else:
        assert (f.reads_scheduled <= 1).all()
    assert (f.reads_served <= f.reads_scheduled).all() and (f.answered_ms > f.sent_ms).all()
    assert not (r.served & (r.started_ms < 0)).any()
    plain = simulate(s, compiled=False)
    for table in ("fetches", "reads", "deliveries"):
        pd.testing.assert_frame_equal(getattr(trace, table), getattr(plain, table))


def test_kip_1023_a_new_follower_starts_at_the_earliest_pending_upload_offset():
    """Branch 4.3, KIP-1023 (``RemoteLeaderEndPoint``, ``ListOffsets``'
    ``EARLIEST_PENDING_UPLOAD_TIMESTAMP``): with ``follower.fetch.last.tiered.offset.enable`` a
    new follower starts at max(highest remote offset + 1, log start), copying only what is not
    yet uploaded; disabled, or before 4.3, at the leader's local log start."""
    from kipviz.kafka.tiered.replica import follower_start_offset

    offsets = {"log_start_offset": 100, "local_log_start_offset": 500,
               "highest_remote_offset": 899}
    assert follower_start_offset("4.3", True, **offsets) == 900
    assert follower_start_offset("4.3", False, **offsets) == 500
    assert follower_start_offset("4.2", True, **offsets) == 500
    assert follower_start_offset("4.3", True, log_start_offset=100, local_log_start_offset=100,
                                 highest_remote_offset=-1) == 100  # nothing uploaded yet


def test_reader_queue_table_counts_the_refused_reads():
    """``reader_queue_table``: none refused under the default 100, some under 2."""
    from kipviz.scenarios.tiered_fetch.scenario import reader_queue_table

    s = TieredFetchScenario(duration_ms=2_000, remote_log_reader_threads=1, catch_up_consumers=3)
    table = reader_queue_table(s, (100, 2))
    assert list(table["refused"] > 0) == [False, True]
