"""The ``streams`` kind's curves (KIP-770's input buffer).

* :mod:`~kipviz.curves.streams.curves`: per thread and per instance memory, per partition
  buffers and the threads' fairness (``streams_curves``, one Spark job).
* :mod:`~kipviz.curves.streams.compare`: the lesson's tables of several policies and record
  sizes.

May import: pyspark, pandas, :mod:`kipviz.curves.sql`, :mod:`kipviz.curves.consumer` (its
fairness SQL), :mod:`kipviz.scenarios` and :mod:`kipviz.kafka`.
"""

from __future__ import annotations

from kipviz import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(__name__, {
    "curves": ["INSTANCE_MEMORY", "PARTITION_MEMORY", "THREAD_FAIRNESS", "THREAD_MEMORY",
               "StreamsCurves", "bound_sweep", "instance_memory_curve", "partition_memory",
               "streams_curves", "thread_fairness", "thread_memory_curve"],
    "compare": ["policies_table", "policy_curves", "record_size_sweep", "skewed_value_bytes",
                "thread_fairness_table"],
})
