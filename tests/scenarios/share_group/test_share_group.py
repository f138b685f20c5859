"""The share-group scenario (issue 20, item 2): its kernel compiled and plain, its SimPy
reference table for table, the share assignor, and what the lesson will show."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings

from kipviz.kafka.share.assign import simple_assign
from kipviz.scenarios.share_group.scenario import ShareGroupScenario, range_assign, simulate
from tests.strategies import examples, share_seeds, small_share_group_scenarios
from tools.oracles.simpy_share_group import simulate_simpy

SMALL = {
    "8 consumers on 2 partitions, 2 stalled": ShareGroupScenario(
        partitions=2, share_consumers=8, classic_consumers=8, stalled_consumers=2,
        produce_records_per_s=2000, initial_lag_records=2000, record_lock_duration_ms=500,
        delivery_count_limit=3, ticks=200, max_poll_records=100),
    "3 brokers, a budget smaller than the partitions (one byte each)": ShareGroupScenario(
        partitions=7, brokers=3, share_consumers=3, classic_consumers=2, fetch_max_bytes=2,
        produce_records_per_s=500, initial_lag_records=100, record_bytes=100, ticks=150),
    "record_limit, an uneven split, a tight lock cap": ShareGroupScenario(
        partitions=3, share_consumers=5, classic_consumers=3, acquire_mode="record_limit",
        fetch_max_bytes=100_003, max_record_locks=30, batch_records=7, max_poll_records=13,
        initial_lag_records=700, produce_records_per_s=3000, stalled_consumers=1,
        record_lock_duration_ms=200, delivery_count_limit=2, ticks=150),
    "Kafka 4.0: PartitionMaxBytes, no MaxRecords, the lock cap before the fetch only":
    ShareGroupScenario(
        partitions=3, brokers=2, share_consumers=4, classic_consumers=2, stalled_consumers=1,
        max_partition_fetch_bytes=2500, max_record_locks=30, batch_records=5, record_bytes=100,
        initial_lag_records=500, produce_records_per_s=3000, record_lock_duration_ms=200,
        delivery_count_limit=3, ticks=120, kafka_version="4.0"),
    "Kafka 4.2, record_limit on 3 brokers: one node per poll (KAFKA-19767)": ShareGroupScenario(
        partitions=5, brokers=3, share_consumers=3, classic_consumers=2, stalled_consumers=1,
        acquire_mode="record_limit", fetch_max_bytes=50_001, max_poll_records=11,
        batch_records=4, record_bytes=100, initial_lag_records=400,
        produce_records_per_s=2000, record_lock_duration_ms=150, delivery_count_limit=4,
        ticks=120, kafka_version="4.2"),
}


def _assert_same(a, b):
    for name in ("deliveries", "consumers", "partitions"):
        x, y = getattr(a, name), getattr(b, name)
        assert list(x.dtypes.items()) == list(y.dtypes.items())
        assert x.equals(y), (name, x.compare(y))


@pytest.mark.parametrize("name", list(SMALL))
def test_simpy_reference_tables_equal_the_kernels(name):
    """The SimPy program (processes, deques, the same mechanisms) gives the kernel's tables."""
    scenario = SMALL[name]
    _assert_same(simulate(scenario, seed=3, compiled=False), simulate_simpy(scenario, seed=3))


@pytest.mark.parametrize("name", list(SMALL))
def test_the_compiled_kernel_gives_the_plain_kernels_tables(name):
    """numba compiles the very function the plain run uses, mechanisms included."""
    scenario = SMALL[name]
    _assert_same(simulate(scenario, seed=5), simulate(scenario, seed=5, compiled=False))


@settings(max_examples=examples(0.3))
@given(s=small_share_group_scenarios(), seed=share_seeds)
def test_simpy_and_kernel_agree_on_random_small_scenarios(s, seed):
    """Any small scenario on any release: the same tables, and in-flight records within the
    release's bound (cap + batch - 1 from 4.2; cap - 1 + one acquire before)."""
    kernel = simulate(s, seed=seed, compiled=False)
    _assert_same(kernel, simulate_simpy(s, seed=seed))
    bound = kernel.meta["in_flight_bound_records"]
    assert bound is None or kernel.partitions.in_flight_records.max() <= bound


def _processed(trace, group):
    rows = trace.consumers[trace.consumers.group == group]
    return rows.groupby("consumer").processed.sum().to_numpy()


def test_eight_share_consumers_on_two_partitions_share_evenly_where_a_classic_group_idles():
    """8 consumers of 500 records/s each on 2 partitions with a 10,000-record backlog: the
    classic group has 6 idle consumers (2,000 records each for the 2 working, in 4 s); the share
    group's 8 all work (1,995 each, Jain's index 1.0): it scales past the partition count."""
    s = ShareGroupScenario(partitions=2, share_consumers=8, classic_consumers=8,
                           produce_records_per_s=5000, initial_lag_records=10_000, ticks=400,
                           max_poll_records=100)
    trace = simulate(s)
    share, classic = _processed(trace, "share"), _processed(trace, "classic")
    assert classic.tolist() == [2000, 2000, 0, 0, 0, 0, 0, 0]
    assert share.tolist() == [1995] * 8
    assert share.sum() ** 2 / (8 * (share**2).sum()) == pytest.approx(1.0)
    held = trace.consumers[trace.consumers.group == "share"].held_bytes.max()
    assert held == 100 * 1000  # max.poll.records x record size


def test_a_stalled_consumers_records_are_redelivered_after_the_lock_and_then_archived():
    """A stalled consumer takes 0-9 at 0 ms; its lock (300 ms) expires and the records go out
    again; with a delivery limit of 2 the ones it holds twice are archived, never lost."""
    s = ShareGroupScenario(partitions=1, share_consumers=3, classic_consumers=0,
                           stalled_consumers=1, produce_records_per_s=0, initial_lag_records=50,
                           batch_records=10, ticks=200, record_lock_duration_ms=300,
                           delivery_count_limit=2, max_poll_records=10,
                           process_records_per_s=100)
    trace = simulate(s)
    d = trace.deliveries
    first = d[(d.consumer == 0) & (d.time_ms == 0)]
    assert first.acquired.tolist() == [10]
    assert d.redelivered.sum() > 0 and d[d.redelivered > 0].time_ms.min() >= 300
    last = trace.partitions.iloc[-1]
    assert last.archived_records == 10 and last.in_flight_records == 0
    assert d.acknowledged.sum() + last.archived_records == 50


def test_simple_assignor_balances_members_and_shares_partitions():
    """Every partition assigned, members within one partition of each other, each partition
    shared by ceil(members / partitions) members when there are at least as many members."""
    for members in range(1, 12):
        for partitions in range(1, 9):
            got = simple_assign(members, partitions)
            sizes = [len(x) for x in got]
            assert max(sizes) - min(sizes) <= 1
            holders = [sum(p in x for x in got) for p in range(partitions)]
            assert min(holders) >= 1
            if members >= partitions:
                assert max(holders) == -(-members // partitions)


def test_range_assignor_leaves_consumers_beyond_the_partitions_idle():
    """``RangeAssignor``: 7 partitions over 3 consumers is 3, 2, 2; 8 over 2 partitions: 6 idle."""
    assert range_assign(3, 7).tolist() == [0, 0, 0, 1, 1, 2, 2]
    assert range_assign(8, 2).tolist() == [0, 1]


@pytest.mark.parametrize(("kwargs", "match"), [
    ({"stalled_consumers": 9}, "stalled_consumers must be <= share_consumers"),
    ({"acquire_mode": "fast"}, r"share.acquire.mode\) must be one of"),
    ({"initial_lag_records": 15}, "whole batches"),
    ({"fetch_max_bytes": 0}, r"fetch_max_bytes \(fetch.max.bytes\) must be an integer >= 1"),
])
def test_bad_scenarios_are_rejected(kwargs, match):
    """Settings errors name the setting and the rule."""
    with pytest.raises(ValueError, match=match):
        replace(ShareGroupScenario(), **kwargs)


def test_the_seed_only_moves_the_random_remainder():
    """With an even split no random draw is used: every seed gives the same tables."""
    s = replace(SMALL["8 consumers on 2 partitions, 2 stalled"], ticks=60)
    _assert_same(simulate(s, seed=0, compiled=False), simulate(s, seed=9, compiled=False))
    assert np.isfinite(s.capacity_records)
