"""The front doors: what a person runs, on top of every other layer.

* :mod:`~kipviz.apps.cli`: the ``kipviz`` command (``run``, ``report``, ``lab``).
* :mod:`~kipviz.apps.lab`: ``kipviz lab`` (the lessons copied into a folder, JupyterLab there).
* :mod:`~kipviz.apps.report` and :mod:`kipviz.apps.static`: the lessons as a static site, a
  config's run as a page, slider pages that move without a kernel.
* :mod:`kipviz.apps.planner`: the throttle planner from ``kafka-reassign-partitions`` files,
  with the commands that set it.
* The course helpers: :mod:`~kipviz.apps.exercises`, :mod:`~kipviz.apps.cheatsheet`,
  :mod:`~kipviz.apps.your_cluster`, :mod:`~kipviz.apps.share_advice`.

May import: every layer below (:mod:`kipviz.widgets`, :mod:`kipviz.plots`,
:mod:`kipviz.curves`, :mod:`kipviz.scenarios`, :mod:`kipviz.kafka`).
"""

from __future__ import annotations

__all__: list[str] = []
