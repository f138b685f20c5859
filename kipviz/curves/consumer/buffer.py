"""Spark turns KIP-81 consumer traces (one per mode) into the curves the lesson plots.

``buffer_curves`` is the slider path: several ``ConsumerTrace`` s of one workload, keyed by a
label (today's consumer, KIP-81's pool, the in-flight cap), in; small sorted pandas curves out,
in one Spark job. As in :mod:`kipviz.curves`, every curve is one Spark SQL text, and the union of
all of them is collected once.

* **memory** per mode and window: peak and mean bytes of responses retained (a pool's used
  bytes), peak completed fetches held, peak bytes waiting in the sockets, the share of ticks the
  pool was dry, and bytes handed to the application per second (throughput);
* **fairness** per mode and window: Jain's index over partitions with data, as KIP-74's curves
  (:func:`kipviz.curves.consumer.fairness`), which KIP-81 relies on instead of a fairness rule of
  its own;
* **summary** per mode: peak and p99 retained bytes, mean throughput, dry share, heartbeats and
  their longest delay (0 whenever coordinator traffic bypasses the pool), lowest and mean Jain.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from kipviz.curves.consumer.curves import FAIRNESS_INPUT
from kipviz.curves.consumer.sql import FAIRNESS, per_window_query
from kipviz.curves.sql import collect_parts, require_columns, require_windows, to_spark, window_args

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

__all__ = ["BUFFER_MEMORY", "BUFFER_SUMMARY", "MODE_FAIRNESS", "BufferCurves", "buffer_curves"]

TICKS_INPUT = ("time_ms", "retained_bytes", "held_bytes", "waiting_bytes", "pool_dry",
               "consumed_bytes")

BUFFER_MEMORY = {
    "mode": "int32", "window": "int32", "window_start_ms": "int64", "ticks": "int64",
    "retained_max_bytes": "int64", "retained_mean_bytes": "float64", "held_max_bytes": "int64",
    "waiting_max_bytes": "int64", "dry_share": "float64", "consumed_bytes_per_s": "float64",
}
MODE_FAIRNESS = {"mode": "int32", **FAIRNESS}
BUFFER_SUMMARY = {
    "mode": "int32", "peak_retained_bytes": "int64", "p99_retained_bytes": "float64",
    "consumed_bytes_per_s": "float64", "dry_share": "float64", "heartbeats": "int64",
    "max_heartbeat_delay_ms": "int64", "min_jain_index": "float64", "mean_jain_index": "float64",
}

_MEMORY = """SELECT CAST(mode AS INT) AS mode, window,
  CAST(window AS BIGINT) * {window_ms} AS window_start_ms, count(1) AS ticks,
  CAST(max(retained_bytes) AS BIGINT) AS retained_max_bytes,
  CAST(avg(retained_bytes) AS DOUBLE) AS retained_mean_bytes,
  CAST(max(held_bytes) AS BIGINT) AS held_max_bytes,
  CAST(max(waiting_bytes) AS BIGINT) AS waiting_max_bytes,
  avg(IF(pool_dry, 1.0D, 0.0D)) AS dry_share,
  sum(consumed_bytes) * 1000.0D / ({span_ms}) AS consumed_bytes_per_s
FROM (SELECT *, CAST(time_ms div {window_ms} AS INT) AS window FROM {{ticks}})
GROUP BY mode, window"""
_TICK_SUMMARY = """SELECT CAST(mode AS INT) AS mode,
  CAST(max(retained_bytes) AS BIGINT) AS peak_retained_bytes,
  percentile(retained_bytes, 0.99D) AS p99_retained_bytes,
  sum(consumed_bytes) * 1000.0D / (count(1) * {tick_ms}) AS consumed_bytes_per_s,
  avg(IF(pool_dry, 1.0D, 0.0D)) AS dry_share
FROM {{ticks}} GROUP BY mode"""
_HEARTBEATS = """SELECT CAST(mode AS INT) AS mode, count(1) AS heartbeats,
  CAST(max(delay_ms) AS BIGINT) AS max_heartbeat_delay_ms
FROM {heartbeats} GROUP BY mode"""
_TICK_COLUMNS = ("mode", "peak_retained_bytes", "p99_retained_bytes", "consumed_bytes_per_s",
                 "dry_share")
_HEARTBEAT_COLUMNS = {"mode": "int32", "heartbeats": "int64", "max_heartbeat_delay_ms": "int64"}


@dataclass(frozen=True)
class BufferCurves:
    """The curves of one workload under several consumers, collected to pandas and sorted.

    ``labels[i]`` names mode ``i`` of the tables (``BUFFER_MEMORY``, ``MODE_FAIRNESS``,
    ``BUFFER_SUMMARY`` schemas); ``heartbeats`` is each mode's heartbeats (``mode``, ``sent_ms``,
    ``delay_ms``) as simulated; ``bounds`` the analytic bounds of each label from its trace meta
    (``kip74_bound_bytes``, and ``buffer_memory_bytes`` / ``pooled_bound_bytes`` with a pool).
    """

    labels: tuple[str, ...]
    memory: pd.DataFrame
    fairness: pd.DataFrame
    summary: pd.DataFrame
    heartbeats: pd.DataFrame
    bounds: dict[str, dict[str, int]]

    def of(self, table: str, label: str) -> pd.DataFrame:
        """The rows of ``table`` (``memory``, ``fairness``, ``summary``, ``heartbeats``) for one
        label."""
        df = getattr(self, table)
        return df[df["mode"] == self.labels.index(label)].reset_index(drop=True)

    def summary_table(self) -> pd.DataFrame:
        """The summary with labels and MiB / MB/s units, one row per mode: what lessons print."""
        s = self.summary.copy()
        out = pd.DataFrame({"consumer": [self.labels[m] for m in s["mode"]]})
        out["peak MiB"] = (s["peak_retained_bytes"] / 2**20).round(1)
        out["p99 MiB"] = (s["p99_retained_bytes"] / 2**20).round(1)
        out["MB/s"] = (s["consumed_bytes_per_s"] / 1e6).round(1)
        out["pool dry %"] = (100 * s["dry_share"]).round(1)
        out["max heartbeat delay ms"] = s["max_heartbeat_delay_ms"]
        out["min Jain"] = s["min_jain_index"].round(3)
        return out


def buffer_curves(spark: SparkSession, traces: Mapping[str, Any], *,
                  windows: int | None = None) -> BufferCurves:
    """Memory, throughput, heartbeat and fairness curves of several consumer traces, one job.

    ``traces`` maps a label to a ``ConsumerTrace`` (``memory``, ``buffer``, ``windows``,
    ``heartbeats`` tables and ``meta``); all must share ``window_ms``, ``tick_ms`` and the number
    of windows (one workload under several memory rules, as ``simulate_modes`` makes);
    ``windows``, as every kind's curves take it, is None or that number.
    """
    if not traces:
        raise ValueError("traces must name at least one consumer trace")
    labels = tuple(traces)
    metas = [t.meta for t in traces.values()]
    for key in ("window_ms", "tick_ms", "ticks"):
        if len({m[key] for m in metas}) != 1:
            raise ValueError(f"traces must share {key!r}: {[m[key] for m in metas]}")
    first = next(iter(traces.values()))
    n_windows = require_windows(first.windows, windows)
    ticks, window_tables, beats = [], [], []
    for mode, trace in enumerate(traces.values()):
        require_columns(trace.windows.columns, FAIRNESS_INPUT, "windows")
        both = trace.memory.join(trace.buffer.drop(columns="time_ms"))
        require_columns(both.columns, TICKS_INPUT, "memory and buffer")
        ticks.append(both[list(TICKS_INPUT)].assign(mode=np.int32(mode)))
        w = trace.windows[list(FAIRNESS_INPUT)].copy()
        w["window"] = (mode * n_windows + w["window"]).astype(np.int32)
        window_tables.append(w)
        hb = trace.heartbeats
        beats.append(pd.DataFrame({"mode": np.full(len(hb), mode, np.int32),
                                   "sent_ms": hb.get("sent_ms", pd.Series(dtype=np.int64)),
                                   "delay_ms": hb.get("delay_ms", pd.Series(dtype=np.int64))},
                                  ).astype({"sent_ms": np.int64, "delay_ms": np.int64}))
    tick_ms, window_ms = int(metas[0]["tick_ms"]), int(metas[0]["window_ms"])
    ticks_df = to_spark(spark, pd.concat(ticks, ignore_index=True)).coalesce(1)
    windows_df = to_spark(spark, pd.concat(window_tables, ignore_index=True)).coalesce(1)
    heartbeats = pd.concat(beats, ignore_index=True)
    heartbeats_df = to_spark(spark, heartbeats).coalesce(1)
    memory, fair, tick_summary, beat_summary = collect_parts(spark, [
        (_MEMORY.format(**window_args(window_ms, tick_ms)), BUFFER_MEMORY),
        (per_window_query(with_lag=False), FAIRNESS),
        (_TICK_SUMMARY.format(tick_ms=tick_ms), {c: BUFFER_SUMMARY[c] for c in _TICK_COLUMNS}),
        (_HEARTBEATS, _HEARTBEAT_COLUMNS),
    ], ticks=ticks_df, windows=windows_df, heartbeats=heartbeats_df)
    fair.insert(0, "mode", (fair["window"] // n_windows).astype(np.int32))
    fair["window"] = (fair["window"] % n_windows).astype(np.int32)
    fair = fair.sort_values(["mode", "window"], ignore_index=True)
    memory = memory.sort_values(["mode", "window"], ignore_index=True)
    # the per-mode summary joins three tiny results: a join in Spark would cost a shuffle each
    jain = fair.groupby("mode")["jain_index"].agg(min_jain_index="min", mean_jain_index="mean")
    summary = (tick_summary.merge(beat_summary, on="mode", how="left")
               .merge(jain.reset_index(), on="mode", how="left")
               .fillna({"heartbeats": 0, "max_heartbeat_delay_ms": 0})
               .astype(BUFFER_SUMMARY)[list(BUFFER_SUMMARY)])
    bound_keys = ("kip74_bound_bytes", "buffer_memory_bytes", "pooled_bound_bytes")
    return BufferCurves(
        labels=labels,
        memory=memory,
        fairness=fair,
        summary=summary,
        heartbeats=heartbeats,
        bounds={label: {k: int(t.meta[k]) for k in bound_keys if k in t.meta}
                for label, t in traces.items()},
    )
