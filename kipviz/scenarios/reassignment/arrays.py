"""A plan of :class:`~kipviz.kafka.replication.cluster.PartitionMove` as the kernel's arrays, and
one run of the kernel (:func:`run_kernel`).

Brokers are numbered by position in the sorted ids of the plan; fetchers (one per destination
and source, ``num.replica.fetchers=1``) are sorted by (destination, source); a fetcher's slots
are its new replicas in plan order. Both front doors, the one-pair
:class:`~kipviz.scenarios.reassignment.scenario.ReassignmentScenario` and the cluster's
:class:`~kipviz.scenarios.reassignment.cluster.ClusterReassignmentScenario`, go through here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from kipviz.kafka.quotas.rate import FIELDS
from kipviz.kafka.replication.cluster import PartitionMove
from kipviz.kafka.replication.flow import fill_work
from kipviz.scenarios.limits import check_trace_bytes
from kipviz.scenarios.reassignment import kernel as _kernel
from kipviz.scenarios.reassignment.columns import (
    BrokerColumns,
    ClusterInputs,
    ClusterResults,
    ClusterSettings,
    ClusterState,
)
from kipviz.scenarios.reassignment.share import LIMITS

__all__ = ["brokers_of", "plan_inputs", "run_kernel", "trace_bytes"]

_ROW_BYTES = 7 * 8  # BrokerColumns: seven 8-byte values per (row, broker)
_REPLICA_BYTES = 160  # per new replica: its inputs, state, slots and the replicas table
_PARTITION_BYTES = 120


def brokers_of(moves: Sequence[PartitionMove]) -> list[int]:
    """The plan's broker ids, sorted: sources and targets of every listed partition."""
    return sorted({b for m in moves for b in (*m.sources, *m.targets)})


def trace_bytes(rows: int, brokers: int, partitions: int, replicas: int) -> float:
    """What a run allocates: its broker columns, per-replica and per-partition arrays."""
    return (rows * brokers * _ROW_BYTES + replicas * _REPLICA_BYTES
            + partitions * _PARTITION_BYTES)


def plan_inputs(moves: Sequence[PartitionMove], *, brokers: Sequence[int],
                leader_bounds: Sequence[float], follower_bounds: Sequence[float],
                sched_ms: np.ndarray, sched_bounds: np.ndarray, start_in_sync: bool
                ) -> ClusterInputs:
    """``moves`` as :class:`ClusterInputs`; ``brokers``: theirs (:func:`brokers_of`); bounds per
    broker position (``UNLIMITED``: none); ``start_in_sync``: new replicas of partitions with no
    bytes and no IN start in the ISR (Kafka's: their log end is the high watermark at once).
    The moves' fields are read once each; the fetchers and slots are sorted out as arrays."""
    i64 = np.int64
    ids = np.array(brokers, i64)
    added = [m.added for m in moves]
    n_added = np.array([len(a) for a in added], i64)
    leader = np.searchsorted(ids, np.array([m.leader for m in moves], i64))
    after_id = np.array([m.leader_after for m in moves], i64)
    after = np.searchsorted(ids, after_id)
    sizes = np.array([m.size_bytes for m in moves], i64)
    bytes_in = np.array([m.bytes_in_per_s for m in moves], np.float64)
    after_listed = np.array([m.leader_after in m.sources for m in moves], np.bool_)
    part = np.repeat(np.arange(len(moves), dtype=i64), n_added)  # per new replica
    dest_id = np.fromiter((d for a in added for d in a), i64, int(n_added.sum()))
    dest = np.searchsorted(ids, dest_id)
    nb, nr = ids.shape[0], part.shape[0]
    # a slot per (fetcher, replica): the leader's fetcher, and the new leader's when it is
    # another broker than the replica's own; fetchers by (destination, source), slots by replica
    second = np.flatnonzero((after_id[part] != dest_id) & (after[part] != leader[part]))
    entry_r = np.concatenate([np.arange(nr, dtype=i64), second])
    entry_src = np.concatenate([leader[part], after[part[second]]])
    key = dest[entry_r] * nb + entry_src
    order = np.lexsort((entry_r, key))
    keys, slot_fetcher = np.unique(key[order], return_inverse=True)
    slots = np.empty(entry_r.shape[0], i64)
    slots[order] = np.arange(entry_r.shape[0], dtype=i64)
    slot = slots[:nr]
    slot_after = slot.copy()  # the same fetcher when the leader stays
    slot_after[second] = slots[nr:]
    slot_after[after_id[part] == dest_id] = -1  # it leads: no fetcher
    start = np.zeros(keys.shape[0] + 1, i64)
    start[1:] = np.cumsum(np.bincount(slot_fetcher, minlength=keys.shape[0]))
    part_start = np.zeros(len(moves) + 1, i64)
    part_start[1:] = np.cumsum(n_added)
    empty = (sizes == 0) & (bytes_in == 0)
    return ClusterInputs(
        leader_bounds=np.asarray(leader_bounds, np.float64),
        follower_bounds=np.asarray(follower_bounds, np.float64),
        sched_ms=sched_ms, sched_bounds=sched_bounds, sizes=sizes, in_per_ms=bytes_in / 1000.0,
        leader=leader.astype(i64), leader_after=after.astype(i64),
        followers=np.array([m.followers for m in moves], i64),
        followers_after=np.array([m.followers_after for m in moves], i64),
        partition_start=part_start, replica_partition=part, replica_dest=dest.astype(i64),
        replica_slot=slot, replica_slot_after=slot_after,
        start_in_sync=empty[part] & start_in_sync,
        fetcher_dest=(keys // nb).astype(i64), fetcher_source=(keys % nb).astype(i64),
        fetcher_start=start, slot_replica=entry_r[order], slot_fetcher=slot_fetcher.astype(i64),
        # the leader of a moving partition is a source, its new leader may not be one
        slot_listed=np.concatenate([np.ones(nr, np.bool_), after_listed[part[second]]])[order])


def _state(inp: ClusterInputs, samples: int) -> ClusterState:
    nb, np_ = inp.leader_bounds.shape[0], inp.sizes.shape[0]
    nr, nf, ns = inp.replica_partition.shape[0], inp.fetcher_dest.shape[0], \
        inp.slot_replica.shape[0]
    i64, f64 = np.int64, np.float64
    width = (samples + 1) * FIELDS
    size = 4 * nb + nf + ns  # the filling's groups (kipviz.scenarios.reassignment.share)
    work_f, work_i, work_b = fill_work(LIMITS, ns, size)
    return ClusterState(
        leader_slots=np.zeros((nb, width), f64), leader_pos=np.zeros((nb, 4), i64),
        follower_slots=np.zeros((nb, width), f64), follower_pos=np.zeros((nb, 4), i64),
        leader_bound=np.zeros(nb, f64), follower_bound=np.zeros(nb, f64),
        keep_bytes=np.zeros(nb, i64), keep_count=np.zeros(nb, i64),
        egress_left=np.zeros(nb, i64), ingress_left=np.zeros(nb, i64),
        due=np.zeros(nb, i64), got=np.zeros(nb, i64), moved=np.zeros(nb, i64),
        grown=np.zeros(np_, i64), current_leader=np.zeros(np_, i64),
        current_followers=np.zeros(np_, i64), left=np.zeros(np_, i64),
        fetched=np.zeros(nr, i64), in_sync=np.zeros(nr, np.bool_), slot_of=np.zeros(nr, i64),
        active=np.zeros(ns, np.bool_), synced=np.zeros(ns, i64), n_synced=np.zeros(nf, i64),
        n_active=np.zeros(nf, i64), n_out=np.zeros(nf, i64), out_sized=np.zeros(nf, i64),
        pending=np.zeros(nf, np.bool_), deliver_ms=np.zeros(nf, i64),
        next_request_ms=np.zeros(nf, i64), resp_n=np.zeros(nf, i64),
        resp_slot=np.zeros(ns, i64), resp_bytes=np.zeros(ns, i64),
        lead_bytes=np.zeros(nb, i64), follow_bytes=np.zeros(nb, i64), resp_left=np.zeros(nf, i64),
        fill_gid=np.zeros((LIMITS, ns), i64), fill_capacity=np.zeros(size, f64),
        fill_slot=np.zeros(ns, i64), fill_n=np.full(1, -1, i64), fill_x=np.zeros(ns, f64),
        fill_why=np.zeros(ns, i64),
        fill_work_f=work_f, fill_work_i=work_i, fill_work_b=work_b)


def run_kernel(cfg: ClusterSettings, inp: ClusterInputs, *, compiled: bool, what: str
               ) -> tuple[BrokerColumns, ClusterResults]:
    """One run: (the broker columns of the rows run, the results). ``what`` names the run in a
    trace-size error. ValueError (the one ``mode='delay'`` verdict) when a delay would divide by
    a zero quota."""
    rows = -(-cfg.ticks // cfg.sample_ticks)
    nb, nr = inp.leader_bounds.shape[0], inp.replica_partition.shape[0]
    check_trace_bytes(trace_bytes(rows, nb, inp.sizes.shape[0], nr),
                      {"ticks": cfg.ticks, "sample_ticks": cfg.sample_ticks, "brokers": nb,
                       "partitions": inp.sizes.shape[0]}, what)
    cols = BrokerColumns(**{name: np.zeros((rows, nb), np.float64 if "rate" in name
                                           else np.int64) for name in BrokerColumns._fields})
    res = ClusterResults(caught_up_ms=np.zeros(nr, np.int64),
                         completed_ms=np.zeros(inp.sizes.shape[0], np.int64),
                         ticks_run=np.zeros(1, np.int64))
    run: Any = _kernel.compiled_kernel() if compiled else _kernel.run
    status = run(cfg, inp, _state(inp, cfg.samples), cols, res)
    if status != _kernel.OK:
        side = "leader" if status == _kernel.LEADER_QUOTA_ZERO else "follower"
        raise ValueError(f"{side}_throttle_bytes_per_s ({side}.replication.throttled.rate) must "
                         f"be > 0 in mode='delay' once bytes are sent (the delay divides by "
                         f"it): 0")
    used = -(-int(res.ticks_run[0]) // cfg.sample_ticks)
    return BrokerColumns(**{n: getattr(cols, n)[:used] for n in BrokerColumns._fields}), res
