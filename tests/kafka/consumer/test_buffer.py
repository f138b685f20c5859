"""KIP-81's consumer buffer (as proposed): the pool, the coordinator bypass, the metrics."""

from __future__ import annotations

import pytest

from kipviz.kafka.broker.pool import NO_POOL, SimpleMemoryPool
from kipviz.kafka.config.declarations import KIP81_PROPOSED_BUFFER_MEMORY_BYTES
from kipviz.kafka.consumer.buffer_memory import ConsumerBuffer, consumer_pool, pooled_bytes_bound

MB = 1_000_000
MiB = 2**20


def test_todays_consumer_has_no_pool_and_reads_everything():
    """buffer.memory unset (Kafka today): MemoryPool.NONE, every response is read at once."""
    buffer = ConsumerBuffer(consumer_pool(None))
    assert buffer.pool is NO_POOL
    assert buffer.read(500 * MiB) and buffer.can_read()
    assert buffer.metrics(0)["memory-pool-used"] == 0


def test_the_pool_is_a_non_strict_simple_memory_pool_of_buffer_memory():
    """KIP-81 reuses KIP-72's SimpleMemoryPool: size and largest allocation buffer.memory."""
    pool = consumer_pool(KIP81_PROPOSED_BUFFER_MEMORY_BYTES)
    assert isinstance(pool, SimpleMemoryPool)
    assert pool.size_bytes == pool.max_single_allocation_bytes == 104857600
    assert not pool.strict


def test_a_response_is_read_while_one_byte_is_free_so_the_pool_overshoots():
    """30 MB pool: 25 MB + 12 MiB responses are both read (available 5 MB >= 1), the third
    waits in the socket; the pool then holds buffer.memory + the second response - 5 MB."""
    buffer = ConsumerBuffer(consumer_pool(30 * MB, 10 * MiB))
    assert buffer.read(25 * MB, 0)
    assert buffer.read(12 * MiB, 10)
    assert buffer.pool.is_out_of_memory
    assert not buffer.read(1 * MiB, 20)
    assert buffer.pool.used_bytes == 25 * MB + 12 * MiB
    assert buffer.pool.used_bytes <= pooled_bytes_bound(30 * MB, 12 * MiB)


def test_heartbeats_bypass_a_dry_pool_and_wait_without_the_bypass():
    """KIP-81 step 3.b: the coordinator's responses are read and allocated outside the pool."""
    bypass = ConsumerBuffer(consumer_pool(10 * MiB, 10 * MiB))
    assert bypass.read(10 * MiB)
    assert not bypass.can_read() and bypass.can_read(coordinator=True)
    assert bypass.read(16, coordinator=True)
    assert bypass.pool.used_bytes == 10 * MiB
    no_bypass = ConsumerBuffer(consumer_pool(10 * MiB, 10 * MiB), coordinator_bypass=False)
    assert no_bypass.read(10 * MiB)
    assert not no_bypass.read(16, coordinator=True)


def test_releasing_a_consumed_response_ends_the_dry_spell_and_the_metrics_show_it():
    """memory-pool-depleted-time-total counts from the refused read to the release."""
    buffer = ConsumerBuffer(consumer_pool(10 * MiB, 10 * MiB))
    assert buffer.read(10 * MiB, 0)
    assert not buffer.read(4 * MiB, 100)
    buffer.release(10 * MiB, 350)
    assert buffer.read(4 * MiB, 350)
    metrics = buffer.metrics(1000, window_ms=1000)
    assert metrics == {
        "memory-pool-free": float(6 * MiB),
        "memory-pool-used": float(4 * MiB),
        "memory-pool-avg-depleted-percent": 25.0,
        "memory-pool-depleted-time-total": 250.0,
    }


def test_an_empty_response_needs_no_allocation_but_waits_while_the_pool_is_dry():
    """A response with no records allocates nothing; it is read only when reads go ahead."""
    buffer = ConsumerBuffer(consumer_pool(10 * MiB, 10 * MiB))
    assert buffer.read(0) and buffer.pool.used_bytes == 0
    buffer.read(10 * MiB)
    assert not buffer.read(0)


def test_a_strict_pool_never_holds_more_than_buffer_memory():
    """The what-if: a strict pool reads a response only when all of it fits."""
    buffer = ConsumerBuffer(consumer_pool(30 * MB, 10 * MiB, strict=True))
    assert buffer.read(25 * MB)
    assert not buffer.read(12 * MiB)
    assert pooled_bytes_bound(30 * MB, 12 * MiB, strict=True) == 30 * MB


def test_the_pooled_bound_is_buffer_memory_plus_the_largest_response_less_one_byte():
    """Non-strict: size + largest - 1 (KIP-72's 'Implementation Concerns')."""
    assert pooled_bytes_bound(30 * MB, 12 * MiB) == 30 * MB + 12 * MiB - 1
    assert pooled_bytes_bound(30 * MB, 0) == 30 * MB


@pytest.mark.parametrize(("call", "message"), [
    (lambda: consumer_pool(30 * MB, 50 * MiB),
     r"buffer_memory_bytes \(buffer.memory\) must be >= fetch.max.bytes \(52428800; KIP-81.*\): "
     r"30000000"),
    (lambda: consumer_pool(-1),
     r"buffer_memory_bytes \(buffer.memory\) must be an integer >= 1: -1"),
    (lambda: consumer_pool(1.5), r"buffer_memory_bytes \(buffer.memory\) must be an integer"),
    (lambda: consumer_pool(10, -1), r"fetch_max_bytes \(fetch.max.bytes\) must be an integer >= 0: "
                                    r"-1"),
    (lambda: pooled_bytes_bound(10 * MiB, 11 * MiB),
     r"largest_response_bytes must be <= buffer_memory_bytes \(buffer.memory\)"),
    (lambda: ConsumerBuffer(consumer_pool(10, 10)).read(-5),
     r"n_bytes must be an integer >= 0: -5"),
    (lambda: ConsumerBuffer("pool"), r"pool must be a SimpleMemoryPool or NO_POOL"),
])
def test_bad_input_names_the_kafka_setting_and_the_rule(call, message):
    """Errors name buffer.memory / fetch.max.bytes and the rule broken; nothing is clamped."""
    with pytest.raises(ValueError, match=message):
        call()
