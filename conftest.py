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


# Test files whose tests are independent of each other (each builds what it moves; module
# fixtures are only read) and long together: make test spreads their tests over the workers.
SPREAD_FILES = ("tests/widgets/test_widget_coverage.py",)


@pytest.hookimpl(optionalhook=True)  # a hook of pytest-xdist (the dev extra), if installed
def pytest_xdist_make_scheduler(config, log):
    """With ``--dist load`` (``make test``): a test file or lesson notebook per worker at a time
    (a notebook's cells share one kernel; a file's tests may share a module fixture's state),
    except the tests of :data:`SPREAD_FILES`, each sent to the next free worker."""
    if config.getoption("dist") != "load":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class FileScheduling(LoadScopeScheduling):
        """xdist's scope scheduling with a scope per file, and per test in SPREAD_FILES."""

        def _split_scope(self, nodeid):
            path = nodeid.split("::", 1)[0]
            return nodeid if path in SPREAD_FILES else path

    return FileScheduling(config, log)
