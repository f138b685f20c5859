"""Share groups (KIP-932): the byte split of a share fetch, a share partition's records,
the simple assignor.

* :mod:`~kipviz.kafka.share.fetch`: ``PartitionMaxBytesStrategy.UNIFORM`` and the
  ``SharePartition`` class.
* :mod:`~kipviz.kafka.share.partition`: a share partition's record states as plain functions.
* :mod:`~kipviz.kafka.share.acquire`: ``SharePartition.acquire`` (batch ends, the delivery
  limit, KIP-1206's acquire modes).
* :mod:`~kipviz.kafka.share.assign`: ``SimpleAssignor``.
* :mod:`~kipviz.kafka.share.releases`: which of these rules Kafka 4.0, 4.1, 4.2 and 4.3 run.
* :mod:`~kipviz.kafka.share.consumer`: the consumer's fetch nodes (KAFKA-19767).
* :mod:`~kipviz.kafka.share.group`: the coordinator's group-level settings (KIP-1240) and
  assignment interval (KIP-1263).

May import: :mod:`kipviz.kafka.config`, :mod:`kipviz.kafka.fetch`.
"""

from __future__ import annotations

from kipviz import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(__name__, {
    "fetch": [
        "SharePartition", "in_flight_bound_records", "share_fetch_max_bytes",
        "uniform_partition_max_bytes", "uniform_split_into",
    ],
    "assign": ["simple_assign"],
    "releases": ["acquire_settings", "default_max_record_locks", "in_flight_bound",
                 "share_fetch_version"],
    "consumer": ["record_limit_fetch_node"],
    "group": ["can_compute_next_target_assignment", "effective_group_setting"],
})
