"""Seeded, vectorised simulations of Kafka clients and brokers that emit columnar traces.

One folder per scenario kind, each with its scenario (a frozen dataclass varied with
``replace``), its ``simulate(scenario, *, seed=0)``, its numba kernel and the kernel's named
column blocks, and its traces' typed ``meta`` (``meta.py``): :mod:`~kipviz.scenarios.consumer`
(KIP-74, KIP-81), :mod:`~kipviz.scenarios.broker` (KIP-72), :mod:`~kipviz.scenarios.reassignment`
(KIP-73), :mod:`~kipviz.scenarios.streams` (KIP-770), :mod:`~kipviz.scenarios.share_group`
(KIP-932), :mod:`~kipviz.scenarios.tiered_fetch` (KIP-405), and the tour's
:mod:`~kipviz.scenarios.tour`. What they share:

* :mod:`~kipviz.scenarios.contract`: the shape every kind has (``ScenarioKind``, ``Reduction``,
  seeds) and :mod:`~kipviz.scenarios.registry`'s ``SCENARIOS``, the one table the sweeps,
  summaries, trace docs and coverage tests iterate.
* :mod:`~kipviz.scenarios.fairness`: Jain's index and max-min fair shares in numpy (the one
  definition; the curves' Spark SQL is checked against it).
* :mod:`~kipviz.scenarios.limits`: Java ranges and the trace-size check made before allocating.
* :mod:`~kipviz.scenarios.workload`: produce-rate profiles and the record batches they write.
* :mod:`~kipviz.scenarios.jit`: the one way a kernel is compiled by numba (and Kafka's windowed
  rate, compiled once for every kernel that measures one).

May import: numpy, pandas, numba and :mod:`kipviz.kafka`; a kind's folder also the shared parts
here (contract, limits, workload, jit), and the tour kind the kinds it combines. Nothing here
imports Spark, plotly, ipywidgets or SimPy (the SimPy references the kernels are checked against
live in ``tools/oracles/``).
"""

from __future__ import annotations

from kipviz import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(__name__, {
    "contract": ["Reduction", "ScenarioKind"],
    "fairness": ["jain_by_window", "jain_index", "max_min_fair_shares"],
    "registry": ["SCENARIOS", "kind_of"],
    "workload": ["Workload"],
})
