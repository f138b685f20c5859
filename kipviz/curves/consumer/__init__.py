"""The ``consumer`` kind's curves (KIP-74's fetch sizes, KIP-81's buffer memory).

* :mod:`~kipviz.curves.consumer.curves`: fairness, memory, lag and starvation streaks of one
  consumer trace (``consumer_curves``, the interactive path: one Spark job).
* :mod:`~kipviz.curves.consumer.sql`: those curves' Spark SQL texts (max-min fair shares, Jain's
  index, lag percentiles).
* :mod:`~kipviz.curves.consumer.buffer`: KIP-81's buffer-memory modes side by side
  (``buffer_curves``).
* :mod:`~kipviz.curves.consumer.compare`: the lessons' tables of several configurations
  (response sizes, bounds, heap, partition orders).

May import: pyspark, pandas, :mod:`kipviz.curves.sql`, :mod:`kipviz.scenarios` and
:mod:`kipviz.kafka`.
"""

from __future__ import annotations

from kipviz import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(__name__, {
    "curves": ["LAG_BY_PARTITION", "MEMORY", "STREAKS", "ConsumerCurves", "bound_exceedance",
               "consumer_curves", "fair_shares", "fairness", "lag_by_partition", "lag_over_time",
               "memory_curve", "starvation_streaks"],
    "sql": ["FAIRNESS", "FAIRNESS_AGGS", "FAIR_SHARES", "JAIN", "LAG_AGGS", "LAG_BY_PARTITION_SQL",
            "LAG_OVER_TIME", "LAG_OVER_TIME_SQL", "MEMORY_SQL", "RANKED", "STREAKS_SQL",
            "WITH_DEMAND", "per_window_query"],
    "buffer": ["BUFFER_MEMORY", "BUFFER_SUMMARY", "MODE_FAIRNESS", "BufferCurves", "buffer_curves"],
    "compare": ["ResponseSizes", "bounds_table", "fill_cases_table", "heap_table",
                "order_fairness_table", "response_sizes", "starvation_table",
                "version_order_table"],
})
