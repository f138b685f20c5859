"""Instant answers from a swept grid: Spark computes the grid once, lookups need no Spark.

A :class:`SweepGrid` is a base scenario and a few axes (field name -> values). :meth:`fill` sweeps
every valid combination as one Spark job (:func:`kipviz.curves.sweep.sweep`; configurations already
in the Parquet cache are read, not simulated) and holds the rows in memory by configuration key
(:func:`kipviz.curves.sweep_cache.config_key`: the scenario's parameters, the seed and the kipviz
version).

:meth:`lookup` answers a scenario on the grid from memory, with no Spark job: that is the hot
path of a slider. :meth:`point` falls back, off the grid, to an on-demand computation (a sweep
of that one configuration, through Spark) whose row joins the grid and the cache, so the same
position is instant the next time. :meth:`slice` gives a metric over the first two axes with
the other settings fixed, for a "where am I" heatmap.

The summary metrics and curves are those of :mod:`kipviz.curves.sweep`, computed by Spark's tasks.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from kipviz.curves.summary import SUMMARY
from kipviz.curves.sweep import SweepResult, sweep, valid_grid
from kipviz.curves.sweep_cache import config_key

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

__all__ = ["GridPoint", "SweepGrid"]


@dataclass(frozen=True)
class GridPoint:
    """One configuration's answer: its ``metrics`` (the sweep's summary metrics, NaN where the
    scenario has no such quantity), its ``curves`` per window (``window_ms``, ``memory_bytes``,
    ``throughput_bytes_per_s``, ``jain_index``) and its ``origin``: ``"sweep"`` for a point of
    the grid, ``"on demand"`` for one computed later because it was off the grid."""

    scenario: Any
    metrics: Mapping[str, float]
    curves: pd.DataFrame
    origin: str


def _point(scenario: Any, row: pd.Series, origin: str) -> GridPoint:
    windows = np.asarray(row["curve_window_ms"], dtype=np.int64)
    jain = np.full(len(windows), math.nan)
    got = np.asarray(row["curve_jain_index"], dtype=float)[: len(windows)]
    jain[: len(got)] = got
    curves = pd.DataFrame({"window_ms": windows,
                           "memory_bytes": np.asarray(row["curve_memory_bytes"], dtype=float),
                           "throughput_bytes_per_s": np.asarray(
                               row["curve_throughput_bytes_per_s"], dtype=float),
                           "jain_index": jain})
    return GridPoint(scenario=scenario, metrics={m: float(row[m]) for m in SUMMARY},
                     curves=curves, origin=origin)


class SweepGrid:
    """A swept grid held in memory (see the module): ``SweepGrid(base, {"fetch_max_bytes": [...],
    "max_partition_fetch_bytes": [...]}, seed=0, cache_dir=...)``, then :meth:`fill`.

    ``axes`` name fields of ``base`` (its dataclass), each with at least one distinct value;
    combinations the scenario rejects are left out of the grid (NaN in :meth:`slice`).
    """

    def __init__(self, base: Any, axes: Mapping[str, Sequence[Any]], *, seed: int = 0,
                 cache_dir: str | os.PathLike[str] | None = None) -> None:
        if not axes:
            raise ValueError("a grid needs at least one axis (a scenario field and its values)")
        known = {f.name for f in fields(base)}
        for name, values in axes.items():
            if name not in known:
                raise ValueError(f"unknown axis {name!r}: not a field of "
                                 f"{type(base).__name__} ({', '.join(sorted(known))})")
            if len(values) == 0 or len(set(map(repr, values))) != len(values):
                raise ValueError(f"axis {name!r} needs one or more distinct values, got "
                                 f"{list(values)!r}")
        self.base = base
        self.axes: dict[str, tuple[Any, ...]] = {n: tuple(v) for n, v in axes.items()}
        self.seed = seed
        self.cache_dir = Path(cache_dir) if cache_dir is not None else None
        self.scenarios: tuple[Any, ...] = tuple(valid_grid(base, **self.axes))
        if not self.scenarios:
            raise ValueError(f"no combination of the axes {', '.join(self.axes)} is a valid "
                             f"{type(base).__name__}")
        self.simulated = 0  # configurations simulated for this grid (not read from the cache)
        self._points: dict[str, GridPoint] = {}
        self._slices: dict[tuple[str, str], pd.DataFrame] = {}

    def __len__(self) -> int:
        """How many configurations are held (the grid once filled, plus on-demand points)."""
        return len(self._points)

    def __contains__(self, scenario: Any) -> bool:
        return config_key(scenario, self.seed) in self._points

    def fill(self, spark: SparkSession, *, progress: bool = False) -> int:
        """Sweep the grid as one Spark job (cached configurations are read, not simulated) and
        hold its rows; returns how many configurations were simulated."""
        result = sweep(spark, self.scenarios, seed=self.seed, cache_dir=self.cache_dir,
                       progress=progress)
        self._add(result, "sweep")
        return result.computed

    def _add(self, result: SweepResult, origin: str) -> None:
        self.simulated += result.computed
        for scenario, (_, row) in zip(result.scenarios, result.table.iterrows(), strict=True):
            self._points[row["key"]] = _point(scenario, row, origin)
        self._slices.clear()

    def lookup(self, scenario: Any) -> GridPoint | None:
        """The held answer for ``scenario``, or None when it is off the grid: no Spark job."""
        return self._points.get(config_key(scenario, self.seed))

    def point(self, spark: SparkSession, scenario: Any) -> GridPoint:
        """:meth:`lookup`, or off the grid an on-demand sweep of ``scenario`` (through Spark,
        unless the cache holds it) whose row joins the grid and the cache."""
        found = self.lookup(scenario)
        if found is not None:
            return found
        self._add(sweep(spark, [scenario], seed=self.seed, cache_dir=self.cache_dir),
                  "on demand")
        return self._points[config_key(scenario, self.seed)]

    def slice(self, scenario: Any, metric: str = "peak_memory_bytes") -> pd.DataFrame:
        """``metric`` over the first axis (columns) by the second (rows; one row ``None`` for a
        one-axis grid), every other setting as in ``scenario``; NaN where nothing is held."""
        if metric not in SUMMARY:
            raise ValueError(f"unknown metric {metric!r}; one of {', '.join(SUMMARY)}")
        x, *rest = self.axes
        y = rest[0] if rest else None
        fixed = repr({f.name: getattr(scenario, f.name) for f in fields(scenario)
                      if f.name not in (x, y)})
        cached = self._slices.get((fixed, metric))
        if cached is not None:
            return cached
        ys = self.axes[y] if y is not None else (None,)
        table = pd.DataFrame(math.nan, index=pd.Index(range(len(ys))),
                             columns=pd.Index(range(len(self.axes[x]))))
        for i, yv in enumerate(ys):
            for j, xv in enumerate(self.axes[x]):
                change = {x: xv} if y is None else {x: xv, y: yv}
                try:
                    found = self.lookup(replace(scenario, **change))
                except ValueError:
                    continue
                if found is not None:
                    table.iat[i, j] = found.metrics[metric]
        table.index, table.columns = list(ys), list(self.axes[x])
        self._slices[(fixed, metric)] = table
        return table
