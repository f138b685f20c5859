"""The KIP-74 consumer scenario written as a SimPy program: the benchmark's reference.

The same model as :mod:`kipviz.scenarios.consumer`, written the way a user of SimPy (a general
discrete-event library) would write it: a ``simpy.Environment``, one producer process per
partition appending its batches at their tick, one fetcher process per broker (build the request
from the fetchable partitions in the broker's order, let the broker fill it, park it below
``fetch.min.bytes`` for up to ``fetch.max.wait.ms``, send it back over a round trip plus its
transfer time, hand its parts to the consumer's completed-fetch queue, in response order) and an
application process that consumes completed fetches first in, first out at
``consume_bytes_per_s``. Processes sleep on events (new data for a parked request, a partition
freed for an idle fetcher, a response for an idle application) instead of polling every tick.

Order of events. The kernel runs each tick as: producers, arrivals (in broker id order), record
held bytes, the application consumes, brokers answer (in broker id order), record in-flight and
consumed bytes, close the window. Here one tick is ``2 * brokers + 3`` integer time steps, one per
phase of that list (one per broker where brokers go in id order), so SimPy's own clock gives the
same order. The broker's fill is the loop of :func:`kipviz.fetch.fill_raw_bytes` on Python ints,
and partition orders change with :func:`kipviz.fetch.next_order`'s rules; the test suite checks
that tables come out identical to the kernel's.
"""

from __future__ import annotations

import math
from collections import deque
from typing import Any

import numpy as np
import pandas as pd
import simpy

from kipviz.fetch import Ordering, TopicPartition, java_hash_order, next_order
from kipviz.scenarios.consumer import TOPIC, ConsumerScenario
from kipviz.workload import Batches, produce

__all__ = ["simulate_simpy"]

WINDOW_COLUMNS = {"demand_bytes": np.int64, "delivered_bytes": np.int64,
                  "lag_end_bytes": np.int64, "fetches": np.int32, "starved_fetches": np.int32,
                  "max_starvation_streak": np.int32}  # docs/traces.md
MEMORY_COLUMNS = ("held_bytes", "in_flight_bytes", "consumed_bytes")


def fill(first: list[int], log: list[int], partition_max_bytes: int, response_max_bytes: int,
         version: int) -> tuple[list[int], int]:
    """:func:`kipviz.fetch.fill_raw_bytes` on Python ints: raw bytes per partition and total."""
    limit = response_max_bytes
    min_one_batch = version >= 3
    total = 0
    out = []
    for first_i, log_i in zip(first, log, strict=True):
        budget = min(partition_max_bytes, limit)
        if min_one_batch and log_i > 0:
            budget = max(budget, first_i)
        raw = min(budget, log_i)
        if version >= 3 and raw < first_i:
            raw = 0
        out.append(raw)
        if raw > 0:
            min_one_batch = False
        limit = max(0, limit - raw)
        total += raw
    return out, total


def first_orders(scenario: ConsumerScenario) -> list[list[int]]:
    """Each broker's partitions in the first request's order (partition p is led by p % B)."""
    p, b = scenario.partitions, scenario.brokers
    if scenario.ordering == Ordering.HASH:
        everything = java_hash_order([TopicPartition(TOPIC, i) for i in range(p)])
    else:
        everything = list(range(p))
    return [[i for i in everything if i % b == broker] for broker in range(b)]


class ConsumerModel:
    """State and processes of one run; :meth:`run` returns the windows and memory tables."""

    def __init__(self, scenario: ConsumerScenario, batches: Batches, seed: int) -> None:
        s = self.s = scenario
        self.env = simpy.Environment()
        n, b = s.partitions, s.brokers
        self.steps = 2 * b + 3  # time steps per tick, one per phase
        self.window = 0
        self.rtt_ticks = max(1, math.ceil(s.rtt_ms / s.tick_ms))
        self.max_wait_ticks = math.ceil(s.fetch_max_wait_ms / s.tick_ms)
        self.consume_per_tick = s.consume_bytes_per_s * s.tick_ms / 1000.0
        self.network_per_tick = s.network_bytes_per_s * s.tick_ms / 1000.0
        self.response_max_bytes = s.response_max_bytes
        self.rng = np.random.RandomState(seed)  # keys of the random order, as the kernel draws
        self.start = batches.start.tolist()
        self.size = batches.size_bytes.tolist()
        self.tick_of = batches.tick.tolist()
        # the log and the consumer's position, per partition
        self.produced = self.start[:-1]  # one past the last appended batch
        self.fetch_ptr = self.start[:-1]  # batch at the fetch offset
        self.log_end = [0] * n
        self.offset = [0] * n
        # completed fetches: raw bytes held and complete bytes left, per partition; FIFO queue
        self.pending_raw = [0] * n
        self.pending_left = [0] * n
        self.queue: deque[int] = deque()
        self.held = 0
        self.in_flight = [0] * b
        self.orders = first_orders(s)
        # events a sleeping process waits on (None when nobody waits)
        self.new_data: list[simpy.Event | None] = [None] * b
        self.freed: list[simpy.Event | None] = [None] * b
        self.response: simpy.Event | None = None
        # the window being filled and the finished tables
        self.streak = [0] * n
        self.window_offset = [0] * n
        self.w_fetches = [0] * n
        self.w_starved = [0] * n
        self.w_streak = [0] * n
        self.window_rows: dict[str, list[list[int]]] = {k: [] for k in WINDOW_COLUMNS}
        self.memory = {k: [0] * s.ticks for k in MEMORY_COLUMNS}

    # phases of a tick, in the kernel's order
    def arrive_step(self, broker: int) -> int:
        return 1 + broker

    @property
    def application_step(self) -> int:
        return 1 + self.s.brokers

    def answer_step(self, broker: int) -> int:
        return 2 + self.s.brokers + broker

    @property
    def monitor_step(self) -> int:
        return 2 + 2 * self.s.brokers

    def until(self, tick: int, step: int) -> simpy.Timeout:
        """A timeout that ends at ``step`` of ``tick``."""
        return self.env.timeout(tick * self.steps + step - self.env.now)

    @property
    def tick(self) -> int:
        return int(self.env.now) // self.steps

    @staticmethod
    def wake(events: list[Any], i: int) -> None:
        event = events[i]
        if event is not None:
            events[i] = None
            event.succeed()

    def producer(self, p: int):
        """Append partition p's batches at their tick; wake its broker's parked request."""
        size, tick_of, end = self.size, self.tick_of, self.start[p + 1]
        k = self.start[p]
        broker = p % self.s.brokers
        while k < end:
            t = tick_of[k]
            if t * self.steps > self.env.now:
                yield self.until(t, 0)
            appended = 0
            while k < end and tick_of[k] == t:
                appended += size[k]
                k += 1
            self.log_end[p] += appended
            self.produced[p] = k
            self.wake(self.new_data, broker)

    def fetcher(self, b: int):
        """Broker b's fetch loop: request, (park,) answer, one round trip, completed fetches."""
        s, env = self.s, self.env
        order = self.orders[b]
        fetch_ptr, produced, size = self.fetch_ptr, self.produced, self.size
        log_end, offset, pending_raw = self.log_end, self.offset, self.pending_raw
        answer, arrive = self.answer_step(b), self.arrive_step(b)
        yield self.until(0, answer)
        while True:
            request = [p for p in order if pending_raw[p] == 0]  # fetchable partitions
            if not request:  # all buffered: sleep until the application frees one
                self.freed[b] = env.event()
                yield self.freed[b]
                yield self.until(self.tick, answer)
                continue
            parked_since = -1
            while True:
                t = self.tick
                first = [size[fetch_ptr[p]] if fetch_ptr[p] < produced[p] else 0
                         for p in request]
                lag = [log_end[p] - offset[p] for p in request]
                raw, total = fill(first, lag, s.max_partition_fetch_bytes,
                                  self.response_max_bytes, s.version)
                if total >= s.fetch_min_bytes:
                    break
                if parked_since < 0:
                    parked_since = t
                if t - parked_since >= self.max_wait_ticks:
                    break
                # DelayedFetch: wait for new data on this broker or fetch.max.wait.ms
                self.new_data[b] = data = env.event()
                yield data | self.until(parked_since + self.max_wait_ticks, answer)
                self.new_data[b] = None
                if env.now % self.steps != answer:
                    yield self.until(self.tick, answer)
            parts, returned = self.answer(request, raw, lag)
            if s.ordering == Ordering.RANDOM:
                reordered = np.array(order, dtype=np.int64)
                next_order(reordered, np.zeros(len(order), np.bool_), s.ordering,
                           self.rng.random_sample(len(order)))
                order[:] = reordered.tolist()
            elif s.ordering in (Ordering.ROUND_ROBIN, Ordering.SESSION):
                order[:] = ([p for p in order if p not in returned]
                            + [p for p in order if p in returned])
            self.in_flight[b] = total
            # one round trip plus the transfer over the broker's link, landing at `arrive`
            travel_ticks = self.rtt_ticks + int(total / self.network_per_tick)
            yield env.timeout(travel_ticks * self.steps - (answer - arrive))
            # the response reaches the consumer: one completed fetch per partition with bytes
            for p, r, got in parts:
                pending_raw[p] = r
                self.pending_left[p] = got
                self.held += r
                self.queue.append(p)
            self.in_flight[b] = 0
            if parts and self.response is not None:
                self.response, event = None, self.response
                event.succeed()
            yield env.timeout(answer - arrive)

    def answer(self, request: list[int], raw: list[int], lag: list[int]):
        """Move fetch positions past the whole batches returned; count fetches and starvation."""
        fetch_ptr, produced, size, streak = self.fetch_ptr, self.produced, self.size, self.streak
        parts = []
        returned = set()
        by_raw = self.s.ordering == Ordering.ROUND_ROBIN
        for p, r, lag_p in zip(request, raw, lag, strict=True):
            k = fetch_ptr[p]
            got = 0
            while k < produced[p] and got + size[k] <= r:
                got += size[k]
                k += 1
            self.w_fetches[p] += 1
            if lag_p > 0 and got == 0:
                streak[p] += 1
                self.w_starved[p] += 1
                self.w_streak[p] = max(self.w_streak[p], streak[p])
            else:
                streak[p] = 0
            fetch_ptr[p] = k
            self.offset[p] += got
            if r > 0:
                parts.append((p, r, got))
            if (r > 0) if by_raw else (got > 0):
                returned.add(p)
        return parts, returned

    def application(self):
        """Consume completed fetches in arrival order, ``consume_per_tick`` bytes a tick."""
        env = self.env
        queue, pending_raw, pending_left = self.queue, self.pending_raw, self.pending_left
        held, consumed_col = self.memory["held_bytes"], self.memory["consumed_bytes"]
        credit = 0.0
        yield self.until(0, self.application_step)
        while True:
            if not queue:  # idle: banks no time, sleeps until a response lands
                credit = 0.0
                self.response = env.event()
                yield self.response
                yield self.until(self.tick, self.application_step)
            t = self.tick
            held[t] = self.held
            credit += self.consume_per_tick
            consumed = 0
            while queue:
                p = queue[0]
                if pending_left[p] > credit:
                    take = int(credit)
                    pending_left[p] -= take
                    consumed += take
                    credit -= take
                    break
                credit -= pending_left[p]
                consumed += pending_left[p]
                self.held -= pending_raw[p]
                pending_raw[p] = 0
                pending_left[p] = 0
                queue.popleft()
                self.wake(self.freed, p % self.s.brokers)
            if not queue:
                credit = 0.0
            consumed_col[t] = consumed
            yield env.timeout(self.steps)

    def monitor(self):
        """Record bytes in flight every tick and close each window."""
        in_flight = self.memory["in_flight_bytes"]
        yield self.until(0, self.monitor_step)
        while True:
            t = self.tick
            in_flight[t] = sum(self.in_flight)
            if (t + 1) * self.s.windows // self.s.ticks > self.window:
                self.close_window()
                self.window += 1
            yield self.env.timeout(self.steps)

    def close_window(self) -> None:
        rows = self.window_rows
        start, log_end, offset = self.window_offset, self.log_end, self.offset
        rows["demand_bytes"].append([e - s for e, s in zip(log_end, start, strict=True)])
        rows["delivered_bytes"].append([o - s for o, s in zip(offset, start, strict=True)])
        rows["lag_end_bytes"].append([e - o for e, o in zip(log_end, offset, strict=True)])
        rows["fetches"].append(self.w_fetches)
        rows["starved_fetches"].append(self.w_starved)
        rows["max_starvation_streak"].append(
            [max(w, s) for w, s in zip(self.w_streak, self.streak, strict=True)])
        n = self.s.partitions
        self.window_offset = list(offset)
        self.w_fetches, self.w_starved, self.w_streak = [0] * n, [0] * n, [0] * n

    def run(self) -> tuple[pd.DataFrame, pd.DataFrame]:
        s, env = self.s, self.env
        for p in range(s.partitions):
            env.process(self.producer(p))
        env.process(self.application())
        for b in range(s.brokers):
            env.process(self.fetcher(b))
        env.process(self.monitor())
        env.run(until=s.ticks * self.steps)
        n_windows = len(self.window_rows["fetches"])
        bounds = -(-np.arange(n_windows + 1, dtype=np.int64) * s.ticks // n_windows) * s.tick_ms
        windows = pd.DataFrame({
            "window": np.repeat(np.arange(n_windows, dtype=np.int32), s.partitions),
            "window_start_ms": np.repeat(bounds[:-1], s.partitions),
            "window_end_ms": np.repeat(np.minimum(bounds[1:],
                                                  s.ticks * s.tick_ms), s.partitions),
            "partition": np.tile(np.arange(s.partitions, dtype=np.int32), n_windows),
            **{k: np.array(v, dtype=WINDOW_COLUMNS[k]).ravel()
               for k, v in self.window_rows.items()},
        })
        memory = pd.DataFrame({"time_ms": np.arange(s.ticks, dtype=np.int64) * s.tick_ms,
                               **{k: np.array(v, dtype=np.int64)
                                  for k, v in self.memory.items()}})
        return windows, memory


def simulate_simpy(scenario: ConsumerScenario, *, seed: int = 0,
                   batches: Batches | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Run the consumer scenario in SimPy: the ``windows`` and ``memory`` tables of
    :func:`kipviz.scenarios.consumer.simulate` (docs/traces.md), value for value."""
    s = scenario
    if batches is None:
        batches = produce(s.workload, s.partitions, s.ticks, s.tick_ms, seed=seed)
    elif batches.partitions != s.partitions:
        raise ValueError(f"batches cover {batches.partitions} partitions, not {s.partitions}")
    return ConsumerModel(s, batches, seed).run()
