"""One configuration reduced to the summary metrics and downsampled curves a sweep stores.

:func:`summarise` simulates a scenario of any kind registered in
:data:`kipviz.scenarios.registry.SCENARIOS` that can be swept (today a consumer, KIP-74 / KIP-81;
broker, KIP-72; reassignment, KIP-73; Streams, KIP-770; share group, KIP-932) and reduces its trace
by the kind's own ``summarise`` (a :class:`kipviz.scenarios.contract.Reduction`); this module turns
that into the row below, whatever the kind. :mod:`kipviz.curves.sweep` runs it in Spark's tasks.

Summary metrics (NaN where a scenario has no such quantity): ``peak_memory_bytes`` and
``p99_memory_bytes`` of what the mechanism holds (a consumer's retained fetch responses, KIP-74 and
KIP-81; a broker pool's requests, KIP-72; a reassigning follower's lag, KIP-73; a Streams
instance's input buffered after its polls, KIP-770; the most one share consumer holds, KIP-932)
against ``bound_bytes`` (KIP-81's ``buffer.memory`` + largest response - 1, KIP-72's outstanding
bound, KIP-770's shares + one fetch per partition, a share consumer's fetch bound) and, for a
consumer, ``kip74_bound_bytes``; ``min_jain_index`` / ``mean_jain_index`` over windows (across
partitions for a consumer, KIP-74; across stream threads for Streams, KIP-770; across share
consumers, KIP-932); ``longest_starvation_fetches``; ``throughput_bytes_per_s``;
``move_time_s`` (KIP-73). Curves: per window, ``curve_window_ms``, ``curve_memory_bytes``,
``curve_throughput_bytes_per_s`` and ``curve_jain_index``.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from kipviz.kafka.units import MiB
from kipviz.scenarios import SCENARIOS, ScenarioKind, kind_of

__all__ = ["CURVES", "SUMMARY", "check_sweepable", "metric_parts", "metric_table", "select_rows",
           "summarise", "sweepable_kinds"]

SUMMARY = {
    "peak_memory_bytes": "float64", "p99_memory_bytes": "float64", "bound_bytes": "float64",
    "kip74_bound_bytes": "float64", "min_jain_index": "float64", "mean_jain_index": "float64",
    "longest_starvation_fetches": "float64", "throughput_bytes_per_s": "float64",
    "move_time_s": "float64",
}
CURVES = ("curve_window_ms", "curve_memory_bytes", "curve_throughput_bytes_per_s",
          "curve_jain_index")


def summarise(scenario: Any, seed: int = 0, *, kind: ScenarioKind | None = None
              ) -> dict[str, Any]:
    """Simulate one configuration and reduce it to the summary metrics and curves (module doc),
    by its kind's ``summarise`` (``kind``: that kind, else the registered one it belongs to)."""
    kind = kind or _sweepable_kind(scenario)
    if kind.summarise is None:
        raise _unsweepable(scenario)
    r = kind.summarise(scenario, seed)
    memory, consumed, tick_ms, windows = r.memory_bytes, r.consumed_bytes, r.tick_ms, r.windows
    unknown = sorted(set(r.metrics) - set(SUMMARY))
    if unknown:
        raise ValueError(f"{kind.name}: summarise gave metrics that are not in SUMMARY: {unknown}")
    nan = math.nan
    row: dict[str, Any] = dict.fromkeys(SUMMARY, nan)
    row.update(r.metrics)
    jain = r.jain_index
    if np.isfinite(jain).any():
        row.update(min_jain_index=np.nanmin(jain), mean_jain_index=np.nanmean(jain))
    row.update(peak_memory_bytes=float(memory.max()) if len(memory) else nan,
               p99_memory_bytes=float(np.percentile(memory, 99)) if len(memory) else nan,
               throughput_bytes_per_s=consumed.sum() * 1000.0 / (len(consumed) * tick_ms))
    edges = np.linspace(0, len(memory), min(windows, len(memory)) + 1).astype(int)
    row["curve_window_ms"] = (edges[:-1] * tick_ms).astype(np.int64)
    row["curve_memory_bytes"] = np.array([memory[a:b].max() for a, b in itertools.pairwise(edges)],
                                         dtype=float)
    row["curve_throughput_bytes_per_s"] = np.array(
        [consumed[a:b].sum() * 1000.0 / ((b - a) * tick_ms) for a, b in itertools.pairwise(edges)])
    row["curve_jain_index"] = np.asarray(jain, dtype=float)
    return {k: float(v) if k in SUMMARY else v for k, v in row.items()}


def sweepable_kinds() -> list[ScenarioKind]:
    """The registered kinds :func:`summarise` can reduce, in registration order."""
    return [kind for kind in SCENARIOS.values() if kind.sweepable]


def _unsweepable(scenario: Any) -> ValueError:
    names = [kind.scenario.__name__ for kind in sweepable_kinds()]
    listed = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"
    return ValueError(f"cannot sweep a {type(scenario).__name__}: a {listed} is needed")


def _sweepable_kind(scenario: Any) -> ScenarioKind:
    kind = kind_of(scenario)
    if kind is None or not kind.sweepable:
        raise _unsweepable(scenario)
    return kind


def check_sweepable(scenario: Any) -> ScenarioKind:
    """The scenario's registered kind; ValueError, naming the kinds :func:`summarise` knows,
    unless it can be swept."""
    return _sweepable_kind(scenario)


def select_rows(table: pd.DataFrame, **equal: Any) -> pd.DataFrame:
    """The rows of a sweep table whose columns equal the values given (``kafka_version="4.3"``)."""
    unknown = sorted(set(equal) - set(table.columns))
    if unknown:
        raise ValueError(f"no column {unknown[0]!r} in the table: {', '.join(table.columns)}")
    keep = np.ones(len(table), dtype=bool)
    for name, value in equal.items():
        keep &= (table[name] == value).to_numpy()
    return table[keep]


def metric_table(table: pd.DataFrame, values: str, index: str, columns: str, *,
                 scale: float = 1.0, digits: int | None = None, **equal: Any) -> pd.DataFrame:
    """One metric of a sweep table laid out over two settings (rows ``index``, columns
    ``columns``), divided by ``scale`` and rounded to ``digits``, for the rows equal to
    ``equal``: ``metric_table(t, "peak_memory_bytes", "max_partition_fetch_bytes",
    "fetch_max_bytes", scale=MiB, digits=0, kafka_version="4.3")``."""
    pivot = select_rows(table, **equal).pivot_table(index=index, columns=columns,
                                                    values=values) / scale
    return pivot if digits is None else pivot.round(digits)


# how a summary metric reads, in the order the grid dashboard and the static pages show it
_SHOWN = (("peak memory", "peak_memory_bytes", lambda v: f"{v / MiB:,.1f} MiB"),
          ("p99 memory", "p99_memory_bytes", lambda v: f"{v / MiB:,.1f} MiB"),
          ("KIP-74 bound", "kip74_bound_bytes", lambda v: f"{v / MiB:,.1f} MiB"),
          ("bound", "bound_bytes", lambda v: f"{v / MiB:,.1f} MiB"),
          ("min Jain", "min_jain_index", lambda v: f"{v:.2f}"),
          ("mean Jain", "mean_jain_index", lambda v: f"{v:.2f}"),
          ("longest starvation", "longest_starvation_fetches",
           lambda v: f"{v:,.0f} fetch round{'' if v == 1 else 's'}"),
          ("throughput", "throughput_bytes_per_s", lambda v: f"{v / 1e6:,.1f} MB/s"),
          ("move time", "move_time_s", lambda v: f"{v:,.1f} s"))


def metric_parts(metrics: Mapping[str, float], *, labels: Mapping[str, str] | None = None,
                 skip: tuple[str, ...] = ()) -> list[str]:
    """The finite :data:`SUMMARY` metrics of one configuration as HTML ``<b>label</b> value``
    parts (sizes in MiB, rates in MB/s), ``labels`` renaming some, ``skip`` leaving some out.

    >>> metric_parts({"peak_memory_bytes": 3 * 2**20, "move_time_s": float("nan")})
    ['<b>peak memory</b> 3.0 MiB']
    """
    names = labels or {}
    return [f"<b>{names.get(key, label)}</b> {text(metrics[key])}" for label, key, text in _SHOWN
            if key not in skip and key in metrics and math.isfinite(metrics[key])]
