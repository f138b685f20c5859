"""KIP-72 on the broker's network layer: the pool ``SocketServer`` builds, and ``Selector``'s key
shuffle under low memory.

Kafka's ``kafka.network.SocketServer`` makes the request pool from ``queued.max.request.bytes``
(``MemoryPool.NONE`` when it is <= 0, the default -1) with ``socket.request.max.bytes`` as the
largest single allocation, non-strict; ``org.apache.kafka.common.network.Selector`` mutes a channel
that cannot get memory and shuffles its ready keys while available < 10% of the pool and no channel
is muted for memory (``determineHandlingOrder``). The pool and its rules are
:mod:`kipviz.kafka.broker.pool`'s.

>>> broker_pool(-1)
NO_POOL
>>> broker_pool(500 * 1024 * 1024).max_single_allocation_bytes == SOCKET_REQUEST_MAX_BYTES
True
"""

from __future__ import annotations

from kipviz.kafka.broker.pool import (
    AVAILABLE,
    NO_POOL,
    MemoryPool,
    NoPool,
    SimpleMemoryPool,
    new_pool_row,
    pool_should_shuffle,
)
from kipviz.kafka.config.declarations import BROKER
from kipviz.kafka.config.fields import check_setting
from kipviz.kafka.config.settings import check_request_pool

__all__ = ["SOCKET_REQUEST_MAX_BYTES", "broker_pool", "should_shuffle_keys"]

SOCKET_REQUEST_MAX_BYTES = BROKER.default_of("socket.request.max.bytes")  # 100 MiB


def broker_pool(queued_max_request_bytes: int,
                socket_request_max_bytes: int = SOCKET_REQUEST_MAX_BYTES, *,
                strict: bool = False) -> SimpleMemoryPool | NoPool:
    """The pool ``SocketServer`` builds: :data:`NO_POOL` when ``queued.max.request.bytes`` <= 0.

    Otherwise ``SimpleMemoryPool(queued.max.request.bytes, socket.request.max.bytes,
    strict=False)``; ``strict=True`` is a kipviz what-if (Kafka's broker is never strict). A
    positive value below ``socket.request.max.bytes`` is rejected, as ``KafkaConfig`` does.
    """
    queued = check_setting("queued_max_request_bytes", queued_max_request_bytes,
                           BROKER["queued.max.request.bytes"])
    largest = check_setting("socket_request_max_bytes", socket_request_max_bytes,
                            BROKER["socket.request.max.bytes"])
    check_request_pool(queued, largest)
    if queued <= 0:
        return NO_POOL
    return SimpleMemoryPool(queued, largest, strict)


def should_shuffle_keys(pool: MemoryPool, *, muted_for_memory: bool = False) -> bool:
    """Whether ``Selector.determineHandlingOrder`` shuffles the ready keys.

    Kafka: ``!outOfMemory && memoryPool.availableMemory() < lowMemThreshold`` with
    ``lowMemThreshold = (long) (0.1 * memoryPool.size())``. ``muted_for_memory`` is that
    ``outOfMemory`` flag: no shuffle while channels are muted for memory. Never for :data:`NO_POOL`.
    """
    row = new_pool_row(pool.size_bytes, 0, False, True)
    row[AVAILABLE] = pool.available_bytes
    return pool_should_shuffle(row, muted_for_memory)
