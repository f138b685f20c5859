"""The share-group scenario's kernel: plain loops over numpy arrays that numba compiles.

:func:`share_group_kernel` runs :mod:`kipviz.scenarios.share_group`'s model tick by tick; run as
it is, it is the plain-Python reference, :func:`compiled_kernel` is the same function compiled by
numba. The Kafka rules are the mechanisms' own functions, compiled as they are:
:mod:`kipviz.kafka.share.acquire` and :mod:`kipviz.kafka.share.partition` (acquire, acknowledge,
lock timeouts),
:func:`kipviz.kafka.share.fetch.uniform_split_into` (``PartitionMaxBytesStrategy.UNIFORM``) and
:func:`kipviz.kafka.fetch.response.fill_raw_bytes` (the log read of each share fetch, KIP-74's
rules).

One tick at ``now = t * tick_ms``: producers append whole batches; expired locks are released
(the timer is consulted only when the earliest lock taken may have expired: the same result);
each share consumer in turn processes (acknowledging ACCEPT, implicit mode) or, stalled, drops
the records whose lock it lost, and with nothing left sends one share fetch per leader broker of
its partitions (from 4.2 in ``record_limit`` mode only to the node
:func:`kipviz.kafka.share.consumer.record_limit_fetch_node` picks, KAFKA-19767); the classic
consumers consume; the tick's numbers are recorded. The release's other rules come in ``cfg``:
4.0's ``PartitionMaxBytes`` for each partition instead of the UNIFORM split, its missing
``MaxRecords`` (``max_fetch_records``) and the acquire switches
(:class:`~kipviz.kafka.share.acquire.AcquireSettings`).
"""

from __future__ import annotations

import types
from typing import Any

import numpy as np

from kipviz.kafka.fetch import response
from kipviz.kafka.fetch.response import fill_raw_bytes
from kipviz.kafka.share import acquire as sa
from kipviz.kafka.share import partition as spf
from kipviz.kafka.share.consumer import record_limit_fetch_node
from kipviz.kafka.share.fetch import uniform_split_into
from kipviz.kafka.share.partition import SharePartitionState
from kipviz.scenarios.jit import compiled_functions, jit_functions
from kipviz.scenarios.share_group.columns import (
    ACKNOWLEDGED,
    ACQUIRED,
    REDELIVERED,
    DeliveryRows,
    ShareGroupInputs,
    ShareGroupOutputs,
    ShareScratch,
    ShareSettings,
)

__all__ = ["ACKNOWLEDGED", "ACQUIRED", "REDELIVERED", "DeliveryRows", "ShareGroupInputs",
           "ShareGroupOutputs", "ShareSettings", "ack_run", "compiled_kernel", "new_scratch",
           "partition_state", "share_fetch", "share_group_kernel"]

_NEVER = np.iinfo(np.int64).max


def new_scratch(n_part, out_len):
    """A :class:`ShareScratch`: ``n_part`` entries per partition field, ``out_len`` offsets."""
    return ShareScratch(parts=np.empty(n_part, np.int64), fetch_offset=np.empty(n_part, np.int64),
                        max_bytes=np.empty(n_part, np.int64), first=np.empty(n_part, np.int64),
                        log=np.empty(n_part, np.int64), base=np.empty(n_part, np.int64),
                        raw=np.empty(n_part, np.int64), out=np.empty(out_len, np.int64))


def partition_state(sps, p):
    """Partition ``p``'s :class:`~kipviz.kafka.share.partition.SharePartitionState`: views of
    the rows ``p`` of ``sps`` (every partition's state, a row each)."""
    return SharePartitionState(sp=sps.sp[p], record_state=sps.record_state[p],
                               delivery_count=sps.delivery_count[p],
                               lock_expiry_ms=sps.lock_expiry_ms[p], owner=sps.owner[p],
                               inflight_last=sps.inflight_last[p], split=sps.split[p])


def share_fetch(c, b, now, cfg, inp, sps, log_end, draw_pos, queue_p, queue_o, tail, cells,
                next_expiry, nfo, nfo_dirty, scratch):
    """Consumer ``c``'s share fetch to broker ``b``: returns the new queue tail and draw pos;
    counts what it acquired and redelivered in the tick's ``cells``. ``scratch``
    (:func:`new_scratch`): each partition's next fetch offset is found once."""
    brokers, assign, batch_records = cfg.brokers, inp.assign, cfg.batch_records
    record_bytes, response_max_bytes = cfg.record_bytes, cfg.response_max_bytes
    max_fetch_records, max_locks = cfg.max_fetch_records, cfg.acquire.max_in_flight_records
    sp, rec_state, delivery = sps.sp, sps.record_state, sps.delivery_count
    parts, fetch_offset, max_bytes = scratch.parts, scratch.fetch_offset, scratch.max_bytes
    first, log, base, raw, out = scratch.first, scratch.log, scratch.base, scratch.raw, \
        scratch.out
    n_part = assign.shape[1]
    n = 0
    for p in range(n_part):  # fetch locks: the partitions that can acquire records
        if assign[c, p] and p % brokers == b:
            if nfo_dirty[p]:  # only acquiring and lock timeouts move it (acks do not)
                nfo[p] = spf.next_fetch_offset(sp[p], rec_state[p])
                nfo_dirty[p] = False
            nxt = nfo[p]
            can = nxt != sp[p, 1] + 1 or spf.in_flight_records(sp[p]) < max_locks
            if nxt < log_end[p] and can:
                parts[n] = p
                fetch_offset[n] = nxt
                n += 1
    if n == 0:
        return tail, draw_pos
    if cfg.partition_max_bytes > 0:  # 4.0: the request's PartitionMaxBytes, no split
        for i in range(n):
            max_bytes[i] = cfg.partition_max_bytes
    else:
        rand = 0
        if response_max_bytes < n or response_max_bytes % n != 0:
            rand = inp.draws[draw_pos] % n  # Kafka's RANDOM.nextInt(partitions)
            draw_pos += 1
        uniform_split_into(response_max_bytes, n, n, rand, max_bytes[:n])
    for i in range(n):
        p = parts[i]
        nxt = fetch_offset[i]
        base[i] = nxt - nxt % batch_records  # the log batch holding the fetch offset
        first[i] = batch_records * record_bytes
        log[i] = (log_end[p] - base[i]) * record_bytes
    fill_raw_bytes(first[:n], log[:n], max_bytes[:n], response_max_bytes, 3, raw[:n])
    got = 0
    for i in range(n):
        p = parts[i]
        whole = raw[i] // (batch_records * record_bytes)
        if whole == 0:
            continue
        k = sa.acquire(partition_state(sps, p), cfg.acquire, inp.batch_last, c,
                       fetch_offset[i], base[i] + whole * batch_records - 1,
                       max_fetch_records - got, now, out)
        nfo_dirty[p] = True
        got += k
        if k > 0:
            next_expiry[p] = min(next_expiry[p], now + cfg.acquire.lock_duration_ms)
        for j in range(k):
            queue_p[c, tail] = p
            queue_o[c, tail] = out[j]
            tail += 1
            cells[ACQUIRED, c, p] += 1
            if delivery[p, out[j]] > 1:
                cells[REDELIVERED, c, p] += 1
    return tail, draw_pos


def ack_run(c, p, first, last, max_delivery, sps):
    """Consumer ``c`` acknowledges (ACCEPT) ``first..last`` of partition ``p``, all acquired by
    it: the same states as one call per record (implicit acknowledgement), in one call."""
    n = spf.acknowledge(partition_state(sps, p), c, first, last, spf.ACCEPT, max_delivery)
    return max(n, 0)


def share_group_kernel(cfg, inp, sps, queue_p, queue_o, out):
    """Run the scenario (``cfg`` a :class:`ShareSettings`, ``inp`` :class:`ShareGroupInputs`,
    ``sps`` a :class:`~kipviz.kafka.share.partition.SharePartitionState` with a row per
    partition, the share consumers' record queues ``[consumer, slot]``); fills ``out``
    (:class:`ShareGroupOutputs`); returns the delivery rows filled."""
    ticks, tick_ms, brokers = cfg.ticks, cfg.tick_ms, cfg.brokers
    classic_consumers, batch_records = cfg.classic_consumers, cfg.batch_records
    max_delivery, process_per_tick = cfg.acquire.max_delivery_count, cfg.process_per_tick
    assign, classic_owner, stalled = inp.assign, inp.classic_owner, inp.stalled
    sp, rec_state, lock_exp, owner = sps.sp, sps.record_state, sps.lock_expiry_ms, sps.owner
    d_tick, d_consumer, d_partition = out.deliveries.tick, out.deliveries.consumer, \
        out.deliveries.partition
    d_acquired, d_redelivered, d_acknowledged = out.deliveries.acquired, \
        out.deliveries.redelivered, out.deliveries.acknowledged
    held, processed = out.held, out.processed
    classic_consumed, in_flight, start_offset = out.classic_consumed, out.in_flight, \
        out.start_offset
    archived, log_end_out = out.archived, out.log_end
    n_cons, n_part = assign.shape
    cells = np.zeros((3, n_cons, n_part), np.int64)  # this tick's counts
    n_rows = 0
    scratch = new_scratch(n_part, cfg.fetch_out_len)
    order = np.zeros((n_cons, n_part), np.int64)  # each consumer's partitions, rotated
    n_own = np.zeros(n_cons, np.int64)
    leader = np.zeros(n_part, np.int64)
    for p in range(n_part):
        leader[p] = p % brokers
        for c in range(n_cons):
            if assign[c, p]:
                order[c, n_own[c]] = p
                n_own[c] += 1
    log_end = np.full(n_part, cfg.initial_batches * batch_records, np.int64)
    produced = np.zeros(n_part)
    head = np.zeros(n_cons, np.int64)
    tail = np.zeros(n_cons, np.int64)
    budget = np.zeros(n_cons)
    classic_pos = np.zeros(n_part, np.int64)
    classic_budget = np.zeros(classic_consumers)
    next_expiry = np.full(n_part, _NEVER, np.int64)  # no lock expires before this
    nfo = np.zeros(n_part, np.int64)  # each partition's next fetch offset, while not dirty
    nfo_dirty = np.ones(n_part, np.bool_)
    frozen_archived = np.zeros(n_part, np.int64)  # archived records below frozen_upto
    frozen_upto = np.zeros(n_part, np.int64)  # below SPSO, records never change again
    expired = np.ones(n_part, np.bool_)  # only a lock timeout archives (acks are ACCEPT)
    n_archived = np.zeros(n_part, np.int64)
    draw_pos = 0
    for t in range(ticks):
        now = t * tick_ms
        for p in range(n_part):
            produced[p] += cfg.produce_batches_per_tick
            while produced[p] >= 1.0:
                produced[p] -= 1.0
                log_end[p] += batch_records
        for p in range(n_part):
            expired[p] = next_expiry[p] <= now
            if expired[p]:  # a lock may have expired: the timer tasks run
                spf.expire_locks(partition_state(sps, p), max_delivery, now)
                nfo_dirty[p] = True
                next_expiry[p] = _NEVER
                for o in range(sp[p, 0], sp[p, 1] + 1):
                    if rec_state[p, o] == spf.ACQUIRED and lock_exp[p, o] < next_expiry[p]:
                        next_expiry[p] = lock_exp[p, o]
        for c in range(n_cons):
            if stalled[c]:  # drops what it no longer holds, acknowledges nothing
                keep = head[c]
                for q in range(head[c], tail[c]):
                    p, o = queue_p[c, q], queue_o[c, q]
                    if owner[p, o] == c and rec_state[p, o] == spf.ACQUIRED:
                        queue_p[c, keep] = p
                        queue_o[c, keep] = o
                        keep += 1
                tail[c] = keep
            else:
                budget[c] += process_per_tick
                run_p, run_first, run_last = -1, 0, -1  # consecutive records: one call
                while budget[c] >= 1.0 and head[c] < tail[c]:
                    p, o = queue_p[c, head[c]], queue_o[c, head[c]]
                    head[c] += 1
                    budget[c] -= 1.0
                    processed[t, c] += 1
                    if owner[p, o] != c or rec_state[p, o] != spf.ACQUIRED:
                        continue  # its lock expired: acknowledge would refuse it
                    if p == run_p and o == run_last + 1:
                        run_last = o
                        continue
                    if run_p >= 0:
                        cells[ACKNOWLEDGED, c, run_p] += ack_run(
                            c, run_p, run_first, run_last, max_delivery, sps)
                    run_p, run_first, run_last = p, o, o
                if run_p >= 0:
                    cells[ACKNOWLEDGED, c, run_p] += ack_run(
                        c, run_p, run_first, run_last, max_delivery, sps)
            if head[c] >= tail[c]:
                head[c] = 0
                tail[c] = 0
                budget[c] = 0.0
                if cfg.one_node_per_poll:  # KAFKA-19767: one node's records per poll
                    b = record_limit_fetch_node(order[c], n_own[c], leader)
                    if b >= 0:
                        tail[c], draw_pos = share_fetch(
                            c, b, now, cfg, inp, sps, log_end, draw_pos, queue_p, queue_o,
                            tail[c], cells, next_expiry, nfo, nfo_dirty, scratch)
                else:
                    for b in range(brokers):
                        tail[c], draw_pos = share_fetch(
                            c, b, now, cfg, inp, sps, log_end, draw_pos, queue_p, queue_o,
                            tail[c], cells, next_expiry, nfo, nfo_dirty, scratch)
            held[t, c] = tail[c] - head[c]
        for c in range(n_cons):  # the tick's delivery rows, in consumer, partition order
            for p in range(n_part):
                if cells[ACQUIRED, c, p] or cells[REDELIVERED, c, p] or cells[ACKNOWLEDGED, c, p]:
                    d_tick[n_rows] = t
                    d_consumer[n_rows] = c
                    d_partition[n_rows] = p
                    d_acquired[n_rows] = cells[ACQUIRED, c, p]
                    d_redelivered[n_rows] = cells[REDELIVERED, c, p]
                    d_acknowledged[n_rows] = cells[ACKNOWLEDGED, c, p]
                    cells[ACQUIRED, c, p] = 0
                    cells[REDELIVERED, c, p] = 0
                    cells[ACKNOWLEDGED, c, p] = 0
                    n_rows += 1
        for k in range(classic_consumers):
            classic_budget[k] += process_per_tick
            for p in range(n_part):
                if classic_owner[p] == k:
                    take = min(int(classic_budget[k]), log_end[p] - classic_pos[p])
                    classic_pos[p] += take
                    classic_budget[k] -= take
                    classic_consumed[t, k] += take
            if classic_budget[k] >= 1.0:
                classic_budget[k] = 0.0  # caught up: an idle consumer banks nothing
        for p in range(n_part):
            in_flight[t, p] = spf.in_flight_records(sp[p])
            start_offset[t, p] = sp[p, 0]
            log_end_out[t, p] = log_end[p]
            while frozen_upto[p] < sp[p, 0]:
                if rec_state[p, frozen_upto[p]] == spf.ARCHIVED:
                    frozen_archived[p] += 1
                frozen_upto[p] += 1
            if expired[p]:  # the count changes only when locks expired: recount the cache
                n_archived[p] = frozen_archived[p]
                for o in range(sp[p, 0], log_end[p]):  # above SPEO nothing is archived yet
                    if o > sp[p, 1]:
                        break
                    if rec_state[p, o] == spf.ARCHIVED:
                        n_archived[p] += 1
            archived[t, p] = n_archived[p]
    return n_rows


# the rules called per record run or per partition, inlined into their callers (a compiled call
# increfs and decrefs every array it passes, atomically: half the kernel's time otherwise)
INLINED = ("ack_run", "acknowledge", "advance_start_offset", "in_flight_batch_first",
           "in_flight_records", "next_fetch_offset", "_release", "_take", "share_fetch",
           "acquire", "_acquire_subset", "expire_locks", "partition_state")


def _compile() -> dict[str, Any]:
    mech = jit_functions(("next_fetch_offset", "in_flight_records", "in_flight_batch_first",
                          "_release", "advance_start_offset", "acknowledge", "expire_locks"),
                         vars(spf), inline=INLINED)
    acq = jit_functions(("_take", "_acquire_subset", "throttle_records_delivery_limit",
                         "in_flight_batch_first", "acquire"), vars(sa), inline=INLINED)
    compiled_spf = types.ModuleType(spf.__name__)  # as the kernel names them
    for name, fn in mech.items():
        setattr(compiled_spf, name, fn)
    for name in ("ACCEPT", "ACQUIRED", "ARCHIVED"):
        setattr(compiled_spf, name, getattr(spf, name))
    compiled_sa = types.ModuleType(sa.__name__)
    compiled_sa.acquire = acq["acquire"]  # type: ignore[attr-defined]
    fill = jit_functions(response.FILL_FUNCTIONS, vars(response),
                         inline=response.FILL_FUNCTIONS)  # KIP-74's fill, over its module
    namespace = dict(globals(), spf=compiled_spf, sa=compiled_sa, **fill)
    return jit_functions(("new_scratch", "partition_state", "share_fetch", "ack_run",
                          "share_group_kernel"), namespace, inline=INLINED,
                         foreign={"uniform_split_into": uniform_split_into,
                                  "record_limit_fetch_node": record_limit_fetch_node},
                         inline_foreign=True)


def compiled_kernel(name: str = "share_group_kernel") -> Any:
    """:func:`share_group_kernel` (or a function it calls, by name) compiled by numba with the
    mechanisms it calls, once per process (:func:`kipviz.scenarios.jit.compiled_functions`: the
    plain functions stay plain)."""
    return compiled_functions(__name__, _compile)[name]
