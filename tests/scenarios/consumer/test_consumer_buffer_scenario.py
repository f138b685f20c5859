"""The consumer scenario with KIP-81's pool (as proposed) and the rejected in-flight cap."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings

from kipviz.kafka.config.versions import has
from kipviz.scenarios.consumer.scenario import ConsumerScenario, simulate
from kipviz.scenarios.workload import Workload
from tests.strategies import buffered_consumer_scenarios, examples, seeds

MiB = 2**20
# The calibration workload: 10 brokers, 120 partitions with a backlog, an application slower
# than the network, a Kafka 3.9 consumer. KIP-81's pool and cap are tried on the consumer the
# KIP was written against, which handed a response over as soon as it read it (before
# KAFKA-8677, 2.4): from 2.4 a lagging consumer reads one round at a time and a pool of these
# sizes never runs dry.
LAGGING = ConsumerScenario(
    partitions=120, brokers=10, fetch_max_bytes=20 * MiB, consume_bytes_per_s=50e6, ticks=1000,
    workload=Workload(produce_bytes_per_s=20e6, initial_lag_bytes=64 * MiB), kafka_version="3.9")
KIP81_ERA = replace(LAGGING, kafka_version="2.3")


def test_todays_consumer_holds_about_one_round_under_the_bound():
    """No pool: whole responses stay on the heap until their last partition is consumed
    (records are slices of the response's buffer). A 3.9 consumer hands the responses it read
    to its fetch buffer only when nothing is buffered (KAFKA-8677, measured on real 3.9.2
    consumers), so it holds about one round, 10 x 12 MiB = KIP-74's figure, and the partitions
    it has drained meanwhile are fetched again, read and held until the next hand-over: a
    little above KIP-74's figure, far under the one memory answer (every partition's 1 MiB, the
    12 MiB response being drained, and each response's own fields)."""
    trace = simulate(LAGGING, seed=1, record_fetches=False)
    assert trace.meta["mode"] == "today"
    held = trace.memory.held_bytes
    assert (held >= trace.buffer.retained_bytes).all()  # read, not handed over; drained
    assert 120 * MiB == trace.meta["kip74_bound_bytes"] < held.max() <= 122 * MiB
    assert held.max() <= trace.meta["memory_bound_bytes"]
    assert trace.meta["memory_bound_bytes"] == 138_472_895  # 132 MiB and 121 frames
    assert not trace.buffer.pool_dry.any() and trace.buffer.waiting_bytes.max() == 0


def test_a_30_mb_pool_bounds_the_consumer_at_buffer_memory_plus_one_response():
    """buffer.memory = 30 MB: pooled bytes stay under 30 MB + one 12 MiB response, the
    application gets the same throughput, and responses wait in the sockets meanwhile."""
    today = simulate(KIP81_ERA, seed=1, record_fetches=False)
    pooled = simulate(replace(KIP81_ERA, buffer_memory_bytes=30_000_000), seed=1,
                      record_fetches=False)
    peak = pooled.buffer.retained_bytes.max()
    assert 30_000_000 < peak <= pooled.meta["pooled_bound_bytes"] == 30_000_000 + 12 * MiB - 1
    assert pooled.buffer.waiting_bytes.max() > 0 and pooled.meta["dry_ms"] > 0
    assert pooled.meta["depleted_time_total_ms"] > 0
    consumed = (today.memory.consumed_bytes.sum(), pooled.memory.consumed_bytes.sum())
    assert consumed[1] == pytest.approx(consumed[0], rel=0.01)
    assert (pooled.heartbeats.delay_ms == 0).all()


def test_without_the_coordinator_bypass_heartbeat_responses_wait_for_the_pool():
    """KIP-81 step 3.b's reason: with no bypass the heartbeat waits behind fetch responses."""
    pooled = replace(KIP81_ERA, buffer_memory_bytes=30_000_000)
    starved = simulate(replace(pooled, coordinator_bypass=False), seed=1, record_fetches=False)
    assert starved.meta["max_heartbeat_delay_ms"] > 500
    assert simulate(pooled, seed=1, record_fetches=False).meta["max_heartbeat_delay_ms"] == 0


def test_capping_in_flight_fetches_bounds_memory_but_loses_throughput():
    """The rejected alternative: a freed slot must wait a round trip for the next response,
    so a fast application gets less than with a pool of about the same size."""
    fast = replace(KIP81_ERA, consume_bytes_per_s=300e6, fetch_max_bytes=10 * MiB, rtt_ms=50)
    pool = simulate(replace(fast, buffer_memory_bytes=32 * MiB), seed=1, record_fetches=False)
    cap = simulate(replace(fast, max_in_flight_fetches=3), seed=1, record_fetches=False)
    assert cap.meta["mode"] == "in_flight_cap"
    assert cap.buffer.retained_bytes.max() <= 3 * 12 * MiB
    assert cap.memory.consumed_bytes.sum() < 0.8 * pool.memory.consumed_bytes.sum()


def test_heartbeats_go_out_every_heartbeat_interval_ms():
    """heartbeat.interval.ms 3000 over 10 s: heartbeats at 0, 3, 6 and 9 s, each read a round
    trip later; heartbeat.interval.ms 0 sends none."""
    trace = simulate(replace(KIP81_ERA, ticks=1000), seed=1, record_fetches=False)
    assert trace.heartbeats.sent_ms.tolist() == [0, 3000, 6000, 9000]
    assert trace.heartbeats.read_ms.tolist() == [10, 3010, 6010, 9010]
    none = simulate(replace(KIP81_ERA, heartbeat_interval_ms=0), seed=1, record_fetches=False)
    assert none.heartbeats.empty and none.meta["max_heartbeat_gap_ms"] == 0


@settings(max_examples=examples(0.8))
@given(buffered_consumer_scenarios(), seeds)
def test_pooled_bytes_never_exceed_buffer_memory_plus_one_response(scenario, seed):
    """Invariants: the pool holds at most buffer.memory + largest response - 1 (strict: at most
    buffer.memory); held completed fetches are part of the retained responses; with the bypass
    heartbeats are never delayed; the cap bounds memory by N responses."""
    trace = simulate(scenario, seed=seed, record_fetches=False)
    retained = trace.buffer.retained_bytes
    # held: the retained responses' buffered parts, the drained one still next in line, and (a
    # classic consumer from 2.4 hands responses over only in a poll that found nothing buffered,
    # KAFKA-8677: the kernel's `unhanded`) at most one response per broker read and not handed
    # over; Hypothesis found 3 brokers at fetch.max.bytes 0 holding 71 + 71 unhanded + 71 drained
    largest = trace.meta["largest_response_bytes"]
    idle_only = scenario.client == "java" and has(scenario.kafka_version, "hand_over_when_idle")
    unhanded = scenario.brokers * largest if idle_only else 0
    assert (trace.memory.held_bytes <= retained + largest + unhanded).all()
    if scenario.buffer_memory_bytes is not None:
        assert retained.max() <= trace.meta["pooled_bound_bytes"]
        if scenario.coordinator_bypass:
            assert (trace.heartbeats.delay_ms == 0).all()
    else:
        largest = trace.meta["largest_response_bytes"]
        assert retained.max() <= scenario.max_in_flight_fetches * largest
        assert not trace.buffer.pool_dry.any()


@settings(max_examples=examples(0.3))
@given(buffered_consumer_scenarios(), seeds)
def test_the_compiled_kernel_and_the_plain_python_kernel_agree_with_a_pool(scenario, seed):
    """Same trace compiled or not, pool, cap and heartbeats included."""
    a = simulate(scenario, seed=seed)
    b = simulate(scenario, seed=seed, compiled=False)
    for name in ("fetches", "windows", "memory", "buffer", "heartbeats"):
        assert getattr(a, name).equals(getattr(b, name)), name
    assert a.meta == b.meta


def test_the_pool_changes_nothing_when_it_never_runs_dry():
    """A pool larger than everything the consumer can hold gives today's trace."""
    today = simulate(LAGGING, seed=3)
    roomy = simulate(replace(LAGGING, buffer_memory_bytes=2**31), seed=3)
    assert today.fetches.equals(roomy.fetches) and today.memory.equals(roomy.memory)
    assert np.array_equal(today.buffer.retained_bytes, roomy.buffer.retained_bytes)


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"buffer_memory_bytes": 30_000_000},
     r"buffer_memory_bytes \(buffer.memory\) must be >= fetch.max.bytes \(52428800; KIP-81.*\): "
     r"30000000"),
    ({"buffer_memory_bytes": -1},
     r"buffer_memory_bytes \(buffer.memory\) must be an integer >= 1: -1"),
    ({"max_in_flight_fetches": 0}, r"max_in_flight_fetches must be an integer >= 1: 0"),
    ({"heartbeat_interval_ms": -3}, r"heartbeat_interval_ms \(heartbeat.interval.ms\) must be"),
    ({"session_timeout_ms": 0},
     r"session_timeout_ms \(session.timeout.ms\) must be an integer >= 1"),
])
def test_bad_buffer_settings_are_rejected_with_the_kafka_setting_and_rule(kwargs, message):
    """Nothing is clamped: buffer.memory below fetch.max.bytes, a cap of 0, negative times."""
    with pytest.raises(ValueError, match=message):
        ConsumerScenario(**kwargs)


def test_a_record_batch_larger_than_buffer_memory_is_an_error_at_run_time():
    """The pool's largest single allocation is buffer.memory: such a response is never read."""
    s = ConsumerScenario(partitions=2, brokers=1, fetch_max_bytes=100_000,
                         buffer_memory_bytes=200_000, ticks=20,
                         workload=Workload(large_record_bytes=300_000))
    with pytest.raises(ValueError, match=r"buffer.memory must hold the largest fetch response"):
        simulate(s, seed=0)
