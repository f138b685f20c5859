"""The KIP-72 broker scenario's kernel: plain loops over numpy arrays that numba compiles.

:func:`broker_kernel` runs :mod:`kipviz.scenarios.broker`'s model tick by tick. Run as it is, it is
the plain-Python reference; :func:`compiled_kernel` is the same function compiled by numba (numba
is imported only then). What it needs from the mechanisms is written here in numba's terms:

* the pool (``kipviz.kafka.broker.pool.SimpleMemoryPool`` or ``NO_POOL``) as the int64 state row of
  :func:`kipviz.kafka.broker.pool.pool_state`, changed only by
  :mod:`kipviz.kafka.broker.pool`'s ``pool_*`` rules, the very functions the pool class runs
  on its own row;
* the key shuffle as Kafka's ``Selector`` does it, ``Collections.shuffle`` with a
  ``java.util.Random`` (:func:`java_shuffle`), here seeded instead of Java's unseeded one. Its
  48-bit state fits an int64 and its arithmetic gives the same bits compiled or not.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from kipviz.kafka.broker import pool as rules
from kipviz.kafka.broker.pool import (
    AVAILABLE,
    pool_out_of_memory,
    pool_release,
    pool_should_shuffle,
    pool_try_allocate,
)
from kipviz.scenarios.jit import compiled_functions, jit_functions

__all__ = ["BrokerRequests", "BrokerSettings", "BrokerTicks", "RequestTimes", "broker_kernel",
           "compiled_kernel", "java_random", "java_shuffle", "shuffle_seed"]

_NEVER = np.iinfo(np.int64).max
_MULTIPLIER, _ADDEND, _MASK = 0x5DEECE66D, 0xB, (1 << 48) - 1  # java.util.Random's LCG


def java_random(seed: int) -> int:
    """The state of ``new java.util.Random(seed)``: ``(seed ^ 0x5DEECE66D) & (2**48 - 1)``."""
    return (int(seed) ^ _MULTIPLIER) & _MASK


def shuffle_seed(seed: int) -> int:
    """The ``java.util.Random`` seed of a run's key shuffles: 48 bits of the first child of the
    run's ``SeedSequence`` (a stream independent of the workload's ``default_rng(seed)``, and
    unlike ``new Random(seed)`` not alike for nearby seeds)."""
    child = np.random.SeedSequence(seed, spawn_key=(0,))
    return int(child.generate_state(1, np.uint64)[0]) >> 16


def java_shuffle(keys, n, state):
    """``Collections.shuffle`` of ``keys[:n]`` in place with a ``java.util.Random`` in ``state``;
    returns the Random's next state. Every order is equally likely: Java's ``nextInt(bound)``
    is uniform over the generator's 31-bit draws (it rejects the few that would favour small
    values)."""
    for i in range(n, 1, -1):  # swap(list, i - 1, rnd.nextInt(i))
        state = (state * _MULTIPLIER + _ADDEND) & _MASK  # next(31)
        r = state >> 17
        if i & (i - 1) == 0:  # a power of two: the high bits
            r = (i * r) >> 31
        else:
            u = r
            r = u % i
            while u - r + (i - 1) > 0x7FFFFFFF:  # Java's int overflow: draw again
                state = (state * _MULTIPLIER + _ADDEND) & _MASK
                u = state >> 17
                r = u % i
        keys[i - 1], keys[r] = keys[r], keys[i - 1]
    return state


def take_requests(now, horizon, size, queue, head, tail, handlers, bytes_per_ms, proc_req,
                  proc_end, n_proc):
    """Handlers free before ``horizon`` (the tick's end) take queued requests first in, first
    out, the earliest free first; each starts at max(its free time, now). Returns the new queue
    head and the new number of requests in process."""
    while head < tail:
        h = 0
        for k in range(1, handlers.shape[0]):
            if handlers[k] < handlers[h]:
                h = k
        if not handlers[h] < horizon:
            break
        i = queue[head]
        head += 1
        end = max(handlers[h], float(now)) + size[i] / bytes_per_ms
        handlers[h] = end
        proc_req[n_proc] = i
        proc_end[n_proc] = end
        n_proc += 1
    return head, n_proc


class BrokerRequests(NamedTuple):
    """The kernel's requests, in id order (arrival, then connection)."""

    size_bytes: np.ndarray
    connection: np.ndarray
    arrival_ms: np.ndarray
    invalid: np.ndarray  # 1: complete but invalid (processCompletedReceives throws)


class BrokerSettings(NamedTuple):
    """The kernel's scalar settings."""

    connections: int
    tick_ms: int
    ticks: int
    queued_max_requests: int
    num_io_threads: int  # the handlers that can ever be busy
    bytes_per_ms: float  # one handler's processing rate
    shuffle: bool
    # an invalid request's buffer goes back (KAFKA-20302's releases, or no pool: the GC)
    releases_invalid: bool


class RequestTimes(NamedTuple):
    """Per request: when it was read and when its handler finished (-1: never)."""

    read_ms: np.ndarray
    done_ms: np.ndarray


class BrokerTicks(NamedTuple):
    """Per tick (the trace's ``ticks`` columns but ``time_ms``)."""

    pool_used_bytes: np.ndarray
    pool_available_bytes: np.ndarray
    requests_in_queue: np.ndarray
    muted_for_memory: np.ndarray
    bytes_read: np.ndarray
    shuffled: np.ndarray


def broker_kernel(
    requests, settings, pool, rand,
    # outputs
    out_requests, out_ticks,
):  # pragma: no cover - exercised compiled and uncompiled through simulate()
    """Run the model on :class:`BrokerRequests` under :class:`BrokerSettings`, with the pool's
    state row (:func:`kipviz.kafka.broker.pool.pool_state`) and the shuffling ``java.util.Random``'s
    state ``rand``. Fills :class:`RequestTimes`, :class:`BrokerTicks` and ``pool``; returns the
    Random's final state."""
    # the blocks' fields as locals, read by name once
    size, conn, arrival = requests.size_bytes, requests.connection, requests.arrival_ms
    invalid, releases_invalid = requests.invalid, settings.releases_invalid
    n_conn, tick_ms, ticks = settings.connections, settings.tick_ms, settings.ticks
    queued_max_requests, num_io_threads = settings.queued_max_requests, settings.num_io_threads
    bytes_per_ms, shuffle = settings.bytes_per_ms, settings.shuffle
    read_ms, done_ms = out_requests.read_ms, out_requests.done_ms
    t_used, t_available = out_ticks.pool_used_bytes, out_ticks.pool_available_bytes
    t_queue, t_muted = out_ticks.requests_in_queue, out_ticks.muted_for_memory
    t_read, t_shuffled = out_ticks.bytes_read, out_ticks.shuffled
    n = size.shape[0]
    # each connection's requests in arrival order: by_conn[conn_start[c]:conn_start[c + 1]]
    conn_start = np.zeros(n_conn + 1, np.int64)
    for i in range(n):
        conn_start[conn[i] + 1] += 1
    for c in range(n_conn):
        conn_start[c + 1] += conn_start[c]
    nxt = conn_start[:-1].copy()  # each connection's next unread request (position in by_conn)
    by_conn = np.zeros(n, np.int64)
    for i in range(n):
        by_conn[nxt[conn[i]]] = i
        nxt[conn[i]] += 1
    nxt[:] = conn_start[:-1]
    next_arrival = np.full(n_conn, _NEVER, np.int64)
    for c in range(n_conn):
        if nxt[c] < conn_start[c + 1]:
            next_arrival[c] = arrival[by_conn[nxt[c]]]
    outstanding = np.zeros(n_conn, np.bool_)  # read, response not yet sent: muted
    muted = np.zeros(n_conn, np.bool_)  # muted for memory
    n_muted = 0
    out_of_memory = False  # Selector.outOfMemory: a channel muted itself for memory
    ready = np.zeros(n_conn, np.int64)
    queue = np.zeros(n, np.int64)  # RequestChannel (FIFO): ids in queue[head:tail]
    head = 0
    tail = 0
    handlers = np.zeros(num_io_threads, np.float64)  # when each handler is free
    proc_req = np.zeros(n, np.int64)  # taken by a handler, memory not yet released
    proc_end = np.zeros(n, np.float64)
    n_proc = 0
    held = 0  # bytes read and not released (what NO_POOL does not count)
    for t in range(ticks):
        now = t * tick_ms
        # handlers that finished: memory back to the pool, response sent, channel unmuted
        kept = 0
        for j in range(n_proc):
            i = proc_req[j]
            if proc_end[j] <= now:
                pool_release(pool, size[i], now)
                held -= size[i]
                done_ms[i] = now
                outstanding[conn[i]] = False
            else:
                proc_req[kept] = i
                proc_end[kept] = proc_end[j]
                kept += 1
        n_proc = kept
        # Selector.poll: unmute channels muted for memory once the pool has recovered
        if out_of_memory and not pool_out_of_memory(pool):
            muted[:] = False
            n_muted = 0
            out_of_memory = False
        n_ready = 0
        for c in range(n_conn):
            if next_arrival[c] <= now and not outstanding[c] and not muted[c]:
                ready[n_ready] = c
                n_ready += 1
        shuffled = shuffle and pool_should_shuffle(pool, out_of_memory)
        if shuffled:
            rand = java_shuffle(ready, n_ready, rand)
        read = 0
        for k in range(n_ready):
            c = ready[k]
            if tail - head >= queued_max_requests:  # the channel is full: wait for handlers
                head, n_proc = take_requests(now, now + tick_ms, size, queue, head, tail,
                                             handlers, bytes_per_ms, proc_req, proc_end, n_proc)
                if tail - head >= queued_max_requests:
                    break  # none is free before the tick ends: stop reading this tick
            i = by_conn[nxt[c]]
            if not pool_try_allocate(pool, size[i], now):
                muted[c] = True
                n_muted += 1
                out_of_memory = True
                continue
            held += size[i]
            read += size[i]
            read_ms[i] = now
            if invalid[i]:  # processCompletedReceives throws: the connection is closed
                if releases_invalid:  # (the client reconnects and sends its next request)
                    pool_release(pool, size[i], now)
                    held -= size[i]
                done_ms[i] = now  # else the buffer is never released: the pool shrinks
            else:
                queue[tail] = i
                tail += 1
                outstanding[c] = True
            nxt[c] += 1
            next_arrival[c] = arrival[by_conn[nxt[c]]] if nxt[c] < conn_start[c + 1] else _NEVER
        t_used[t] = held
        t_available[t] = pool[AVAILABLE]
        t_queue[t] = tail - head
        t_muted[t] = n_muted
        t_read[t] = read
        t_shuffled[t] = shuffled
        head, n_proc = take_requests(now, now + tick_ms, size, queue, head, tail, handlers,
                                     bytes_per_ms, proc_req, proc_end, n_proc)
    return rand


_POOL_RULES = ("pool_try_allocate", "pool_release", "pool_out_of_memory", "pool_should_shuffle",
               "dry_spell_refused", "dry_spell_served")
_FUNCTIONS = ("java_shuffle", "take_requests", "broker_kernel")


def _compile() -> dict[str, Any]:
    pool = jit_functions(_POOL_RULES, vars(rules))  # compiled over their own module
    return {**pool, **jit_functions(_FUNCTIONS, {**globals(), **pool})}


def compiled_kernel(name: str = "broker_kernel") -> Any:
    """``broker_kernel`` (or one of its helpers, or of the pool rules, by name) compiled by
    numba, once per process (:func:`kipviz.scenarios.jit.compiled_functions`: the plain functions
    stay plain)."""
    return compiled_functions(__name__, _compile)[name]
