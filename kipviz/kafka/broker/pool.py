"""KIP-72: the memory pool for incoming requests (``queued.max.request.bytes``), with its state.

Kafka's ``org.apache.kafka.common.memory.SimpleMemoryPool`` and ``MemoryPool.NONE`` (KIP-72
"Proposed Changes", "Implementation Concerns"); how the broker builds and uses one is
:mod:`kipviz.kafka.broker.network`.

* ``try_allocate(n)`` needs 1 <= n <= max single (``socket.request.max.bytes`` on a broker). A
  strict pool grants it while available >= n, a non-strict one (the broker's) while available >= 1:
  available may fall to ``1 - max_single``, so up to ``size + max_single - 1`` bytes are out, and
  small requests never starve a large one. A refusal changes no bytes; out of memory is
  available <= 0; ``release(n)`` gives the bytes back.
* Depletion is timed as ``SimpleMemoryPool`` times it (``dry_spell_*``,
  :class:`DepletionTracker`); calls take ``now_ms`` instead of reading a clock, so simulations
  stay deterministic (NaN: untimed).
* A row without a pool (``HAS_POOL`` 0) is ``MemoryPool.NONE``: every allocation succeeds.

The rules exist once, as plain functions on a pool's state row (:data:`POOL_FIELDS` numbers): the
:class:`SimpleMemoryPool` class keeps its row in a Python list; the broker and consumer kernels
keep theirs in :func:`pool_state`'s int64 numpy array (times in whole ms) and numba compiles these
very functions; the SimPy references go through the class. Like
:func:`kipviz.kafka.fetch.response.fill_raw_bytes` the rules are plain loops and comparisons only,
and they do not check their arguments (the class does). A pool is a small mutable object, like
Kafka's; :data:`NO_POOL` is stateless and shared.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable
from typing import Any, Protocol, TypeVar

import numpy as np

from kipviz.kafka.config.checks import check_int as _check_int

__all__ = [
    "AVAILABLE",
    "DEPLETED",
    "DRY",
    "DRY_START",
    "HAS_POOL",
    "LONG_MAX_VALUE",
    "LOW_MEM",
    "MAX_SINGLE",
    "NO_POOL",
    "POOL_FIELDS",
    "SIZE",
    "STRICT",
    "DepletionTracker",
    "MemoryPool",
    "NoPool",
    "SimpleMemoryPool",
    "dry_spell_refused",
    "dry_spell_served",
    "max_outstanding_bytes",
    "new_pool_row",
    "pool_out_of_memory",
    "pool_release",
    "pool_should_shuffle",
    "pool_state",
    "pool_try_allocate",
]

# The fields of a pool's state row. DRY is 1 while a dry spell is open (from DRY_START);
# DEPLETED sums the closed spells (MemoryPoolDepletedTimeTotal); LOW_MEM is Selector's
# lowMemThreshold, (long) (0.1 * size).
SIZE, MAX_SINGLE, STRICT, AVAILABLE, DRY, DRY_START, DEPLETED, LOW_MEM, HAS_POOL = range(9)
POOL_FIELDS = 9

Row = Any  # a list (the class) or an int64 numpy array (the kernels)
T = TypeVar("T")


def dry_spell_refused(pool: Row, now_ms: Any) -> None:
    """An allocation was refused at ``now_ms``: open a dry spell unless one is open
    (``startOfNoMemPeriod.compareAndSet(0, now)``)."""
    if pool[DRY] == 0:
        pool[DRY] = 1
        pool[DRY_START] = now_ms


def dry_spell_served(pool: Row, now_ms: Any) -> None:
    """An allocation was granted or bytes released at ``now_ms``: close the open dry spell and
    add its length to ``DEPLETED`` (``maybeRecordEndOfDrySpell``)."""
    if pool[DRY] != 0:
        pool[DEPLETED] += now_ms - pool[DRY_START]
        pool[DRY] = 0


def pool_try_allocate(pool: Row, n_bytes: Any, now_ms: Any) -> bool:
    """``tryAllocate(n_bytes)`` at ``now_ms`` (NaN: untimed) for 1 <= n <= max single (the
    caller checks n): True when granted, and then the bytes are out."""
    if pool[HAS_POOL] == 0:
        return True
    granted = pool[AVAILABLE] >= (n_bytes if pool[STRICT] else 1)
    timed = now_ms == now_ms  # NaN is the untimed call
    if granted:
        if timed:
            dry_spell_served(pool, now_ms)
        pool[AVAILABLE] -= n_bytes
    elif timed:
        dry_spell_refused(pool, now_ms)
    return granted


def pool_release(pool: Row, n_bytes: Any, now_ms: Any) -> None:
    """``release`` of ``n_bytes`` that are outstanding (the caller's promise) at ``now_ms``
    (NaN: untimed)."""
    if pool[HAS_POOL] == 0:
        return
    if now_ms == now_ms:
        dry_spell_served(pool, now_ms)
    pool[AVAILABLE] += n_bytes


def pool_out_of_memory(pool: Row) -> bool:
    """``isOutOfMemory()``: available <= 0 (never without a pool: available is Long.MAX)."""
    return pool[AVAILABLE] <= 0


def pool_should_shuffle(pool: Row, muted_for_memory: bool) -> bool:
    """``Selector.determineHandlingOrder`` shuffles the ready keys: nothing muted for memory
    (``outOfMemory``) and available < ``lowMemThreshold`` (10% of the pool)."""
    return not muted_for_memory and pool[AVAILABLE] < pool[LOW_MEM]


def new_pool_row(size: int, max_single: int, strict: bool, has_pool: bool) -> list[Any]:
    """A fresh pool's state row as a list (nothing out, no dry spell): ``size`` bytes with at
    most ``max_single`` per allocation; ``has_pool`` False is ``MemoryPool.NONE``."""
    row: list[Any] = [0] * POOL_FIELDS
    row[SIZE], row[MAX_SINGLE], row[STRICT], row[AVAILABLE] = size, max_single, strict, size
    row[LOW_MEM] = int(0.1 * size)  # Selector's lowMemThreshold: (long) (0.1 * size)
    row[HAS_POOL] = has_pool
    return row


class DepletionTracker:
    """Dry spells of one pool, timed as ``SimpleMemoryPool`` times them for its sensor.

    Followed from Kafka: ``tryAllocate`` sets ``startOfNoMemPeriod`` on a refusal when no spell is
    open; a granted allocation and every release call ``maybeRecordEndOfDrySpell``, which closes
    the spell and records its ms into ``oomTimeSensor``, a ``Meter(MILLISECONDS, ...)`` made by
    ``SocketServer``: a windowed ``Rate`` and a ``CumulativeSum`` of the spell lengths.

    So a spell counts only when it ends, all at once; a release that leaves the pool out of memory
    still ends it (the next refusal opens another); a strict pool opens one on any refusal. The
    rules are this module's ``dry_spell_*``, on the pool's state row (``row``, shared with the
    pool); the tracker checks the times and keeps the closed spells for the windowed average.
    """

    __slots__ = ("_last_ms", "_row", "_spells")

    def __init__(self, row: list[Any] | None = None) -> None:
        self._row = row if row is not None else [0] * POOL_FIELDS
        self._spells: list[tuple[float, float]] = []
        self._last_ms = -math.inf

    def _tick(self, now_ms: object) -> float:
        now = float(now_ms) if isinstance(now_ms, numbers.Real) else math.nan
        if isinstance(now_ms, bool) or not self._last_ms <= now < math.inf:
            raise ValueError(f"now_ms must be a finite time, never going back: {now_ms!r} "
                             f"after {self._last_ms}")
        return now

    def timed(self, call: Callable[[float], T], now_ms: float) -> T:
        """``call(now)`` on the row at the checked time ``now_ms``, keeping the spell it closes."""
        now = self._tick(now_ms)
        row = self._row
        start = row[DRY_START] if row[DRY] else None
        result = call(now)
        if start is not None and not row[DRY]:
            self._spells.append((start, now))
        self._last_ms = now
        return result

    def refused(self, now_ms: float) -> None:
        """An allocation was refused at ``now_ms``: open a dry spell unless one is open."""
        self.timed(lambda now: dry_spell_refused(self._row, now), now_ms)

    def served(self, now_ms: float) -> None:
        """An allocation was granted or bytes released at ``now_ms``: close the open spell."""
        self.timed(lambda now: dry_spell_served(self._row, now), now_ms)

    @property
    def dry_spell_start_ms(self) -> float | None:
        """When the open dry spell began, or ``None`` when allocations are not being refused."""
        return self._row[DRY_START] if self._row[DRY] else None

    @property
    def spells(self) -> tuple[tuple[float, float], ...]:
        """Closed dry spells as ``(start_ms, end_ms)``, in time order."""
        return tuple(self._spells)

    @property
    def depleted_time_total_ms(self) -> float:
        """``MemoryPoolDepletedTimeTotal``: the summed length of all closed dry spells."""
        return self._row[DEPLETED]

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

LONG_MAX_VALUE = 2**63 - 1  # Java's Long.MAX_VALUE: what MemoryPool.NONE reports as its size
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
    The state is a row (``row``), changed only by this module's ``pool_*`` rules.
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
        """The state row (:data:`POOL_FIELDS` values), a copy."""
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


def pool_state(pool: MemoryPool) -> np.ndarray:
    """The int64 state row a kernel runs this module's ``pool_*`` rules on, for a
    fresh pool: a ``SimpleMemoryPool`` not yet used, or ``NO_POOL``."""
    if not isinstance(pool, SimpleMemoryPool | NoPool):
        raise ValueError(f"pool must be a SimpleMemoryPool or NO_POOL: {pool!r}")
    if isinstance(pool, SimpleMemoryPool) and (
            pool.used_bytes or pool.depletion.dry_spell_start_ms is not None
            or pool.depletion.spells):
        raise ValueError("pool_state needs a pool that has not been used")
    return np.array(pool.row, np.int64)
