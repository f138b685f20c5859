"""The KIP-74 consumer scenario: worked example, invariants, determinism, bad input."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings

from kipviz.kafka.fetch.request import Ordering
from kipviz.scenarios.consumer.scenario import ConsumerScenario, simulate
from kipviz.scenarios.workload import Workload
from tests.strategies import consumer_scenarios, examples, seeds

# KIP-74's example: A and B grow much faster than C and D; the consumer catches up as fast as
# the network allows, so every response is full.
ABCD = ConsumerScenario(
    partitions=4, brokers=1, fetch_max_bytes=64 * 1024, max_partition_fetch_bytes=32 * 1024,
    consume_bytes_per_s=1e9, ticks=300, windows=10,
    workload=Workload(profile="fast_slow", produce_bytes_per_s=20e6, fast_to_slow_ratio=50),
)


def starved_streak(trace) -> dict[int, int]:
    return trace.windows.groupby("partition")["max_starvation_streak"].max().to_dict()


def test_a_fixed_order_starves_the_slow_partitions_for_the_whole_run():
    """With A, B first in every request, C and D never get a byte (the KIP's warning)."""
    trace = simulate(replace(ABCD, ordering=Ordering.FIXED), seed=1)
    delivered = trace.windows.groupby("partition")["delivered_bytes"].sum()
    assert delivered[0] > 0 and delivered[1] > 0
    assert delivered[2] == 0 and delivered[3] == 0
    assert starved_streak(trace)[3] == len(trace.fetches.fetch_id.unique())


@pytest.mark.parametrize("ordering", [Ordering.ROUND_ROBIN, Ordering.SESSION, Ordering.RANDOM])
def test_rotating_orders_serve_every_partition(ordering):
    """Round-robin and session rotation serve each partition within P fetches."""
    trace = simulate(replace(ABCD, ordering=ordering), seed=1)
    delivered = trace.windows.groupby("partition")["delivered_bytes"].sum()
    assert (delivered > 0).all()
    if ordering != Ordering.RANDOM:
        assert max(starved_streak(trace).values()) < ABCD.partitions


def test_the_same_seed_gives_the_same_trace():
    """Deterministic for a seed, random ordering included."""
    s = replace(ABCD, ordering=Ordering.RANDOM, workload=Workload(profile="bursts"))
    a, b = simulate(s, seed=7), simulate(s, seed=7)
    assert a.fetches.equals(b.fetches) and a.windows.equals(b.windows)
    assert a.memory.equals(b.memory)


@settings(max_examples=examples(0.5))
@given(consumer_scenarios(), seeds)
def test_the_compiled_kernel_and_the_plain_python_kernel_agree(scenario, seed):
    """numba compiles the very loops the plain-Python reference runs: same trace."""
    a = simulate(scenario, seed=seed)
    b = simulate(scenario, seed=seed, compiled=False)
    assert a.fetches.equals(b.fetches) and a.windows.equals(b.windows)
    assert a.memory.equals(b.memory)


@settings(max_examples=examples(0.5))
@given(consumer_scenarios(), seeds)
def test_skipping_the_fetches_table_changes_no_other_table(scenario, seed):
    """Without the fetches table the kernel takes a response that reaches the log end as whole
    batches at once (no walk over them): every other table is the same, v<=2 partial batches
    and first-batch exceptions included."""
    a = simulate(scenario, seed=seed)
    b = simulate(scenario, seed=seed, record_fetches=False)
    for table in ("windows", "memory", "buffer", "heartbeats"):
        assert getattr(a, table).equals(getattr(b, table)), table


@settings(max_examples=examples(1.2))
@given(consumer_scenarios(), seeds)
def test_memory_and_delivery_stay_within_kafkas_bounds(scenario, seed):
    """In flight <= brokers * max(limit, batch); held (whole responses) <= the one memory answer;
    nothing is delivered that was not produced; bytes consumed never exceed bytes fetched."""
    trace = simulate(scenario, seed=seed)
    meta, mem, win = trace.meta, trace.memory, trace.windows
    assert (mem.in_flight_bytes <= meta["in_flight_bound_bytes"]).all()
    assert (mem.held_bytes <= meta["memory_bound_bytes"]).all()
    assert (win.delivered_bytes <= win.demand_bytes).all()
    assert mem.consumed_bytes.sum() <= win.delivered_bytes.sum()
    f = trace.fetches
    assert (f.complete_bytes <= f.raw_bytes).all() and (f.raw_bytes <= f.lag_bytes).all()
    if scenario.fetch_version >= 3:
        assert max(f.groupby("fetch_id").raw_bytes.sum().tolist(), default=0) <= max(
            scenario.response_max_bytes, meta["max_batch_bytes"])


def test_windows_agree_with_the_full_resolution_fetches():
    """Delivered bytes and starved fetches per window equal what the fetch rows add up to."""
    trace = simulate(replace(ABCD, ordering=Ordering.FIXED), seed=2)
    starts = trace.windows.window_start_ms.unique()
    per_fetch = trace.fetches.assign(
        window=np.searchsorted(starts, trace.fetches.time_ms, side="right") - 1,
        starved=(trace.fetches.lag_bytes > 0) & (trace.fetches.complete_bytes == 0))
    sums = per_fetch.groupby(["window", "partition"])[["complete_bytes", "starved"]].sum()
    w = trace.windows.set_index(["window", "partition"])
    assert np.array_equal(sums.complete_bytes.to_numpy(), w.delivered_bytes.to_numpy())
    assert np.array_equal(sums.starved.to_numpy(), w.starved_fetches.to_numpy())


def test_a_slow_application_lets_buffered_fetches_pass_the_kip74_figure_before_kafka_4():
    """Kafka 3.9: with the application slower than the network, completed fetches of other
    partitions pile up: memory passes min(brokers * fetch.max.bytes, partitions * mpfb), the gap
    KIP-81 targets (Kafka 4.0 closed it another way: KAFKA-17182,
    tests/kafka/consumer/test_consumer_versions)."""
    s = ConsumerScenario(partitions=50, brokers=1, fetch_max_bytes=1024 * 1024,
                         max_partition_fetch_bytes=256 * 1024, consume_bytes_per_s=2e6,
                         ticks=300, workload=Workload(initial_lag_bytes=4 * 1024 * 1024),
                         kafka_version="3.9")
    trace = simulate(s, seed=0, record_fetches=False)
    peak = trace.memory.held_bytes.max()
    assert peak > trace.meta["kip74_bound_bytes"]
    assert peak <= trace.meta["memory_bound_bytes"]


def test_an_idle_partition_leaves_a_fetch_parked_until_fetch_max_wait_ms():
    """fetch.min.bytes: with no data the broker answers only after fetch.max.wait.ms."""
    s = ConsumerScenario(partitions=1, brokers=1, fetch_max_wait_ms=100, rtt_ms=10, ticks=50,
                         windows=1, workload=Workload(produce_bytes_per_s=0))
    trace = simulate(s, seed=0)
    assert trace.fetches.time_ms.tolist() == [100, 210, 320, 430]


def test_a_big_response_takes_its_transfer_time_over_the_link():
    """10 MB at 100 MB/s is 100 ms on the wire after a 10 ms round trip."""
    s = ConsumerScenario(partitions=1, brokers=1, max_partition_fetch_bytes=10_000_000,
                         network_bytes_per_s=100e6, consume_bytes_per_s=1e12, ticks=30, windows=1,
                         workload=Workload(produce_bytes_per_s=0, record_bytes=1_000_000 - 61,
                                           batch_size_bytes=0, initial_lag_bytes=20_000_000))
    trace = simulate(s, seed=0)
    assert trace.fetches.time_ms.tolist()[:2] == [0, 110]
    assert trace.fetches.complete_bytes.tolist()[:2] == [10_000_000, 10_000_000]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"partitions": 0}, "partitions must be an integer >= 1: 0"),
        ({"fetch_max_bytes": -1}, r"^fetch_max_bytes \(fetch.max.bytes\) must be an integer >= 0: "
                                  r"-1$"),
        ({"broker_fetch_max_bytes": 10},
         r"broker fetch.max.bytes\) must be an integer >= 1024: 10"),
        ({"max_partition_fetch_bytes": -2},
         r"max_partition_fetch_bytes \(max.partition.fetch.bytes\) must be an integer >= 0: -2"),
        ({"consume_bytes_per_s": 0}, "consume_bytes_per_s must be a number > 0: 0"),
        ({"network_bytes_per_s": -1.0}, "network_bytes_per_s must be a number > 0: -1.0"),
        ({"ordering": 9}, "ordering must be an Ordering \\(FIXED = 0, .*\\): 9"),
        ({"windows": 5000}, "windows must be <= ticks \\(1000\\): 5000"),
    ],
)
def test_bad_scenarios_are_rejected_with_the_kafka_setting_and_rule(kwargs, message):
    """Nothing is clamped: bad settings raise and say which rule they break."""
    with pytest.raises(ValueError, match=message):
        ConsumerScenario(**kwargs)


@pytest.mark.parametrize(("ticks", "windows"), [(1000, 300), (10, 6), (7, 7), (100, 1)])
def test_the_run_is_cut_into_exactly_the_windows_asked_for(ticks, windows):
    """Window k covers ticks [ceil(k * ticks / windows), ceil((k + 1) * ticks / windows))."""
    s = ConsumerScenario(partitions=2, ticks=ticks, windows=windows)
    w = simulate(s, record_fetches=False).windows
    assert w.window.nunique() == windows
    spans = (w.window_end_ms - w.window_start_ms).unique() // s.tick_ms
    assert set(spans) <= {ticks // windows, -(-ticks // windows)}
    assert w.window_start_ms.min() == 0 and w.window_end_ms.max() == ticks * s.tick_ms


def test_a_scenario_takes_its_fetch_settings_from_a_consumer_properties_file():
    """The sample consumer.properties overrides fetch.max.bytes and max.partition.fetch.bytes."""
    from pathlib import Path

    from kipviz.kafka.config.settings import ConsumerConfig

    data = Path(__file__).resolve().parents[2] / "data"  # tests/data
    loaded = ConsumerConfig.from_properties(data / "consumer.properties")
    s = ConsumerScenario.from_configs(loaded.config, partitions=8)
    assert (s.fetch_max_bytes, s.max_partition_fetch_bytes) == (
        loaded.config.fetch_max_bytes, loaded.config.max_partition_fetch_bytes)
    assert s.partitions == 8
