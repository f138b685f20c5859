"""KIP-72's memory pool rules, once, as plain functions on a pool's state row.

Kafka's ``org.apache.kafka.common.memory.SimpleMemoryPool`` (and ``MemoryPool.NONE``) reduced to
what changes: a row of numbers (:data:`POOL_FIELDS`) and the functions that change it. The
:class:`kipviz.kafka.broker.pool.SimpleMemoryPool` class keeps its row in a Python list; the broker
and consumer kernels keep theirs in an int64 numpy array (times in whole ms) and numba compiles
these very functions; the SimPy references go through the class. Like
:func:`kipviz.kafka.fetch.response.fill_raw_bytes` they are plain loops and comparisons only, and
they do not check their arguments (the class does).

* ``tryAllocate(n)``: granted while available >= n (strict) or >= 1 (non-strict, the broker's:
  available may fall to ``1 - max_single``); a refusal changes no bytes.
* ``release(n)``: the bytes go back.
* Dry spells as ``SimpleMemoryPool`` times them for its ``oomTimeSensor``: a refusal sets
  ``startOfNoMemPeriod`` unless a spell is open; a grant and every release call
  ``maybeRecordEndOfDrySpell``, which closes the open spell and records its length. A call with
  a NaN time is untimed (a pool with no sensor).
* A row without a pool (``HAS_POOL`` 0) is ``MemoryPool.NONE``: every allocation succeeds and
  nothing is counted.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = [
    "AVAILABLE",
    "DEPLETED",
    "DRY",
    "DRY_START",
    "HAS_POOL",
    "LOW_MEM",
    "MAX_SINGLE",
    "POOL_FIELDS",
    "SIZE",
    "STRICT",
    "DepletionTracker",
    "dry_spell_refused",
    "dry_spell_served",
    "new_pool_row",
    "pool_out_of_memory",
    "pool_release",
    "pool_should_shuffle",
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
    rules are :mod:`kipviz.kafka.broker.pool_state`'s, on the pool's state row (``row``, shared with
    the pool); the tracker checks the times and keeps the closed spells for the windowed average.
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
