"""The SimPy reference of the KIP-81 consumer (pool, bypass, heartbeats, in-flight cap) is the
kernel's model.

The ``kip81_consumer`` benchmark divides the SimPy program's speed by the kernel's; that ratio
means something only if both compute the same thing, table for table. The SimPy program reads
through :class:`kipviz.kafka.consumer.buffer_memory.ConsumerBuffer` over a
:class:`kipviz.kafka.broker.pool.SimpleMemoryPool`, so these tests also check the kernel's pool
arithmetic against the mechanism itself.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings

from kipviz.kafka.fetch.request import Ordering
from kipviz.scenarios.consumer.scenario import ConsumerScenario, ConsumerTrace, simulate
from kipviz.scenarios.workload import Workload, produce
from tests.strategies import buffered_consumer_scenarios, examples, seeds
from tools.oracles.simpy_consumer import (
    ConsumerModel,
    SimpyTrace,
    simulate_simpy,
    simulate_simpy_trace,
)

TABLES = ("windows", "memory", "buffer", "heartbeats")

# A consumer catching up on a zipf backlog faster than its application (3 MB/s) processes it:
# three brokers' responses of up to 100 kB land every two ticks into a 150 kB pool. Kafka 2.3:
# from 2.4 (KAFKA-8677, ``hand_over_when_idle``) Java's consumer hands a response over only while
# nothing is buffered, so it holds one response at a time and neither the pool nor the cap binds.
CATCHING_UP = ConsumerScenario(
    partitions=12, brokers=3, fetch_max_bytes=100_000, max_partition_fetch_bytes=30_000,
    consume_bytes_per_s=3e6, rtt_ms=20, ticks=150, windows=5, buffer_memory_bytes=150_000,
    heartbeat_interval_ms=50, kafka_version="2.3",
    workload=Workload(profile="zipf", produce_bytes_per_s=4e6, initial_lag_bytes=300_000))

NAMED = {
    "a pool that runs dry": CATCHING_UP,
    # strict: a response needs its whole size free, so the pool refuses without being dry
    "strict pool": replace(CATCHING_UP, strict_pool=True, buffer_memory_bytes=130_000),
    # heartbeat responses wait in their socket for pool memory like fetch responses
    "no bypass": replace(CATCHING_UP, coordinator_bypass=False, heartbeat_interval_ms=30),
    # the rejected alternative: two responses in flight or buffered at most, brokers in turns
    "the cap": replace(CATCHING_UP, buffer_memory_bytes=None, max_in_flight_fetches=2),
    # a heartbeat sent every other tick, one in flight at a time
    "heartbeats every few ticks": replace(CATCHING_UP, heartbeat_interval_ms=20, rtt_ms=10),
    # a pool and a cap together, a slow link spreading responses over ticks, random order
    "pool, cap and a slow link": replace(
        CATCHING_UP, max_in_flight_fetches=3, network_bytes_per_s=2e6, ordering=Ordering.RANDOM,
        fetch_min_bytes=20_000, fetch_max_wait_ms=40),
}


def assert_same_trace(scenario: ConsumerScenario, seed: int) -> tuple[ConsumerTrace, SimpyTrace]:
    """Every table of the SimPy program equals the kernel's, dtypes included, and its pool's
    depleted time is the kernel's ``depleted_time_total_ms``."""
    trace = simulate(scenario, seed=seed, record_fetches=False)
    reference = simulate_simpy_trace(scenario, seed=seed)
    for name in TABLES:
        ours, theirs = getattr(reference, name), getattr(trace, name)
        assert list(ours.dtypes.items()) == list(theirs.dtypes.items()), (name, scenario)
        assert ours.equals(theirs), (name, ours.compare(theirs), scenario)
    assert reference.depleted_time_total_ms == trace.meta["depleted_time_total_ms"], scenario
    return trace, reference


@pytest.mark.parametrize("name", list(NAMED))
def test_the_simpy_program_gives_the_kernels_tables_with_a_pool_or_a_cap(name):
    """Same scenario and seed: windows, memory, buffer and heartbeats tables are the kernel's,
    and the SimpleMemoryPool's depleted time is the kernel's meta figure."""
    assert_same_trace(NAMED[name], seed=3)


def test_the_named_cases_exercise_what_they_name():
    """The cases are not vacuous: the pool runs dry, the strict pool refuses while not dry,
    heartbeats wait without the bypass and not with it, and the cap binds."""
    dry, _ = assert_same_trace(NAMED["a pool that runs dry"], seed=3)
    assert dry.buffer.pool_dry.any() and dry.buffer.waiting_bytes.max() > 0
    assert dry.meta["depleted_time_total_ms"] > 0 and dry.meta["max_heartbeat_delay_ms"] == 0
    strict, _ = assert_same_trace(NAMED["strict pool"], seed=3)
    assert not strict.buffer.pool_dry.any() and strict.buffer.waiting_bytes.max() > 0
    no_bypass, _ = assert_same_trace(NAMED["no bypass"], seed=3)
    assert no_bypass.meta["max_heartbeat_delay_ms"] > 0
    today = simulate(replace(CATCHING_UP, buffer_memory_bytes=None), seed=3,
                     record_fetches=False)
    capped, _ = assert_same_trace(NAMED["the cap"], seed=3)
    assert capped.memory.consumed_bytes.sum() < today.memory.consumed_bytes.sum()
    frequent, _ = assert_same_trace(NAMED["heartbeats every few ticks"], seed=3)
    assert len(frequent.heartbeats) > len(dry.heartbeats)


def test_the_pool_holds_the_retained_bytes():
    """The SimPy program's SimpleMemoryPool ends holding the bytes the buffer table retains:
    the kernel's retained bytes are the mechanism's used bytes."""
    s = NAMED["a pool that runs dry"]
    model = ConsumerModel(s, produce(s.workload, s.partitions, s.ticks, s.tick_ms, seed=3), 3)
    reference = model.run()
    assert model.buffer.pool.used_bytes == model.retained > 0
    assert reference.buffer.retained_bytes.max() <= s.bounds()["pooled_bound_bytes"]


def test_without_a_pool_the_two_table_api_is_unchanged():
    """simulate_simpy still returns the windows and memory tables of the full trace."""
    s = replace(CATCHING_UP, buffer_memory_bytes=None)
    windows, memory = simulate_simpy(s, seed=5)
    reference = simulate_simpy_trace(s, seed=5)
    assert windows.equals(reference.windows) and memory.equals(reference.memory)
    assert reference.depleted_time_total_ms == 0.0 and not reference.buffer.pool_dry.any()


def test_a_batch_above_buffer_memory_is_refused_by_the_pool_itself():
    """A 300 kB record batch cannot be read through a 150 kB pool: the kernel's simulate
    rejects the scenario up front, the SimPy program's SimpleMemoryPool when it is fetched."""
    s = replace(CATCHING_UP, workload=replace(CATCHING_UP.workload, large_record_bytes=300_000))
    with pytest.raises(ValueError, match=r"buffer\.memory must hold the largest fetch response"):
        simulate(s, seed=3)
    with pytest.raises(ValueError, match="n_bytes must be <= max_single_allocation_bytes"):
        simulate_simpy_trace(s, seed=3)


def test_a_pool_smaller_than_a_heartbeat_response_without_the_bypass_is_rejected():
    """Without the bypass an 8-byte pool could never take a 16-byte heartbeat response (its
    SimpleMemoryPool refuses an allocation above its largest single one, as Kafka throws
    IllegalArgumentException): the scenario rejects it, naming buffer.memory and the rule."""
    with pytest.raises(ValueError, match=r"buffer_memory_bytes \(buffer.memory\) must be >= 16"):
        ConsumerScenario(partitions=2, brokers=1, fetch_max_bytes=0, max_partition_fetch_bytes=0,
                         kafka_version="0.10.0", buffer_memory_bytes=8, coordinator_bypass=False,
                         heartbeat_interval_ms=20, ticks=10, windows=1)


@settings(max_examples=examples(4))
@given(buffered_consumer_scenarios(), seeds)
def test_the_simpy_program_agrees_with_the_kernel_on_any_buffered_scenario(scenario, seed):
    """Hypothesis varies every setting, the pool (strict or not, with or without the bypass)
    or the cap, and the heartbeat interval; every table and the depleted time stay identical."""
    assert_same_trace(scenario, seed)
