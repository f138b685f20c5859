"""The KIP-770 Streams scenario: an instance of T stream threads buffering its input.

* :mod:`~kipviz.scenarios.streams.scenario`: ``StreamsScenario``, ``simulate``, ``StreamsTrace``.
* :mod:`~kipviz.scenarios.streams.kernel`, :mod:`~kipviz.scenarios.streams.columns`: the numba
  kernel and its named column blocks; :mod:`~kipviz.scenarios.streams.processing`: a thread's
  processing round, task by task (compiled with the kernel).
* :mod:`~kipviz.scenarios.streams.meta`: ``StreamsMeta``, the typed ``meta`` of a trace.

May import: what every kind may (:mod:`kipviz.scenarios`).
"""

from __future__ import annotations

from kipviz import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(__name__, {
    "scenario": ["StreamsScenario", "StreamsTrace", "simulate"],
    "meta": ["StreamsMeta"],
})
