"""A consumer fetching from P partitions on B brokers under KIP-74's limits, tick by tick.

What it models (Kafka's ``AbstractFetch`` / ``Fetcher`` and ``ReplicaManager.readFromLog``):

* Partition p is led by broker ``p % brokers``. A broker gets a new fetch request only when the
  consumer has none in flight to it, and the request lists only *fetchable* partitions: those with
  no buffered completed fetch and none in flight (``fetchablePartitions``).
* The broker fills the response with :func:`kipviz.fetch.fill_raw_bytes` under
  ``min(consumer fetch.max.bytes, broker fetch.max.bytes)``; if it holds fewer than
  ``fetch.min.bytes`` it parks the request (``DelayedFetch``) until enough data arrives or
  ``fetch.max.wait.ms`` passes. The response reaches the consumer a round trip plus its transfer
  time over the broker's link (``network_bytes_per_s``) later.
* The fetch offset moves past the whole batches returned; a partial tail is fetched again.
* Each partition's part of a response is buffered as a completed fetch until the application has
  consumed it (first in, first out, at ``consume_bytes_per_s``); its raw bytes are held until then.
* After each response the broker's partition order changes by the ordering policy
  (:class:`kipviz.fetch.Ordering`).

So in-flight bytes never exceed ``brokers * max(fetch.max.bytes, largest batch)`` (KIP-74's
``N * max_bytes``) and buffered bytes never exceed ``partitions * max(max.partition.fetch.bytes,
largest batch)``. When the application is slower than the network, completed fetches of
*other* partitions keep arriving, so held memory can pass KIP-74's ``min(...)`` figure: the gap
KIP-81 set out to close.

The kernel below is written as plain loops over numpy arrays: numba compiles it for the
dashboards, and run as it is, it is the plain-Python reference the benchmark compares against.
"""

from __future__ import annotations

import math
import types
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from kipviz.config import BrokerConfig, ConsumerConfig
from kipviz.fetch import (
    BROKER_FETCH_MAX_BYTES,
    CONSUMER_FETCH_MAX_BYTES,
    MAX_PARTITION_FETCH_BYTES,
    Ordering,
    TopicPartition,
    consumer_memory_bound_bytes,
    effective_response_max_bytes,
    fill_raw_bytes,
    java_hash_order,
    next_order,
)
from kipviz.workload import Batches, Workload, produce

__all__ = ["ConsumerScenario", "ConsumerTrace", "simulate"]

TOPIC = "events"
# Columns of the kernel's per-partition state rows. PART_RAW / PART_LEFT hold the partition's part
# of a response: raw bytes and whole-batch bytes not yet consumed, from the moment the broker
# answers (in flight) until the application has consumed it (buffered); FETCHES and STARVED count
# this window's fetches.
LOG_END, OFFSET, FETCH_PTR, PART_RAW, PART_LEFT, STREAK, FETCHES, STARVED = range(8)


@dataclass(frozen=True)
class ConsumerScenario:
    """One consumer, its Kafka settings and the cluster around it; vary it with ``replace``."""

    partitions: int = 100
    brokers: int = 3
    fetch_max_bytes: int = CONSUMER_FETCH_MAX_BYTES
    max_partition_fetch_bytes: int = MAX_PARTITION_FETCH_BYTES
    broker_fetch_max_bytes: int = BROKER_FETCH_MAX_BYTES
    fetch_min_bytes: int = 1
    fetch_max_wait_ms: int = 500
    ordering: Ordering = Ordering.ROUND_ROBIN
    version: int = 12  # fetch request version; <= 2 is the pre-KIP-74 protocol
    consume_bytes_per_s: float = 100e6
    rtt_ms: int = 10
    network_bytes_per_s: float = 125e6  # each broker's link to the consumer (1 Gbit/s)
    tick_ms: int = 10
    ticks: int = 1000
    windows: int = 20
    workload: Workload = field(default_factory=Workload)

    def __post_init__(self) -> None:
        ints = {"partitions": 1, "brokers": 1, "max_partition_fetch_bytes": 0,
                "fetch_min_bytes": 0, "fetch_max_wait_ms": 0, "version": 0, "rtt_ms": 1,
                "tick_ms": 1, "ticks": 1, "windows": 1}
        for name, minimum in ints.items():
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | np.integer):
                raise ValueError(f"{name} must be an integer: {value!r}")
            if value < minimum:
                kafka = name.replace("_", ".")
                label = f"{name} ({kafka})" if name.startswith(("fetch", "max")) else name
                raise ValueError(f"{label} must be >= {minimum}: {value}")
        if self.windows > self.ticks:
            raise ValueError(f"windows must be <= ticks: {self.windows} > {self.ticks}")
        for name in ("consume_bytes_per_s", "network_bytes_per_s"):
            if not getattr(self, name) > 0:
                raise ValueError(f"{name} must be > 0: {getattr(self, name)}")
        _ = self.response_max_bytes  # validates fetch.max.bytes on both sides
        Ordering(self.ordering)

    @classmethod
    def from_configs(cls, consumer: ConsumerConfig, broker: BrokerConfig | None = None,
                     **scenario: Any) -> ConsumerScenario:
        """A scenario with the fetch settings of a consumer's (and broker's) Kafka config."""
        broker = broker or BrokerConfig()
        return cls(fetch_max_bytes=consumer.fetch_max_bytes,
                   max_partition_fetch_bytes=consumer.max_partition_fetch_bytes,
                   fetch_min_bytes=consumer.fetch_min_bytes,
                   fetch_max_wait_ms=consumer.fetch_max_wait_ms,
                   broker_fetch_max_bytes=broker.fetch_max_bytes, **scenario)

    @property
    def response_max_bytes(self) -> int:
        """The broker's response limit for this consumer (no fetch quota)."""
        return effective_response_max_bytes(self.fetch_max_bytes, self.broker_fetch_max_bytes)

    def bounds(self, max_batch_bytes: int = 0) -> dict[str, int]:
        """The analytic memory bounds drawn beside the simulated memory."""
        p, b = self.partitions, self.brokers
        return {
            "pre_kip74_bound_bytes": p * self.max_partition_fetch_bytes,
            "kip74_bound_bytes": consumer_memory_bound_bytes(
                b, self.fetch_max_bytes, self.max_partition_fetch_bytes, p),
            "in_flight_bound_bytes": b * max(self.response_max_bytes, max_batch_bytes),
            "buffered_bound_bytes": p * max(self.max_partition_fetch_bytes, max_batch_bytes),
        }


@dataclass(frozen=True)
class ConsumerTrace:
    """Columnar output: ``fetches``, ``windows`` and ``memory`` tables (docs/traces.md)."""

    fetches: pd.DataFrame
    windows: pd.DataFrame
    memory: pd.DataFrame
    meta: dict[str, Any]


def _kernel(
    batch_size, batch_tick, batch_part, batch_next, batch_first, orders, order_start, limits,
    response_max_bytes,
    version, ordering, fetch_min_bytes, max_wait_ticks, rtt_ticks, network_per_tick,
    consume_per_tick, ticks, n_windows, seed, record_fetches,
    # outputs
    f_id, f_time, f_broker, f_part, f_pos, f_lag, f_raw, f_batches, f_complete,
    w_demand, w_delivered, w_lag_end, w_fetches, w_starved, w_streak,
    m_held, m_in_flight, m_consumed,
):  # pragma: no cover - exercised compiled and uncompiled through simulate()
    np.random.seed(seed)
    n_part = batch_first.shape[0]
    n_batches = batch_size.shape[0]
    n_brokers = order_start.shape[0] - 1
    produced = 0  # batches are in append order: those before this index are in the logs
    # one 64-byte row per partition: the fields a fetch touches share a cache line
    st = np.zeros((n_part, 8), np.int64)
    st[:, FETCH_PTR] = batch_first  # batch at each partition's fetch offset
    offset_at_window_start = np.zeros(n_part, np.int64)
    queue = np.zeros(n_part + 1, np.int64)
    head = 0
    tail = 0
    arrive = np.full(n_brokers, -1, np.int64)
    parked_since = np.full(n_brokers, -1, np.int64)
    in_flight = np.zeros(n_brokers, np.int64)
    first = np.zeros(n_part, np.int64)
    logb = np.zeros(n_part, np.int64)
    lim = np.zeros(n_part, np.int64)
    raw = np.zeros(n_part, np.int64)
    returned = np.zeros(n_part, np.bool_)
    sent = np.zeros(n_part, np.int64)  # each broker's in-flight request, in request order
    place = np.zeros(n_part, np.int64)  # where each of those stands in the broker's order
    sent_n = np.zeros(n_brokers, np.int64)
    held = 0
    credit = 0.0
    rows = 0
    fetch_id = 0
    window = 0
    for t in range(ticks):
        while produced < n_batches and batch_tick[produced] <= t:  # producers append
            st[batch_part[produced], LOG_END] += batch_size[produced]
            produced += 1
        for b in range(n_brokers):  # responses that reach the consumer now
            if arrive[b] == t:
                for j in range(order_start[b], order_start[b] + sent_n[b]):
                    p = sent[j]
                    if st[p, PART_RAW] > 0:
                        held += st[p, PART_RAW]
                        queue[tail] = p
                        tail = (tail + 1) % queue.shape[0]
                in_flight[b] = 0
                arrive[b] = -1
        m_held[t] = held  # peak of the tick: responses landed, nothing consumed yet
        credit += consume_per_tick  # the application consumes completed fetches in order
        consumed = 0
        while head != tail:
            p = queue[head]
            if st[p, PART_LEFT] > credit:
                take = int(credit)
                st[p, PART_LEFT] -= take
                consumed += take
                credit -= take
                break
            credit -= st[p, PART_LEFT]
            consumed += st[p, PART_LEFT]
            held -= st[p, PART_RAW]
            st[p, PART_RAW] = 0
            st[p, PART_LEFT] = 0
            head = (head + 1) % queue.shape[0]
        if head == tail:
            credit = 0.0  # an idle application banks no time
        for b in range(n_brokers):  # brokers answer requests (new or parked)
            if arrive[b] >= 0:
                continue
            lo = order_start[b]
            if parked_since[b] < 0:  # a new request: the fetchable partitions, in order
                n = 0
                for j in range(lo, order_start[b + 1]):
                    p = orders[j]
                    if st[p, PART_RAW] == 0:  # nothing buffered: fetchable
                        sent[lo + n] = p
                        place[lo + n] = j - lo
                        n += 1
                sent_n[b] = n
            n = sent_n[b]
            if n == 0:
                continue
            for i in range(n):
                p = sent[lo + i]
                first[i] = batch_size[st[p, FETCH_PTR]] if st[p, FETCH_PTR] < produced else 0
                logb[i] = st[p, LOG_END] - st[p, OFFSET]
                lim[i] = limits[p]
            total = fill_raw_bytes(first[:n], logb[:n], lim[:n], response_max_bytes, version,
                                   raw[:n])
            if total < fetch_min_bytes:
                if parked_since[b] < 0:
                    parked_since[b] = t
                if t - parked_since[b] < max_wait_ticks:
                    continue
            parked_since[b] = -1
            returned[: order_start[b + 1] - lo] = False
            for i in range(n):
                p = sent[lo + i]
                r = raw[i]
                k = st[p, FETCH_PTR]
                got = 0
                whole = 0
                while k < produced and got + batch_size[k] <= r:
                    got += batch_size[k]
                    k = batch_next[k]
                    whole += 1
                if record_fetches:
                    f_id[rows] = fetch_id
                    f_time[rows] = t
                    f_broker[rows] = b
                    f_part[rows] = p
                    f_pos[rows] = i
                    f_lag[rows] = logb[i]
                    f_raw[rows] = r
                    f_batches[rows] = whole
                    f_complete[rows] = got
                    rows += 1
                st[p, FETCHES] += 1
                if logb[i] > 0 and got == 0:
                    st[p, STREAK] += 1
                    st[p, STARVED] += 1
                    w_streak[window, p] = max(w_streak[window, p], st[p, STREAK])
                else:
                    st[p, STREAK] = 0
                st[p, FETCH_PTR] = k
                st[p, OFFSET] += got
                st[p, PART_RAW] = r
                st[p, PART_LEFT] = got
                returned[place[lo + i]] = (r > 0) if ordering == 1 else (got > 0)
            keys = np.random.random(order_start[b + 1] - lo) if ordering == 4 else raw[:0] * 0.0
            next_order(orders[lo : order_start[b + 1]], returned[: order_start[b + 1] - lo],
                       ordering, keys)
            in_flight[b] = total
            arrive[b] = t + rtt_ticks + int(total / network_per_tick)  # round trip + transfer
            fetch_id += 1
        m_in_flight[t] = in_flight.sum()
        m_consumed[t] = consumed
        if (t + 1) * n_windows // ticks > window:  # last tick of this window
            for p in range(n_part):
                w_demand[window, p] = st[p, LOG_END] - offset_at_window_start[p]
                w_delivered[window, p] = st[p, OFFSET] - offset_at_window_start[p]
                w_lag_end[window, p] = st[p, LOG_END] - st[p, OFFSET]
                w_fetches[window, p] = st[p, FETCHES]
                w_starved[window, p] = st[p, STARVED]
                st[p, FETCHES] = 0
                st[p, STARVED] = 0
                if st[p, STREAK] > w_streak[window, p]:
                    w_streak[window, p] = st[p, STREAK]
                offset_at_window_start[p] = st[p, OFFSET]
            window += 1
    return rows


_compiled: Any = None


def _compiled_kernel() -> Any:
    """The kernel compiled by numba, with the mechanisms it calls (compiled once per process)."""
    global _compiled
    if _compiled is None:
        import numba

        from kipviz import fetch

        fill = numba.njit(cache=True)(fetch.fill_raw_bytes)
        reorder = numba.njit(cache=True)(fetch.next_order)
        glb = dict(_kernel.__globals__, fill_raw_bytes=fill, next_order=reorder)
        fn = types.FunctionType(_kernel.__code__, glb, "_kernel")
        fn.__qualname__ = "_kernel"
        _compiled = numba.njit(cache=True)(fn)
    return _compiled


def initial_orders(scenario: ConsumerScenario) -> tuple[np.ndarray, np.ndarray]:
    """Each broker's partitions in the first request's order (CSR: ``orders``, ``order_start``)."""
    p, b = scenario.partitions, scenario.brokers
    if scenario.ordering == Ordering.HASH:
        tps = [TopicPartition(TOPIC, i) for i in range(p)]
        everything = np.array(java_hash_order(tps), dtype=np.int64)
    else:
        everything = np.arange(p, dtype=np.int64)
    per_broker = [everything[everything % b == broker] for broker in range(b)]
    order_start = np.zeros(b + 1, dtype=np.int64)
    np.cumsum([len(x) for x in per_broker], out=order_start[1:])
    return np.concatenate(per_broker), order_start


def simulate(scenario: ConsumerScenario, *, seed: int = 0, record_fetches: bool = True,
             compiled: bool = True, batches: Batches | None = None) -> ConsumerTrace:
    """Run the scenario; the same scenario and seed give the same trace.

    ``record_fetches=False`` skips the full-resolution ``fetches`` table (the dashboards read the
    windowed one). ``compiled=False`` runs the kernel as plain Python (slow; a reference).
    """
    s = scenario
    if batches is None:
        batches = produce(s.workload, s.partitions, s.ticks, s.tick_ms, seed=seed)
    elif batches.partitions != s.partitions:
        raise ValueError(f"batches cover {batches.partitions} partitions, not {s.partitions}")
    orders, order_start = initial_orders(s)
    n_windows = s.windows
    rtt_ticks = max(1, math.ceil(s.rtt_ms / s.tick_ms))
    cap = s.partitions * (math.ceil(s.ticks / rtt_ticks) + 1) if record_fetches else 0
    f = {name: np.zeros(cap, dtype) for name, dtype in _FETCH_COLUMNS.items()}
    w = {name: np.zeros((n_windows, s.partitions), dtype)
         for name, dtype in _WINDOW_COLUMNS.items()}
    m = {name: np.zeros(s.ticks, np.int64) for name in _MEMORY_COLUMNS}
    kernel = _compiled_kernel() if compiled else _kernel
    rows = kernel(
        *batches.by_time, orders, order_start,
        np.full(s.partitions, s.max_partition_fetch_bytes, np.int64), s.response_max_bytes,
        s.version, int(s.ordering), s.fetch_min_bytes, math.ceil(s.fetch_max_wait_ms / s.tick_ms),
        rtt_ticks, s.network_bytes_per_s * s.tick_ms / 1000.0,
        s.consume_bytes_per_s * s.tick_ms / 1000.0, s.ticks, n_windows, seed,
        record_fetches, *f.values(), *w.values(), *m.values(),
    )
    fetches = pd.DataFrame({k: v[:rows] for k, v in f.items()})
    fetches["time_ms"] *= s.tick_ms
    bounds = -(-np.arange(n_windows + 1, dtype=np.int64) * s.ticks // n_windows) * s.tick_ms
    windows = pd.DataFrame({
        "window": np.repeat(np.arange(n_windows, dtype=np.int32), s.partitions),
        "window_start_ms": np.repeat(bounds[:-1], s.partitions),
        "window_end_ms": np.repeat(bounds[1:], s.partitions),
        "partition": np.tile(np.arange(s.partitions, dtype=np.int32), n_windows),
        **{k: v.ravel() for k, v in w.items()},
    })
    memory = pd.DataFrame({"time_ms": np.arange(s.ticks, dtype=np.int64) * s.tick_ms, **m})
    max_batch = int(batches.size_bytes.max()) if batches.size_bytes.size else 0
    meta = {"partitions": s.partitions, "brokers": s.brokers, "tick_ms": s.tick_ms,
            "window_ms": math.ceil(s.ticks / n_windows) * s.tick_ms, "ticks": s.ticks, "seed": seed,
            "max_batch_bytes": max_batch, **s.bounds(max_batch)}
    return ConsumerTrace(fetches=fetches, windows=windows, memory=memory, meta=meta)


_FETCH_COLUMNS = {"fetch_id": np.int64, "time_ms": np.int64, "broker": np.int32,
                  "partition": np.int32, "position": np.int32, "lag_bytes": np.int64,
                  "raw_bytes": np.int64, "complete_batches": np.int32,
                  "complete_bytes": np.int64}
_WINDOW_COLUMNS = {"demand_bytes": np.int64, "delivered_bytes": np.int64,
                   "lag_end_bytes": np.int64, "fetches": np.int32, "starved_fetches": np.int32,
                   "max_starvation_streak": np.int32}
_MEMORY_COLUMNS = ("held_bytes", "in_flight_bytes", "consumed_bytes")
