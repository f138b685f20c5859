"""KIP-81: the consumer's ``buffer.memory`` pool, as proposed (never merged).

KIP-81 was accepted but is not in Apache Kafka: its pull requests (apache/kafka #3684, #4934,
#6193) were closed unmerged. kipviz models it *as proposed*. (Kafka Streams' input buffer,
KIP-770, is :mod:`kipviz.kafka.streams.input_buffer`.)

**Consumer ``buffer.memory`` (KIP-81 "Proposed Changes", steps 1-4).** One
``SimpleMemoryPool`` of ``buffer.memory`` bytes (proposed default 104857600) per consumer, at least
``fetch.max.bytes``. ``Selector.pollSelectionKeys`` reads a broker's response only while the pool
is not out of memory, and the ``NetworkReceive`` allocates the whole response from it (one
allocation per response, as KIP-72's broker does per request). Coordinator traffic (heartbeats,
marked by the proposed ``priority`` flag) bypasses the pool: it is read even when the pool is dry
and allocated outside it. The bytes go back to the pool once the records are handed to the
application, so with ``max.poll.records`` a response is released when every partition's records in
it have been returned by ``poll()`` (the reference count of KAFKA-13188's later design).

The pool is non-strict, like the broker's (``strict=True`` is a what-if): a response is read while
available >= 1, so up to ``buffer.memory + largest response - 1`` bytes are pooled. Its largest
single allocation is ``buffer.memory``; KIP-81 requires ``buffer.memory >= fetch.max.bytes`` so that
every response the broker may send fits. The pool's metrics are the KIP's ``memory-pool-free``,
``memory-pool-used``, ``memory-pool-avg-depleted-percent`` and ``memory-pool-depleted-time-total``.
"""

from __future__ import annotations

from kipviz.kafka.broker.pool import NO_POOL, NoPool, SimpleMemoryPool
from kipviz.kafka.config.checks import check_int as _check_int
from kipviz.kafka.config.declarations import BROKER, CONSUMER
from kipviz.kafka.config.fields import check_setting
from kipviz.kafka.config.settings import check_buffer_memory

__all__ = ["ConsumerBuffer", "consumer_pool", "pooled_bytes_bound"]

_BUFFER_MEMORY = "buffer_memory_bytes (buffer.memory)"


def _check_buffer_memory(buffer_memory_bytes: int) -> int:
    # a pool of 0 bytes holds nothing: the model asks for 1 (KIP-81's LONG is atLeast(0))
    return check_setting("buffer_memory_bytes", buffer_memory_bytes,
                         CONSUMER["buffer.memory"], at_least=1)


def consumer_pool(buffer_memory_bytes: int | None,
                  fetch_max_bytes: int = CONSUMER.default_of("fetch.max.bytes"), *,
                  strict: bool = False) -> SimpleMemoryPool | NoPool:
    """The pool a KIP-81 consumer would build: :data:`~kipviz.kafka.broker.pool.NO_POOL` for
    ``None``.

    ``None`` is today's consumer, which has no ``buffer.memory``. Otherwise
    ``SimpleMemoryPool(buffer.memory, buffer.memory, strict)``; ``buffer.memory`` below
    ``fetch.max.bytes`` is rejected, as the KIP says ("must be at least as big as
    max.fetch.bytes"): a whole response must fit in the pool.
    """
    fetch_max = check_setting("fetch_max_bytes", fetch_max_bytes, CONSUMER["fetch.max.bytes"])
    if buffer_memory_bytes is None:
        return NO_POOL
    memory = _check_buffer_memory(buffer_memory_bytes)
    check_buffer_memory(memory, fetch_max)
    return SimpleMemoryPool(memory, memory, strict)


def pooled_bytes_bound(buffer_memory_bytes: int, largest_response_bytes: int, *,
                       strict: bool = False) -> int:
    """The most bytes a KIP-81 pool can hold: ``buffer.memory + largest response - 1``.

    A non-strict pool reads a response while one byte is free (KIP-72 "Implementation
    Concerns"); a strict one never passes ``buffer.memory``. ``largest_response_bytes`` is
    ``max(response max bytes, largest record batch)`` (the KIP-74 first-batch exception).
    """
    memory = _check_buffer_memory(buffer_memory_bytes)
    largest = _check_int("largest_response_bytes", largest_response_bytes, 0)
    if largest > memory:
        raise ValueError(f"largest_response_bytes must be <= {_BUFFER_MEMORY}, the pool's "
                         f"largest single allocation: {largest} > {memory}")
    return memory if strict or largest == 0 else memory + largest - 1


class ConsumerBuffer:
    """A consumer's network buffer as KIP-81 proposed it: reads gated by one memory pool.

    ``pool`` is :func:`consumer_pool`'s result (``NO_POOL``: today's consumer, every read goes
    ahead). ``coordinator_bypass=False`` is the what-if the KIP guards against: heartbeat
    responses then wait for pool space like fetch responses (KIP-81 step 3.b).
    """

    __slots__ = ("coordinator_bypass", "pool")

    def __init__(self, pool: SimpleMemoryPool | NoPool, *, coordinator_bypass: bool = True):
        if not isinstance(pool, SimpleMemoryPool | NoPool):
            raise ValueError(f"pool must be a SimpleMemoryPool or NO_POOL: {pool!r}")
        self.pool = pool
        self.coordinator_bypass = bool(coordinator_bypass)

    def can_read(self, *, coordinator: bool = False) -> bool:
        """``pollSelectionKeys``' check before reading a socket: the pool is not out of memory,
        or the channel is the coordinator's and bypasses the pool."""
        return (coordinator and self.coordinator_bypass) or not self.pool.is_out_of_memory

    def read(self, n_bytes: int, now_ms: float | None = None, *, coordinator: bool = False) -> bool:
        """Read a response of ``n_bytes``; False (nothing changes) when it must stay in the socket.

        A fetch response is allocated from the pool (``try_allocate``; a dry pool or, if strict,
        too little room refuses it). A coordinator response with the bypass is allocated outside
        the pool and always read. A response of 0 bytes needs no allocation; it is read while the
        pool is not out of memory. A refusal opens a dry spell (``SimpleMemoryPool``'s timing).
        """
        n = _check_int("n_bytes", n_bytes, 0)
        if coordinator and self.coordinator_bypass:
            return True
        if n == 0:
            return not self.pool.is_out_of_memory
        return self.pool.try_allocate(n, now_ms)

    def release(self, n_bytes: int, now_ms: float | None = None) -> None:
        """Give a response's bytes back once all of its records went to the application."""
        self.pool.release(n_bytes, now_ms)

    def metrics(self, now_ms: float,
                window_ms: float = BROKER.default_of("metrics.sample.window.ms")
                ) -> dict[str, float]:
        """KIP-81's consumer metrics (the depleted percent over one sample window)."""
        pool = self.pool
        free = pool.available_bytes if isinstance(pool, SimpleMemoryPool) else pool.size_bytes
        return {
            "memory-pool-free": float(free),
            "memory-pool-used": float(pool.used_bytes),
            "memory-pool-avg-depleted-percent": pool.avg_depleted_percent(now_ms, window_ms),
            "memory-pool-depleted-time-total": float(pool.depleted_time_total_ms),
        }
