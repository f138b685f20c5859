"""Instant sliders: a dashboard backed by a grid that Spark computed once (issue 7).

Building the dashboard sweeps its grid as one Spark job (or reads it from the Parquet cache).
After that, a slider position on the grid is answered from memory, with no Spark job: the
summary metrics and downsampled curves that Spark's tasks computed are redrawn at once. A
position off the grid (a value set from code, another non-grid setting) runs one on-demand
Spark computation, whose result joins the grid and the cache. ``slider_values`` puts such
positions on the sliders too, labelled "(off grid)".
"""

from __future__ import annotations

import functools
import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

import plotly.graph_objects as go

from kipviz.curves.instant import GridPoint, SweepGrid
from kipviz.curves.summary import metric_parts
from kipviz.kafka.config.versions import NEWEST_KAFKA_VERSION
from kipviz.kafka.consumer.memory import consumer_memory_bounds
from kipviz.kafka.units import KiB, MiB
from kipviz.plots.sweep import grid_point_figure, setting_label, update_grid_point_figure
from kipviz.scenarios.consumer.scenario import ConsumerScenario
from kipviz.widgets._base import Dashboard
from kipviz.widgets.consumer_buffer import BUFFER_LESSON_SCENARIO
from kipviz.widgets.controls import Control

__all__ = ["GRID_AXES", "GRID_LESSON_SCENARIO", "GridDashboard"]

# Lesson 6's lagging consumer without a pool on the newest Kafka (120 partitions, 10 brokers, the
# application slower than the network) over a 7 x 7 grid of the two KIP-74 fetch limits; it
# starts on the grid, at fetch.max.bytes 4 MiB and max.partition.fetch.bytes 1 MiB (Kafka's
# default).
GRID_LESSON_SCENARIO = replace(BUFFER_LESSON_SCENARIO, buffer_memory_bytes=None, ticks=500,
                               kafka_version=NEWEST_KAFKA_VERSION,
                               windows=10, fetch_max_bytes=4 * MiB,
                               max_partition_fetch_bytes=MiB)
_SIZES = (256 * KiB, 512 * KiB, MiB, 2 * MiB, 4 * MiB, 8 * MiB, 16 * MiB)
GRID_AXES: dict[str, tuple[Any, ...]] = {
    "fetch_max_bytes": _SIZES, "max_partition_fetch_bytes": tuple(s // 4 for s in _SIZES)}


class GridDashboard(Dashboard):
    """A dashboard whose sliders answer from a Spark-computed grid (see the module).

    ``GridDashboard(scenario, axes={"fetch_max_bytes": [...], ...}, cache_dir=...)`` sweeps
    every valid combination of ``axes`` (fields of ``scenario``: a consumer, broker,
    reassignment or Streams scenario) and shows one slider per axis. ``update(**params)`` takes the
    scenario's field names, as every dashboard does; it returns the
    :class:`~kipviz.curves.instant.GridPoint`, or None when the settings were rejected.
    ``slider_values`` (axis name -> values) adds positions off the grid to an axis' slider.
    ``source``
    says how the last answer came: ``"grid"`` (from memory, no Spark job), ``"cache"`` (off
    the grid but in the Parquet cache, no Spark job) or ``"spark"`` (off the grid, computed on
    demand by a Spark job), and ``answer_s`` how long it took.
    """

    def __init__(self, scenario: Any = GRID_LESSON_SCENARIO, *,
                 axes: Mapping[str, Sequence[Any]] | None = None, seed: int = 0,
                 spark: Any = None, cache_dir: Any = None, progress: bool = False,
                 slider_values: Mapping[str, Sequence[Any]] | None = None,
                 **overrides: Any) -> None:
        if spark is None:
            from kipviz.curves.spark import get_spark

            spark = get_spark()
        base = self._apply(scenario, overrides)
        self.grid = SweepGrid(base, GRID_AXES if axes is None else axes, seed=seed,
                              cache_dir=cache_dir)
        extra = dict(slider_values or {})
        unknown = sorted(set(extra) - set(self.grid.axes))
        if unknown:
            raise ValueError(f"slider_values names {unknown[0]!r}, not an axis of the grid "
                             f"({', '.join(self.grid.axes)})")
        self._slider_values = {name: _in_order([*values, *extra.get(name, ())])
                               for name, values in self.grid.axes.items()}
        self.simulated = self.grid.fill(spark, progress=progress)
        self.source = ""
        self.answer_s = math.nan
        axis_names = list(self.grid.axes)
        self._x, self._y = axis_names[0], (axis_names[1] if len(axis_names) > 1 else None)
        # the table is the grid's: one selection slider per axis, over its values
        self.CONTROLS = tuple(  # type: ignore[misc]
            Control(name, options=tuple(values), label=name.replace("_", "."),
                    fmt=functools.partial(self._option_label, name))
            for name, values in self._slider_values.items())
        super().__init__(base, seed=seed, spark=spark)

    def _figure(self) -> go.Figure:
        return grid_point_figure(self._x, self._y)

    def _option_label(self, name: str, value: Any) -> str:
        # not in a table: a position off the grid says so
        on_grid = name not in self.grid.axes or value in self.grid.axes[name]
        return setting_label(name, value) + ("" if on_grid else " (off grid)")

    def _compute(self, scenario: Any) -> GridPoint:
        start = time.perf_counter()
        point = self.grid.lookup(scenario)
        if point is not None:
            self.source = "grid"
        else:
            simulated = self.grid.simulated
            point = self.grid.point(self.spark, scenario)
            self.source = "spark" if self.grid.simulated > simulated else "cache"
        self.answer_s = time.perf_counter() - start
        return point

    def _redraw(self, point: GridPoint) -> None:
        update_grid_point_figure(self.figure, point, self.grid.slice(point.scenario),
                                 x=self._x, y=self._y)

    def _advice(self, s: Any, point: GridPoint) -> list[str]:
        m = point.metrics
        if m["peak_memory_bytes"] > m["kip74_bound_bytes"]:
            return [f"Held {m['peak_memory_bytes'] / MiB:.1f} MiB, above KIP-74's "
                    f"min(brokers x fetch.max.bytes, partitions x max.partition.fetch.bytes) "
                    f"= {m['kip74_bound_bytes'] / MiB:.1f} MiB: a lagging consumer keeps whole "
                    f"responses and fetches every partition with nothing buffered."]
        return []

    def _summary(self, point: GridPoint) -> str:
        m = point.metrics
        how = {"grid": f"from the grid in {1000 * self.answer_s:.1f} ms, no Spark job",
               "cache": f"off the grid, read from the cache in {1000 * self.answer_s:.0f} ms",
               "spark": f"off the grid: computed on demand by Spark in {self.answer_s:.2f} s; "
                        f"it joined the grid and the cache"}[self.source]
        parts = [f"<b>answer</b> {how} ({len(self.grid)} configurations held)"]
        parts += metric_parts(m)
        answer = ""
        if isinstance(self.scenario, ConsumerScenario):  # the one consumer-memory answer
            answer = f"<br><b>memory</b> {consumer_memory_bounds(self.scenario).sentence()}"
        return " &middot; ".join(parts) + answer


def _in_order(values: list[Any]) -> list[Any]:
    """Distinct values, sorted where they can be (None and numbers do not compare)."""
    distinct = list(dict.fromkeys(values))
    try:
        return sorted(distinct)
    except TypeError:
        return distinct


