"""The KIP-74 consumer scenario: a consumer fetching from P partitions on B brokers.

* :mod:`~kipviz.scenarios.consumer.scenario`: ``simulate``, ``ConsumerTrace`` and
  ``ConsumerScenario`` (defined in :mod:`~kipviz.scenarios.consumer.definition`: the settings by
  Kafka version).
* :mod:`~kipviz.scenarios.consumer.kernel`, :mod:`~kipviz.scenarios.consumer.phases`,
  :mod:`~kipviz.scenarios.consumer.columns`: the numba kernel (and its compilation), its phases
  (read responses, consume, brokers answer), its named column blocks and state.
* :mod:`~kipviz.scenarios.consumer.buffer_memory`: KIP-81 side by side (today's consumer, the
  pool, the rejected in-flight cap).
* :mod:`~kipviz.scenarios.consumer.versions`: one workload under several Kafka releases.
* :mod:`~kipviz.scenarios.consumer.clients`: one workload on Java's consumer, librdkafka,
  franz-go and kafka-python (issue 31).
* :mod:`~kipviz.scenarios.consumer.meta`: ``ConsumerMeta``, the typed ``meta`` of a trace.

May import: what every kind may (:mod:`kipviz.scenarios`).
"""

from __future__ import annotations

from kipviz import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(__name__, {
    "scenario": ["ConsumerScenario", "ConsumerTrace", "simulate"],
    "buffer_memory": ["buffer_modes", "simulate_modes"],
    "versions": ["memory_by_version", "simulate_versions"],
    "clients": ["catching_up", "memory_by_client", "simulate_clients"],
    "meta": ["ConsumerMeta"],
})
