"""KIP-72: the broker's memory pool for incoming requests (``queued.max.request.bytes``).

Kafka's ``org.apache.kafka.common.memory.SimpleMemoryPool`` and ``MemoryPool.NONE`` as
``SocketServer`` and ``Selector`` use them (KIP-72 "Proposed Changes", "Implementation Concerns").

* ``try_allocate(n)`` needs 1 <= n <= max single (``socket.request.max.bytes`` on a broker). A
  strict pool grants it while available >= n, a non-strict one (the broker's) while available >= 1:
  available may fall to ``1 - max_single``, so up to ``size + max_single - 1`` bytes are out, and
  small requests never starve a large one. Out of memory is available <= 0.
* Depletion is timed as ``SimpleMemoryPool`` times it (:class:`DepletionTracker`); calls take
  ``now_ms`` instead of reading a clock, so simulations stay deterministic.
* ``Selector`` shuffles ready keys while available < 10% of the pool (:func:`should_shuffle_keys`).

A pool is a small mutable object, like Kafka's; :data:`NO_POOL` is stateless and shared. Its
state is a row of :mod:`kipviz.kafka.broker.pool_state`, changed only by that module's plain
functions, which the broker and consumer kernels compile and run on :func:`pool_state`'s int64 copy
of the row.
"""

from __future__ import annotations

import math
from typing import Any, Protocol

import numpy as np

from kipviz.kafka.broker.pool_state import (
    AVAILABLE,
    MAX_SINGLE,
    SIZE,
    STRICT,
    DepletionTracker,
    new_pool_row,
    pool_out_of_memory,
    pool_release,
    pool_should_shuffle,
    pool_try_allocate,
)
from kipviz.kafka.config.checks import check_int as _check_int
from kipviz.kafka.config.declarations import BROKER
from kipviz.kafka.config.fields import check_setting
from kipviz.kafka.config.settings import check_request_pool

__all__ = [
    "LONG_MAX_VALUE",
    "NO_POOL",
    "SOCKET_REQUEST_MAX_BYTES",
    "DepletionTracker",
    "MemoryPool",
    "NoPool",
    "SimpleMemoryPool",
    "broker_pool",
    "max_outstanding_bytes",
    "pool_out_of_memory",
    "pool_release",
    "pool_should_shuffle",
    "pool_state",
    "pool_try_allocate",
    "should_shuffle_keys",
]

LONG_MAX_VALUE = 2**63 - 1  # Java's Long.MAX_VALUE: what MemoryPool.NONE reports as its size
SOCKET_REQUEST_MAX_BYTES = BROKER.default_of("socket.request.max.bytes")  # 100 MiB
_SIZE = "size_bytes (queued.max.request.bytes on a broker)"
_MAX_SINGLE = "max_single_allocation_bytes (socket.request.max.bytes on a broker)"


class MemoryPool(Protocol):
    """What scenarios need from a pool: Kafka's ``MemoryPool`` interface plus its metrics."""

    @property
    def size_bytes(self) -> int: ...
    @property
    def available_bytes(self) -> int: ...
    @property
    def used_bytes(self) -> int: ...
    @property
    def is_out_of_memory(self) -> bool: ...
    @property
    def depleted_time_total_ms(self) -> float: ...
    def try_allocate(self, n_bytes: int, now_ms: float | None = None) -> bool: ...
    def release(self, n_bytes: int, now_ms: float | None = None) -> None: ...
    def avg_depleted_percent(self, now_ms: float, window_ms: float = 30000) -> float: ...


class SimpleMemoryPool:
    """Kafka's ``SimpleMemoryPool``: a byte budget, strict or not (the broker's is not).

    0 < max single allocation <= size. Pass ``now_ms`` to every call to account depletion
    (:class:`DepletionTracker`); a call without it is untimed, like a Kafka pool with no sensor.
    The state is a row of :mod:`kipviz.kafka.broker.pool_state` (``row``), changed only by its
    rules.
    """

    __slots__ = ("_row", "depletion")

    def __init__(self, size_bytes: int, max_single_allocation_bytes: int,
                 strict: bool = False) -> None:
        size = _check_int(_SIZE, size_bytes, 1)
        max_single = _check_int(_MAX_SINGLE, max_single_allocation_bytes, 1)
        if max_single > size:
            raise ValueError(f"{_MAX_SINGLE} must be <= {_SIZE}: {max_single} > {size}")
        self._row = new_pool_row(size, max_single, bool(strict), True)
        self.depletion = DepletionTracker(self._row)

    @property
    def row(self) -> tuple[Any, ...]:
        """The state row (:data:`kipviz.kafka.broker.pool_state.POOL_FIELDS` values), a copy."""
        return tuple(self._row)

    @property
    def size_bytes(self) -> int:
        """The pool size (``queued.max.request.bytes`` on a broker)."""
        return self._row[SIZE]

    @property
    def max_single_allocation_bytes(self) -> int:
        """The largest single allocation (``socket.request.max.bytes`` on a broker)."""
        return self._row[MAX_SINGLE]

    @property
    def strict(self) -> bool:
        """True when allocations need ``available >= n``, False when ``available >= 1`` will do."""
        return self._row[STRICT]

    @property
    def available_bytes(self) -> int:
        """Bytes left (``availableMemory()``); negative after a non-strict overdraft."""
        return self._row[AVAILABLE]

    @property
    def used_bytes(self) -> int:
        """Bytes outstanding: size - available (``MemoryPoolUsed``); may exceed the size."""
        return self._row[SIZE] - self._row[AVAILABLE]

    @property
    def is_out_of_memory(self) -> bool:
        """``isOutOfMemory()``: available <= 0."""
        return pool_out_of_memory(self._row)

    def try_allocate(self, n_bytes: int, now_ms: float | None = None) -> bool:
        """``tryAllocate``: granted while available >= n (strict) or >= 1; False changes nothing.

        n outside 1..max single is a ``ValueError`` (Kafka: ``IllegalArgumentException``).
        """
        n = _check_int("n_bytes", n_bytes, 1)
        if n > self._row[MAX_SINGLE]:
            raise ValueError(f"n_bytes must be <= {_MAX_SINGLE}: {n} > {self._row[MAX_SINGLE]}")
        if now_ms is None:
            return pool_try_allocate(self._row, n, math.nan)
        return self.depletion.timed(lambda now: pool_try_allocate(self._row, n, now), now_ms)

    def release(self, n_bytes: int, now_ms: float | None = None) -> None:
        """``release``: give ``n_bytes`` back, ending any dry spell.

        More than is outstanding is a ``ValueError``: Kafka would add the bytes anyway and
        silently corrupt its accounting (available above the size); kipviz refuses.
        """
        n = _check_int("n_bytes", n_bytes, 1)
        if n > self.used_bytes:
            raise ValueError(f"n_bytes must be <= the bytes outstanding (used_bytes): {n} > "
                             f"{self.used_bytes}; Kafka would silently corrupt its accounting")
        if now_ms is None:
            pool_release(self._row, n, math.nan)
        else:
            self.depletion.timed(lambda now: pool_release(self._row, n, now), now_ms)

    @property
    def depleted_time_total_ms(self) -> float:
        """``MemoryPoolDepletedTimeTotal`` (see :class:`DepletionTracker`)."""
        return self.depletion.depleted_time_total_ms

    def avg_depleted_percent(self, now_ms: float, window_ms: float = 30000) -> float:
        """``MemoryPoolAvgDepletedPercent`` as a percentage (see :class:`DepletionTracker`)."""
        return self.depletion.avg_depleted_percent(now_ms, window_ms)


class NoPool:
    """Kafka's ``MemoryPool.NONE``: every allocation succeeds, nothing is counted, never dry.

    Size and available are ``Long.MAX_VALUE``, used is 0 (the broker's ``MemoryPoolUsed`` gauge)
    and release does nothing; sizes must be >= 0, as ``ByteBuffer.allocate`` requires.
    """

    __slots__ = ()
    size_bytes = available_bytes = LONG_MAX_VALUE
    used_bytes = 0
    is_out_of_memory = False
    depleted_time_total_ms = 0.0

    def __repr__(self) -> str:
        return "NO_POOL"

    def try_allocate(self, n_bytes: int, now_ms: float | None = None) -> bool:
        """Always True."""
        _check_int("n_bytes", n_bytes, 0)
        return True

    def release(self, n_bytes: int, now_ms: float | None = None) -> None:
        """Does nothing."""
        _check_int("n_bytes", n_bytes, 0)

    def avg_depleted_percent(self, now_ms: float, window_ms: float = 30000) -> float:
        """Always 0."""
        return 0.0

    @property
    def row(self) -> tuple[Any, ...]:
        """The state row of ``MemoryPool.NONE``: no pool, Long.MAX available."""
        return tuple(new_pool_row(LONG_MAX_VALUE, 0, False, False))


NO_POOL = NoPool()
"""Kafka's ``MemoryPool.NONE``: the broker's pool when ``queued.max.request.bytes`` <= 0."""


def max_outstanding_bytes(size_bytes: int, max_single_allocation_bytes: int,
                          strict: bool = False) -> int:
    """The most bytes a pool can have out: ``size + max_single - 1`` non-strict, ``size`` strict.

    KIP-72 "Implementation Concerns" (its "Proposed Changes" say one byte more).
    """
    pool = SimpleMemoryPool(size_bytes, max_single_allocation_bytes, strict)
    return pool.size_bytes + (0 if pool.strict else pool.max_single_allocation_bytes - 1)


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


def pool_state(pool: MemoryPool) -> np.ndarray:
    """The int64 state row a kernel runs :mod:`kipviz.kafka.broker.pool_state`'s rules on, for a
    fresh pool: a ``SimpleMemoryPool`` not yet used, or ``NO_POOL``."""
    if not isinstance(pool, SimpleMemoryPool | NoPool):
        raise ValueError(f"pool must be a SimpleMemoryPool or NO_POOL: {pool!r}")
    if isinstance(pool, SimpleMemoryPool) and (
            pool.used_bytes or pool.depletion.dry_spell_start_ms is not None
            or pool.depletion.spells):
        raise ValueError("pool_state needs a pool that has not been used")
    return np.array(pool.row, np.int64)
