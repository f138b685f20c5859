"""Spark: traces in, curves out; sweeps of many configurations as one job, and their cache.

* :mod:`~kipviz.curves.spark`: the Spark plumbing: the one place kipviz makes a SparkSession
  (embedded ``local[*]`` by default; a Spark cluster or Spark Connect by configuration), the
  Java it runs, the class-data archive its driver maps, its configuration.
* :mod:`~kipviz.curves.sql`: the shared plumbing (pandas traces to Spark through Arrow, SQL
  texts planned once, results back to pandas).
* One package per scenario kind, named as the kind in :data:`kipviz.scenarios.SCENARIOS`, holding
  its curves, their SQL and the lessons' side-by-side tables: :mod:`~kipviz.curves.consumer`
  (fairness, memory, lag: ``consumer_curves``; KIP-81's ``buffer``),
  :mod:`~kipviz.curves.broker`, :mod:`~kipviz.curves.reassignment` (and its ``plan``: a real
  plan's lanes per broker), :mod:`~kipviz.curves.streams`, :mod:`~kipviz.curves.share_group`,
  :mod:`~kipviz.curves.tiered_fetch`.
* :mod:`~kipviz.curves.summary`: one configuration reduced to the metrics a sweep stores;
  :mod:`~kipviz.curves.sweep` runs many as one Spark job, :mod:`~kipviz.curves.sweep_cache`
  keeps each once as Parquet, :mod:`~kipviz.curves.instant` answers sliders from a swept grid.

May import: pyspark, pandas, pyarrow, :mod:`kipviz.scenarios` and :mod:`kipviz.kafka`. Spark is
imported only here, so ``import kipviz`` and the rules work without Java.
"""

from __future__ import annotations

from kipviz import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(__name__, {
    "consumer.curves": ["LAG_BY_PARTITION", "MEMORY", "STREAKS", "ConsumerCurves",
                        "bound_exceedance", "consumer_curves", "fair_shares", "fairness",
                        "lag_by_partition", "lag_over_time", "memory_curve",
                        "starvation_streaks"],
    "consumer.sql": ["FAIRNESS", "LAG_OVER_TIME"],
    "consumer.buffer": ["BufferCurves", "buffer_curves"],
    "broker.curves": ["BrokerCurves", "broker_curves"],
    "reassignment.curves": ["ReassignmentCurves", "reassignment_curves"],
    "reassignment.plan": ["PlanCurves", "plan_curves"],
    "streams.curves": ["StreamsCurves", "streams_curves"],
    "share_group.curves": ["ShareGroupCurves", "share_group_curves", "share_scaling"],
    "tiered_fetch.curves": ["TieredCurves", "tiered_curves"],
    "sql": ["spark_schema", "to_spark"],
    "spark.session": ["get_spark", "stop_spark"],
})
