"""KIP-74 fetch response rules, on worked numbers and as properties."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given

from kipviz.kafka.fetch.request import (
    Ordering,
    PartitionStates,
    TopicPartition,
    java_hash_order,
    next_order,
)
from kipviz.kafka.fetch.response import (
    PartitionData,
    effective_response_max_bytes,
    fill_response,
)
from tests.strategies import byte_limits, fetch_limits, partition_logs, round_robin_logs

MiB = 1024 * 1024


def raws(parts: list[PartitionData]) -> list[int]:
    return [p.raw_bytes for p in parts]


def test_a_batch_bigger_than_max_partition_fetch_bytes_is_returned_whole_in_the_first_partition():
    """The first-batch exception: a 2 MiB batch comes back although the partition limit is 1 MiB."""
    out = fill_response([[2 * MiB]], response_max_bytes=50 * MiB, partition_max_bytes=1 * MiB)
    assert out == [PartitionData(raw_bytes=2 * MiB, complete_batches=1)]


def test_the_first_batch_exception_applies_to_the_first_non_empty_partition_only():
    """An empty first partition does not use up the exception; a second big batch is emptied."""
    out = fill_response([[], [2 * MiB], [2 * MiB]], response_max_bytes=50 * MiB,
                        partition_max_bytes=1 * MiB)
    assert raws(out) == [0, 2 * MiB, 0]


def test_a_partial_tail_batch_counts_as_raw_bytes_but_not_as_a_complete_batch():
    """Raw log bytes up to the budget may end inside a batch; the consumer drops that tail."""
    out = fill_response([[400, 400, 400]], response_max_bytes=10_000, partition_max_bytes=1000)
    assert out == [PartitionData(raw_bytes=1000, complete_batches=2)]


def test_an_emptied_oversized_batch_does_not_consume_the_response_budget():
    """firstEntryIncomplete: the partition returns nothing and the limit is unchanged."""
    out = fill_response([[100], [5000], [100]], response_max_bytes=1000, partition_max_bytes=1000)
    assert raws(out) == [100, 0, 100]


def test_partitions_after_the_response_limit_is_reached_get_nothing():
    """KIP-74: "Empty response limits will be returned for all partitions that didn't fit"."""
    out = fill_response([[600], [600], [600]], response_max_bytes=1000, partition_max_bytes=1000)
    assert raws(out) == [600, 0, 0]


def test_a_response_limit_of_zero_still_returns_the_first_batch():
    """A fetch always makes progress, whatever fetch.max.bytes says."""
    out = fill_response([[500], [500]], response_max_bytes=0, partition_max_bytes=1000)
    assert raws(out) == [500, 0]


def test_version_2_returns_a_partial_batch_that_the_consumer_cannot_parse():
    """Before KIP-74 a batch above max.partition.fetch.bytes meant RecordTooLargeException."""
    (v2,) = fill_response([[2000]], response_max_bytes=10_000, partition_max_bytes=1000, version=2)
    assert v2 == PartitionData(raw_bytes=1000, complete_batches=0)
    assert v2.record_too_large
    (v3,) = fill_response([[2000]], response_max_bytes=10_000, partition_max_bytes=1000)
    assert v3 == PartitionData(raw_bytes=2000, complete_batches=1)
    assert not v3.record_too_large


def test_per_partition_limits_can_differ():
    """``partition_max_bytes`` may carry one limit per partition, as the request does."""
    out = fill_response([[300, 300], [300, 300]], response_max_bytes=10_000,
                        partition_max_bytes=[300, 600])
    assert out == [PartitionData(300, 1), PartitionData(600, 2)]


def test_the_response_limit_is_the_smaller_of_consumer_and_broker_fetch_max_bytes():
    """Defaults: consumer 50 MiB against broker 55 MiB."""
    assert effective_response_max_bytes(52428800) == 52428800
    assert effective_response_max_bytes(60 * MiB) == 57671680


def test_a_fetch_quota_caps_the_response_at_window_num_minus_one_windows_of_quota():
    """ClientQuotaManager.getMaxValueInQuotaWindow: 1 MiB/s * (11 - 1) * 1 s = 10 MiB."""
    assert effective_response_max_bytes(52428800, fetch_quota_bytes_per_s=MiB) == 10 * MiB
    assert effective_response_max_bytes(
        52428800, fetch_quota_bytes_per_s=1000.9, quota_window_num=3, quota_window_size_s=2
    ) == 4003


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"response_max_bytes": -1}, "response_max_bytes must be an integer >= 0: -1"),
        ({"partition_max_bytes": -5},
         r"partition_max_bytes \(max.partition.fetch.bytes\) must be an integer >= 0: -5"),
        ({"partition_max_bytes": [1, 2, 3]}, "one value per partition: 3 values for 2 partitions"),
        ({"version": True}, "version must be an integer: True"),
    ],
)
def test_bad_fill_arguments_are_rejected_with_the_rule(kwargs, message):
    """Negative sizes, wrong lengths and booleans are errors, never clamped."""
    args = {"response_max_bytes": 100, "partition_max_bytes": 100} | kwargs
    with pytest.raises(ValueError, match=message):
        fill_response([[10], [10]], **args)


def test_a_record_batch_of_zero_bytes_is_rejected():
    """A record batch has at least a header, so a size below 1 is a mistake."""
    with pytest.raises(ValueError, match="record batch size must be an integer >= 1: 0"):
        fill_response([[0]], response_max_bytes=10, partition_max_bytes=10)


def test_a_broker_fetch_max_bytes_below_1024_is_rejected():
    """Kafka's broker config declares fetch.max.bytes atLeast(1024)."""
    with pytest.raises(ValueError, match=r"broker fetch.max.bytes\) must be an integer >= 1024: "
                                         r"1000"):
        effective_response_max_bytes(100, broker_fetch_max_bytes=1000)


def test_a_fetch_quota_must_be_positive():
    """A zero quota would block every fetch; it is a configuration mistake."""
    with pytest.raises(ValueError, match="consumer_byte_rate"):
        effective_response_max_bytes(100, fetch_quota_bytes_per_s=0)


@given(partition_logs, byte_limits, byte_limits)
def test_a_response_never_exceeds_the_larger_of_its_limit_and_the_first_batch(logs, limit, pmax):
    """KIP-74's guarantee: size <= max(max_bytes, first batch of the first non-empty partition)."""
    out = fill_response(logs, response_max_bytes=limit, partition_max_bytes=pmax)
    first = next((log[0] for log in logs if log), 0)
    assert sum(raws(out)) <= max(limit, first)


@given(partition_logs, byte_limits, byte_limits)
def test_a_fetch_makes_progress_whenever_some_partition_has_data(logs, limit, pmax):
    """At least one whole batch comes back if any partition has one."""
    out = fill_response(logs, response_max_bytes=limit, partition_max_bytes=pmax)
    if any(logs):
        assert sum(p.complete_batches for p in out) >= 1


@given(partition_logs, byte_limits, byte_limits)
def test_each_partition_returns_nothing_or_at_least_its_first_whole_batch(logs, limit, pmax):
    """From v3 on, a partition never returns only a fragment of its first batch."""
    out = fill_response(logs, response_max_bytes=limit, partition_max_bytes=pmax)
    for log, part in zip(logs, out, strict=True):
        assert part.raw_bytes == 0 or part.raw_bytes >= log[0]
        assert part.raw_bytes <= sum(log)
        assert sum(log[: part.complete_batches]) <= part.raw_bytes


@given(round_robin_logs, fetch_limits, fetch_limits)
def test_round_robin_never_starves_a_partition_with_data_for_more_than_p_fetches(logs, limit, pmax):
    """Moving partitions that returned bytes to the end serves every backlogged one within P."""
    tps = [TopicPartition("t", i) for i in range(len(logs))]
    states = PartitionStates(tps)
    waited = dict.fromkeys(tps, 0)
    for _ in range(3 * len(tps)):
        order = states.order()
        out = fill_response([logs[tp.partition] for tp in order], response_max_bytes=limit,
                            partition_max_bytes=pmax)
        for tp, part in zip(order, out, strict=True):
            waited[tp] = 0 if part.complete_batches else waited[tp] + 1
            assert waited[tp] < len(tps)
            if part.raw_bytes:
                states.move_to_end(tp)


def test_a_fixed_order_starves_the_slow_partitions_behind_the_fast_ones():
    """The KIP's example: A and B have far more data than fits, so C and D get nothing."""
    logs = [[1000] * 10, [1000] * 10, [1000], [1000]]
    for _ in range(5):
        out = fill_response(logs, response_max_bytes=2000, partition_max_bytes=1000)
        assert raws(out) == [1000, 1000, 0, 0]


def test_next_order_round_robin_matches_kafka_partition_states():
    """The array form used by scenarios gives the same order as PartitionStates.move_to_end."""
    tps = [TopicPartition("t", i) for i in range(6)]
    states = PartitionStates(tps)
    returned = np.array([False, True, False, True, True, False])
    for i in np.flatnonzero(returned):
        states.move_to_end(tps[i])
    order = np.arange(6)
    next_order(order, returned, Ordering.ROUND_ROBIN, np.zeros(6))
    assert [tps[i] for i in order] == states.order()


def test_next_order_random_is_a_permutation_and_fixed_keeps_the_order():
    """Random shuffles by the given keys; fixed and hash orders never change."""
    order = np.arange(5)
    next_order(order, np.ones(5, bool), Ordering.RANDOM, np.array([0.5, 0.1, 0.9, 0.3, 0.7]))
    assert order.tolist() == [1, 3, 0, 4, 2]
    for ordering in (Ordering.FIXED, Ordering.HASH):
        same = np.arange(5)
        next_order(same, np.ones(5, bool), ordering, np.zeros(5))
        assert same.tolist() == [0, 1, 2, 3, 4]


def test_partition_states_group_by_topic_and_ignore_moves_of_unknown_partitions():
    """PartitionStates.set groups partitions by topic in order of first appearance."""
    a0, b0, a1 = TopicPartition("a", 0), TopicPartition("b", 0), TopicPartition("a", 1)
    states = PartitionStates([a0, b0, a1])
    assert states.order() == [a0, a1, b0]
    states.move_to_end(TopicPartition("c", 9))
    assert len(states) == 3
    states.update_and_move_to_end(TopicPartition("c", 9))
    assert states.order()[-1] == TopicPartition("c", 9)
    assert str(a1) == "a-1"


def test_topic_partition_hash_matches_java():
    """TopicPartition.hashCode(): 31 * (31 + partition) + topic.hashCode(), with int overflow."""
    assert TopicPartition("hello", 0).java_hash() == 961 + 99162322
    assert TopicPartition("polygenelubricants", 0).java_hash() == 961 - 2**31


def test_java_hash_order_is_the_hash_set_iteration_order():
    """Small sets use 16 buckets, indexed by the spread hash; it is not the assignment order."""
    tps = [TopicPartition("orders", i) for i in range(12)]
    order = java_hash_order(tps)
    assert sorted(order) == list(range(12))
    buckets = []
    for i in order:
        h = tps[i].java_hash() & 0xFFFFFFFF
        buckets.append((h ^ (h >> 16)) & 15)
    assert buckets == sorted(buckets)
