"""plotly figures: curves in, figures out (no simulation, no Spark here).

* :mod:`~kipviz.plots.grid`: the rows x 2 grid of fixed traces every dashboard figure starts from,
  redrawn in place.
* One module per scenario kind's figures: :mod:`~kipviz.plots.consumer` (KIP-74),
  :mod:`~kipviz.plots.broker` (KIP-72), :mod:`~kipviz.plots.consumer_buffer` (KIP-81),
  :mod:`~kipviz.plots.reassignment` and ``reassignment_plan`` (KIP-73),
  :mod:`~kipviz.plots.streams` (KIP-770),
  :mod:`~kipviz.plots.share_group` (KIP-932), :mod:`~kipviz.plots.tiered_fetch` (KIP-405),
  :mod:`~kipviz.plots.tour` (the tour), :mod:`~kipviz.plots.clients` (issue 31's clients) and
  :mod:`~kipviz.plots.sweep` (sweeps and grids).
* :mod:`~kipviz.plots.diagrams`: each lesson's static diagram, drawn from a worked example.

May import: plotly, :mod:`kipviz.curves` (the curve tables, never a Spark job),
:mod:`kipviz.scenarios` and :mod:`kipviz.kafka`.
"""

from __future__ import annotations

from kipviz import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(__name__, {
    "grid": ["MiB", "add_fixed_traces", "finish_grid", "grid_figure", "set_trace_data"],
    "clients": ["clients_figure"],
    "consumer": ["compare_fairness_figure", "consumer_figure", "memory_bounds_figure",
                 "update_consumer_figure"],
})
