"""kipviz: see how Apache Kafka bounds memory and shares bandwidth.

Mechanisms (pure, no Spark): :mod:`kipviz.fetch` (KIP-74). Scenarios simulate them on seeded
workloads; :mod:`kipviz.curves` has Spark turn the traces into curves; :mod:`kipviz.widgets` wires
sliders to all of it. ``import kipviz`` stays light: Spark is imported only when curves are made.
"""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["__version__"]
