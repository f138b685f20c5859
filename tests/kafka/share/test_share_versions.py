"""KIP-932 by Kafka release (issue 28): each share-group rule that changed between 4.0 and 4.3 on
Kafka's own tests from the branch that has it, and the scenario's answers where they differ."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from kipviz.kafka.config.declarations import BROKER, GROUP
from kipviz.kafka.config.versions import BEHAVIOURS, has
from kipviz.kafka.share.consumer import record_limit_fetch_node
from kipviz.kafka.share.fetch import SharePartition
from kipviz.kafka.share.group import can_compute_next_target_assignment, effective_group_setting
from kipviz.kafka.share.releases import (
    INT_MAX,
    acquire_settings,
    default_max_record_locks,
    in_flight_bound,
    max_fetch_records,
    share_fetch_version,
)
from kipviz.scenarios.share_group.scenario import ShareGroupScenario, simulate

SHARE_RELEASES = ("4.0", "4.1", "4.2", "4.3")


def test_share_group_config_record_locks_default_200_in_4_0_and_2000_from_4_1():
    """``ShareGroupConfig.SHARE_GROUP_PARTITION_MAX_RECORD_LOCKS_DEFAULT``: 200 on branch 4.0,
    2000 on 4.1 (KAFKA-19245), declared once with its versions (``Setting.default_until``)."""
    locks = BROKER["group.share.partition.max.record.locks"]
    assert [locks.default_in(v) for v in SHARE_RELEASES] == [200, 2000, 2000, 2000]
    assert locks.default == 2000 and locks.default_until == ((200, "4.1"),)
    assert [default_max_record_locks(v) for v in ("4.0", "4.3")] == [200, 2000]
    assert BROKER["group.share.delivery.count.limit"].default_in("4.0") == 5  # never changed


def test_share_fetch_request_versions_by_release():
    """``ShareFetchRequest.json`` validVersions: "0" on 4.0 (``PartitionMaxBytes``, no
    ``MaxRecords``: the broker's internal ``Integer.MAX_VALUE``), v1 in 4.1 (``MaxRecords``,
    ``BatchSize``, KAFKA-19018), v2 from 4.2 (``ShareAcquireMode``, KIP-1206)."""
    assert [share_fetch_version(v) for v in SHARE_RELEASES] == [0, 1, 2, 2]
    assert max_fetch_records("4.0", 500) == INT_MAX and max_fetch_records("4.1", 500) == 500
    with pytest.raises(ValueError, match=r"kafka_version must be 4.0 or later"):
        share_fetch_version("3.9")


def test_share_partition_test_4_1_cap_is_checked_before_the_fetch_only():
    """Branch 4.1, ``SharePartitionTest.testMaybeUpdateCachedStateWhenAcknowledgementsFromBeginning
    ForBatchSubset``: cap 20, 15 records acquired, ``canAcquireRecords`` still true, the next 15
    are all acquired (30 in flight). On 4.2 (KAFKA-19555, ``testAcquireWithMaxInFlightRecordsAnd
    TryAcquireNewBatch``) the same cap stops inside the log batch holding record 20."""
    old = SharePartition([15, 15], max_in_flight_records=20, kafka_version="4.1")
    assert len(old.acquire(0, fetched_last_offset=14)) == 15 and old.in_flight_records < 20
    assert len(old.acquire(0)) == 15 and old.in_flight_records == 30
    new = SharePartition([10, 5, 10, 5, 2], max_in_flight_records=20, kafka_version="4.2")
    assert len(new.acquire(0, fetched_last_offset=9)) == 10
    assert new.acquire(0) == list(range(10, 25))
    old = SharePartition([10, 5, 10, 5, 2], max_in_flight_records=20, kafka_version="4.1")
    assert len(old.acquire(0, fetched_last_offset=9)) == 10
    assert old.acquire(0) == list(range(10, 32))  # no cap inside acquire: all it was given


def _persisted(sp: SharePartition, first: int, last: int, deliveries: int) -> None:
    """Records ``first..last`` cached AVAILABLE with ``deliveries`` (as ``PersisterStateBatch``)."""
    sp.acquire(0, fetch_offset=first, fetched_last_offset=last, max_fetch_records=INT_MAX)
    sp.acknowledge(0, first, last, 2)  # RELEASE
    sp.delivery[first:last + 1] = deliveries


def test_share_partition_test_4_2_halves_near_the_delivery_limit_and_4_1_does_not():
    """Branch 4.2, ``SharePartitionTest.testAcquireRecordsHalvesBatchSizeOnEachFailureUntil
    SingleRecordOnLastAttempt`` (KAFKA-17541 part 2): limit 7, batch 15-34 at 4 deliveries goes
    out 10 records (20 >> 1). Branch 4.1 has no ``throttleRecordsDeliveryLimit``: all 20."""
    for version, expected in (("4.2", list(range(15, 25))), ("4.1", list(range(15, 35)))):
        sp = SharePartition([20], max_delivery_count=7, lock_duration_ms=100, start_offset=15,
                            kafka_version=version)
        _persisted(sp, 15, 34, 4)
        assert sp.acquire(0, fetch_offset=15) == expected, version


def test_record_limit_needs_kafka_4_2():
    """``share.acquire.mode`` (KIP-1206) is 4.2's: before, a share fetch is batch-optimized."""
    with pytest.raises(ValueError, match=r"share.acquire.mode\) must be batch_optimized before"):
        ShareGroupScenario(acquire_mode="record_limit", kafka_version="4.1")
    assert acquire_settings("4.2", max_record_locks=2000, delivery_count_limit=5,
                            acquire_mode="record_limit", max_poll_records=500,
                            lock_duration_ms=30_000).record_limit


def test_share_consume_request_manager_fetches_one_node_at_a_time_for_record_limit_mode():
    """Branch 4.2, ``ShareConsumeRequestManagerTest.testFetchOneNodeAtATimeForRecordLimitMode``
    (KAFKA-19767): tp0 led by node 0, tp1 by node 1; the first poll fetches records from node 0,
    the second from node 1, the third from node 0 again (``movePartitionToEnd``)."""
    order, leader = np.array([0, 1]), np.array([0, 1])
    assert [record_limit_fetch_node(order, 2, leader) for _ in range(3)] == [0, 1, 0]
    assert record_limit_fetch_node(order, 0, leader) == -1
    assert not has("4.1", "share_record_limit_one_node") and has("4.2",
                                                                  "share_record_limit_one_node")


def test_group_config_clamps_to_the_brokers_bounds_kip_1240():
    """Branch 4.3, KIP-1240 (``GroupConfig.evaluate`` -> ``clampToRange``): a group's
    ``share.partition.max.record.locks`` is clamped to ``group.share.{min,max}.partition.max.
    record.locks`` (100, 4000); unset, the broker's own setting applies."""
    low, high = (BROKER[f"group.share.{b}.partition.max.record.locks"].default
                 for b in ("min", "max"))
    assert (low, high) == (100, 4000)
    assert [effective_group_setting(v, 2000, low, high) for v in (None, 50, 3000, 9000)] == [
        2000, 100, 3000, 4000]
    assert GROUP["share.delivery.count.limit"].default is None


def test_share_assignment_waits_for_the_interval_kip_1263():
    """Branch 4.3, KIP-1263 (``GroupMetadataManager.canComputeNextTargetAssignment``): the first
    assignment at once, the next only ``group.share.assignment.interval.ms`` (1 s) later."""
    interval = BROKER["group.share.assignment.interval.ms"].default
    assert interval == 1000
    assert can_compute_next_target_assignment(0, interval, 5)
    assert not can_compute_next_target_assignment(10_000, interval, 10_999)
    assert can_compute_next_target_assignment(10_000, interval, 11_000)
    assert can_compute_next_target_assignment(10_000, 0, 10_000)


def test_the_in_flight_bound_follows_the_release():
    """From 4.2 cap + batch - 1; before, none (a fetch starting among released records passes
    the cap by up to MaxRecords, each time)."""
    assert in_flight_bound("4.3", 20, 10) == 29
    assert in_flight_bound("4.1", 20, 10) is None


# a tight lock cap under a large MaxRecords: the releases' rules part here
TIGHT = ShareGroupScenario(
    partitions=2, brokers=1, share_consumers=4, classic_consumers=2, stalled_consumers=1,
    produce_records_per_s=2000.0, initial_lag_records=2000, record_bytes=1000,
    batch_records=10, max_poll_records=100, max_record_locks=20,
    max_partition_fetch_bytes=65536, record_lock_duration_ms=200, delivery_count_limit=4,
    ticks=120)


def test_the_scenario_answers_differently_on_4_0_4_1_and_4_3():
    """The same group on three releases: 4.1 overshoots the lock cap by a whole MaxRecords
    (checked before the fetch only), 4.3 by less than a batch; 4.0 reads 64 KiB per partition
    with no MaxRecords and defaults the cap to 200."""
    runs = {v: simulate(replace(TIGHT, kafka_version=v)) for v in ("4.0", "4.1", "4.3")}
    peak = {v: int(t.partitions.in_flight_records.max()) for v, t in runs.items()}
    assert peak["4.3"] <= runs["4.3"].meta["in_flight_bound_records"] == 20 + 10 - 1
    assert peak["4.1"] > 100 and runs["4.1"].meta["in_flight_bound_records"] is None
    assert peak["4.0"] != peak["4.1"]
    assert not runs["4.0"].deliveries.equals(runs["4.1"].deliveries)
    assert runs["4.0"].meta["kafka_version"] == "4.0"
    assert replace(TIGHT, max_record_locks=None, kafka_version="4.0").record_locks == 200
    assert replace(TIGHT, max_record_locks=None).record_locks == 2000


def test_record_limit_on_4_2_holds_one_nodes_records():
    """KAFKA-19767 in the scenario: with 3 brokers a ``record_limit`` consumer on 4.2 asks one
    node per poll, so its memory bound is one response, not three."""
    s = replace(TIGHT, brokers=3, partitions=3, share_consumers=1, stalled_consumers=0,
                acquire_mode="record_limit", kafka_version="4.2")
    meta = simulate(s).meta
    assert meta["leaders"] == 3 and meta["fetch_nodes"] == 1
    assert meta["memory_bound_bytes"] == meta["response_max_bytes"]


def test_every_share_rule_is_a_row_of_the_version_table():
    """Each share-group release rule is in ``versions.BEHAVIOURS`` with its release."""
    since = {b.name: b.since for b in BEHAVIOURS if b.area == "share"}
    assert since == {"share_groups": "4.0", "share_record_locks_2000": "4.1",
                     "share_fetch_max_records": "4.1", "share_batch_size": "4.1",
                     "share_lock_cap_in_acquire": "4.2", "share_throttle_delivery": "4.2",
                     "share_acquire_mode": "4.2", "share_record_limit_one_node": "4.2",
                     "share_group_configs": "4.3", "share_assignment_interval": "4.3"}


def test_release_table_and_fetch_nodes_table_are_what_lesson_7_prints():
    """One row per release and lock cap (the bound "none" before 4.2); one per acquire mode."""
    from kipviz.scenarios.share_group.versions import fetch_nodes_table, release_table

    table = release_table(TIGHT, ("4.1", "4.3"), lock_caps=(None, 20))
    assert list(table["kafka"]) == ["4.1", "4.1", "4.3", "4.3"]
    assert list(table["lock cap"]) == [2000, 20, 2000, 20]
    assert list(table["bound"]) == ["none", "none", 2009, 29]
    nodes = fetch_nodes_table(replace(TIGHT, brokers=3, partitions=3, share_consumers=1,
                                      stalled_consumers=0, kafka_version="4.2"))
    assert list(nodes["nodes fetched per poll"]) == [3, 1]
