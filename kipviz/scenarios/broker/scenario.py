"""A broker's network thread reading requests under KIP-72's memory pool, tick by tick.

What it models (Kafka's ``Selector`` / ``KafkaChannel`` with a ``MemoryPool``, ``SocketServer``'s
``Processor``, ``RequestChannel`` and the request handler threads):

* C client connections send requests (open loop: each connection's requests arrive as a Poisson
  stream and wait in its socket in order). Most are small produce requests; during a spike window
  a share of them are large, like the KIP's Hadoop job.
* Each tick the network thread polls once (``Selector.poll``). First, if the pool is no longer
  out of memory (available > 0) but channels were muted for memory, they are unmuted. Then it goes
  over the ready channels (a request has arrived, not muted) in key order (connection id),
  shuffled when ``shuffle`` is on and :func:`kipviz.kafka.broker.network.should_shuffle_keys` says
  so (available < 10% of the pool and no channel muted for memory). The shuffle is Kafka's
  (``Collections.shuffle`` with a ``java.util.Random``); the Random is seeded from its own stream
  of the run's seed (``_broker_kernel.shuffle_seed``), so passing in the workload the seed would
  generate gives the same trace. A channel whose next request size is known reads it only if
  ``pool.try_allocate(size)`` succeeds; otherwise it is muted for memory.
* A read request goes into the request queue and its channel is muted until the response is sent
  (one outstanding request per connection). When the queue holds ``queued.max.requests`` requests
  the network thread waits for a handler to take one (Kafka's processor blocks on the full
  ``RequestChannel``); if no handler is free before the tick ends, it stops reading this tick.
* ``num.io.threads`` handlers take requests first in, first out (after the poll, or as soon as
  the full queue needs a slot), each processing ``handler_bytes_per_s`` bytes a second, starting
  when both the handler and the request are there; at the first tick at or after a request's
  processing ends, its memory goes back to the pool (``pool.release``), its response is sent and
  its channel unmuted.

Without a pool (``queued.max.request.bytes`` <= 0, Kafka's default) every read succeeds: memory is
bounded only by one request per connection, which is what ran brokers out of heap.

* A share ``invalid_share`` of the requests is complete but invalid (an unsupported version, a
  corrupt body): ``Processor.processCompletedReceives`` throws and closes the connection (its
  client reconnects and sends its next request). Under ``kafka_version`` 4.0 and 4.1 the
  request's buffer never goes back to the pool (KAFKA-20302, fixed in 3.9.3, 4.2.1, 4.3.0:
  :func:`kipviz.kafka.broker.receive.releases_invalid_request_buffer`): the pool shrinks for
  good, ``meta["leaked_bytes"]``.

The loop over ticks and the channels ready in each tick is the kernel in
:mod:`kipviz.scenarios.broker.kernel`: compiled by numba by default, plain Python with
``compiled=False`` (the same function; the same trace).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

import numpy as np
import pandas as pd

from kipviz.kafka.broker.network import broker_pool
from kipviz.kafka.broker.pool import DEPLETED, LOW_MEM, NO_POOL, max_outstanding_bytes, pool_state
from kipviz.kafka.broker.receive import releases_invalid_request_buffer
from kipviz.kafka.config.declarations import BROKER
from kipviz.kafka.config.fields import check_declared, flag, kafka_field, knob, values_from
from kipviz.kafka.config.settings import BrokerConfig, check_request_pool
from kipviz.kafka.config.versions import kafka_version_field
from kipviz.kafka.units import MiB
from kipviz.scenarios import limits
from kipviz.scenarios.broker.kernel import (
    BrokerRequests,
    BrokerSettings,
    BrokerTicks,
    RequestTimes,
    broker_kernel,
    compiled_kernel,
    java_random,
    shuffle_seed,
)
from kipviz.scenarios.broker.meta import BrokerMeta
from kipviz.scenarios.contract import input_rng

__all__ = ["BrokerScenario", "BrokerTrace", "generate_requests", "request_wait_ms", "simulate"]


@dataclass(frozen=True)
class BrokerScenario:
    """One broker listener, its Kafka settings and the clients around it; vary it with ``replace``.

    Request sizes: ``small_request_bytes`` always, except that during the spike
    ``[spike_start_ms, spike_start_ms + spike_duration_ms)`` a request is ``large_request_bytes``
    with probability ``large_share``. ``strict`` is a kipviz what-if (a broker's pool is never
    strict); ``shuffle=False`` is a what-if too (Kafka shuffles ready keys under memory pressure).
    """

    connections: int = knob(100, at_least=1)
    # <= 0 (Kafka's default -1): no pool; else >= socket.request.max.bytes
    # (kipviz.kafka.broker.pool)
    queued_max_request_bytes: int = kafka_field(BROKER["queued.max.request.bytes"])
    socket_request_max_bytes: int = kafka_field(BROKER["socket.request.max.bytes"])
    strict: bool = flag(False)
    shuffle: bool = flag(True)
    queued_max_requests: int = kafka_field(BROKER["queued.max.requests"])
    small_request_bytes: int = knob(16 * 1024, at_least=1)
    large_request_bytes: int = knob(10 * MiB, at_least=1)
    large_share: float = knob(0.1, at_least=0.0, at_most=1, number=True)
    spike_start_ms: int = knob(5000, at_least=0)
    spike_duration_ms: int = knob(2000, at_least=0)
    requests_per_s_per_connection: float = knob(20.0, at_least=0.0, number=True)
    num_io_threads: int = kafka_field(BROKER["num.io.threads"])
    handler_bytes_per_s: float = knob(100e6, above=0.0, number=True)  # per I/O thread
    tick_ms: int = knob(10, at_least=1)
    ticks: int = knob(2000, at_least=1)
    # complete but invalid requests (processCompletedReceives throws: KAFKA-20302 by release)
    invalid_share: float = knob(0.0, at_least=0.0, at_most=1, number=True)
    kafka_version: str = kafka_version_field()

    def __post_init__(self) -> None:
        check_declared(self)  # each field's rule, from its declaration (kipviz.kafka.config.fields)
        # queued.max.request.bytes: -1/<= 0 (no pool) or >= socket.request.max.bytes
        check_request_pool(self.queued_max_request_bytes, self.socket_request_max_bytes)
        for name in ("small_request_bytes", "large_request_bytes"):
            size = getattr(self, name)
            if size > self.socket_request_max_bytes:
                raise ValueError(f"{name} must be <= socket.request.max.bytes "
                                 f"({self.socket_request_max_bytes}; a broker closes the "
                                 f"connection of a larger request): {size}")

    @classmethod
    def from_configs(cls, broker: BrokerConfig, **scenario: Any) -> BrokerScenario:
        """A scenario with the settings of a broker's Kafka config that it models (pool, queue
        and handlers: :func:`kipviz.kafka.config.fields.values_from`); ``scenario`` sets the
        rest."""
        return cls(**{**values_from(cls, broker), **scenario})

    @property
    def releases_invalid(self) -> bool:
        """Whether an invalid request's buffer comes back: the release has KAFKA-20302's fix, or
        there is no pool (the heap buffer is garbage collected)."""
        return not self.has_pool or releases_invalid_request_buffer(self.kafka_version)

    @property
    def has_pool(self) -> bool:
        """False when ``queued.max.request.bytes`` <= 0: Kafka's ``MemoryPool.NONE``."""
        return self.queued_max_request_bytes > 0

    def bounds(self, max_request_bytes: int | None = None) -> dict[str, int | None]:
        """The analytic memory bounds drawn beside the simulated pool use.

        ``outstanding_bound_bytes``: :func:`kipviz.kafka.broker.pool.max_outstanding_bytes` (None
        without a pool). ``per_connection_bound_bytes``: one request per connection, the only bound
        without a pool.
        """
        largest = max(self.small_request_bytes, self.large_request_bytes) \
            if max_request_bytes is None else max_request_bytes
        outstanding = max_outstanding_bytes(
            self.queued_max_request_bytes, self.socket_request_max_bytes, self.strict,
        ) if self.has_pool else None
        return {"outstanding_bound_bytes": outstanding,
                "per_connection_bound_bytes": self.connections * largest}


@dataclass(frozen=True)
class BrokerTrace:
    """Columnar output: ``ticks`` and ``requests`` tables and ``meta`` (docs/traces.md)."""

    ticks: pd.DataFrame
    requests: pd.DataFrame
    meta: BrokerMeta


_REQUEST_COLUMNS = {"connection": np.int32, "request_id": np.int64, "size_bytes": np.int64,
                    "arrival_ms": np.int64, "read_ms": np.int64, "done_ms": np.int64}
_TICK_COLUMNS = {"time_ms": np.int64, "pool_used_bytes": np.int64,
                 "pool_available_bytes": np.int64, "requests_in_queue": np.int32,
                 "muted_for_memory": np.int32, "bytes_read": np.int64, "shuffled": np.bool_}


def generate_requests(scenario: BrokerScenario, rng: np.random.Generator) -> pd.DataFrame:
    """The requests clients send: ``connection``, ``arrival_ms`` (on the tick grid), ``size_bytes``
    and, when ``invalid_share`` > 0, ``invalid`` (drawn last: the other columns stay the same).

    Per connection and tick a Poisson number of requests arrive at the tick's start.
    """
    s = scenario
    lam = s.requests_per_s_per_connection * s.tick_ms / 1000.0
    counts = rng.poisson(lam, size=(s.connections, s.ticks))
    conn, tick = np.nonzero(counts)
    reps = counts[conn, tick]
    arrival_ms = np.repeat(tick.astype(np.int64) * s.tick_ms, reps)
    spike_end = s.spike_start_ms + s.spike_duration_ms
    in_spike = (arrival_ms >= s.spike_start_ms) & (arrival_ms < spike_end)
    large = in_spike & (rng.random(arrival_ms.size) < s.large_share)
    out = pd.DataFrame({
        "connection": np.repeat(conn.astype(np.int32), reps),
        "arrival_ms": arrival_ms,
        "size_bytes": np.where(large, s.large_request_bytes, s.small_request_bytes).astype(
            np.int64),
    })
    if s.invalid_share > 0:
        out["invalid"] = rng.random(len(out)) < s.invalid_share
    return out


def _checked_requests(scenario: BrokerScenario, requests: pd.DataFrame) -> pd.DataFrame:
    """Given requests sorted by arrival then connection (stable), with their ``request_id``."""
    missing = {"connection", "arrival_ms", "size_bytes"} - set(requests.columns)
    if missing:
        raise ValueError(f"requests lack columns {sorted(missing)}")
    conn = requests["connection"].to_numpy(np.int32)
    arrival = requests["arrival_ms"].to_numpy(np.int64)
    size = requests["size_bytes"].to_numpy(np.int64)
    if len(conn) and not 0 <= conn.min() <= conn.max() <= scenario.connections - 1:
        raise ValueError(f"requests name connections outside 0..{scenario.connections - 1}")
    if len(arrival) and arrival.min() < 0:
        raise ValueError("requests arrival_ms must be >= 0")
    if len(size) and not 1 <= size.min() <= size.max() <= scenario.socket_request_max_bytes:
        raise ValueError(f"requests size_bytes must be between 1 and socket.request.max.bytes "
                         f"({scenario.socket_request_max_bytes})")
    invalid = (requests["invalid"].to_numpy(np.int64) if "invalid" in requests.columns
               else np.zeros(len(conn), np.int64))
    order = np.lexsort((conn, arrival))  # stable: by arrival, then connection
    return pd.DataFrame({"connection": conn[order],
                         "request_id": np.arange(len(order), dtype=np.int64),
                         "arrival_ms": arrival[order], "size_bytes": size[order],
                         "invalid": invalid[order]})


def _busy_handlers(s: BrokerScenario) -> int:
    """I/O threads that can ever be busy: each connection has at most one request outstanding
    (the ``Selector`` mutes it until its response is sent), so threads beyond ``connections``
    stay idle and the kernel need not scan them."""
    return min(s.num_io_threads, s.connections)


def simulate(scenario: BrokerScenario, *, seed: int = 0, requests: pd.DataFrame | None = None,
             compiled: bool = True) -> BrokerTrace:
    """Run the scenario; the same scenario and seed give the same trace.

    ``requests`` (columns ``connection``, ``arrival_ms``, ``size_bytes``) replaces the generated
    workload, for worked timelines; the seed then drives only the key shuffling. ``compiled=False``
    runs the kernel as plain Python (slow; a reference).
    """
    s = scenario
    limits.check_broker(s)  # refuse what would not fit in memory
    rng = input_rng(seed)  # SeedSequence(seed); the shuffles take their own child of it
    if requests is None:
        requests = generate_requests(s, rng)
    req = _checked_requests(s, requests)
    pool = broker_pool(s.queued_max_request_bytes, s.socket_request_max_bytes, strict=s.strict)
    state = pool_state(pool)
    n = len(req)
    times = RequestTimes(read_ms=np.full(n, -1, np.int64), done_ms=np.full(n, -1, np.int64))
    tk = BrokerTicks(**{name: np.zeros(s.ticks, _TICK_COLUMNS[name])
                        for name in BrokerTicks._fields})
    kernel = compiled_kernel() if compiled else broker_kernel
    kernel(BrokerRequests(**{name: req[name].to_numpy(np.int64)
                             for name in BrokerRequests._fields}),
           BrokerSettings(connections=int(s.connections), tick_ms=int(s.tick_ms),
                          ticks=int(s.ticks), queued_max_requests=int(s.queued_max_requests),
                          num_io_threads=int(_busy_handlers(s)),
                          bytes_per_ms=float(s.handler_bytes_per_s / 1000.0),
                          shuffle=bool(s.shuffle), releases_invalid=bool(s.releases_invalid)),
           state, java_random(shuffle_seed(seed)), times, tk)
    ticks = pd.DataFrame({"time_ms": np.arange(s.ticks, dtype=np.int64) * s.tick_ms,
                          **{name: getattr(tk, name) for name in list(_TICK_COLUMNS)[1:]}})
    req["read_ms"] = times.read_ms
    req["done_ms"] = times.done_ms
    invalid_read = (req.invalid > 0) & (req.read_ms >= 0)
    leaked = 0 if s.releases_invalid else int(req.size_bytes[invalid_read].sum())
    req = req[list(_REQUEST_COLUMNS)].astype(_REQUEST_COLUMNS)
    largest = int(req.size_bytes.max()) if n else 0
    meta = cast(BrokerMeta, {  # its keys are checked by tests/scenarios/test_scenario_contract.py
        "connections": s.connections, "tick_ms": s.tick_ms, "ticks": s.ticks, "seed": seed,
        "queued_max_request_bytes": s.queued_max_request_bytes,
        "socket_request_max_bytes": s.socket_request_max_bytes,
        "queued_max_requests": s.queued_max_requests,
        "no_pool": pool is NO_POOL, "strict": s.strict and pool is not NO_POOL,
        "shuffle": s.shuffle,
        "low_memory_threshold_bytes": int(state[LOW_MEM]) if s.has_pool else None,
        "depleted_time_total_ms": float(state[DEPLETED]),
        "max_request_bytes": largest, "kafka_version": s.kafka_version,
        "invalid_requests": int(invalid_read.sum()), "leaked_bytes": leaked,
        **s.bounds(largest),
    })
    return BrokerTrace(ticks=ticks, requests=req, meta=meta)


def request_wait_ms(trace: BrokerTrace) -> pd.Series:
    """Per request, ``read_ms - arrival_ms`` (NaN for requests never read)."""
    r = trace.requests
    return (r.read_ms - r.arrival_ms).where(r.read_ms >= 0).astype(np.float64)

