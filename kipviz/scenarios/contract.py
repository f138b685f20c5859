"""The shape every scenario kind has, and what a sweep needs to summarise one run of it.

A *kind* (the KIP-74 consumer, the KIP-72 broker, the KIP-73 reassignment, ...) is a
:class:`ScenarioKind`: its scenario class (a frozen dataclass varied with ``replace``), its
``simulate(scenario, *, seed=0, ...)``, its trace class (pandas tables and a typed ``meta``) and
``summarise(scenario, seed) -> Reduction``: the run reduced to per-tick memory and throughput,
Jain's index per window and the summary metrics it has (``bound_bytes``, ``move_time_s``, ...).
:mod:`kipviz.curves.summary` turns a :class:`Reduction` into a sweep's row, whatever the kind.

Every run draws its random inputs from ``numpy.random.SeedSequence(seed)``
(:func:`input_rng`, which is ``numpy.random.default_rng(seed)``), never from numpy's global
generator, and records ``seed`` in ``meta`` even where nothing is random.

Jain's index per window, which a :class:`Reduction` carries, is :mod:`kipviz.scenarios.fairness`'s.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from kipviz.scenarios.limits import check_seed

__all__ = ["Reduction", "ScenarioKind", "curve_window_ms", "input_rng", "seed_sequence"]

_NO_WINDOWS = np.full(0, math.nan)


@dataclass(frozen=True)
class Reduction:
    """One run as a sweep reads it: ``memory_bytes`` and ``consumed_bytes`` per tick of
    ``tick_ms``, ``jain_index`` per window (empty: the kind has no fairness), ``metrics`` (the
    :data:`kipviz.curves.summary.SUMMARY` metrics the kind has; the others are NaN) and ``windows``,
    how many windows the curves are downsampled to."""

    memory_bytes: np.ndarray
    consumed_bytes: np.ndarray
    tick_ms: int
    jain_index: np.ndarray = field(default_factory=lambda: _NO_WINDOWS)
    metrics: Mapping[str, float] = field(default_factory=dict)
    windows: int = 20


@dataclass(frozen=True)
class ScenarioKind:
    """One scenario kind: ``name`` (the registry key), ``kip`` (what it models), ``scenario``
    (its class), ``simulate`` (``simulate(scenario, *, seed=0, ...) -> trace``), ``trace`` (the
    trace class), ``meta`` (the ``TypedDict`` of ``trace.meta``) and ``summarise``
    (``(scenario, seed) -> Reduction``; None: the kind cannot be swept)."""

    name: str
    kip: str
    scenario: type
    simulate: Callable[..., Any]
    trace: type
    meta: type
    summarise: Callable[[Any, int], Reduction] | None = None

    @property
    def sweepable(self) -> bool:
        """Whether :func:`kipviz.curves.sweep.sweep` can summarise this kind."""
        return self.summarise is not None


def seed_sequence(seed: object) -> np.random.SeedSequence:
    """The run's ``SeedSequence``; ValueError unless ``seed`` is an int in 0 .. 2**32 - 1."""
    return np.random.SeedSequence(check_seed(seed))


def input_rng(seed: object) -> np.random.Generator:
    """The generator a run draws its inputs from: ``Generator(PCG64(SeedSequence(seed)))``, the
    same stream as ``numpy.random.default_rng(seed)``."""
    return np.random.default_rng(seed_sequence(seed))


def curve_window_ms(ticks: int, windows: int, tick_ms: int) -> int:
    """The width of one of ``windows`` windows over ``ticks`` ticks, in ms (the last is short)."""
    return math.ceil(ticks / windows) * tick_ms
