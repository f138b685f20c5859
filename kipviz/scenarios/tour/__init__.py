"""The tour's scenario: one cluster seen through a consumer, a broker and a reassignment.

* :mod:`~kipviz.scenarios.tour.scenario`: ``ClusterScenario`` and the tour's settings.

May import: :mod:`kipviz.kafka` and the shared parts of :mod:`kipviz.scenarios` (contract,
limits, workload, jit), and the consumer, broker and reassignment kinds. Nothing here imports Spark,
plotly, ipywidgets or SimPy.
"""

from __future__ import annotations

from kipviz import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(__name__, {
    "scenario": ["ClusterScenario", "TOUR_SETTINGS"],
})
