"""The consumer kernel's phases, each a plain function numba compiles with the kernel.

:func:`~kipviz.scenarios.consumer.kernel.consumer_kernel` calls them in this order each tick
(after producers append): :func:`read_responses` reads the responses that reached the consumer
(earliest first; a KIP-81 pool may leave them in the socket, Java's classic consumer hands them
over only when nothing is buffered); the heartbeat thread sends; :func:`consume`: the application
consumes completed fetches; :func:`brokers_answer`: brokers answer requests, new or parked; the
last tick of a window closes it (:func:`close_window`). They share the run's state as one named
block (:class:`~kipviz.scenarios.consumer.columns.ConsumerState`), its scalars in a row named by
the ``SC_*`` slots below; each phase reads the scalars it needs once and writes them back.
"""

from __future__ import annotations

from kipviz.kafka.broker.pool import pool_out_of_memory, pool_release, pool_try_allocate
from kipviz.kafka.clients.fetching import client_may_fetch, rotate_by_one
from kipviz.kafka.fetch.request import Ordering, next_order, request_partitions
from kipviz.kafka.fetch.response import delayed_fetch_completes, fill_raw_bytes
from kipviz.kafka.fetch.session import (
    close_response,
    listed_in_response,
    open_request,
    session_moves,
)
from kipviz.kafka.quotas.client import throttle_fetch
from kipviz.kafka.quotas.rate import UNLIMITED

__all__ = ["HEARTBEAT_RESPONSE_BYTES", "PHASES", "brokers_answer", "close_window", "consume",
           "read_responses"]

# Columns of the per-partition state rows. PART_RAW / PART_LEFT: the partition's part of a response,
# raw and whole-batch bytes not yet consumed, from the broker's answer (in flight) until consumed
# (buffered); FETCHES and STARVED count this window's fetches.
LOG_END, OFFSET, FETCH_PTR, PART_RAW, PART_LEFT, STREAK, FETCHES, STARVED = range(8)
# Slots of the scalar row. PRODUCED: batches before this index are in the logs (append order);
# HEAD / TAIL: the completed-fetch queue; DRAINED: bytes of the drained response still next in
# line (Java); ASIDE: paused parts set aside; QUEUED / QUEUED_PARTS: wire bytes and parts
# buffered, not yet consumed; N_FREE: free response slots; FIRST_BROKER: with a cap on fetches,
# brokers take turns to send; NEXT_KEY: the next of random_keys.
(SC_PRODUCED, SC_HEAD, SC_TAIL, SC_DRAINED, SC_ASIDE, SC_RETAINED, SC_QUEUED, SC_QUEUED_PARTS,
 SC_N_FREE, SC_HB_ARRIVE, SC_HB_NEXT, SC_HB_N, SC_ROWS, SC_FETCH_ID, SC_WINDOW, SC_NEXT_KEY,
 SC_FIRST_BROKER) = range(17)
N_SCALARS = 17
HEARTBEAT_RESPONSE_BYTES = 16  # a v4 HeartbeatResponse: size, correlation id, throttle, error


PHASES = ("read_responses", "consume", "brokers_answer", "close_window")  # compiled with the kernel


def read_responses(t, now, inputs, settings, pool, state, out_heartbeats
                   ):  # pragma: no cover - run through consumer_kernel
    """Read the responses in the consumer's sockets, earliest first (the heartbeat's is
    ``n_brokers``): each part with bytes is queued as a completed fetch. Returns (bytes left in
    the socket for want of pool memory, bytes read but not handed over)."""
    order_start = inputs.order_start
    hand_over_when_idle, coordinator_bypass = (settings.hand_over_when_idle,
                                               settings.coordinator_bypass)
    queue_empty_parts = settings.queue_empty_parts
    st, arrive, pending, in_flight, muted = (state.rows, state.arrive, state.pending,
                                             state.in_flight, state.muted)
    broker_slot, sent_n, sent, listed = state.broker_slot, state.sent_n, state.sent, state.listed
    queued_part, part_slot, slot_parts = state.queued_part, state.part_slot, state.slot_parts
    broker_parts, queue, slot_bytes = state.broker_parts, state.queue, state.slot_bytes
    free_slots, sc = state.free_slots, state.scalars
    hb_arrived, hb_read = out_heartbeats.arrived, out_heartbeats.read
    head, tail, retained = sc[SC_HEAD], sc[SC_TAIL], sc[SC_RETAINED]
    queued, queued_parts, n_free = sc[SC_QUEUED], sc[SC_QUEUED_PARTS], sc[SC_N_FREE]
    hb_arrive, hb_n = sc[SC_HB_ARRIVE], sc[SC_HB_N]
    n_brokers = order_start.shape[0] - 1
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
        granted = pool_try_allocate(pool, total, now) if total > 0 else not pool_out_of_memory(pool)
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
    sc[SC_TAIL], sc[SC_RETAINED], sc[SC_QUEUED] = tail, retained, queued
    sc[SC_QUEUED_PARTS], sc[SC_N_FREE] = queued_parts, n_free
    sc[SC_HB_ARRIVE], sc[SC_HB_N] = hb_arrive, hb_n
    return waiting, unhanded


def consume(now, settings, pool, state):  # pragma: no cover - run through consumer_kernel
    """The application consumes completed fetches in order at ``consume_per_tick``; the last
    part of a response handed over releases it. Returns the bytes consumed."""
    keeps_drained = settings.keeps_drained
    st, queue, fetchable, queued_part = state.rows, state.queue, state.fetchable, \
        state.queued_part
    broker_parts, part_broker, part_slot = state.broker_parts, state.part_broker, state.part_slot
    slot_parts, slot_bytes, free_slots = state.slot_parts, state.slot_bytes, state.free_slots
    sc = state.scalars
    head, tail, drained, aside = sc[SC_HEAD], sc[SC_TAIL], sc[SC_DRAINED], sc[SC_ASIDE]
    retained, queued, queued_parts = sc[SC_RETAINED], sc[SC_QUEUED], sc[SC_QUEUED_PARTS]
    n_free = sc[SC_N_FREE]
    credit = state.credit[0] + settings.consume_per_tick
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
    state.credit[0] = credit
    sc[SC_HEAD], sc[SC_DRAINED], sc[SC_ASIDE], sc[SC_RETAINED] = head, drained, aside, retained
    sc[SC_QUEUED], sc[SC_QUEUED_PARTS], sc[SC_N_FREE] = queued, queued_parts, n_free
    return consumed


def brokers_answer(t, now, batches, inputs, settings, sessions, state, throttled, out_fetches,
                   out_windows):  # pragma: no cover - run through consumer_kernel
    """Brokers answer requests, new or parked (``DelayedFetch``), in this tick's turn order:
    a new request lists the fetchable partitions in order; the response is filled under KIP-74's
    limits, recorded against the fetch quota, and set in flight (round trip + transfer)."""
    batch_size, batch_next = batches.size_bytes, batches.next_batch
    orders, order_start, limits = inputs.orders, inputs.order_start, inputs.limits
    random_keys, q_slots, q_pos = inputs.random_keys, inputs.quota_slots, inputs.quota_pos
    response_max_bytes, version = settings.response_max_bytes, settings.version
    ordering, fetch_min_bytes = settings.ordering, settings.fetch_min_bytes
    max_wait_ticks, rtt_ticks = settings.max_wait_ticks, settings.rtt_ticks
    network_per_tick, tick_ms = settings.network_per_tick, settings.tick_ms
    record_fetches, max_in_flight = settings.record_fetches, settings.max_in_flight
    skip_buffered_nodes, quota_bound = settings.skip_buffered_nodes, settings.quota_bound
    fetch_sessions, forget_left_out = settings.fetch_sessions, settings.forget_left_out
    moves_on_hw, client_gate = settings.moves_on_high_watermark, settings.client_gate
    queue_gate_bytes, quota_empty = settings.queue_gate_bytes, settings.quota_empty
    rotates, per_wire = settings.rotates, settings.held_per_wire_byte
    f_id, f_time, f_broker = out_fetches.fetch_id, out_fetches.time_ms, out_fetches.broker
    f_part, f_pos, f_lag = out_fetches.partition, out_fetches.position, out_fetches.lag_bytes
    f_raw, f_batches = out_fetches.raw_bytes, out_fetches.complete_batches
    f_complete, w_streak = out_fetches.complete_bytes, out_windows.max_starvation_streak
    st, end_ptr, arrive, parked_since = state.rows, state.end_ptr, state.arrive, \
        state.parked_since
    in_flight, free_slots, broker_slot = state.in_flight, state.free_slots, state.broker_slot
    queued_part, fetchable, sent, place = state.queued_part, state.fetchable, state.sent, \
        state.place
    sent_n, first, logb, lim, raw = state.sent_n, state.first, state.logb, state.lim, state.raw
    returned, listed, scratch = state.returned, state.listed, state.scratch
    broker_parts, blocked_until, sc = state.broker_parts, state.blocked_until, state.scalars
    produced, queued, queued_parts = sc[SC_PRODUCED], sc[SC_QUEUED], sc[SC_QUEUED_PARTS]
    n_free, first_broker, rows = sc[SC_N_FREE], sc[SC_FIRST_BROKER], sc[SC_ROWS]
    fetch_id, window, next_key = sc[SC_FETCH_ID], sc[SC_WINDOW], sc[SC_NEXT_KEY]
    n_brokers = order_start.shape[0] - 1
    n_slots = free_slots.shape[0]
    start = first_broker  # this tick's turn order; a send moves the next tick's start
    for k in range(n_brokers):
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
        if quota_bound != UNLIMITED:  # the broker records the response against the quota
            throttle_ticks = throttle_fetch(q_slots[b], q_pos[b], quota_bound, raw[:n],
                                            total, now, quota_empty, tick_ms, throttled)
            if throttle_ticks > 0 and quota_empty:
                total = 0
                emptied = True
        returned[: order_start[b + 1] - lo] = False
        for i in range(n):
            p = sent[lo + i]
            r = raw[i]
            k2 = st[p, FETCH_PTR]
            got = 0
            whole = 0
            if r == logb[i] and not record_fetches:  # all to the log end: whole batches
                got = r
                k2 = end_ptr[p]
            else:
                while k2 < produced and got + batch_size[k2] <= r:
                    got += batch_size[k2]
                    k2 = batch_next[k2]
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
            st[p, FETCH_PTR] = k2
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
    sc[SC_N_FREE], sc[SC_FIRST_BROKER], sc[SC_ROWS] = n_free, first_broker, rows
    sc[SC_FETCH_ID], sc[SC_NEXT_KEY] = fetch_id, next_key


def close_window(state, out_windows):  # pragma: no cover - run through consumer_kernel
    """The last tick of a window: each partition's demand, deliveries, lag, fetches and
    starvation in it."""
    st, start, sc = state.rows, state.offset_at_window_start, state.scalars
    window = sc[SC_WINDOW]
    w_streak = out_windows.max_starvation_streak
    for p in range(st.shape[0]):
        out_windows.demand_bytes[window, p] = st[p, LOG_END] - start[p]
        out_windows.delivered_bytes[window, p] = st[p, OFFSET] - start[p]
        out_windows.lag_end_bytes[window, p] = st[p, LOG_END] - st[p, OFFSET]
        out_windows.fetches[window, p] = st[p, FETCHES]
        out_windows.starved_fetches[window, p] = st[p, STARVED]
        st[p, FETCHES] = st[p, STARVED] = 0
        if st[p, STREAK] > w_streak[window, p]:
            w_streak[window, p] = st[p, STREAK]
        start[p] = st[p, OFFSET]
    sc[SC_WINDOW] = window + 1
