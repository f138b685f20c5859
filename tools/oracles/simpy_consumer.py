"""The KIP-74/KIP-81 consumer scenario written as a SimPy program: the benchmark's reference.

The same model as :mod:`kipviz.scenarios.consumer`, written the way a user of SimPy (a general
discrete-event library) would write it: a ``simpy.Environment``, one producer process per
partition appending its batches at their tick, one fetcher process per broker (build the request
from the fetchable partitions in the broker's order, let the broker fill it, park it below
``fetch.min.bytes`` for up to ``fetch.max.wait.ms``, send it back over a round trip plus its
transfer time into the consumer's socket), the consumer's network thread (a selector process that
reads the responses waiting in its sockets and hands their parts to the completed-fetch queue, in
response order), a heartbeat thread, and an application process that consumes completed fetches
first in, first out at ``consume_bytes_per_s``. Processes sleep on events (new data for a parked
request, a partition or a response slot freed for an idle fetcher, a response landing for an idle
selector, a response read for an idle application) instead of polling every tick.

KIP-81 (as proposed, never shipped). The selector reads through
:class:`kipviz.kafka.consumer.buffer_memory.ConsumerBuffer` over the pool
:func:`kipviz.kafka.consumer.buffer_memory.consumer_pool` builds (a
:class:`kipviz.kafka.broker.pool.SimpleMemoryPool` of ``buffer.memory`` bytes, or ``NO_POOL`` for
today's consumer): the mechanism itself allocates, releases and times the pool's dry spells. Each
poll visits the responses in the sockets earliest landing first (the coordinator's channel after the
brokers' on a tie); a refused response stays in its socket and its channel is muted until the pool
is no longer out of memory (``Selector``'s ``outOfMemory`` muting); heartbeat responses bypass the
pool unless ``coordinator_bypass`` is off. A response's bytes go back to the pool when the
application has consumed the last of its parts. The heartbeat thread keeps one heartbeat in flight
and sends the next ``heartbeat.interval.ms`` after the last once its response was read. The rejected
alternative, ``max_in_flight_fetches``, counts responses requested and not yet wholly consumed;
below ``partitions + brokers`` the brokers take turns (a dispatcher process hands out the turns in
the kernel's order).

Java's consumer (no ``ClientFetch``), as measured on real 3.9.2 and 4.4.0 consumers: every
partition listed in a response (:func:`kipviz.kafka.fetch.session.listed_in_response`) is a
completed fetch, records or none, and is not fetched again until the application has passed it;
from 2.4 (``hand_over_when_idle``) a response read from its socket is handed to the completed-fetch
queue only at a poll that finds the queue empty (until then it stays in flight and its bytes are
held); and the response whose last part the application consumed stays held (next in line) until
the application takes another part.

Order of events. The kernel runs each tick as: producers, reads (earliest arrival first),
the heartbeat thread, record held and buffer bytes, the application consumes, brokers answer
(in broker id order, or in turns under a cap), record in-flight and consumed bytes, close the
window. Here one tick is ``brokers + 7`` integer time steps: produce, land (responses reach their
sockets), read, heartbeat, peak record, application, one answer step per broker, end of tick; so
SimPy's own clock gives the same order. The broker's fill is the loop of
:func:`kipviz.kafka.fetch.response.fill_raw_bytes` on Python ints, and partition orders change with
:func:`kipviz.kafka.fetch.request.next_order`'s rules; the test suite checks that tables come out
identical to the kernel's.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Generator
from typing import Any, NamedTuple

import numpy as np
import pandas as pd
import simpy

from kipviz.kafka.broker.pool import SimpleMemoryPool
from kipviz.kafka.config.versions import has
from kipviz.kafka.consumer.buffer_memory import ConsumerBuffer, consumer_pool
from kipviz.kafka.fetch.request import Ordering, next_order, request_partitions
from kipviz.kafka.quotas.client import new_quota_rates, throttle_fetch
from kipviz.kafka.quotas.rate import UNLIMITED, bound_or_inf
from kipviz.scenarios.consumer.kernel import HEARTBEAT_RESPONSE_BYTES
from kipviz.scenarios.consumer.scenario import ConsumerScenario, initial_orders, random_order_keys
from kipviz.scenarios.workload import Batches, produce

__all__ = ["SimpyTrace", "simulate_simpy", "simulate_simpy_trace"]

WINDOW_COLUMNS = {"demand_bytes": np.int64, "delivered_bytes": np.int64,
                  "lag_end_bytes": np.int64, "fetches": np.int32, "starved_fetches": np.int32,
                  "max_starvation_streak": np.int32}  # docs/traces.md
MEMORY_COLUMNS = ("held_bytes", "in_flight_bytes", "consumed_bytes")
BUFFER_COLUMNS = {"retained_bytes": np.int64, "waiting_bytes": np.int64, "pool_dry": np.bool_}
# The steps of one tick, in the kernel's order; broker b answers at ANSWER + b (or the b-th turn)
PRODUCE, LAND, READ, HEARTBEAT, PEAK, APPLICATION, ANSWER = range(7)

Process = Generator[simpy.Event, Any, None]


def fill(first: list[int], log: list[int], partition_max_bytes: int, response_max_bytes: int,
         version: int) -> tuple[list[int], int]:
    """:func:`kipviz.kafka.fetch.response.fill_raw_bytes` on Python ints: raw bytes per partition
    and total."""
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
    """Each leading broker's partitions in the first request's order (partition p is led by
    p % B; a broker that leads none has no fetcher)."""
    orders, start = initial_orders(scenario)
    return [orders[start[b]:start[b + 1]].tolist() for b in range(len(start) - 1)]


class Response:
    """One fetch response: its bytes (one pool allocation) and the parts it brings, per
    partition with bytes ``(partition, raw bytes, whole-batch bytes)``, in request order."""

    __slots__ = ("left", "n_bytes", "parts")

    def __init__(self, n_bytes: int, parts: list[tuple[int, int, int]]) -> None:
        self.n_bytes = n_bytes
        self.parts = parts
        self.left = len(parts)  # parts not yet consumed: the last one releases the bytes


class SimpyTrace(NamedTuple):
    """The tables of :class:`kipviz.scenarios.consumer.scenario.ConsumerTrace` the reference
    produces, and its pool's ``MemoryPoolDepletedTimeTotal``."""

    windows: pd.DataFrame
    memory: pd.DataFrame
    buffer: pd.DataFrame
    heartbeats: pd.DataFrame
    depleted_time_total_ms: float


class ConsumerModel:
    """State and processes of one run; :meth:`run` returns the trace's tables."""

    def __init__(self, scenario: ConsumerScenario, batches: Batches, seed: int) -> None:
        s = self.s = scenario
        self.env = simpy.Environment()
        # brokers that lead a partition (partition p on broker p % brokers), as the kernel has
        n, b = s.partitions, min(s.partitions, s.brokers)
        self.brokers = b
        self.steps = ANSWER + b + 1  # time steps per tick, one per phase (one per broker answer)
        self.end_step = ANSWER + b
        self.window = 0
        self.rtt_ticks = max(1, math.ceil(s.rtt_ms / s.tick_ms))
        self.max_wait_ticks = math.ceil(s.fetch_max_wait_ms / s.tick_ms)
        self.consume_per_tick = s.consume_bytes_per_s * s.tick_ms / 1000.0
        self.network_per_tick = s.network_bytes_per_s * s.tick_ms / 1000.0
        self.response_max_bytes = s.response_max_bytes
        self.keys = random_order_keys(s, seed)  # the random order's keys, read in turn as the
        self.next_key = 0  # kernel reads them
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
        self.response_of: list[Response | None] = [None] * n  # the response each came in
        self.queue: deque[int] = deque()
        self.queued_part = [0] * n  # 1 while a completed fetch (records or none) is queued
        # Java's consumer: listed empty parts are completed fetches too, a response is handed
        # over only while nothing is queued (2.4 on), the drained response stays next in line
        java = s.client_fetch is None
        self.queue_empty_parts = self.keeps_drained = java
        self.hand_over_when_idle = java and has(s.kafka_version, "hand_over_when_idle")
        self.drained = 0  # bytes of the drained response still next in line
        self.aside = 0  # paused partitions' completed fetches set aside (back at every poll)
        self.unhanded = 0  # bytes read from the sockets, not handed over, at the last poll
        self.in_flight = [0] * b
        self.orders = first_orders(s)
        # the consumer's request order; with fetch sessions (KIP-227) each broker's session
        # decides the order of incremental fetches (None: no session, the next fetch is full)
        order = s.fetch_order
        self.ordering = order.request
        self.sessions_on = order.sessions
        self.forget_left_out = order.forget_left_out
        self.moves_on_hw = order.moves_on_high_watermark
        self.session: list[list[int] | None] = [None] * b
        self.cached_hw = [-1] * n  # the high watermark each partition's session entry holds
        # Kafka 4.0 (KAFKA-17182): no fetch to a broker with buffered fetchable partitions
        self.skip_buffered_nodes = has(s.kafka_version, "buffered_nodes")
        self.fetchable = np.ones(n, np.bool_)  # False once paused (Consumer.pause)
        # consumer_byte_rate: each broker's quota sensor; KIP-219 answers a throttled fetch empty
        self.quota_bound = bound_or_inf(s.fetch_quota_bytes_per_s)
        self.quota_empty = has(s.kafka_version, "throttled_empty_response")
        self.q_slots, self.q_pos = new_quota_rates(b)
        self.blocked_until = [0] * b  # no request before this tick: the client's throttle
        self.throttled = np.zeros(2, np.int64)  # throttled fetches, their throttle time (ms)
        # KIP-81: reads go through a ConsumerBuffer over the pool (NO_POOL: today's consumer)
        self.buffer = ConsumerBuffer(
            consumer_pool(s.buffer_memory_bytes, s.fetch_max_bytes, strict=s.strict_pool),
            coordinator_bypass=s.coordinator_bypass)
        self.retained = 0  # bytes of responses read and not yet wholly consumed
        self.waiting = 0  # bytes of responses left in their sockets by the last poll
        # the consumer's sockets: (landing tick, channel), channel `brokers` is the coordinator's
        self.sockets: list[tuple[int, int]] = []
        self.muted = [False] * (b + 1)
        self.responses: list[Response | None] = [None] * b  # each broker's response in flight
        # the rejected alternative: responses requested and not yet wholly consumed, capped
        self.cap = s.max_in_flight_fetches
        self.live = 0
        self.rotating = self.cap is not None and self.cap < n + b  # brokers take turns
        self.first_broker = 0
        self.turns: list[tuple[int, simpy.Event] | None] = [None] * b
        # the heartbeat thread: ticks of each heartbeat sent and read (-1: unread)
        self.hb_interval_ticks = math.ceil(s.heartbeat_interval_ms / s.tick_ms)
        self.hb_sent: list[int] = []
        self.hb_read: list[int] = []
        # events a sleeping process waits on (None when nobody waits)
        self.new_data: list[simpy.Event | None] = [None] * b
        self.freed: list[simpy.Event | None] = [None] * b
        self.read: list[simpy.Event | None] = [None] * (b + 1)
        self.response: simpy.Event | None = None
        self.landed: simpy.Event | None = None
        self.slot_freed: simpy.Event | None = None
        # the window being filled and the finished tables
        self.streak = [0] * n
        self.window_offset = [0] * n
        self.w_fetches = [0] * n
        self.w_starved = [0] * n
        self.w_streak = [0] * n
        self.window_rows: dict[str, list[list[int]]] = {k: [] for k in WINDOW_COLUMNS}
        self.memory = {k: [0] * s.ticks for k in MEMORY_COLUMNS}
        self.buffer_rows: dict[str, list[Any]] = {k: [0] * s.ticks for k in BUFFER_COLUMNS}

    def until(self, tick: int, step: int) -> simpy.Timeout:
        """A timeout that ends at ``step`` of ``tick``."""
        return self.env.timeout(tick * self.steps + step - self.env.now)

    @property
    def tick(self) -> int:
        return int(self.env.now) // self.steps

    @property
    def now_ms(self) -> int:
        """The tick's time, the clock the pool's dry spells are timed with."""
        return self.tick * self.s.tick_ms

    @staticmethod
    def wake(events: list[Any], i: int) -> None:
        event = events[i]
        if event is not None:
            events[i] = None
            event.succeed()

    def turn(self, b: int) -> simpy.Event:
        """Broker b's next turn to answer: in this tick's answer phase if it is still ahead,
        else in the next tick's. In broker id order, or handed out by :meth:`dispatcher`."""
        t = self.tick
        if self.env.now >= t * self.steps + ANSWER:
            t += 1
        if not self.rotating:
            return self.until(t, ANSWER + b)
        event = self.env.event()
        self.turns[b] = (t, event)
        return event

    def free_slot(self) -> None:
        """A response was wholly consumed: one fewer against the in-flight cap."""
        self.live -= 1
        if self.slot_freed is not None:
            event = self.slot_freed
            self.slot_freed = None
            event.succeed()

    def producer(self, p: int) -> Process:
        """Append partition p's batches at their tick; wake its broker's parked request."""
        size, tick_of, end = self.size, self.tick_of, self.start[p + 1]
        k = self.start[p]
        broker = p % self.brokers
        while k < end:
            t = tick_of[k]
            if t * self.steps > self.env.now:
                yield self.until(t, PRODUCE)
            appended = 0
            while k < end and tick_of[k] == t:
                appended += size[k]
                k += 1
            self.log_end[p] += appended
            self.produced[p] = k
            self.wake(self.new_data, broker)

    def fetcher(self, b: int) -> Process:
        """Broker b's fetch loop: request, (park,) answer, into the socket, read, next turn."""
        s, env = self.s, self.env
        order = self.orders[b]
        fetch_ptr, produced, size = self.fetch_ptr, self.produced, self.size
        log_end, offset, queued_part = self.log_end, self.offset, self.queued_part
        sent = np.zeros(len(order), np.int64)
        places = np.zeros(len(order), np.int64)
        yield self.turn(b)
        while True:
            if self.tick < self.blocked_until[b]:  # KIP-219: throttled, send nothing yet
                yield self.until(self.blocked_until[b], PRODUCE)
                yield self.turn(b)
                continue
            if self.cap is not None and self.live >= self.cap:
                # the rejected alternative: no request beyond the cap; wait for a slot
                if self.slot_freed is None:
                    self.slot_freed = env.event()
                yield self.slot_freed
                yield self.turn(b)
                continue
            n = request_partitions(order, queued_part, self.fetchable, self.skip_buffered_nodes,
                                   sent, places)
            request = sent[:n].tolist()
            full = self.session[b] is None
            if self.sessions_on and request:
                request = self.session_request(b, request)
            if not request:  # all buffered (4.x: any): sleep until the application frees one
                self.freed[b] = freed = env.event()
                yield freed
                yield self.turn(b)
                continue
            self.live += 1
            if self.rotating:
                self.first_broker = (b + 1) % self.brokers
            parked_since = -1
            while True:
                t = self.tick
                first = [size[fetch_ptr[p]] if fetch_ptr[p] < produced[p] else 0
                         for p in request]
                lag = [log_end[p] - offset[p] for p in request]
                high_watermarks = [log_end[p] for p in request]
                raw, total = fill(first, lag, s.max_partition_fetch_bytes,
                                  self.response_max_bytes, s.fetch_version)
                if total >= s.fetch_min_bytes:
                    break
                if parked_since < 0:
                    parked_since = t
                if t - parked_since >= self.max_wait_ticks:
                    break
                # DelayedFetch: wait for new data on this broker or fetch.max.wait.ms
                self.new_data[b] = data = env.event()
                yield data | self.until(parked_since + self.max_wait_ticks, PRODUCE)
                self.new_data[b] = None
                yield self.turn(b)
            throttle_ticks = 0
            emptied = False
            if self.quota_bound != UNLIMITED:  # the broker's quota step, as the kernel calls it
                parts_raw = np.array(raw, np.int64)
                throttle_ticks = throttle_fetch(self.q_slots[b], self.q_pos[b], self.quota_bound,
                                                parts_raw, total, t * s.tick_ms,
                                                self.quota_empty, s.tick_ms, self.throttled)
                if throttle_ticks > 0 and self.quota_empty:
                    raw, total = parts_raw.tolist(), 0
                    emptied = True
            # the partitions the response lists, before the session caches the new high
            # watermarks; a throttled response (KIP-219) lists none
            listed = [not emptied and (r > 0 or not self.sessions_on or full
                                       or self.cached_hw[p] != hw)
                      for p, r, hw in zip(request, raw, high_watermarks, strict=True)]
            parts, returned = self.answer(request, raw, lag, listed)
            if self.sessions_on:
                self.session_response(b, request, raw, high_watermarks, full, emptied)
            if self.ordering == Ordering.RANDOM:
                reordered = np.array(order, dtype=np.int64)
                keys = self.keys[self.next_key : self.next_key + len(order)]
                self.next_key += len(order)
                next_order(reordered, np.zeros(len(order), np.bool_), self.ordering, keys)
                order[:] = reordered.tolist()
            elif self.ordering == Ordering.ROUND_ROBIN:
                order[:] = ([p for p in order if p not in returned]
                            + [p for p in order if p in returned])
            self.in_flight[b] = total
            self.responses[b] = Response(total, parts)
            # one round trip plus the transfer over the broker's link, into the consumer's socket
            landing = t + self.rtt_ticks + int(total / self.network_per_tick)
            if self.quota_empty:
                self.blocked_until[b] = landing + throttle_ticks
            else:  # before KIP-219 the broker held the response for the throttle time
                landing += throttle_ticks
            yield self.until(landing, LAND)
            self.read[b] = read = env.event()
            self.land(b)
            yield read  # the selector reads it, now or once the pool has room
            yield self.turn(b)

    def answer(self, request: list[int], raw: list[int], lag: list[int],
               listed: list[bool]) -> tuple[list[tuple[int, int, int]], set[int]]:
        """Move fetch positions past the whole batches returned; count fetches and starvation.
        The response's parts: those with bytes, and for Java every listed one."""
        fetch_ptr, produced, size, streak = self.fetch_ptr, self.produced, self.size, self.streak
        parts = []
        returned = set()
        for p, r, lag_p, listed_p in zip(request, raw, lag, listed, strict=True):
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
            if r > 0 or (self.queue_empty_parts and listed_p):
                parts.append((p, r, got))
            if r > 0:
                returned.add(p)
        return parts, returned

    def session_request(self, b: int, request: list[int]) -> list[int]:
        """KIP-227: the request's partitions in the order broker b reads them. A full fetch (no
        session) is read in request order and creates the session with it; an incremental one
        forgets the session's partitions left out (unless the policy keeps them), appends the new
        ones in request order (no high watermark cached) and is read in the session's order."""
        session = self.session[b]
        if session is None:
            self.session[b] = list(request)
            return request
        asked = set(request)
        kept = [p for p in session if p in asked or not self.forget_left_out]
        members = set(kept)
        added = [p for p in request if p not in members]
        for p in added:
            self.cached_hw[p] = -1
        self.session[b] = kept + added
        return [p for p in self.session[b] if p in asked]

    def session_response(self, b: int, request: list[int], raw: list[int],
                         high_watermarks: list[int], full: bool, emptied: bool) -> None:
        """After broker b's response: partitions that returned records (before 3.0 also those
        whose high watermark changed) move to the end of its session, unless the fetch was full;
        a throttled response (KIP-219) moves nothing, and a throttled full fetch leaves no
        session."""
        if emptied:
            if full:
                self.session[b] = None
            return
        moved = set()
        for p, r, hw in zip(request, raw, high_watermarks, strict=True):
            if r > 0 or (self.moves_on_hw and hw != self.cached_hw[p]):
                moved.add(p)
            self.cached_hw[p] = hw
        if not full:
            session = self.session[b]
            assert session is not None
            self.session[b] = ([p for p in session if p not in moved]
                               + [p for p in session if p in moved])

    def land(self, channel: int) -> None:
        """A response reaches the consumer's socket on ``channel``: wake an idle selector."""
        self.sockets.append((self.tick, channel))
        if self.landed is not None:
            event = self.landed
            self.landed = None
            event.succeed()

    def selector(self) -> Process:
        """The consumer's network thread: poll the sockets every tick while responses wait."""
        env = self.env
        while True:
            self.landed = env.event()
            yield self.landed
            yield self.until(self.tick, READ)
            self.poll()
            while self.sockets:  # left in their sockets: poll again next tick
                yield self.until(self.tick + 1, READ)
                self.poll()

    def poll(self) -> None:
        """Read the waiting responses earliest first, each allocated from the pool (coordinator
        responses bypass it); a refused one stays in its socket and its channel is muted until
        the pool is no longer out of memory. Java's consumer (2.4 on) hands a fetch response
        over only while the completed-fetch queue is empty; until then it stays in flight."""
        buffer, muted, coordinator_channel = self.buffer, self.muted, self.brokers
        now = self.now_ms
        waiting = unhanded = 0
        left = []
        self.sockets.sort()
        busy = self.hand_over_when_idle and bool(self.queue)  # one poll hands all or none
        for landed, channel in self.sockets:
            coordinator = channel == coordinator_channel
            n = HEARTBEAT_RESPONSE_BYTES if coordinator else self.in_flight[channel]
            if busy and not coordinator:
                left.append((landed, channel))
                unhanded += n
                continue
            if muted[channel] and not buffer.can_read(coordinator=coordinator):
                left.append((landed, channel))
                waiting += 0 if coordinator else n
                continue
            muted[channel] = False
            if not buffer.read(n, now, coordinator=coordinator):
                muted[channel] = True
                left.append((landed, channel))
                waiting += 0 if coordinator else n
                continue
            if coordinator:
                if not buffer.coordinator_bypass:
                    buffer.release(n, now)  # a heartbeat response is parsed at once
                self.hb_read[-1] = self.tick
            else:
                self.deliver(channel)
            self.wake(self.read, channel)
        self.sockets = left
        self.unhanded = unhanded
        self.waiting = waiting

    def deliver(self, b: int) -> None:
        """Broker b's response was read: one completed fetch per part (with bytes, or for Java
        listed)."""
        response = self.responses[b]
        assert response is not None
        self.responses[b] = None
        for p, r, got in response.parts:
            self.pending_raw[p] = r
            self.pending_left[p] = got
            self.response_of[p] = response
            self.queued_part[p] = 1
            self.queue.append(p)
        self.retained += response.n_bytes
        self.in_flight[b] = 0
        if not response.parts:  # nothing to hand over: done at once
            self.free_slot()
        elif self.response is not None:
            event = self.response
            self.response = None
            event.succeed()

    def heartbeat(self) -> Process:
        """The heartbeat thread: one heartbeat in flight; the next one is sent
        ``heartbeat.interval.ms`` after the last, once the last's response was read."""
        env, coordinator_channel = self.env, self.brokers
        next_tick = 0
        while True:
            yield self.until(max(next_tick, self.tick), HEARTBEAT)
            sent = self.tick
            self.hb_sent.append(sent)
            self.hb_read.append(-1)
            next_tick = sent + self.hb_interval_ticks
            yield self.until(sent + self.rtt_ticks, LAND)
            self.read[coordinator_channel] = read = env.event()
            self.land(coordinator_channel)
            yield read

    def dispatcher(self) -> Process:
        """Under a cap below ``partitions + brokers`` brokers take turns: the kernel visits
        ``(first_broker + k) % brokers`` for k = 0..brokers-1 with ``first_broker`` as it was
        when the tick's turns began; a broker that sends a new request moves the next tick's
        start past itself."""
        env, brokers = self.env, self.brokers
        yield self.until(0, ANSWER)
        while True:
            t = self.tick
            start = self.first_broker
            for k in range(brokers):
                b = (start + k) % brokers
                waiting = self.turns[b]
                if waiting is not None and waiting[0] <= t:
                    self.turns[b] = None
                    waiting[1].succeed()  # broker b acts at this step, before the next place
                yield env.timeout(1)
            yield self.until(t + 1, ANSWER)

    def application(self) -> Process:
        """Consume completed fetches in arrival order, ``consume_per_tick`` bytes a tick (an
        empty part costs nothing); the last part of a response consumed releases its bytes (for
        Java the response stays held, next in line, until the application takes another part)."""
        env = self.env
        queue, pending_raw, pending_left = self.queue, self.pending_raw, self.pending_left
        queued_part = self.queued_part
        consumed_col = self.memory["consumed_bytes"]
        credit = 0.0
        yield self.until(0, APPLICATION)
        while True:
            if not queue:  # idle: banks no time, sleeps until a response is read
                credit = 0.0
                self.response = env.event()
                yield self.response
                yield self.until(self.tick, APPLICATION)
            t = self.tick
            credit += self.consume_per_tick
            consumed = 0
            while queue:
                p = queue[0]
                if not self.fetchable[p]:  # paused: FetchCollector sets its data aside, kept
                    queue.popleft()
                    self.aside += 1
                    continue
                self.drained = 0  # the next part is taken: the drained response is let go
                if pending_left[p] > credit:
                    take = int(credit)
                    pending_left[p] -= take
                    consumed += take
                    credit -= take
                    break
                credit -= pending_left[p]
                consumed += pending_left[p]
                pending_raw[p] = 0
                pending_left[p] = 0
                queued_part[p] = 0
                queue.popleft()
                response = self.response_of[p]
                assert response is not None
                self.response_of[p] = None
                response.left -= 1
                if response.left == 0:  # all its records handed over: back to the pool
                    self.release(response.n_bytes)
                    self.retained -= response.n_bytes
                    if self.keeps_drained:
                        self.drained = response.n_bytes
                    self.free_slot()
                self.wake(self.freed, p % self.brokers)
            if self.aside:  # it passes through nextInLineFetch at every poll and leaves it null
                self.drained = 0  # (FetchCollector.java:125-130, 4.4): the drained one goes
            if not queue:
                credit = 0.0
            consumed_col[t] = consumed
            yield env.timeout(self.steps)

    def release(self, n_bytes: int) -> None:
        """A wholly consumed response's bytes go back to the pool. A response of 0 bytes (Java's
        listed empty parts) was read without an allocation, yet its release, like every
        ``release``, ends an open dry spell (``maybeRecordEndOfDrySpell``), as the kernel's
        ``pool_release`` of 0 bytes does."""
        pool = self.buffer.pool
        if n_bytes > 0:
            self.buffer.release(n_bytes, self.now_ms)
        elif isinstance(pool, SimpleMemoryPool):
            pool.depletion.served(self.now_ms)

    def pauser(self) -> Process:
        """``Consumer.pause`` at ``pause_at_ms``: the partitions stop being fetchable; under
        4.x rules their buffered data no longer blocks their brokers, so idle fetchers look
        again."""
        s = self.s
        yield self.until(-(-s.pause_at_ms // s.tick_ms), PRODUCE)
        for p in s.paused_partitions:
            self.fetchable[p] = False
        for b in range(self.brokers):
            self.wake(self.freed, b)

    def monitor(self) -> Process:
        """Record the tick's peak (held, retained and waiting bytes, the pool dry) before the
        application consumes, bytes in flight at its end, and close each window."""
        held, in_flight = self.memory["held_bytes"], self.memory["in_flight_bytes"]
        retained = self.buffer_rows["retained_bytes"]
        waiting = self.buffer_rows["waiting_bytes"]
        dry = self.buffer_rows["pool_dry"]
        pool = self.buffer.pool
        yield self.until(0, PEAK)
        while True:
            t = self.tick
            # whole responses while any of their parts is buffered, responses read and not
            # handed over (received: no longer in flight), the drained one still next in line
            held[t] = self.retained + self.unhanded + self.drained
            retained[t] = self.retained
            waiting[t] = self.waiting
            dry[t] = pool.is_out_of_memory
            yield self.until(t, self.end_step)
            in_flight[t] = sum(self.in_flight) - self.unhanded
            if (t + 1) * self.s.windows // self.s.ticks > self.window:
                self.close_window()
                self.window += 1
            yield self.until(t + 1, PEAK)

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

    def run(self) -> SimpyTrace:
        s, env = self.s, self.env
        for p in range(s.partitions):
            env.process(self.producer(p))
        env.process(self.selector())
        if self.hb_interval_ticks > 0:
            env.process(self.heartbeat())
        env.process(self.application())
        for b in range(self.brokers):
            env.process(self.fetcher(b))
        if self.rotating:
            env.process(self.dispatcher())
        if s.paused_partitions:
            env.process(self.pauser())
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
        time_ms = np.arange(s.ticks, dtype=np.int64) * s.tick_ms
        memory = pd.DataFrame({"time_ms": time_ms,
                               **{k: np.array(v, dtype=np.int64)
                                  for k, v in self.memory.items()}})
        buffer = pd.DataFrame({"time_ms": time_ms,
                               **{k: np.array(v, dtype=BUFFER_COLUMNS[k])
                                  for k, v in self.buffer_rows.items()}})
        return SimpyTrace(windows, memory, buffer, self.heartbeats(),
                          float(self.buffer.pool.depleted_time_total_ms))

    def heartbeats(self) -> pd.DataFrame:
        """One row per heartbeat sent: sent, landed and read (-1: unread) times, and its delay
        (landing to read, or to the end of the run while unread)."""
        s = self.s
        sent = np.array(self.hb_sent, dtype=np.int64)
        read = np.array(self.hb_read, dtype=np.int64)
        arrived = sent + self.rtt_ticks
        delay = np.where(read >= 0, read - arrived, np.maximum(s.ticks - arrived, 0))
        return pd.DataFrame({
            "sent_ms": sent * s.tick_ms,
            "arrived_ms": arrived * s.tick_ms,
            "read_ms": np.where(read >= 0, read * s.tick_ms, -1),
            "delay_ms": delay * s.tick_ms,
        })


def simulate_simpy_trace(scenario: ConsumerScenario, *, seed: int = 0,
                         batches: Batches | None = None) -> SimpyTrace:
    """Run the consumer scenario in SimPy: the ``windows``, ``memory``, ``buffer`` and
    ``heartbeats`` tables of :func:`kipviz.scenarios.consumer.scenario.simulate` (docs/traces.md),
    value for value, and the pool's ``depleted_time_total_ms``."""
    s = scenario
    if batches is None:
        batches = produce(s.workload, s.partitions, s.ticks, s.tick_ms, seed=seed)
    elif batches.partitions != s.partitions:
        raise ValueError(f"batches cover {batches.partitions} partitions, not {s.partitions}")
    return ConsumerModel(s, batches, seed).run()


def simulate_simpy(scenario: ConsumerScenario, *, seed: int = 0,
                   batches: Batches | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Run the consumer scenario in SimPy: the ``windows`` and ``memory`` tables of
    :func:`kipviz.scenarios.consumer.scenario.simulate` (docs/traces.md), value for value."""
    trace = simulate_simpy_trace(scenario, seed=seed, batches=batches)
    return trace.windows, trace.memory
