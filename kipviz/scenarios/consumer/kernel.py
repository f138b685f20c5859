"""The consumer scenario's kernel: plain loops over numpy arrays that numba compiles.

:func:`consumer_kernel` runs :mod:`kipviz.scenarios.consumer`'s model tick by tick; run as it is,
it is the plain-Python reference, and :func:`compiled_kernel` is the same function compiled by
numba (imported only then) with the mechanisms it calls: :mod:`kipviz.kafka.fetch`'s response,
request and session rules (KIP-74, KIP-227), KIP-81's pool rules (:mod:`kipviz.kafka.broker.pool`)
and the fetch quota's ``throttle_fetch`` (:mod:`kipviz.kafka.quotas.client`).

Each tick: producers append, then the phases of :mod:`kipviz.scenarios.consumer.phases` run in
turn (responses are read, the heartbeat thread sends, the application consumes completed
fetches, brokers answer), and the tick's memory is recorded; the state they share is one named
block built by :func:`new_state`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from kipviz.kafka.broker.pool import pool_out_of_memory
from kipviz.kafka.clients.fetching import client_held_bytes
from kipviz.scenarios.consumer import phases
from kipviz.scenarios.consumer.columns import ConsumerState
from kipviz.scenarios.consumer.phases import (
    FETCH_PTR,
    HEARTBEAT_RESPONSE_BYTES,
    LOG_END,
    N_SCALARS,
    SC_DRAINED,
    SC_HB_ARRIVE,
    SC_HB_N,
    SC_HB_NEXT,
    SC_N_FREE,
    SC_PRODUCED,
    SC_QUEUED,
    SC_RETAINED,
    SC_ROWS,
    SC_WINDOW,
    brokers_answer,
    close_window,
    consume,
    read_responses,
)
from kipviz.scenarios.jit import compiled_functions, compiled_rates, jit_functions

__all__ = ["HEARTBEAT_RESPONSE_BYTES", "compiled_kernel", "consumer_kernel", "new_state"]


def new_state(batches, inputs, settings):  # pragma: no cover - run through consumer_kernel
    """The run's state at t = 0 (see :class:`~kipviz.scenarios.consumer.columns.ConsumerState`)."""
    batch_first, order_start, orders = batches.first, inputs.order_start, inputs.orders
    n_part = batch_first.shape[0]
    n_brokers = order_start.shape[0] - 1
    # a response's slot, from its request until all its parts are consumed: <= one a part + B
    n_slots = n_part + n_brokers
    st = np.zeros((n_part, 8), np.int64)  # one 64-byte row per partition: a fetch's fields
    st[:, FETCH_PTR] = batch_first  # batch at each partition's fetch offset
    part_broker = np.zeros(n_part, np.int64)  # the broker leading each partition
    for b in range(n_brokers):
        for j in range(order_start[b], order_start[b + 1]):
            part_broker[orders[j]] = b
    scalars = np.zeros(N_SCALARS, np.int64)
    scalars[SC_N_FREE] = n_slots
    scalars[SC_HB_ARRIVE] = -1
    scalars[SC_HB_NEXT] = 0 if settings.hb_interval_ticks > 0 else settings.ticks
    return ConsumerState(
        rows=st, end_ptr=batch_first.copy(), part_slot=np.full(n_part, -1, np.int64),
        offset_at_window_start=np.zeros(n_part, np.int64),
        queue=np.zeros(n_part + 1, np.int64), listed=np.zeros(n_part, np.bool_),
        queued_part=np.zeros(n_part, np.int64), arrive=np.full(n_brokers, -1, np.int64),
        parked_since=np.full(n_brokers, -1, np.int64),
        in_flight=np.zeros(n_brokers, np.int64), slot_bytes=np.zeros(n_slots, np.int64),
        slot_parts=np.zeros(n_slots, np.int64),
        free_slots=np.arange(n_slots - 1, -1, -1).astype(np.int64),
        broker_slot=np.full(n_brokers, -1, np.int64), pending=np.zeros(n_brokers + 1, np.int64),
        muted=np.zeros(n_brokers + 1, np.bool_), first=np.zeros(n_part, np.int64),
        logb=np.zeros(n_part, np.int64), lim=np.zeros(n_part, np.int64),
        raw=np.zeros(n_part, np.int64), returned=np.zeros(n_part, np.bool_),
        sent=np.zeros(n_part, np.int64), place=np.zeros(n_part, np.int64),
        sent_n=np.zeros(n_brokers, np.int64), scratch=np.zeros(n_part, np.int64),
        part_broker=part_broker, broker_parts=np.zeros(n_brokers, np.int64),
        fetchable=np.ones(n_part, np.bool_), blocked_until=np.zeros(n_brokers, np.int64),
        scalars=scalars, credit=np.zeros(1, np.float64))


def consumer_kernel(
    batches, inputs, settings, pool, sessions,
    # outputs (throttled: count and total ms of quota-throttled fetches)
    throttled, out_fetches, out_windows, out_memory, out_buffer, out_heartbeats,
):  # pragma: no cover - exercised compiled and uncompiled through simulate()
    """Run the model on ``batches`` (``TimeOrderedBatches``), ``inputs``, ``settings``
    (:mod:`.columns`), KIP-81's pool row (``pool_state``) and the brokers' ``FetchSessions``;
    fills ``throttled`` and the ``out_*`` column blocks. Returns (fetch rows, heartbeats)."""
    batch_size, batch_tick, batch_part = batches.size_bytes, batches.tick, batches.partition
    batch_next, paused = batches.next_batch, inputs.paused
    ticks, n_windows, tick_ms = settings.ticks, settings.n_windows, settings.tick_ms
    rtt_ticks, hb_interval_ticks = settings.rtt_ticks, settings.hb_interval_ticks
    pause_tick, n_batches = settings.pause_tick, batch_size.shape[0]
    state = new_state(batches, inputs, settings)
    st, end_ptr, fetchable, sc = state.rows, state.end_ptr, state.fetchable, state.scalars
    for t in range(ticks):
        now = t * tick_ms
        if t == pause_tick:
            for i in range(paused.shape[0]):
                fetchable[paused[i]] = False
        produced = sc[SC_PRODUCED]
        while produced < n_batches and batch_tick[produced] <= t:  # producers append
            st[batch_part[produced], LOG_END] += batch_size[produced]
            end_ptr[batch_part[produced]] = batch_next[produced]
            produced += 1
        sc[SC_PRODUCED] = produced
        waiting, unhanded = read_responses(t, now, inputs, settings, pool, state, out_heartbeats)
        if sc[SC_HB_ARRIVE] < 0 and t >= sc[SC_HB_NEXT]:  # the heartbeat thread: one in flight
            out_heartbeats.sent[sc[SC_HB_N]] = t
            sc[SC_HB_ARRIVE] = t + rtt_ticks
            sc[SC_HB_NEXT] = t + hb_interval_ticks
        # peak of the tick, responses landed and nothing consumed yet: whole responses held
        # while any of their partitions is buffered, read ones not handed over, the drained one
        out_memory.held_bytes[t] = client_held_bytes(
            sc[SC_RETAINED], sc[SC_QUEUED], settings.whole_response,
            settings.held_per_wire_byte) + unhanded + sc[SC_DRAINED]
        out_buffer.retained_bytes[t] = sc[SC_RETAINED]
        out_buffer.waiting_bytes[t] = waiting
        out_buffer.pool_dry[t] = pool_out_of_memory(pool)
        consumed = consume(now, settings, pool, state)
        brokers_answer(t, now, batches, inputs, settings, sessions, state, throttled,
                       out_fetches, out_windows)
        out_memory.in_flight_bytes[t] = state.in_flight.sum() - unhanded
        out_memory.consumed_bytes[t] = consumed
        if (t + 1) * n_windows // ticks > sc[SC_WINDOW]:  # last tick of this window
            close_window(state, out_windows)
    return sc[SC_ROWS], sc[SC_HB_N]
def _compile() -> dict[str, Any]:
    from kipviz.kafka.clients import fetching
    from kipviz.kafka.fetch import request, response, session
    from kipviz.kafka.quotas import client
    from kipviz.scenarios.broker.kernel import compiled_kernel as broker_compiled

    # each rule over its own module: the fetch quota over kipviz.kafka.quotas.rate's functions,
    # KIP-74's fill with its partition rule, the pool's rules as the broker kernel compiles them,
    # KIP-227's session rules with the move-to-end they call, the other clients' gates
    quota = jit_functions(["fetch_quota_throttle_ms", "throttle_fetch"],
                          {**vars(client), **compiled_rates()})
    fill = jit_functions((*response.FILL_FUNCTIONS, "delayed_fetch_completes"), vars(response),
                         inline=["read_partition", "delayed_fetch_completes"])
    pool = {name: broker_compiled(name) for name in (
        "pool_try_allocate", "pool_release", "pool_out_of_memory")}
    rules = jit_functions(session.SESSION_FUNCTIONS, vars(session),
                          foreign={"next_order": request.next_order})
    clients = jit_functions(fetching.CLIENT_FUNCTIONS, vars(fetching),
                            inline=fetching.CLIENT_FUNCTIONS[:2])
    return jit_functions([*phases.PHASES, "new_state", "consumer_kernel"],
                         {**vars(phases), **globals(), **quota, **pool, **fill, **rules,
                          **clients},
                         foreign={"request_partitions": request.request_partitions})


def compiled_kernel(name: str = "consumer_kernel") -> Any:
    """:func:`consumer_kernel` (or a rule it calls, by name) compiled by numba with every
    mechanism it calls, once per process (:func:`kipviz.scenarios.jit.compiled_functions`: the
    plain functions stay plain)."""
    return compiled_functions(__name__, _compile)[name]
