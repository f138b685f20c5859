"""The experiments of ``kipviz reality``, one module each: a seeded setup on a real cluster, the
real run, kipviz's prediction with the same settings, and rows with a verdict
(:class:`kipviz.reality.results.Row`).

Each module defines ``NAME``, ``setup(cluster) -> state`` (topics, produced once) and
``run(cluster, state, *, quick=False) -> list[Row]``; :data:`EXPERIMENTS` (:mod:`.registry`) lists
them in the order ``kipviz reality`` runs them.

May import: :mod:`kipviz.kafka`, :mod:`kipviz.scenarios` and the rest of :mod:`kipviz.reality`.
"""

from kipviz import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(__name__, {"registry": ["EXPERIMENTS", "experiment"]})
