"""KIP-932: a share partition's record states, as plain functions on arrays numba can compile.

Kafka's ``SharePartition`` (``core/.../server/share/SharePartition.java``, ``InFlightState``)
keeps, for one partition of one share group, the records between the share-partition start
offset (SPSO) and end offset (SPEO), each AVAILABLE (0), ACQUIRED (1) by a member with a lock
and a delivery count, ACKNOWLEDGED (2) or ARCHIVED (4) (``RecordState`` ids).

* In flight = ``SPEO - SPSO + 1`` records while any are cached, whatever their state
  (``numInFlightRecords``). ``acquire`` takes ``min(MaxRecords, max.record.locks - in flight)``
  records (``lastOffsetAndMaxRecordsToAcquire``); new records are taken up to the end of the
  *log batch* holding the last one allowed (``lastOffsetFromBatchWithRequestOffset``), so the cap
  ``group.share.partition.max.record.locks`` (2000) is soft by up to a batch. At the cap, only
  records inside the cached range can be re-acquired (up to ``SPEO``).
* Re-acquisition walks the in-flight batches from the fetched data's first offset; in
  ``batch_optimized`` mode the count is checked only before each in-flight batch (whole batches
  go out), in ``record_limit`` mode (KIP-1206) before each record, and new records beyond the
  limit stay AVAILABLE in their batch. New records are grouped into in-flight batches of at least
  ``batch_size`` records at log batch boundaries (``createBatches``).
* Acquiring adds 1 to the delivery count and locks the records for
  ``group.share.record.lock.duration.ms`` (30000). When a lock expires, or a record is
  released, it is AVAILABLE again, or ARCHIVED once its delivery count has reached
  ``group.share.delivery.count.limit`` (5) (``InFlightState.tryUpdateState``). ACCEPT makes it
  ACKNOWLEDGED, REJECT ARCHIVED. SPSO then moves past the acknowledged/archived prefix; when
  everything cached is done the cache empties and SPSO = SPEO = last + 1.

Not modelled: the persister's read-gap window and compaction gaps, transactions, the DLQ, and the
delivery throttling of records near the limit (``throttleRecordsDeliveryLimit``). Offsets are
array indices from 0; ``batch_last[o]`` is the last offset of the log batch holding offset o.
The partition's scalars are ``sp = [SPSO, SPEO, cached]`` (int64; SPEO is the next offset when
nothing is cached).

>>> sp, state, count, lock, owner, inflight = new_share_partition(20)
>>> batch_last = np.repeat([9, 19], 10)          # two log batches of 10 records
>>> out = np.zeros(20, np.int64)
>>> acquire(sp, state, count, lock, owner, inflight, batch_last, 7, 0, 19, 15, 2000, False,
...         500, 30_000, 0, out)                  # MaxRecords 15: up to the end of a batch
20
>>> acknowledge(sp, state, count, owner, 7, 0, 9, ACCEPT, 5), sp.tolist()
(10, [10, 19, 1])
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "ACCEPT",
    "ACKNOWLEDGED",
    "ACQUIRED",
    "ARCHIVED",
    "AVAILABLE",
    "REJECT",
    "RELEASE",
    "acknowledge",
    "acquire",
    "advance_start_offset",
    "expire_locks",
    "in_flight_records",
    "new_share_partition",
    "next_fetch_offset",
]

AVAILABLE, ACQUIRED, ACKNOWLEDGED, ARCHIVED = 0, 1, 2, 4  # RecordState ids
ACCEPT, RELEASE, REJECT = 1, 2, 3  # AcknowledgeType ids
_START, _END, _CACHED = 0, 1, 2


def new_share_partition(capacity: int) -> tuple[np.ndarray, ...]:
    """Empty state for offsets ``0 .. capacity - 1``: ``(sp, record_state, delivery_count,
    lock_expiry_ms, owner, inflight_last)``; ``owner`` -1 is nobody."""
    return (np.zeros(3, np.int64), np.zeros(capacity, np.int8), np.zeros(capacity, np.int32),
            np.zeros(capacity, np.int64), np.full(capacity, -1, np.int32),
            np.zeros(capacity, np.int64))


def in_flight_records(sp: np.ndarray) -> int:
    """``numInFlightRecords``: ``SPEO - SPSO + 1`` while records are cached, else 0."""
    return int(sp[_END] - sp[_START] + 1) if sp[_CACHED] else 0


def next_fetch_offset(sp: np.ndarray, record_state: np.ndarray) -> int:
    """``nextFetchOffset``: the first AVAILABLE cached record, else the offset after SPEO."""
    if not sp[_CACHED]:
        return int(sp[_END])
    for o in range(sp[_START], sp[_END] + 1):
        if record_state[o] == AVAILABLE:
            return o
    return int(sp[_END] + 1)


def _take(o: int, member: int, record_state: np.ndarray, delivery_count: np.ndarray,
          lock_expiry_ms: np.ndarray, owner: np.ndarray, lock_until_ms: int,
          out_offsets: np.ndarray, count: int) -> int:
    record_state[o] = ACQUIRED
    delivery_count[o] += 1
    lock_expiry_ms[o] = lock_until_ms
    owner[o] = member
    out_offsets[count] = o
    return count + 1


def acquire(sp: np.ndarray, record_state: np.ndarray, delivery_count: np.ndarray,
            lock_expiry_ms: np.ndarray, owner: np.ndarray, inflight_last: np.ndarray,
            batch_last: np.ndarray, member: int, fetch_offset: int, fetched_last_offset: int,
            max_fetch_records: int, max_in_flight_records: int, record_limit: bool,
            batch_size: int, lock_duration_ms: int, now_ms: int,
            out_offsets: np.ndarray) -> int:
    """``SharePartition.acquire`` for fetched data from the log batch holding ``fetch_offset``
    to ``fetched_last_offset``; writes the acquired offsets to ``out_offsets`` and returns how
    many (``ShareAcquiredRecords.count``)."""
    if max_fetch_records <= 0 or fetched_last_offset < sp[_START]:
        return 0
    end = sp[_END]
    last = fetched_last_offset
    in_flight = end - sp[_START] + 1 if sp[_CACHED] else 0
    max_records = min(max_fetch_records, max_in_flight_records - in_flight)
    if max_records <= 0:
        if sp[_CACHED] and fetch_offset <= end:  # re-acquire inside the cached range only
            max_records = min(max_fetch_records, end - fetch_offset + 1)
            last = min(last, end)
        else:
            return 0
    base = fetch_offset
    while base > 0 and batch_last[base - 1] == batch_last[fetch_offset]:
        base -= 1  # the fetched data starts at the log batch holding fetch_offset
    base = max(base, sp[_START])
    until = now_ms + lock_duration_ms  # scheduleAcquisitionLockTimeout
    count = 0
    if sp[_CACHED] and base <= end:
        o = base
        stop = min(last, end)
        while o <= stop:
            if count >= max_records:  # checked before each in-flight batch
                break
            batch_end = inflight_last[o]
            while o <= min(batch_end, stop):
                if record_limit and count >= max_records:
                    break
                if record_state[o] == AVAILABLE:
                    count = _take(o, member, record_state, delivery_count, lock_expiry_ms,
                                  owner, until, out_offsets, count)
                o += 1
            if record_limit and count >= max_records:
                break
            o = batch_end + 1
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
    if not record_limit and new_last - first_new + 1 > batch_size:
        b = first_new
        while b <= new_last:
            if b - cut >= batch_size:
                inflight_last[cut:b] = b - 1
                cut = b
            b = batch_last[b] + 1
    inflight_last[cut:new_last + 1] = new_last
    for o in range(first_new, new_last + 1):
        if record_limit and o - first_new >= remaining:
            record_state[o] = AVAILABLE  # record_limit: the rest of the batch stays available
        else:
            count = _take(o, member, record_state, delivery_count, lock_expiry_ms, owner,
                          until, out_offsets, count)
    if not sp[_CACHED]:
        sp[_START] = first_new
        sp[_CACHED] = 1
    sp[_END] = max(sp[_END], new_last)
    return count


def advance_start_offset(sp: np.ndarray, record_state: np.ndarray) -> None:
    """``maybeUpdateCachedStateAndOffsets``: SPSO moves past ACKNOWLEDGED/ARCHIVED records; when
    all cached records are, the cache empties and SPSO = SPEO = the next offset."""
    if not sp[_CACHED]:
        return
    o = sp[_START]
    while o <= sp[_END] and (record_state[o] == ACKNOWLEDGED or record_state[o] == ARCHIVED):
        o += 1
    if o > sp[_END]:
        sp[_START] = sp[_END] + 1
        sp[_END] = sp[_END] + 1
        sp[_CACHED] = 0
    else:
        sp[_START] = o


def _release(o: int, record_state: np.ndarray, delivery_count: np.ndarray,
             owner: np.ndarray, max_delivery_count: int) -> bool:
    """AVAILABLE again, or ARCHIVED at the delivery limit; whether it is available."""
    owner[o] = -1
    if delivery_count[o] >= max_delivery_count:
        record_state[o] = ARCHIVED
        return False
    record_state[o] = AVAILABLE
    return True


def acknowledge(sp: np.ndarray, record_state: np.ndarray, delivery_count: np.ndarray,
                owner: np.ndarray, member: int, first_offset: int, last_offset: int,
                ack_type: int, max_delivery_count: int) -> int:
    """``SharePartition.acknowledge`` of ``first..last`` by ``member`` with ACCEPT, RELEASE or
    REJECT; -1 (nothing changed: ``InvalidRecordStateException``) unless every record there is
    ACQUIRED by ``member``; else the records acknowledged."""
    if first_offset < sp[_START] or last_offset > sp[_END] or not sp[_CACHED]:
        return -1
    for o in range(first_offset, last_offset + 1):
        if record_state[o] != ACQUIRED or owner[o] != member:
            return -1
    for o in range(first_offset, last_offset + 1):
        if ack_type == ACCEPT:
            record_state[o] = ACKNOWLEDGED
            owner[o] = -1
        elif ack_type == REJECT:
            record_state[o] = ARCHIVED
            owner[o] = -1
        else:
            _release(o, record_state, delivery_count, owner, max_delivery_count)
    advance_start_offset(sp, record_state)
    return last_offset - first_offset + 1


def expire_locks(sp: np.ndarray, record_state: np.ndarray, delivery_count: np.ndarray,
                 lock_expiry_ms: np.ndarray, owner: np.ndarray, max_delivery_count: int,
                 now_ms: int) -> int:
    """``AcquisitionLockTimerTask``: ACQUIRED records whose lock expired by ``now_ms`` become
    AVAILABLE (or ARCHIVED at the delivery limit); returns how many are available again."""
    if not sp[_CACHED]:
        return 0
    redelivered = 0
    for o in range(sp[_START], sp[_END] + 1):
        if (record_state[o] == ACQUIRED and lock_expiry_ms[o] <= now_ms
                and _release(o, record_state, delivery_count, owner, max_delivery_count)):
            redelivered += 1
    advance_start_offset(sp, record_state)
    return redelivered
