"""The event loop of :mod:`kipviz.scenarios.tiered_fetch`, on numpy arrays, for numba.

One broker serves C consumers. Each consumer sends a fetch, waits for its answer and sends the
next; the earliest send is processed first. A send at ``t``:

1. adds the bytes produced since the last event to every partition's local log;
2. records in the fetch quota's ``SimpleRate`` every remote read done by ``t``
   (``RemoteLogReader`` records after the read), then asks whether the quota is exceeded
   (KIP-956: then every remote partition of the request is returned empty, no error);
3. ``read_from_log`` (:mod:`kipviz.kafka.tiered.fetch`) over the request in order: local partitions'
   bytes now, a ``fetchMaxBytes`` for each remote read it schedules (one before 4.2);
4. each scheduled read goes to the ``remote.log.reader.threads`` pool, first come first served:
   refused at once when ``remote.log.reader.max.pending.tasks`` reads already wait for a thread
   (:func:`kipviz.kafka.tiered.replica.reader_queue_accepts`; a cancelled read waits until its
   thread would have taken it), else it starts when a thread is free, unless that is at or
   after the ``DelayedRemoteFetch``'s expiry (then it is cancelled), and takes
   ``remote_read_latency_ms`` plus its bytes at ``remote_read_bytes_per_ms``;
5. ``delayed_remote_fetch_complete_ms``: the answer, local data included, goes when every read is
   done or at expiry; without remote reads at once, or, with nothing to return, as a
   ``DelayedFetch`` (min.bytes 1, :func:`kipviz.kafka.fetch.response.delayed_fetch_complete_ms`)
   when a local partition has a whole batch or after ``fetch.max.wait.ms``, with the local
   data the logs hold then (``onComplete`` reads them again; remote partitions stay empty);
6. the consumer has it ``rtt_ms`` later and moves the partitions that returned data to the end
   of its order (KIP-74's round robin, :func:`kipviz.kafka.fetch.request.next_order`, the
   consumer kernel's rule); a remote read's whole batches advance its partition.

The quota is :mod:`kipviz.kafka.quotas.rate`'s state arrays and functions (``SimpleRate``, the ones
:class:`kipviz.kafka.tiered.quota.RemoteLogQuota` runs); the fetch rules are
:mod:`kipviz.kafka.tiered.fetch`'s. Run as they are, these functions are
the plain-Python path; :func:`compiled_kernel` gives them compiled by numba.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from kipviz.kafka.fetch import response
from kipviz.kafka.fetch.request import Ordering, next_order
from kipviz.kafka.fetch.response import delayed_fetch_complete_ms
from kipviz.kafka.quotas import rate
from kipviz.kafka.quotas.rate import UNLIMITED, quota_throttle_time_ms, rate_record
from kipviz.kafka.tiered.fetch import (
    LogRead,
    ReadLimits,
    RequestPartitions,
    delayed_remote_fetch_complete_ms,
    read_from_log,
    remote_read_bytes,
)
from kipviz.kafka.tiered.replica import reader_queue_accepts
from kipviz.scenarios.jit import compiled_functions, jit_functions
from kipviz.scenarios.tiered_fetch.columns import (
    CLOCK,
    DELIVERY_ROWS,
    FETCH_ROWS,
    OK,
    OVERFLOW,
    PENDING,
    QUOTA_WINDOW_MS,
    READ_ROWS,
    TieredSettings,
    TieredState,
    TieredTables,
    new_state,
    new_tables,
)

__all__ = ["OK", "OVERFLOW", "UNLIMITED", "TieredSettings", "TieredState", "TieredTables",
           "compiled_kernel", "new_state", "new_tables", "tiered_kernel"]

_ROUND_ROBIN = int(Ordering.ROUND_ROBIN)  # KIP-74's move-to-end, as next_order takes it


def flush_records(pend, n_pend, slots, pos, now):
    """Record, oldest first, the pending remote reads done by ``now`` (``pend`` is kept sorted
    by done time); the count left."""
    m = 0
    while m < n_pend and pend[m, 0] <= now:
        rate_record(slots, pos, QUOTA_WINDOW_MS, pend[m, 1], pend[m, 0])
        m += 1
    for j in range(m, n_pend):
        pend[j - m, 0] = pend[j, 0]
        pend[j - m, 1] = pend[j, 1]
    return n_pend - m


def add_pending(pend, n_pend, done_ms, size):
    """Insert a read to record at ``done_ms`` into the sorted ``pend``; the new count."""
    j = n_pend
    while j > 0 and pend[j - 1, 0] > done_ms:
        pend[j, 0] = pend[j - 1, 0]
        pend[j, 1] = pend[j - 1, 1]
        j -= 1
    pend[j, 0] = done_ms
    pend[j, 1] = size
    return n_pend + 1


def tiered_kernel(cfg, state, out):
    """Run to ``duration_ms`` from ``state`` (:class:`TieredState`, :func:`new_state`) with
    ``cfg`` (:class:`TieredSettings`); fill the tables of ``out`` (:class:`TieredTables`) from
    its ``counts`` (rows used: fetches, reads, deliveries) on; the status: ``OVERFLOW`` when a
    table or ``pend`` is full (nothing of the next fetch done: grow them and call again)."""
    # the blocks' fields as locals, read by name once (numba counts a reference at each read)
    produce_bytes_per_ms, batch_bytes = cfg.produce_bytes_per_ms, cfg.batch_bytes
    segment_bytes, partition_max, fetch_max = cfg.segment_bytes, cfg.partition_max, cfg.fetch_max
    several, charge, threads, max_pending = cfg.several, cfg.charge, cfg.threads, cfg.max_pending
    read_latency_ms, read_bytes_per_ms = cfg.read_latency_ms, cfg.read_bytes_per_ms
    wait_ms, fetch_max_wait_ms, rtt_ms = cfg.wait_ms, cfg.fetch_max_wait_ms, cfg.rtt_ms
    quota_bound, duration_ms = cfg.quota_bound, cfg.duration_ms
    order, n_parts, behind, avail = state.order, state.n_parts, state.behind, state.avail
    next_send, avail_at, thread_free = state.next_send, state.avail_at, state.thread_free
    slots, pos, pend, scalars = state.slots, state.pos, state.pend, state.scalars
    queued = state.queued
    f_consumer, f_sent = out.fetches.consumer, out.fetches.sent_ms
    f_answered, f_local = out.fetches.answered_ms, out.fetches.local_bytes
    f_remote, f_scheduled = out.fetches.remote_bytes, out.fetches.reads_scheduled
    f_served, f_throttled = out.fetches.reads_served, out.fetches.quota_throttled
    r_fetch, r_partition = out.reads.fetch, out.reads.partition
    r_submitted, r_started = out.reads.submitted_ms, out.reads.started_ms
    r_done, r_bytes, r_served = out.reads.done_ms, out.reads.bytes, out.reads.served
    d_fetch, d_partition, d_remote = out.deliveries.fetch, out.deliveries.partition, \
        out.deliveries.remote
    d_bytes, d_lag = out.deliveries.bytes, out.deliveries.lag_bytes
    counts = out.counts
    consumers = order.shape[0]
    width = order.shape[1]
    n_pend = int(scalars[PENDING])
    first = np.full(width, batch_bytes, np.int64)
    log = np.zeros(width, np.int64)
    remote = np.zeros(width, np.bool_)
    thr = np.zeros(width, np.bool_)
    pmax = np.full(width, partition_max, np.int64)
    raw = np.zeros(width, np.int64)
    rmax = np.zeros(width, np.int64)
    min_one = np.zeros(width, np.bool_)
    done = np.zeros(width, np.float64)
    land = np.zeros(width, np.float64)  # a DelayedFetch's local partitions: next whole batch at
    done_at = np.zeros(width, np.float64)  # the request's reads, in order
    ok = np.zeros(width, np.bool_)  # ...and whether each is served
    refused = np.zeros(width, np.bool_)  # ...and whether the reader queue refused it
    read_at = np.zeros(width, np.int64)  # request entry -> its read's place
    got = np.zeros(width, np.int64)
    returned = np.zeros(width, np.bool_)
    moved = np.zeros(width, np.int64)  # next_order's working space
    no_keys = np.zeros(0, np.float64)  # next_order's random keys: none for round robin
    limits = ReadLimits(response_max_bytes=fetch_max, several_remote=several,
                        charge_remote=charge)
    clock = scalars[CLOCK]
    nf, nr, nd = counts[FETCH_ROWS], counts[READ_ROWS], counts[DELIVERY_ROWS]
    status = OK
    while True:
        c = 0
        for k in range(1, consumers):
            if next_send[k] < next_send[c]:
                c = k
        t = next_send[c]
        if t >= duration_ms:
            break
        if nf >= f_consumer.shape[0] or nr + width > r_fetch.shape[0] \
                or nd + width > d_fetch.shape[0] or n_pend + width > pend.shape[0]:
            status = OVERFLOW
            break
        clock = t
        n = n_parts[c]
        for i in range(n):  # produced since the partition was last looked at
            p = order[c, i]
            avail[p] += produce_bytes_per_ms * (t - avail_at[p])
            avail_at[p] = t
        n_pend = flush_records(pend, n_pend, slots, pos, t)
        # ReplicaManager.readFromLog (3.9+): getFetchThrottleTimeMs() > 0; 3.8 asked
        # isRemoteLogFetchQuotaExceeded, which differs only when the throttle rounds to 0
        throttled = quota_throttle_time_ms(slots, pos, QUOTA_WINDOW_MS, quota_bound, t, True) > 0
        for i in range(n):
            p = order[c, i]
            remote[i] = behind[p] > 0
            thr[i] = throttled
            if remote[i]:
                # to the end of its remote segment; the local log starts on a segment boundary
                log[i] = behind[p] % segment_bytes
                if log[i] == 0:
                    log[i] = segment_bytes
            else:
                log[i] = int(avail[p] // batch_bytes) * batch_bytes
        local = read_from_log(
            RequestPartitions(first_batch_bytes=first[:n], log_bytes=log[:n], remote=remote[:n],
                              throttled=thr[:n], partition_max_bytes=pmax[:n]),
            limits, LogRead(raw_bytes=raw[:n], remote_max_bytes=rmax[:n],
                            remote_min_one=min_one[:n]))
        scheduled = 0
        for i in range(n):
            p = order[c, i]
            avail[p] -= (raw[i] // batch_bytes) * batch_bytes
            done[i] = -1.0
            if rmax[i] > 0:
                size = remote_read_bytes(batch_bytes, log[i], rmax[i], min_one[i])
                k = 0
                for j in range(1, threads):
                    if thread_free[j] < thread_free[k]:
                        k = j
                start = max(t, thread_free[k])
                r = nr + scheduled
                r_fetch[r] = nf
                r_partition[r] = p
                r_submitted[r] = t
                r_bytes[r] = size
                waiting = 0  # reads in the queue now; a free place for this one, if it waits
                place = -1
                for q in range(max_pending):
                    if queued[q] > t:
                        waiting += 1
                    elif place < 0:
                        place = q
                refused[scheduled] = not reader_queue_accepts(waiting, max_pending)
                if refused[scheduled]:  # RejectedExecutionException: answered with the error
                    r_started[r] = -1.0
                    done[i] = t
                elif start >= t + wait_ms:
                    r_started[r] = -1.0
                    done[i] = np.inf  # cancelled: never runs, never served
                    if start > t:  # queued until its thread finds it cancelled
                        queued[place] = start
                else:
                    if start > t:  # waits in the queue for its thread
                        queued[place] = start
                    done[i] = start + read_latency_ms + size / read_bytes_per_ms
                    thread_free[k] = done[i]
                    r_started[r] = start
                    if quota_bound != UNLIMITED:  # RemoteLogReader records after the read
                        n_pend = add_pending(pend, n_pend, done[i], size)
                r_done[r] = done[i]
                read_at[i] = scheduled
                done_at[scheduled] = done[i]
                scheduled += 1
        if scheduled > 0:
            answer = delayed_remote_fetch_complete_ms(done_at[:scheduled], t, wait_ms,
                                                      ok[:scheduled])
            for j in range(scheduled):
                if refused[j]:  # an error for the partition, no data
                    ok[j] = False
                r_served[nr + j] = 1.0 if ok[j] else 0.0
        elif local > 0:
            answer = t
        else:  # nothing to return: a DelayedFetch (fetch.min.bytes 1)
            enough_at = np.inf  # when the first whole batch lands on a local partition
            for i in range(n):
                land[i] = np.inf
                if not remote[i] and produce_bytes_per_ms > 0:
                    p = order[c, i]
                    land[i] = t + (batch_bytes - avail[p] % batch_bytes) / produce_bytes_per_ms
                    enough_at = min(enough_at, land[i])
            answer = delayed_fetch_complete_ms(t, fetch_max_wait_ms, enough_at)
            for i in range(n):  # onComplete reads the local logs again, at the answer
                if not remote[i]:
                    p = order[c, i]
                    whole = (avail[p] // batch_bytes + 1) * batch_bytes  # with the next batch
                    avail[p] += produce_bytes_per_ms * (answer - avail_at[p])
                    avail_at[p] = answer
                    if land[i] <= answer:  # it landed: whole, whatever the rounding
                        avail[p] = max(avail[p], whole)
                    log[i] = int(avail[p] // batch_bytes) * batch_bytes
            local = read_from_log(
                RequestPartitions(first_batch_bytes=first[:n], log_bytes=log[:n],
                                  remote=remote[:n], throttled=thr[:n],
                                  partition_max_bytes=pmax[:n]),
                limits, LogRead(raw_bytes=raw[:n], remote_max_bytes=rmax[:n],
                                remote_min_one=min_one[:n]))
            for i in range(n):
                avail[order[c, i]] -= (raw[i] // batch_bytes) * batch_bytes
                rmax[i] = 0  # onComplete drops a remote partition's RemoteStorageFetchInfo
        remote_bytes = 0
        reads_served = 0
        for i in range(n):
            p = order[c, i]
            got[i] = raw[i]
            if rmax[i] > 0 and ok[read_at[i]]:
                size = int(r_bytes[nr + read_at[i]])
                got[i] = size
                remote_bytes += size
                reads_served += 1
                behind[p] = max(0, behind[p] - (size // batch_bytes) * batch_bytes)
            if got[i] > 0:  # a row per partition that returned data
                d_fetch[nd] = nf
                d_partition[nd] = p
                d_remote[nd] = 1.0 if remote[i] else 0.0
                d_bytes[nd] = got[i]
                d_lag[nd] = behind[p] + avail[p]
                nd += 1
        f_consumer[nf] = c
        f_sent[nf] = t
        f_answered[nf] = answer + rtt_ms
        f_local[nf] = local
        f_remote[nf] = remote_bytes
        f_scheduled[nf] = scheduled
        f_served[nf] = reads_served
        any_remote = False
        for i in range(n):
            any_remote = any_remote or remote[i]
        f_throttled[nf] = 1.0 if throttled and any_remote else 0.0  # remote partitions emptied
        nr += scheduled
        nf += 1
        # KIP-74 round robin: partitions that returned data move to the end, in request order
        for i in range(n):
            returned[i] = got[i] > 0
        next_order(order[c, :n], returned[:n], _ROUND_ROBIN, no_keys, moved)
        next_send[c] = answer + rtt_ms
    counts[FETCH_ROWS] = nf  # where a next call goes on
    counts[READ_ROWS] = nr
    counts[DELIVERY_ROWS] = nd
    scalars[CLOCK] = clock
    scalars[PENDING] = n_pend
    return status


_RULES = ("read_from_log", "remote_read_bytes", "delayed_remote_fetch_complete_ms")
_RESPONSE_RULES = ("read_partition", "delayed_fetch_complete_ms")
_FUNCTIONS = ("flush_records", "add_pending", "tiered_kernel")


def _compile() -> dict[str, Any]:
    from kipviz.kafka.tiered import fetch

    # kipviz.kafka.quotas.rate's functions compiled to be inlined here, not compiled_rates'
    # shared ones: a call to a compiled function increfs and decrefs the slots and pos it passes
    # (atomically), once per request and per recorded read (kip405 ~10% slower otherwise)
    rates = jit_functions(rate.RATE_FUNCTIONS, vars(rate), inline=rate.RATE_FUNCTIONS)
    # the fetch rules over their own module, read_from_log's local partitions with KIP-74's
    # read_partition compiled as the consumer kernel compiles it
    fill = jit_functions(_RESPONSE_RULES, vars(response), inline=_RESPONSE_RULES)
    rules = jit_functions(_RULES, {**vars(fetch), **fill})
    return jit_functions(_FUNCTIONS, {**globals(), **rates, **rules, **fill},
                         foreign={"next_order": next_order,
                                  "reader_queue_accepts": reader_queue_accepts},
                         inline=("flush_records", "add_pending"))


def compiled_kernel(name: str = "tiered_kernel") -> Any:
    """``tiered_kernel`` (or a function it calls, by name) compiled by numba with
    :mod:`kipviz.kafka.quotas.rate`'s functions and the fetch rules, once per process
    (:func:`kipviz.scenarios.jit.compiled_functions`: the plain functions stay plain)."""
    return compiled_functions(__name__, _compile)[name]
