"""The KIP-932 scenario: C share consumers and a classic group side by side on P partitions.

* :mod:`~kipviz.scenarios.share_group.scenario`: ``ShareGroupScenario``, ``simulate``.
* :mod:`~kipviz.scenarios.share_group.tables`: ``ShareGroupTrace`` built from the kernel's rows.
* :mod:`~kipviz.scenarios.share_group.kernel`, :mod:`~kipviz.scenarios.share_group.columns`:
  the numba kernel and its named column blocks.
* :mod:`~kipviz.scenarios.share_group.meta`: ``ShareGroupMeta``, the typed ``meta`` of a trace.
* :mod:`~kipviz.scenarios.share_group.versions`: the scenario by Kafka release (4.0 to 4.3).

May import: what every kind may (:mod:`kipviz.scenarios`).
"""

from __future__ import annotations

from kipviz import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(__name__, {
    "scenario": ["ShareGroupScenario", "simulate", "simulate_scaling"],
    "tables": ["ShareGroupTrace"],
    "meta": ["ShareGroupMeta"],
    "versions": ["SHARE_RELEASES", "fetch_nodes_table", "release_table"],
})
