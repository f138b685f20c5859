"""KIP-227's incremental fetch sessions: the order in which a broker reads a consumer's partitions.

Since Kafka 1.1 (fetch request v7) a consumer keeps one fetch session per broker, and the
*session*, not the request, decides the order in which the broker reads its partitions:

* **A full fetch** (the first one to a broker, or the next one after the session was evicted or
  never created: ``max.incremental.fetch.session.cache.slots`` full, or set to 0) is read in
  request order, and the broker creates the session with its partitions in that order
  (``FullFetchContext.createNewSession``).
* **An incremental fetch** lists only what changed: the consumer's
  ``FetchSessionHandler.Builder.build`` sends the partitions it adds (in request order) and
  *forgets* those of the session it left out of this request. The broker's
  ``FetchSession.update`` appends the added ones to the session and removes the forgotten ones;
  ``IncrementalFetchContext.foreachPartition`` then walks ``session.partitionMap()`` and
  ``ReplicaManager.readFromLog`` reads in that order. When the response is built, every partition
  that returned records is moved to the end of the session (``partitionMap().remove(cachedPart);
  mustAdd(cachedPart)``; ``core/.../FetchSession.scala`` to 4.2, ``server/.../FetchContext.java``
  from 4.3).
* **Before 3.0** (KAFKA-12330, apache/kafka#10318) a partition moved whenever it was in the
  incremental response at all (``mustRespond``: records, or a changed high watermark, log start
  offset or error), so busy partitions kept their places and the response limit could starve the
  ones behind them.

So the consumer's request order (KIP-74's move-to-end, or the hash order of 3.7 to 4.1) decides
only full fetches and where re-added partitions go. Which partitions a consumer leaves out is
:func:`kipviz.kafka.fetch.request.request_partitions`'s rule: before 4.0 every partition with
buffered data (so a lagging consumer forgets and re-adds partitions all the time); from 4.0
(KAFKA-17182) none but the unfetchable ones (paused partitions are forgotten and re-added at the
end when resumed). A throttled response (KIP-219) changes no order; a throttled *full* fetch
creates no session (``FetchSessionHandler.handleResponse``: the next fetch is full again).
The session cache itself (``FetchSessionCache``: ``max.incremental.fetch.session.cache.slots``,
default 1000; a session may be evicted when unused for 120 s, hard-coded, or by a bigger one
once it is 120 s old; sharded eight ways from 3.8, KAFKA-9401) is not simulated:
``incremental_fetch_sessions=False`` models a consumer whose every fetch is full.

These are the Java client's and broker's rules (:func:`java_fetch_order` picks them by release);
a client whose requests or sessions differ gets a function beside it. The state is
:class:`FetchSessions` (every broker's session as arrays); :func:`open_request`,
:func:`session_moves` and :func:`close_response` are plain loops that the consumer kernel compiles
with numba.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from kipviz.kafka.config.versions import has, request_ordering
from kipviz.kafka.fetch.request import Ordering, next_order

__all__ = ["SESSION_FUNCTIONS", "FetchOrder", "FetchSessions", "close_response", "java_fetch_order",
           "listed_in_response", "new_fetch_sessions", "open_request", "session_moves"]

# what a kernel compiles with its own loop (kipviz.scenarios.jit.jit_functions over this module)
SESSION_FUNCTIONS = ("open_request", "listed_in_response", "session_moves", "close_response")
FIRST_SESSION_FETCH_VERSION = 7  # FetchRequest v7 carries SessionId and SessionEpoch (KIP-227)


class FetchOrder(NamedTuple):
    """How a consumer's partitions are ordered: the consumer's ``request`` order (an
    :class:`~kipviz.kafka.fetch.request.Ordering` that is not ``SESSION``), whether incremental
    fetches are read in the session's order (``sessions``), whether partitions left out of a
    request leave the session (``forget_left_out``: the real consumer; not for the idealised
    ``Ordering.SESSION``), and whether a partition moves to the session's end on a high-watermark
    change alone (``moves_on_high_watermark``: before 3.0)."""

    request: Ordering
    sessions: bool
    forget_left_out: bool
    moves_on_high_watermark: bool


def java_fetch_order(kafka_version: str, ordering: Ordering | None = None, *,
                     incremental_fetch_sessions: bool = True,
                     fetch_version: int | None = None) -> FetchOrder:
    """The Java consumer's order on ``kafka_version``.

    ``ordering=None`` is the release's own: its request order
    (:func:`kipviz.kafka.config.versions.request_ordering`) for full fetches and re-added
    partitions, and, when it sends fetch request v7+ with ``incremental_fetch_sessions``, the
    session's order for incremental ones. ``Ordering.SESSION`` is the session's rotation alone
    (no partition ever forgotten), from the release's request order; any other ordering is that
    order for every fetch, with no session.

    >>> java_fetch_order("4.1")[:2]
    (<Ordering.HASH: 2>, True)
    >>> java_fetch_order("4.1", incremental_fetch_sessions=False).sessions
    False
    >>> java_fetch_order("2.8", Ordering.SESSION)[1:]
    (True, False, True)
    """
    moves_on_hw = not has(kafka_version, "session_moves_records_only")
    if ordering is not None and Ordering(ordering) != Ordering.SESSION:
        return FetchOrder(Ordering(ordering), False, False, moves_on_hw)
    sends_sessions = (has(kafka_version, "fetch_sessions")
                      and (fetch_version is None or fetch_version >= FIRST_SESSION_FETCH_VERSION))
    if ordering is None:
        return FetchOrder(request_ordering(kafka_version),
                          sends_sessions and incremental_fetch_sessions, True, moves_on_hw)
    return FetchOrder(request_ordering(kafka_version), True, False, moves_on_hw)


class FetchSessions(NamedTuple):
    """Every broker's fetch session with one consumer, as arrays (one consumer, B brokers, P
    partitions; partition p belongs to one broker's session at most).

    ``order[start[b] : start[b] + size[b]]`` is broker b's session in order; ``size[b]`` is -1
    while b has no session (its next fetch is full); ``full[b]``: b's request being answered is a
    full fetch. Per partition: ``member`` (in its broker's session), ``high_watermark`` (the one
    the session cached, -1 unknown), ``moved`` (it moves to the end after this response) and
    ``mark`` (working space, 0 between calls).
    """

    order: np.ndarray
    start: np.ndarray
    size: np.ndarray
    full: np.ndarray
    member: np.ndarray
    high_watermark: np.ndarray
    moved: np.ndarray
    mark: np.ndarray


def new_fetch_sessions(order_start: np.ndarray, partitions: int) -> FetchSessions:
    """No session yet with any of the brokers; broker b's session can hold the
    ``order_start[b + 1] - order_start[b]`` partitions it serves."""
    brokers = order_start.shape[0] - 1
    return FetchSessions(
        order=np.zeros(max(1, partitions), np.int64), start=order_start.astype(np.int64),
        size=np.full(brokers, -1, np.int64), full=np.zeros(brokers, np.bool_),
        member=np.zeros(partitions, np.bool_), high_watermark=np.full(partitions, -1, np.int64),
        moved=np.zeros(partitions, np.bool_), mark=np.zeros(partitions, np.int64))


def open_request(s, b, request, places, n, forget_left_out):
    """What a fetch request of ``n`` partitions (``request[:n]``, in request order, standing at
    ``places[:n]`` in the consumer's order) does to broker b's session; rewrites ``request`` and
    ``places`` into the order the broker reads them.

    Without a session the fetch is full: read in request order, and the session is created with
    those partitions in that order. Otherwise (incremental) partitions of the session left out
    of the request are forgotten (with ``forget_left_out``), the request's new ones appended in
    request order with no cached high watermark, and the broker reads the session's order.
    """
    lo = s.start[b]
    s.full[b] = s.size[b] < 0
    if s.full[b]:
        for k in range(n):
            s.order[lo + k] = request[k]
            s.member[request[k]] = True
        s.size[b] = n
        return
    for k in range(n):
        s.mark[request[k]] = places[k] + 1
    m = 0
    for j in range(s.size[b]):  # FetchSession.update: toForget
        p = s.order[lo + j]
        if s.mark[p] > 0 or not forget_left_out:
            s.order[lo + m] = p
            m += 1
        else:
            s.member[p] = False
    for k in range(n):  # Builder.build's added partitions, in request order: mustAdd
        p = request[k]
        if not s.member[p]:
            s.order[lo + m] = p
            s.member[p] = True
            s.high_watermark[p] = -1
            m += 1
    s.size[b] = m
    k = 0
    for j in range(m):  # IncrementalFetchContext.foreachPartition: the session's order
        p = s.order[lo + j]
        if s.mark[p] > 0:
            request[k] = p
            places[k] = s.mark[p] - 1
            s.mark[p] = 0
            k += 1


def listed_in_response(full_fetch, cached_high_watermark, raw_bytes, high_watermark, sessions):
    """Whether a partition of a request is in the response at all, from its broker session's
    ``full`` flag and the partition's cached high watermark (read before :func:`session_moves`
    caches the new one; plain scalars, so the kernel's call per partition costs nothing): every
    partition of a full fetch (or of every fetch without ``sessions``); of an incremental one
    those that returned records, are new to the session (no cached high watermark) or whose high
    watermark moved (``CachedPartition.maybeUpdateResponseData``, FetchSession's
    ``mustRespond``). The Java consumer queues a ``CompletedFetch`` for each, records or none
    (``AbstractFetch.handleFetchSuccess``), measured on real 3.9.2 and 4.4.0 consumers."""
    return (raw_bytes > 0 or not sessions or full_fetch
            or cached_high_watermark != high_watermark)


def session_moves(s, b, p, raw_bytes, high_watermark, moves_on_high_watermark):
    """Whether partition p of broker b's response moves to the end of the session: it returned
    records (``raw_bytes > 0``; ``FetchResponse.recordsSize``), or, before 3.0, its high
    watermark changed from the one cached (``CachedPartition.maybeUpdateResponseData``). A full
    fetch moves nothing (it creates the session). Caches the high watermark."""
    moved = raw_bytes > 0 or (moves_on_high_watermark and high_watermark != s.high_watermark[p])
    s.high_watermark[p] = high_watermark
    moved = moved and not s.full[b]
    s.moved[p] = moved
    return moved


def close_response(s, b, throttled, flags, scratch):
    """After broker b's response: the partitions that moved go to the end of the session, in the
    session's order (``next_order``'s move-to-end). A throttled response (KIP-219) moves nothing,
    and a throttled full fetch creates no session. ``flags`` and ``scratch`` are working space
    (at least as long as the session)."""
    lo = s.start[b]
    n = s.size[b]
    if throttled and s.full[b]:
        for j in range(n):
            s.member[s.order[lo + j]] = False
        s.size[b] = -1
        return
    for j in range(n):
        p = s.order[lo + j]
        flags[j] = s.moved[p]
        s.moved[p] = False
    next_order(s.order[lo : lo + n], flags[:n], Ordering.SESSION, flags[:0], scratch)

