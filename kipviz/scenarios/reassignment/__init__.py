"""The KIP-73 reassignment scenario: a throttled move between a leader and a destination.

* :mod:`~kipviz.scenarios.reassignment.scenario`: ``ReassignmentScenario``, ``simulate``,
  ``ReassignmentTrace``.
* :mod:`~kipviz.scenarios.reassignment.cluster`: ``ClusterReassignmentScenario``,
  ``simulate_cluster``: a plan's moves on every broker, each with its own two quotas.
* :mod:`~kipviz.scenarios.reassignment.plan`: ``ReassignmentPlanScenario``, ``sample_plan``: a
  real plan with one T on every broker and the hottest topic's IN (lesson 4's dashboard).
* :mod:`~kipviz.scenarios.reassignment.kernel`: the numba kernel of a cluster's move (one
  leader and one destination: ``ReassignmentScenario``).
* :mod:`~kipviz.scenarios.reassignment.share`: one tick's fetches with binding quotas shared
  max-min fair (the cluster's pinned rule); :mod:`~kipviz.scenarios.reassignment.isr`: a
  leader's answer, ISR joins and completed moves.
* :mod:`~kipviz.scenarios.reassignment.columns`: the kernel's named column blocks.
* :mod:`~kipviz.scenarios.reassignment.arrays`: a plan as the kernel's arrays, and one run.
* :mod:`~kipviz.scenarios.reassignment.meta`: the plan and outcome a trace carries, and its
  typed ``meta`` (``ReassignmentMeta``).

May import: what every kind may (:mod:`kipviz.scenarios`).
"""

from __future__ import annotations

from kipviz import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(__name__, {
    "scenario": ["ReassignmentScenario", "ReassignmentTrace", "simulate"],
    "meta": ["ReassignmentMeta"],
    "cluster": ["ClusterReassignmentMeta", "ClusterReassignmentScenario",
                "ClusterReassignmentTrace", "simulate_cluster"],
    "plan": ["SAMPLE_BYTES_IN", "ReassignmentPlanScenario", "sample_plan"],
})
