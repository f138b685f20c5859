"""The loop of :mod:`kipviz.scenarios.reassignment` and Kafka's windowed rate, on numpy arrays.

numba compiles these functions for the dashboards (:func:`compiled`); run as they are, they are
the plain-Python path (``simulate(..., compiled=False)``) the benchmark compares against.

A rate is two arrays: ``slots`` (``samples + 1`` rows of start ms, last event ms, value) and
``pos`` (slots in use, current slot). The functions follow :mod:`kipviz.quota` step for step
(``SampledStat.record`` / ``purgeObsoleteSamples`` / ``oldest``, ``Rate`` and ``SimpleRate``
``windowSize``, ``Quota.acceptable``, ``QuotaUtils.throttleTime``), including when the rate is
*measured*: measuring purges slots and may create one, so the loop measures exactly where
:class:`kipviz.quota.ReplicationQuotaManager` would (``should_throttle`` short-circuits).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from kipviz.quota_planning import in_sync_follower_bytes
from kipviz.scenarios._jit import jit_functions

START, LAST, VALUE = range(3)  # columns of a rate's slots
USED, CURRENT = range(2)  # entries of a rate's pos
UNLIMITED = -1.0  # the bound of a quota of None (never exceeded, never measured)
OK, LEADER_QUOTA_ZERO, FOLLOWER_QUOTA_ZERO = range(3)  # kernel status
_LONG_MAX = 2**63 - 1


def new_rate(samples: int) -> tuple[np.ndarray, np.ndarray]:
    """The empty arrays of a rate of ``samples`` windows (``samples + 1`` slots)."""
    return np.zeros((samples + 1, 3), np.float64), np.zeros(2, np.int64)


def rate_record(slots, pos, window_ms, value, now):
    """``Rate.record``: add ``value`` at ``now``, opening the next slot a window after the
    current one started."""
    if pos[USED] == 0:
        slots[0, START] = now
        slots[0, LAST] = now
        slots[0, VALUE] = 0.0
        pos[USED] = 1
    c = pos[CURRENT]
    if now - slots[c, START] >= window_ms:
        c = (c + 1) % slots.shape[0]
        pos[CURRENT] = c
        if c == pos[USED]:
            pos[USED] += 1
        slots[c, START] = now
        slots[c, LAST] = now
        slots[c, VALUE] = 0.0
    slots[c, LAST] = now
    slots[c, VALUE] += value


def rate_purge(slots, pos, window_ms, now):
    """``purgeObsoleteSamples``: reset slots whose last event is ``samples`` windows old."""
    expire = (slots.shape[0] - 1) * window_ms
    for j in range(pos[USED]):
        if now - slots[j, LAST] >= expire:
            slots[j, START] = now
            slots[j, LAST] = now
            slots[j, VALUE] = 0.0


def rate_window_size_ms(slots, pos, window_ms, now, simple):
    """``SimpleRate.windowSize`` (``simple``) or ``Rate.windowSize``, after a purge; an empty
    stat gets a slot starting ``now``."""
    rate_purge(slots, pos, window_ms, now)
    if pos[USED] == 0:
        slots[0, START] = now
        slots[0, LAST] = now
        slots[0, VALUE] = 0.0
        pos[USED] = 1
    oldest = slots[0, START]
    for j in range(1, pos[USED]):
        oldest = min(oldest, slots[j, START])
    elapsed = now - oldest
    if simple:
        return max(elapsed, window_ms)
    samples = slots.shape[0] - 1
    full = int(elapsed / window_ms)  # Java's (int) of a long division: truncation
    if full < samples - 1:
        elapsed += (samples - 1 - full) * window_ms
    return max(elapsed, 1.0)


def rate_measure(slots, pos, window_ms, now, simple):
    """``Rate.measure``: the purged sum of the slots (in slot order) per second."""
    rate_purge(slots, pos, window_ms, now)
    total = 0.0
    for j in range(pos[USED]):
        total += slots[j, VALUE]
    return total / (rate_window_size_ms(slots, pos, window_ms, now, simple) / 1000.0)


def quota_exceeded(slots, pos, window_ms, bound, now):
    """``ReplicationQuotaManager.isQuotaExceeded``: not measured at all when unlimited."""
    if bound == UNLIMITED:
        return False
    return not rate_measure(slots, pos, window_ms, now, True) <= bound


def java_round(x):
    """``Math.round(double)`` as :func:`kipviz.quota.java_round`, within the long range."""
    if x != x:
        return 0
    if x >= 9.223372036854775808e18:
        return _LONG_MAX
    if x <= -9.223372036854775808e18:
        return -_LONG_MAX - 1
    whole = math.floor(x)
    return whole + 1 if x - whole >= 0.5 else whole


def throttle_ms(slots, pos, window_ms, bound, now):
    """``throttle_time_ms(measure, bound, window size)`` of an exceeded quota, at least 0."""
    observed = rate_measure(slots, pos, window_ms, now, True)
    window = rate_window_size_ms(slots, pos, window_ms, now, True)
    return max(0, java_round((observed - bound) / bound * window))


def answer(sizes, grown, fetched, in_sync, synced, start, only_in_sync, fetch_max, budget,
           resp_part, resp_bytes):
    """The follower's request, rotated to begin at ``start``, answered by the leader: up to
    ``fetch_max`` per lagging partition within ``budget`` (``only_in_sync``: the out-of-sync ones
    are left out or returned empty). Fills the response; returns its length and its throttled
    and unthrottled bytes."""
    resp_n = 0
    throttled = 0
    unthrottled = 0
    n = sizes.shape[0]
    first = 0
    if only_in_sync:  # walk the in-sync partitions alone, in the same rotated order
        n = synced.shape[0]
        first = np.searchsorted(synced, start)
    for j in range(n):
        if budget == 0:
            break
        if only_in_sync:
            i = synced[first + j if first + j < n else first + j - n]
        else:
            i = start + j if start + j < n else start + j - n
        b = min(sizes[i] + grown - fetched[i], fetch_max, budget)
        if b > 0:
            budget -= b
            resp_part[resp_n] = i
            resp_bytes[resp_n] = b
            resp_n += 1
            if in_sync[i]:
                unthrottled += b
            else:
                throttled += b
    return resp_n, throttled, unthrottled


def insert_sorted(values, n, x):
    """Insert ``x`` into the ascending ``values[:n]`` (``values`` has room for one more)."""
    at = n
    while at > 0 and values[at - 1] > x:
        values[at] = values[at - 1]
        at -= 1
    values[at] = x


def run(sizes, in_per_partition_ms, tick_ms, ticks, fetch_max, response_budget, delay_mode,
        leader_bound, follower_bound, samples, window_ms, in_sync_followers,
        network_bytes_per_s, keep_up, sched_ms, sched_bounds,
        leader_rate, follower_rate, throttled_col, unthrottled_col, lag_col, moved_col,
        client_col, caught_up):
    """The tick loop of ``simulate``: fills the tick columns and ``caught_up``; a status.

    ``sched_ms`` / ``sched_bounds``: the throttle schedule; from each time on both quotas have
    that bound (``updateQuota``: the recorded bytes stay)."""
    n = sizes.shape[0]
    l_slots, l_pos = new_rate(samples)  # the leader's quota
    f_slots, f_pos = new_rate(samples)  # the follower's quota
    fetched = np.zeros(n, np.int64)  # the destination replica's log end offset, in bytes
    in_sync = np.zeros(n, np.bool_)
    synced = np.zeros(n, np.int64)  # in-sync partitions, ascending, the first n_synced
    n_synced = 0
    out_sized = 0  # out-of-sync partitions with bytes at t = 0
    total_size = 0
    for i in range(n):
        caught_up[i] = -1
        total_size += sizes[i]
        if sizes[i] > 0:
            out_sized += 1
    resp_part = np.zeros(n, np.int64)  # the response in flight: partitions and bytes
    resp_bytes = np.zeros(n, np.int64)
    resp_n = 0
    pending = False
    deliver_ms = 0
    next_request_ms = 0
    moved = 0
    grown_before = 0
    end_ms = ticks * tick_ms  # delays reaching past the run are cut to it
    step = 0
    for k in range(ticks):
        now = k * tick_ms
        while step < sched_ms.shape[0] and sched_ms[step] <= now:
            leader_bound = sched_bounds[step]
            follower_bound = sched_bounds[step]
            step += 1
        grown = math.floor(in_per_partition_ms * now)
        throttled = 0
        unthrottled = 0
        if in_sync_followers > 0:  # existing ISR followers fetch the new bytes: counted
            rate_record(l_slots, l_pos, window_ms,
                        in_sync_follower_bytes(in_sync_followers, n * (grown - grown_before)),
                        now)
        grown_before = grown
        if not pending and now >= next_request_ms:
            # Kafka measures a quota in should_throttle for each throttled out-of-sync partition;
            # with nothing recorded in between, measuring again at the same instant changes
            # nothing, so each is measured once, when the first such partition would measure it.
            # An out-of-sync replica lags unless it never got bytes and its log is still empty.
            out_lagging = (n - n_synced > 0) if grown > 0 else out_sized > 0
            skip_out = out_lagging and quota_exceeded(f_slots, f_pos, window_ms,
                                                      follower_bound, now)
            if (not delay_mode and out_lagging and not skip_out
                    and quota_exceeded(l_slots, l_pos, window_ms, leader_bound, now)):
                skip_out = True  # the leader returns out-of-sync partitions empty
            resp_n, throttled, unthrottled = answer(
                sizes, grown, fetched, in_sync, synced[:n_synced], k % n, skip_out, fetch_max,
                response_budget, resp_part, resp_bytes)
            rate_record(l_slots, l_pos, window_ms, throttled + unthrottled, now)
            delay = 0
            if delay_mode and quota_exceeded(l_slots, l_pos, window_ms, leader_bound, now):
                if leader_bound <= 0.0:
                    return LEADER_QUOTA_ZERO
                delay = min(throttle_ms(l_slots, l_pos, window_ms, leader_bound, now), end_ms)
            pending = True
            deliver_ms = now + delay
        if pending and deliver_ms <= now:
            appended = 0
            for r in range(resp_n):
                i = resp_part[r]
                fetched[i] += resp_bytes[r]
                appended += resp_bytes[r]
                if not in_sync[i] and fetched[i] >= sizes[i] + grown:
                    in_sync[i] = True
                    caught_up[i] = now
                    if sizes[i] > 0:
                        out_sized -= 1
                    insert_sorted(synced, n_synced, i)
                    n_synced += 1
            rate_record(f_slots, f_pos, window_ms, appended, now)
            moved += appended
            next_request_ms = now + tick_ms
            if delay_mode and quota_exceeded(f_slots, f_pos, window_ms, follower_bound, now):
                if follower_bound <= 0.0:
                    return FOLLOWER_QUOTA_ZERO
                next_request_ms += min(throttle_ms(f_slots, f_pos, window_ms, follower_bound,
                                                   now), end_ms)
            pending = False
        leader_rate[k] = rate_measure(l_slots, l_pos, window_ms, now, True)
        follower_rate[k] = rate_measure(f_slots, f_pos, window_ms, now, True)
        throttled_col[k] = throttled
        unthrottled_col[k] = unthrottled
        lag_col[k] = total_size + n * grown - moved
        moved_col[k] = moved
        client_col[k] = network_bytes_per_s - keep_up - (throttled + unthrottled) * 1000.0 / tick_ms
    return OK


_FUNCTIONS = ("new_rate", "rate_record", "rate_purge", "rate_window_size_ms", "rate_measure",
              "quota_exceeded", "java_round", "throttle_ms", "answer", "insert_sorted", "run")
_compiled: dict[str, Any] = {}


def compiled() -> dict[str, Any]:
    """These functions compiled by numba (once per process), by name; numba is imported here."""
    if not _compiled:
        _compiled.update(jit_functions(
            _FUNCTIONS, globals(), foreign={"in_sync_follower_bytes": in_sync_follower_bytes}))
    return _compiled
