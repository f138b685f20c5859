"""The reassignment kernel's named column blocks: settings, the plan as arrays, state, outputs.

:func:`kipviz.scenarios.reassignment.kernel.run` simulates B brokers, P listed partitions, R new
replicas (one per partition and destination) and F fetchers (one per destination and source
broker, ``num.replica.fetchers=1``). A fetcher's partitions are its *slots*, stored fetcher by
fetcher (``fetcher_start`` gives each fetcher's first slot); a new replica has a slot in the
fetcher of its partition's leader and, when the move hands the leadership to another broker, one
more in that broker's fetcher (inactive until then). Every block is built by keyword and read by
attribute (``tests/scenarios/test_kernel_blocks.py``).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

__all__ = ["BrokerColumns", "ClusterInputs", "ClusterResults", "ClusterSettings",
           "ClusterState"]


class ClusterSettings(NamedTuple):
    """The run's scalars: Kafka's settings per tick or ms, as named."""

    tick_ms: int  # one fetch round trip
    ticks: int
    sample_ticks: int  # one row of BrokerColumns per sample_ticks ticks
    fetch_max: int  # replica.fetch.max.bytes
    response_max: int  # replica.fetch.response.max.bytes
    network_per_tick: int  # each broker's network, out and in, per tick
    delay_mode: bool  # mode="delay": KIP-73's rejected design
    samples: int  # replication.quota.window.num
    window_ms: int  # replication.quota.window.size.seconds, in ms
    stop_when_done: bool  # end the run in the tick the last move completes
    order_seed: int  # the fetchers' order generator's start (kernel.next_order), < 2**31
    fair_share: bool  # binding quotas shared max-min fair (share.py), not by Kafka's gate


class ClusterInputs(NamedTuple):
    """The plan as arrays (brokers, partitions, replicas, fetchers, slots)."""

    leader_bounds: np.ndarray  # per broker: leader.replication.throttled.rate (UNLIMITED: none)
    follower_bounds: np.ndarray  # per broker: follower.replication.throttled.rate
    sched_ms: np.ndarray  # from sched_ms[i] on, every broker's two bounds are sched_bounds[i]
    sched_bounds: np.ndarray
    sizes: np.ndarray  # per partition: bytes at t = 0
    in_per_ms: np.ndarray  # per partition: IN_p, bytes produced per ms
    leader: np.ndarray  # per partition: its leader while it moves
    leader_after: np.ndarray  # per partition: its leader once the move completes
    followers: np.ndarray  # per partition: in-sync followers its leader's quota counts
    followers_after: np.ndarray  # ... after the move (0 when the new leader is not listed)
    partition_start: np.ndarray  # per partition + 1: its first new replica (they are in order)
    replica_partition: np.ndarray  # per new replica
    replica_dest: np.ndarray
    replica_slot: np.ndarray  # its slot while the partition moves
    replica_slot_after: np.ndarray  # its slot after (-1: it leads; no fetcher)
    start_in_sync: np.ndarray  # per new replica: in sync at t = 0 (an empty, idle partition)
    fetcher_dest: np.ndarray  # per fetcher
    fetcher_source: np.ndarray
    fetcher_start: np.ndarray  # per fetcher + 1: its first slot
    slot_replica: np.ndarray  # per slot
    slot_fetcher: np.ndarray
    slot_listed: np.ndarray  # per slot: its leader lists the partition (its quota records it)


class ClusterState(NamedTuple):
    """What the run changes, allocated by ``simulate`` (zeros; the kernel sets them up)."""

    leader_slots: np.ndarray  # per broker: its leader quota's rate (kipviz.kafka.quotas.rate)
    leader_pos: np.ndarray
    follower_slots: np.ndarray
    follower_pos: np.ndarray
    leader_bound: np.ndarray  # per broker, now (the schedule changes them)
    follower_bound: np.ndarray
    keep_bytes: np.ndarray  # per broker: in-sync followers' keep-up this tick
    keep_count: np.ndarray  # per broker: in-sync followers its quota counts
    egress_left: np.ndarray  # per broker: network left this tick
    ingress_left: np.ndarray
    due: np.ndarray  # per broker: bytes its fetching new replicas should hold
    got: np.ndarray  # ... and do hold
    moved: np.ndarray  # per broker: bytes its new replicas appended so far
    grown: np.ndarray  # per partition: bytes produced since t = 0
    current_leader: np.ndarray  # per partition
    current_followers: np.ndarray
    left: np.ndarray  # per partition: new replicas not yet in sync
    fetched: np.ndarray  # per new replica: its log end, in bytes
    in_sync: np.ndarray
    slot_of: np.ndarray  # per new replica: its current slot (-1: none)
    active: np.ndarray  # per slot: its replica fetches through this fetcher
    synced: np.ndarray  # per slot: each fetcher's in-sync slots, ascending (local positions)
    n_synced: np.ndarray  # per fetcher
    n_active: np.ndarray  # per fetcher: its active slots (none: it sends no request)
    n_out: np.ndarray  # per fetcher: active out-of-sync slots
    out_sized: np.ndarray  # ... of partitions with bytes at t = 0
    pending: np.ndarray  # per fetcher: a response in flight
    deliver_ms: np.ndarray
    next_request_ms: np.ndarray
    resp_n: np.ndarray  # per fetcher: the response's length
    resp_slot: np.ndarray  # per slot (a fetcher's response in its slots' range)
    resp_bytes: np.ndarray
    # the max-min fair share (share.py): per broker, bytes its two quotas record this tick;
    # per fetcher, its response left; the filling's groups, capacities, replicas and buffers
    lead_bytes: np.ndarray
    follow_bytes: np.ndarray
    resp_left: np.ndarray
    fill_gid: np.ndarray  # (share.LIMITS, slots)
    fill_capacity: np.ndarray  # 4 per broker, 1 per fetcher, 1 per slot
    fill_slot: np.ndarray  # per replica in the filling: its slot
    fill_n: np.ndarray  # [0]: the replicas of the last filling (-1: none yet)
    fill_x: np.ndarray
    fill_why: np.ndarray
    fill_work_f: np.ndarray  # kipviz.kafka.replication.flow.fill_work
    fill_work_i: np.ndarray
    fill_work_b: np.ndarray


class BrokerColumns(NamedTuple):
    """The ``brokers`` table's columns, (rows, brokers) each: per row, the quotas' rates
    measured at its last tick and the bytes of its ticks."""

    leader_rate_bytes_per_s: np.ndarray
    follower_rate_bytes_per_s: np.ndarray
    throttled_bytes: np.ndarray  # sent as leader to out-of-sync new replicas
    unthrottled_bytes: np.ndarray  # sent as leader to in-sync ones
    received_bytes: np.ndarray  # appended by its new replicas
    lag_bytes: np.ndarray  # its fetching new replicas' lag, at the row's last tick
    moved_bytes: np.ndarray  # received so far


class ClusterResults(NamedTuple):
    """When each new replica caught up and each partition completed (-1: not in the run), and
    how many ticks ran (``ticks_run[0]``)."""

    caught_up_ms: np.ndarray
    completed_ms: np.ndarray
    ticks_run: np.ndarray
