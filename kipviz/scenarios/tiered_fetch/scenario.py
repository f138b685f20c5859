"""Tiered storage (KIP-405): consumers catching up from remote storage beside consumers at the
tail, on one broker, by Kafka version.

``catch_up_consumers`` each read ``remote_partitions`` partitions that are ``backlog_bytes``
behind the local log start (their data is only in remote storage) and ``local_partitions`` at
the tail; ``tail_consumers`` read ``local_partitions`` at the tail only. Every partition is
produced to at ``produce_bytes_per_s``. The broker's rules are :mod:`kipviz.kafka.tiered.fetch`'s
(``readFromLog``, ``RemoteLogManager.read``, ``DelayedRemoteFetch``) with the version switches of
:mod:`kipviz.kafka.config.versions`, and KIP-956's fetch quota (:mod:`kipviz.kafka.tiered.quota`);
remote reads run on ``remote.log.reader.threads`` and take ``remote_read_latency_ms`` (set by
the user: it is the remote store's, not Kafka's); a read that finds
``remote.log.reader.max.pending.tasks`` reads waiting is refused (its partition answered with
the error, no data: a read row with ``started_ms`` -1 and ``done_ms`` = ``submitted_ms``). The
event loop is :mod:`kipviz.scenarios.tiered_fetch.kernel`.

The fairness story: a ``DelayedRemoteFetch`` holds the *local* partitions' data of its request
until every remote read is done (or ``remote.fetch.max.wait.ms``), so a catching-up consumer's
tail partitions wait on remote storage; the tail consumers wait only for their producers (a
fetch with nothing to read is a ``DelayedFetch``, answered with the next batch that lands, or
empty after ``fetch.max.wait.ms``: :func:`kipviz.kafka.fetch.response.delayed_fetch_complete_ms`).
Requests keep KIP-74's round robin (3.7 to 4.1 send them in hash order; not modelled here). Two
consumers due at the same instant are served lowest id first.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd

from kipviz.kafka.config.declarations import BROKER, CONSUMER
from kipviz.kafka.config.fields import check_declared, kafka_field, knob
from kipviz.kafka.config.versions import has, kafka_version_field
from kipviz.kafka.quotas.rate import bound_or_inf
from kipviz.kafka.tiered.fetch import (
    charges_remote_fetch_up_front,
    reads_several_remote_partitions,
    remote_fetch_wait_ms,
)
from kipviz.kafka.units import MiB
from kipviz.scenarios.limits import check_seed
from kipviz.scenarios.tiered_fetch import kernel as _k
from kipviz.scenarios.tiered_fetch.columns import (
    DELIVERY_ROWS,
    FETCH_ROWS,
    READ_ROWS,
    TieredTables,
)
from kipviz.scenarios.tiered_fetch.meta import TieredFetchMeta

__all__ = ["TieredFetchScenario", "TieredFetchTrace", "layout", "reader_queue_table", "simulate",
           "simulate_versions", "trace_summary"]



@dataclass(frozen=True)
class TieredFetchScenario:
    """One broker, its tiered-storage settings and its consumers; vary it with ``replace``."""

    kafka_version: str = kafka_version_field()  # 3.6 or later (tiered storage, KIP-405)
    catch_up_consumers: int = knob(1, at_least=0)
    tail_consumers: int = knob(1, at_least=0)
    remote_partitions: int = knob(4, at_least=0)
    local_partitions: int = knob(4, at_least=0)
    # per remote partition, behind the local log start
    backlog_bytes: int = knob(2048 * MiB, at_least=0)
    produce_bytes_per_s: float = knob(256 * 1024, at_least=0, number=True)  # per partition
    batch_bytes: int = knob(16 * 1024, at_least=1)
    # remote segments; the model asks for >= batch_bytes (Kafka: atLeast(1 MiB))
    segment_bytes: int = kafka_field(BROKER["log.segment.bytes"], at_least=None)
    fetch_max_bytes: int = kafka_field(CONSUMER["fetch.max.bytes"])
    max_partition_fetch_bytes: int = kafka_field(CONSUMER["max.partition.fetch.bytes"])
    fetch_max_wait_ms: int = kafka_field(CONSUMER["fetch.max.wait.ms"])
    remote_fetch_max_wait_ms: int = kafka_field(BROKER["remote.fetch.max.wait.ms"])
    remote_log_reader_threads: int = kafka_field(BROKER["remote.log.reader.threads"])
    # the reader pool's queue; the model asks for <= 1,000,000 (a slot each)
    remote_log_reader_max_pending_tasks: int = kafka_field(
        BROKER["remote.log.reader.max.pending.tasks"], at_most=1_000_000)
    remote_read_latency_ms: float = knob(100.0, at_least=0, number=True)  # first-byte latency
    remote_read_bytes_per_s: float = knob(100 * MiB, above=0, number=True)  # one reader thread
    # None: Long.MAX_VALUE, no quota
    remote_fetch_max_bytes_per_s: float | None = kafka_field(
        BROKER["remote.log.manager.fetch.max.bytes.per.second"], number=True)
    rtt_ms: float = knob(2.0, above=0, number=True)  # network round trip, client to broker and back
    duration_ms: int = knob(30_000, at_least=1)

    def __post_init__(self) -> None:
        check_declared(self)  # each field's rule, from its declaration (kipviz.kafka.config.fields)
        if not has(self.kafka_version, "tiered_storage"):
            raise ValueError(f"kafka_version must be 3.6 or later (tiered storage, KIP-405): "
                             f"{self.kafka_version!r}")
        if self.segment_bytes < self.batch_bytes:
            raise ValueError(f"segment_bytes (log.segment.bytes) must be >= batch_bytes "
                             f"({self.batch_bytes}): {self.segment_bytes}")
        if self.catch_up_consumers + self.tail_consumers == 0:
            raise ValueError("catch_up_consumers + tail_consumers must be >= 1: 0")

    @property
    def consumers(self) -> int:
        """Catch-up consumers first, then tail consumers."""
        return self.catch_up_consumers + self.tail_consumers

    def remote_partitions_per_consumer(self) -> np.ndarray:
        """Each consumer's count of partitions that start on the remote tier: the catch-up
        consumers' ``remote_partitions``, none for the others (every consumer also reads
        ``local_partitions`` at the log's tail)."""
        ids = np.arange(self.consumers, dtype=np.int64)
        return np.where(ids < self.catch_up_consumers, self.remote_partitions, 0)

    def delayed_remote_fetch_wait_ms(self) -> int:
        """``DelayedRemoteFetch``'s timeout in this version (KIP-1018 from 3.8)."""
        return remote_fetch_wait_ms(self.kafka_version, self.remote_fetch_max_wait_ms,
                                    self.fetch_max_wait_ms)


@dataclass(frozen=True)
class TieredFetchTrace:
    """``fetches``, ``reads``, ``deliveries`` and ``partitions`` tables and ``meta``
    (docs/traces.md)."""

    fetches: pd.DataFrame
    reads: pd.DataFrame
    deliveries: pd.DataFrame
    partitions: pd.DataFrame
    meta: TieredFetchMeta


_KINDS = ["catch_up", "tail"]  # consumer kinds, categorical: big traces stay cheap to build
_KIND = pd.CategoricalDtype(_KINDS)  # built once: from_codes need not check the categories


def _kinds(consumer: np.ndarray, catch_up_consumers: int) -> pd.Categorical:
    """Each consumer id's kind, ``catch_up`` (ids below ``catch_up_consumers``) or ``tail``."""
    # a bool array viewed as int8 is its 0/1 codes (no copy)
    return pd.Categorical.from_codes((consumer >= catch_up_consumers).view(np.int8),
                                     dtype=_KIND, validate=False)


def layout(s: TieredFetchScenario) -> tuple[np.ndarray, np.ndarray, pd.DataFrame]:
    """Request orders ``(consumers, width)``, partition counts and the partitions table
    (each consumer's remote partitions first, then its local ones, numbered in order)."""
    n_remote = s.remote_partitions_per_consumer()
    ids = np.arange(s.consumers, dtype=np.int64)
    counts = n_remote + s.local_partitions
    starts = np.cumsum(counts) - counts
    consumer = np.repeat(ids, counts)
    partition = np.arange(len(consumer), dtype=np.int64)
    remote = (partition - starts[consumer]) < n_remote[consumer]
    parts = pd.DataFrame({"partition": partition, "consumer": consumer,
                          "consumer_kind": _kinds(consumer, s.catch_up_consumers),
                          "remote_at_start": remote}, copy=False)
    width = max(1, int(counts.max()))
    slot = np.arange(width, dtype=np.int64)
    order = np.where(slot < counts[:, None], starts[:, None] + slot, 0)
    return order, counts, parts


def _columns(table: Any, rows: int, ints: tuple[str, ...],
             bools: tuple[str, ...]) -> dict[str, np.ndarray]:
    """The first ``rows`` of a kernel table's float64 columns (a ``FetchRows``, ``ReadRows`` or
    ``DeliveryRows``) by name, typed (whole bytes and ids as int64, flags as bool).

    The table is used by nothing after: an int column is cast in place (its float64s rewritten
    as the int64s astype would give, 8 bytes each), so the columns are views of the table, not
    fresh memory to fault in (a trace keeps its tables, spare rows too: ~6 MB resident, not ~4,
    on the kip405 benchmark)."""
    out = {}
    for name in table._fields:
        col = getattr(table, name)[:rows]
        if name in ints:
            whole = col.view(np.int64)
            np.copyto(whole, col, casting="unsafe")
            out[name] = whole
        else:
            out[name] = col != 0 if name in bools else col
    return out


def _doubled(table: Any) -> Any:
    """``table`` (a block of float64 columns) with as many empty rows again."""
    def doubled(col: np.ndarray) -> np.ndarray:
        out = np.empty(2 * len(col), col.dtype)
        out[: len(col)] = col
        return out

    return table._replace(**{name: doubled(getattr(table, name)) for name in table._fields})


def simulate(scenario: TieredFetchScenario, *, seed: int = 0,
             compiled: bool = True) -> TieredFetchTrace:
    """Run the scenario (deterministic: ``seed`` is checked and recorded only, as every kind's
    is); ``compiled=False`` runs the kernel as plain Python (slow; a reference)."""
    s = scenario
    seed = check_seed(seed)
    order, n_parts, parts = layout(s)
    behind = np.where(parts["remote_at_start"].to_numpy(), s.backlog_bytes, 0).astype(np.int64)
    bound = bound_or_inf(s.remote_fetch_max_bytes_per_s)
    kernel: Any = _k.compiled_kernel() if compiled else _k.tiered_kernel
    cfg = _k.TieredSettings(
        produce_bytes_per_ms=s.produce_bytes_per_s / 1000.0, batch_bytes=s.batch_bytes,
        segment_bytes=s.segment_bytes, partition_max=s.max_partition_fetch_bytes,
        fetch_max=s.fetch_max_bytes, several=reads_several_remote_partitions(s.kafka_version),
        charge=charges_remote_fetch_up_front(s.kafka_version),
        threads=s.remote_log_reader_threads,
        max_pending=s.remote_log_reader_max_pending_tasks,
        read_latency_ms=float(s.remote_read_latency_ms),
        read_bytes_per_ms=s.remote_read_bytes_per_s / 1000.0,
        wait_ms=float(s.delayed_remote_fetch_wait_ms()),
        fetch_max_wait_ms=float(s.fetch_max_wait_ms), rtt_ms=float(s.rtt_ms), quota_bound=bound,
        duration_ms=float(s.duration_ms))
    state = _k.new_state(order, n_parts, behind, s.remote_log_reader_threads,
                         s.remote_log_reader_max_pending_tasks)
    # rows for a fetch every 20 ms per consumer, 2 reads and 4 deliveries a fetch; they grow
    capacity = max(1024, int(s.consumers * s.duration_ms / 20))
    width = order.shape[1]
    out = _k.new_tables(fetches=capacity, reads=capacity * 2, deliveries=capacity * 4)
    while kernel(cfg, state, out) != _k.OK:  # go on with the full arrays twice as big
        counts = out.counts
        room = {"fetches": counts[FETCH_ROWS] < len(out.fetches.consumer),
                "reads": counts[READ_ROWS] + width <= len(out.reads.fetch),
                "deliveries": counts[DELIVERY_ROWS] + width <= len(out.deliveries.fetch)}
        out = out._replace(**{name: _doubled(getattr(out, name))
                               for name, ok in room.items() if not ok})
        if all(room.values()):  # the pending reads
            state = state._replace(pend=np.concatenate([state.pend, np.zeros_like(state.pend)]))
    return _trace(s, parts, out, seed)


def _trace(s: TieredFetchScenario, parts: pd.DataFrame, out: TieredTables,
           seed: int = 0) -> TieredFetchTrace:
    counts = out.counts
    f = _columns(out.fetches, counts[FETCH_ROWS],
                 ("consumer", "local_bytes", "remote_bytes", "reads_scheduled", "reads_served"),
                 ("quota_throttled",))
    r = _columns(out.reads, counts[READ_ROWS], ("fetch", "partition", "bytes"), ("served",))
    d = _columns(out.deliveries, counts[DELIVERY_ROWS],
                 ("fetch", "partition", "bytes", "lag_bytes"), ("remote",))
    f["response_bytes"] = f["local_bytes"] + f["remote_bytes"]
    f["consumer_kind"] = _kinds(f["consumer"], s.catch_up_consumers)
    fetch = d["fetch"]
    consumer = parts["consumer"].to_numpy().take(d["partition"])
    d["consumer"] = consumer
    d["consumer_kind"] = _kinds(consumer, s.catch_up_consumers)
    d["sent_ms"] = f["sent_ms"].take(fetch)
    d["answered_ms"] = f["answered_ms"].take(fetch)
    fetches = pd.DataFrame({"fetch": np.arange(len(f["consumer"]), dtype=np.int64), **f},
                           copy=False)
    reads, deliveries = pd.DataFrame(r, copy=False), pd.DataFrame(d, copy=False)
    meta: TieredFetchMeta = {
        "kafka_version": s.kafka_version, "seed": seed, "duration_ms": s.duration_ms,
        "consumers": s.consumers, "catch_up_consumers": s.catch_up_consumers,
        "fetch_max_bytes": s.fetch_max_bytes,
        "max_partition_fetch_bytes": s.max_partition_fetch_bytes,
        "remote_fetch_wait_ms": s.delayed_remote_fetch_wait_ms(),
        "remote_log_reader_threads": s.remote_log_reader_threads,
        "remote_log_reader_max_pending_tasks": s.remote_log_reader_max_pending_tasks,
        "remote_read_latency_ms": float(s.remote_read_latency_ms),
        "remote_fetch_max_bytes_per_s": s.remote_fetch_max_bytes_per_s,
        "several_remote_partitions": reads_several_remote_partitions(s.kafka_version),
        "charged_up_front": charges_remote_fetch_up_front(s.kafka_version),
        "produce_bytes_per_s": float(s.produce_bytes_per_s),
    }
    return TieredFetchTrace(fetches, reads, deliveries, parts, meta)


def simulate_versions(scenario: TieredFetchScenario,
                      versions: tuple[str, ...] = ("4.1", "4.2"), *,
                      seed: int = 0) -> dict[str, TieredFetchTrace]:
    """The scenario under each Kafka version (the same consumers and settings), by version."""
    return {v: simulate(replace(scenario, kafka_version=v), seed=seed) for v in versions}


def trace_summary(trace: TieredFetchTrace) -> pd.DataFrame:
    """Per consumer kind (``catch_up``, ``tail``): fetches, remote and local MB/s delivered,
    p50 and max latency (ms) of all its fetches, empty ones included, the largest response (MiB),
    remote reads cancelled (not started before the ``DelayedRemoteFetch`` expired) and the share
    of requests whose remote partitions the fetch quota emptied: what a lesson prints."""
    f = trace.fetches
    seconds = trace.meta["duration_ms"] / 1000.0
    latency = f.answered_ms - f.sent_ms
    g = f.assign(latency_ms=latency).groupby("consumer_kind", observed=True)
    out = pd.DataFrame({
        "fetches": g.size(),
        "remote MB/s": (g.remote_bytes.sum() / seconds / 1e6).round(2),
        "local MB/s": (g.local_bytes.sum() / seconds / 1e6).round(2),
        "p50 latency ms, all fetches": g.latency_ms.median().round(1),
        "max latency ms, all fetches": g.latency_ms.max().round(1),
        "largest response MiB": (g.response_bytes.max() / MiB).round(2),
        "reads cancelled": (g.reads_scheduled.sum() - g.reads_served.sum()).astype(np.int64),
        "quota-emptied %": (100 * g.quota_throttled.mean()).round(1),
    })
    out.index.name = "consumer"
    return out


def reader_queue_table(scenario: TieredFetchScenario,
                       max_pending_tasks: tuple[int, ...] = (100, 4)) -> pd.DataFrame:
    """Per ``remote.log.reader.max.pending.tasks``: reads, reads refused by the full queue
    (``started_ms`` -1, ``done_ms`` = ``submitted_ms``), and the catch-up consumers' fetches,
    remote MB/s and p50 latency (:func:`trace_summary`)."""
    rows = []
    for pending in max_pending_tasks:
        t = simulate(replace(scenario, remote_log_reader_max_pending_tasks=pending))
        r = t.reads
        summary = trace_summary(t).loc["catch_up"]
        rows.append({"max.pending.tasks": pending, "reads": len(r),
                     "refused": int(((r.started_ms == -1) & (r.done_ms == r.submitted_ms)).sum()),
                     "catch-up fetches": int(summary["fetches"]),
                     "catch-up remote MB/s": summary["remote MB/s"],
                     "catch-up p50 latency ms": summary["p50 latency ms, all fetches"]})
    return pd.DataFrame(rows)
