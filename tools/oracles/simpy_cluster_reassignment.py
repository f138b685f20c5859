"""A reassignment across a cluster written as a SimPy program: the cluster benchmark's reference.

The same model as :mod:`kipviz.scenarios.reassignment.cluster`, written the way a SimPy user
would: per broker two :class:`kipviz.kafka.replication.quota.ReplicationQuotaManager` objects
whose throttled lists are what ``--throttle`` writes (leader: the sources of every listed
partition on that broker; follower: its added replicas), asked ``should_throttle`` per partition
as Kafka does; dicts and lists of Python objects, no arrays. Processes: producers (the schedule,
then every partition's growth and its in-sync followers' keep-up, recorded by the leader), a
fetch round, and a monitor writing one row of every broker per ``sample_ticks``. The fetch round
in ``mode="quota"`` is the model's pinned sharing (:mod:`kipviz.scenarios.reassignment.share`):
the fetchers, one per (destination, source) pair in the kernel's seeded order, take their
in-sync replicas' bytes; then the lagging out-of-sync replicas share what each quota still
allows (``ReplicationQuotaManager.allowance``) by the rule itself,
:func:`kipviz.kafka.replication.flow.max_min_fair`, within ``replica.fetch.max.bytes``, the
response limit and both brokers' network; the quotas record, replicas join the ISR, moves
complete. In ``mode="delay"`` each fetcher in turn builds its request, the leader answers and
records, the follower appends, records, joins the ISR and completes moves, as Kafka's gate does.

One tick is three integer time steps (produce, fetch, monitor); the kernel does the same things
in the same order, so quotas are recorded and measured at the same moments;
``tests/scenarios/reassignment/test_simpy_reassignment.py`` checks the tables come out identical.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import simpy

from kipviz.kafka.fetch.request import TopicPartition
from kipviz.kafka.quotas.rate import throttle_time_ms
from kipviz.kafka.replication.flow import max_min_fair
from kipviz.kafka.replication.quota import ReplicationQuotaManager
from kipviz.scenarios.reassignment.cluster import ClusterReassignmentScenario
from kipviz.scenarios.reassignment.columns import BrokerColumns
from kipviz.scenarios.reassignment.kernel import next_order, order_start

__all__ = ["simulate_cluster_simpy"]

PRODUCE, FETCH, MONITOR = range(3)
STEPS = 3


class Replica:
    """A new replica: its partition, destination, log end, ISR state and current fetcher."""

    def __init__(self, move: Any, p: int, dest: int) -> None:
        self.move, self.p, self.dest = move, p, dest
        self.fetched, self.in_sync, self.caught_up_ms = 0, False, -1
        self.fetcher: tuple[int, int] | None = None


class ClusterModel:
    """State and processes of one run; :meth:`run` returns the three tables and ticks run."""

    def __init__(self, s: ClusterReassignmentScenario, seed: int) -> None:
        self.s, self.env = s, simpy.Environment()
        self.brokers = s.brokers
        lead, follow = s.rates()
        window = (s.replication_quota_window_num, s.replication_quota_window_size_seconds)
        self.lq = {b: ReplicationQuotaManager(lead[b], *window) for b in self.brokers}
        self.fq = {b: ReplicationQuotaManager(follow[b], *window) for b in self.brokers}
        for b in self.brokers:  # --throttle's lists, per broker
            for topic in {m.topic for m in s.moves}:
                self.lq[b].mark_throttled(topic, [m.partition for m in s.moves
                                                  if m.topic == topic and b in m.sources])
                self.fq[b].mark_throttled(topic, [m.partition for m in s.moves
                                                  if m.topic == topic and b in m.added])
        self.grown = [0] * len(s.moves)
        self.leader = [m.leader for m in s.moves]
        self.followers = [m.followers for m in s.moves]
        self.completed = [-1] * len(s.moves)
        self.replicas = [Replica(m, p, d) for p, m in enumerate(s.moves) for d in m.added]
        self.fetchers: dict[tuple[int, int], list[Replica]] = {}
        for r in self.replicas:  # slots in plan order; a second slot at the leader after
            for src in (r.move.leader, r.move.leader_after):
                if src != r.dest and r not in self.fetchers.setdefault((r.dest, src), []):
                    self.fetchers[(r.dest, src)].append(r)
            r.fetcher = (r.dest, r.move.leader)
        self.order = sorted(self.fetchers)
        self.state = {f: {"pending": False, "deliver": 0, "next": 0, "response": []}
                      for f in self.order}
        self.seed, self.done, self.ticks_run = seed % 2**31, 0, s.ticks
        self.cols = {n: np.zeros((-(-s.ticks // s.sample_ticks), len(self.brokers)),
                                 np.float64 if "rate" in n else np.int64)
                     for n in BrokerColumns._fields}
        self.moved = dict.fromkeys(self.brokers, 0)
        self.at = {b: i for i, b in enumerate(self.brokers)}
        for r in self.replicas:  # an empty, idle partition's new replica is in sync at once
            if r.move.size_bytes == 0 and r.move.bytes_in_per_s == 0:
                r.in_sync, r.caught_up_ms = True, 0
                if all(x.in_sync for x in self.replicas if x.p == r.p):
                    self.complete(r.p, 0)
        for p, m in enumerate(s.moves):
            if not m.added:
                self.complete(p, 0)

    def tp(self, p: int) -> TopicPartition:
        return self.s.moves[p].tp

    def log_end(self, p: int) -> int:
        return self.s.moves[p].size_bytes + self.grown[p]

    def complete(self, p: int, now: int) -> None:
        """The move completes: the new leader (and its retained followers) take over; each new
        replica fetches from the new leader (or leads)."""
        m = self.s.moves[p]
        self.completed[p] = now
        self.leader[p], self.followers[p] = m.leader_after, m.followers_after
        for r in self.replicas:
            if r.p == p:
                r.fetcher = None if m.leader_after == r.dest else (r.dest, m.leader_after)
        self.done += 1

    def producers(self):
        """The schedule's due changes, then each partition grows and its leader records its
        in-sync followers' keep-up (listed: counted, never throttled)."""
        s = self.s
        schedule = [(round(at * 1000), rate) for at, rate in s.throttle_schedule]
        while True:
            now = int(self.env.now) // STEPS * s.tick_ms
            while schedule and schedule[0][0] <= now:
                rate = schedule.pop(0)[1]
                for b in self.brokers:
                    self.lq[b].update_quota(rate)
                    self.fq[b].update_quota(rate)
            keep = dict.fromkeys(self.brokers, 0)
            for p, m in enumerate(s.moves):
                grown = math.floor(m.bytes_in_per_s / 1000.0 * now)
                keep[self.leader[p]] += self.followers[p] * (grown - self.grown[p])
                self.grown[p] = grown
            for b in self.brokers:
                if any(f and self.leader[p] == b for p, f in enumerate(self.followers)):
                    self.lq[b].record(keep[b], now)
            yield self.env.timeout(STEPS)

    def fetch_round(self):
        """Every fetcher in turn, from a seeded first, within each broker's network."""
        s = self.s
        yield self.env.timeout(FETCH)
        while True:
            k = int(self.env.now) // STEPS
            now, row = k * s.tick_ms, k // s.sample_ticks
            net = math.floor(s.network_bytes_per_s * s.tick_ms / 1000.0)
            egress, ingress = dict.fromkeys(self.brokers, net), dict.fromkeys(self.brokers, net)
            self.seed = next_order(self.seed)
            first = order_start(self.seed, len(self.order))
            if s.mode == "quota":
                self.share(self.order[first:] + self.order[:first], k, now, row, egress,
                           ingress)
            else:
                for f in self.order[first:] + self.order[:first]:
                    self.fetch(f, k, now, row, egress, ingress)
            yield self.env.timeout(STEPS)

    def share(self, turn: list[tuple[int, int]], k: int, now: int, row: int,
              egress: dict[int, int], ingress: dict[int, int]) -> None:
        """mode="quota": in-sync replicas first (never throttled), then the lagging out-of-sync
        ones share each broker's two quota allowances max-min fair
        (:mod:`kipviz.scenarios.reassignment.share`'s pinned rule, by
        :func:`kipviz.kafka.replication.flow.max_min_fair`)."""
        s = self.s
        lead, follow = dict.fromkeys(self.brokers, 0), dict.fromkeys(self.brokers, 0)
        left = dict.fromkeys(self.order, 0)  # each fetcher's response left
        for f in turn:
            (dst, src), slots = f, self.fetchers[f]
            if not any(r.fetcher == f for r in slots):
                continue
            start = k % len(slots)
            budget = min(s.replica_fetch_response_max_bytes, egress[src], ingress[dst])
            sent = 0
            for r in slots[start:] + slots[:start]:
                if budget == sent:
                    break
                if r.fetcher != f or not r.in_sync:
                    continue
                b = min(self.log_end(r.p) - r.fetched, s.replica_fetch_max_bytes, budget - sent)
                if b > 0:
                    sent += b
                    self.append(r, b, src, dst, row, "unthrottled_bytes", lead, follow)
            egress[src] -= sent
            ingress[dst] -= sent
            left[f] = s.replica_fetch_response_max_bytes - sent  # the network: its own limit
        self.record(lead, follow, now)
        want = [(f, r) for f in self.order if left[f] > 0 for r in self.fetchers[f]
                if r.fetcher == f and not r.in_sync and r.fetched < self.log_end(r.p)]
        if not want:
            return
        at, fi = self.at, {f: i for i, f in enumerate(self.order)}
        groups = np.array([[at[f[1]], at[f[0]], at[f[1]], at[f[0]], fi[f], i]
                           for i, (f, _) in enumerate(want)]).T
        lags = [self.log_end(r.p) - r.fetched for _, r in want]
        own = np.array([lag if lag < s.replica_fetch_max_bytes else math.inf for lag in lags])
        capacities = [np.array([self.lq[b].allowance(now) for b in self.brokers]),
                      np.array([self.fq[b].allowance(now) for b in self.brokers]),
                      np.array([egress[b] for b in self.brokers], float),
                      np.array([ingress[b] for b in self.brokers], float),
                      np.array([left[f] for f in self.order], float), own]
        x, _ = max_min_fair(groups, capacities, float(s.replica_fetch_max_bytes))
        for (f, r), share, lag in zip(want, x.tolist(), lags, strict=True):
            b = min(int(share + 0.5), lag)
            if b > 0:
                self.append(r, b, f[1], f[0], row, "throttled_bytes", lead, follow)
        self.record(lead, follow, now)
        for _, r in want:
            if r.fetched >= self.log_end(r.p):
                r.in_sync, r.caught_up_ms = True, now
                if all(x.in_sync for x in self.replicas if x.p == r.p):
                    self.complete(r.p, now)

    def append(self, r: Replica, b: int, src: int, dst: int, row: int, col: str,
               lead: dict[int, int], follow: dict[int, int]) -> None:
        """``b`` bytes from ``src`` to ``r`` on ``dst``: counted for both quotas and columns."""
        r.fetched += b
        lead[src] += b if self.lq[src].is_throttled(self.tp(r.p)) else 0
        follow[dst] += b
        self.cols[col][row, self.at[src]] += b
        self.cols["received_bytes"][row, self.at[dst]] += b
        self.moved[dst] += b

    def record(self, lead: dict[int, int], follow: dict[int, int], now: int) -> None:
        """Each broker's quotas record what ``lead`` / ``follow`` hold (then zeroed)."""
        for b in self.brokers:
            if lead[b] > 0:
                self.lq[b].record(lead[b], now)
            if follow[b] > 0:
                self.fq[b].record(follow[b], now)
            lead[b] = follow[b] = 0

    def fetch(self, f: tuple[int, int], k: int, now: int, row: int, egress: dict[int, int],
              ingress: dict[int, int]) -> None:
        s, st, (dst, src) = self.s, self.state[f], f
        slots = self.fetchers[f]
        mine = [r for r in slots if r.fetcher == f]
        if not st["pending"] and now >= st["next"] and mine:
            start = k % len(slots)
            request = [r for r in slots[start:] + slots[:start] if r.fetcher == f
                       and r.fetched < self.log_end(r.p)
                       and not self.fq[dst].should_throttle(self.tp(r.p), r.in_sync, now)]
            budget = min(s.replica_fetch_response_max_bytes, egress[src], ingress[dst])
            response, listed = [], 0
            for r in request:
                if budget == 0:
                    break
                if s.mode == "quota" and self.lq[src].should_throttle(self.tp(r.p), r.in_sync,
                                                                      now):
                    continue  # returned empty
                b = min(self.log_end(r.p) - r.fetched, s.replica_fetch_max_bytes, budget)
                budget -= b
                response.append((r, b))
                col = "unthrottled_bytes" if r.in_sync else "throttled_bytes"
                self.cols[col][row, self.at[src]] += b
                listed += b if self.lq[src].is_throttled(self.tp(r.p)) else 0
            sent = sum(b for _, b in response)
            egress[src] -= sent
            ingress[dst] -= sent
            self.lq[src].record(listed, now)
            delay = 0
            if s.mode == "delay" and self.lq[src].is_quota_exceeded(now):
                q = self.lq[src]
                delay = self.throttle_ms(q, now)
            st.update(pending=True, deliver=now + delay, response=response)
        if st["pending"] and st["deliver"] <= now:
            appended = 0
            for r, b in st["response"]:
                r.fetched += b
                appended += b
                if not r.in_sync and r.fetched >= self.log_end(r.p):
                    r.in_sync, r.caught_up_ms = True, now
                    if all(x.in_sync for x in self.replicas if x.p == r.p):
                        self.complete(r.p, now)
            self.fq[dst].record(appended, now)
            self.cols["received_bytes"][row, self.at[dst]] += appended
            self.moved[dst] += appended
            st["next"] = now + s.tick_ms
            q = self.fq[dst]
            if s.mode == "delay" and q.is_quota_exceeded(now):
                st["next"] += self.throttle_ms(q, now)
            st["pending"] = False

    def throttle_ms(self, q: ReplicationQuotaManager, now: int) -> int:
        """mode="delay": the quota's throttle time, cut to the run's end."""
        assert q.quota is not None
        if q.quota.bound <= 0:
            raise ValueError("throttle must be a number > 0 in mode='delay'")
        wait = throttle_time_ms(q.measure(now), q.quota.bound, q.rate.window_size_ms(now))
        return min(max(0, wait), self.s.ticks * self.s.tick_ms)

    def monitor(self):
        """Every broker's two rates, its fetching new replicas' lag and the bytes moved."""
        s = self.s
        yield self.env.timeout(MONITOR)
        while True:
            k = int(self.env.now) // STEPS
            now, row = k * s.tick_ms, k // s.sample_ticks
            for b, i in self.at.items():
                self.cols["leader_rate_bytes_per_s"][row, i] = self.lq[b].measure(now)
                self.cols["follower_rate_bytes_per_s"][row, i] = self.fq[b].measure(now)
                self.cols["lag_bytes"][row, i] = sum(self.log_end(r.p) - r.fetched
                                                     for r in self.replicas
                                                     if r.dest == b and r.fetcher is not None)
                self.cols["moved_bytes"][row, i] = self.moved[b]
            if self.done == len(s.moves):
                self.ticks_run = k + 1
                return
            yield self.env.timeout(STEPS)

    def run(self) -> tuple[BrokerColumns, np.ndarray, np.ndarray, int]:
        env = self.env
        env.process(self.producers())
        env.process(self.fetch_round())
        stop = env.process(self.monitor())
        env.run(until=simpy.AnyOf(env, [stop, env.timeout(self.s.ticks * STEPS)]))
        rows = -(-self.ticks_run // self.s.sample_ticks)
        cols = BrokerColumns(**{n: c[:rows] for n, c in self.cols.items()})
        return (cols, np.array([r.caught_up_ms for r in self.replicas], np.int64),
                np.array(self.completed, np.int64), self.ticks_run)


def simulate_cluster_simpy(scenario: ClusterReassignmentScenario, *, seed: int = 0,
                           plan: bool = True) -> Any:
    """Run the cluster reassignment in SimPy: the trace of
    :func:`kipviz.scenarios.reassignment.cluster.simulate_cluster`, table for table (the tables
    and ``meta`` are built by the same function from the SimPy program's columns)."""
    from kipviz.scenarios.reassignment.cluster import _trace

    cols, caught, completed, ticks_run = ClusterModel(scenario, seed).run()
    return _trace(scenario, seed, scenario.brokers, cols, caught, completed, ticks_run,
                  plan=plan)

