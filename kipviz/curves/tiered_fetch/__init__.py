"""The ``tiered_fetch`` kind's curves (KIP-405's tiered storage fetches).

* :mod:`~kipviz.curves.tiered_fetch.curves`: throughput, latency and a summary of several
  tiered-fetch traces side by side (``tiered_curves``, one Spark job).

May import: pyspark, pandas, :mod:`kipviz.curves.sql`, :mod:`kipviz.scenarios` and
:mod:`kipviz.kafka`.
"""

from __future__ import annotations

from kipviz import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(__name__, {
    "curves": ["CLASSES", "TIERED_LATENCY", "TIERED_SUMMARY", "TIERED_THROUGHPUT", "TieredCurves",
               "tiered_curves"],
})
