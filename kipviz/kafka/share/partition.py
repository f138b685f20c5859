"""KIP-932: a share partition's record states, as plain functions on arrays numba can compile.

Kafka's ``SharePartition`` (``core/.../server/share/SharePartition.java``, ``InFlightState``)
keeps, for one partition of one share group, the records between the share-partition start
offset (SPSO) and end offset (SPEO), each AVAILABLE (0), ACQUIRED (1) by a member with a lock
and a delivery count, ACKNOWLEDGED (2) or ARCHIVED (4) (``RecordState`` ids), grouped in
in-flight batches (``inflight_last[o]``: the last offset of o's batch; ``split[o]``: the batch
keeps a state per offset, ``InFlightBatch.offsetState``). Acquiring is
:mod:`kipviz.kafka.share.acquire`; here the rest:

* In flight = ``SPEO - SPSO + 1`` records while any are cached, whatever their state
  (``numInFlightRecords``); the next fetch starts at the first AVAILABLE cached record.
* When a lock (``group.share.record.lock.duration.ms``, 30000) expires, or a record is
  released, it is AVAILABLE again, or ARCHIVED once its delivery count has reached
  ``group.share.delivery.count.limit`` (5) (``InFlightState.tryUpdateState``). ACCEPT makes it
  ACKNOWLEDGED, REJECT ARCHIVED. SPSO then moves past the acknowledged/archived prefix; when
  everything cached is done the cache empties and SPSO = SPEO = last + 1.

Not modelled: the persister's read-gap window and compaction gaps, transactions, the DLQ.
Offsets are array indices from 0. A partition's state is a :class:`SharePartitionState` of
arrays (numba takes it as it is); its scalars are ``sp = [SPSO, SPEO, cached]`` (int64; SPEO is
the next offset when nothing is cached).

>>> part = new_share_partition(20)
>>> in_flight_records(part.sp), next_fetch_offset(part.sp, part.record_state)
(0, 0)
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

__all__ = [
    "ACCEPT",
    "ACKNOWLEDGED",
    "ACQUIRED",
    "ARCHIVED",
    "AVAILABLE",
    "REJECT",
    "RELEASE",
    "SharePartitionState",
    "acknowledge",
    "advance_start_offset",
    "expire_locks",
    "in_flight_batch_first",
    "in_flight_records",
    "new_share_partition",
    "next_fetch_offset",
]

AVAILABLE, ACQUIRED, ACKNOWLEDGED, ARCHIVED = 0, 1, 2, 4  # RecordState ids
ACCEPT, RELEASE, REJECT = 1, 2, 3  # AcknowledgeType ids
_START, _END, _CACHED = 0, 1, 2


class SharePartitionState(NamedTuple):
    """One share partition's state, one entry per offset but ``sp``: ``[SPSO, SPEO, cached]``,
    each record's ``RecordState`` id, delivery count, lock expiry (ms) and owner (-1: nobody),
    the last offset of its in-flight batch, and ``split`` (1: its batch keeps a state per offset,
    ``InFlightBatch.offsetState``)."""

    sp: np.ndarray
    record_state: np.ndarray
    delivery_count: np.ndarray
    lock_expiry_ms: np.ndarray
    owner: np.ndarray
    inflight_last: np.ndarray
    split: np.ndarray


def new_share_partition(capacity: int) -> SharePartitionState:
    """Empty state for offsets ``0 .. capacity - 1``."""
    return SharePartitionState(
        sp=np.zeros(3, np.int64), record_state=np.zeros(capacity, np.int8),
        delivery_count=np.zeros(capacity, np.int32), lock_expiry_ms=np.zeros(capacity, np.int64),
        owner=np.full(capacity, -1, np.int32), inflight_last=np.zeros(capacity, np.int64),
        split=np.zeros(capacity, np.int8))


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


def in_flight_batch_first(o: int, inflight_last: np.ndarray) -> int:
    """The first offset of the in-flight batch holding ``o`` (batches end at ``inflight_last``)."""
    first = o
    while first > 0 and inflight_last[first - 1] == inflight_last[o]:
        first -= 1
    return first


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


def _release(record_state: np.ndarray, delivery_count: np.ndarray, owner: np.ndarray, o: int,
             max_delivery_count: int) -> bool:
    """AVAILABLE again, or ARCHIVED at the delivery limit; whether it is available. On the
    state's arrays, read once by the caller (a kernel inlines this per record: each read of a
    tuple's field there would count a reference)."""
    owner[o] = -1
    if delivery_count[o] >= max_delivery_count:
        record_state[o] = ARCHIVED
        return False
    record_state[o] = AVAILABLE
    return True


def acknowledge(part: SharePartitionState, member: int, first_offset: int, last_offset: int,
                ack_type: int, max_delivery_count: int) -> int:
    """``SharePartition.acknowledge`` of ``first..last`` by ``member`` with ACCEPT, RELEASE or
    REJECT; -1 (nothing changed: ``InvalidRecordStateException``) unless every record there is
    ACQUIRED by ``member``; else the records acknowledged. A batch acknowledged in part keeps a
    state per offset from then on."""
    sp, record_state, owner = part.sp, part.record_state, part.owner
    delivery_count, inflight_last, split = part.delivery_count, part.inflight_last, part.split
    if first_offset < sp[_START] or last_offset > sp[_END] or not sp[_CACHED]:
        return -1
    for o in range(first_offset, last_offset + 1):
        if record_state[o] != ACQUIRED or owner[o] != member:
            return -1
    for o in (first_offset, last_offset):  # the batches at both ends may be cut
        if split[o]:
            continue  # its batch already keeps a state per offset
        first = in_flight_batch_first(o, inflight_last)
        if first < first_offset or inflight_last[o] > last_offset:
            split[first:inflight_last[o] + 1] = 1
    for o in range(first_offset, last_offset + 1):
        if ack_type == ACCEPT:
            record_state[o] = ACKNOWLEDGED
            owner[o] = -1
        elif ack_type == REJECT:
            record_state[o] = ARCHIVED
            owner[o] = -1
        else:
            _release(record_state, delivery_count, owner, o, max_delivery_count)
    advance_start_offset(sp, record_state)
    return last_offset - first_offset + 1


def expire_locks(part: SharePartitionState, max_delivery_count: int, now_ms: int) -> int:
    """``AcquisitionLockTimerTask``: ACQUIRED records whose lock expired by ``now_ms`` become
    AVAILABLE (or ARCHIVED at the delivery limit); returns how many are available again."""
    sp, record_state, lock_expiry_ms = part.sp, part.record_state, part.lock_expiry_ms
    delivery_count, owner = part.delivery_count, part.owner
    if not sp[_CACHED]:
        return 0
    redelivered = 0
    for o in range(sp[_START], sp[_END] + 1):
        if (record_state[o] == ACQUIRED and lock_expiry_ms[o] <= now_ms
                and _release(record_state, delivery_count, owner, o, max_delivery_count)):
            redelivered += 1
    advance_start_offset(sp, record_state)
    return redelivered
