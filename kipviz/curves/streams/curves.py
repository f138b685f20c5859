"""Spark curves of the KIP-770 Streams input buffer lesson.

Functions here take Spark DataFrames with the ``threads`` and ``partitions`` schemas of
:mod:`kipviz.scenarios.streams` and return Spark DataFrames (unordered: sort after collecting).
``streams_curves`` is the slider path: a ``StreamsTrace`` in, small sorted pandas curves out, in
one Spark job. As in :mod:`kipviz.curves`, every curve is one Spark SQL text.

Fairness across threads is the reason KIP-770 gives each ``StreamThread`` its own share (its
"Rejected Alternatives": with one bound for the instance, threads that stay within their bytes
are paused for the one that does not). Per window it is Jain's index over the threads with work,
x_i = records thread i processed divided by its max-min fair share of what the instance processed,
each thread's demand being the records it could have processed had nothing been paused
(min(its processing budget, records buffered or on the broker)):
:func:`kipviz.curves.consumer.fair_shares`' water-filling with threads in place of partitions.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

import pandas as pd

from kipviz.curves import sql
from kipviz.curves.consumer.sql import FAIRNESS_AGGS, JAIN, RANKED
from kipviz.curves.sql import to_spark

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

__all__ = [
    "INSTANCE_MEMORY",
    "PARTITION_MEMORY",
    "THREAD_FAIRNESS",
    "THREAD_MEMORY",
    "StreamsCurves",
    "bound_sweep",
    "instance_memory_curve",
    "partition_memory",
    "streams_curves",
    "thread_fairness",
    "thread_memory_curve",
]

THREADS_INPUT = ("time_ms", "thread", "threads", "share_bytes", "buffered_bytes_after_poll",
                 "buffered_bytes", "processed_records", "processed_bytes", "demand_records",
                 "paused_partitions", "lag_records", "buffered_records")
PARTITIONS_INPUT = ("time_ms", "partition", "task", "topic", "buffered_records",
                    "buffered_bytes", "lag_records", "paused", "processed_records")
TICKS_INPUT = ("time_ms", "threads", "buffered_bytes_after_poll", "buffered_bytes",
               "buffered_records", "processed_records", "processed_bytes", "paused_partitions",
               "lag_records")
META_KEYS = ("tick_ms", "ticks", "input_buffer_max_bytes", "bytes_bound_bytes",
             "records_bound_bytes", "policy")

# Output schemas: column -> dtype of the collected pandas frame (Spark: int, bigint, double).
THREAD_MEMORY = {
    "window": "int32", "thread": "int32", "window_start_ms": "int64",
    "buffered_max_bytes": "int64", "buffered_mean_bytes": "float64", "share_bytes": "int64",
    "over_share_ticks": "int64", "paused_max": "int32", "processed_records": "int64",
    "stalled": "bool",
}
INSTANCE_MEMORY = {
    "window": "int32", "window_start_ms": "int64", "ticks": "int64",
    "buffered_max_bytes": "int64", "buffered_mean_bytes": "float64", "threads_max": "int32",
    "paused_max": "int32", "paused_mean": "float64", "processed_records_per_s": "float64",
    "processed_bytes_per_s": "float64", "stalled_ticks": "int64", "lag_end_records": "int64",
}
THREAD_FAIRNESS = {
    "window": "int32", "window_start_ms": "int64", "threads_with_work": "int32",
    "processed_records": "int64", "demand_records": "int64", "starved_threads": "int32",
    "jain_index": "float64",
}
PARTITION_MEMORY = {
    "partition": "int32", "task": "int32", "topic": "int32", "record_bytes": "int64",
    "buffered_max_bytes": "int64", "buffered_max_records": "int64", "paused_share": "float64",
    "processed_records": "int64", "lag_end_records": "int64",
}

_WINDOWED = "(SELECT *, CAST(time_ms div {window_ms} AS INT) AS window FROM {{threads}})"
_THREAD_MEMORY = f"""SELECT window, CAST(thread AS INT) AS thread,
  CAST(window AS BIGINT) * {{window_ms}} AS window_start_ms,
  CAST(max(buffered_bytes_after_poll) AS BIGINT) AS buffered_max_bytes,
  CAST(avg(buffered_bytes) AS DOUBLE) AS buffered_mean_bytes,
  CAST(max(share_bytes) AS BIGINT) AS share_bytes,
  count_if(buffered_bytes_after_poll > share_bytes) AS over_share_ticks,
  CAST(max(paused_partitions) AS INT) AS paused_max,
  CAST(sum(processed_records) AS BIGINT) AS processed_records,
  sum(processed_records) = 0 AND min(lag_records + buffered_records) > 0 AS stalled
FROM {_WINDOWED} GROUP BY window, thread"""
_INSTANCE_MEMORY = """SELECT window, CAST(window AS BIGINT) * {window_ms} AS window_start_ms,
  count(1) AS ticks, CAST(max(buffered_bytes_after_poll) AS BIGINT) AS buffered_max_bytes,
  CAST(avg(buffered_bytes) AS DOUBLE) AS buffered_mean_bytes,
  CAST(max(threads) AS INT) AS threads_max, CAST(max(paused_partitions) AS INT) AS paused_max,
  CAST(avg(paused_partitions) AS DOUBLE) AS paused_mean,
  sum(processed_records) * 1000.0D / ({span_ms}) AS processed_records_per_s,
  sum(processed_bytes) * 1000.0D / ({span_ms}) AS processed_bytes_per_s,
  count_if(processed_records = 0 AND lag_records + buffered_records > 0) AS stalled_ticks,
  CAST(max_by(lag_records, time_ms) AS BIGINT) AS lag_end_records
FROM (SELECT *, CAST(time_ms div {window_ms} AS INT) AS window FROM {{ticks}})
GROUP BY window"""
_THREAD_DEMAND = f"""(SELECT window, CAST(thread AS INT) AS partition,
  CAST(window AS BIGINT) * {{window_ms}} AS window_start_ms, 0 AS max_starvation_streak,
  sum(demand_records) AS demand_bytes, sum(processed_records) AS delivered_bytes
FROM {_WINDOWED} GROUP BY window, thread)"""
_THREAD_FAIRNESS = """WITH {ranked}
SELECT window, window_start_ms, partitions_with_data AS threads_with_work,
  delivered_bytes AS processed_records, demand_bytes AS demand_records,
  starved_partitions AS starved_threads, {jain}
FROM (SELECT CAST(window AS INT) AS window, {aggs} FROM ranked GROUP BY window)"""
_PARTITION_MEMORY = """SELECT CAST(partition AS INT) AS partition, CAST(min(task) AS INT) AS task,
  CAST(min(topic) AS INT) AS topic,
  CAST(coalesce(max(buffered_bytes div NULLIF(buffered_records, 0)), 0) AS BIGINT)
    AS record_bytes,
  CAST(max(buffered_bytes) AS BIGINT) AS buffered_max_bytes,
  CAST(max(buffered_records) AS BIGINT) AS buffered_max_records,
  avg(IF(paused, 1.0D, 0.0D)) AS paused_share,
  CAST(sum(processed_records) AS BIGINT) AS processed_records,
  CAST(max_by(lag_records, time_ms) AS BIGINT) AS lag_end_records
FROM {partitions} GROUP BY partition"""


def _fairness_query(window_ms: int) -> str:
    src = _THREAD_DEMAND.format(window_ms=int(window_ms))
    return _THREAD_FAIRNESS.format(ranked=RANKED.format(src=src), jain=JAIN,
                                   aggs=FAIRNESS_AGGS)


def thread_memory_curve(threads_df: DataFrame, window_ms: int) -> DataFrame:
    """Per window and stream thread: its buffered bytes against its share.

    buffered_max_bytes: the most it held right after a poll (its peak); buffered_mean_bytes: the
    mean at the end of its ticks; share_bytes: its share of ``input.buffer.max.bytes`` (the
    largest in the window, if threads were added or removed in it); over_share_ticks: ticks it
    ended a poll over its share; paused_max: most of its partitions paused at once;
    processed_records in the window; stalled: it processed nothing all window although it had
    records buffered or on the broker at every tick. Columns: see THREAD_MEMORY.
    """
    sql.require_columns(threads_df.columns, THREADS_INPUT, "threads")
    query = _THREAD_MEMORY.format(**sql.window_args(window_ms, None))
    return sql.run_sql(threads_df, query, threads=threads_df)


def instance_memory_curve(ticks_df: DataFrame, window_ms: int, *,
                          tick_ms: int | None = None) -> DataFrame:
    """Per window, the whole instance (the ``ticks`` table: its threads summed per tick):
    buffered bytes (peak after the polls of a tick, mean at the ends), most threads alive,
    paused partitions (most and mean),
    throughput in records and bytes per second (over ``ticks * tick_ms`` when ``tick_ms`` is
    given, else ``window_ms``), stalled_ticks (nothing processed although records were buffered
    or waiting on the broker) and the lag left at the window's last tick. Columns: see
    INSTANCE_MEMORY.
    """
    sql.require_columns(ticks_df.columns, TICKS_INPUT, "ticks")
    query = _INSTANCE_MEMORY.format(**sql.window_args(window_ms, tick_ms))
    return sql.run_sql(ticks_df, query, ticks=ticks_df)


def thread_fairness(threads_df: DataFrame, window_ms: int) -> DataFrame:
    """Per window, Jain's index over the stream threads that had work (see the module): 1.0
    when every thread processed its max-min fair share, 1/n when one thread did all the work
    the others were paused from. starved_threads had work and processed nothing. jain_index is
    null (NaN) in a window where no thread had work. Columns: see THREAD_FAIRNESS.
    """
    sql.require_columns(threads_df.columns, THREADS_INPUT, "threads")
    return sql.run_sql(threads_df, _fairness_query(window_ms), threads=threads_df)


def partition_memory(partitions_df: DataFrame) -> DataFrame:
    """Per partition: its record cost, the most bytes and records it held, the share of ticks it
    was paused, the records processed and the lag at the end: which partitions the bound lets
    hold memory (under ``buffered.records.per.partition``, the ones with big records).
    record_bytes is 0 for a partition that never held a record. Columns: see PARTITION_MEMORY.
    """
    sql.require_columns(partitions_df.columns, PARTITIONS_INPUT, "partitions")
    return sql.run_sql(partitions_df, _PARTITION_MEMORY, partitions=partitions_df)


@dataclass(frozen=True)
class StreamsCurves:
    """The curves of one Streams scenario, collected to pandas and sorted, ready to plot.

    Tables follow this module's THREAD_MEMORY (by window, thread), INSTANCE_MEMORY and
    THREAD_FAIRNESS (by window) and PARTITION_MEMORY (by partition) schemas. The settings and
    analytic bounds come from ``trace.meta``, in bytes: bytes_bound_bytes is KIP-770's (every
    share plus one fetch per partition), records_bound_bytes that of
    ``buffered.records.per.partition`` for the same partitions and record sizes.
    """

    thread_memory: pd.DataFrame
    instance_memory: pd.DataFrame
    fairness: pd.DataFrame
    partitions: pd.DataFrame
    policy: str
    input_buffer_max_bytes: int
    bytes_bound_bytes: int
    records_bound_bytes: int

    @property
    def peak_bytes(self) -> int:
        """The most the instance buffered at once (after a tick's polls)."""
        m = self.instance_memory["buffered_max_bytes"]
        return int(m.max()) if len(m) else 0

    @property
    def stalled_threads(self) -> int:
        """Threads stalled in the last window: nothing processed although records were waiting
        (the stall of the merged code, reverted before any release)."""
        tm = self.thread_memory
        if not len(tm):
            return 0
        return int(tm.loc[tm["window"] == tm["window"].max(), "stalled"].sum())

    @property
    def stalled(self) -> bool:
        """True when the run ended with at least one stalled thread."""
        return self.stalled_threads > 0

    @property
    def mean_jain_index(self) -> float:
        """Jain's index across threads, averaged over the windows with work (NaN if none)."""
        return float(self.fairness["jain_index"].mean())


def streams_curves(spark: SparkSession, trace: Any, *, windows: int = 100) -> StreamsCurves:
    """Thread and instance memory, paused partitions, throughput, fairness across threads and
    per-partition memory of a Streams trace, computed by Spark in one job.

    ``trace`` has pandas tables ``.threads``, ``.partitions`` and ``.ticks`` and a ``.meta`` dict
    (a ``StreamsTrace``). Curves are over ``windows`` windows of ``ceil(ticks / windows) *
    tick_ms``. The four results are one SQL text (a UNION ALL) collected once through Arrow.
    """
    meta = trace.meta
    sql.require_meta(meta, META_KEYS, windows)
    frames = sql.trace_tables(spark, trace, {"threads": THREADS_INPUT,
                                         "partitions": PARTITIONS_INPUT, "ticks": TICKS_INPUT})
    tick_ms, n_ticks = int(meta["tick_ms"]), int(meta["ticks"])
    window_ms = math.ceil(n_ticks / windows) * tick_ms
    thread_memory, instance_memory, fairness, partitions = sql.collect_parts(spark, [
        (_THREAD_MEMORY.format(**sql.window_args(window_ms, None)), THREAD_MEMORY),
        (_INSTANCE_MEMORY.format(**sql.window_args(window_ms, tick_ms)), INSTANCE_MEMORY),
        (_fairness_query(window_ms), THREAD_FAIRNESS),
        (_PARTITION_MEMORY, PARTITION_MEMORY),
    ], **frames)
    return StreamsCurves(
        thread_memory=thread_memory.sort_values(["window", "thread"], ignore_index=True),
        instance_memory=instance_memory,
        fairness=fairness,
        partitions=partitions,
        policy=str(meta["policy"]),
        input_buffer_max_bytes=int(meta["input_buffer_max_bytes"]),
        bytes_bound_bytes=int(meta["bytes_bound_bytes"]),
        records_bound_bytes=int(meta["records_bound_bytes"]),
    )


_SWEEP = """SELECT run, CAST(max(buffered_bytes_after_poll) AS BIGINT) AS peak_bytes,
  CAST(avg(buffered_bytes) AS DOUBLE) AS mean_bytes, sum(processed_records) AS processed_records
FROM {ticks} GROUP BY run"""


def bound_sweep(spark: SparkSession, traces: dict[tuple[str, int], Any]) -> pd.DataFrame:
    """Peak memory of several runs, keyed ``(policy, value_bytes)``, beside their bounds.

    One Spark job over the runs' ``ticks`` tables: per run the peak and mean instance buffer
    and the records processed; with each run's mean record cost and its two analytic bounds
    (``records_bound_bytes``, ``bytes_bound_bytes``) from its meta. Sorted by policy, value.
    """
    if not traces:
        raise ValueError("bound_sweep needs at least one trace")
    frames, rows = [], []
    for run, ((policy, value), trace) in enumerate(traces.items()):
        sql.require_columns(trace.ticks.columns, TICKS_INPUT, "ticks")
        frames.append(trace.ticks[list(TICKS_INPUT)].assign(run=run))
        sizes = trace.meta["record_bytes"]
        rows.append({"run": run, "policy": policy, "value_bytes": int(value),
                     "record_bytes_mean": sum(sizes) / len(sizes),
                     "records_bound_bytes": int(trace.meta["records_bound_bytes"]),
                     "bytes_bound_bytes": int(trace.meta["bytes_bound_bytes"])})
    df = to_spark(spark, pd.concat(frames, ignore_index=True))
    got = cast(pd.DataFrame, sql.run_sql(df, _SWEEP, ticks=df).toPandas())
    table = pd.DataFrame(rows).merge(got.astype({"run": "int64"}), on="run")
    table = table.astype({"peak_bytes": "int64", "processed_records": "int64"})
    return table.drop(columns="run").sort_values(["policy", "value_bytes"], ignore_index=True)
