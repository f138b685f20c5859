"""A KIP-73 throttled reassignment between one leader and one destination follower, tick by tick.

What it models (``ReplicaManager.fetchMessages`` / ``ReplicaFetcherThread`` with the leader and
follower ``ReplicationQuotaManager`` of :mod:`kipviz.quota`; every partition moved is throttled on
both sides, as ``kafka-reassign-partitions --throttle`` sets it):

* P moving partitions, each a log of ``size_bytes`` at t = 0 that producers extend by IN / P bytes
  a second (the moving partitions take all of the broker's IN, as the KIP's move-time formula
  assumes). The destination replica starts empty and out of sync.
* One fetch per tick (``tick_ms`` stands for the fetch round trip; Kafka's fetcher refetches as
  soon as a response arrives, or after ``replica.fetch.wait.max.ms`` when there is nothing).
  The follower's request lists the partitions it lags on, rotated by one each fetch, leaving out
  throttled out-of-sync partitions while *its* quota is exceeded (``should_throttle``).
* ``mode="quota"`` (KIP-73 as shipped): the leader walks the request in order and returns a
  partition EMPTY when ``leader_quota.should_throttle`` says so (out of sync, throttled, quota
  exceeded); otherwise up to ``replica.fetch.max.bytes`` within what is left of
  ``replica.fetch.response.max.bytes`` and of the network (N x tick). It then records the bytes
  of throttled partitions it sent; the follower appends them (same tick) and records them too.
* ``mode="delay"`` (the KIP's rejected design, for comparison): nothing is omitted; when a
  quota is exceeded after recording, the leader holds the response for
  ``throttle_time_ms(rate, quota, window)`` and the follower blocks its next fetch likewise.
* KAFKA-4313: a moving replica is in sync once it has caught up to the log end; from then on it
  is never throttled, but its bytes are still recorded by both quotas.
* Clients: Q&A 4 sizes a broker's network as the replication it sends plus the unthrottled
  produce traffic IN / R of its leaders, so the bandwidth left is N - IN/R - sent / tick.

Simplifications: bytes are continuous (no record batches, so no oversized first batch of
KIP-74); a replica never drops out of the ISR again (no ``replica.lag.time.max.ms``); the
existing in-sync followers of the moving partitions (also in the leader's throttled list, so
counted in Kafka) are not modelled, which keeps the KIP's T > IN as the condition to finish.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import pandas as pd

from kipviz._checks import check_int, check_number
from kipviz.fetch import TopicPartition
from kipviz.planner import plan_throttle
from kipviz.quota import (
    REPLICATION_QUOTA_WINDOW_NUM,
    REPLICATION_QUOTA_WINDOW_SIZE_SECONDS,
    ReplicationQuotaManager,
    max_replica_fetch_response_bytes,
    move_time_s,
    throttle_time_ms,
)

__all__ = ["ReassignmentScenario", "ReassignmentTrace", "simulate"]

_TOPIC = "reassigned"
_TICK_COLUMNS = {"time_ms": np.int64, "leader_rate_bytes_per_s": np.float64,
                 "follower_rate_bytes_per_s": np.float64, "throttled_bytes": np.int64,
                 "unthrottled_bytes": np.int64, "replica_lag_bytes": np.int64,
                 "moved_bytes": np.int64, "client_bandwidth_left_bytes_per_s": np.float64}
_PARTITION_COLUMNS = {"partition": np.int32, "size_bytes": np.int64, "caught_up_ms": np.int64}


@dataclass(frozen=True)
class ReassignmentScenario:
    """A reassignment's brokers, partitions and Kafka settings; vary it with ``replace``.

    Rates are bytes/s per broker; ``None`` throttles are unlimited (Kafka's default). A throttle
    at or below IN is legal (Kafka accepts it) but the move never finishes (``meta``).
    ``sizes`` (bytes per moving partition) overrides ``partitions`` x ``log_bytes``.
    """

    brokers: int = 5
    network_bytes_per_s: float = 125e6
    bytes_in_per_s: float = 0.0
    replication_factor: int = 3
    partitions: int = 1
    log_bytes: int = 100_000_000
    sizes: tuple[int, ...] | None = None
    leader_throttle_bytes_per_s: float | None = 10e6
    follower_throttle_bytes_per_s: float | None = 10e6
    replica_fetch_max_bytes: int = 1048576
    replica_fetch_response_max_bytes: int = 10485760
    replication_quota_window_num: int = REPLICATION_QUOTA_WINDOW_NUM
    replication_quota_window_size_seconds: int = REPLICATION_QUOTA_WINDOW_SIZE_SECONDS
    tick_ms: int = 10
    ticks: int = 2000
    mode: Literal["quota", "delay"] = "quota"

    def __post_init__(self) -> None:
        ints = {"brokers": ("brokers", 1),
                "replication_factor": ("replication_factor", 1),
                "partitions": ("partitions", 1), "log_bytes": ("log_bytes", 0),
                "replica_fetch_max_bytes": ("replica_fetch_max_bytes (replica.fetch.max.bytes)", 1),
                "replica_fetch_response_max_bytes": (
                    "replica_fetch_response_max_bytes (replica.fetch.response.max.bytes)", 1),
                "replication_quota_window_num": (
                    "replication_quota_window_num (replication.quota.window.num)", 1),
                "replication_quota_window_size_seconds": (
                    "replication_quota_window_size_seconds "
                    "(replication.quota.window.size.seconds)", 1),
                "tick_ms": ("tick_ms", 1), "ticks": ("ticks", 1)}
        for name, (label, minimum) in ints.items():
            check_int(label, getattr(self, name), minimum)
        check_number("network_bytes_per_s", self.network_bytes_per_s, 0, strict=True)
        check_number("bytes_in_per_s", self.bytes_in_per_s, 0)
        for name, setting in (("leader_throttle_bytes_per_s", "leader"),
                              ("follower_throttle_bytes_per_s", "follower")):
            if getattr(self, name) is not None:
                check_number(f"{name} ({setting}.replication.throttled.rate)",
                             getattr(self, name), 0)
        if self.sizes is not None:
            if not isinstance(self.sizes, tuple) or not self.sizes:
                raise ValueError(f"sizes must be a non-empty tuple of byte counts: {self.sizes!r}")
            for i, size in enumerate(self.sizes):
                check_int(f"sizes[{i}]", size, 0)
        if self.mode not in ("quota", "delay"):
            raise ValueError(f"mode must be 'quota' (KIP-73 as shipped) or 'delay' (the "
                             f"rejected delay-based design): {self.mode!r}")

    @property
    def partition_sizes(self) -> tuple[int, ...]:
        """Bytes of each moving partition at t = 0."""
        return self.sizes if self.sizes is not None else (self.log_bytes,) * self.partitions

    @property
    def throttle_bytes_per_s(self) -> float:
        """The binding throttle T: the lower of the two rates (``inf`` if both are unlimited)."""
        rates = [r for r in (self.leader_throttle_bytes_per_s,
                             self.follower_throttle_bytes_per_s) if r is not None]
        return min(rates, default=math.inf)


@dataclass(frozen=True)
class ReassignmentTrace:
    """Columnar output: ``ticks`` and ``partitions`` tables and ``meta`` (docs/traces.md)."""

    ticks: pd.DataFrame
    partitions: pd.DataFrame
    meta: dict[str, Any]


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
    if t < math.inf:
        meta["reason"] = plan_throttle(
            brokers=s.brokers, network_bytes_per_s=s.network_bytes_per_s,
            bytes_in_per_s=s.bytes_in_per_s, replication_factor=s.replication_factor,
            bytes_to_move=sum(sizes), throttle_bytes_per_s=t,
            window_total_s=window_total_s).reason
    return meta


def simulate(scenario: ReassignmentScenario, *, seed: int = 0) -> ReassignmentTrace:
    """Run the scenario; deterministic (``seed`` is recorded only: nothing here is random)."""
    s = scenario
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
