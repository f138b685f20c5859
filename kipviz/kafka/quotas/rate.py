"""Kafka's windowed rate and quota check as plain functions on state arrays: the one copy.

``org.apache.kafka.common.metrics.stats`` as it is since apache/kafka#15889 (Kafka 3.8):
``SampledStat.record`` / ``purgeObsoleteSamples`` / ``oldest``, ``WindowedSum.combine``,
``Rate.windowSize`` and ``SimpleRate.windowSize``; ``Quota.acceptable`` (an upper bound) and
``QuotaUtils.throttleTime`` with Java's ``Math.round``.

A rate's state is ``slots``, flat: slot j's start ms, last event ms and value at
``FIELDS * j + START / LAST / VALUE`` (``samples + 1`` slots; ``samples`` for the rule before
#15889), and ``pos`` (slots in use, current slot, samples, the field a slot is purged by:
``LAST`` since #15889, ``START`` before). Flat and indexed by number, the state may be numpy
arrays (the kernels, which numba compiles without making views) or Python lists
(:class:`Rate`, fast in plain Python): the class, the kernels and the SimPy references all run
these functions.

* ``rate_record``: into the current slot (made at ``now`` if there is none); when ``now - its
  start >= window`` the next slot, cyclically, is reset to start at ``now`` and takes the value.
* ``rate_purge``: every slot whose last event is at least ``samples * window`` old is reset to
  start at ``now`` with value 0; measuring an empty stat creates a slot starting ``now``.
* ``rate_window_size_ms``: ``Rate``: elapsed since the oldest start, plus the missing whole
  windows while fewer than ``samples - 1`` have elapsed, at least 1 ms; ``SimpleRate``
  (``simple``): ``max(elapsed, window)``. ``rate_measure``: the slot sum / (window / 1000.0).

>>> slots, pos = new_rate(2)                     # Kafka's RateTest: 2 samples of 1 s
>>> rate_record(slots, pos, 1000, 100.0, 0)
>>> float(rate_window_size_ms(slots, pos, 1000, 500, False))   # 500 ms + one missing window
1500.0
>>> float(rate_measure(slots, pos, 1000, 500, True))            # SimpleRate: over one window
100.0
>>> java_round(2.5), java_round(-2.5), java_round(0.49999999999999994)
(3, -2, 0)

The classes keep that state for plain Python: :class:`Rate` and :class:`SimpleRate` (``record``,
``measure``, ``window_size_ms``; ``legacy=True`` is the rule before #15889), :class:`Quota`
(``Quota.acceptable``), with :func:`throttle_time_ms` and :func:`max_value_in_quota_window`
(``ClientQuotaManager.getMaxValueInQuotaWindow``) checking their arguments.

>>> r = SimpleRate(2, 1000)
>>> r.record(100.0, 0)
>>> r.measure(500)
100.0
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from kipviz.kafka.config.checks import check_number as _check_number
from kipviz.kafka.config.declarations import BROKER
from kipviz.kafka.config.fields import check_setting

__all__ = [
    "CURRENT",
    "FIELDS",
    "LAST",
    "LONG_MAX",
    "METRICS_NUM_SAMPLES",
    "METRICS_SAMPLE_WINDOW_MS",
    "PURGE_BY",
    "RATE_FUNCTIONS",
    "SAMPLES",
    "START",
    "UNLIMITED",
    "USED",
    "VALUE",
    "Quota",
    "Rate",
    "Sample",
    "SimpleRate",
    "bound_or_inf",
    "java_round",
    "max_value_in_quota_window",
    "new_rate",
    "quota_allowance",
    "quota_exceeded",
    "quota_throttle_time_ms",
    "rate_measure",
    "rate_purge",
    "rate_purged_window_size_ms",
    "rate_record",
    "rate_reset_slot",
    "rate_window_size_ms",
    "throttle_time",
    "throttle_time_ms",
]

START, LAST, VALUE = 0, 1, 2  # fields of a slot
FIELDS = 3  # values per slot in the flat slots
USED, CURRENT, SAMPLES, PURGE_BY = 0, 1, 2, 3  # entries of pos
UNLIMITED = math.inf  # the bound of no quota (never exceeded, never measured): the one encoding
LONG_MAX = 2**63 - 1  # Java's Long.MAX_VALUE
METRICS_NUM_SAMPLES = BROKER.default_of("metrics.num.samples")  # MetricConfig: 2
METRICS_SAMPLE_WINDOW_MS = BROKER.default_of("metrics.sample.window.ms")  # 30000
# the functions a kernel compiles (kipviz.scenarios.jit.jit_functions over this module)
RATE_FUNCTIONS = ("java_round", "throttle_time", "new_rate", "rate_reset_slot", "rate_record",
                  "rate_purge", "rate_purged_window_size_ms", "rate_window_size_ms",
                  "rate_measure", "quota_exceeded", "quota_allowance", "quota_throttle_time_ms")


def bound_or_inf(rate_bytes_per_s: float | None) -> float:
    """A quota setting as the kernels' bound: ``None`` (unset: no quota, Kafka's
    ``Long.MAX_VALUE`` default for ``*.throttled.rate`` and ``consumer_byte_rate``) is
    :data:`UNLIMITED` (``math.inf``), anything else a float. Numeric code never uses another
    sentinel (no -1.0, no 0): ``inf`` compares as "never exceeded" in Python and numba alike.

    >>> bound_or_inf(None), bound_or_inf(10_000_000)
    (inf, 10000000.0)
    """
    return UNLIMITED if rate_bytes_per_s is None else float(rate_bytes_per_s)


def java_round(x):
    """Java's ``Math.round(double)``: nearest long, ties towards +inf (2.5 -> 3, -2.5 -> -2).

    Not Python's ``round`` (ties to even) and not ``floor(x + 0.5)``, which gives 1 for
    0.49999999999999994. NaN gives 0; values beyond the long range are clamped as in Java.
    """
    if x != x:
        return 0
    if x >= 9.223372036854775808e18:
        return LONG_MAX
    if x <= -9.223372036854775808e18:
        return -LONG_MAX - 1
    whole = math.floor(x)
    return whole + 1 if x - whole >= 0.5 else whole  # x - floor(x) is exact for doubles


def throttle_time(observed, bound, window_size_ms):
    """``QuotaUtils.throttleTime``: ``Math.round((observed - bound) / bound * window)``, the
    delay X that brings O down to T over window W (``O * W / (W + X) = T``)."""
    return java_round((observed - bound) / bound * window_size_ms)


def new_rate(samples, legacy=False):
    """The empty state ``(slots, pos)`` of a rate of ``samples`` windows: ``samples + 1``
    slots of ``FIELDS`` values (``samples``, purged by start, with ``legacy``: the rule before
    Kafka 3.8). Compiled callers pass ``legacy`` (a rebuilt function has no defaults)."""
    pos = np.zeros(4, np.int64)
    pos[SAMPLES] = samples
    pos[PURGE_BY] = START if legacy else LAST
    return np.zeros((samples if legacy else samples + 1) * FIELDS, np.float64), pos


def rate_reset_slot(slots, j, now):
    """``Sample.reset``: slot ``j`` starts at ``now`` with value 0."""
    at = FIELDS * j
    slots[at + START] = now
    slots[at + LAST] = now
    slots[at + VALUE] = 0.0


def rate_record(slots, pos, window_ms, value, now):
    """``SampledStat.record``: add ``value`` at ``now``, opening the next slot a window after
    the current one started."""
    if pos[USED] == 0:
        rate_reset_slot(slots, 0, now)
        pos[USED] = 1
    c = pos[CURRENT]
    if now - slots[FIELDS * c + START] >= window_ms:
        c = (c + 1) % (len(slots) // FIELDS)
        pos[CURRENT] = c
        if c == pos[USED]:
            pos[USED] += 1
        rate_reset_slot(slots, c, now)
    at = FIELDS * c
    slots[at + LAST] = now
    slots[at + VALUE] += value


def rate_purge(slots, pos, window_ms, now):
    """``purgeObsoleteSamples``: reset the slots whose last event (start, before #15889) is
    ``samples`` windows old."""
    expire = pos[SAMPLES] * window_ms
    for i in range(pos[PURGE_BY], FIELDS * pos[USED], FIELDS):  # each slot's purge field
        if now - slots[i] >= expire:
            rate_reset_slot(slots, i // FIELDS, now)


def rate_window_size_ms(slots, pos, window_ms, now, simple):
    """``SimpleRate.windowSize`` (``simple``) or ``Rate.windowSize``, after a purge; an empty
    stat gets a slot starting ``now`` (``SampledStat.oldest``)."""
    rate_purge(slots, pos, window_ms, now)
    return rate_purged_window_size_ms(slots, pos, window_ms, now, simple)


def rate_purged_window_size_ms(slots, pos, window_ms, now, simple):
    """:func:`rate_window_size_ms` of a rate already purged at ``now`` (a second purge at the
    same instant resets nothing: every slot it reset last changed at ``now``)."""
    if pos[USED] == 0:
        rate_reset_slot(slots, 0, now)
        pos[USED] = 1
    oldest = slots[START]
    for i in range(FIELDS + START, FIELDS * pos[USED], FIELDS):
        if slots[i] < oldest:  # min(oldest, start), without a call in plain Python
            oldest = slots[i]
    elapsed = now - oldest
    if simple:
        return max(elapsed, window_ms)
    samples = pos[SAMPLES]
    full = int(elapsed / window_ms)  # Java's (int) of a long division: truncation
    if full < samples - 1:
        elapsed += (samples - 1 - full) * window_ms
    return max(elapsed, 1.0)


def rate_measure(slots, pos, window_ms, now, simple):
    """``Rate.measure``: the purged sum of the slots (``WindowedSum``, in slot order) per
    second."""
    rate_purge(slots, pos, window_ms, now)
    total = 0.0
    for i in range(VALUE, FIELDS * pos[USED], FIELDS):
        total += slots[i]
    return total / (rate_purged_window_size_ms(slots, pos, window_ms, now, simple) / 1000.0)


def quota_exceeded(slots, pos, window_ms, bound, now):
    """``ReplicationQuotaManager.isQuotaExceeded`` (``SimpleRate``): the rate is not
    acceptable (``Quota.acceptable``: ``rate <= bound``); not measured at all when
    ``UNLIMITED``."""
    if bound == UNLIMITED:
        return False
    return not rate_measure(slots, pos, window_ms, now, True) <= bound


def quota_allowance(slots, pos, window_ms, bound, now):
    """The bytes a ``SimpleRate`` quota can record at ``now`` and still be acceptable
    (``rate <= bound``): ``bound`` x the window's span less what its samples hold, 0 while it is
    exceeded (Kafka's gate then shuts), ``inf`` when ``UNLIMITED``. The model's share of a
    binding quota (:mod:`kipviz.scenarios.reassignment.kernel`): the gate made continuous."""
    if bound == UNLIMITED:
        return math.inf
    rate_purge(slots, pos, window_ms, now)
    total = 0.0
    for i in range(VALUE, FIELDS * pos[USED], FIELDS):
        total += slots[i]
    span = rate_purged_window_size_ms(slots, pos, window_ms, now, True) / 1000.0
    return max(bound * span - total, 0.0)


def quota_throttle_time_ms(slots, pos, window_ms, bound, now, simple):
    """``Sensor.checkQuotas`` then ``QuotaUtils.throttleTime`` at ``now``: 0 while the rate is
    within ``bound`` (or ``UNLIMITED``), else the throttle time in ms."""
    if bound == UNLIMITED:
        return 0
    observed = rate_measure(slots, pos, window_ms, now, simple)
    if observed <= bound:
        return 0
    return throttle_time(observed, bound, rate_window_size_ms(slots, pos, window_ms, now, simple))


@dataclass(frozen=True)
class Sample:
    """One slot of a ``SampledStat`` (``SampledStat.Sample``), as a read-only snapshot."""

    start_ms: float
    last_event_ms: float
    value: float


class Rate:
    """Kafka's ``Rate`` over a ``WindowedSum``: ``record``, ``measure`` (per second), window size.

    ``samples`` and ``window_ms`` are the ``MetricConfig`` (``metrics.num.samples`` 2,
    ``metrics.sample.window.ms`` 30000 by default). Times are Kafka's wall clock in ms. The
    rules are this module's functions, run on this object's slots (Python lists).
    """

    simple = False  # Rate.windowSize; SimpleRate's is max(elapsed, one window)

    def __init__(self, samples: int = METRICS_NUM_SAMPLES,
                 window_ms: int = METRICS_SAMPLE_WINDOW_MS, *, legacy: bool = False) -> None:
        self.samples = check_setting("samples", samples, BROKER["metrics.num.samples"])
        self.window_ms = check_setting("window_ms", window_ms, BROKER["metrics.sample.window.ms"])
        self.legacy = legacy
        # the state of the functions above as lists: start_ms, last_event_ms, value of each
        # slot, flat, and [slots used, current slot, samples, the field slots are purged by]
        self._slots = [0.0] * (FIELDS * (samples if legacy else samples + 1))
        self._pos = [0, 0, samples, START if legacy else LAST]

    def record(self, value: float, now_ms: float) -> None:
        """Add ``value`` at ``now_ms`` (``SampledStat.record``), advancing to a new slot if due."""
        rate_record(self._slots, self._pos, self.window_ms, value, now_ms)

    def window_size_ms(self, now_ms: float) -> float:
        """``Rate.windowSize``: elapsed since the oldest slot plus any missing whole windows
        (``SimpleRate``: at least one whole window)."""
        return rate_window_size_ms(self._slots, self._pos, self.window_ms, now_ms, self.simple)

    def measure(self, now_ms: float) -> float:
        """The rate per second at ``now_ms``: purged sum / (window size / 1000.0)."""
        return rate_measure(self._slots, self._pos, self.window_ms, now_ms, self.simple)

    def throttle_time_ms(self, bound: float, now_ms: float) -> int:
        """``Sensor.checkQuotas`` against an upper ``bound`` then ``QuotaUtils.throttleTime``:
        0 while the rate is within it, else the ms that bring it back."""
        return quota_throttle_time_ms(self._slots, self._pos, self.window_ms, bound, now_ms,
                                      self.simple)

    def slots(self) -> tuple[Sample, ...]:
        """The slots as stored, in slot order (no purge)."""
        f = FIELDS
        return tuple(Sample(*self._slots[f * j: f * j + f]) for j in range(self._pos[USED]))

    @property
    def current_slot(self) -> int:
        """The slot the next record goes to unless a window has passed (``SampledStat.current``)."""
        return self._pos[CURRENT]


class SimpleRate(Rate):
    """Kafka's ``SimpleRate``: window size = ``max(now - oldest start, one window)``."""

    simple = True


@dataclass(frozen=True)
class Quota:
    """Kafka's ``Quota``: an upper (or lower) bound; the bound itself is acceptable."""

    bound: float
    upper: bool = True

    def acceptable(self, value: float) -> bool:
        """``Quota.acceptable``: ``value <= bound`` for an upper bound, ``>=`` for a lower one."""
        return value <= self.bound if self.upper else value >= self.bound


def throttle_time_ms(observed: float, bound: float, window_size_ms: float) -> int:
    """``QuotaUtils.throttleTime``: ``Math.round((observed - bound) / bound * window)``.

    The delay X that brings O down to T over window W: ``O * W / (W + X) = T``.
    """
    _check_number("bound (quota)", bound, 0, strict=True)
    _check_number("window_size_ms", window_size_ms, 0, strict=True)
    return throttle_time(observed, bound, window_size_ms)


def max_value_in_quota_window(quota_bytes_per_s: float, samples: int, window_s: float) -> float:
    """``ClientQuotaManager.getMaxValueInQuotaWindow``: ``quota * (samples - 1) * window_s``.

    The most one request may record without being throttled for sure (caps a fetch response).
    """
    _check_number("quota_bytes_per_s", quota_bytes_per_s, 0)
    check_setting("samples", samples, BROKER["quota.window.num"])
    _check_number("window_s (quota.window.size.seconds)", window_s, 0, strict=True)
    return quota_bytes_per_s * (samples - 1) * window_s
