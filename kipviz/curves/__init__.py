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

from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

import pandas as pd

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession
    from pyspark.sql.types import StructType

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
FETCHES_INPUT = ("fetch_id", "partition", "lag_bytes", "complete_bytes")
META_KEYS = ("window_ms", "tick_ms", "pre_kip74_bound_bytes", "kip74_bound_bytes")
SMALL_ROWS = 200_000  # windows rows up to which consumer_curves runs in one task, unshuffled
# Tables of more rows reach Spark as an Arrow-backed RDD rather than a LocalRelation (to_spark).
LOCAL_RELATION_ROWS = 10_000
_ARROW_LOCAL_RELATION_THRESHOLD = "spark.sql.execution.arrow.localRelationThreshold"

# Output schemas: column -> dtype of the collected pandas frame (Spark: int, bigint, double).
FAIRNESS = {
    "window": "int32", "window_start_ms": "int64", "partitions_with_data": "int32",
    "delivered_bytes": "int64", "demand_bytes": "int64", "jain_index": "float64",
    "starved_partitions": "int32", "max_starvation_streak": "int32",
}  # fmt: skip
LAG_OVER_TIME = {
    "window": "int32", "window_start_ms": "int64", "lag_p50_bytes": "float64",
    "lag_p99_bytes": "float64", "lag_max_bytes": "int64", "lag_total_bytes": "int64",
}  # fmt: skip
LAG_BY_PARTITION = {
    "partition": "int32", "final_lag_bytes": "int64", "max_lag_bytes": "int64",
    "delivered_bytes": "int64",
}  # fmt: skip
MEMORY = {
    "window": "int32", "window_start_ms": "int64", "ticks": "int64", "held_max_bytes": "int64",
    "held_mean_bytes": "float64", "held_in_flight_max_bytes": "int64",
    "consumed_bytes_per_s": "float64", "ticks_above_bound": "int64",
}  # fmt: skip
STREAKS = {
    "partition": "int32", "longest_starvation_fetches": "int64", "starved_fetches": "int64",
    "fetches": "int64",
}  # fmt: skip

_SPARK_TYPES = {
    "int8": "ByteType", "int16": "ShortType", "int32": "IntegerType", "int64": "LongType",
    "float32": "FloatType", "float64": "DoubleType", "bool": "BooleanType",
    "boolean": "BooleanType", "object": "StringType", "string": "StringType",
}  # fmt: skip

# Water-filling (see fair_shares): rank each window's partitions by demand and compute every
# candidate level; the level is the candidate of the first partition it fits (_fits). Fitting
# is monotone in the rank, so partitions before that one keep their demand and the rest get
# the level. Zero-demand rows sort first and change neither the level nor anyone's share.
_RANKED = """ranked AS (
  SELECT *, _cand <= demand_bytes AS _fits
  FROM (SELECT *, (_total - _smaller) / (_n - _k + 1) AS _cand
    FROM (SELECT *,
        row_number() OVER by_demand AS _k,
        (sum(demand_bytes) OVER by_demand) - demand_bytes AS _smaller,
        sum(delivered_bytes) OVER all_rows AS _total,
        count(1) OVER all_rows AS _n
      FROM {src}
      WINDOW by_demand AS (PARTITION BY window ORDER BY demand_bytes, partition
                           ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW),
        all_rows AS (PARTITION BY window ORDER BY demand_bytes, partition
                     ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING))))"""
_WITH_DEMAND = """(SELECT window, partition, demand_bytes, delivered_bytes FROM {windows}
  WHERE demand_bytes > 0)"""
_FAIR_SHARES = f"""WITH {_RANKED.format(src=_WITH_DEMAND)}
SELECT window, partition, demand_bytes, delivered_bytes, fair_share_bytes,
  CASE WHEN fair_share_bytes = 0 THEN 1.0D ELSE delivered_bytes / fair_share_bytes END AS x
FROM (  -- least() skips NULL: when the level fits nobody, every share is the demand
  SELECT *, least(CAST(demand_bytes AS DOUBLE),
                  min_by(_cand, IF(_fits, _k, NULL)) OVER (PARTITION BY window))
              AS fair_share_bytes
  FROM ranked)"""
# Jain's index in the same pass: x = delivered / demand before the level and delivered / level
# from it on (x = 1 where the level is 0, i.e. nothing was delivered), so sum x = _a + _b / L.
_FAIRNESS_AGGS = """
  CAST(min(window_start_ms) AS BIGINT) AS window_start_ms,
  CAST(count_if(demand_bytes > 0) AS INT) AS partitions_with_data,
  CAST(sum(delivered_bytes) AS BIGINT) AS delivered_bytes,
  CAST(sum(demand_bytes) AS BIGINT) AS demand_bytes,
  CAST(count_if(demand_bytes > 0 AND delivered_bytes = 0) AS INT) AS starved_partitions,
  CAST(max(max_starvation_streak) AS INT) AS max_starvation_streak,
  min_by(_cand, _k) FILTER (WHERE _fits) AS _level,
  count_if(demand_bytes > 0 AND _fits) AS _m,
  coalesce(sum(delivered_bytes / NULLIF(demand_bytes, 0)) FILTER (WHERE NOT _fits), 0) AS _a,
  coalesce(sum(pow(delivered_bytes / NULLIF(demand_bytes, 0), 2)) FILTER (WHERE NOT _fits), 0)
    AS _a2,
  coalesce(sum(delivered_bytes) FILTER (WHERE _fits), 0) AS _b,
  coalesce(sum(pow(delivered_bytes, 2)) FILTER (WHERE _fits), 0) AS _b2"""
_JAIN = """pow(_a + coalesce(IF(_level = 0, _m, _b / _level), 0), 2)
  / NULLIF(partitions_with_data * (_a2 + coalesce(IF(_level = 0, _m, _b2 / pow(_level, 2)), 0)),
           0) AS jain_index"""
_LAG_AGGS = """
  percentile(lag_end_bytes, array(0.5D, 0.99D))[0] AS lag_p50_bytes,
  percentile(lag_end_bytes, array(0.5D, 0.99D))[1] AS lag_p99_bytes,
  CAST(max(lag_end_bytes) AS BIGINT) AS lag_max_bytes,
  CAST(sum(lag_end_bytes) AS BIGINT) AS lag_total_bytes"""
_LAG_OVER_TIME = f"""SELECT CAST(window AS INT) AS window,
  CAST(min(window_start_ms) AS BIGINT) AS window_start_ms, {_LAG_AGGS}
FROM {{windows}} GROUP BY window"""
_LAG_BY_PARTITION = """SELECT CAST(partition AS INT) AS partition,
  CAST(max_by(lag_end_bytes, window) AS BIGINT) AS final_lag_bytes,
  CAST(max(lag_end_bytes) AS BIGINT) AS max_lag_bytes,
  CAST(sum(delivered_bytes) AS BIGINT) AS delivered_bytes
FROM {windows} GROUP BY partition"""
_MEMORY = """SELECT window, CAST(window AS BIGINT) * {window_ms} AS window_start_ms,
  count(1) AS ticks,
  CAST(max(held_bytes) AS BIGINT) AS held_max_bytes,
  CAST(avg(held_bytes) AS DOUBLE) AS held_mean_bytes,
  CAST(max(held_bytes + in_flight_bytes) AS BIGINT) AS held_in_flight_max_bytes,
  sum(consumed_bytes) * 1000.0D / ({span_ms}) AS consumed_bytes_per_s,
  count_if({above}) AS ticks_above_bound
FROM (SELECT *, CAST(time_ms div {window_ms} AS INT) AS window FROM {{memory}})
GROUP BY window"""
# Gaps and islands: each fetch in which the partition was not starved opens a run id that
# the starved fetches after it share; a run's length is its number of starved fetches.
_STREAKS = """WITH runs AS (
  SELECT partition, starved, sum(1 - starved) OVER (PARTITION BY partition ORDER BY fetch_id
    ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS run
  FROM (SELECT partition, fetch_id, IF(lag_bytes > 0 AND complete_bytes = 0, 1, 0) AS starved
        FROM {fetches}))
SELECT CAST(partition AS INT) AS partition, max(length) AS longest_starvation_fetches,
  sum(length) AS starved_fetches, sum(fetches) AS fetches
FROM (SELECT partition, CAST(sum(starved) AS BIGINT) AS length, count(1) AS fetches
      FROM runs GROUP BY partition, run)
GROUP BY partition"""


def _per_window_query(with_lag: bool) -> str:
    """Fairness per window (plus the lag curve, for the hot path) in one pass over ranked rows."""
    names = [_JAIN if c == "jain_index" else c for c in FAIRNESS]
    if with_lag:
        names += [c for c in LAG_OVER_TIME if c not in FAIRNESS]
    aggs = _FAIRNESS_AGGS + (f",{_LAG_AGGS}" if with_lag else "")
    return f"""WITH {_RANKED.format(src="{windows}")}
SELECT {", ".join(names)}
FROM (SELECT CAST(window AS INT) AS window, {aggs} FROM ranked GROUP BY window)"""


def _require_meta(meta: dict[str, Any], keys: Iterable[str], windows: int | None = None) -> None:
    """ValueError unless ``trace.meta`` has ``keys`` (and ``windows``, if given, is > 0)."""
    for key in keys:
        if key not in meta:
            raise ValueError(f"trace.meta is missing {key!r}; it has {sorted(meta)}")
    if windows is not None and windows <= 0:
        raise ValueError(f"'windows' must be > 0: {windows}")


def _require(columns: Iterable[str], needed: Iterable[str], table: str) -> None:
    have = set(columns)
    for name in needed:
        if name not in have:
            raise ValueError(f"{table} table is missing column {name!r}; it has {sorted(have)}")


def spark_schema(pdf: pd.DataFrame) -> StructType:
    """The Spark schema for a pandas frame's dtypes (int32 -> int, int64 -> bigint, ...)."""
    from pyspark.sql import types as T

    fields = []
    for name, dtype in pdf.dtypes.items():
        kind = _SPARK_TYPES.get(str(dtype).lower())
        if kind is None:
            raise ValueError(f"column {name!r} has dtype {dtype}: kipviz cannot send it to Spark")
        fields.append(T.StructField(str(name), getattr(T, kind)(), nullable=True))
    return T.StructType(fields)


def to_spark(spark: SparkSession, pdf: pd.DataFrame) -> DataFrame:
    """Send a pandas trace table to Spark through Arrow with a schema taken from its dtypes.

    The explicit schema keeps int32 and int64 apart and lets empty tables through. A table of
    more than ``LOCAL_RELATION_ROWS`` rows becomes an Arrow-backed RDD, decoded in the tasks,
    rather than a ``LocalRelation`` held in the plan: the optimizer evaluates projections over a
    LocalRelation row by row (``ConvertToLocalRelation``) and every rule that walks the plan
    walks its rows, which on an 80k-row table cost more than running the job.
    """
    schema = spark_schema(pdf)
    if len(pdf) <= LOCAL_RELATION_ROWS:
        return spark.createDataFrame(pdf, schema=schema)
    with _arrow_rdd(spark):
        return spark.createDataFrame(pdf, schema=schema)


@contextmanager
def _arrow_rdd(spark: SparkSession) -> Iterator[None]:
    """Make ``createDataFrame`` from pandas build an Arrow RDD (classic Spark 4 sessions; older
    Spark always does, and Spark Connect sends its own local relation)."""
    if type(spark).__module__.startswith("pyspark.sql.connect"):
        yield
        return
    old = spark.conf.get(_ARROW_LOCAL_RELATION_THRESHOLD, None)
    spark.conf.set(_ARROW_LOCAL_RELATION_THRESHOLD, "0")
    try:
        yield
    finally:
        if old is None:
            spark.conf.unset(_ARROW_LOCAL_RELATION_THRESHOLD)
        else:
            spark.conf.set(_ARROW_LOCAL_RELATION_THRESHOLD, old)


def _window_args(window_ms: int, tick_ms: int | None) -> dict[str, Any]:
    """``window_ms`` and the ``span_ms`` a per-second rate divides by, for windowed tick queries:
    ``ticks * tick_ms`` when ``tick_ms`` is given (exact for a partial last window)."""
    if window_ms <= 0:
        raise ValueError(f"'window_ms' must be > 0: {window_ms}")
    if tick_ms is not None and tick_ms <= 0:
        raise ValueError(f"'tick_ms' must be > 0: {tick_ms}")
    return {"window_ms": int(window_ms),
            "span_ms": f"count(1) * {int(tick_ms)}" if tick_ms else int(window_ms)}


def _sql(df: DataFrame, query: str, **frames: Any) -> DataFrame:
    return df.sparkSession.sql(query, **frames)


def _union_all(parts: Sequence[tuple[str, Iterable[str]]]) -> str:
    """One SQL text for several small result queries, so one job computes and collects them:
    their UNION ALL, each branch tagged ``_part`` = its place in ``parts`` and given every
    column of the others as NULL. ``parts``: (query, its output columns). One text is analysed
    once; a chain of ``unionByName`` re-analyses the growing plan at every step."""
    names = [list(columns) for _, columns in parts]
    every = list(dict.fromkeys(c for columns in names for c in columns))
    return "\nUNION ALL\n".join(
        f"SELECT {i} AS _part, "
        + ", ".join(c if c in columns else f"NULL AS {c}" for c in every)
        + f" FROM ({query})"
        for i, ((query, _), columns) in enumerate(zip(parts, names, strict=True))
    )


def _part_table(got: pd.DataFrame, part: int, schema: dict[str, str]) -> pd.DataFrame:
    """The rows of one ``_union_all`` branch, typed by ``schema`` and sorted by its first column."""
    rows = got.loc[got["_part"] == part, list(schema)].astype(schema)
    return rows.sort_values(next(iter(schema)), ignore_index=True)


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
    _require(windows_df.columns, SHARES_INPUT, "windows")
    return _sql(windows_df, _FAIR_SHARES, windows=windows_df)


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
    _require(windows_df.columns, FAIRNESS_INPUT, "windows")
    return _sql(windows_df, _per_window_query(with_lag=False), windows=windows_df)


def lag_over_time(windows_df: DataFrame) -> DataFrame:
    """Per window, how far behind the log end the partitions are: exact p50, p99 (linear
    interpolation, as numpy) and max of lag_end_bytes across partitions, and the consumer's
    total lag. A p99 that grows while the p50 stays flat means a few partitions are being left
    behind. Columns: see LAG_OVER_TIME.
    """
    _require(windows_df.columns, LAG_INPUT, "windows")
    return _sql(windows_df, _LAG_OVER_TIME, windows=windows_df)


def lag_by_partition(windows_df: DataFrame) -> DataFrame:
    """Per partition, the lag left at the end (last window), the worst lag seen and the bytes
    delivered in total: which partitions the fetch order favoured. Columns: see
    LAG_BY_PARTITION.
    """
    _require(windows_df.columns, LAG_INPUT, "windows")
    return _sql(windows_df, _LAG_BY_PARTITION, windows=windows_df)


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
    _require(memory_df.columns, MEMORY_INPUT, "memory")
    query = _MEMORY.format(
        **_window_args(window_ms, tick_ms),
        above="false" if bound_bytes is None else f"held_bytes > {int(bound_bytes)}",
    )
    return _sql(memory_df, query, memory=memory_df)


def bound_exceedance(memory_df: DataFrame, bound_bytes: int) -> float:
    """Share of ticks (0.0 to 1.0) in which the consumer held more than ``bound_bytes``.

    Against ``kip74_bound_bytes`` it should be 0: a positive share means the analytic bound
    was broken. NaN for an empty trace. Runs one Spark job.
    """
    _require(memory_df.columns, ("held_bytes",), "memory")
    query = f"SELECT avg(IF(held_bytes > {int(bound_bytes)}, 1.0D, 0.0D)) FROM {{memory}}"
    row = _sql(memory_df, query, memory=memory_df).first()
    return float("nan") if row is None or row[0] is None else float(row[0])


def starvation_streaks(fetches_df: DataFrame) -> DataFrame:
    """Per partition, the longest run of consecutive fetches in which it had data but got no
    complete batch: KIP-74 starvation, a partition stuck behind others in request order.

    Runs are counted over the fetches that included the partition, in fetch_id order; a fetch
    in which it got bytes, or had no data, ends a run. Reads the full-resolution ``fetches``
    table, so it is for batch reports, not slider updates. Columns: see STREAKS.
    """
    _require(fetches_df.columns, FETCHES_INPUT, "fetches")
    return _sql(fetches_df, _STREAKS, fetches=fetches_df)


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


def consumer_curves(spark: SparkSession, trace: Any) -> ConsumerCurves:
    """Fairness, lag and memory curves of a consumer trace, computed by Spark in one job.

    ``trace`` has pandas tables ``.windows`` and ``.memory`` and a ``.meta`` dict as in
    ``docs/traces.md`` (a ``ConsumerTrace``). This is the slider path: it reads only the
    per-window tables (about partitions x 20 rows), keeps small inputs in one Spark task (no
    shuffle), and collects the union of the small results once, through Arrow.
    """
    from pyspark.sql import functions as F

    meta = trace.meta
    _require_meta(meta, META_KEYS)
    window_cols = list(dict.fromkeys((*FAIRNESS_INPUT, *LAG_INPUT)))
    _require(trace.windows.columns, window_cols, "windows")
    _require(trace.memory.columns, MEMORY_INPUT, "memory")
    windows = to_spark(spark, trace.windows[window_cols])
    if len(trace.windows) <= SMALL_ROWS:
        windows = windows.coalesce(1)  # one partition satisfies every GROUP BY: no shuffle
    memory = to_spark(spark, trace.memory[list(MEMORY_INPUT)]).coalesce(1)
    kip74 = int(meta["kip74_bound_bytes"])
    window_ms, tick_ms = int(meta["window_ms"]), int(meta["tick_ms"])
    parts = [
        _sql(windows, _per_window_query(with_lag=True), windows=windows),
        lag_by_partition(windows),
        memory_curve(memory, window_ms, tick_ms=tick_ms, bound_bytes=kip74),
    ]
    union = parts[0].withColumn("_part", F.lit(0))
    for i, part in enumerate(parts[1:], 1):
        union = union.unionByName(part.withColumn("_part", F.lit(i)), allowMissingColumns=True)
    got = cast(pd.DataFrame, union.toPandas())

    def table(part: int, schema: dict[str, str]) -> pd.DataFrame:
        rows = got.loc[got["_part"] == part, list(schema)].astype(schema)
        return rows.sort_values(next(iter(schema)), ignore_index=True)

    return ConsumerCurves(
        fairness=table(0, FAIRNESS),
        lag_over_time=table(0, LAG_OVER_TIME),
        lag_by_partition=table(1, LAG_BY_PARTITION),
        memory=table(2, MEMORY),
        pre_kip74_bound_bytes=int(meta["pre_kip74_bound_bytes"]),
        kip74_bound_bytes=kip74,
    )
