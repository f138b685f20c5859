"""The consumer kernel's named column blocks: its inputs, settings and output tables.

Numba takes namedtuples of numpy arrays (and of scalars) as arguments, so
:func:`kipviz.scenarios.consumer.kernel.consumer_kernel` gets a few named blocks instead of
dozens of positional arguments; the output blocks' field names are the trace's column names.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

__all__ = ["BufferColumns", "ConsumerInputs", "ConsumerSettings", "ConsumerState", "FetchColumns",
           "HeartbeatColumns", "MemoryColumns", "WindowColumns"]


class ConsumerInputs(NamedTuple):
    """The kernel's input arrays. ``orders[order_start[b]:order_start[b + 1]]``: broker b's
    partitions in the first request's order; ``limits``: each partition's
    ``max.partition.fetch.bytes``; ``paused``: the partitions ``Consumer.pause`` pauses;
    ``random_keys``: the random order's keys, drawn in the scenario and read in turn (one per
    partition of each response); ``quota_slots`` / ``quota_pos``: each broker's client-quota
    ``Rate``."""

    orders: np.ndarray
    order_start: np.ndarray
    limits: np.ndarray
    paused: np.ndarray
    random_keys: np.ndarray
    quota_slots: np.ndarray
    quota_pos: np.ndarray


class ConsumerSettings(NamedTuple):
    """The kernel's scalar settings, in ticks and bytes per tick."""

    response_max_bytes: int
    version: int  # fetch request version
    ordering: int  # the consumer's request order, an Ordering member (not SESSION)
    fetch_sessions: bool  # KIP-227: incremental fetches read in the session's order
    forget_left_out: bool  # partitions left out of a request leave the session
    moves_on_high_watermark: bool  # before 3.0 (KAFKA-12330)
    fetch_min_bytes: int
    max_wait_ticks: int
    rtt_ticks: int
    network_per_tick: float
    consume_per_tick: float
    ticks: int
    n_windows: int
    record_fetches: bool
    coordinator_bypass: bool
    max_in_flight: int
    hb_interval_ticks: int
    tick_ms: int
    skip_buffered_nodes: bool  # Kafka 4.0 on (KAFKA-17182)
    # Java: a partition listed in a response without records is a completed fetch too, queued
    # in response order (AbstractFetch.handleFetchSuccess), so it is not fetched again until
    # the application has passed it (measured on real 3.9.2 and 4.4.0 consumers)
    queue_empty_parts: bool
    # the classic Java consumer (2.4 on, KAFKA-8677): a response read from the socket is handed
    # to the fetch buffer only by a poll() that found nothing buffered (3.9
    # ClassicKafkaConsumer.pollForFetches :671-675; ConsumerNetworkClient.transmitSends
    # :331-343 polls the network without firing completed requests), all of them at once; its
    # broker gets no new request until then, and its bytes count as in flight
    hand_over_when_idle: bool
    # Java: a drained CompletedFetch stays FetchBuffer.nextInLineFetch, its response reachable,
    # until the next collectFetch takes another part (4.4 FetchCollector.java:98-104, 108, 121)
    keeps_drained: bool
    pause_tick: int  # -1: no pause
    quota_bound: float  # consumer_byte_rate (UNLIMITED, math.inf: none)
    quota_empty: bool  # KIP-219: a throttled response is empty
    # the client's own rules (kipviz.kafka.clients.fetching; Java: 0, 0, False, True, 1.0)
    client_gate: int  # GATE_*: which buffered data holds back a new request
    queue_gate_bytes: int  # librdkafka's queued.max.messages.kbytes x 1000 (0: none)
    rotates: bool  # the request starts one partition later each time
    whole_response: bool  # a buffered part pins its whole response
    held_per_wire_byte: float  # decompressed bytes held per wire byte


class FetchColumns(NamedTuple):
    """One row per partition of each answered request (``time_ms`` in ticks here)."""

    fetch_id: np.ndarray
    time_ms: np.ndarray
    broker: np.ndarray
    partition: np.ndarray
    position: np.ndarray
    lag_bytes: np.ndarray
    raw_bytes: np.ndarray
    complete_batches: np.ndarray
    complete_bytes: np.ndarray


class WindowColumns(NamedTuple):
    """Per (window, partition) arrays."""

    demand_bytes: np.ndarray
    delivered_bytes: np.ndarray
    lag_end_bytes: np.ndarray
    fetches: np.ndarray
    starved_fetches: np.ndarray
    max_starvation_streak: np.ndarray


class MemoryColumns(NamedTuple):
    """Per tick: bytes held (whole responses while any of their partitions is buffered), in
    flight and consumed."""

    held_bytes: np.ndarray
    in_flight_bytes: np.ndarray
    consumed_bytes: np.ndarray


class BufferColumns(NamedTuple):
    """Per tick: KIP-81's retained and waiting bytes, and the pool dry."""

    retained_bytes: np.ndarray
    waiting_bytes: np.ndarray
    pool_dry: np.ndarray


class HeartbeatColumns(NamedTuple):
    """Per heartbeat: the ticks it was sent, its response arrived and was read (-1: not)."""

    sent: np.ndarray
    arrived: np.ndarray
    read: np.ndarray


class ConsumerState(NamedTuple):
    """The run's state, shared by the kernel's phases (:mod:`kipviz.scenarios.consumer.kernel`):
    per partition ``rows`` (its ``LOG_END``, ``OFFSET``, ... columns, one 64-byte row a
    partition), per broker and per response slot arrays, ``scalars`` (the kernel's ``SC_*``
    slots: queue ends, bytes buffered, counters) and ``credit`` (the application's banked bytes,
    one float)."""

    rows: np.ndarray
    end_ptr: np.ndarray  # each partition's first batch not yet appended
    part_slot: np.ndarray  # the response slot of each partition's buffered part
    offset_at_window_start: np.ndarray
    queue: np.ndarray  # completed fetches in order (a ring of P + 1)
    listed: np.ndarray  # in the response in flight (listed_in_response)
    queued_part: np.ndarray  # a completed fetch waits (bytes or none)
    arrive: np.ndarray  # per broker: the tick its response arrives (-1: none in flight)
    parked_since: np.ndarray  # per broker: the tick its DelayedFetch began (-1: none)
    in_flight: np.ndarray  # per broker: bytes of its response in flight
    slot_bytes: np.ndarray  # per response slot: its bytes
    slot_parts: np.ndarray  # per response slot: its parts not yet handed over
    free_slots: np.ndarray  # a stack of free response slots
    broker_slot: np.ndarray  # per broker: the slot of its request (-1: none)
    pending: np.ndarray  # this tick's readable responses, earliest first
    muted: np.ndarray  # per channel (brokers, then the coordinator): muted for memory
    first: np.ndarray  # scratch of a response: each listed partition's first batch
    logb: np.ndarray  # scratch: each listed partition's bytes to the log end
    lim: np.ndarray  # scratch: each listed partition's limit
    raw: np.ndarray  # scratch: each listed partition's raw bytes returned
    returned: np.ndarray  # scratch: returned data, by place in the broker's order
    sent: np.ndarray  # each broker's in-flight request, in request order
    place: np.ndarray  # where each of those stands in the broker's order
    sent_n: np.ndarray  # per broker: partitions in its request
    scratch: np.ndarray  # next_order's working space
    part_broker: np.ndarray  # the broker leading each partition
    broker_parts: np.ndarray  # each broker's parts buffered
    fetchable: np.ndarray  # assigned, not paused (Consumer.pause)
    blocked_until: np.ndarray  # KIP-219: no request while throttled
    scalars: np.ndarray
    credit: np.ndarray
