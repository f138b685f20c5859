"""The SimPy reference of the KIP-73 reassignment scenario is the same model as kipviz's kernel.

The ``kip73_reassignment`` benchmark divides the SimPy program's speed by the kernel's; that
ratio means something only if both compute the same thing, table for table.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings

from kipviz.scenarios.reassignment.scenario import ReassignmentScenario, simulate
from tests.strategies import examples, reassignment_scenarios
from tools.oracles.simpy_reassignment import simulate_simpy

MB = 1_000_000
MIB = 1_048_576
BASE = ReassignmentScenario(partitions=3, log_bytes=3 * MB, bytes_in_per_s=300_000,
                            leader_throttle_bytes_per_s=2 * MB,
                            follower_throttle_bytes_per_s=3 * MB, tick_ms=10, ticks=600)

SMALL = {
    # KIP-73 as shipped: the leader omits, the follower leaves out; both quotas bind in turn;
    # R - 1 = 2 in-sync followers counted by default: the move nets 2 - 3 x 0.3 = 1.1 MB/s
    "quota mode": replace(BASE, ticks=1000),
    # the throttle changed mid-move: down to 1 MB/s (never finishing) and back up to 4 MB/s
    "throttle schedule": replace(BASE, throttle_schedule=((1.5, MB), (3.0, 4 * MB)),
                                 ticks=800),
    # the rejected design: responses held and fetches delayed by the throttle time
    "delay mode": replace(BASE, mode="delay"),
    # T below IN: the move never finishes, the lag grows
    "throttle below IN": replace(BASE, bytes_in_per_s=3 * MB, leader_throttle_bytes_per_s=MB,
                                 tick_ms=50, ticks=400),
    # no throttle at all: the network and the response limits are all there is
    "unlimited throttles": replace(BASE, leader_throttle_bytes_per_s=None,
                                   follower_throttle_bytes_per_s=None, ticks=100),
    # many partitions of different sizes; small ones join the ISR early (KAFKA-4313)
    "several partitions": replace(BASE, sizes=(0, 5_000, 2 * MB, 700_000, 3 * MB, 40_000,
                                               MB, 0), bytes_in_per_s=800_000, ticks=500),
    # replica.fetch.max.bytes and replica.fetch.response.max.bytes both binding, 3 x 2 s windows
    "response limits binding": replace(
        BASE, partitions=6, replica_fetch_max_bytes=150_000,
        replica_fetch_response_max_bytes=400_000, replication_quota_window_num=3,
        replication_quota_window_size_seconds=2, tick_ms=20, ticks=700),
    # the existing in-sync followers fill the leader's quota
    "in-sync followers": replace(BASE, in_sync_followers=2, ticks=800),
    "in-sync followers, delay mode": replace(BASE, in_sync_followers=1, mode="delay"),
}


def assert_same_tables(scenario: ReassignmentScenario) -> None:
    """The SimPy program gives the kernel's tables, dtypes included, or the same ValueError."""
    try:
        trace = simulate(scenario)
    except ValueError:  # mode="delay" with a throttle of 0
        with pytest.raises(ValueError, match="must be a number > 0"):
            simulate_simpy(scenario)
        return
    ticks, partitions = simulate_simpy(scenario)
    assert list(ticks.dtypes.items()) == list(trace.ticks.dtypes.items())
    assert list(partitions.dtypes.items()) == list(trace.partitions.dtypes.items())
    assert ticks.equals(trace.ticks), (ticks.compare(trace.ticks), scenario)
    assert partitions.equals(trace.partitions), (partitions.compare(trace.partitions), scenario)


@pytest.mark.parametrize("name", list(SMALL))
def test_the_simpy_program_gives_the_kernels_ticks_and_partitions_tables(name):
    """Same scenario: every value of the ticks and partitions tables is the kernel's."""
    assert_same_tables(SMALL[name])


def test_the_scenarios_exercise_what_they_are_named_for():
    """Throttling happens, the response limits bind, in-sync partitions fetch, moves finish."""
    quota = simulate(SMALL["quota mode"])
    assert (quota.ticks.throttled_bytes == 0).sum() > 100
    assert quota.meta["completed_ms"] is not None
    limits = simulate(SMALL["response limits binding"]).ticks
    assert limits.throttled_bytes.max() == 400_000
    several = simulate(SMALL["several partitions"])
    assert (several.ticks.unthrottled_bytes > 0).any()
    assert simulate(SMALL["throttle below IN"]).meta["completed_ms"] is None


@settings(max_examples=examples(0.8))
@given(reassignment_scenarios(ticks=(1, 150), in_sync_followers=(0, 3)))
def test_the_simpy_program_agrees_with_the_kernel_on_any_small_scenario(scenario):
    """Hypothesis varies every setting, edges included; the tables stay identical."""
    assert_same_tables(scenario)
