"""kipviz: see how Apache Kafka bounds memory and shares bandwidth.

The package is layered, lowest first; a module imports from its own layer or a lower one:

* :mod:`kipviz.kafka`: what Kafka does, one folder per area (config and versions, fetch,
  consumer, broker, quotas, replication, streams, share groups, tiered storage). Plain
  functions on state and small classes; no Spark, plotly, ipywidgets or SimPy.
* :mod:`kipviz.scenarios`: seeded simulations, one folder per kind, emitting columnar traces.
* :mod:`kipviz.curves`: Spark: the one SparkSession, traces to curves, sweeps and their cache.
* :mod:`kipviz.plots`: plotly figures, curves in.
* :mod:`kipviz.widgets`: the dashboards (controls -> scenario -> curves -> figure).
* :mod:`kipviz.apps`: the front doors: the ``kipviz`` command, ``kipviz lab``, the static
  report, the planner's files, the course helpers.

``import kipviz`` stays light: this module imports none of them, and Spark is imported only when
curves are made. Packages re-export their main names lazily (:func:`lazy_exports`), so
``from kipviz.kafka.fetch import fill_response`` loads only the module that defines it.
``kipviz.plan_reassignment`` (the per-broker reassignment planner,
:mod:`kipviz.apps.planner.reassignment`) is one such lazy name.

The lessons and the sample data live in the repository's top-level ``notebooks/`` and ``data/``;
a wheel carries copies inside the package (``kipviz/notebooks``, ``kipviz/data``, put there by
``setup.py`` at build time). :func:`data_file` and :func:`lessons_dir` look in the package first,
then beside it (a clone or an editable install).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

__version__ = "0.1.0"

__all__ = ["__version__", "data_file", "lazy_exports", "lessons_dir", "plan_reassignment"]


def lazy_exports(package: str, exports: Mapping[str, Sequence[str]]
                 ) -> tuple[Callable[[str], Any], Callable[[], list[str]], list[str]]:
    """A package's ``__getattr__``, ``__dir__`` and ``__all__`` for names its submodules define.

    ``exports`` maps a submodule (relative name) to the names it defines that the package
    offers; a name is imported from its module on first use (PEP 562), so importing one module
    of a package never imports its siblings, and the package adds no import edges. Submodules
    themselves are reachable as attributes too. A name may not be a submodule's name (the
    import system would shadow one with the other).

    >>> getattr_, dir_, all_ = lazy_exports("kipviz.kafka.fetch", {"response": ["fill_response"]})
    >>> getattr_("fill_response").__module__
    'kipviz.kafka.fetch.response'
    """
    where = {name: module for module, names in exports.items() for name in names}
    clashes = sorted(set(where) & set(exports))
    if clashes:
        raise ValueError(f"{package}: names that are also submodules: {clashes}")

    def __getattr__(name: str) -> Any:
        if name in where:
            return getattr(importlib.import_module(f"{package}.{where[name]}"), name)
        try:
            return importlib.import_module(f"{package}.{name}")
        except ModuleNotFoundError as e:
            if e.name != f"{package}.{name}":
                raise
            raise AttributeError(f"module {package!r} has no attribute {name!r}") from None

    # isort-style, as every module's __all__: CONSTANTS, Classes, functions
    names = sorted(where, key=lambda n: (0 if n.isupper() else 1 if n[:1].isupper() else 2, n))

    def __dir__() -> list[str]:
        return list(names)

    return __getattr__, __dir__, names

_PACKAGE = Path(__file__).resolve().parent


def _shipped(folder: str) -> Path:
    """``folder`` inside the installed package (a wheel), else the repository's (a clone)."""
    inside = _PACKAGE / folder
    return inside if inside.is_dir() else _PACKAGE.parent / folder


def lessons_dir() -> Path:
    """The folder of the lesson notebooks (``NN_name.ipynb``): the wheel's copy or the clone's."""
    return _shipped("notebooks")


def data_file(name: str) -> Path:
    """A sample file from ``data/`` (Kafka configs, reassignment JSON), from a wheel or a clone."""
    folder = _shipped("data")
    path = folder / name
    if not path.is_file():
        known = sorted(p.name for p in folder.glob("*")) if folder.is_dir() else []
        raise FileNotFoundError(f"no data file {name!r} in {folder}; there are: {known}")
    return path


__getattr__, _dir, _lazy = lazy_exports(__name__, {
    "apps.planner.reassignment": ["plan_reassignment"]})
