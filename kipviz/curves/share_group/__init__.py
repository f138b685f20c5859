"""The ``share_group`` kind's curves (KIP-932's share groups).

* :mod:`~kipviz.curves.share_group.curves`: records in flight, latency, memory and fairness of
  a share group against a classic one, and the scaling past the partition count
  (``share_group_curves``, ``share_scaling``).

May import: pyspark, pandas, :mod:`kipviz.curves.sql`, :mod:`kipviz.scenarios` and
:mod:`kipviz.kafka`.
"""

from __future__ import annotations

from kipviz import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(__name__, {
    "curves": ["SHARE_FAIRNESS", "SHARE_IN_FLIGHT", "SHARE_LATENCY", "SHARE_MEMORY",
               "SHARE_SCALING", "ShareGroupCurves", "share_group_curves", "share_scaling",
               "window_ms_of"],
})
