"""The ``broker`` kind's curves (KIP-72's request memory pool).

* :mod:`~kipviz.curves.broker.curves`: the pool's memory, request waits, their fairness and the
  large requests' starvation (``broker_curves``, one Spark job).
* :mod:`~kipviz.curves.broker.compare`: the lesson's tables of several pools side by side.

May import: pyspark, pandas, :mod:`kipviz.curves.sql`, :mod:`kipviz.scenarios` and
:mod:`kipviz.kafka`.
"""

from __future__ import annotations

from kipviz import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(__name__, {
    "curves": ["LARGE_STARVATION", "POOL_MEMORY", "REQUEST_WAITS", "WAIT_FAIRNESS", "WAIT_SUMMARY",
               "BrokerCurves", "broker_curves", "large_request_starvation", "pool_memory_curve",
               "request_waits", "wait_fairness", "wait_summary"],
    "compare": ["allocation_table", "overshoot_table", "pool_curves", "pools_table",
                "waits_table"],
})
