"""KIP-74's fetch: what the broker returns and what the consumer asks for.

* :mod:`~kipviz.kafka.fetch.response`: ``ReplicaManager.readFromLog``'s response filling
  (``fill_response``), the first-batch exception, the broker's caps
  (``effective_response_max_bytes``), and when a request parked as a ``DelayedFetch`` answers
  (``delayed_fetch_completes``).
* :mod:`~kipviz.kafka.fetch.request`: which partitions go into a consumer's next request, in
  which order (``Ordering``, ``PartitionStates``, ``request_partitions``), by version.
* :mod:`~kipviz.kafka.fetch.session`: KIP-227's incremental fetch sessions, which decide the
  order the broker reads (``java_fetch_order``, ``FetchSessions``).

May import: :mod:`kipviz.kafka.config` and :mod:`kipviz.kafka.quotas`.
"""

from __future__ import annotations

from kipviz import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(__name__, {
    "response": [
        "PartitionData", "delayed_fetch_complete_ms", "delayed_fetch_completes",
        "effective_response_max_bytes",
        "fill_raw_bytes", "fill_response", "largest_response_bytes",
    ],
    "request": [
        "Ordering", "PartitionStates", "TopicPartition", "group_data_by_topic_order",
        "java_hash_order", "next_order", "request_partitions",
    ],
    "session": ["FetchOrder", "FetchSessions", "java_fetch_order", "new_fetch_sessions"],
})
