"""kipviz: see how Apache Kafka bounds memory and shares bandwidth.

Mechanisms (pure, no Spark): :mod:`kipviz.fetch` (KIP-74). Scenarios simulate them on seeded
workloads; :mod:`kipviz.curves` has Spark turn the traces into curves; :mod:`kipviz.widgets` wires
sliders to all of it. ``import kipviz`` stays light: Spark is imported only when curves are made.

The lessons and the sample data live in the repository's top-level ``notebooks/`` and ``data/``;
a wheel carries copies inside the package (``kipviz/notebooks``, ``kipviz/data``, put there by
``setup.py`` at build time). :func:`data_file` and :func:`lessons_dir` look in the package first,
then beside it (a clone or an editable install).
"""

from __future__ import annotations

from pathlib import Path

__version__ = "0.1.0"

__all__ = ["__version__", "data_file", "lessons_dir"]

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
