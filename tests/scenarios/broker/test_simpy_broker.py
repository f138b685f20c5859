"""The SimPy reference of the KIP-72 broker scenario is the same model as kipviz's kernel.

The ``kip72_broker`` benchmark divides the SimPy program's speed by the kernel's; that ratio
means something only if both compute the same thing, table for table.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings

from kipviz.scenarios.broker.scenario import BrokerScenario, simulate
from tests.strategies import broker_arrivals, draws, examples, seeds, small_broker_scenarios
from tools.oracles.simpy_broker import JavaRandom, simulate_simpy

SMALL = {
    # no pool (Kafka's default); queued.max.requests = 3 and two slow handlers: the network
    # thread finds the request channel full and stops reading
    "no pool, full request channel": BrokerScenario(
        connections=10, queued_max_requests=3, num_io_threads=2, small_request_bytes=3_000,
        large_request_bytes=20_000, large_share=0.3, spike_start_ms=300, spike_duration_ms=400,
        requests_per_s_per_connection=40.0, handler_bytes_per_s=2e6, ticks=150),
    # a non-strict pool (the broker's) smaller than the spike: overdrafts, muted channels
    "non-strict pool under a spike": BrokerScenario(
        connections=12, queued_max_request_bytes=200_000, socket_request_max_bytes=100_000,
        small_request_bytes=2_000, large_request_bytes=80_000, large_share=0.4,
        spike_start_ms=400, spike_duration_ms=600, requests_per_s_per_connection=50.0,
        num_io_threads=2, handler_bytes_per_s=5e6, ticks=200),
    # the same pool strict (a what-if): large requests wait for a pool that fits them
    "strict pool under a spike": BrokerScenario(
        connections=12, queued_max_request_bytes=200_000, socket_request_max_bytes=100_000,
        strict=True, small_request_bytes=2_000, large_request_bytes=80_000, large_share=0.4,
        spike_start_ms=400, spike_duration_ms=600, requests_per_s_per_connection=50.0,
        num_io_threads=2, handler_bytes_per_s=5e6, ticks=200),
    # many mid-sized requests keep the pool below 10% between refusals: keys are shuffled
    "pool below 10%": BrokerScenario(
        connections=20, queued_max_request_bytes=100_000, socket_request_max_bytes=100_000,
        small_request_bytes=7_000, large_request_bytes=9_000, large_share=0.5,
        spike_start_ms=200, spike_duration_ms=800, requests_per_s_per_connection=100.0,
        num_io_threads=2, handler_bytes_per_s=2e6, tick_ms=5, ticks=300),
}


def assert_same_tables(scenario: BrokerScenario, seed: int,
                       requests: pd.DataFrame | None = None) -> None:
    trace = simulate(scenario, seed=seed, requests=requests)
    ticks, table, depleted_ms = simulate_simpy(scenario, seed=seed, requests=requests)
    assert list(ticks.dtypes.items()) == list(trace.ticks.dtypes.items())
    assert list(table.dtypes.items()) == list(trace.requests.dtypes.items())
    assert ticks.equals(trace.ticks), (ticks.compare(trace.ticks), scenario)
    assert table.equals(trace.requests), (table.compare(trace.requests), scenario)
    assert depleted_ms == trace.meta["depleted_time_total_ms"]


@pytest.mark.parametrize("shuffle", [True, False], ids=["shuffle", "no-shuffle"])
@pytest.mark.parametrize("name", list(SMALL))
def test_the_simpy_program_gives_the_kernels_ticks_and_requests_tables(name, shuffle):
    """Same scenario and seed: every value of both tables, and the pool's depleted time, are the
    kernel's."""
    assert_same_tables(replace(SMALL[name], shuffle=shuffle), seed=3)


def test_the_small_scenarios_exercise_what_they_are_named_for():
    """The full channel binds, the non-strict pool overdraws and mutes, the strict one never
    overdraws, and the last scenario shuffles its keys."""
    full = simulate(SMALL["no pool, full request channel"], seed=3).ticks
    assert full.requests_in_queue.max() == 3 and (full.requests_in_queue == 3).sum() > 10
    loose = simulate(SMALL["non-strict pool under a spike"], seed=3)
    assert loose.ticks.pool_available_bytes.min() < 0 and loose.ticks.muted_for_memory.max() > 0
    assert loose.meta["depleted_time_total_ms"] > 0
    strict = simulate(SMALL["strict pool under a spike"], seed=3).ticks
    assert strict.pool_available_bytes.min() >= 0 and strict.muted_for_memory.max() > 0
    shuffled = simulate(SMALL["pool below 10%"], seed=3).ticks
    assert shuffled.shuffled.sum() > 10


@settings(max_examples=examples(1.2))
@given(small_broker_scenarios(), seeds)
def test_the_simpy_program_agrees_with_the_kernel_on_any_small_scenario(scenario, seed):
    """Hypothesis varies every setting; the tables stay identical."""
    assert_same_tables(scenario, seed)


@settings(max_examples=examples(0.4))
@given(small_broker_scenarios(), seeds, draws)
def test_the_simpy_program_agrees_on_requests_arriving_between_ticks(scenario, seed, data):
    """Given requests may arrive at any ms; both read them from the first tick at or after."""
    s = scenario
    rows = data.draw(broker_arrivals(s))
    requests = pd.DataFrame(rows, columns=["connection", "arrival_ms", "size_bytes"],
                            dtype=np.int64)
    assert_same_tables(s, seed, requests=requests)


# new java.util.Random(seed).nextInt(bound), one call after another, printed by OpenJDK 17.
# 2**30 + 1 rejects about half its draws; 64 is a power of two (Java's other branch).
BOUNDS = [1, 2, 7, 64, 1000, 2**30 + 1, 2**31 - 1, 2**30 + 1, 2**30 + 1]
JAVA_NEXT_INT = {
    0: [0, 1, 4, 38, 515, 663681053, 1182054491, 251269761, 715581077],
    42: [0, 0, 6, 3, 970, 595021505, 1519796918, 196118093, 969067502],
    123456789: [0, 1, 6, 16, 290, 465137554, 1918435533, 913732807, 925572887],
}


@pytest.mark.parametrize("seed", list(JAVA_NEXT_INT))
def test_the_simpy_programs_random_is_java_util_random(seed):
    """nextInt(bound) gives Java's numbers, and shuffle gives Collections.shuffle's order."""
    r = JavaRandom(seed)
    assert [r.next_int(b) for b in BOUNDS] == JAVA_NEXT_INT[seed]
    keys = list(range(10))
    JavaRandom(0).shuffle(keys)
    assert keys == [4, 8, 9, 6, 3, 5, 2, 1, 7, 0]


def test_the_simpy_program_generates_the_kernels_workload():
    """Without given requests both draw the same workload from the seed."""
    s = SMALL["non-strict pool under a spike"]
    _, table, _ = simulate_simpy(s, seed=11)
    assert table[["connection", "arrival_ms", "size_bytes"]].equals(
        simulate(s, seed=11).requests[["connection", "arrival_ms", "size_bytes"]])
