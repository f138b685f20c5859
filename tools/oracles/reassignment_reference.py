"""Today's KIP-73 reassignment loop, kept verbatim as the reference the kernel is checked against.

This is :func:`kipviz.scenarios.reassignment.scenario.simulate` as it was before the loop became a
numba kernel (``kipviz.scenarios.reassignment.kernel``): plain Python over lists, with
:class:`kipviz.kafka.replication.quota.ReplicationQuotaManager` objects for the quotas. It knows
nothing of ``in_sync_followers`` (run it with ``in_sync_followers=0``) and its ``meta`` has no
``in_sync_followers`` key. Its verdict (``meta["reason"]``) is the one rule's,
:func:`kipviz.kafka.replication.planning.throttle_verdict`.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from kipviz.kafka.fetch.request import TopicPartition
from kipviz.kafka.quotas.rate import throttle_time_ms
from kipviz.kafka.replication.planning import (
    max_replica_fetch_response_bytes,
    move_time_s,
    throttle_verdict,
)
from kipviz.kafka.replication.quota import ReplicationQuotaManager
from kipviz.scenarios.reassignment.scenario import ReassignmentScenario, ReassignmentTrace

_TOPIC = "reassigned"
_TICK_COLUMNS = {"time_ms": np.int64, "leader_rate_bytes_per_s": np.float64,
                 "follower_rate_bytes_per_s": np.float64, "throttled_bytes": np.int64,
                 "unthrottled_bytes": np.int64, "replica_lag_bytes": np.int64,
                 "moved_bytes": np.int64, "client_bandwidth_left_bytes_per_s": np.float64}
_PARTITION_COLUMNS = {"partition": np.int32, "size_bytes": np.int64, "caught_up_ms": np.int64}


def _meta(s: ReassignmentScenario, seed: int) -> dict[str, Any]:
    sizes, t = s.partition_sizes, s.throttle_bytes_per_s
    window_total_s = s.replication_quota_window_num * s.replication_quota_window_size_seconds
    meta: dict[str, Any] = {
        "mode": s.mode, "seed": seed, "tick_ms": s.tick_ms, "ticks": s.ticks,
        "brokers": s.brokers, "network_bytes_per_s": s.network_bytes_per_s,
        "bytes_in_per_s": s.bytes_in_per_s, "replication_factor": s.replication_factor,
        "leader_throttle_bytes_per_s": s.leader_throttle_bytes_per_s,
        "follower_throttle_bytes_per_s": s.follower_throttle_bytes_per_s,
        "throttle_bytes_per_s": t, "bytes_to_move": sum(sizes),
        "replica_fetch_max_bytes": s.replica_fetch_max_bytes,
        "replica_fetch_response_max_bytes": s.replica_fetch_response_max_bytes,
        "window_total_s": window_total_s,
        "kip_move_time_s": (move_time_s(1.0, sum(sizes), 1, t, s.bytes_in_per_s)
                            if t < math.inf else 0.0),
        "safe_response_max_bytes": (max_replica_fetch_response_bytes(
            t, window_total_s, s.network_bytes_per_s, s.brokers) if t < math.inf else None),
    }
    meta["finishes"] = meta["kip_move_time_s"] < math.inf
    meta["reason"] = ""
    if t < math.inf:  # KIP-73's verdict on --throttle T, no followers counted
        meta["reason"] = throttle_verdict(t, s.bytes_in_per_s, s.network_bytes_per_s,
                                          s.replication_factor)
    return meta


def simulate_reference(scenario: ReassignmentScenario, *, seed: int = 0) -> ReassignmentTrace:
    """The reassignment loop before the kernel: the trace ``simulate`` must reproduce."""
    s = scenario
    assert s.followers == 0, "the reference predates in_sync_followers: pass 0"
    sizes = list(s.partition_sizes)
    n = len(sizes)
    tps = [TopicPartition(_TOPIC, i) for i in range(n)]
    window_s = s.replication_quota_window_size_seconds
    leader = ReplicationQuotaManager(s.leader_throttle_bytes_per_s,
                                     s.replication_quota_window_num, window_s)
    follower = ReplicationQuotaManager(s.follower_throttle_bytes_per_s,
                                       s.replication_quota_window_num, window_s)
    leader.mark_throttled(_TOPIC)
    follower.mark_throttled(_TOPIC)
    in_per_partition_ms = s.bytes_in_per_s / n / 1000.0
    fetched = [0] * n  # the destination replica's log end offset, in bytes
    in_sync = [False] * n
    caught_up = [-1] * n
    network_per_tick = math.floor(s.network_bytes_per_s * s.tick_ms / 1000.0)
    keep_up = s.bytes_in_per_s / s.replication_factor
    pending: tuple[int, list[tuple[int, int]]] | None = None  # (delivery ms, [(partition, bytes)])
    next_request_ms = 0
    moved = 0
    tk = {name: np.zeros(s.ticks, dtype) for name, dtype in _TICK_COLUMNS.items()}

    for k in range(s.ticks):
        now = k * s.tick_ms
        grown = math.floor(in_per_partition_ms * now)
        log_end = [size + grown for size in sizes]
        throttled = unthrottled = 0
        if pending is None and now >= next_request_ms:
            start = k % n
            request = [i for i in (*range(start, n), *range(start))
                       if fetched[i] < log_end[i]
                       and not follower.should_throttle(tps[i], in_sync[i], now)]
            budget = min(s.replica_fetch_response_max_bytes, network_per_tick)
            response: list[tuple[int, int]] = []
            for i in request:
                if s.mode == "quota" and leader.should_throttle(tps[i], in_sync[i], now):
                    continue  # returned empty
                b = min(log_end[i] - fetched[i], s.replica_fetch_max_bytes, budget)
                if b <= 0:
                    continue
                budget -= b
                response.append((i, b))
                if in_sync[i]:
                    unthrottled += b
                else:
                    throttled += b
            sent = throttled + unthrottled  # every moving partition is in the throttled list
            leader.record(sent, now)
            delay = 0
            if s.mode == "delay" and leader.is_quota_exceeded(now):
                assert leader.quota is not None
                delay = max(0, throttle_time_ms(leader.measure(now), leader.quota.bound,
                                                leader.rate.window_size_ms(now)))
            pending = (now + delay, response)
        if pending is not None and pending[0] <= now:
            appended = 0
            for i, b in pending[1]:
                fetched[i] += b
                appended += b
                if not in_sync[i] and fetched[i] >= log_end[i]:
                    in_sync[i], caught_up[i] = True, now
            follower.record(appended, now)
            moved += appended
            next_request_ms = now + s.tick_ms
            if s.mode == "delay" and follower.is_quota_exceeded(now):
                assert follower.quota is not None
                next_request_ms += max(0, throttle_time_ms(
                    follower.measure(now), follower.quota.bound,
                    follower.rate.window_size_ms(now)))
            pending = None
        tk["leader_rate_bytes_per_s"][k] = leader.measure(now)
        tk["follower_rate_bytes_per_s"][k] = follower.measure(now)
        tk["throttled_bytes"][k] = throttled
        tk["unthrottled_bytes"][k] = unthrottled
        tk["replica_lag_bytes"][k] = sum(e - f for e, f in zip(log_end, fetched, strict=True))
        tk["moved_bytes"][k] = moved
        tk["client_bandwidth_left_bytes_per_s"][k] = (
            s.network_bytes_per_s - keep_up - (throttled + unthrottled) * 1000.0 / s.tick_ms)

    tk["time_ms"][:] = np.arange(s.ticks, dtype=np.int64) * s.tick_ms
    ticks = pd.DataFrame(tk)
    partitions = pd.DataFrame({"partition": np.arange(n), "size_bytes": sizes,
                               "caught_up_ms": caught_up}).astype(_PARTITION_COLUMNS)
    meta = _meta(s, seed)
    done = all(c >= 0 for c in caught_up)
    meta["completed_ms"] = max(caught_up) if done else None
    first = ticks.time_ms < window_s * 1000
    meta["first_window_throttled_bytes"] = int(ticks.throttled_bytes[first].sum())
    return ReassignmentTrace(ticks=ticks, partitions=partitions, meta=meta)
