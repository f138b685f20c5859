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

The fairness helpers (:func:`jain_by_window`, :func:`thread_demand`,
:func:`share_consumer_demand`) compute in numpy what :mod:`kipviz.curves` computes in Spark, for
the sweeps' tasks.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from kipviz.scenarios.limits import check_seed

__all__ = ["Reduction", "ScenarioKind", "curve_window_ms", "input_rng", "jain_by_window",
           "seed_sequence", "share_consumer_demand", "thread_demand"]

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


def jain_by_window(windows: pd.DataFrame) -> np.ndarray:
    """Jain's index per window over partitions with data, as :func:`kipviz.curves.consumer.fairness`
    computes it in Spark (max-min fair shares by water-filling), here in numpy for the tasks."""
    out = []
    for _, w in windows.groupby("window", sort=True):
        d = w["demand_bytes"].to_numpy(dtype=float)
        x = w["delivered_bytes"].to_numpy(dtype=float)
        keep = d > 0
        d, x = d[keep], x[keep]
        if len(d) == 0:
            out.append(math.nan)
            continue
        order = np.argsort(d, kind="stable")
        ds = d[order]
        smaller = np.concatenate([[0.0], np.cumsum(ds)[:-1]])
        cand = (x.sum() - smaller) / (len(ds) - np.arange(len(ds)))
        fits = np.nonzero(cand <= ds)[0]
        share = np.minimum(d, cand[fits[0]]) if len(fits) else d
        ratio = np.divide(x, share, out=np.ones_like(x), where=share > 0)
        out.append(ratio.sum() ** 2 / (len(ratio) * (ratio**2).sum()))
    return np.asarray(out)


def thread_demand(threads: pd.DataFrame, window_ms: int) -> pd.DataFrame:
    """A Streams trace's ``threads`` table as :func:`jain_by_window` input: per window and stream
    thread, the records it could have processed (``demand_bytes``) and did (``delivered_bytes``),
    as :func:`kipviz.curves.streams.thread_fairness` measures fairness across threads."""
    window = threads["time_ms"].to_numpy() // window_ms
    table = pd.DataFrame({"window": window, "thread": threads["thread"].to_numpy(),
                          "demand_bytes": threads["demand_records"].to_numpy(dtype=float),
                          "delivered_bytes": threads["processed_records"].to_numpy(dtype=float)})
    return table.groupby(["window", "thread"], sort=True, as_index=False).sum()


def share_consumer_demand(consumers: pd.DataFrame, window_ms: int,
                          demand_records: float) -> pd.DataFrame:
    """A share-group trace's share consumers as :func:`jain_by_window` input: per window and
    consumer, the records it could process (``demand_bytes``, the same for all) and did
    (``delivered_bytes``), as :func:`kipviz.curves.share_group.share_group_curves` measures
    fairness across consumers."""
    share = consumers[consumers["group"] == "share"]
    table = pd.DataFrame({"window": share["time_ms"].to_numpy() // window_ms,
                          "partition": share["consumer"].to_numpy(),
                          "delivered_bytes": share["processed"].to_numpy(dtype=float)})
    table = table.groupby(["window", "partition"], sort=True, as_index=False).sum()
    table["demand_bytes"] = float(demand_records)
    return table
