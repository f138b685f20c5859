"""The KIP-73 reassignment scenario written as a SimPy program: the benchmark's reference.

The same model as :mod:`kipviz.scenarios.reassignment`, written the way a user of SimPy (a
general discrete-event library) would write it, with
:class:`kipviz.kafka.replication.quota.ReplicationQuotaManager` objects for the two quotas: a
``simpy.Environment``; a producers process extending every moving partition's log by IN / P bytes a
second; the existing in-sync followers (when there are any) fetching what was produced, counted by
the leader's quota (the rule of :mod:`kipviz.kafka.replication.planning`, R - 1 of them unless the
scenario says otherwise); the throttle schedule changing both quotas' rates; the destination
follower's fetcher (build the request from the partitions it lags on, rotated by one each tick,
leaving out throttled out-of-sync ones while its quota is exceeded; send it; append the response;
record; in ``mode="delay"`` wait out its own throttle time); the leader (answer each request from a
``simpy.Store`` in order, returning throttled out-of-sync partitions empty while its quota is
exceeded; record; in ``mode="delay"`` hold the response for its throttle time); and a monitor
that writes one row a tick.

Order of events. One tick is five integer time steps, one per phase: producers, in-sync
followers, fetch (request and answer), delivery, monitor. The kernel does the same things in the
same order within a tick, so the quotas are recorded and measured (measuring purges slots and can
create one) at the same moments; the test suite checks the tables come out identical.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
import simpy

from kipviz.kafka.fetch.request import TopicPartition
from kipviz.kafka.quotas.rate import throttle_time_ms
from kipviz.kafka.replication.planning import in_sync_follower_bytes
from kipviz.kafka.replication.quota import ReplicationQuotaManager
from kipviz.scenarios.reassignment.scenario import ReassignmentScenario

__all__ = ["simulate_simpy"]

TOPIC = "reassigned"
TICK_COLUMNS = {"time_ms": np.int64, "leader_rate_bytes_per_s": np.float64,
                "follower_rate_bytes_per_s": np.float64, "throttled_bytes": np.int64,
                "unthrottled_bytes": np.int64, "replica_lag_bytes": np.int64,
                "moved_bytes": np.int64, "client_bandwidth_left_bytes_per_s": np.float64}
PRODUCE, IN_SYNC, FETCH, DELIVER, MONITOR = range(5)  # phases of a tick
STEPS = 5


class ReassignmentModel:
    """State and processes of one run; :meth:`run` returns the ticks and partitions tables."""

    def __init__(self, scenario: ReassignmentScenario) -> None:
        s = self.s = scenario
        self.env = simpy.Environment()
        self.sizes = list(s.partition_sizes)
        n = self.n = len(self.sizes)
        self.tps = [TopicPartition(TOPIC, i) for i in range(n)]
        window_s = s.replication_quota_window_size_seconds
        self.leader_quota = ReplicationQuotaManager(
            s.leader_throttle_bytes_per_s, s.replication_quota_window_num, window_s)
        self.follower_quota = ReplicationQuotaManager(
            s.follower_throttle_bytes_per_s, s.replication_quota_window_num, window_s)
        self.leader_quota.mark_throttled(TOPIC)  # kafka-reassign-partitions --throttle
        self.follower_quota.mark_throttled(TOPIC)
        self.in_per_partition_ms = s.bytes_in_per_s / n / 1000.0
        self.log_end = list(self.sizes)  # the leader's log end, in bytes
        self.fetched = [0] * n  # the destination replica's log end
        self.in_sync = [False] * n
        self.caught_up = [-1] * n
        self.moved = 0
        self.sent_throttled = self.sent_unthrottled = 0  # what the leader sent this tick
        self.requests = simpy.Store(self.env)  # follower -> leader
        self.responses = simpy.Store(self.env)  # leader -> follower
        self.rows: dict[str, list[Any]] = {name: [] for name in TICK_COLUMNS}

    @property
    def now_ms(self) -> int:
        return int(self.env.now) // STEPS * self.s.tick_ms

    def until(self, ms: int, phase: int) -> simpy.Timeout:
        """Sleep until ``phase`` of the first tick at or after ``ms``."""
        tick = min(-(-ms // self.s.tick_ms), self.s.ticks)
        return self.env.timeout(tick * STEPS + phase - self.env.now)

    def producers(self):
        """Every tick, each moving partition has grown by IN / P bytes a second so far; first,
        the throttle schedule's changes that are due (``kafka-configs --alter``: both rates)."""
        schedule = [(round(at * 1000), rate) for at, rate in self.s.throttle_schedule]
        while True:
            while schedule and schedule[0][0] <= self.now_ms:
                rate = schedule.pop(0)[1]
                self.leader_quota.update_quota(rate)
                self.follower_quota.update_quota(rate)
            grown = math.floor(self.in_per_partition_ms * self.now_ms)
            self.log_end = [size + grown for size in self.sizes]
            yield self.env.timeout(STEPS)

    def in_sync_followers(self):
        """The existing in-sync followers fetch each tick's new bytes; the leader counts them."""
        produced = sum(self.sizes)
        yield self.env.timeout(IN_SYNC)
        while True:
            total = sum(self.log_end)
            self.leader_quota.record(
                in_sync_follower_bytes(self.s.followers, total - produced), self.now_ms)
            produced = total
            yield self.env.timeout(STEPS)

    def fetcher(self):
        """The destination follower: request, wait for the response, append, record."""
        s, quota = self.s, self.follower_quota
        yield self.env.timeout(FETCH)
        while True:
            now, k = self.now_ms, int(self.env.now) // STEPS
            start = k % self.n
            request = [(i, self.fetched[i]) for i in (*range(start, self.n), *range(start))
                       if self.fetched[i] < self.log_end[i]
                       and not quota.should_throttle(self.tps[i], self.in_sync[i], now)]
            yield self.requests.put(request)
            response = yield self.responses.get()
            now = self.now_ms
            appended = 0
            for i, b in response:
                self.fetched[i] += b
                appended += b
                if not self.in_sync[i] and self.fetched[i] >= self.log_end[i]:
                    self.in_sync[i], self.caught_up[i] = True, now
            quota.record(appended, now)
            self.moved += appended
            next_ms = now + s.tick_ms
            if s.mode == "delay" and quota.is_quota_exceeded(now):
                assert quota.quota is not None
                next_ms += max(0, throttle_time_ms(quota.measure(now), quota.quota.bound,
                                                   quota.rate.window_size_ms(now)))
            yield self.until(next_ms, FETCH)

    def leader(self):
        """Answer requests in order within the response limit and the network; record."""
        s, quota = self.s, self.leader_quota
        network_per_tick = math.floor(s.network_bytes_per_s * s.tick_ms / 1000.0)
        while True:
            request = yield self.requests.get()
            now = self.now_ms
            budget = min(s.replica_fetch_response_max_bytes, network_per_tick)
            response = []
            for i, offset in request:
                if s.mode == "quota" and quota.should_throttle(self.tps[i], self.in_sync[i], now):
                    continue  # returned empty
                b = min(self.log_end[i] - offset, s.replica_fetch_max_bytes, budget)
                if b <= 0:
                    continue
                budget -= b
                response.append((i, b))
                if self.in_sync[i]:
                    self.sent_unthrottled += b
                else:
                    self.sent_throttled += b
            quota.record(sum(b for _, b in response), now)
            delay = 0
            if s.mode == "delay" and quota.is_quota_exceeded(now):
                assert quota.quota is not None
                delay = max(0, throttle_time_ms(quota.measure(now), quota.quota.bound,
                                                quota.rate.window_size_ms(now)))
            yield self.until(now + delay, DELIVER)
            yield self.responses.put(response)

    def monitor(self):
        """One row a tick: both rates, what the leader sent, the lag, the bytes moved."""
        s, rows = self.s, self.rows
        keep_up = s.bytes_in_per_s / s.replication_factor
        yield self.env.timeout(MONITOR)
        while True:
            now = self.now_ms
            sent = self.sent_throttled + self.sent_unthrottled
            rows["time_ms"].append(now)
            rows["leader_rate_bytes_per_s"].append(self.leader_quota.measure(now))
            rows["follower_rate_bytes_per_s"].append(self.follower_quota.measure(now))
            rows["throttled_bytes"].append(self.sent_throttled)
            rows["unthrottled_bytes"].append(self.sent_unthrottled)
            rows["replica_lag_bytes"].append(sum(self.log_end) - sum(self.fetched))
            rows["moved_bytes"].append(self.moved)
            rows["client_bandwidth_left_bytes_per_s"].append(
                s.network_bytes_per_s - keep_up - sent * 1000.0 / s.tick_ms)
            self.sent_throttled = self.sent_unthrottled = 0
            yield self.env.timeout(STEPS)

    def run(self) -> tuple[pd.DataFrame, pd.DataFrame]:
        env = self.env
        env.process(self.producers())
        if self.s.followers:
            env.process(self.in_sync_followers())
        env.process(self.fetcher())
        env.process(self.leader())
        env.process(self.monitor())
        env.run(until=self.s.ticks * STEPS)
        ticks = pd.DataFrame({name: np.array(values, dtype=TICK_COLUMNS[name])
                              for name, values in self.rows.items()})
        partitions = pd.DataFrame({
            "partition": np.arange(self.n, dtype=np.int32),
            "size_bytes": np.array(self.sizes, dtype=np.int64),
            "caught_up_ms": np.array(self.caught_up, dtype=np.int64)})
        return ticks, partitions


def simulate_simpy(scenario: ReassignmentScenario) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Run the reassignment in SimPy: the ``ticks`` and ``partitions`` tables of
    :func:`kipviz.scenarios.reassignment.scenario.simulate` (docs/traces.md), value for value."""
    return ReassignmentModel(scenario).run()
