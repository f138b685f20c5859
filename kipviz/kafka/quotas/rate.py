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
(:class:`kipviz.kafka.replication.quota.Rate`, fast in plain Python): the class, the kernels and the
SimPy references all run these functions.

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
"""

from __future__ import annotations

import math

import numpy as np

__all__ = [
    "CURRENT",
    "FIELDS",
    "LAST",
    "LONG_MAX",
    "PURGE_BY",
    "RATE_FUNCTIONS",
    "SAMPLES",
    "START",
    "UNLIMITED",
    "USED",
    "VALUE",
    "java_round",
    "new_rate",
    "quota_exceeded",
    "quota_throttle_time_ms",
    "rate_measure",
    "rate_purge",
    "rate_record",
    "rate_reset_slot",
    "rate_window_size_ms",
    "throttle_time",
]

START, LAST, VALUE = 0, 1, 2  # fields of a slot
FIELDS = 3  # values per slot in the flat slots
USED, CURRENT, SAMPLES, PURGE_BY = 0, 1, 2, 3  # entries of pos
UNLIMITED = -1.0  # the bound of no quota (never exceeded, never measured)
LONG_MAX = 2**63 - 1  # Java's Long.MAX_VALUE
# the functions a kernel compiles (kipviz.scenarios.jit.jit_functions over this module)
RATE_FUNCTIONS = ("java_round", "throttle_time", "new_rate", "rate_reset_slot", "rate_record",
                  "rate_purge", "rate_window_size_ms", "rate_measure", "quota_exceeded",
                  "quota_throttle_time_ms")


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
    return total / (rate_window_size_ms(slots, pos, window_ms, now, simple) / 1000.0)


def quota_exceeded(slots, pos, window_ms, bound, now):
    """``ReplicationQuotaManager.isQuotaExceeded`` (``SimpleRate``): the rate is not
    acceptable (``Quota.acceptable``: ``rate <= bound``); not measured at all when
    ``UNLIMITED``."""
    if bound == UNLIMITED:
        return False
    return not rate_measure(slots, pos, window_ms, now, True) <= bound


def quota_throttle_time_ms(slots, pos, window_ms, bound, now, simple):
    """``Sensor.checkQuotas`` then ``QuotaUtils.throttleTime`` at ``now``: 0 while the rate is
    within ``bound`` (or ``UNLIMITED``), else the throttle time in ms."""
    if bound == UNLIMITED:
        return 0
    observed = rate_measure(slots, pos, window_ms, now, simple)
    if observed <= bound:
        return 0
    return throttle_time(observed, bound, rate_window_size_ms(slots, pos, window_ms, now, simple))
