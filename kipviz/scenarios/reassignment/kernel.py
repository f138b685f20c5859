"""The loop of :mod:`kipviz.scenarios.reassignment`, on numpy arrays.

numba compiles these functions for the dashboards (:func:`compiled_kernel`); run as they are,
they are the plain-Python path (``simulate(..., compiled=False)``) the benchmark compares
against.

Each quota is a rate's state arrays (``slots``, ``pos``) run by :mod:`kipviz.kafka.quotas.rate`'s
functions, the ones :class:`kipviz.kafka.replication.quota.ReplicationQuotaManager` runs, including
when the rate is *measured*: measuring purges slots and may create one, so the loop measures exactly
where :class:`kipviz.kafka.replication.quota.ReplicationQuotaManager` would (``should_throttle``
short-circuits).
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np

from kipviz.kafka.quotas.rate import (
    UNLIMITED,
    new_rate,
    quota_exceeded,
    quota_throttle_time_ms,
    rate_measure,
    rate_record,
)
from kipviz.kafka.replication.planning import in_sync_follower_bytes
from kipviz.scenarios.jit import compiled_functions, compiled_rates, jit_functions

__all__ = ["FOLLOWER_QUOTA_ZERO", "LEADER_QUOTA_ZERO", "OK", "UNLIMITED", "ReassignmentInputs",
           "ReassignmentSettings", "TickColumns", "answer", "compiled_kernel", "insert_sorted",
           "run"]

OK, LEADER_QUOTA_ZERO, FOLLOWER_QUOTA_ZERO = range(3)  # kernel status


class ReassignmentSettings(NamedTuple):
    """The run's numbers: Kafka's settings and the scenario's rates, per ms or tick as named."""

    in_per_partition_ms: float  # bytes produced per partition per ms
    tick_ms: int
    ticks: int
    fetch_max: int  # replica.fetch.max.bytes
    response_budget: int  # min(replica.fetch.response.max.bytes, network bytes per tick)
    delay_mode: bool  # mode="delay": the rejected design
    leader_bound: float  # leader.replication.throttled.rate (UNLIMITED: none)
    follower_bound: float  # follower.replication.throttled.rate (UNLIMITED: none)
    samples: int  # replication.quota.window.num
    window_ms: int  # replication.quota.window.size.seconds, in ms
    in_sync_followers: int
    network_bytes_per_s: float
    keep_up: float  # the clients' produce traffic a broker sends: IN / R


class ReassignmentInputs(NamedTuple):
    """Each moving partition's bytes at t = 0, and the throttle schedule: from ``sched_ms[i]``
    on both quotas have the bound ``sched_bounds[i]`` (``updateQuota``: recorded bytes stay)."""

    sizes: np.ndarray
    sched_ms: np.ndarray
    sched_bounds: np.ndarray


class TickColumns(NamedTuple):
    """The ``ticks`` table's columns the kernel fills (``time_ms`` aside), one row per tick."""

    leader_rate_bytes_per_s: np.ndarray
    follower_rate_bytes_per_s: np.ndarray
    throttled_bytes: np.ndarray
    unthrottled_bytes: np.ndarray
    replica_lag_bytes: np.ndarray
    moved_bytes: np.ndarray
    client_bandwidth_left_bytes_per_s: np.ndarray


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


def run(cfg, inp, cols, caught_up):
    """The tick loop of ``simulate`` (``cfg`` :class:`ReassignmentSettings`, ``inp``
    :class:`ReassignmentInputs`): fills ``cols`` (:class:`TickColumns`) and ``caught_up`` (when
    each partition's replica caught up, -1: never); a status."""
    in_per_partition_ms, tick_ms, ticks = cfg.in_per_partition_ms, cfg.tick_ms, cfg.ticks
    fetch_max, response_budget, delay_mode = cfg.fetch_max, cfg.response_budget, cfg.delay_mode
    leader_bound, follower_bound = cfg.leader_bound, cfg.follower_bound
    samples, window_ms, in_sync_followers = cfg.samples, cfg.window_ms, cfg.in_sync_followers
    network_bytes_per_s, keep_up = cfg.network_bytes_per_s, cfg.keep_up
    sizes, sched_ms, sched_bounds = inp.sizes, inp.sched_ms, inp.sched_bounds
    leader_rate, follower_rate = cols.leader_rate_bytes_per_s, cols.follower_rate_bytes_per_s
    throttled_col, unthrottled_col = cols.throttled_bytes, cols.unthrottled_bytes
    lag_col, moved_col = cols.replica_lag_bytes, cols.moved_bytes
    client_col = cols.client_bandwidth_left_bytes_per_s
    n = sizes.shape[0]
    l_slots, l_pos = new_rate(samples, False)  # the leader's quota
    f_slots, f_pos = new_rate(samples, False)  # the follower's quota
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
                delay = min(quota_throttle_time_ms(l_slots, l_pos, window_ms, leader_bound, now,
                                                   True), end_ms)
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
                next_request_ms += min(quota_throttle_time_ms(f_slots, f_pos, window_ms,
                                                              follower_bound, now, True), end_ms)
            pending = False
        leader_rate[k] = rate_measure(l_slots, l_pos, window_ms, now, True)
        follower_rate[k] = rate_measure(f_slots, f_pos, window_ms, now, True)
        throttled_col[k] = throttled
        unthrottled_col[k] = unthrottled
        lag_col[k] = total_size + n * grown - moved
        moved_col[k] = moved
        client_col[k] = network_bytes_per_s - keep_up - (throttled + unthrottled) * 1000.0 / tick_ms
    return OK


_FUNCTIONS = ("answer", "insert_sorted", "run")


def _compile() -> dict[str, Any]:
    rates = compiled_rates()  # kipviz.kafka.quotas.rate's, compiled once for every kernel
    return {**rates, **jit_functions(_FUNCTIONS, {**globals(), **rates}, foreign={
        "in_sync_follower_bytes": in_sync_follower_bytes})}


def compiled_kernel(name: str = "run") -> Any:
    """``run`` (or a function it calls, :mod:`kipviz.kafka.quotas.rate`'s included, by name)
    compiled by numba, once per process (:func:`kipviz.scenarios.jit.compiled_functions`: the
    plain functions stay plain)."""
    return compiled_functions(__name__, _compile)[name]
