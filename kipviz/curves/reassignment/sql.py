"""The SQL of :mod:`kipviz.curves.reassignment`: input and output schemas, query texts and the
move-time expressions (``bytes / (T - (F + 1) x IN)``, as :mod:`kipviz.kafka.replication.planning`,
with Spark's ANSI mode in mind: no division by zero)."""

from __future__ import annotations

import math

from kipviz.kafka.config.checks import check_number
from kipviz.kafka.config.declarations import BROKER
from kipviz.kafka.config.fields import check_setting

__all__ = ["CATCH_UP", "META_KEYS", "MOVE", "MOVE_SQL", "PARTITIONS_INPUT", "PARTITIONS_MOVE",
           "THROTTLE", "THROTTLE_SQL", "TICKS_INPUT", "TICKS_MOVE", "catch_up_query",
           "check_rates", "partitions_summary_query", "quota_window_to_ms",
           "ticks_summary_query"]

TICKS_INPUT = ("time_ms", "leader_rate_bytes_per_s", "follower_rate_bytes_per_s",
               "throttled_bytes", "unthrottled_bytes", "replica_lag_bytes", "moved_bytes",
               "client_bandwidth_left_bytes_per_s")
PARTITIONS_INPUT = ("partition", "size_bytes", "caught_up_ms")
META_KEYS = ("tick_ms", "ticks", "leader_throttle_bytes_per_s", "follower_throttle_bytes_per_s",
             "throttle_bytes_per_s", "bytes_in_per_s", "network_bytes_per_s",
             "replication_factor")

# Output schemas: column -> dtype of the collected pandas frame (Spark: int, bigint, double).


def _dtypes(columns: str) -> dict[str, str]:
    """``"name dtype, name dtype, ..."`` as ``{name: dtype}``, in order."""
    pairs = (column.split() for column in columns.split(","))
    return {name: dtype for name, dtype in pairs}


THROTTLE = _dtypes("""
    window int32, window_start_ms int64, ticks int64, leader_rate_mean_bytes_per_s float64,
    leader_rate_max_bytes_per_s float64, follower_rate_mean_bytes_per_s float64,
    follower_rate_max_bytes_per_s float64, throttled_bytes int64, unthrottled_bytes int64,
    throttled_bytes_per_s float64, sent_bytes_per_s float64, replica_lag_end_bytes int64,
    replica_lag_max_bytes int64, moved_end_bytes int64, client_left_min_bytes_per_s float64,
    client_left_mean_bytes_per_s float64""")
CATCH_UP = _dtypes("""
    partition int32, size_bytes int64, caught_up_ms int64, caught_up_s float64,
    caught_up_bytes float64, kip_move_time_s float64, planned_move_time_s float64""")
TICKS_MOVE = _dtypes("""
    moved_bytes int64, replica_lag_end_bytes int64, first_window_throttled_bytes int64,
    first_window_quota_bytes float64, first_window_overshoot float64,
    client_left_moving_mean_bytes_per_s float64, client_left_moving_min_bytes_per_s float64""")
PARTITIONS_MOVE = _dtypes("""
    partitions int64, caught_up_partitions int64, bytes_to_move int64, completed_s float64,
    kip_move_time_s float64""")
MOVE = {**PARTITIONS_MOVE, **TICKS_MOVE}

THROTTLE_SQL = """SELECT window, CAST(window AS BIGINT) * {window_ms} AS window_start_ms,
  count(1) AS ticks,
  CAST(avg(leader_rate_bytes_per_s) AS DOUBLE) AS leader_rate_mean_bytes_per_s,
  CAST(max(leader_rate_bytes_per_s) AS DOUBLE) AS leader_rate_max_bytes_per_s,
  CAST(avg(follower_rate_bytes_per_s) AS DOUBLE) AS follower_rate_mean_bytes_per_s,
  CAST(max(follower_rate_bytes_per_s) AS DOUBLE) AS follower_rate_max_bytes_per_s,
  CAST(sum(throttled_bytes) AS BIGINT) AS throttled_bytes,
  CAST(sum(unthrottled_bytes) AS BIGINT) AS unthrottled_bytes,
  sum(throttled_bytes) * 1000.0D / ({span_ms}) AS throttled_bytes_per_s,
  sum(throttled_bytes + unthrottled_bytes) * 1000.0D / ({span_ms}) AS sent_bytes_per_s,
  CAST(max_by(replica_lag_bytes, time_ms) AS BIGINT) AS replica_lag_end_bytes,
  CAST(max(replica_lag_bytes) AS BIGINT) AS replica_lag_max_bytes,
  CAST(max_by(moved_bytes, time_ms) AS BIGINT) AS moved_end_bytes,
  CAST(min(client_bandwidth_left_bytes_per_s) AS DOUBLE) AS client_left_min_bytes_per_s,
  CAST(avg(client_bandwidth_left_bytes_per_s) AS DOUBLE) AS client_left_mean_bytes_per_s
FROM (SELECT *, CAST(time_ms div {window_ms} AS INT) AS window FROM {{ticks}})
GROUP BY window"""
# caught_up_bytes: bytes of the partitions caught up no later than this one (RANGE: ties too);
# partitions never caught up (-1) sort first and add nothing.
_CATCH_UP = """SELECT partition, size_bytes, caught_up_ms,
  IF(caught_up_ms >= 0, caught_up_ms / 1000.0D, NULL) AS caught_up_s,
  _cum AS caught_up_bytes, {kip} AS kip_move_time_s, {planned} AS planned_move_time_s
FROM (SELECT CAST(partition AS INT) AS partition, CAST(size_bytes AS BIGINT) AS size_bytes,
    CAST(caught_up_ms AS BIGINT) AS caught_up_ms,
    IF(caught_up_ms >= 0, CAST(sum(IF(caught_up_ms >= 0, size_bytes, 0)) OVER (
      ORDER BY caught_up_ms RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS DOUBLE),
      NULL) AS _cum
  FROM {{partitions}})"""
_PARTITIONS_SUMMARY = """SELECT partitions, caught_up_partitions, bytes_to_move,
  IF(caught_up_partitions = partitions AND partitions > 0, _last / 1000.0D, NULL) AS completed_s,
  {kip} AS kip_move_time_s
FROM (SELECT count(1) AS partitions, count_if(caught_up_ms >= 0) AS caught_up_partitions,
    CAST(coalesce(sum(size_bytes), 0) AS BIGINT) AS bytes_to_move,
    CAST(coalesce(sum(size_bytes), 0) AS DOUBLE) AS _cum, max(caught_up_ms) AS _last
  FROM {{partitions}})"""
# "Moving" ticks: SumReplicaLag still above 0 after the tick.
_TICKS_SUMMARY = """SELECT moved_bytes, replica_lag_end_bytes, first_window_throttled_bytes,
  {quota_bytes} AS first_window_quota_bytes, {overshoot} AS first_window_overshoot,
  client_left_moving_mean_bytes_per_s, client_left_moving_min_bytes_per_s
FROM (SELECT CAST(max_by(moved_bytes, time_ms) AS BIGINT) AS moved_bytes,
    CAST(max_by(replica_lag_bytes, time_ms) AS BIGINT) AS replica_lag_end_bytes,
    CAST(coalesce(sum(IF(time_ms < {quota_window_ms}, throttled_bytes, 0)), 0) AS BIGINT)
      AS first_window_throttled_bytes,
    CAST(avg(client_bandwidth_left_bytes_per_s) FILTER (WHERE replica_lag_bytes > 0) AS DOUBLE)
      AS client_left_moving_mean_bytes_per_s,
    CAST(min(client_bandwidth_left_bytes_per_s) FILTER (WHERE replica_lag_bytes > 0) AS DOUBLE)
      AS client_left_moving_min_bytes_per_s
  FROM {{ticks}})"""
MOVE_SQL = """SELECT {columns} FROM ({partitions_summary}) CROSS JOIN ({ticks_summary})"""


def _double(x: float) -> str:
    """A Spark SQL double literal, infinities and NaN included."""
    return f"CAST('{float(x)!r}' AS DOUBLE)"


def _kip_time(cum: str, throttle_bytes_per_s: float, bytes_in_per_s: float) -> str:
    """Q&A 1's move time of ``cum`` bytes as SQL, as
    :func:`kipviz.kafka.replication.planning.move_time_s`: 0 for nothing to move, infinite when the
    throttle is not above IN (no division by zero: Spark's ANSI mode raises on it)."""
    headroom = float(throttle_bytes_per_s) - float(bytes_in_per_s)
    rate = _double(math.inf) if headroom <= 0 else f"{cum} / {_double(headroom)}"
    return f"CASE WHEN {cum} IS NULL THEN NULL WHEN {cum} = 0 THEN 0.0D ELSE {rate} END"


def check_rates(throttle_bytes_per_s: float, bytes_in_per_s: float) -> None:
    """ValueError unless the throttle is >= 0 (``math.inf``: unlimited) and IN finite, >= 0."""
    check_number("throttle_bytes_per_s", throttle_bytes_per_s, 0)
    check_number("bytes_in_per_s", bytes_in_per_s, 0, finite=True)


def quota_window_to_ms(quota_window_s: float) -> int:
    """``replication.quota.window.size.seconds`` in whole ms (at least 1); ValueError unless
    it is a finite number > 0 (the curves take fractions of Kafka's whole seconds)."""
    check_setting("quota_window_s", quota_window_s,
                  BROKER["replication.quota.window.size.seconds"], above=0, number=True)
    return max(1, round(quota_window_s * 1000))


def catch_up_query(throttle_bytes_per_s: float, bytes_in_per_s: float,
                    in_sync_followers: int = 0) -> str:
    """The per-partition catch-up query (``CATCH_UP``): Q&A 1's move time of the bytes caught
    up so far, and the planned one with ``in_sync_followers`` counted."""
    return _CATCH_UP.format(kip=_kip_time("_cum", throttle_bytes_per_s, bytes_in_per_s),
                            planned=_kip_time("_cum", throttle_bytes_per_s,
                                              (in_sync_followers + 1) * bytes_in_per_s))


def partitions_summary_query(throttle_bytes_per_s: float, bytes_in_per_s: float) -> str:
    """The one-row partitions summary (``PARTITIONS_MOVE``): counts, bytes, completion."""
    return _PARTITIONS_SUMMARY.format(kip=_kip_time("_cum", throttle_bytes_per_s,
                                                    bytes_in_per_s))


def ticks_summary_query(quota_window_ms: int, throttle_bytes_per_s: float) -> str:
    """The one-row ticks summary (``TICKS_MOVE``): the first quota window's overshoot and the
    client bandwidth left while moving."""
    quota_bytes = float(throttle_bytes_per_s) * quota_window_ms / 1000.0
    first = "first_window_throttled_bytes"
    if quota_bytes > 0:  # T x window; overshoot 0 when unlimited
        overshoot = f"{first} / {_double(quota_bytes)}"
    else:  # a zero throttle: any byte is an infinite overshoot
        overshoot = f"IF({first} > 0, {_double(math.inf)}, {_double(math.nan)})"
    return _TICKS_SUMMARY.format(quota_bytes=_double(quota_bytes), overshoot=overshoot,
                                 quota_window_ms=quota_window_ms)
