"""The KIP-72 broker scenario written as a SimPy program: the benchmark's reference.

The same model as :mod:`kipviz.scenarios.broker`, written the way a user of SimPy (a general
discrete-event library) would write it: a ``simpy.Environment``; one client process per
connection putting its requests into its socket (a ``Store``) when they arrive; the network
thread (``Processor`` with its ``Selector``) polling once a tick; the ``RequestChannel`` as a
``Store`` of ``queued.max.requests`` places; and one process per request handler, which sleeps on
its inbox and then until its request is done, when it releases the memory and sends the
response. Handlers waiting for work wait in a ``PriorityStore`` ordered by when they are free, so
the earliest free handler takes the oldest request. The pool is :mod:`kipviz.kafka.broker.pool`'s
own ``SimpleMemoryPool`` (or ``NO_POOL``), and the shuffle is ``Collections.shuffle`` with its own
``java.util.Random`` (:class:`JavaRandom`), seeded as the kernel seeds its Random.

Order of events. The kernel runs each tick as: release finished requests, poll (unmute, read
ready channels, handing requests to handlers whenever the channel is full), record, handlers take
queued requests. Here one tick is three integer time steps (arrivals and releases, the poll,
the hand-off), so SimPy's own clock gives the same order; a handler free at a fractional time
takes a request in the tick it is free in, starting at max(free time, tick start). The test
suite checks that the tables come out identical to the kernel's.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

import numpy as np
import pandas as pd
import simpy

from kipviz.kafka.broker.network import broker_pool, should_shuffle_keys
from kipviz.scenarios.broker.kernel import shuffle_seed
from kipviz.scenarios.broker.scenario import BrokerScenario, generate_requests

__all__ = ["JavaRandom", "simulate_simpy"]

TICK_COLUMNS = {"time_ms": np.int64, "pool_used_bytes": np.int64,
                "pool_available_bytes": np.int64, "requests_in_queue": np.int32,
                "muted_for_memory": np.int32, "bytes_read": np.int64,
                "shuffled": np.bool_}  # docs/traces.md
REQUEST_COLUMNS = {"connection": np.int32, "request_id": np.int64, "size_bytes": np.int64,
                   "arrival_ms": np.int64, "read_ms": np.int64, "done_ms": np.int64}
STEPS = 3  # time steps per tick
ARRIVE = RELEASE = 0
POLL = 1
HAND_OFF = 2
MASK = (1 << 48) - 1


class JavaRandom:
    """``java.util.Random``, as much of it as ``Collections.shuffle`` uses."""

    def __init__(self, seed: int) -> None:
        self.seed = (seed ^ 0x5DEECE66D) & MASK

    def next(self, bits: int) -> int:
        self.seed = (self.seed * 0x5DEECE66D + 0xB) & MASK
        return self.seed >> (48 - bits)

    def next_int(self, bound: int) -> int:
        r = self.next(31)
        m = bound - 1
        if bound & m == 0:
            return (bound * r) >> 31
        u = r
        r = u % bound
        while u - r + m > 0x7FFFFFFF:  # Java: u - r + m < 0 after int overflow
            u = self.next(31)
            r = u % bound
        return r

    def shuffle(self, items: list[Any]) -> None:
        """``Collections.shuffle(items, this)``."""
        for i in range(len(items), 1, -1):
            j = self.next_int(i)
            items[i - 1], items[j] = items[j], items[i - 1]


class BrokerModel:
    """State and processes of one run; :meth:`run` returns the ticks and requests tables."""

    def __init__(self, scenario: BrokerScenario, requests: pd.DataFrame, seed: int) -> None:
        s = self.s = scenario
        env = self.env = simpy.Environment()
        self.requests = requests
        self.size = requests.size_bytes.tolist()
        self.invalid = requests.invalid.tolist()
        self.conn = requests.connection.tolist()
        self.pool = broker_pool(s.queued_max_request_bytes, s.socket_request_max_bytes,
                                strict=s.strict)
        self.random = JavaRandom(shuffle_seed(seed))
        self.bytes_per_ms = s.handler_bytes_per_s / 1000.0
        self.sockets = [simpy.Store(env) for _ in range(s.connections)]  # arrived, unread
        self.outstanding = [False] * s.connections  # read, response not sent: muted
        self.muted = [False] * s.connections  # muted for memory
        self.muted_count = 0
        self.out_of_memory = False
        self.channel = simpy.Store(env, capacity=s.queued_max_requests)  # RequestChannel
        self.idle = simpy.PriorityStore(env)  # handlers waiting for work, by when they are free
        self.inboxes = [simpy.Store(env) for _ in range(s.num_io_threads)]
        self.held = 0  # bytes read and not released
        self.read_ms = [-1] * len(requests)
        self.done_ms = [-1] * len(requests)
        self.rows: dict[str, list[Any]] = {k: [] for k in TICK_COLUMNS if k != "time_ms"}

    def until(self, tick: int, step: int) -> simpy.Timeout:
        """A timeout that ends at ``step`` of ``tick``."""
        return self.env.timeout(tick * STEPS + step - self.env.now)

    @property
    def tick(self) -> int:
        return int(self.env.now) // STEPS

    def client(self, c: int, ids: list[int], arrival_ticks: list[int]):
        """Connection c: each request reaches the broker's socket at its arrival."""
        socket = self.sockets[c]
        for i, t in zip(ids, arrival_ticks, strict=True):
            if t * STEPS > self.env.now:
                yield self.until(t, ARRIVE)
            yield socket.put(i)

    def handler(self, k: int):
        """A request handler: process what it is handed; at the first tick at or after the end,
        release the request's memory and send its response (the channel is unmuted)."""
        tick_ms = self.s.tick_ms
        yield self.idle.put(simpy.PriorityItem(0.0, k))
        while True:
            i, end, taken_tick = yield self.inboxes[k].get()
            t = max(-(-int(end) // tick_ms), taken_tick + 1)
            while t * tick_ms < end:
                t += 1
            while t > taken_tick + 1 and (t - 1) * tick_ms >= end:
                t -= 1
            yield self.until(t, RELEASE)
            self.pool.release(self.size[i], now_ms=t * tick_ms)
            self.held -= self.size[i]
            self.done_ms[i] = t * tick_ms
            self.outstanding[self.conn[i]] = False

    def hand_off(self, now: int) -> Generator[simpy.Event, Any, None]:
        """Handlers free before the tick ends take queued requests, the earliest free first."""
        horizon = now + self.s.tick_ms
        while self.channel.items and self.idle.items and self.idle.items[0].priority < horizon:
            free = yield self.idle.get()
            i = yield self.channel.get()
            end = max(free.priority, float(now)) + self.size[i] / self.bytes_per_ms
            yield self.idle.put(simpy.PriorityItem(end, free.item))
            yield self.inboxes[free.item].put((i, end, now // self.s.tick_ms))

    def network_thread(self):
        """``Processor`` / ``Selector.poll`` once a tick, then the hand-off to the handlers."""
        s, pool, sockets = self.s, self.pool, self.sockets
        rows = self.rows
        yield self.until(0, POLL)
        while True:
            now = self.tick * s.tick_ms
            if self.out_of_memory and not pool.is_out_of_memory:  # the pool has recovered
                self.muted = [False] * s.connections
                self.muted_count = 0
                self.out_of_memory = False
            ready = [c for c in range(s.connections)
                     if sockets[c].items and not self.outstanding[c] and not self.muted[c]]
            shuffled = s.shuffle and should_shuffle_keys(pool,
                                                         muted_for_memory=self.out_of_memory)
            if shuffled:
                self.random.shuffle(ready)
            read = 0
            for c in ready:
                if len(self.channel.items) >= s.queued_max_requests:  # blocked on the channel
                    yield from self.hand_off(now)
                    if len(self.channel.items) >= s.queued_max_requests:
                        break
                i = sockets[c].items[0]  # its size is known: ask the pool for the memory
                if not pool.try_allocate(self.size[i], now_ms=now):
                    self.muted[c] = True
                    self.muted_count += 1
                    self.out_of_memory = True
                    continue
                yield sockets[c].get()
                self.held += self.size[i]
                read += self.size[i]
                self.read_ms[i] = now
                if self.invalid[i]:  # refused after reading: the connection is closed
                    if s.releases_invalid:  # KAFKA-20302's releases (or no pool)
                        pool.release(self.size[i], now_ms=now)
                        self.held -= self.size[i]
                    self.done_ms[i] = now
                    continue
                self.outstanding[c] = True
                yield self.channel.put(i)
            rows["pool_used_bytes"].append(self.held)
            rows["pool_available_bytes"].append(pool.available_bytes)
            rows["requests_in_queue"].append(len(self.channel.items))
            rows["muted_for_memory"].append(self.muted_count)
            rows["bytes_read"].append(read)
            rows["shuffled"].append(shuffled)
            yield self.until(self.tick, HAND_OFF)
            yield from self.hand_off(now)
            yield self.until(self.tick + 1, POLL)

    def run(self) -> tuple[pd.DataFrame, pd.DataFrame]:
        s, env, r = self.s, self.env, self.requests
        arrival_ticks = (-(-r.arrival_ms // s.tick_ms)).tolist()  # first tick at or after
        by_conn: list[tuple[list[int], list[int]]] = [([], []) for _ in range(s.connections)]
        for i, (c, t) in enumerate(zip(self.conn, arrival_ticks, strict=True)):
            by_conn[c][0].append(i)
            by_conn[c][1].append(t)
        for c, (ids, ticks) in enumerate(by_conn):
            env.process(self.client(c, ids, ticks))
        for k in range(s.num_io_threads):
            env.process(self.handler(k))
        env.process(self.network_thread())
        env.run(until=s.ticks * STEPS)
        ticks = pd.DataFrame({"time_ms": np.arange(s.ticks, dtype=np.int64) * s.tick_ms,
                              **{k: np.array(v, dtype=TICK_COLUMNS[k])
                                 for k, v in self.rows.items()}})
        requests = r.assign(read_ms=self.read_ms, done_ms=self.done_ms)
        return ticks, requests[list(REQUEST_COLUMNS)].astype(REQUEST_COLUMNS)


def simulate_simpy(scenario: BrokerScenario, *, seed: int = 0,
                   requests: pd.DataFrame | None = None) -> tuple[pd.DataFrame, pd.DataFrame,
                                                                  float]:
    """Run the broker scenario in SimPy: the ``ticks`` and ``requests`` tables of
    :func:`kipviz.scenarios.broker.scenario.simulate` (docs/traces.md), value for value, and
    ``MemoryPoolDepletedTimeTotal`` (its ``meta["depleted_time_total_ms"]``)."""
    s = scenario
    if requests is None:
        requests = generate_requests(s, np.random.default_rng(seed))
    r = pd.DataFrame({"connection": requests["connection"].to_numpy(np.int32),
                      "arrival_ms": requests["arrival_ms"].to_numpy(np.int64),
                      "size_bytes": requests["size_bytes"].to_numpy(np.int64),
                      "invalid": requests["invalid"].to_numpy(bool) if "invalid" in requests
                      else np.zeros(len(requests), bool)})
    r = r.sort_values(["arrival_ms", "connection"], kind="stable", ignore_index=True)
    r.insert(1, "request_id", np.arange(len(r), dtype=np.int64))
    model = BrokerModel(s, r, seed)
    ticks, table = model.run()
    return ticks, table, float(model.pool.depleted_time_total_ms)
