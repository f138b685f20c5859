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
   it starts when a thread is free, unless that is at or after the ``DelayedRemoteFetch``'s
   expiry (then it is cancelled), and takes ``remote_read_latency_ms`` plus its bytes at
   ``remote_read_bytes_per_ms``;
5. ``delayed_remote_fetch_complete_ms``: the answer, local data included, goes when every read is
   done or at expiry; without remote reads at once, or, with nothing to return, after
   ``fetch.max.wait.ms`` or when a partition has a whole batch (``DelayedFetch``, min.bytes 1);
6. the consumer has it ``rtt_ms`` later and moves the partitions that returned data to the end
   of its order (KIP-74's round robin); a remote read's whole batches advance its partition.

The quota is :mod:`kipviz.kafka.quotas.rate`'s state arrays and functions (``SimpleRate``, the ones
:class:`kipviz.kafka.tiered.quota.RemoteLogQuota` runs); the fetch rules are
:mod:`kipviz.kafka.tiered.fetch`'s. Run as they are, these functions are
the plain-Python path; :func:`compiled` gives them compiled by numba.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from kipviz.kafka.fetch import response
from kipviz.kafka.quotas import rate
from kipviz.kafka.quotas.rate import UNLIMITED, quota_throttle_time_ms, rate_record
from kipviz.kafka.tiered.fetch import (
    delayed_remote_fetch_complete_ms,
    read_from_log,
    remote_read_bytes,
)
from kipviz.scenarios.jit import jit_functions
from kipviz.scenarios.tiered_fetch.columns import (
    DELIVERY_COLUMNS,
    FETCH_COLUMNS,
    OK,
    OVERFLOW,
    QUOTA_WINDOW_MS,
    READ_COLUMNS,
    TieredSettings,
    TieredState,
    TieredTables,
    new_state,
)

__all__ = ["DELIVERY_COLUMNS", "FETCH_COLUMNS", "OK", "OVERFLOW", "READ_COLUMNS", "UNLIMITED",
           "TieredSettings", "TieredState", "TieredTables", "compiled", "new_state",
           "tiered_kernel"]


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
    # the blocks' fields as locals, read once (numba counts a reference at each field read)
    (produce_bytes_per_ms, batch_bytes, segment_bytes, partition_max, fetch_max, several,
     charge, threads, read_latency_ms, read_bytes_per_ms, wait_ms, fetch_max_wait_ms, rtt_ms,
     quota_bound, duration_ms) = cfg
    (order, n_parts, behind, avail, next_send, avail_at, thread_free, slots, pos, pend,
     scalars) = state
    fetches, reads, deliveries, counts = out
    consumers = order.shape[0]
    width = order.shape[1]
    n_pend = int(scalars[1])
    first = np.full(width, batch_bytes, np.int64)
    log = np.zeros(width, np.int64)
    remote = np.zeros(width, np.bool_)
    thr = np.zeros(width, np.bool_)
    pmax = np.full(width, partition_max, np.int64)
    raw = np.zeros(width, np.int64)
    rmax = np.zeros(width, np.int64)
    min_one = np.zeros(width, np.bool_)
    done = np.zeros(width, np.float64)
    done_at = np.zeros(width, np.float64)  # the request's reads, in order
    ok = np.zeros(width, np.bool_)  # ...and whether each is served
    read_at = np.zeros(width, np.int64)  # request entry -> its read's place
    got = np.zeros(width, np.int64)
    moved = np.zeros(width, np.int64)
    clock = scalars[0]
    nf, nr, nd = counts[0], counts[1], counts[2]
    status = OK
    while True:
        c = 0
        for k in range(1, consumers):
            if next_send[k] < next_send[c]:
                c = k
        t = next_send[c]
        if t >= duration_ms:
            break
        if nf >= fetches.shape[0] or nr + width > reads.shape[0] \
                or nd + width > deliveries.shape[0] or n_pend + width > pend.shape[0]:
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
        local = read_from_log(first[:n], log[:n], remote[:n], thr[:n], pmax[:n], fetch_max,
                              several, charge, raw[:n], rmax[:n], min_one[:n])
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
                reads[r, 0] = nf
                reads[r, 1] = p
                reads[r, 2] = t
                reads[r, 5] = size
                if start >= t + wait_ms:
                    reads[r, 3] = -1.0
                    done[i] = np.inf  # cancelled: never runs, never served
                else:
                    done[i] = start + read_latency_ms + size / read_bytes_per_ms
                    thread_free[k] = done[i]
                    reads[r, 3] = start
                    if quota_bound != UNLIMITED:  # RemoteLogReader records after the read
                        n_pend = add_pending(pend, n_pend, done[i], size)
                reads[r, 4] = done[i]
                read_at[i] = scheduled
                done_at[scheduled] = done[i]
                scheduled += 1
        if scheduled > 0:
            answer = delayed_remote_fetch_complete_ms(done_at[:scheduled], t, wait_ms,
                                                      ok[:scheduled])
            for j in range(scheduled):
                reads[nr + j, 6] = 1.0 if ok[j] else 0.0
        elif local > 0:
            answer = t
        else:
            wait = fetch_max_wait_ms
            for i in range(n):
                p = order[c, i]
                if behind[p] <= 0 and produce_bytes_per_ms > 0:
                    wait = min(wait, (batch_bytes - avail[p] % batch_bytes) / produce_bytes_per_ms)
            answer = t + wait
        remote_bytes = 0
        reads_served = 0
        for i in range(n):
            p = order[c, i]
            got[i] = raw[i]
            if rmax[i] > 0 and ok[read_at[i]]:
                size = int(reads[nr + read_at[i], 5])
                got[i] = size
                remote_bytes += size
                reads_served += 1
                behind[p] = max(0, behind[p] - (size // batch_bytes) * batch_bytes)
            if got[i] > 0:  # a row per partition that returned data
                deliveries[nd, 0] = nf
                deliveries[nd, 1] = p
                deliveries[nd, 2] = 1.0 if remote[i] else 0.0
                deliveries[nd, 3] = got[i]
                deliveries[nd, 4] = behind[p] + avail[p]
                nd += 1
        fetches[nf, 0] = c
        fetches[nf, 1] = t
        fetches[nf, 2] = answer + rtt_ms
        fetches[nf, 3] = local
        fetches[nf, 4] = remote_bytes
        fetches[nf, 5] = scheduled
        fetches[nf, 6] = reads_served
        any_remote = False
        for i in range(n):
            any_remote = any_remote or remote[i]
        fetches[nf, 7] = 1.0 if throttled and any_remote else 0.0  # remote partitions emptied
        nr += scheduled
        nf += 1
        # KIP-74 round robin: partitions that returned data move to the end, in request order
        s = 0
        for i in range(n):
            if got[i] == 0:
                moved[s] = order[c, i]
                s += 1
        for i in range(n):
            if got[i] > 0:
                moved[s] = order[c, i]
                s += 1
        for i in range(n):
            order[c, i] = moved[i]
        next_send[c] = answer + rtt_ms
    counts[0] = nf  # where a next call goes on
    counts[1] = nr
    counts[2] = nd
    scalars[0] = clock
    scalars[1] = n_pend
    return status


_FUNCTIONS = ("read_partition", "read_from_log", "remote_read_bytes",
              "delayed_remote_fetch_complete_ms", "flush_records", "add_pending", "tiered_kernel")
_compiled: dict[str, Any] = {}


def compiled() -> Any:
    """``tiered_kernel`` compiled by numba with :mod:`kipviz.kafka.quotas.rate`'s functions (once
    per process; the plain functions stay plain)."""
    if not _compiled:
        # kipviz.kafka.quotas.rate's functions compiled to be inlined here, not _rate_jit's shared
        # ones: a call to a compiled function increfs and decrefs the slots and pos it passes
        # (atomically), once per request and per recorded read (kip405 ~10% slower otherwise)
        rates = jit_functions(rate.RATE_FUNCTIONS, vars(rate), inline=rate.RATE_FUNCTIONS)
        # read_from_log's local partitions run KIP-74's read_partition: compiled beside it
        namespace = {**globals(), **rates, "read_partition": response.read_partition}
        _compiled.update(jit_functions(_FUNCTIONS, namespace,
                                       inline=("read_partition", "flush_records",
                                               "add_pending")))
    return _compiled["tiered_kernel"]
