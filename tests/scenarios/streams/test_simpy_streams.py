"""The SimPy reference of the KIP-770 Streams scenario is the same model as kipviz's kernel.

The ``kip770_streams`` benchmark divides the SimPy program's speed by the kernel's; that ratio
means something only if both compute the same thing, table for table. The SimPy program calls
:mod:`kipviz.kafka.consumer.buffer_memory`'s pause and resume rules where the kernel has its own
array code, so the agreement checks those too.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings

from kipviz.kafka.streams.input_buffer import STREAMS_POLICIES
from kipviz.scenarios.streams.scenario import StreamsScenario, simulate
from tests.strategies import examples, small_streams_scenarios
from tools.oracles.simpy_streams import simulate_simpy

# Two then three then one thread (with a global thread), five two-topic tasks, a 2 MB budget:
# every policy pauses and resumes, tasks move, and the merged code stalls.
SMALL = StreamsScenario(
    input_buffer_max_bytes=2_000_000, threads=2, global_thread=True,
    thread_changes=((500, 3), (1200, 1)), tasks=5, topics=2, initial_lag_records=3000,
    produce_records_per_s=500.0, process_records_per_s=30000.0,
    max_partition_fetch_bytes=100_000, ticks=200)


def assert_same_tables(scenario: StreamsScenario, seed: int = 0, values=None) -> None:
    trace = simulate(scenario, seed=seed, value_bytes=values)
    threads, partitions = simulate_simpy(scenario, seed=seed, value_bytes=values)
    assert list(threads.dtypes.items()) == list(trace.threads.dtypes.items())
    assert list(partitions.dtypes.items()) == list(trace.partitions.dtypes.items())
    assert threads.equals(trace.threads), (threads.compare(trace.threads), scenario)
    assert partitions.equals(trace.partitions), (partitions.compare(trace.partitions), scenario)


@pytest.mark.parametrize("policy", STREAMS_POLICIES)
def test_the_simpy_program_gives_the_kernels_threads_and_partitions_tables(policy):
    """Same scenario and seed: every value of both tables is the kernel's, for every policy."""
    assert_same_tables(replace(SMALL, policy=policy), seed=1)


def test_the_small_scenario_exercises_what_it_is_for():
    """Tasks move, partitions are paused, and the merged code stalls where the fix does not."""
    fixed = simulate(SMALL, seed=1)
    merged = simulate(replace(SMALL, policy="thread_bytes_as_merged"), seed=1)
    assert fixed.meta["task_moves"] > 0 and fixed.partitions.paused.any()
    assert merged.threads.processed_records.sum() < fixed.threads.processed_records.sum() / 2


@settings(max_examples=examples(0.6))
@given(small_streams_scenarios())
def test_the_simpy_program_agrees_with_the_kernel_on_any_small_scenario(case):
    """Hypothesis varies every setting (and the record sizes); the tables stay identical."""
    scenario, values = case
    assert_same_tables(scenario, values=values)
