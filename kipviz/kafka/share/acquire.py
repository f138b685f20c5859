"""KIP-932: how a share partition hands out records (``SharePartition.acquire``), numba-ready.

On :mod:`kipviz.kafka.share.partition`'s arrays:

* ``acquire`` takes ``min(MaxRecords, max.record.locks - in flight)`` records
  (``lastOffsetAndMaxRecordsToAcquire``); new records are taken up to the end of the *log
  batch* holding the last one allowed (``lastOffsetFromBatchWithRequestOffset``), so the cap
  ``group.share.partition.max.record.locks`` (2000) is soft by up to a batch. At the cap, only
  records inside the cached range can be re-acquired (up to SPEO).
* Re-acquisition walks the in-flight batches from the fetched data's first offset; in
  ``batch_optimized`` mode the count is checked only before each in-flight batch (whole batches
  go out), in ``record_limit`` mode (KIP-1206) before each record, and new records beyond the
  limit stay AVAILABLE in their batch. New records form in-flight batches of at least
  ``batch_size`` records, cut at log batch starts (``createBatches``). Acquiring adds 1 to the
  delivery count and locks the records for ``group.share.record.lock.duration.ms``.
* Records near the delivery limit go out in smaller parts (KAFKA-17541): once a batch's records
  have ``max(2, ceil(limit / 2))`` deliveries it goes out only alone, and in parts of
  ``size >> (count - that + 1)``; a record on its last attempt goes out alone.

Releases differ (:mod:`kipviz.kafka.share.releases` gives a release's :class:`AcquireSettings`):
the lock cap inside ``acquire`` (``cap_in_acquire``) is 4.2's (KAFKA-19555; 4.0 and 4.1 check
the cap only before the fetch, ``canAcquireRecords``, and acquire all they were asked for), as are
the halving parts (``throttle``, KAFKA-17541 part 2) and ``record_limit`` (KIP-1206); 4.0 keeps
new records in one in-flight batch (no ``BatchSize``: a ``batch_size`` larger than any fetch).

>>> from kipviz.kafka.share.partition import ACCEPT, acknowledge, new_share_partition
>>> part = new_share_partition(20)
>>> settings = AcquireSettings(max_in_flight_records=2000, max_delivery_count=5,
...                            record_limit=False, batch_size=500, lock_duration_ms=30_000)
>>> batch_last = np.repeat([9, 19], 10)          # two log batches of 10 records
>>> out = np.zeros(20, np.int64)
>>> acquire(part, settings, batch_last, 7, 0, 19, 15, 0, out)  # MaxRecords 15: to a batch end
20
>>> acknowledge(part, 7, 0, 9, ACCEPT, 5), part.sp.tolist()
(10, [10, 19, 1])
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from kipviz.kafka.share.partition import (
    ACQUIRED,
    AVAILABLE,
    SharePartitionState,
    in_flight_batch_first,
)

__all__ = ["AcquireSettings", "acquire", "throttle_records_delivery_limit"]

_START, _END, _CACHED = 0, 1, 2


class AcquireSettings(NamedTuple):
    """The group's settings an acquisition runs under."""

    max_in_flight_records: int  # group.share.partition.max.record.locks
    max_delivery_count: int  # group.share.delivery.count.limit
    record_limit: bool  # share.acquire.mode=record_limit (KIP-1206)
    batch_size: int  # the share fetch's BatchSize (max.poll.records)
    lock_duration_ms: int  # group.share.record.lock.duration.ms
    cap_in_acquire: bool = True  # acquire stops at the lock cap (4.2, KAFKA-19555)
    throttle: bool = True  # halving parts near the delivery limit (4.2, KAFKA-17541 part 2)


def _take(record_state: np.ndarray, delivery_count: np.ndarray, lock_expiry_ms: np.ndarray,
          owner: np.ndarray, o: int, member: int, lock_until_ms: int, out_offsets: np.ndarray,
          count: int) -> int:
    # on the state's arrays, read once by the caller: a kernel inlines this per record, and
    # each read of a tuple's field there would count a reference
    record_state[o] = ACQUIRED
    delivery_count[o] += 1
    lock_expiry_ms[o] = lock_until_ms
    owner[o] = member
    out_offsets[count] = o
    return count + 1


def throttle_records_delivery_limit(max_delivery_count: int) -> int:
    """``throttleRecordsDeliveryLimit``: ``max(2, ceil(limit / 2))`` deliveries, from which a
    batch is handed out in ever smaller parts (KAFKA-17541)."""
    return max(2, (max_delivery_count + 1) // 2)


def _acquire_subset(part: SharePartitionState, settings: AcquireSettings, member: int,
                    batch_first: int, batch_last_o: int, request_first: int, request_last: int,
                    max_fetch_records: int, until: int, out_offsets: np.ndarray,
                    count: int) -> int:
    """``acquireSubsetBatchRecords`` over one offset-tracked batch; returns the new count."""
    record_state, delivery_count = part.record_state, part.delivery_count
    lock_expiry_ms, owner = part.lock_expiry_ms, part.owner
    max_delivery_count, record_limit = settings.max_delivery_count, settings.record_limit
    throttle = settings.throttle
    limit = throttle_records_delivery_limit(max_delivery_count)
    got = 0
    cap = -1
    size = batch_last_o - batch_first + 1
    for o in range(max(batch_first, request_first), min(batch_last_o, request_last) + 1):
        if record_state[o] != AVAILABLE:
            continue
        d = delivery_count[o]
        if throttle and max_delivery_count > 2 and d == max_delivery_count - 1 and got > 0:
            break  # the last attempt goes out alone, in the next fetch
        if throttle and d >= limit and cap < 0:
            cap = max(1, size >> (d - limit + 1))  # halved with each delivery past the limit
        count = _take(record_state, delivery_count, lock_expiry_ms, owner, o, member, until,
                      out_offsets, count)
        got += 1
        if throttle and delivery_count[o] == max_delivery_count and max_delivery_count > 2:
            break  # delivered alone
        if record_limit and got == max_fetch_records:
            break
        if got == cap:
            break
    return count


def acquire(part: SharePartitionState, settings: AcquireSettings, batch_last: np.ndarray,
            member: int, fetch_offset: int, fetched_last_offset: int, max_fetch_records: int,
            now_ms: int, out_offsets: np.ndarray) -> int:
    """``SharePartition.acquire`` by ``member`` at ``now_ms``, of at most ``max_fetch_records``
    (``MaxRecords``) of the fetched data from the log batch holding ``fetch_offset`` to
    ``fetched_last_offset`` (``batch_last[o]``: the last offset of o's log batch); writes the
    acquired offsets to ``out_offsets`` and returns how many (``ShareAcquiredRecords.count``)."""
    sp, record_state, delivery_count = part.sp, part.record_state, part.delivery_count
    lock_expiry_ms, owner = part.lock_expiry_ms, part.owner
    inflight_last, split = part.inflight_last, part.split
    max_delivery_count, record_limit = settings.max_delivery_count, settings.record_limit
    throttle_on = settings.throttle
    if max_fetch_records <= 0 or fetched_last_offset < sp[_START]:
        return 0
    end = sp[_END]
    last = fetched_last_offset
    in_flight = end - sp[_START] + 1 if sp[_CACHED] else 0
    max_records = max_fetch_records  # before 4.2 the cap was checked before the fetch only
    if settings.cap_in_acquire:  # lastOffsetAndMaxRecordsToAcquire (KAFKA-19555)
        max_records = min(max_fetch_records, settings.max_in_flight_records - in_flight)
    if max_records <= 0:
        if sp[_CACHED] and fetch_offset <= end:  # re-acquire inside the cached range only
            max_records = min(max_fetch_records, end - fetch_offset + 1)
            last = min(last, end)
        else:
            return 0
    request_first = fetch_offset
    while request_first > 0 and batch_last[request_first - 1] == batch_last[fetch_offset]:
        request_first -= 1  # the fetched data starts at the log batch holding fetch_offset
    base = max(request_first, sp[_START])
    until = now_ms + settings.lock_duration_ms  # scheduleAcquisitionLockTimeout
    limit = throttle_records_delivery_limit(max_delivery_count)
    count = 0
    if sp[_CACHED] and base <= end:
        o = base
        stop = min(last, end)
        while o <= stop:
            if count >= max_records:  # checked before each in-flight batch
                break
            batch_last_o = inflight_last[o]
            batch_first = in_flight_batch_first(o, inflight_last)
            full = batch_first >= request_first and batch_last_o <= last
            remaining = max_records - count
            subset_limit = record_limit and batch_last_o - batch_first + 1 > remaining
            top = 0  # shouldThrottleRecordsDelivery: the highest count still available
            if throttle_on:
                for k in range(max(batch_first, request_first), min(batch_last_o, last) + 1):
                    if record_state[k] == AVAILABLE and delivery_count[k] > top:
                        top = delivery_count[k]
            throttle = throttle_on and top >= limit
            if throttle and count > 0:
                return count  # isolate it: delivered in a later fetch, nothing new either
            o = batch_last_o + 1
            if not full or split[batch_first] or subset_limit or throttle:
                if not split[batch_first]:
                    if record_state[batch_first] != AVAILABLE:
                        continue  # a batch-level batch must be wholly available
                    split[batch_first:batch_last_o + 1] = 1  # maybeInitializeOffsetStateUpdate
                got = _acquire_subset(part, settings, member, batch_first, batch_last_o,
                                      request_first, last, remaining, until, out_offsets, count)
                if throttle and got > count:
                    return got  # maxRecordsToAcquire = 0
                count = got
                continue
            if record_state[batch_first] != AVAILABLE:
                continue
            for k in range(batch_first, batch_last_o + 1):  # the whole batch, one state
                count = _take(record_state, delivery_count, lock_expiry_ms, owner, k, member,
                              until, out_offsets, count)
        first_new = end + 1
    elif sp[_CACHED]:
        first_new = max(base, end + 1)
    else:
        first_new = max(base, end)  # an empty cache starts at SPEO
    if count >= max_records or first_new > last:
        return count
    remaining = max_records - count
    new_last = last
    if remaining < new_last - first_new + 1:  # up to the end of the log batch
        new_last = batch_last[first_new + remaining - 1]
    cut = first_new  # createBatches: in-flight batches of >= batch_size at log batch starts
    if not record_limit and new_last - first_new + 1 > settings.batch_size:
        b = first_new
        while b <= new_last:
            if b - cut >= settings.batch_size:
                inflight_last[cut:b] = b - 1
                cut = b
            b = batch_last[b] + 1
    inflight_last[cut:new_last + 1] = new_last
    if record_limit and new_last - first_new + 1 > remaining:
        split[first_new:new_last + 1] = 1  # offset states from the start
    for o in range(first_new, new_last + 1):
        if record_limit and o - first_new >= remaining:
            record_state[o] = AVAILABLE  # record_limit: the rest of the batch stays available
        else:
            count = _take(record_state, delivery_count, lock_expiry_ms, owner, o, member,
                          until, out_offsets, count)
    if not sp[_CACHED]:
        sp[_START] = first_new
        sp[_CACHED] = 1
    sp[_END] = max(sp[_END], new_last)
    return count
