"""Produce-rate profiles and producer batching."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given

from kipviz.scenarios.workload import (
    RECORD_BATCH_OVERHEAD_BYTES,
    Workload,
    partition_rates,
    produce,
)
from tests.strategies import workload_shapes


@pytest.mark.parametrize("profile", ["uniform", "zipf", "fast_slow", "bursts"])
def test_partition_rates_sum_to_the_total_produce_rate(profile):
    """Every profile only spreads the total; it never adds or loses bytes."""
    rates = partition_rates(Workload(profile=profile, produce_bytes_per_s=1e6), 7)
    assert rates.sum() == pytest.approx(1e6)


def test_fast_slow_gives_the_first_partitions_the_fast_rate():
    """KIP-74's example: A and B ten times faster than C and D."""
    rates = partition_rates(Workload(profile="fast_slow", produce_bytes_per_s=22,
                                     fast_to_slow_ratio=10), 4)
    assert rates.tolist() == pytest.approx([10, 10, 1, 1])


def test_zipf_rates_fall_as_one_over_rank_to_the_power_s():
    """Partition k (1-based rank) gets a share proportional to 1 / k**s."""
    rates = partition_rates(Workload(profile="zipf", zipf_s=1.0, produce_bytes_per_s=1), 3)
    assert rates.tolist() == pytest.approx(np.array([1, 1 / 2, 1 / 3]) / (11 / 6))


def test_the_same_seed_gives_the_same_batches_and_another_seed_does_not():
    """Scenarios are deterministic for a seed."""
    w = Workload(profile="bursts", produce_bytes_per_s=5e6)
    a, b = produce(w, 5, 300, 10, seed=3), produce(w, 5, 300, 10, seed=3)
    c = produce(w, 5, 300, 10, seed=4)
    assert np.array_equal(a.size_bytes, b.size_bytes) and np.array_equal(a.tick, b.tick)
    assert not np.array_equal(a.size_bytes, c.size_bytes)


def test_a_backlog_is_written_as_full_batches_at_tick_zero():
    """initial_lag_bytes = 10 full batches of 16 records of 1 KiB (batch.size 16384)."""
    w = Workload(produce_bytes_per_s=0, initial_lag_bytes=10 * 16384)
    batches = produce(w, 2, 5, 10, seed=0)
    assert batches.of(0).tolist() == [16 * 1024 + RECORD_BATCH_OVERHEAD_BYTES] * 10
    assert (batches.tick == 0).all()


def test_a_record_larger_than_batch_size_travels_in_a_batch_of_its_own():
    """The producer sends an oversized record alone (KIP-74's first-batch exception case)."""
    w = Workload(produce_bytes_per_s=0, initial_lag_bytes=4 * 2_000_000,
                 large_record_bytes=2_000_000)
    sizes = produce(w, 3, 1, 10, seed=0).of(2)
    assert sizes.tolist() == [2_000_000 + RECORD_BATCH_OVERHEAD_BYTES] * 4


@given(*workload_shapes)
def test_batches_never_exceed_batch_size_and_are_in_tick_order(partitions, ticks, rate, seed):
    """Each partition's batches are appended in time order and fit batch.size plus the header."""
    batches = produce(Workload(produce_bytes_per_s=rate), partitions, ticks, 10, seed=seed)
    assert (batches.size_bytes <= 16384 + RECORD_BATCH_OVERHEAD_BYTES).all()
    assert (batches.size_bytes > RECORD_BATCH_OVERHEAD_BYTES).all()
    for p in range(partitions):
        ticks_p = batches.tick[batches.start[p] : batches.start[p + 1]]
        assert (np.diff(ticks_p) >= 0).all()


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"profile": "pareto"}, "profile must be one of 'uniform', 'zipf', 'fast_slow', 'bursts': "
                                "'pareto'"),
        ({"produce_bytes_per_s": -1}, "produce_bytes_per_s must be a number >= 0: -1"),
        ({"record_bytes": 0}, "record_bytes must be an integer >= 1: 0"),
        ({"batch_size_bytes": -1}, r"batch_size_bytes \(batch.size\) must be an integer >= 0: -1"),
        ({"fast_fraction": 2}, r"fast_fraction must be a number >= 0 and <= 1: 2"),
    ],
)
def test_bad_workloads_are_rejected_with_the_rule(kwargs, message):
    """Invalid workload settings name the field and the rule broken."""
    with pytest.raises(ValueError, match=message):
        Workload(**kwargs)
