"""Package-wide promises: sorted public names, documented API, a light import, doctests."""

from __future__ import annotations

import doctest
import importlib
import inspect
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest


def _walk(package: str) -> list[str]:
    """``package`` and every module under it, walked (not listed), ``__main__`` left out
    (running it is the command line)."""
    path = importlib.import_module(package).__path__
    return [package, *sorted(m.name for m in pkgutil.walk_packages(path, f"{package}.")
                             if not m.name.endswith("__main__"))]


def _files(package: str) -> list[str]:
    """The modules of ``package`` named from its ``.py`` files (``__main__`` left out)."""
    root = Path(importlib.import_module(package).__file__).parent
    names = []
    for path in root.rglob("*.py"):
        parts = path.relative_to(root.parents[package.count(".")]).with_suffix("").parts
        if parts[-1] != "__main__":
            names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return sorted(names)


ALL_MODULES = _walk("kipviz")
MODULES = [n for n in ALL_MODULES if not any(part.startswith("_") for part in n.split("."))]
BENCHMARK_MODULES = _walk("benchmarks") + _walk("tools.oracles")


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
    """Mechanisms work without Java: ``import kipviz.kafka.fetch.response`` loads no pyspark and
    no numba."""
    code = ("import sys, kipviz, kipviz.kafka.fetch.response, kipviz.kafka.config, "
            "kipviz.scenarios.workload; "
            "print(sorted(m for m in ('pyspark', 'numba') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


@pytest.mark.parametrize("package", ["kipviz", "benchmarks", "tools.oracles"])
def test_discovery_finds_every_python_file(package):
    """The walk that the tests here parametrize over sees every ``.py`` file: a folder added
    without an ``__init__.py`` (which the walk would skip) fails here, not silently."""
    assert _walk(package) == _files(package)


@pytest.mark.parametrize("name", ALL_MODULES + BENCHMARK_MODULES)
def test_docstring_examples_run(name):
    """The examples in every module's docstrings (the package's, the benchmarks' and the oracles')
    are true (modules without any pass)."""
    result = doctest.testmod(importlib.import_module(name))
    assert result.failed == 0


def test_the_mechanisms_carry_examples():
    """The mechanism modules document themselves with runnable examples, Ciw-style."""
    for name in ("kipviz.kafka.fetch.response", "kipviz.kafka.replication.quota",
                 "kipviz.kafka.config.versions", "kipviz.kafka.consumer.memory"):
        assert doctest.testmod(importlib.import_module(name)).attempted > 0, name


def test_data_files_are_found_through_the_package_and_missing_ones_are_named():
    """Notebooks find data through ``kipviz.data_file``, never a relative path."""
    import kipviz

    assert kipviz.data_file("consumer.properties").is_file()
    with pytest.raises(FileNotFoundError, match=r"no data file 'nope\.txt'"):
        kipviz.data_file("nope.txt")
