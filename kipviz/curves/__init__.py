"""Spark: traces in, curves out; sweeps of many configurations as one job, and their cache.

* :mod:`~kipviz.curves.spark`: the one place kipviz makes a SparkSession (embedded ``local[*]``
  by default; a cluster or Spark Connect by configuration), and finds a Java for it.
* :mod:`~kipviz.curves.sql`: the shared plumbing (pandas traces to Spark through Arrow, SQL
  texts planned once, results back to pandas).
* One module per scenario kind's curves: :mod:`~kipviz.curves.consumer` (fairness, memory, lag:
  ``consumer_curves``), :mod:`~kipviz.curves.broker`, :mod:`~kipviz.curves.consumer_buffer`,
  :mod:`~kipviz.curves.reassignment` (and ``reassignment_plan``: a real plan's lanes per broker),
  :mod:`~kipviz.curves.streams`,
  :mod:`~kipviz.curves.share_group`, :mod:`~kipviz.curves.tiered`; the ``*_compare`` modules
  run several configurations side by side.
* :mod:`~kipviz.curves.summary`: one configuration reduced to the metrics a sweep stores;
  :mod:`~kipviz.curves.sweep` runs many as one Spark job, :mod:`~kipviz.curves.sweep_cache`
  keeps each once as Parquet, :mod:`~kipviz.curves.instant` answers sliders from a swept grid.

May import: pyspark, pandas, pyarrow, :mod:`kipviz.scenarios` and :mod:`kipviz.kafka`. Spark is
imported only here, so ``import kipviz`` and the rules work without Java.
"""

from __future__ import annotations

from kipviz import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(__name__, {
    "consumer": ["FAIRNESS_INPUT", "LAG_BY_PARTITION", "MEMORY", "STREAKS", "ConsumerCurves",
                 "bound_exceedance", "consumer_curves", "fair_shares", "fairness",
                 "lag_by_partition", "lag_over_time", "memory_curve", "starvation_streaks"],
    "consumer_sql": ["FAIRNESS", "LAG_OVER_TIME"],
    "sql": ["spark_schema", "to_spark"],
    "spark": ["get_spark", "stop_spark"],
})
