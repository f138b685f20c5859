"""Tiered storage (KIP-405): remote fetches by Kafka version and the remote quotas (KIP-956).

* :mod:`~kipviz.kafka.tiered.fetch`: how a broker serves a fetch that reaches remote data.
* :mod:`~kipviz.kafka.tiered.quota`: ``RLMQuotaManager``'s copy and fetch quotas.
* :mod:`~kipviz.kafka.tiered.replica`: the remote reader pool's queue
  (``remote.log.reader.max.pending.tasks``) and a new follower's start offset (KIP-1023).

May import: :mod:`kipviz.kafka.config`, :mod:`kipviz.kafka.quotas`, :mod:`kipviz.kafka.fetch`.
"""

from __future__ import annotations

from kipviz import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(__name__, {
    "fetch": ["LogRead", "ReadLimits", "RequestPartitions", "read_from_log", "remote_read_bytes",
              "delayed_remote_fetch_complete_ms"],
    "quota": ["CopiedSegment", "RemoteLogQuota", "copy_segment", "copy_segments"],
    "replica": ["follower_start_offset", "reader_queue_accepts"],
})
