"""The KIP-405 scenario: consumers catching up from remote storage beside tail consumers.

* :mod:`~kipviz.scenarios.tiered_fetch.scenario`: ``TieredFetchScenario``, ``simulate``,
  ``TieredFetchTrace``.
* :mod:`~kipviz.scenarios.tiered_fetch.kernel`, :mod:`~kipviz.scenarios.tiered_fetch.columns`:
  the event loop for numba and its named column blocks.
* :mod:`~kipviz.scenarios.tiered_fetch.quotas`: the remote copy quota and Kafka's three rates
  on bursty loads.
* :mod:`~kipviz.scenarios.tiered_fetch.meta`: ``TieredFetchMeta``, the typed ``meta`` of a trace.

May import: what every kind may (:mod:`kipviz.scenarios`).
"""

from __future__ import annotations

from kipviz import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(__name__, {
    "scenario": ["TieredFetchScenario", "TieredFetchTrace", "simulate", "simulate_versions"],
    "quotas": ["bursty_load", "copy_under_quota", "three_rates"],
    "meta": ["TieredFetchMeta"],
})
