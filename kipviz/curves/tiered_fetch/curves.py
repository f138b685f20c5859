"""Spark turns tiered-fetch traces (one per Kafka version or setting) into the lesson's curves.

``tiered_curves`` is the slider path: several :class:`~kipviz.scenarios.tiered_fetch
.TieredFetchTrace` s keyed by a label in, small sorted pandas tables out, in one Spark job (one
SQL text, :func:`kipviz.curves.sql.collect_parts`). Deliveries are split in three classes
(:data:`CLASSES`): bytes read from remote storage, local bytes of a catching-up consumer (they
wait in ``DelayedRemoteFetch``), local bytes of a tail consumer.

* **throughput** per label, class and window: bytes delivered per second (by answer time; the
  answers after the run's end, of requests sent before it, are left out);
* **latency** per label and class: fetch latency (sent to answered) of the deliveries with data,
  p50 / p99 / max, and the class's mean bytes per second;
* **summary** per label: the largest response (the consumer's memory per fetch), the share of
  requests whose remote partitions the fetch quota emptied, remote reads cancelled by the
  ``DelayedRemoteFetch`` expiry, remote reads served.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from kipviz.curves.sql import collect_parts, to_spark
from kipviz.kafka.config.checks import check_int, check_not_both

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

__all__ = ["CLASSES", "TIERED_LATENCY", "TIERED_SUMMARY", "TIERED_THROUGHPUT", "TieredCurves",
           "tiered_curves"]

CLASSES = ("remote", "local, catch-up consumer", "local, tail consumer")
"""The delivery classes, by number: 0 remote, 1 and 2 local."""

TIERED_THROUGHPUT = {"mode": "int32", "cls": "int32", "window": "int32",
                     "window_start_ms": "int64", "bytes_per_s": "float64"}
TIERED_LATENCY = {"mode": "int32", "cls": "int32", "p50_latency_ms": "float64",
                  "p99_latency_ms": "float64", "max_latency_ms": "float64",
                  "bytes_per_s": "float64"}
TIERED_SUMMARY = {"mode": "int32", "peak_response_bytes": "int64", "throttled_share": "float64",
                  "reads_cancelled": "int64", "reads_served": "int64", "fetches": "int64"}

_THROUGHPUT = """SELECT mode, cls, window, CAST(window AS BIGINT) * {window_ms} AS window_start_ms,
  sum(bytes) * 1000.0D / {window_ms} AS bytes_per_s
FROM (SELECT *, CAST(answered_ms div {window_ms} AS INT) AS window FROM {{deliveries}}
      WHERE answered_ms < duration_ms)
GROUP BY mode, cls, window"""
_LATENCY = """SELECT mode, cls, percentile(latency_ms, 0.5D) AS p50_latency_ms,
  percentile(latency_ms, 0.99D) AS p99_latency_ms, max(latency_ms) AS max_latency_ms,
  sum(bytes) * 1000.0D / max(duration_ms) AS bytes_per_s
FROM {deliveries} WHERE bytes > 0 GROUP BY mode, cls"""
_SUMMARY = """SELECT mode, CAST(max(response_bytes) AS BIGINT) AS peak_response_bytes,
  avg(IF(quota_throttled, 1.0D, 0.0D)) AS throttled_share,
  CAST(sum(reads_scheduled - reads_served) AS BIGINT) AS reads_cancelled,
  CAST(sum(reads_served) AS BIGINT) AS reads_served, count(1) AS fetches
FROM {fetches} GROUP BY mode"""


@dataclass(frozen=True)
class TieredCurves:
    """The curves of several tiered-fetch traces; ``labels[i]`` names mode ``i``."""

    labels: tuple[str, ...]
    throughput: pd.DataFrame
    latency: pd.DataFrame
    summary: pd.DataFrame

    def summary_table(self) -> pd.DataFrame:
        """One row per label and class with units: what lessons print."""
        lat = self.latency.merge(self.summary, on="mode")
        return pd.DataFrame({
            "run": [self.labels[m] for m in lat["mode"]],
            "data": [CLASSES[c] for c in lat["cls"]],
            "MB/s": (lat["bytes_per_s"] / 1e6).round(2),
            "p50 ms": lat["p50_latency_ms"].round(1),
            "p99 ms": lat["p99_latency_ms"].round(1),
            "largest response MiB": (lat["peak_response_bytes"] / 2**20).round(2),
        })


def delivery_classes(trace: Any) -> np.ndarray:
    """Each delivery's class (:data:`CLASSES`): 0 remote, 1 local of a catch-up consumer,
    2 local of a tail consumer."""
    d = trace.deliveries
    return np.where(d["remote"], 0, np.where(d["consumer_kind"] == "catch_up", 1, 2)).astype(
        np.int32)


def tiered_curves(spark: SparkSession, traces: Mapping[str, Any], *,
                  window_ms: int | None = None, windows: int | None = None) -> TieredCurves:
    """Throughput, latency and summary curves of several tiered-fetch traces, one Spark job.

    Throughput is per ``window_ms`` (default 1000), or per one of ``windows`` windows of the
    longest run (the argument every kind's curves take), not both."""
    if not traces:
        raise ValueError("traces must name at least one tiered-fetch trace")
    if windows is not None:
        check_int("windows", windows, 1)
        check_not_both("'windows'", windows, "'window_ms'", window_ms)
        span = max(int(t.meta["duration_ms"]) for t in traces.values())
        window_ms = max(1, -(-span // windows))
    elif window_ms is None:
        window_ms = 1000
    check_int("window_ms", window_ms, 1)
    labels = tuple(traces)
    deliveries, fetches = [], []
    for mode, trace in enumerate(traces.values()):
        d = trace.deliveries
        deliveries.append(pd.DataFrame({
            "mode": np.full(len(d), mode, np.int32), "cls": delivery_classes(trace),
            "bytes": d["bytes"].to_numpy(np.int64),
            "answered_ms": d["answered_ms"].to_numpy(np.int64),
            "latency_ms": (d["answered_ms"] - d["sent_ms"]).to_numpy(np.float64),
            "duration_ms": np.full(len(d), trace.meta["duration_ms"], np.int64)}))
        f = trace.fetches
        fetches.append(pd.DataFrame({
            "mode": np.full(len(f), mode, np.int32),
            "response_bytes": f["response_bytes"].to_numpy(np.int64),
            "quota_throttled": f["quota_throttled"].to_numpy(np.bool_),
            "reads_scheduled": f["reads_scheduled"].to_numpy(np.int64),
            "reads_served": f["reads_served"].to_numpy(np.int64)}))
    deliveries_df = to_spark(spark, pd.concat(deliveries, ignore_index=True)).coalesce(1)
    fetches_df = to_spark(spark, pd.concat(fetches, ignore_index=True)).coalesce(1)
    throughput, latency, summary = collect_parts(spark, [
        (_THROUGHPUT.format(window_ms=window_ms), TIERED_THROUGHPUT),
        (_LATENCY, TIERED_LATENCY), (_SUMMARY, TIERED_SUMMARY)],
        deliveries=deliveries_df, fetches=fetches_df)
    return TieredCurves(
        labels=labels,
        throughput=throughput.sort_values(["mode", "cls", "window"], ignore_index=True),
        latency=latency.sort_values(["mode", "cls"], ignore_index=True),
        summary=summary.sort_values("mode", ignore_index=True),
    )
