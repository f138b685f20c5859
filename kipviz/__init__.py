"""kipviz: see how Apache Kafka bounds memory and shares bandwidth.

Mechanisms (pure, no Spark): :mod:`kipviz.fetch` (KIP-74). Scenarios simulate them on seeded
workloads; :mod:`kipviz.curves` has Spark turn the traces into curves; :mod:`kipviz.widgets` wires
sliders to all of it. ``import kipviz`` stays light: Spark is imported only when curves are made.
"""

from __future__ import annotations

from pathlib import Path

__version__ = "0.1.0"

__all__ = ["__version__", "data_file"]

_DATA = Path(__file__).resolve().parent.parent / "data"


def data_file(name: str) -> Path:
    """A file from the repository's ``data/`` folder (sample Kafka configs, reference figures)."""
    path = _DATA / name
    if not path.is_file():
        known = sorted(p.name for p in _DATA.glob("*")) if _DATA.is_dir() else []
        raise FileNotFoundError(f"no data file {name!r} in {_DATA}; there are: {known}")
    return path
