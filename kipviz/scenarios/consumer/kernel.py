"""The consumer scenario's kernel: plain loops over numpy arrays that numba compiles.

:func:`consumer_kernel` runs :mod:`kipviz.scenarios.consumer`'s model tick by tick; run as it is,
it is the plain-Python reference, and :func:`compiled_kernel` is the same function compiled by
numba (imported only then) with the mechanisms it calls: :mod:`kipviz.kafka.fetch`'s response,
request and session rules (KIP-74, KIP-227), KIP-81's pool rules (:mod:`kipviz.kafka.broker.pool`)
and the fetch quota's ``throttle_fetch`` (:mod:`kipviz.kafka.quotas.client`).

Each tick: responses that reached the consumer are read (earliest first; a KIP-81 pool may leave
them in the socket, Java's classic consumer hands them over only when nothing is buffered), the
heartbeat thread sends, the application consumes completed fetches, and brokers answer.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from kipviz.kafka.broker.pool import pool_out_of_memory, pool_release, pool_try_allocate
from kipviz.kafka.clients.fetching import client_held_bytes, client_may_fetch, rotate_by_one
from kipviz.kafka.fetch.request import Ordering, next_order, request_partitions
from kipviz.kafka.fetch.response import delayed_fetch_completes, fill_raw_bytes
from kipviz.kafka.fetch.session import (
    close_response,
    listed_in_response,
    open_request,
    session_moves,
)
from kipviz.kafka.quotas.client import throttle_fetch
from kipviz.scenarios.jit import compiled_functions, compiled_rates, jit_functions

__all__ = ["HEARTBEAT_RESPONSE_BYTES", "compiled_kernel", "consumer_kernel"]

# Columns of the per-partition state rows. PART_RAW / PART_LEFT: the partition's part of a response,
# raw and whole-batch bytes not yet consumed, from the broker's answer (in flight) until consumed
# (buffered); FETCHES and STARVED count this window's fetches.
LOG_END, OFFSET, FETCH_PTR, PART_RAW, PART_LEFT, STREAK, FETCHES, STARVED = range(8)
HEARTBEAT_RESPONSE_BYTES = 16  # a v4 HeartbeatResponse: size, correlation id, throttle, error


def consumer_kernel(
    batches, inputs, settings, pool, sessions,
    # outputs (throttled: count and total ms of quota-throttled fetches)
    throttled, out_fetches, out_windows, out_memory, out_buffer, out_heartbeats,
):  # pragma: no cover - exercised compiled and uncompiled through simulate()
    """Run the model on ``batches`` (``TimeOrderedBatches``), ``inputs``, ``settings``
    (:mod:`.columns`), KIP-81's pool row (``pool_state``) and the brokers' ``FetchSessions``;
    fills ``throttled`` and the ``out_*`` column blocks. Returns (fetch rows, heartbeats)."""
    # the blocks' fields as locals, read by name once
    batch_size, batch_tick, batch_part = batches.size_bytes, batches.tick, batches.partition
    batch_next, batch_first = batches.next_batch, batches.first
    orders, order_start, limits = inputs.orders, inputs.order_start, inputs.limits
    paused, random_keys = inputs.paused, inputs.random_keys
    q_slots, q_pos = inputs.quota_slots, inputs.quota_pos
    response_max_bytes, version = settings.response_max_bytes, settings.version
    ordering, fetch_min_bytes = settings.ordering, settings.fetch_min_bytes
    max_wait_ticks, rtt_ticks = settings.max_wait_ticks, settings.rtt_ticks
    network_per_tick, consume_per_tick = settings.network_per_tick, settings.consume_per_tick
    ticks, n_windows, tick_ms = settings.ticks, settings.n_windows, settings.tick_ms
    record_fetches, coordinator_bypass = settings.record_fetches, settings.coordinator_bypass
    max_in_flight, hb_interval_ticks = settings.max_in_flight, settings.hb_interval_ticks
    skip_buffered_nodes, pause_tick = settings.skip_buffered_nodes, settings.pause_tick
    queue_empty_parts, keeps_drained = settings.queue_empty_parts, settings.keeps_drained
    hand_over_when_idle, quota_bound = settings.hand_over_when_idle, settings.quota_bound
    fetch_sessions, forget_left_out = settings.fetch_sessions, settings.forget_left_out
    moves_on_hw, client_gate = settings.moves_on_high_watermark, settings.client_gate
    queue_gate_bytes, quota_empty = settings.queue_gate_bytes, settings.quota_empty
    rotates, whole_response, per_wire = (settings.rotates, settings.whole_response,
                                         settings.held_per_wire_byte)
    f_id, f_time, f_broker = out_fetches.fetch_id, out_fetches.time_ms, out_fetches.broker
    f_part, f_pos, f_lag = out_fetches.partition, out_fetches.position, out_fetches.lag_bytes
    f_raw, f_batches = out_fetches.raw_bytes, out_fetches.complete_batches
    f_complete = out_fetches.complete_bytes
    w_demand, w_delivered = out_windows.demand_bytes, out_windows.delivered_bytes
    w_lag_end, w_fetches = out_windows.lag_end_bytes, out_windows.fetches
    w_starved, w_streak = out_windows.starved_fetches, out_windows.max_starvation_streak
    m_held, m_in_flight, m_consumed = (out_memory.held_bytes, out_memory.in_flight_bytes,
                                       out_memory.consumed_bytes)
    b_retained, b_waiting = out_buffer.retained_bytes, out_buffer.waiting_bytes
    b_dry, hb_sent, hb_arrived = out_buffer.pool_dry, out_heartbeats.sent, out_heartbeats.arrived
    hb_read, n_part, n_batches = out_heartbeats.read, batch_first.shape[0], batch_size.shape[0]
    n_brokers = order_start.shape[0] - 1
    produced = 0  # batches are in append order: those before this index are in the logs
    # one 64-byte row per partition: the fields a fetch touches share a cache line
    st = np.zeros((n_part, 8), np.int64)
    st[:, FETCH_PTR] = batch_first  # batch at each partition's fetch offset
    end_ptr = batch_first.copy()  # each partition's first batch not yet appended
    part_slot = np.full(n_part, -1, np.int64)
    offset_at_window_start = np.zeros(n_part, np.int64)
    queue = np.zeros(n_part + 1, np.int64)
    listed = np.zeros(n_part, np.bool_)  # in the response in flight (listed_in_response)
    queued_part = np.zeros(n_part, np.int64)  # a completed fetch waits (bytes or none)
    # drained: bytes of the drained response still next in line (Java); aside: paused parts
    head = tail = drained = aside = 0
    arrive = np.full(n_brokers, -1, np.int64)
    parked_since = np.full(n_brokers, -1, np.int64)
    in_flight = np.zeros(n_brokers, np.int64)
    # a response's slot, from its request until all its parts are consumed: <= one a part + B
    n_slots = n_part + n_brokers
    slot_bytes = np.zeros(n_slots, np.int64)
    slot_parts = np.zeros(n_slots, np.int64)
    free_slots = np.arange(n_slots - 1, -1, -1).astype(np.int64)
    n_free = n_slots
    broker_slot = np.full(n_brokers, -1, np.int64)
    pending = np.zeros(n_brokers + 1, np.int64)
    muted = np.zeros(n_brokers + 1, np.bool_)
    first, logb = np.zeros(n_part, np.int64), np.zeros(n_part, np.int64)
    lim, raw = np.zeros(n_part, np.int64), np.zeros(n_part, np.int64)
    returned = np.zeros(n_part, np.bool_)
    sent = np.zeros(n_part, np.int64)  # each broker's in-flight request, in request order
    place = np.zeros(n_part, np.int64)  # where each of those stands in the broker's order
    sent_n = np.zeros(n_brokers, np.int64)
    scratch = np.zeros(n_part, np.int64)  # next_order's working space
    next_key = 0  # the next of random_keys
    retained = rows = fetch_id = window = hb_n = 0
    queued = queued_parts = 0  # wire bytes and parts buffered, not yet consumed
    part_broker = np.zeros(n_part, np.int64)  # the broker leading each partition
    for b in range(n_brokers):
        for j in range(order_start[b], order_start[b + 1]):
            part_broker[orders[j]] = b
    broker_parts = np.zeros(n_brokers, np.int64)  # each broker's parts buffered
    credit = 0.0
    hb_arrive = -1
    hb_next = 0 if hb_interval_ticks > 0 else ticks
    first_broker = 0  # with a cap on fetches, brokers take turns to send
    fetchable = np.ones(n_part, np.bool_)  # assigned, not paused (Consumer.pause)
    blocked_until = np.zeros(n_brokers, np.int64)  # KIP-219: no request while throttled
    for t in range(ticks):
        now = t * tick_ms
        if t == pause_tick:
            for i in range(paused.shape[0]):
                fetchable[paused[i]] = False
        while produced < n_batches and batch_tick[produced] <= t:  # producers append
            st[batch_part[produced], LOG_END] += batch_size[produced]
            end_ptr[batch_part[produced]] = batch_next[produced]
            produced += 1
        # Responses in the consumer's sockets, earliest first (the heartbeat's is n_brokers).
        n_pending = 0
        for b in range(n_brokers + 1):
            at = hb_arrive if b == n_brokers else arrive[b]
            if 0 <= at <= t:
                key = at * (n_brokers + 1) + b
                i = n_pending
                while i > 0 and pending[i - 1] > key:
                    pending[i] = pending[i - 1]
                    i -= 1
                pending[i] = key
                n_pending += 1
        waiting = 0
        busy = hand_over_when_idle and head != tail  # one poll hands all or none (columns.py)
        unhanded = 0  # read from the socket, not handed over: received, held, no longer in flight
        for i in range(n_pending):
            b = pending[i] % (n_brokers + 1)
            if busy and b < n_brokers:
                unhanded += in_flight[b]
                continue
            # Selector: a channel muted for memory is not read again until the pool has memory
            if muted[b] and pool_out_of_memory(pool):
                waiting += in_flight[b] if b < n_brokers else 0
                continue
            muted[b] = False
            if b == n_brokers:  # the coordinator's heartbeat response
                if coordinator_bypass or pool_try_allocate(pool, HEARTBEAT_RESPONSE_BYTES, now):
                    if not coordinator_bypass:
                        pool_release(pool, HEARTBEAT_RESPONSE_BYTES, now)  # parsed at once
                    hb_arrived[hb_n] = hb_arrive
                    hb_read[hb_n] = t
                    hb_n += 1
                    hb_arrive = -1
                else:
                    muted[b] = True
                continue
            total = in_flight[b]
            if total > 0:
                granted = pool_try_allocate(pool, total, now)
            else:
                granted = not pool_out_of_memory(pool)
            if not granted:  # left in the socket until the pool has room
                muted[b] = True
                waiting += total
                continue
            s = broker_slot[b]
            for j in range(order_start[b], order_start[b] + sent_n[b]):
                # each part with bytes is queued, and for Java each listed one (columns.py); a
                # request lists only partitions with nothing queued (entries free to overwrite)
                p = sent[j]
                has = 1 if st[p, PART_RAW] > 0 or (queue_empty_parts and listed[p]) else 0
                queued_part[p] = has
                part_slot[p] = s
                slot_parts[s] += has
                queued += st[p, PART_RAW]
                queued_parts += has
                broker_parts[b] += has
                queue[tail] = p
                tail += has
                if tail == queue.shape[0]:
                    tail = 0
            retained += total
            slot_bytes[s] = total
            if slot_parts[s] == 0:  # nothing to hand over: the slot is free at once
                free_slots[n_free] = s
                n_free += 1
            broker_slot[b] = -1
            in_flight[b] = 0
            arrive[b] = -1
        if hb_arrive < 0 and t >= hb_next:  # the heartbeat thread: one heartbeat in flight
            hb_sent[hb_n] = t
            hb_arrive = t + rtt_ticks
            hb_next = t + hb_interval_ticks
        # peak of the tick, responses landed and nothing consumed yet: whole responses held
        # while any of their partitions is buffered, read ones not handed over, the drained one
        m_held[t] = client_held_bytes(retained, queued, whole_response, per_wire) + unhanded \
            + drained
        b_retained[t] = retained
        b_waiting[t] = waiting
        b_dry[t] = pool_out_of_memory(pool)
        credit += consume_per_tick  # the application consumes completed fetches in order
        consumed = 0
        while head != tail:
            p = queue[head]
            if not fetchable[p]:  # FetchCollector sets a paused partition's data aside, kept
                head = head + 1 if head + 1 < queue.shape[0] else 0
                aside += 1
                continue
            drained = 0  # collectFetch takes the next part: the drained one is let go
            if st[p, PART_LEFT] > credit:
                take = int(credit)
                st[p, PART_LEFT] -= take
                consumed += take
                credit -= take
                break
            credit -= st[p, PART_LEFT]
            consumed += st[p, PART_LEFT]
            queued -= st[p, PART_RAW]
            queued_part[p] = 0
            queued_parts -= 1
            broker_parts[part_broker[p]] -= 1
            st[p, PART_RAW] = 0
            st[p, PART_LEFT] = 0
            head = head + 1 if head + 1 < queue.shape[0] else 0
            s = part_slot[p]  # the last of a response's parts handed over releases it
            slot_parts[s] -= 1
            if slot_parts[s] == 0:
                pool_release(pool, slot_bytes[s], now)
                retained -= slot_bytes[s]
                if keeps_drained:
                    drained = slot_bytes[s]
                free_slots[n_free] = s
                n_free += 1
        if aside > 0:  # a paused part passes through nextInLineFetch at every poll and leaves
            drained = 0  # it null (FetchCollector.java:125-130, 4.4): the drained one goes
        if head == tail:
            credit = 0.0  # an idle application banks no time
        start = first_broker  # this tick's turn order; a send moves the next tick's start
        for k in range(n_brokers):  # brokers answer requests (new or parked)
            b = (start + k) % n_brokers
            if arrive[b] >= 0:
                continue
            lo = order_start[b]
            if parked_since[b] < 0:  # a new request: the fetchable partitions, in order
                if t < blocked_until[b] or n_slots - n_free >= max_in_flight:
                    continue  # throttled, or the rejected alternative's cap
                if not client_may_fetch(client_gate, broker_parts[b], queued_parts, queued,
                                        per_wire, queue_gate_bytes):
                    continue  # the client's own gate (kipviz.kafka.clients.fetching)
                n = request_partitions(orders[lo : order_start[b + 1]], queued_part,
                                       fetchable, skip_buffered_nodes, sent[lo:], place[lo:])
                sent_n[b] = n
                if n > 0:
                    n_free -= 1
                    broker_slot[b] = free_slots[n_free]
                    if max_in_flight < n_slots:
                        first_broker = (b + 1) % n_brokers
                    if fetch_sessions:  # KIP-227: the broker reads in its session's order
                        open_request(sessions, b, sent[lo:], place[lo:], n, forget_left_out)
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
            if total < fetch_min_bytes and parked_since[b] < 0:
                parked_since[b] = t  # a DelayedFetch: re-read each tick until it completes
            waited = t - parked_since[b] if parked_since[b] >= 0 else 0
            if not delayed_fetch_completes(total, fetch_min_bytes, waited, max_wait_ticks):
                continue
            parked_since[b] = -1
            throttle_ticks = 0
            emptied = False
            if quota_bound > 0:  # the broker records the response against consumer_byte_rate
                throttle_ticks = throttle_fetch(q_slots[b], q_pos[b], quota_bound, raw[:n],
                                                total, now, quota_empty, tick_ms, throttled)
                if throttle_ticks > 0 and quota_empty:
                    total = 0
                    emptied = True
            returned[: order_start[b + 1] - lo] = False
            for i in range(n):
                p = sent[lo + i]
                r = raw[i]
                k = st[p, FETCH_PTR]
                got = 0
                whole = 0
                if r == logb[i] and not record_fetches:  # all to the log end: whole batches
                    got = r
                    k = end_ptr[p]
                else:
                    while k < produced and got + batch_size[k] <= r:
                        got += batch_size[k]
                        k = batch_next[k]
                        whole += 1
                if record_fetches:
                    f_id[rows], f_time[rows], f_broker[rows], f_part[rows] = fetch_id, t, b, p
                    f_pos[rows], f_lag[rows], f_raw[rows] = i, logb[i], r
                    f_batches[rows], f_complete[rows] = whole, got
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
                returned[place[lo + i]] = r > 0  # KIP-74's move-to-end (round-robin)
                listed[p] = not emptied and listed_in_response(  # KIP-219: throttled lists none
                    sessions.full[b], sessions.high_watermark[p], r, st[p, LOG_END],
                    fetch_sessions)
                if fetch_sessions and not emptied:
                    session_moves(sessions, b, p, r, st[p, LOG_END], moves_on_hw)
            served = order_start[b + 1] - lo
            keys = random_keys[:0]
            if ordering == Ordering.RANDOM:
                keys = random_keys[next_key : next_key + served]
                next_key += served
            next_order(orders[lo : order_start[b + 1]], returned[:served], ordering, keys,
                       scratch)
            if rotates:  # librdkafka, franz-go: the next request starts one partition later
                rotate_by_one(orders[lo : order_start[b + 1]])
            if fetch_sessions:
                close_response(sessions, b, emptied, returned, scratch)
            in_flight[b] = total
            arrive[b] = t + rtt_ticks + int(total / network_per_tick)  # round trip + transfer
            if quota_empty:
                blocked_until[b] = arrive[b] + throttle_ticks
            else:  # before KIP-219 the broker held the response for the throttle time
                arrive[b] += throttle_ticks
            fetch_id += 1
        m_in_flight[t] = in_flight.sum() - unhanded
        m_consumed[t] = consumed
        if (t + 1) * n_windows // ticks > window:  # last tick of this window
            for p in range(n_part):
                w_demand[window, p] = st[p, LOG_END] - offset_at_window_start[p]
                w_delivered[window, p] = st[p, OFFSET] - offset_at_window_start[p]
                w_lag_end[window, p] = st[p, LOG_END] - st[p, OFFSET]
                w_fetches[window, p], w_starved[window, p] = st[p, FETCHES], st[p, STARVED]
                st[p, FETCHES] = st[p, STARVED] = 0
                if st[p, STREAK] > w_streak[window, p]:
                    w_streak[window, p] = st[p, STREAK]
                offset_at_window_start[p] = st[p, OFFSET]
            window += 1
    return rows, hb_n


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
    return jit_functions(["consumer_kernel"],
                         {**globals(), **quota, **pool, **fill, **rules, **clients},
                         foreign={"request_partitions": request.request_partitions})


def compiled_kernel(name: str = "consumer_kernel") -> Any:
    """:func:`consumer_kernel` (or a rule it calls, by name) compiled by numba with every
    mechanism it calls, once per process (:func:`kipviz.scenarios.jit.compiled_functions`: the
    plain functions stay plain)."""
    return compiled_functions(__name__, _compile)[name]
