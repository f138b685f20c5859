"""Package-wide promises: sorted public names, documented API, a light import, doctests."""

from __future__ import annotations

import doctest
import importlib
import inspect
import subprocess
import sys

import pytest

MODULES = ["kipviz", "kipviz.config", "kipviz.curves", "kipviz.curves.broker", "kipviz.fetch",
           "kipviz.planner", "kipviz.plots", "kipviz.plots.broker", "kipviz.pool", "kipviz.quota",
           "kipviz.advice", "kipviz.cli", "kipviz.report",
           "kipviz.scenarios.broker", "kipviz.scenarios.consumer",
           "kipviz.scenarios.reassignment", "kipviz.spark", "kipviz.widgets",
           "kipviz.widgets.broker", "kipviz.widgets.fetch", "kipviz.widgets.reassignment",
           "kipviz.workload", "kipviz.curves.reassignment", "kipviz.plots.reassignment",
           "kipviz.buffer", "kipviz.scenarios.consumer_buffer", "kipviz.curves.consumer_buffer",
           "kipviz.plots.consumer_buffer", "kipviz.widgets.consumer_buffer",
           "kipviz.scenarios.streams", "kipviz.curves.streams", "kipviz.plots.streams",
           "kipviz.widgets.streams", "kipviz.scenarios.cluster", "kipviz.plots.tour",
           "kipviz.widgets.tour", "kipviz.sweep", "kipviz.plots.sweep",
           "kipviz.instant", "kipviz.widgets.grid", "kipviz.summary",
           "kipviz.token_bucket", "kipviz.remote_quota", "kipviz.remote_fetch",
           "kipviz.share", "kipviz.share_partition", "kipviz.share_acquire",
           "kipviz.share_assign",
           "kipviz.scenarios.share_group", "kipviz.curves.share_group",
           "kipviz.plots.share_group", "kipviz.widgets.share_group", "kipviz.share_advice",
           "kipviz.exercises"]


def _isort_key(name: str) -> tuple[int, str]:
    kind = 0 if name.isupper() else 1 if name[:1].isupper() else 2
    return kind, name


@pytest.mark.parametrize("name", MODULES)
def test_every_module_lists_its_public_names_sorted_and_documents_them(name):
    """``__all__`` is sorted isort-style (CONSTANTS, Classes, functions; ruff's RUF022) and every
    public function and class has a docstring."""
    module = importlib.import_module(name)
    assert module.__doc__
    assert list(module.__all__) == sorted(module.__all__, key=_isort_key)
    for public in module.__all__:
        obj = getattr(module, public)
        if inspect.isfunction(obj) or inspect.isclass(obj):
            assert obj.__doc__, f"{name}.{public} has no docstring"


def test_importing_kipviz_and_its_mechanisms_needs_neither_spark_nor_numba():
    """Mechanisms work without Java: ``import kipviz.fetch`` loads no pyspark and no numba."""
    code = ("import sys, kipviz, kipviz.fetch, kipviz.config, kipviz.workload; "
            "print(sorted(m for m in ('pyspark', 'numba') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


@pytest.mark.parametrize("name", ["kipviz.fetch", "kipviz.quota", "kipviz.share_advice",
                                  "kipviz.exercises"])
def test_docstring_examples_run(name):
    """The examples in docstrings are true."""
    result = doctest.testmod(importlib.import_module(name))
    assert result.attempted > 0 and result.failed == 0


def test_data_files_are_found_through_the_package_and_missing_ones_are_named():
    """Notebooks find data through ``kipviz.data_file``, never a relative path."""
    import kipviz

    assert kipviz.data_file("consumer.properties").is_file()
    with pytest.raises(FileNotFoundError, match=r"no data file 'nope\.txt'"):
        kipviz.data_file("nope.txt")
