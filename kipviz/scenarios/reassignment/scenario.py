"""A KIP-73 throttled reassignment between one leader and one destination follower, tick by tick.

What it models (``ReplicaManager.fetchMessages`` / ``ReplicaFetcherThread`` with the leader and
follower ``ReplicationQuotaManager`` of :mod:`kipviz.kafka.replication.quota`; every partition moved
is throttled on both sides, as ``kafka-reassign-partitions --throttle`` sets it):

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
* ``in_sync_followers`` F (None: R - 1, what ``--throttle`` sets up; 0: KIP-73's idealisation):
  the moving partitions' existing in-sync followers. Each tick, before the destination's fetch,
  they fetch what was produced since the last tick (F x IN x tick in all); the leader records
  those bytes in its quota, because ``--throttle`` lists the current replicas in
  ``leader.replication.throttled.replicas`` and in-sync replicas are counted though never
  throttled (KAFKA-4313). The move nets ``T - (F + 1) x IN``
  (:mod:`kipviz.kafka.replication.planning`), so it finishes only above ``(F + 1) x IN``; they
  appear in no column but the leader's rate.
* ``throttle_schedule``: ``(from_s, T)`` pairs; from ``from_s`` on both rates are T (None: no
  throttle), as ``kafka-configs --alter`` (or ``--execute --additional --throttle``) changes
  them mid-move; ``ReplicationQuotaManager.updateQuota`` keeps the bytes already recorded.

``meta`` plans the move by the same rule (``planned_move_time_s``, piecewise over the schedule)
and says whether it finished, will finish after the run (``projected_move_time_s``) or never.

Simplifications: bytes are continuous (no record batches, so no oversized first batch of
KIP-74); a replica never drops out of the ISR again (no ``replica.lag.time.max.ms``).

The loop is :func:`kipviz.scenarios.reassignment.kernel.run`, plain loops over numpy arrays with
Kafka's windowed rate as arrays: numba compiles it (``compiled=True``); run as it is, it is the
plain-Python reference the benchmark compares against.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd

from kipviz.kafka.config.declarations import BROKER
from kipviz.kafka.config.fields import (
    FieldRule,
    check_declared,
    choice,
    items,
    kafka_field,
    knob,
    setting_rule,
)
from kipviz.kafka.quotas.rate import UNLIMITED, bound_or_inf
from kipviz.kafka.replication.planning import clients_keep_bytes_per_s
from kipviz.kafka.replication.planning import resolve_in_sync_followers as _followers
from kipviz.kafka.replication.quota import ReplicationQuotaManager
from kipviz.scenarios.limits import check_seed
from kipviz.scenarios.reassignment.arrays import run_kernel
from kipviz.scenarios.reassignment.columns import ClusterInputs, ClusterSettings
from kipviz.scenarios.reassignment.meta import (
    ReassignmentMeta,
    check_schedule,
    move_meta,
    move_outcome,
    trace_size_check,
)

__all__ = ["MOVE_STATUS", "ReassignmentScenario", "ReassignmentTrace", "simulate"]

MOVE_STATUS = ("finished", "not within this run", "never")  # meta["move_status"]
_LOG_BYTES_MAX = 2**62  # a partition's bytes: a Java long, with room for what producers add


@dataclass(frozen=True)
class ReassignmentScenario:
    """A reassignment's brokers, partitions and Kafka settings; vary it with ``replace``.

    Rates are bytes/s per broker; ``None`` throttles are unlimited (Kafka's default). A throttle
    at or below (F + 1) x IN is legal (Kafka accepts it) but the move never finishes (``meta``).
    ``sizes`` (bytes per moving partition) overrides ``partitions`` x ``log_bytes``.
    ``in_sync_followers``: existing in-sync followers counted by the leader's quota (None:
    ``replication_factor - 1``, as ``--throttle`` sets it up; 0: KIP-73's idealisation).
    ``throttle_schedule``: ``(from_s, bytes/s or None)`` pairs, ascending, setting both rates.
    """

    brokers: int = knob(5, at_least=1, java="int")
    network_bytes_per_s: float = knob(125e6, above=0, number=True)
    bytes_in_per_s: float = knob(0.0, at_least=0, number=True)
    replication_factor: int = knob(3, at_least=1, java="int")
    partitions: int = knob(1, at_least=1, java="int")
    # a partition's bytes: a Java long, with room for what producers add
    log_bytes: int = knob(100_000_000, at_least=0, at_most=_LOG_BYTES_MAX)
    sizes: tuple[int, ...] | None = items(
        None, of=FieldRule(at_least=0, at_most=_LOG_BYTES_MAX), optional=True, non_empty=True,
        rule="a non-empty tuple of byte counts")
    leader_throttle_bytes_per_s: float | None = kafka_field(
        BROKER["leader.replication.throttled.rate"], 10e6, number=True)
    follower_throttle_bytes_per_s: float | None = kafka_field(
        BROKER["follower.replication.throttled.rate"], 10e6, number=True)
    replica_fetch_max_bytes: int = kafka_field(BROKER["replica.fetch.max.bytes"])
    # Kafka's range is atLeast(0); the model asks for 1 (a response of 0 bytes moves nothing)
    replica_fetch_response_max_bytes: int = kafka_field(
        BROKER["replica.fetch.response.max.bytes"], at_least=1)
    replication_quota_window_num: int = kafka_field(BROKER["replication.quota.window.num"])
    replication_quota_window_size_seconds: int = kafka_field(
        BROKER["replication.quota.window.size.seconds"])
    tick_ms: int = knob(10, at_least=1, java="int")
    ticks: int = knob(2000, at_least=1, java="int")
    # 'quota' (KIP-73 as shipped) or 'delay' (the rejected delay-based design)
    mode: Literal["quota", "delay"] = choice("quota", ("quota", "delay"))
    # and <= replication_factor - 1 (None: replication_factor - 1)
    in_sync_followers: int | None = knob(None, at_least=0, optional=True, java="int")
    throttle_schedule: tuple[tuple[float, float | None], ...] = items(
        of=(("from_s", FieldRule("number", at_least=0, java=None)),
            ("rate", setting_rule(BROKER["leader.replication.throttled.rate"], number=True,
                                  label="leader. and follower.replication.throttled.rate"))),
        rule="a tuple of (from_s, rate) pairs")

    def __post_init__(self) -> None:
        check_declared(self)  # each field's rule, from its declaration (kipviz.kafka.config.fields)
        _followers(self.in_sync_followers, self.replication_factor)  # F <= R - 1
        if self.replication_factor + 1 > self.brokers:
            raise ValueError(f"replication_factor must be <= brokers - 1 ({self.brokers - 1}; "
                             f"the R current replicas and the destination of a moving partition "
                             f"are distinct brokers): {self.replication_factor}")
        check_schedule(self.throttle_schedule)
        n = self.partitions if self.sizes is None else len(self.sizes)
        trace_size_check(self.ticks, n, self.replication_quota_window_num)  # before allocating
        run_s = self.ticks * self.tick_ms / 1000.0
        for name, what in (("bytes_in_per_s", "over the run (ticks x tick_ms)"),
                           ("network_bytes_per_s", "per tick")):
            span = run_s if name == "bytes_in_per_s" else self.tick_ms / 1000.0
            if getattr(self, name) * span > _LOG_BYTES_MAX:
                raise ValueError(f"{name} must be <= {_LOG_BYTES_MAX} bytes {what} (a Java long, "
                                 f"with room to grow): {getattr(self, name)}")
        total = self.partitions * self.log_bytes if self.sizes is None else sum(self.sizes)
        if total > _LOG_BYTES_MAX:
            what = "partitions x log_bytes" if self.sizes is None else "sum(sizes)"
            raise ValueError(f"{what} must be <= {_LOG_BYTES_MAX} (the bytes to move, a Java "
                             f"long with room to grow): {total}")

    @property
    def followers(self) -> int:
        """The in-sync followers counted by the leader's quota (``in_sync_followers`` resolved)."""
        return _followers(self.in_sync_followers, self.replication_factor)

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
    meta: ReassignmentMeta


def _one_pair(s: ReassignmentScenario) -> tuple[ClusterSettings, ClusterInputs]:
    """The scenario as the cluster kernel's case of one leader (broker position 0) and one
    destination (1): each partition led by 0 with F counted in-sync followers (their keep-up
    only: they fetch through no fetcher), one new replica on 1, all in one fetcher. Built as
    arrays (what :func:`kipviz.scenarios.reassignment.arrays.plan_inputs` gives for these moves,
    without a Python object per partition)."""
    n = len(s.partition_sizes)
    rates = [bound_or_inf(r) for r in (s.leader_throttle_bytes_per_s,
                                       s.follower_throttle_bytes_per_s)]
    each = np.arange(n, dtype=np.int64)
    zeros, ones = np.zeros(n, np.int64), np.ones(n, np.int64)
    followers = np.full(n, s.followers, np.int64)
    inp = ClusterInputs(
        leader_bounds=np.array([rates[0], UNLIMITED]),
        follower_bounds=np.array([UNLIMITED, rates[1]]),
        sched_ms=np.array([round(at * 1000) for at, _ in s.throttle_schedule], np.float64),
        sched_bounds=np.array([bound_or_inf(r) for _, r in s.throttle_schedule], np.float64),
        sizes=np.array(s.partition_sizes, np.int64),
        in_per_ms=np.full(n, s.bytes_in_per_s / n / 1000.0), leader=zeros, leader_after=zeros,
        followers=followers, followers_after=followers,
        partition_start=np.arange(n + 1, dtype=np.int64), replica_partition=each,
        replica_dest=ones, replica_slot=each, replica_slot_after=each,
        start_in_sync=np.zeros(n, np.bool_), fetcher_dest=np.ones(1, np.int64),
        fetcher_source=np.zeros(1, np.int64), fetcher_start=np.array([0, n], np.int64),
        slot_replica=each, slot_fetcher=zeros, slot_listed=np.ones(n, np.bool_))
    window_ms = ReplicationQuotaManager(None, s.replication_quota_window_num,
                                        s.replication_quota_window_size_seconds).rate.window_ms
    cfg = ClusterSettings(
        tick_ms=s.tick_ms, ticks=s.ticks, sample_ticks=1, fetch_max=s.replica_fetch_max_bytes,
        response_max=s.replica_fetch_response_max_bytes,
        network_per_tick=math.floor(s.network_bytes_per_s * s.tick_ms / 1000.0),
        delay_mode=s.mode == "delay", samples=s.replication_quota_window_num,
        window_ms=window_ms, stop_when_done=False, order_seed=0, fair_share=False)
    return cfg, inp


def simulate(scenario: ReassignmentScenario, *, seed: int = 0,
             compiled: bool = True) -> ReassignmentTrace:
    """Run the scenario; deterministic (``seed`` is recorded only: nothing here is random).

    ``compiled=False`` runs the same kernel as plain Python (slow; a reference).
    """
    s = scenario
    seed = check_seed(seed)
    cfg, inp = _one_pair(s)
    n = inp.sizes.shape[0]
    cols, res = run_kernel(cfg, inp, compiled=compiled,
                           what=f"A reassignment of {n} partitions x {s.ticks} ticks")
    sent = cols.throttled_bytes[:, 0] + cols.unthrottled_bytes[:, 0]
    ticks = pd.DataFrame({
        "time_ms": np.arange(s.ticks, dtype=np.int64) * s.tick_ms,
        "leader_rate_bytes_per_s": cols.leader_rate_bytes_per_s[:, 0],
        "follower_rate_bytes_per_s": cols.follower_rate_bytes_per_s[:, 1],
        "throttled_bytes": cols.throttled_bytes[:, 0],
        "unthrottled_bytes": cols.unthrottled_bytes[:, 0],
        "replica_lag_bytes": cols.lag_bytes[:, 1], "moved_bytes": cols.moved_bytes[:, 1],
        "client_bandwidth_left_bytes_per_s": clients_keep_bytes_per_s(
            s.network_bytes_per_s, s.bytes_in_per_s, s.replication_factor,
            sent * 1000.0 / s.tick_ms)})
    caught_up = res.caught_up_ms
    partitions = pd.DataFrame({"partition": np.arange(n, dtype=np.int32), "size_bytes": inp.sizes,
                               "caught_up_ms": caught_up})
    plan = move_meta(s, seed)
    done = bool((caught_up >= 0).all())
    first = ticks.time_ms < s.replication_quota_window_size_seconds * 1000
    meta: ReassignmentMeta = {
        **plan, **move_outcome(plan, int(caught_up.max()) if done else None),
        "first_window_throttled_bytes": int(ticks.throttled_bytes[first].sum())}
    return ReassignmentTrace(ticks=ticks, partitions=partitions, meta=meta)
