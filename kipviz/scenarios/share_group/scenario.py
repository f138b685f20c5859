"""KIP-932: C share consumers and a classic consumer group side by side on P partitions.

Producers append whole batches of ``batch_records`` records of ``record_bytes`` to each of ``P``
partitions, led round-robin by ``B`` brokers (partition p by broker ``p % B``). The share group's
members get partitions from :func:`kipviz.kafka.share.assign.simple_assign` (so more members than
partitions share them); the classic group's from the range assignor (``RangeAssignor``:
contiguous runs, the first ``P % K`` consumers one more; consumers beyond P idle).

A share consumer with no records left sends a share fetch to each leader of its partitions
(``MaxBytes`` = ``fetch.max.bytes`` capped as any fetch, ``MaxRecords`` = ``max.poll.records``):
the broker splits the bytes over the partitions that can acquire
(``PartitionMaxBytesStrategy.UNIFORM``), reads the log by KIP-74's rules and acquires records
(:mod:`kipviz.kafka.share.partition`). It processes ``process_records_per_s`` and acknowledges each
record ACCEPT as it goes (implicit acknowledgement). A *stalled* consumer acknowledges nothing:
its records come back when their lock expires (``group.share.record.lock.duration.ms``) and are
archived at ``group.share.delivery.count.limit``. Classic consumers read their partitions at the
same processing rate.

``simulate`` returns a :class:`ShareGroupTrace` of three tables (all-zero delivery rows dropped):
``deliveries`` (time_ms, consumer, partition, acquired, redelivered, acknowledged),
``consumers`` (time_ms, group, consumer, held_records, held_bytes, processed) and ``partitions``
(time_ms, partition, log_end_offset, start_offset, in_flight_records, archived_records), and a
``meta`` dict of the settings and bounds (:func:`share_group_meta`).

``kafka_version`` (4.0 on) picks the release's rules (:mod:`kipviz.kafka.share.releases`): 4.0's
ShareFetch v0 asks each partition for ``max.partition.fetch.bytes`` (``PartitionMaxBytes``, no
UNIFORM split) and has no ``MaxRecords`` (the broker acquires all it read, as one in-flight
batch); before 4.2 the lock cap is checked only before a fetch and nothing halves the parts near
the delivery limit; from 4.2 a ``record_limit`` consumer fetches records from one node per poll
(KAFKA-19767). ``max_record_locks`` unset is the release's default (200 in 4.0, 2000 later).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from kipviz.kafka.config.declarations import BROKER, CONSUMER
from kipviz.kafka.config.fields import check_declared, choice, kafka_field, knob
from kipviz.kafka.config.versions import has, kafka_version_field
from kipviz.kafka.share import partition as spf
from kipviz.kafka.share import releases
from kipviz.kafka.share.acquire import AcquireSettings
from kipviz.kafka.share.assign import simple_assign
from kipviz.kafka.share.fetch import SHARE_ACQUIRE_MODES, share_fetch_max_bytes
from kipviz.scenarios.contract import input_rng
from kipviz.scenarios.share_group.columns import DeliveryRows
from kipviz.scenarios.share_group.meta import ShareGroupMeta
from kipviz.scenarios.share_group.tables import ShareGroupTrace, delivery_rows, trace_tables

__all__ = ["ShareGroupScenario", "ShareGroupTrace", "acquire_settings", "consumer_timeline",
           "delivery_rows", "fetch_out_len", "kernel_inputs", "max_fetch_records",
           "range_assign", "redelivery_summary", "share_group_meta", "simulate",
           "simulate_scaling", "tables"]


def range_assign(consumers: int, partitions: int) -> np.ndarray:
    """``RangeAssignor`` for one topic: each partition's classic consumer (-1: none)."""
    owner = np.full(partitions, -1, np.int32)
    if consumers == 0:
        return owner
    each, extra = divmod(partitions, consumers)
    p = 0
    for k in range(consumers):
        for _ in range(each + (1 if k < extra else 0)):
            owner[p] = k
            p += 1
    return owner


@dataclass(frozen=True)
class ShareGroupScenario:
    """One share group and one classic group on the same topic; rates per partition/consumer."""

    partitions: int = knob(2, at_least=1)
    brokers: int = knob(1, at_least=1)
    share_consumers: int = knob(8, at_least=1)
    classic_consumers: int = knob(8, at_least=0)
    stalled_consumers: int = knob(0, at_least=0)
    produce_records_per_s: float = knob(1000.0, at_least=0, number=True)
    initial_lag_records: int = knob(0, at_least=0)
    record_bytes: int = knob(1000, at_least=1)
    batch_records: int = knob(10, at_least=1)
    # the model asks for >= 1 (Kafka: atLeast(0)): a share fetch of 0 bytes acquires nothing
    fetch_max_bytes: int = kafka_field(CONSUMER["fetch.max.bytes"], at_least=1)
    max_poll_records: int = kafka_field(CONSUMER["max.poll.records"])
    # 4.0's PartitionMaxBytes (ShareFetch v0); from 4.1 the broker splits fetch.max.bytes
    max_partition_fetch_bytes: int = kafka_field(CONSUMER["max.partition.fetch.bytes"],
                                                 at_least=1)
    # ShareGroupConfig's between(...) ranges are wider here (>= 1): small what-ifs are allowed;
    # None: the release's default (record_locks)
    max_record_locks: int | None = kafka_field(BROKER["group.share.partition.max.record.locks"],
                                               None, at_least=1, at_most=None)
    record_lock_duration_ms: int = kafka_field(BROKER["group.share.record.lock.duration.ms"],
                                               at_least=1, at_most=None)
    delivery_count_limit: int = kafka_field(BROKER["group.share.delivery.count.limit"],
                                            at_least=1, at_most=None)
    # the consumer's share.acquire.mode (KIP-1206)
    acquire_mode: str = choice("batch_optimized", SHARE_ACQUIRE_MODES, label="share.acquire.mode")
    process_records_per_s: float = knob(500.0, at_least=0, number=True)
    tick_ms: int = knob(10, at_least=1)
    ticks: int = knob(500, at_least=1)
    kafka_version: str = kafka_version_field()

    def __post_init__(self) -> None:
        check_declared(self)  # each field's rule, from its declaration (kipviz.kafka.config.fields)
        acquire_settings(self)  # share groups exist (4.0 on); record_limit from 4.2
        if self.stalled_consumers > self.share_consumers:
            raise ValueError(f"stalled_consumers must be <= share_consumers "
                             f"({self.share_consumers}): {self.stalled_consumers}")
        if self.initial_lag_records % self.batch_records:
            raise ValueError(f"initial_lag_records must be whole batches of batch_records "
                             f"({self.batch_records}): {self.initial_lag_records}")

    @property
    def record_locks(self) -> int:
        """``group.share.partition.max.record.locks`` in effect: the field, or the release's
        default (:meth:`kipviz.kafka.config.declarations.Setting.default_in`)."""
        if self.max_record_locks is not None:
            return self.max_record_locks
        return releases.default_max_record_locks(self.kafka_version)

    @property
    def partition_max_bytes(self) -> int:
        """4.0's ``PartitionMaxBytes`` (``max.partition.fetch.bytes``); 0 from 4.1, where the
        broker splits ``MaxBytes`` (``PartitionMaxBytesStrategy.UNIFORM``)."""
        if releases.share_fetch_version(self.kafka_version) == 0:
            return self.max_partition_fetch_bytes
        return 0

    @property
    def one_node_per_poll(self) -> bool:
        """Whether a poll fetches records from one node only (``record_limit`` from 4.2,
        KAFKA-19767) rather than from every leader of the consumer's partitions."""
        return self.acquire_mode == "record_limit" and has(self.kafka_version,
                                                           "share_record_limit_one_node")

    def records_per_acquire(self) -> int:
        """The most records one share partition's acquire takes in one fetch: ``MaxRecords`` to
        the end of a batch from 4.1; in 4.0 (no ``MaxRecords``) all one partition's read holds,
        whole batches of at most max(``PartitionMaxBytes``, one batch: KIP-74)."""
        batch_bytes = self.batch_records * self.record_bytes
        if self.partition_max_bytes:
            return max(self.partition_max_bytes, batch_bytes) // batch_bytes * self.batch_records
        return self.max_poll_records + self.batch_records - 1

    @property
    def capacity_records(self) -> int:
        """Offsets a partition can reach: the backlog plus everything produced, plus a batch."""
        produced = self.produce_records_per_s * self.tick_ms * self.ticks / 1000.0
        return self.initial_lag_records + (int(produced) // self.batch_records + 2) \
            * self.batch_records


def share_group_meta(s: ShareGroupScenario, seed: int = 0) -> ShareGroupMeta:
    """The settings (and the run's ``seed``) and bounds the curves draw beside the trace.

    * ``in_flight_bound_records``: from 4.2 ``max.record.locks + batch_records - 1``. Kafka's
      cap is soft by up to one log batch (``SharePartition.lastOffsetAndMaxRecordsToAcquire``
      acquires to the end of the batch holding the last record allowed; Kafka's
      ``testAcquireWithMaxInFlightRecordsAndTryAcquireNewBatch`` ends with 25 in flight under a
      cap of 20): Kafka's code, not the KIP's text. Before 4.2 the cap is checked only before
      the fetch, and not when it starts among released records: None, no bound
      (:func:`kipviz.kafka.share.releases.in_flight_bound`).
    * ``memory_bound_bytes``: a share consumer holds what its last share fetches acquired, and
      it fetches only once it holds nothing; each response reads at most
      max(its byte cap, one batch: KIP-74's first-batch exception) from each node it asks:
      ``nodes x max(response_max_bytes, batch bytes)``, ``nodes`` the most brokers any
      member's partitions are led by (``leaders``), or 1 where a poll fetches from one node
      (``record_limit`` from 4.2, KAFKA-19767).
    * ``max_records_bytes``: ``nodes x max.poll.records x record_bytes``: what ``MaxRecords``
      allows, soft by up to a batch as the lock cap is; 4.0 has no ``MaxRecords``: the memory
      bound.
    """
    leaders = max((len({p % s.brokers for p in parts}) for parts in
                   simple_assign(s.share_consumers, s.partitions)), default=0)
    response = share_fetch_max_bytes(s.fetch_max_bytes)
    batch_bytes = s.batch_records * s.record_bytes
    nodes = min(leaders, 1) if s.one_node_per_poll else leaders
    memory = nodes * max(response, batch_bytes)
    return {
        "tick_ms": s.tick_ms, "ticks": s.ticks, "seed": seed, "partitions": s.partitions,
        "brokers": s.brokers, "share_consumers": s.share_consumers,
        "classic_consumers": s.classic_consumers, "stalled_consumers": s.stalled_consumers,
        "record_bytes": s.record_bytes, "batch_records": s.batch_records,
        "max_poll_records": s.max_poll_records, "max_record_locks": s.record_locks,
        "in_flight_bound_records": releases.in_flight_bound(
            s.kafka_version, s.record_locks, s.batch_records),
        "record_lock_duration_ms": s.record_lock_duration_ms,
        "delivery_count_limit": s.delivery_count_limit, "acquire_mode": s.acquire_mode,
        "response_max_bytes": response, "leaders": leaders, "memory_bound_bytes": memory,
        "max_records_bytes": nodes * s.max_poll_records * s.record_bytes
        if releases.share_fetch_version(s.kafka_version) else memory,
        "kafka_version": s.kafka_version, "fetch_nodes": nodes,
    }


def kernel_inputs(s: ShareGroupScenario, seed: int) -> dict[str, object]:
    """The arrays and numbers the kernel (and the SimPy reference) start from."""
    n = s.capacity_records
    c, p = s.share_consumers, s.partitions
    assign = np.zeros((c, p), np.int8)
    for member, parts in enumerate(simple_assign(c, p)):
        assign[member, parts] = 1
    stalled = np.zeros(c, np.int8)
    stalled[: s.stalled_consumers] = 1
    # the same log batches on every partition: one read-only row for all of them (a row
    # broadcast to P rows was C-contiguous for one partition and strided for more, and numba
    # compiled the kernel, 40 s cold, once for each layout)
    batch_last = np.arange(n, dtype=np.int64) // s.batch_records * s.batch_records \
        + s.batch_records - 1
    batch_last.flags.writeable = False
    return {
        "assign": assign, "stalled": stalled, "classic_owner": range_assign(
            s.classic_consumers, p), "batch_last": batch_last,
        "draws": input_rng(seed).integers(0, 2**31 - 1, size=s.ticks * c * s.brokers + 1),
        "response_max_bytes": share_fetch_max_bytes(s.fetch_max_bytes),
        "produce_batches_per_tick": s.produce_records_per_s * s.tick_ms / 1000.0
        / s.batch_records,
        "process_per_tick": s.process_records_per_s * s.tick_ms / 1000.0,
        "queue_len": p * (s.record_locks + s.batch_records + s.records_per_acquire()) + 1
        if has(s.kafka_version, "share_lock_cap_in_acquire") else p * s.capacity_records + 1,
    }


def acquire_settings(s: ShareGroupScenario) -> AcquireSettings:
    """The settings the group's share partitions acquire records under (the kernel's and the
    SimPy reference's), by the scenario's release (:func:`kipviz.kafka.share.releases.
    acquire_settings`; ValueError before 4.0, and for ``record_limit`` before 4.2)."""
    return releases.acquire_settings(
        s.kafka_version, max_record_locks=s.record_locks,
        delivery_count_limit=s.delivery_count_limit, acquire_mode=s.acquire_mode,
        max_poll_records=s.max_poll_records, lock_duration_ms=s.record_lock_duration_ms)


def max_fetch_records(s: ShareGroupScenario) -> int:
    """The most records one share fetch acquires (``MaxRecords``; 4.0: none, ``INT_MAX``)."""
    return releases.max_fetch_records(s.kafka_version, s.max_poll_records)


def fetch_out_len(s: ShareGroupScenario) -> int:
    """Room for the offsets one share fetch acquires: ``MaxRecords`` plus, per partition, one
    acquire and a batch (the kernel's scratch and the SimPy reference's)."""
    return s.max_poll_records + s.partitions * (s.records_per_acquire() + s.batch_records) + 1


def tables(s: ShareGroupScenario, rows: DeliveryRows, held: np.ndarray, processed: np.ndarray,
           classic_consumed: np.ndarray, part: dict[str, np.ndarray], *,
           seed: int = 0) -> ShareGroupTrace:
    """The trace's tables (:func:`~kipviz.scenarios.share_group.tables.trace_tables`) with
    ``meta`` of ``s`` and the run's ``seed``."""
    return trace_tables(share_group_meta(s, seed), rows, held, processed, classic_consumed, part)


def simulate(scenario: ShareGroupScenario, *, seed: int = 0,
             compiled: bool = True) -> ShareGroupTrace:
    """Run the scenario (``compiled=False``: the same kernel as plain Python)."""
    from kipviz.scenarios.share_group import kernel as k

    s = scenario
    inp = kernel_inputs(s, seed)
    c, p, n, t = s.share_consumers, s.partitions, s.capacity_records, s.ticks
    # one partition's empty state (spf.new_share_partition) for each of the p partitions; the
    # all-zero arrays as fresh zeros (the OS gives zero pages: only pages the run touches cost)
    empty = spf.new_share_partition(n)
    sps = spf.SharePartitionState(**{  # a row per partition
        name: np.repeat(a[None], p, axis=0) if a.any() else np.zeros((p, *a.shape), a.dtype)
        for name, a in empty._asdict().items()})
    q = int(inp["queue_len"])  # type: ignore[call-overload]
    queue_p, queue_o = np.zeros((c, q), np.int64), np.zeros((c, q), np.int64)
    per_tick = (((t, c), ("held", "processed")),
                ((t, p), ("in_flight", "start_offset", "archived", "log_end")),
                ((t, s.classic_consumers), ("classic_consumed",)))
    # at most a row per tick, consumer and partition: only the rows written take memory
    out = k.ShareGroupOutputs(deliveries=k.DeliveryRows(**{
        name: np.empty(t * c * p, np.int64) for name in k.DeliveryRows._fields}),
                              **{name: np.zeros(shape, np.int64)
                                 for shape, names in per_tick for name in names})
    cfg = k.ShareSettings(
        ticks=t, tick_ms=s.tick_ms, brokers=s.brokers, classic_consumers=s.classic_consumers,
        batch_records=s.batch_records, record_bytes=s.record_bytes,
        produce_batches_per_tick=float(inp["produce_batches_per_tick"]),  # type: ignore[arg-type]
        initial_batches=s.initial_lag_records // s.batch_records,
        response_max_bytes=int(inp["response_max_bytes"]),  # type: ignore[call-overload]
        max_poll_records=s.max_poll_records, max_fetch_records=max_fetch_records(s),
        partition_max_bytes=s.partition_max_bytes, one_node_per_poll=s.one_node_per_poll,
        fetch_out_len=fetch_out_len(s), process_per_tick=float(inp["process_per_tick"]),  # type: ignore[arg-type]
        acquire=acquire_settings(s))
    kernel_in = k.ShareGroupInputs(**{name: np.asarray(inp[name])
                                      for name in k.ShareGroupInputs._fields})
    kernel = k.compiled_kernel() if compiled else k.share_group_kernel
    n_rows = kernel(cfg, kernel_in, sps, queue_p, queue_o, out)
    part = {"log_end_offset": out.log_end, "start_offset": out.start_offset,
            "in_flight_records": out.in_flight, "archived_records": out.archived}
    rows = k.DeliveryRows(**{name: getattr(out.deliveries, name)[:n_rows]
                             for name in k.DeliveryRows._fields})
    return tables(s, rows, out.held, out.processed, out.classic_consumed, part, seed=seed)


def simulate_scaling(scenario: ShareGroupScenario, consumers: tuple[int, ...] = (1, 2, 4, 8, 16),
                     *, seed: int = 0) -> dict[int, ShareGroupTrace]:
    """The scenario with ``n`` share and ``n`` classic consumers (none stalled), for each ``n``:
    how each group's throughput grows with its size (the classic group's stops at the partition
    count)."""
    if not consumers:
        raise ValueError("consumers must list at least one group size")
    return {int(n): simulate(replace(scenario, share_consumers=n, classic_consumers=n,
                                     stalled_consumers=0), seed=seed)
            for n in consumers}


def redelivery_summary(trace: ShareGroupTrace) -> pd.DataFrame:
    """What became of the stalled consumers' records, per partition: when the first records
    were acquired, when records were first redelivered (a lock expired), how many were
    redelivered and how many archived at the delivery limit, beside the lock and the limit."""
    d, p, meta = trace.deliveries, trace.partitions, trace.meta
    stalled = d[d.consumer < meta["stalled_consumers"]]
    again = d[d.redelivered > 0]
    last = p[p.time_ms == p.time_ms.max()].set_index("partition")
    parts = sorted(p.partition.unique())
    return pd.DataFrame({
        "partition": parts,
        "stalled_first_acquired_ms": [int(stalled[stalled.partition == i].time_ms.min())
                                      if (stalled.partition == i).any() else -1 for i in parts],
        "first_redelivered_ms": [int(again[again.partition == i].time_ms.min())
                                 if (again.partition == i).any() else -1 for i in parts],
        "redelivered_records": [int(again[again.partition == i].redelivered.sum())
                                for i in parts],
        "archived_records": [int(last.loc[i, "archived_records"]) for i in parts],
        "lock_duration_ms": meta["record_lock_duration_ms"],
        "delivery_count_limit": meta["delivery_count_limit"]})


def consumer_timeline(trace: ShareGroupTrace, consumer: int) -> pd.DataFrame:
    """One share consumer's acquisitions: per tick it acquired records, how many, how many of
    them were redeliveries, and how many it acknowledged (both partitions summed)."""
    d = trace.deliveries
    rows = d[(d.consumer == consumer) & (d.acquired > 0)]
    return rows.groupby("time_ms", as_index=False)[["acquired", "redelivered",
                                                    "acknowledged"]].sum()
