"""Seeded, vectorised simulations of Kafka clients and brokers that emit columnar traces.

``SCENARIOS`` maps each scenario kind's name to its :class:`ScenarioKind` (scenario class,
``simulate``, trace class, typed ``meta`` and what a sweep needs): :mod:`kipviz.summary`,
:mod:`kipviz.sweep`, the trace-schema docs and the coverage tests iterate it
(:mod:`kipviz.scenarios.registry`, :mod:`kipviz.scenarios.contract`).
"""

from kipviz.scenarios.contract import Reduction, ScenarioKind
from kipviz.scenarios.registry import SCENARIOS, kind_of

__all__ = ["SCENARIOS", "Reduction", "ScenarioKind", "kind_of"]
