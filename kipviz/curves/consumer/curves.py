"""Spark turns simulation traces into the curves the lessons plot.

Functions here take Spark DataFrames with the trace schemas of ``docs/traces.md`` and return
Spark DataFrames (unordered: sort after collecting). ``consumer_curves`` is the interactive
path: pandas trace in, small sorted pandas curves out, in one Spark job.

Fairness follows KIP-74's goal that every partition with data gets its share of a fetch: per
window, each partition's delivered bytes are divided by its max-min fair share of the bytes the
consumer actually received, and Jain's index summarises those ratios (1.0 = perfectly fair,
1/n = one partition got everything).

The curves are Spark SQL texts, so each call is parsed and planned once: on a slider update,
planning a chain of small DataFrame API steps cost more than running them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from kipviz.curves.consumer.sql import (
    FAIR_SHARES,
    FAIRNESS,
    LAG_BY_PARTITION_SQL,
    LAG_OVER_TIME,
    LAG_OVER_TIME_SQL,
    MEMORY_SQL,
    STREAKS_SQL,
    per_window_query,
)
from kipviz.curves.sql import (
    collect_union,
    part_table,
    require_columns,
    require_meta,
    require_windows,
    run_sql,
    spark_schema,
    to_spark,
    union_all,
    window_args,
)

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

__all__ = [
    "FAIRNESS",
    "LAG_BY_PARTITION",
    "LAG_OVER_TIME",
    "MEMORY",
    "STREAKS",
    "ConsumerCurves",
    "bound_exceedance",
    "consumer_curves",
    "fair_shares",
    "fairness",
    "lag_by_partition",
    "lag_over_time",
    "memory_curve",
    "spark_schema",
    "starvation_streaks",
    "to_spark",
]

SHARES_INPUT = ("window", "partition", "demand_bytes", "delivered_bytes")
FAIRNESS_INPUT = (*SHARES_INPUT, "window_start_ms", "max_starvation_streak")
LAG_INPUT = ("window", "window_start_ms", "partition", "delivered_bytes", "lag_end_bytes")
MEMORY_INPUT = ("time_ms", "held_bytes", "in_flight_bytes", "consumed_bytes")
WINDOW_COLUMNS = tuple(dict.fromkeys((*FAIRNESS_INPUT, *LAG_INPUT)))
FETCHES_INPUT = ("fetch_id", "partition", "lag_bytes", "complete_bytes")
META_KEYS = ("window_ms", "tick_ms", "pre_kip74_bound_bytes", "kip74_bound_bytes")
_BOUND_COLUMN = "_bound_bytes"  # consumer_curves's bound, sent as data (see there)
SMALL_ROWS = 200_000  # windows rows up to which consumer_curves runs in one task, unshuffled
# Tables of more rows reach Spark as an Arrow-backed RDD rather than a LocalRelation (to_spark).

# Output schemas: column -> dtype of the collected pandas frame (Spark: int, bigint, double).
LAG_BY_PARTITION = {
    "partition": "int32", "final_lag_bytes": "int64", "max_lag_bytes": "int64",
    "delivered_bytes": "int64",
}
MEMORY = {
    "window": "int32", "window_start_ms": "int64", "ticks": "int64", "held_max_bytes": "int64",
    "held_mean_bytes": "float64", "held_in_flight_max_bytes": "int64",
    "consumed_bytes_per_s": "float64", "ticks_above_bound": "int64",
}
STREAKS = {
    "partition": "int32", "longest_starvation_fetches": "int64", "starved_fetches": "int64",
    "fetches": "int64",
}

def fair_shares(windows_df: DataFrame) -> DataFrame:
    """Each partition's max-min fair share of the bytes the consumer received in a window.

    Water-filling: the window's delivered bytes C are poured over the partitions with data
    (demand_bytes > 0); no partition gets more than its demand, and what the small ones do not
    need is split evenly among the rest. With demands sorted d_1 <= ... <= d_n and S_k-1 the sum
    of the k-1 smallest, the level is (C - S_k-1) / (n - k + 1) at the smallest k where that is
    <= d_k, and share_i = min(d_i, level) (share_i = d_i if no k qualifies). ``x`` = delivered /
    share: 1 means the partition got exactly its fair share. Convention: a partition whose share
    is 0 and that got 0 has x = 1 (its fair share of nothing); that happens only when C = 0.
    Only rows with demand are returned. Columns: window, partition, demand_bytes,
    delivered_bytes, fair_share_bytes, x.
    """
    require_columns(windows_df.columns, SHARES_INPUT, "windows")
    return run_sql(windows_df, FAIR_SHARES, windows=windows_df)


def fairness(windows_df: DataFrame) -> DataFrame:
    """Per window, how evenly the consumer's fetched bytes were spread over partitions with data.

    jain_index = (sum x)^2 / (n * sum x^2) over the n partitions with demand_bytes > 0 (x from
    ``fair_shares``): 1.0 is perfectly fair, 1/n means one partition got everything. It is null
    (NaN in pandas) for a window where no partition had data, and 1.0 for a window where
    partitions had data but nothing was delivered (each got its share of nothing: look at
    starved_partitions). starved_partitions counts partitions with data that got no complete
    batch all window; max_starvation_streak is the longest run of starved fetches ending in the
    window, over its partitions. Columns: see FAIRNESS.
    """
    require_columns(windows_df.columns, FAIRNESS_INPUT, "windows")
    return run_sql(windows_df, per_window_query(with_lag=False), windows=windows_df)


def lag_over_time(windows_df: DataFrame) -> DataFrame:
    """Per window, how far behind the log end the partitions are: exact p50, p99 (linear
    interpolation, as numpy) and max of lag_end_bytes across partitions, and the consumer's
    total lag. A p99 that grows while the p50 stays flat means a few partitions are being left
    behind. Columns: see LAG_OVER_TIME.
    """
    require_columns(windows_df.columns, LAG_INPUT, "windows")
    return run_sql(windows_df, LAG_OVER_TIME_SQL, windows=windows_df)


def lag_by_partition(windows_df: DataFrame) -> DataFrame:
    """Per partition, the lag left at the end (last window), the worst lag seen and the bytes
    delivered in total: which partitions the fetch order favoured. Columns: see
    LAG_BY_PARTITION.
    """
    require_columns(windows_df.columns, LAG_INPUT, "windows")
    return run_sql(windows_df, LAG_BY_PARTITION_SQL, windows=windows_df)


def memory_curve(
    memory_df: DataFrame,
    window_ms: int,
    *,
    tick_ms: int | None = None,
    bound_bytes: int | None = None,
) -> DataFrame:
    """Consumer memory per window of ``window_ms`` (window = time_ms // window_ms).

    held_max_bytes / held_mean_bytes: fetched bytes waiting for the application (what KIP-81's
    buffer.memory would bound); held_in_flight_max_bytes adds responses still on the wire;
    consumed_bytes_per_s: bytes handed to the application per second, over ``ticks * tick_ms``
    when ``tick_ms`` is given (exact for a partial last window), else over ``window_ms``;
    ticks_above_bound counts ticks with held_bytes > ``bound_bytes`` (0 without a bound).
    Columns: see MEMORY.
    """
    require_columns(memory_df.columns, MEMORY_INPUT, "memory")
    query = MEMORY_SQL.format(
        **window_args(window_ms, tick_ms),
        above="false" if bound_bytes is None else f"held_bytes > {int(bound_bytes)}",
    )
    return run_sql(memory_df, query, memory=memory_df)


def bound_exceedance(memory_df: DataFrame, bound_bytes: int) -> float:
    """Share of ticks (0.0 to 1.0) in which the consumer held more than ``bound_bytes``.

    Against ``kip74_bound_bytes`` it should be 0: a positive share means the analytic bound
    was broken. NaN for an empty trace. Runs one Spark job.
    """
    require_columns(memory_df.columns, ("held_bytes",), "memory")
    query = f"SELECT avg(IF(held_bytes > {int(bound_bytes)}, 1.0D, 0.0D)) FROM {{memory}}"
    row = run_sql(memory_df, query, memory=memory_df).first()
    return float("nan") if row is None or row[0] is None else float(row[0])


def starvation_streaks(fetches_df: DataFrame) -> DataFrame:
    """Per partition, the longest run of consecutive fetches in which it had data but got no
    complete batch: KIP-74 starvation, a partition stuck behind others in request order.

    Runs are counted over the fetches that included the partition, in fetch_id order; a fetch
    in which it got bytes, or had no data, ends a run. Reads the full-resolution ``fetches``
    table, so it is for batch reports, not slider updates. Columns: see STREAKS.
    """
    require_columns(fetches_df.columns, FETCHES_INPUT, "fetches")
    return run_sql(fetches_df, STREAKS_SQL, fetches=fetches_df)


@dataclass(frozen=True)
class ConsumerCurves:
    """The curves of one consumer scenario, collected to pandas and sorted, ready to plot.

    Tables follow this module's FAIRNESS and LAG_OVER_TIME (by window), LAG_BY_PARTITION (by
    partition) and MEMORY (by window, ticks_above_bound counted against kip74_bound_bytes)
    schemas; the bounds are the analytic worst cases from ``trace.meta``, in bytes.
    """

    fairness: pd.DataFrame
    lag_over_time: pd.DataFrame
    lag_by_partition: pd.DataFrame
    memory: pd.DataFrame
    pre_kip74_bound_bytes: int
    kip74_bound_bytes: int

    @property
    def kip74_exceedance(self) -> float:
        """Share of ticks in which the consumer held more than the KIP-74 bound (NaN if none)."""
        ticks = int(self.memory["ticks"].sum())
        return float(self.memory["ticks_above_bound"].sum()) / ticks if ticks else float("nan")


def consumer_curves(spark: SparkSession, trace: Any, *,
                    windows: int | None = None) -> ConsumerCurves:
    """Fairness, lag and memory curves of a consumer trace, computed by Spark in one job.

    ``windows``, as every kind's curves take it: here None or the scenario's own ``windows``
    (the simulation cuts a consumer's windows; ``ConsumerScenario.windows`` sets them).

    ``trace`` has pandas tables ``.windows`` and ``.memory`` and a ``.meta`` dict as in
    ``docs/traces.md`` (a ``ConsumerTrace``). This is the slider path: it reads only the
    per-window tables (about partitions x 20 rows), sends both to Spark as one table (one
    ``createDataFrame``), keeps small inputs in one Spark task (no shuffle), and computes every
    curve in one SQL text (:func:`kipviz.curves.sql.union_all`, analysed once) whose union is
    collected once, as an Arrow table: one table sent, one query planned, one ``toArrow``.
    """
    meta = trace.meta
    require_meta(meta, META_KEYS)
    require_columns(trace.windows.columns, WINDOW_COLUMNS, "windows")
    require_columns(trace.memory.columns, MEMORY_INPUT, "memory")
    require_windows(trace.windows, windows)
    kip74 = int(meta["kip74_bound_bytes"])
    trace_df = to_spark(spark, _one_table(trace.windows, trace.memory, kip74))
    if len(trace.windows) <= SMALL_ROWS:
        trace_df = trace_df.coalesce(1)  # one partition satisfies every GROUP BY: no shuffle
    # the bound is a column, not a literal: Spark writes literals into the code it generates,
    # so a bound the text has not seen before (most moves of fetch.max.bytes or
    # max.partition.fetch.bytes) would compile the memory query's stages afresh
    memory_sql = MEMORY_SQL.format(**window_args(int(meta["window_ms"]), int(meta["tick_ms"])),
                                   above=f"held_bytes > {_BOUND_COLUMN}")
    query = union_all([(per_window_query(with_lag=True), {**FAIRNESS, **LAG_OVER_TIME}),
                       (LAG_BY_PARTITION_SQL, LAG_BY_PARTITION), (memory_sql, MEMORY)])
    query = query.format(windows=_rows_of("windows", WINDOW_COLUMNS),
                         memory=_rows_of("memory", (*MEMORY_INPUT, _BOUND_COLUMN)))
    got = collect_union(spark.sql(query, trace=trace_df))
    return ConsumerCurves(
        fairness=part_table(got, 0, FAIRNESS),
        lag_over_time=part_table(got, 0, LAG_OVER_TIME),
        lag_by_partition=part_table(got, 1, LAG_BY_PARTITION),
        memory=part_table(got, 2, MEMORY),
        pre_kip74_bound_bytes=int(meta["pre_kip74_bound_bytes"]),
        kip74_bound_bytes=kip74,
    )


def _one_table(windows: pd.DataFrame, memory: pd.DataFrame, bound_bytes: int) -> pd.DataFrame:
    """The columns the curves read of the ``windows`` and ``memory`` tables, stacked into one
    table (sent to Spark by one ``createDataFrame``): the windows rows, then the memory rows,
    ``_memory`` telling them apart; each column keeps its dtype, 0 on the other table's rows
    (:func:`_rows_of` reads each table back). The memory rows also carry ``bound_bytes`` (the
    bound ``ticks_above_bound`` counts against) as ``_bound_bytes``."""
    n_windows, n_memory = len(windows), len(memory)
    columns: dict[str, np.ndarray] = {}
    for table, names, before, after in ((windows, WINDOW_COLUMNS, 0, n_memory),
                                        (memory, MEMORY_INPUT, n_windows, 0)):
        for name in names:
            values = table[name].to_numpy()
            columns[name] = np.concatenate([np.zeros(before, values.dtype), values,
                                            np.zeros(after, values.dtype)])
    columns[_BOUND_COLUMN] = np.repeat(np.array([0, bound_bytes], np.int64),
                                       [n_windows, n_memory])
    columns["_memory"] = np.repeat([False, True], [n_windows, n_memory])
    return pd.DataFrame(columns, copy=False)


def _rows_of(table: str, names: Iterable[str]) -> str:
    """The SQL subquery that reads one trace table back out of :func:`_one_table`'s."""
    where = "_memory" if table == "memory" else "NOT _memory"
    return f"(SELECT {', '.join(names)} FROM {{trace}} WHERE {where})"
