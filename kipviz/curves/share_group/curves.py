"""Spark turns a KIP-932 share-group trace into the curves lesson 7 plots, in one job.

``share_group_curves`` is the slider path: a
:class:`~kipviz.scenarios.share_group.tables.ShareGroupTrace` in, small sorted pandas tables out.
Every curve is one Spark SQL text; their union is collected once (as
:mod:`kipviz.curves.consumer.buffer` does).

* **fairness** per group (``share``, ``classic``) and window: Jain's index over the group's
  consumers, x_i = records consumer i processed in the window. Every consumer processes at the
  same rate, so the fair share is an equal one: J = (sum x)^2 / (n sum x^2), 1.0 when all work
  alike, 1/n when one does everything. A classic group of 8 on 2 partitions scores 2/8: six
  consumers idle (one consumer per partition). Also the active consumers and records/s.
* **in_flight** per window: the most records in flight on any partition (``SPEO - SPSO + 1``),
  their mean, the records archived so far, and the records acquired, redelivered (acquired
  again after a lock expired) and acknowledged in the window.
* **latency** per window: the age of the oldest record not yet acknowledged (SPSO's record:
  ``time - the first time the log end passed it``), mean and max over partitions and ticks;
  every record acknowledged in the window waited at most that long.
* **memory** per share consumer: peak and mean bytes held (records acquired and not yet
  processed), beside ``meta["memory_bound_bytes"]``.

``share_scaling`` runs the group sizes of
:func:`kipviz.scenarios.share_group.scenario.simulate_scaling` through one job: records/s and active
consumers of each group against its size.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

import numpy as np
import pandas as pd

from kipviz.curves.sql import (
    JAIN_INDEX,
    collect_parts,
    require_columns,
    run_sql,
    to_spark,
    trace_tables,
)
from kipviz.kafka.config.checks import check_int

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

__all__ = ["SHARE_FAIRNESS", "SHARE_IN_FLIGHT", "SHARE_LATENCY", "SHARE_MEMORY", "SHARE_SCALING",
           "ShareGroupCurves", "share_group_curves", "share_scaling", "window_ms_of"]

CONSUMERS_INPUT = ("time_ms", "group", "consumer", "held_bytes", "processed")
PARTITIONS_INPUT = ("time_ms", "partition", "log_end_offset", "start_offset",
                    "in_flight_records", "archived_records")
DELIVERIES_INPUT = ("time_ms", "acquired", "redelivered", "acknowledged")

SHARE_FAIRNESS = {
    "group": "object", "window": "int32", "window_start_ms": "int64", "consumers": "int32",
    "active_consumers": "int32", "processed_records": "int64", "records_per_s": "float64",
    "jain_index": "float64",
}
SHARE_IN_FLIGHT = {
    "window": "int32", "window_start_ms": "int64", "in_flight_max_records": "int64",
    "in_flight_mean_records": "float64", "archived_records": "int64",
}
_DELIVERED = {"window": "int32", "acquired_records": "int64", "redelivered_records": "int64",
              "acknowledged_records": "int64"}
SHARE_LATENCY = {"window": "int32", "window_start_ms": "int64", "latency_mean_ms": "float64",
                 "latency_max_ms": "int64"}
SHARE_MEMORY = {"consumer": "int32", "held_max_bytes": "int64", "held_mean_bytes": "float64",
                "processed_records": "int64"}
SHARE_SCALING = {"group": "object", "consumers": "int32", "active_consumers": "int32",
                 "records_per_s": "float64", "jain_index": "float64"}

# per consumer and window first, then Jain's index over the group's consumers
_FAIRNESS = """SELECT `group`, window, CAST(window AS BIGINT) * {window_ms} AS window_start_ms,
  CAST(count(1) AS INT) AS consumers, CAST(count_if(x > 0) AS INT) AS active_consumers,
  CAST(sum(x) AS BIGINT) AS processed_records,
  sum(x) * 1000.0D / (max(ticks) * {tick_ms}) AS records_per_s, {jain}
FROM (SELECT `group`, consumer, CAST(time_ms div {window_ms} AS INT) AS window,
        CAST(sum(processed) AS DOUBLE) AS x, count(1) AS ticks
      FROM {{consumers}} GROUP BY `group`, consumer, time_ms div {window_ms})
GROUP BY `group`, window"""
_IN_FLIGHT = """SELECT window, CAST(window AS BIGINT) * {window_ms} AS window_start_ms,
  CAST(max(f_max) AS BIGINT) AS in_flight_max_records,
  CAST(avg(f_mean) AS DOUBLE) AS in_flight_mean_records,
  CAST(sum(a) AS BIGINT) AS archived_records
FROM (SELECT partition, CAST(time_ms div {window_ms} AS INT) AS window,
        max(in_flight_records) AS f_max, avg(in_flight_records) AS f_mean,
        max(archived_records) AS a
      FROM {{partitions}} GROUP BY partition, time_ms div {window_ms})
GROUP BY window"""
_DELIVERIES = """SELECT CAST(time_ms div {window_ms} AS INT) AS window,
  CAST(sum(acquired) AS BIGINT) AS acquired_records,
  CAST(sum(redelivered) AS BIGINT) AS redelivered_records,
  CAST(sum(acknowledged) AS BIGINT) AS acknowledged_records
FROM {{deliveries}} GROUP BY time_ms div {window_ms}"""
# When did the record at SPSO become readable? The log-end rows (kind 1) and the SPSO rows
# (kind 0) of a partition sorted by offset, highest first (an SPSO row before a log-end row of
# the same offset): the earliest log-end time among the rows above an SPSO row is the first
# time the log end passed it.
_LATENCY = """SELECT window, CAST(window AS BIGINT) * {window_ms} AS window_start_ms,
  CAST(avg(age) AS DOUBLE) AS latency_mean_ms, CAST(max(age) AS BIGINT) AS latency_max_ms
FROM (SELECT CAST(time_ms div {window_ms} AS INT) AS window,
        IF(readable_ms <= time_ms, time_ms - readable_ms, 0) AS age
      FROM (SELECT time_ms, kind, min(IF(kind = 1, time_ms, NULL)) OVER (
              PARTITION BY partition ORDER BY off DESC, kind
              ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS readable_ms
            FROM (SELECT partition, time_ms, log_end_offset AS off, 1 AS kind
                  FROM {{partitions}}
                  UNION ALL
                  SELECT partition, time_ms, start_offset AS off, 0 AS kind
                  FROM {{partitions}}))
      WHERE kind = 0)
GROUP BY window"""
_MEMORY = """SELECT CAST(consumer AS INT) AS consumer,
  CAST(max(held_bytes) AS BIGINT) AS held_max_bytes,
  CAST(avg(held_bytes) AS DOUBLE) AS held_mean_bytes,
  CAST(sum(processed) AS BIGINT) AS processed_records
FROM {consumers} WHERE `group` = 'share' GROUP BY consumer"""
_SCALING = """SELECT `group`, CAST(group_size AS INT) AS consumers,
  CAST(count_if(x > 0) AS INT) AS active_consumers,
  sum(x) * 1000.0D / (max(ticks) * {tick_ms}) AS records_per_s, {jain}
FROM (SELECT `group`, group_size, consumer, CAST(sum(processed) AS DOUBLE) AS x, count(1) AS ticks
      FROM {{consumers}} GROUP BY `group`, group_size, consumer)
GROUP BY `group`, group_size"""


def window_ms_of(meta: Mapping[str, Any], windows: int) -> int:
    """The window length that cuts the run (``ticks x tick_ms``) into ``windows`` windows."""
    check_int("windows", windows, 1)
    for key in ("tick_ms", "ticks"):
        if key not in meta:
            raise ValueError(f"trace.meta is missing {key!r}; it has {sorted(meta)}")
    span = int(meta["ticks"]) * int(meta["tick_ms"])
    return max(int(meta["tick_ms"]), -(-span // windows))


@dataclass(frozen=True)
class ShareGroupCurves:
    """The curves of one share-group trace, collected to pandas and sorted (schemas above).

    ``in_flight`` has the ``SHARE_IN_FLIGHT`` columns and the window's acquired, redelivered and
    acknowledged records; ``meta`` is the trace's (the lock cap, the bounds).
    """

    fairness: pd.DataFrame
    in_flight: pd.DataFrame
    latency: pd.DataFrame
    memory: pd.DataFrame
    meta: dict[str, Any]

    def of(self, group: str) -> pd.DataFrame:
        """The fairness rows of one group (``share`` or ``classic``)."""
        return self.fairness[self.fairness["group"] == group].reset_index(drop=True)

    def mean_jain(self, group: str) -> float:
        """The group's mean Jain index over the windows where it processed records."""
        return float(self.of(group)["jain_index"].mean())

    def summary_table(self) -> pd.DataFrame:
        """One row per group: consumers, how many worked, records/s, lowest and mean Jain."""
        rows = []
        for group in ("share", "classic"):
            f = self.of(group)
            rows.append({"group": group, "consumers": int(f["consumers"].max()) if len(f) else 0,
                         "active (peak)": int(f["active_consumers"].max()) if len(f) else 0,
                         "records/s": round(float(f["records_per_s"].mean()), 1),
                         "min Jain": round(float(f["jain_index"].min()), 3),
                         "mean Jain": round(float(f["jain_index"].mean()), 3)})
        return pd.DataFrame(rows)


def share_group_curves(spark: SparkSession, trace: Any, *, windows: int = 20) -> ShareGroupCurves:
    """Fairness, in-flight, latency and memory curves of a share-group trace, one Spark job."""
    meta = dict(trace.meta)
    window_ms = window_ms_of(meta, windows)
    frames = trace_tables(spark, trace, {"consumers": CONSUMERS_INPUT,
                                         "partitions": PARTITIONS_INPUT,
                                         "deliveries": DELIVERIES_INPUT})
    args = {"window_ms": window_ms, "tick_ms": int(meta["tick_ms"]), "jain": JAIN_INDEX}
    fair, in_flight, delivered, latency, memory = collect_parts(spark, [
        (_FAIRNESS.format(**args), SHARE_FAIRNESS), (_IN_FLIGHT.format(**args), SHARE_IN_FLIGHT),
        (_DELIVERIES.format(**args), _DELIVERED), (_LATENCY.format(**args), SHARE_LATENCY),
        (_MEMORY, SHARE_MEMORY)], **frames)
    in_flight = (in_flight.merge(delivered, on="window", how="left")
                 .fillna({c: 0 for c in _DELIVERED})
                 .astype({c: "int64" for c in _DELIVERED if c != "window"}))
    return ShareGroupCurves(fairness=fair.sort_values(["group", "window"], ignore_index=True),
                            in_flight=in_flight, latency=latency, memory=memory, meta=meta)


def share_scaling(spark: SparkSession, traces: Mapping[int, Any]) -> pd.DataFrame:
    """Per group and group size (``traces``: size -> trace, as ``simulate_scaling`` makes):
    consumers that processed anything, records/s over the run and Jain's index, one job."""
    if not traces:
        raise ValueError("traces must map at least one group size to its trace")
    ticks = {int(t.meta["tick_ms"]) for t in traces.values()}
    if len(ticks) != 1:
        raise ValueError(f"traces must share tick_ms: {sorted(ticks)}")
    frames = []
    for size, trace in traces.items():
        require_columns(trace.consumers.columns, CONSUMERS_INPUT, "consumers")
        frames.append(trace.consumers[["group", "consumer", "processed"]]
                      .assign(group_size=np.int32(size)))
    df = to_spark(spark, pd.concat(frames, ignore_index=True)).coalesce(1)
    got = cast(pd.DataFrame, run_sql(df, _SCALING.format(tick_ms=ticks.pop(), jain=JAIN_INDEX),
                                  consumers=df).toPandas())
    return got.astype(SHARE_SCALING)[list(SHARE_SCALING)].sort_values(
        ["group", "consumers"], ignore_index=True)
