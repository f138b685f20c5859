"""The experiments of ``kipviz reality`` by name, in the order it runs them."""


from __future__ import annotations

import importlib
from types import ModuleType

__all__ = ["EXPERIMENTS", "experiment"]

EXPERIMENTS = ("kip74_responses",)
_MODULES = {"kip74_responses": "responses"}


def experiment(name: str) -> ModuleType:
    """The module of experiment ``name``."""
    if name not in _MODULES:
        raise ValueError(f"experiment must be one of {', '.join(EXPERIMENTS)}: {name!r}")
    return importlib.import_module(f"kipviz.reality.experiments.{_MODULES[name]}")
