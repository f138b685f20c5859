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

A pool is a small mutable object, like Kafka's; :data:`NO_POOL` is stateless and shared.
"""

from __future__ import annotations

import math
import numbers
from typing import Protocol

from kipviz._checks import check_int as _check_int
from kipviz.config.declarations import BROKER
from kipviz.config.fields import check_setting

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


class DepletionTracker:
    """Dry spells of one pool, timed as ``SimpleMemoryPool`` times them for its sensor.

    Followed from Kafka: ``tryAllocate`` sets ``startOfNoMemPeriod`` on a refusal when no spell is
    open; a granted allocation and every release call ``maybeRecordEndOfDrySpell``, which closes
    the spell and records its ms into ``oomTimeSensor``, a ``Meter(MILLISECONDS, ...)`` made by
    ``SocketServer``: a windowed ``Rate`` and a ``CumulativeSum`` of the spell lengths.

    So a spell counts only when it ends, all at once; a release that leaves the pool out of memory
    still ends it (the next refusal opens another); a strict pool opens one on any refusal.
    """

    __slots__ = ("_last_ms", "_spells", "_start_ms")

    def __init__(self) -> None:
        self._start_ms: float | None = None
        self._spells: list[tuple[float, float]] = []
        self._last_ms = -math.inf

    def _tick(self, now_ms: object) -> float:
        now = float(now_ms) if isinstance(now_ms, numbers.Real) else math.nan
        if isinstance(now_ms, bool) or not self._last_ms <= now < math.inf:
            raise ValueError(f"now_ms must be a finite time, never going back: {now_ms!r} "
                             f"after {self._last_ms}")
        return now

    def refused(self, now_ms: float) -> None:
        """An allocation was refused at ``now_ms``: open a dry spell unless one is open."""
        self._last_ms = now = self._tick(now_ms)
        if self._start_ms is None:
            self._start_ms = now

    def served(self, now_ms: float) -> None:
        """An allocation was granted or bytes released at ``now_ms``: close the open spell."""
        self._last_ms = now = self._tick(now_ms)
        if self._start_ms is not None:
            self._spells.append((self._start_ms, now))
            self._start_ms = None

    @property
    def dry_spell_start_ms(self) -> float | None:
        """When the open dry spell began, or ``None`` when allocations are not being refused."""
        return self._start_ms

    @property
    def spells(self) -> tuple[tuple[float, float], ...]:
        """Closed dry spells as ``(start_ms, end_ms)``, in time order."""
        return tuple(self._spells)

    @property
    def depleted_time_total_ms(self) -> float:
        """``MemoryPoolDepletedTimeTotal``: the summed length of all closed dry spells."""
        return sum(end - start for start, end in self._spells)

    def avg_depleted_percent(self, now_ms: float, window_ms: float = 30000) -> float:
        """``MemoryPoolAvgDepletedPercent`` x 100: spell ms recorded in the last window / window.

        Spells that ended in ``(now_ms - window_ms, now_ms]``. Kafka reports the ratio without the
        factor 100 (a ms-per-ms ``Rate``) over 2 samples (``metrics.num.samples``) of 30000 ms
        (``metrics.sample.window.ms``), i.e. 30 to 60 s; the default here is one sample window.
        As in Kafka, a long spell recorded at once can push the value above 100.
        """
        now = self._tick(now_ms)
        if isinstance(window_ms, bool) or not 0 < window_ms < math.inf:
            raise ValueError(f"window_ms (metrics.sample.window.ms) must be > 0: {window_ms!r}")
        recent = sum(end - start for start, end in self._spells if now - window_ms < end <= now)
        return 100.0 * recent / float(window_ms)


class SimpleMemoryPool:
    """Kafka's ``SimpleMemoryPool``: a byte budget, strict or not (the broker's is not).

    0 < max single allocation <= size. Pass ``now_ms`` to every call to account depletion
    (:class:`DepletionTracker`); a call without it is untimed, like a Kafka pool with no sensor.
    """

    __slots__ = ("_available", "_max_single", "_size", "_strict", "depletion")

    def __init__(self, size_bytes: int, max_single_allocation_bytes: int,
                 strict: bool = False) -> None:
        self._size = _check_int(_SIZE, size_bytes, 1)
        self._max_single = _check_int(_MAX_SINGLE, max_single_allocation_bytes, 1)
        if self._max_single > self._size:
            raise ValueError(f"{_MAX_SINGLE} must be <= {_SIZE}: {self._max_single} > {self._size}")
        self._strict = bool(strict)
        self._available = self._size
        self.depletion = DepletionTracker()

    @property
    def size_bytes(self) -> int:
        """The pool size (``queued.max.request.bytes`` on a broker)."""
        return self._size

    @property
    def max_single_allocation_bytes(self) -> int:
        """The largest single allocation (``socket.request.max.bytes`` on a broker)."""
        return self._max_single

    @property
    def strict(self) -> bool:
        """True when allocations need ``available >= n``, False when ``available >= 1`` will do."""
        return self._strict

    @property
    def available_bytes(self) -> int:
        """Bytes left (``availableMemory()``); negative after a non-strict overdraft."""
        return self._available

    @property
    def used_bytes(self) -> int:
        """Bytes outstanding: size - available (``MemoryPoolUsed``); may exceed the size."""
        return self._size - self._available

    @property
    def is_out_of_memory(self) -> bool:
        """``isOutOfMemory()``: available <= 0."""
        return self._available <= 0

    def try_allocate(self, n_bytes: int, now_ms: float | None = None) -> bool:
        """``tryAllocate``: granted while available >= n (strict) or >= 1; False changes nothing.

        n outside 1..max single is a ``ValueError`` (Kafka: ``IllegalArgumentException``).
        """
        n = _check_int("n_bytes", n_bytes, 1)
        if n > self._max_single:
            raise ValueError(f"n_bytes must be <= {_MAX_SINGLE}: {n} > {self._max_single}")
        granted = self._available >= (n if self._strict else 1)
        if now_ms is not None:
            (self.depletion.served if granted else self.depletion.refused)(now_ms)
        if granted:
            self._available -= n
        return granted

    def release(self, n_bytes: int, now_ms: float | None = None) -> None:
        """``release``: give ``n_bytes`` back, ending any dry spell.

        More than is outstanding is a ``ValueError``: Kafka would add the bytes anyway and
        silently corrupt its accounting (available above the size); kipviz refuses.
        """
        n = _check_int("n_bytes", n_bytes, 1)
        if n > self.used_bytes:
            raise ValueError(f"n_bytes must be <= the bytes outstanding (used_bytes): {n} > "
                             f"{self.used_bytes}; Kafka would silently corrupt its accounting")
        if now_ms is not None:
            self.depletion.served(now_ms)
        self._available += n

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
    if queued <= 0:
        return NO_POOL
    if queued < largest:
        raise ValueError(f"queued.max.request.bytes must be -1 or <= 0 (disabled) or "
                         f">= socket.request.max.bytes (the pool's largest single allocation) "
                         f"on a broker: {queued} < {largest}")
    return SimpleMemoryPool(queued, largest, strict)


def should_shuffle_keys(pool: MemoryPool, *, muted_for_memory: bool = False) -> bool:
    """Whether ``Selector.determineHandlingOrder`` shuffles the ready keys.

    Kafka: ``!outOfMemory && memoryPool.availableMemory() < lowMemThreshold`` with
    ``lowMemThreshold = (long) (0.1 * memoryPool.size())``. ``muted_for_memory`` is that
    ``outOfMemory`` flag: no shuffle while channels are muted for memory. Never for :data:`NO_POOL`.
    """
    low_mem_threshold = int(0.1 * pool.size_bytes)
    return not muted_for_memory and pool.available_bytes < low_mem_threshold
