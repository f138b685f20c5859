"""The SimPy reference of the cluster reassignment is the same model as the cluster kernel.

The ``kip73_reassignment`` benchmark's cluster figure divides the SimPy program's speed by the
kernel's; that ratio means something only if both compute the same tables, value for value.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings

from kipviz.kafka.replication.cluster import make_move
from kipviz.scenarios.reassignment.cluster import ClusterReassignmentScenario, simulate_cluster
from tests.strategies import cluster_reassignment_plans, examples
from tools.oracles.simpy_cluster_reassignment import simulate_cluster_simpy

MB = 1_000_000
MOVES = (
    make_move("a", 0, (1, 2, 3), (4, 2, 3), size_bytes=3 * MB, bytes_in_per_s=200_000),
    make_move("a", 1, (2, 3, 1), (2, 3, 4), size_bytes=2 * MB, bytes_in_per_s=100_000),
    make_move("b", 0, (3, 1), (5, 6), size_bytes=MB, bytes_in_per_s=50_000, leader=1),
    make_move("b", 1, (1, 2), (1, 2), size_bytes=4 * MB, bytes_in_per_s=300_000),
    make_move("c", 0, (5,), (6,), size_bytes=0),  # empty and idle: in sync at once
)
BASE = ClusterReassignmentScenario(MOVES, leader_throttle_bytes_per_s=2 * MB,
                                   follower_throttle_bytes_per_s=3 * MB, ticks=1500,
                                   sample_ticks=3)
SMALL = {
    # leaders handing over (a-0's leader 1 removed: 4 leads; b-0 moves to brokers 5 and 6)
    "quota mode, handovers": BASE,
    "delay mode": replace(BASE, mode="delay"),
    "throttle schedule": replace(BASE, throttle_schedule=((2.0, MB), (6.0, None))),
    "one broker lowered": replace(BASE, broker_throttle_bytes_per_s=((4, 500_000),)),
    "unlimited, network binding": replace(BASE, leader_throttle_bytes_per_s=None,
                                          follower_throttle_bytes_per_s=None,
                                          network_bytes_per_s=20 * MB),
    "response limits binding": replace(
        BASE, replica_fetch_max_bytes=50_000, replica_fetch_response_max_bytes=120_000,
        replication_quota_window_num=3, replication_quota_window_size_seconds=2, tick_ms=20),
}


def assert_same_trace(scenario: ClusterReassignmentScenario, seed: int = 0) -> None:
    """Every table and the meta, value for value and dtype for dtype."""
    kernel = simulate_cluster(scenario, seed=seed)
    simpy = simulate_cluster_simpy(scenario, seed=seed)
    for name in ("brokers", "replicas", "partitions"):
        pd_kernel, pd_simpy = getattr(kernel, name), getattr(simpy, name)
        assert pd_kernel.equals(pd_simpy), name
    assert kernel.meta == simpy.meta


@pytest.mark.parametrize("name", SMALL)
def test_the_simpy_program_gives_the_kernels_tables(name):
    """Hand-picked plans covering handovers, both modes, schedules, overrides and limits."""
    assert_same_trace(SMALL[name], seed=7)


def test_a_run_that_finishes_stops_in_the_same_tick_in_both():
    """The run ends the tick the last move completes, in both programs."""
    scenario = replace(BASE, leader_throttle_bytes_per_s=20 * MB,
                       follower_throttle_bytes_per_s=20 * MB)
    assert simulate_cluster(scenario).meta["move_time_s"] is not None
    assert_same_trace(scenario)


@settings(max_examples=examples(0.2))
@given(cluster_reassignment_plans())
def test_the_simpy_program_gives_the_kernels_tables_on_random_plans(plan):
    """Random plans (sizes / 200, throttles / 20: every kind of state within 1,000 ticks)."""
    moves, rate = plan
    moves = tuple(replace(m, size_bytes=m.size_bytes // 200) for m in moves)
    assert_same_trace(ClusterReassignmentScenario(
        moves, leader_throttle_bytes_per_s=rate / 20, follower_throttle_bytes_per_s=rate / 20,
        ticks=1000, sample_ticks=5))
