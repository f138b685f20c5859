"""The ``reassignment`` kind's curves (KIP-73's replication quotas).

* :mod:`~kipviz.curves.reassignment.curves`: per quota window throttle rates, the catch-up curve
  and the move's summary (``reassignment_curves``, one Spark job).
* :mod:`~kipviz.curves.reassignment.sql`: those curves' Spark SQL texts and the checks on their
  rates.
* :mod:`~kipviz.curves.reassignment.plan`: a real plan's lanes per broker (``plan_curves``).
* :mod:`~kipviz.curves.reassignment.compare`: the lesson's tables of several throttles.

May import: pyspark, pandas, :mod:`kipviz.curves.sql`, :mod:`kipviz.scenarios` and
:mod:`kipviz.kafka`.
"""

from __future__ import annotations

from kipviz import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(__name__, {
    "curves": ["ReassignmentCurves", "catch_up_curve", "move_summary", "reassignment_curves",
               "throttle_curve"],
    "sql": ["CATCH_UP", "META_KEYS", "MOVE", "MOVE_SQL", "PARTITIONS_INPUT", "PARTITIONS_MOVE",
            "THROTTLE", "THROTTLE_SQL", "TICKS_INPUT", "TICKS_MOVE", "catch_up_query",
            "check_rates", "partitions_summary_query", "quota_window_to_ms",
            "ticks_summary_query"],
    "plan": ["BROKERS_INPUT", "LANES", "PlanCurves", "plan_curves"],
    "compare": ["followers_table", "response_size_table", "throttle_runs", "throttle_table"],
})
