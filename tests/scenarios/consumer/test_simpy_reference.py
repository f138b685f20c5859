"""The SimPy reference of the KIP-74 consumer scenario is the same model as kipviz's kernel.

The ``kip74_consumer`` benchmark divides the SimPy program's speed by the kernel's; that ratio
means something only if both compute the same thing, table for table.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings

from kipviz.kafka.fetch.request import Ordering
from kipviz.kafka.fetch.response import fill_raw_bytes
from kipviz.scenarios.consumer.scenario import ConsumerScenario, simulate
from kipviz.scenarios.workload import Workload, produce
from tests.strategies import (
    byte_limits,
    examples,
    fetch_versions,
    partition_logs,
    seeds,
    simpy_consumer_scenarios,
)
from tools.oracles.simpy_consumer import fill, simulate_simpy

# Orders whose tables the reference reproduces exactly (random too: both read the same keys).
DETERMINISTIC = [Ordering.FIXED, Ordering.ROUND_ROBIN, Ordering.HASH, Ordering.SESSION,
                 Ordering.RANDOM]

SMALL = {
    # a consumer catching up on a backlog, the last partition writing 300 kB records
    "backlog and a large record": ConsumerScenario(
        partitions=12, brokers=3, fetch_max_bytes=100_000, max_partition_fetch_bytes=30_000,
        consume_bytes_per_s=5e6, rtt_ms=20, ticks=100, windows=7,
        workload=Workload(profile="zipf", produce_bytes_per_s=3e6, initial_lag_bytes=200_000,
                          large_record_bytes=300_000)),
    # fetch.min.bytes above what a tick brings: requests park until fetch.max.wait.ms
    "parked requests": ConsumerScenario(
        partitions=6, brokers=2, fetch_min_bytes=40_000, fetch_max_wait_ms=120,
        max_partition_fetch_bytes=20_000, consume_bytes_per_s=2e6, ticks=80, windows=5,
        workload=Workload(profile="fast_slow", produce_bytes_per_s=1e6, record_bytes=900)),
    # a slow application: completed fetches pile up; a slow link spreads arrivals over ticks
    "slow application and link": ConsumerScenario(
        partitions=8, brokers=3, fetch_max_bytes=60_000, max_partition_fetch_bytes=16_000,
        fetch_min_bytes=5_000, fetch_max_wait_ms=30, consume_bytes_per_s=4e5,
        network_bytes_per_s=1e6, rtt_ms=10, ticks=90, windows=6,
        workload=Workload(profile="bursts", produce_bytes_per_s=2e6, record_bytes=700,
                          initial_lag_bytes=50_000, burst_period_ms=200, burst_duration_ms=50)),
    # one broker, a few hot partitions, the old protocol (partial batches, no first-batch rule)
    "pre-KIP-74 protocol": ConsumerScenario(
        partitions=4, brokers=1, fetch_max_bytes=25_000, max_partition_fetch_bytes=12_000,
        kafka_version="1.1", version=2, consume_bytes_per_s=3e6, ticks=30, windows=3,
        workload=Workload(profile="fast_slow", produce_bytes_per_s=4e6, fast_to_slow_ratio=20,
                          initial_lag_bytes=30_000, large_record_bytes=20_000)),
    # the slow application under Kafka 3.9's rules: every partition with nothing buffered is
    # fetched again (4.x waits for a broker's buffered partitions, KAFKA-17182)
    "slow application, 3.9 rules": ConsumerScenario(
        partitions=9, brokers=3, fetch_max_bytes=20_000, max_partition_fetch_bytes=10_000,
        consume_bytes_per_s=5e5, ticks=90, windows=5, kafka_version="3.9",
        workload=Workload(produce_bytes_per_s=2e6, record_bytes=500, initial_lag_bytes=60_000)),
    # a fetch quota: throttled fetches come back empty (KIP-219), partitions paused mid-run
    "fetch quota and paused partitions": ConsumerScenario(
        partitions=6, brokers=2, fetch_max_bytes=40_000, max_partition_fetch_bytes=15_000,
        consume_bytes_per_s=3e6, ticks=120, windows=4, fetch_quota_bytes_per_s=4e5,
        paused_partitions=(1, 2), pause_at_ms=300,
        workload=Workload(produce_bytes_per_s=2e6, record_bytes=800, initial_lag_bytes=80_000)),
    # the same quota before KIP-219: the broker holds the response for the throttle time
    "fetch quota before KIP-219": ConsumerScenario(
        partitions=6, brokers=2, fetch_max_bytes=40_000, max_partition_fetch_bytes=15_000,
        consume_bytes_per_s=3e6, ticks=120, windows=4, fetch_quota_bytes_per_s=4e5,
        kafka_version="1.1",
        workload=Workload(produce_bytes_per_s=2e6, record_bytes=800, initial_lag_bytes=80_000)),
}


def assert_same_tables(scenario: ConsumerScenario, seed: int) -> None:
    trace = simulate(scenario, seed=seed, record_fetches=False)
    windows, memory = simulate_simpy(scenario, seed=seed)
    assert list(windows.dtypes.items()) == list(trace.windows.dtypes.items())
    assert list(memory.dtypes.items()) == list(trace.memory.dtypes.items())
    assert windows.equals(trace.windows), (windows.compare(trace.windows), scenario)
    assert memory.equals(trace.memory), (memory.compare(trace.memory), scenario)


@pytest.mark.parametrize("ordering", DETERMINISTIC, ids=lambda o: o.name.lower())
@pytest.mark.parametrize("name", list(SMALL))
def test_the_simpy_program_gives_the_kernels_windows_and_memory_tables(name, ordering):
    """Same scenario and seed: every value of the windows and memory tables is the kernel's."""
    assert_same_tables(replace(SMALL[name], ordering=ordering), seed=3)


@settings(max_examples=examples(0.8))
@given(simpy_consumer_scenarios(DETERMINISTIC), seeds)
def test_the_simpy_program_agrees_with_the_kernel_on_any_small_scenario(scenario, seed):
    """Hypothesis varies every setting; the tables stay identical."""
    assert_same_tables(scenario, seed)


@given(partition_logs, byte_limits, byte_limits, fetch_versions)
def test_the_simpy_brokers_fill_is_kipvizs_fill_raw_bytes_on_python_ints(
        logs, partition_max, response_max, version):
    """The broker loop on Python ints gives fill_raw_bytes's raw bytes and total."""
    first = [log[0] if log else 0 for log in logs]
    lag = [sum(log) for log in logs]
    out = np.zeros(len(logs), np.int64)
    total = fill_raw_bytes(np.array(first, np.int64), np.array(lag, np.int64),
                           np.full(len(logs), partition_max, np.int64), response_max, version, out)
    assert fill(first, lag, partition_max, response_max, version) == (out.tolist(), total)


def test_the_simpy_program_uses_the_given_batches():
    """Batches passed in replace the seeded workload, as in simulate()."""
    s = SMALL["backlog and a large record"]
    batches = produce(s.workload, s.partitions, s.ticks, s.tick_ms, seed=11)
    windows, _ = simulate_simpy(s, seed=0, batches=batches)
    trace = simulate(s, seed=0, record_fetches=False, batches=batches)
    assert windows.equals(trace.windows)
    with pytest.raises(ValueError, match="batches cover 12 partitions, not 4"):
        simulate_simpy(replace(s, partitions=4), batches=batches)


@pytest.mark.parametrize(("ordering", "version", "kafka_version"),
                         [(Ordering.SESSION, 2, "1.1"), (Ordering.RANDOM, 12, "3.9")],
                         ids=["session-v2", "random"])
def test_completed_fetches_are_queued_in_response_order(ordering, version, kafka_version):
    """Kafka queues a response's partitions in response order, not in the broker's next order
    (they differ for random shuffles and for v<=2 session rotation, where a partial batch is
    raw bytes but no records). The reference reads the same random keys as the kernel
    (``random_order_keys``)."""
    scenario = replace(SMALL["backlog and a large record"], ordering=ordering, version=version,
                       kafka_version=kafka_version)
    assert_same_tables(scenario, seed=3)
