"""KIP-73: replication quotas, reassignment plans, and when a throttled move finishes.

* :mod:`~kipviz.kafka.replication.quota`: ``ReplicationQuotaManager`` on ``SimpleRate``
  (:mod:`kipviz.kafka.quotas.rate`), throttled-replica lists.
* :mod:`~kipviz.kafka.replication.planning`: the move-time arithmetic with the followers
  ``--throttle`` really counts, and its verdicts (never finishes, no workable range, clients
  lose bandwidth).
* :mod:`~kipviz.kafka.replication.reassignment`: a reassignment plan and the throttle lists
  ``kafka-reassign-partitions`` writes for it.
* :mod:`~kipviz.kafka.replication.cluster`: a plan as partition moves (leader, sources, targets,
  size, IN_p), who leads after a move, IN split by size, per-broker closed forms.
* :mod:`~kipviz.kafka.replication.flow`: the fluid flow schedule with the pinned sharing rule
  (max-min fair): the planned move time per partition and per broker.

May import: :mod:`kipviz.kafka.config`, :mod:`kipviz.kafka.quotas`, :mod:`kipviz.kafka.fetch`.
"""

from __future__ import annotations

from kipviz import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(__name__, {
    "quota": ["ReplicationQuotaManager", "parse_throttled_replicas"],
    "planning": [
        "catch_up_bytes_per_s", "clients_keep_bytes_per_s", "clients_lose_reason",
        "in_sync_follower_bytes", "max_replica_fetch_response_bytes", "move_time_s",
        "never_finishes_reason", "resolve_in_sync_followers", "scheduled_move_time_s",
        "throttle_bounds", "throttle_verdict",
    ],
    "reassignment": ["PartitionAssignment", "ReassignmentPlan", "parse_assignment",
                     "partition_size", "partition_sizes"],
    "cluster": ["BrokerLoad", "PartitionMove", "broker_loads", "leader_after_move", "make_move",
                "partition_moves", "split_bytes_in"],
    "flow": ["FlowSchedule", "flow_schedule", "max_min_fair"],
})
