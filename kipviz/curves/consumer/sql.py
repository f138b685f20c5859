"""The consumer curves' Spark SQL: max-min fair shares and Jain's index per window, the lag,
memory and starvation queries (DESIGN.md "Curves"). :mod:`kipviz.curves` runs them; the Streams
and KIP-81 curves reuse the fairness pieces. The fairness is
:mod:`kipviz.scenarios.fairness`'s, in SQL (``tests/scenarios/test_fairness.py`` checks it on random
windows).
"""

from __future__ import annotations

__all__ = ["FAIRNESS", "FAIRNESS_AGGS", "FAIR_SHARES", "JAIN", "LAG_AGGS", "LAG_BY_PARTITION_SQL",
           "LAG_OVER_TIME", "LAG_OVER_TIME_SQL", "MEMORY_SQL", "RANKED", "STREAKS_SQL",
           "WITH_DEMAND", "per_window_query"]

# Output schemas: column -> dtype of the collected pandas frame.
FAIRNESS = {
    "window": "int32", "window_start_ms": "int64", "partitions_with_data": "int32",
    "delivered_bytes": "int64", "demand_bytes": "int64", "jain_index": "float64",
    "starved_partitions": "int32", "max_starvation_streak": "int32",
}
LAG_OVER_TIME = {
    "window": "int32", "window_start_ms": "int64", "lag_p50_bytes": "float64",
    "lag_p99_bytes": "float64", "lag_max_bytes": "int64", "lag_total_bytes": "int64",
}

# Water-filling (kipviz.scenarios.fairness.max_min_fair_shares): rank each window's partitions
# by demand and compute every candidate level; the level is the candidate of the first
# partition it fits (_fits). Fitting is monotone in the rank, so partitions before that one
# keep their demand and the rest get the level. Zero-demand rows sort first and change neither
# the level nor anyone's share.
RANKED = """ranked AS (
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
WITH_DEMAND = """(SELECT window, partition, demand_bytes, delivered_bytes FROM {windows}
  WHERE demand_bytes > 0)"""
FAIR_SHARES = f"""WITH {RANKED.format(src=WITH_DEMAND)}
SELECT window, partition, demand_bytes, delivered_bytes, fair_share_bytes,
  CASE WHEN fair_share_bytes = 0 THEN 1.0D ELSE delivered_bytes / fair_share_bytes END AS x
FROM (  -- least() skips NULL: when the level fits nobody, every share is the demand
  SELECT *, least(CAST(demand_bytes AS DOUBLE),
                  min_by(_cand, IF(_fits, _k, NULL)) OVER (PARTITION BY window))
              AS fair_share_bytes
  FROM ranked)"""
# Jain's index in the same pass: x = delivered / demand before the level and delivered / level
# from it on (x = 1 where the level is 0, i.e. nothing was delivered), so sum x = _a + _b / L.
FAIRNESS_AGGS = """
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
JAIN = """pow(_a + coalesce(IF(_level = 0, _m, _b / _level), 0), 2)
  / NULLIF(partitions_with_data * (_a2 + coalesce(IF(_level = 0, _m, _b2 / pow(_level, 2)), 0)),
           0) AS jain_index"""
LAG_AGGS = """
  percentile(lag_end_bytes, array(0.5D, 0.99D))[0] AS lag_p50_bytes,
  percentile(lag_end_bytes, array(0.5D, 0.99D))[1] AS lag_p99_bytes,
  CAST(max(lag_end_bytes) AS BIGINT) AS lag_max_bytes,
  CAST(sum(lag_end_bytes) AS BIGINT) AS lag_total_bytes"""
LAG_OVER_TIME_SQL = f"""SELECT CAST(window AS INT) AS window,
  CAST(min(window_start_ms) AS BIGINT) AS window_start_ms, {LAG_AGGS}
FROM {{windows}} GROUP BY window"""
LAG_BY_PARTITION_SQL = """SELECT CAST(partition AS INT) AS partition,
  CAST(max_by(lag_end_bytes, window) AS BIGINT) AS final_lag_bytes,
  CAST(max(lag_end_bytes) AS BIGINT) AS max_lag_bytes,
  CAST(sum(delivered_bytes) AS BIGINT) AS delivered_bytes
FROM {windows} GROUP BY partition"""
MEMORY_SQL = """SELECT window, CAST(window AS BIGINT) * {window_ms} AS window_start_ms,
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
STREAKS_SQL = """WITH runs AS (
  SELECT partition, starved, sum(1 - starved) OVER (PARTITION BY partition ORDER BY fetch_id
    ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS run
  FROM (SELECT partition, fetch_id, IF(lag_bytes > 0 AND complete_bytes = 0, 1, 0) AS starved
        FROM {fetches}))
SELECT CAST(partition AS INT) AS partition, max(length) AS longest_starvation_fetches,
  sum(length) AS starved_fetches, sum(fetches) AS fetches
FROM (SELECT partition, CAST(sum(starved) AS BIGINT) AS length, count(1) AS fetches
      FROM runs GROUP BY partition, run)
GROUP BY partition"""


def per_window_query(with_lag: bool) -> str:
    """Fairness per window (plus the lag curve, for the hot path) in one pass over ranked rows."""
    names = [JAIN if c == "jain_index" else c for c in FAIRNESS]
    if with_lag:
        names += [c for c in LAG_OVER_TIME if c not in FAIRNESS]
    aggs = FAIRNESS_AGGS + (f",{LAG_AGGS}" if with_lag else "")
    return f"""WITH {RANKED.format(src="{windows}")}
SELECT {", ".join(names)}
FROM (SELECT CAST(window AS INT) AS window, {aggs} FROM ranked GROUP BY window)"""
