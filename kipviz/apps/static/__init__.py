"""Static pages: HTML that opens from disk with no kernel and no network.

* :mod:`kipviz.apps.static.html`: the page shell, one local plotly.js, figures without a CDN.
* :mod:`kipviz.apps.static.grids`: for each lesson dashboard, the two or three main controls and the
  values a static page offers (about 50 configurations each).
* :mod:`kipviz.apps.static.sliders`: a page whose sliders move over such a grid, computed by Spark
  (:class:`kipviz.curves.instant.SweepGrid`) while the page is built, redrawn in the browser.
* :mod:`kipviz.apps.static.run_page`: the page of ``kipviz run``.

May import: every layer below :mod:`kipviz.apps`.
"""

from __future__ import annotations

__all__: list[str] = []
