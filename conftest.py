"""Repository-wide pytest hooks: how nbval compares the lesson notebooks, and where they run."""

from __future__ import annotations

import pytest

# Plotly outputs carry random div ids and the whole figure JSON; the printed numbers next to
# them are what the notebook tests pin. Widget views are skipped by nbval itself.
PLOTLY_OUTPUT_TYPES = ("application/vnd.plotly.v1+json", "text/html")


def pytest_collectstart(collector):
    """Add plotly's output types to the ones nbval does not compare."""
    if type(collector).__name__ == "IPyNbFile":
        collector.skip_compare = (*collector.skip_compare, *PLOTLY_OUTPUT_TYPES)



@pytest.hookimpl(optionalhook=True)  # a hook of pytest-xdist (the dev extra), if installed
def pytest_xdist_make_scheduler(config, log):
    """With ``--dist load``: every test to the next free worker, but a lesson notebook's cells
    together, in order (they share one kernel); ``make test`` runs so. (xdist's ``loadgroup``
    would do it with marks, but it renames the tests' node ids in a way pytest 9 ignores.)"""
    if config.getoption("dist") != "load":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class NotebookScheduling(LoadScopeScheduling):
        """xdist's scope scheduling with a scope per test, and one per notebook."""

        def _split_scope(self, nodeid):
            path = nodeid.split("::", 1)[0]
            return path if path.endswith(".ipynb") else nodeid

    return NotebookScheduling(config, log)
