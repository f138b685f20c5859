"""A consumer fetching from P partitions on B brokers under KIP-74's limits, tick by tick.

What it models (Kafka's ``AbstractFetch`` / ``Fetcher`` and ``ReplicaManager.readFromLog``):

* Partition p is led by broker ``p % brokers``. A broker gets a new fetch request only when the
  consumer has none in flight to it, and the request lists only *fetchable* partitions: those with
  no buffered completed fetch and none in flight (``fetchablePartitions``).
* The broker fills the response with :func:`kipviz.kafka.fetch.response.fill_raw_bytes` under
  ``min(consumer fetch.max.bytes, broker fetch.max.bytes)``; if it holds fewer than
  ``fetch.min.bytes`` it parks the request (``DelayedFetch``) until enough data arrives or
  ``fetch.max.wait.ms`` passes. The response reaches the consumer a round trip plus its transfer
  time over the broker's link (``network_bytes_per_s``) later.
* The fetch offset moves past the whole batches returned; a partial tail is fetched again.
* Each partition's part of a response is buffered as a completed fetch until the application has
  consumed it (first in, first out, at ``consume_bytes_per_s``); its raw bytes are held until then.
* After each response the broker's partition order changes by the ordering policy
  (:class:`kipviz.kafka.fetch.request.Ordering`).

``ConsumerScenario(client=...)`` runs another client's fetching on the same brokers and workload
(:mod:`kipviz.kafka.clients.fetching`: its request limits, its gate on new requests, its partition
order, what a buffered part keeps alive and at what size once decompressed); ``"java"`` is the
model above, unchanged.

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
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np
import pandas as pd

from kipviz.kafka.broker.pool import DEPLETED, pool_state
from kipviz.kafka.clients.fetching import GATE_NONE, ClientFetch
from kipviz.kafka.config.versions import has, version_key
from kipviz.kafka.consumer.buffer_memory import consumer_pool
from kipviz.kafka.consumer.memory import consumer_memory_bounds
from kipviz.kafka.fetch.request import (
    Ordering,
    TopicPartition,
    group_data_by_topic_order,
    java_hash_order,
)
from kipviz.kafka.fetch.session import new_fetch_sessions
from kipviz.kafka.quotas.client import new_quota_rates
from kipviz.kafka.quotas.rate import bound_or_inf
from kipviz.scenarios import limits
from kipviz.scenarios.consumer.columns import (
    BufferColumns,
    ConsumerInputs,
    ConsumerSettings,
    FetchColumns,
    HeartbeatColumns,
    MemoryColumns,
    WindowColumns,
)
from kipviz.scenarios.consumer.definition import TOPIC, ConsumerScenario
from kipviz.scenarios.consumer.kernel import compiled_kernel, consumer_kernel
from kipviz.scenarios.consumer.meta import ConsumerMeta
from kipviz.scenarios.workload import Batches, produce

__all__ = ["TOPIC", "ConsumerScenario", "ConsumerTrace", "initial_orders", "random_order_keys",
           "simulate"]

@dataclass(frozen=True)
class ConsumerTrace:
    """Columnar output: ``fetches``, ``windows``, ``memory``, ``buffer`` and ``heartbeats``.

    ``buffer`` (per tick) has ``retained_bytes``: bytes of responses read and not yet released,
    i.e. not all of their records handed to the application (a KIP-81 pool's used bytes, and what
    today's consumer keeps reachable on its heap); ``waiting_bytes``: responses that reached the
    consumer but stay in its sockets because the pool is dry; ``pool_dry``: the pool is out of
    memory (available <= 0). ``heartbeats`` has one row per heartbeat sent: ``sent_ms``,
    ``arrived_ms`` (its response reached the consumer), ``read_ms`` (-1: still unread at the end)
    and ``delay_ms`` (arrival to read, or to the end of the run while unread).
    """

    fetches: pd.DataFrame
    windows: pd.DataFrame
    memory: pd.DataFrame
    meta: ConsumerMeta
    buffer: pd.DataFrame = field(default_factory=pd.DataFrame)
    heartbeats: pd.DataFrame = field(default_factory=pd.DataFrame)


def initial_orders(scenario: ConsumerScenario) -> tuple[np.ndarray, np.ndarray]:
    """Each broker's partitions in the first request's order (CSR: ``orders``, ``order_start``):
    the consumer's request order (:attr:`ConsumerScenario.fetch_order`), which is also the order
    of a fetch session created by it, from the order its assignment starts in
    (:attr:`ConsumerScenario.assignment`: a group's in partition order, ``assign()``'s in Java
    hash order)."""
    p, b = scenario.partitions, limits.leading_brokers(scenario.partitions, scenario.brokers)
    everything = np.arange(p, dtype=np.int64)
    # other clients keep the assignment order (kipviz.kafka.clients.fetching)
    java = scenario.client == "java"
    hashed = java and scenario.fetch_order.request == Ordering.HASH
    assigned = java and scenario.assignment == "assign"
    tps = [TopicPartition(TOPIC, i) for i in range(p)] if hashed or assigned else []
    if hashed and not has(scenario.kafka_version, "topic_grouped_requests"):
        copied = version_key(scenario.kafka_version) >= (3, 7)  # new HashSet<>(list)
        everything = np.array(java_hash_order(tps, copied=copied), dtype=np.int64)
    elif assigned:  # assign(): a HashSet, filled into assignFromUser's HashMap one put at a time
        everything = np.array(java_hash_order(tps), dtype=np.int64)
    per_broker = [everything[everything % b == broker] for broker in range(b)]
    if hashed and has(scenario.kafka_version, "topic_grouped_requests"):  # 0.10.0
        per_broker = [order[group_data_by_topic_order([tps[i] for i in order])]
                      for order in per_broker]
    order_start = np.zeros(b + 1, dtype=np.int64)
    np.cumsum([len(x) for x in per_broker], out=order_start[1:])
    return np.concatenate(per_broker), order_start


def random_order_keys(scenario: ConsumerScenario, seed: int) -> np.ndarray:
    """The random order's keys (:attr:`Ordering.RANDOM`; empty for the other orders): one per
    partition of every response the run can get, read in turn by the kernel and the SimPy
    reference. Drawn from the first child of the run's ``SeedSequence``, a stream independent of
    the workload's ``default_rng(seed)``."""
    if scenario.request_ordering != Ordering.RANDOM:
        return np.zeros(0)
    rtt_ticks = max(1, math.ceil(scenario.rtt_ms / scenario.tick_ms))
    rng = np.random.default_rng(np.random.SeedSequence(seed).spawn(1)[0])
    return rng.random(scenario.partitions * (math.ceil(scenario.ticks / rtt_ticks) + 1))


def simulate(scenario: ConsumerScenario, *, seed: int = 0, record_fetches: bool = True,
             compiled: bool = True, batches: Batches | None = None) -> ConsumerTrace:
    """Run the scenario; the same scenario and seed give the same trace.

    ``record_fetches=False`` skips the full-resolution ``fetches`` table (the dashboards read the
    windowed one). ``compiled=False`` runs the kernel as plain Python (slow; a reference).
    """
    s = scenario
    limits.check_consumer(s, record_fetches=record_fetches, seed=seed)  # memory, seed
    if batches is None:
        batches = produce(s.workload, s.partitions, s.ticks, s.tick_ms, seed=seed)
    elif batches.partitions != s.partitions:
        raise ValueError(f"batches cover {batches.partitions} partitions, not {s.partitions}")
    max_batch = int(batches.size_bytes.max()) if batches.size_bytes.size else 0
    pool = consumer_pool(s.buffer_memory_bytes, s.fetch_max_bytes, strict=s.strict_pool)
    if s.largest_response_bytes(max_batch) > pool.size_bytes:
        raise ValueError(f"buffer.memory must hold the largest fetch response, its largest single "
                         f"allocation: {s.largest_response_bytes(max_batch)} > {pool.size_bytes} "
                         f"(a record batch above buffer.memory can never be read)")
    orders, order_start = initial_orders(s)
    order = s.fetch_order
    n_windows = s.windows
    rtt_ticks = max(1, math.ceil(s.rtt_ms / s.tick_ms))
    cap = s.partitions * (math.ceil(s.ticks / rtt_ticks) + 1) if record_fetches else 0
    f = FetchColumns(**{name: np.zeros(cap, t) for name, t in _FETCH_COLUMNS.items()})
    w = WindowColumns(**{name: np.zeros((n_windows, s.partitions), t)
                         for name, t in _WINDOW_COLUMNS.items()})
    m = MemoryColumns(**{name: np.zeros(s.ticks, t) for name, t in _MEMORY_COLUMNS.items()})
    buf = BufferColumns(**{name: np.zeros(s.ticks, t) for name, t in _BUFFER_COLUMNS.items()})
    hb_interval = math.ceil(s.heartbeat_interval_ms / s.tick_ms)
    n_hb = s.ticks // max(1, hb_interval) + 2 if hb_interval else 0
    hb = HeartbeatColumns(**{name: np.full(n_hb, -1, np.int64)
                             for name in HeartbeatColumns._fields})
    state = pool_state(pool)
    q_slots, q_pos = new_quota_rates(order_start.shape[0] - 1)  # the brokers leading partitions
    throttled = np.zeros(2, np.int64)  # throttled fetches, their throttle time (ms)
    inputs = ConsumerInputs(
        orders=orders, order_start=order_start,
        limits=np.full(s.partitions, s.partition_max_bytes, np.int64),
        paused=np.array(sorted(set(s.paused_partitions)), np.int64),
        random_keys=random_order_keys(s, seed), quota_slots=q_slots, quota_pos=q_pos)
    c = s.client_fetch
    min_bytes, max_wait_ms = ((s.fetch_min_bytes, s.fetch_max_wait_ms) if c is None
                              else (c.fetch_min_bytes, c.fetch_max_wait_ms))
    java = c is None
    settings = ConsumerSettings(
        response_max_bytes=int(s.response_max_bytes), version=int(s.fetch_version),
        ordering=int(order.request if c is None else c.ordering),
        fetch_sessions=bool(order.sessions if c is None else c.sessions),
        forget_left_out=bool(order.forget_left_out),
        moves_on_high_watermark=bool(order.moves_on_high_watermark),
        fetch_min_bytes=int(min_bytes),
        max_wait_ticks=math.ceil(max_wait_ms / s.tick_ms), rtt_ticks=rtt_ticks,
        network_per_tick=float(s.network_bytes_per_s * s.tick_ms / 1000.0),
        consume_per_tick=float(s.consume_bytes_per_s * s.tick_ms / 1000.0),
        ticks=int(s.ticks), n_windows=int(n_windows), record_fetches=bool(record_fetches),
        coordinator_bypass=bool(s.coordinator_bypass),
        max_in_flight=int(s.max_in_flight_fetches or (c and c.max_fetches)
                          or s.partitions + s.brokers),
        hb_interval_ticks=int(hb_interval), tick_ms=int(s.tick_ms),
        skip_buffered_nodes=bool(has(s.kafka_version, "buffered_nodes")),
        # Java's fetch buffer as measured on real consumers (KIP-81's pool and cap act on it)
        queue_empty_parts=java, keeps_drained=java,
        hand_over_when_idle=java and bool(has(s.kafka_version, "hand_over_when_idle")),
        pause_tick=math.ceil(s.pause_at_ms / s.tick_ms) if s.paused_partitions else -1,
        quota_bound=bound_or_inf(s.fetch_quota_bytes_per_s),
        quota_empty=bool(has(s.kafka_version, "throttled_empty_response")),
        **_client_settings(c))
    kernel = compiled_kernel() if compiled else consumer_kernel
    sessions = new_fetch_sessions(order_start, s.partitions)
    rows, _heartbeats_read = kernel(batches.by_time, inputs, settings, state, sessions,
                                    throttled, f, w, m, buf, hb)
    fetches = pd.DataFrame({name: getattr(f, name)[:rows] for name in _FETCH_COLUMNS})
    fetches["time_ms"] *= s.tick_ms
    bounds = -(-np.arange(n_windows + 1, dtype=np.int64) * s.ticks // n_windows) * s.tick_ms
    windows = pd.DataFrame({
        "window": np.repeat(np.arange(n_windows, dtype=np.int32), s.partitions),
        "window_start_ms": np.repeat(bounds[:-1], s.partitions),
        "window_end_ms": np.repeat(bounds[1:], s.partitions),
        "partition": np.tile(np.arange(s.partitions, dtype=np.int32), n_windows),
        **{name: getattr(w, name).ravel() for name in _WINDOW_COLUMNS},
    })
    time_ms = np.arange(s.ticks, dtype=np.int64) * s.tick_ms
    memory = pd.DataFrame({"time_ms": time_ms, **{name: getattr(m, name)
                                                  for name in _MEMORY_COLUMNS}})
    buffer = pd.DataFrame({"time_ms": time_ms, **{name: getattr(buf, name)
                                                  for name in _BUFFER_COLUMNS}})
    heartbeats = _heartbeats(hb, s)
    meta = cast(ConsumerMeta, {  # its keys are checked by tests/scenarios/test_scenario_contract.py
            "partitions": s.partitions, "brokers": s.brokers, "tick_ms": s.tick_ms,
            "window_ms": math.ceil(s.ticks / n_windows) * s.tick_ms, "ticks": s.ticks, "seed": seed,
            "max_batch_bytes": max_batch, **s.bounds(max_batch), "mode": s.mode,
            "coordinator_bypass": s.coordinator_bypass,
            "max_in_flight_fetches": s.max_in_flight_fetches,
            "kafka_version": s.kafka_version, "fetch_version": s.fetch_version,
            **_memory_meta(s, max_batch), "client": s.client,
            "compression_ratio": s.compression_ratio,
            "ordering": s.request_ordering.name if c is None else (
                "ROTATING" if c.rotates else c.ordering.name),
            "fetch_sessions": settings.fetch_sessions,
            "throttled_fetches": int(throttled[0]), "throttle_time_total_ms": int(throttled[1]),
            # MemoryPoolDepletedTimeTotal counts closed dry spells only; dry_ms every dry tick
            "depleted_time_total_ms": float(state[DEPLETED]),
            "dry_ms": int(buffer.pool_dry.sum()) * s.tick_ms,
            **_heartbeat_summary(heartbeats, s)})
    return ConsumerTrace(fetches=fetches, windows=windows, memory=memory, meta=meta,
                         buffer=buffer, heartbeats=heartbeats)


def _client_settings(c: ClientFetch | None) -> dict[str, Any]:
    """The kernel's client settings: Java's (no gate, whole responses held as they came) or the
    client's own (:mod:`kipviz.kafka.clients.fetching`)."""
    if c is None:
        return {"client_gate": GATE_NONE, "queue_gate_bytes": 0, "rotates": False,
                "whole_response": True, "held_per_wire_byte": 1.0}
    return {"client_gate": c.gate, "queue_gate_bytes": c.queue_gate_bytes,
            "rotates": c.rotates, "whole_response": c.whole_response,
            "held_per_wire_byte": c.held_per_wire_byte}


def _memory_meta(s: ConsumerScenario, max_batch: int) -> dict[str, Any]:
    """The one memory answer in the trace's meta, :func:`kipviz.kafka.consumer.memory.
    consumer_memory_bounds`: Java's, or the scenario's client's own bound."""
    b = consumer_memory_bounds(s, max_batch_bytes=max_batch)
    return {"memory_bound_bytes": b.bound_bytes, "memory_rule": b.rule,
            "memory_lagging": b.lagging, "memory_lagging_bytes": b.lagging_bytes,
            "memory_sentence": b.sentence()}


def _heartbeats(hb: HeartbeatColumns, s: ConsumerScenario) -> pd.DataFrame:
    n = int((hb.sent >= 0).sum())
    end = s.ticks
    read = hb.read[:n]
    arrived = hb.arrived[:n]
    sent = hb.sent[:n]
    arrived = np.where(arrived >= 0, arrived, sent + max(1, math.ceil(s.rtt_ms / s.tick_ms)))
    delay = np.where(read >= 0, read - arrived, np.maximum(end - arrived, 0))
    return pd.DataFrame({
        "sent_ms": sent * s.tick_ms,
        "arrived_ms": arrived * s.tick_ms,
        "read_ms": np.where(read >= 0, read * s.tick_ms, -1),
        "delay_ms": delay * s.tick_ms,
    })


def _heartbeat_summary(heartbeats: pd.DataFrame, s: ConsumerScenario) -> dict[str, Any]:
    """The longest heartbeat delay and the coordinator's longest wait between heartbeats."""
    if s.heartbeat_interval_ms == 0 or heartbeats.empty:
        return {"max_heartbeat_delay_ms": 0, "max_heartbeat_gap_ms": 0, "session_expired": False}
    sent = np.append(heartbeats.sent_ms.to_numpy(), s.ticks * s.tick_ms)
    gap = int(np.diff(sent).max()) if len(sent) > 1 else 0
    return {"max_heartbeat_delay_ms": int(heartbeats.delay_ms.max()),
            "max_heartbeat_gap_ms": gap, "session_expired": gap > s.session_timeout_ms}


_FETCH_COLUMNS = {"fetch_id": np.int64, "time_ms": np.int64, "broker": np.int32,
                  "partition": np.int32, "position": np.int32, "lag_bytes": np.int64,
                  "raw_bytes": np.int64, "complete_batches": np.int32,
                  "complete_bytes": np.int64}
_WINDOW_COLUMNS = {"demand_bytes": np.int64, "delivered_bytes": np.int64,
                   "lag_end_bytes": np.int64, "fetches": np.int32, "starved_fetches": np.int32,
                   "max_starvation_streak": np.int32}
_MEMORY_COLUMNS = {"held_bytes": np.int64, "in_flight_bytes": np.int64,
                   "consumed_bytes": np.int64}
_BUFFER_COLUMNS = {"retained_bytes": np.int64, "waiting_bytes": np.int64, "pool_dry": np.bool_}
