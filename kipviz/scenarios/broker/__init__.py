"""The KIP-72 broker scenario: a network thread reading requests under the memory pool.

* :mod:`~kipviz.scenarios.broker.scenario`: ``BrokerScenario``, ``simulate``, ``BrokerTrace``.
* :mod:`~kipviz.scenarios.broker.kernel`: the numba kernel and its column blocks.
* :mod:`~kipviz.scenarios.broker.meta`: ``BrokerMeta``, the typed ``meta`` of a trace.
* :mod:`~kipviz.scenarios.broker.versions`: invalid requests by Kafka release (KAFKA-20302) and
  the size check before the pool.

May import: what every kind may (:mod:`kipviz.scenarios`).
"""

from __future__ import annotations

from kipviz import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(__name__, {
    "scenario": ["BrokerScenario", "BrokerTrace", "simulate"],
    "meta": ["BrokerMeta"],
    "versions": ["invalid_request_table", "size_check_table"],
})
