"""Repository-wide pytest hooks: how nbval compares the lesson notebooks."""

from __future__ import annotations

# Plotly outputs carry random div ids and the whole figure JSON; the printed numbers next to
# them are what the notebook tests pin. Widget views are skipped by nbval itself.
PLOTLY_OUTPUT_TYPES = ("application/vnd.plotly.v1+json", "text/html")


def pytest_collectstart(collector):
    """Add plotly's output types to the ones nbval does not compare."""
    if type(collector).__name__ == "IPyNbFile":
        collector.skip_compare = (*collector.skip_compare, *PLOTLY_OUTPUT_TYPES)
