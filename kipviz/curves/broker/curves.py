"""Spark turns KIP-72 broker traces into the memory-pool curves the lesson plots.

Functions here take Spark DataFrames with the ``ticks`` and ``requests`` schemas of the broker
section of ``docs/traces.md`` and return Spark DataFrames (unordered: sort after collecting).
``broker_curves`` is the slider path: a ``BrokerTrace`` in, small sorted pandas curves out, in
one Spark job. As in :mod:`kipviz.curves`, every curve is one Spark SQL text.

A request's wait is ``read_ms - arrival_ms``: how long it sat in its socket before the network
thread got pool memory for it (``kipviz.scenarios.broker.scenario.request_wait_ms``). Requests never
read in the run (``read_ms = -1``) have no wait; they are counted as ``unread_requests``.

Fairness (``wait_fairness``) is Jain's index over connections of their service rate, the inverse
of their mean wait. Served bytes would mostly measure what each client asked for (open-loop
clients, random large requests) and, over a run, nearly every request is read in the end; what
KIP-72's key shuffling fixes is *who waits* for memory while the pool is short: without it the
last connections in key order sit muted behind the first ones. Jain recommends the reciprocal
for quantities where less is better, so the index is that of x_i = 1 / (mean wait_i + tick_ms).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pandas as pd

from kipviz.curves import sql
from kipviz.kafka.config.checks import check_number
from kipviz.kafka.units import MiB

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

__all__ = [
    "LARGE_STARVATION",
    "POOL_MEMORY",
    "REQUEST_WAITS",
    "WAIT_FAIRNESS",
    "WAIT_SUMMARY",
    "BrokerCurves",
    "broker_curves",
    "large_request_starvation",
    "pool_memory_curve",
    "request_waits",
    "wait_fairness",
    "wait_summary",
]

TICKS_INPUT = ("time_ms", "pool_used_bytes", "pool_available_bytes", "requests_in_queue",
               "muted_for_memory", "bytes_read")
REQUESTS_INPUT = ("connection", "size_bytes", "arrival_ms", "read_ms")
META_KEYS = ("tick_ms", "ticks", "queued_max_request_bytes", "socket_request_max_bytes",
             "outstanding_bound_bytes", "per_connection_bound_bytes")
LARGE_BYTES = MiB  # default "large": at least the producer's max.request.size default
SMALL_ROWS = 200_000  # requests rows up to which broker_curves runs in one task, unshuffled

# Output schemas: column -> dtype of the collected pandas frame (Spark: int, bigint, double).
POOL_MEMORY = {
    "window": "int32", "window_start_ms": "int64", "ticks": "int64",
    "pool_used_max_bytes": "int64", "pool_used_mean_bytes": "float64",
    "pool_available_min_bytes": "int64", "depleted_ticks": "int64", "depleted_share": "float64",
    "muted_max": "int32", "queue_max": "int32", "bytes_read_per_s": "float64",
}
_WAIT_STATS = {
    "requests": "int64", "read_requests": "int64", "unread_requests": "int64",
    "read_bytes": "int64", "wait_p50_ms": "float64", "wait_p99_ms": "float64",
    "wait_max_ms": "float64", "wait_mean_ms": "float64",
}
REQUEST_WAITS = {"connection": "int32", **_WAIT_STATS}
WAIT_SUMMARY = {"connections": "int64", **_WAIT_STATS}
LARGE_STARVATION = {"large": "bool", **_WAIT_STATS}
WAIT_FAIRNESS = {"fair_connections": "int64", "jain_index": "float64"}

_POOL_MEMORY = """SELECT window, CAST(window AS BIGINT) * {window_ms} AS window_start_ms,
  count(1) AS ticks,
  CAST(max(pool_used_bytes) AS BIGINT) AS pool_used_max_bytes,
  CAST(avg(pool_used_bytes) AS DOUBLE) AS pool_used_mean_bytes,
  CAST(min(pool_available_bytes) AS BIGINT) AS pool_available_min_bytes,
  count_if(pool_available_bytes <= 0) AS depleted_ticks,
  count_if(pool_available_bytes <= 0) / count(1) AS depleted_share,
  CAST(max(muted_for_memory) AS INT) AS muted_max,
  CAST(max(requests_in_queue) AS INT) AS queue_max,
  sum(bytes_read) * 1000.0D / ({span_ms}) AS bytes_read_per_s
FROM (SELECT *, CAST(time_ms div {window_ms} AS INT) AS window FROM {{ticks}})
GROUP BY window"""
_WAITS = """(SELECT connection, size_bytes, arrival_ms,
  IF(read_ms >= 0, read_ms - arrival_ms, NULL) AS wait FROM {requests})"""
_WAIT_AGGS = """count(1) AS requests, count(wait) AS read_requests,
  count(1) - count(wait) AS unread_requests,
  CAST(coalesce(sum(IF(wait IS NULL, 0, size_bytes)), 0) AS BIGINT) AS read_bytes,
  percentile(wait, array(0.5D, 0.99D)) AS _p,
  CAST(max(wait) AS DOUBLE) AS wait_max_ms, CAST(avg(wait) AS DOUBLE) AS wait_mean_ms"""
_WAIT_COLS = """requests, read_requests, unread_requests, read_bytes,
  _p[0] AS wait_p50_ms, _p[1] AS wait_p99_ms, wait_max_ms, wait_mean_ms"""
_REQUEST_WAITS = f"""SELECT connection, {_WAIT_COLS}
FROM (SELECT CAST(connection AS INT) AS connection, {_WAIT_AGGS} FROM {_WAITS}
      GROUP BY connection)"""
_WAIT_SUMMARY = f"""SELECT connections, {_WAIT_COLS}
FROM (SELECT count(DISTINCT connection) AS connections, {_WAIT_AGGS} FROM {_WAITS})"""
_LARGE = f"""SELECT large, {_WAIT_COLS}
FROM (SELECT size_bytes >= {{large_bytes}} AS large, {_WAIT_AGGS} FROM {_WAITS}
      GROUP BY size_bytes >= {{large_bytes}})"""
_ALL_WAITS = f"""SELECT {_WAIT_COLS} FROM (SELECT {_WAIT_AGGS} FROM {_WAITS})"""
# x = 1 / (mean wait + tick_ms) per connection; J = (sum x)^2 / (n sum x^2)
_FAIRNESS = """SELECT count(x) AS fair_connections, {jain}
FROM (SELECT 1.0D / (avg(wait) + {tick_ms}) AS x
      FROM (SELECT connection, {wait} AS wait FROM {{requests}})
      GROUP BY connection)"""


def pool_memory_curve(ticks_df: DataFrame, window_ms: int, *,
                      tick_ms: int | None = None) -> DataFrame:
    """The broker's pool memory per window of ``window_ms`` (window = time_ms // window_ms).

    pool_used_max_bytes / pool_used_mean_bytes: bytes of requests read and not yet released
    (``MemoryPoolUsed``, or the heap they hold without a pool); pool_available_min_bytes: the
    lowest ``MemoryPoolAvailable`` (negative after a non-strict overdraft, 2**63 - 1 without a
    pool); depleted_ticks / depleted_share: ticks, and their share 0.0 to 1.0, in which the pool
    was out of memory (available <= 0): the depleted-time percent of
    ``MemoryPoolAvgDepletedPercent`` on the tick grid; muted_max: most channels muted for memory
    at once; queue_max: most requests waiting for a handler; bytes_read_per_s over
    ``ticks * tick_ms`` when ``tick_ms`` is given (exact for a partial last window), else over
    ``window_ms``. Columns: see POOL_MEMORY.
    """
    sql.require_columns(ticks_df.columns, TICKS_INPUT, "ticks")
    query = _POOL_MEMORY.format(**sql.window_args(window_ms, tick_ms))
    return sql.run_sql(ticks_df, query, ticks=ticks_df)


def request_waits(requests_df: DataFrame) -> DataFrame:
    """Per connection, how long its requests waited to be read (``read_ms - arrival_ms``).

    requests sent, read_requests and unread_requests (never read in the run), read_bytes (bytes
    of the read ones), and over the read requests the exact p50 and p99 (linear interpolation,
    as numpy), max and mean wait in ms (NaN when none was read). Columns: see REQUEST_WAITS;
    :func:`wait_summary` gives the same over all requests.
    """
    sql.require_columns(requests_df.columns, REQUESTS_INPUT, "requests")
    return sql.run_sql(requests_df, _REQUEST_WAITS.format(requests="{requests}"),
                       requests=requests_df)


def wait_summary(requests_df: DataFrame) -> DataFrame:
    """One row: the waits of :func:`request_waits` over all requests of all connections, and
    the number of connections that sent any. Columns: see WAIT_SUMMARY.
    """
    sql.require_columns(requests_df.columns, REQUESTS_INPUT, "requests")
    return sql.run_sql(requests_df, _WAIT_SUMMARY.format(requests="{requests}"),
                       requests=requests_df)


def _fairness_query(tick_ms: int, end_ms: int | None) -> str:
    wait = "IF(read_ms >= 0, read_ms - arrival_ms, {})".format(
        "NULL" if end_ms is None else f"greatest({int(end_ms)} - arrival_ms, 0)")
    return _FAIRNESS.format(tick_ms=int(tick_ms), wait=wait, jain=sql.JAIN_INDEX)


def wait_fairness(requests_df: DataFrame, *, tick_ms: int = 1,
                  end_ms: int | None = None) -> DataFrame:
    """One row: Jain's index of how evenly the connections were served by the network thread.

    x_i = 1 / (mean wait_i + ``tick_ms``), connection i's service rate (the time until a request
    is read, counted to the end of the tick that reads it, so a wait of 0 stays finite);
    jain_index = (sum x)^2 / (n * sum x^2): 1.0 when every connection waits alike, 1/n when one
    is served and the rest wait forever. Without ``end_ms``, only read requests count and a
    connection with none read is left out; with it, an unread request counts as having waited
    until ``end_ms`` (a lower bound), so starved connections pull the index down.
    fair_connections is n; jain_index is null (NaN) when n = 0. Columns: see WAIT_FAIRNESS.

    A few starved connections lower the index only by about their share: read it beside the
    per-connection p99 of :func:`request_waits`.
    """
    sql.require_columns(requests_df.columns, REQUESTS_INPUT, "requests")
    check_number("tick_ms", tick_ms, 0, strict=True)
    return sql.run_sql(requests_df, _fairness_query(tick_ms, end_ms), requests=requests_df)


def large_request_starvation(requests_df: DataFrame, large_bytes: int) -> DataFrame:
    """The waits of :func:`request_waits` for large (size_bytes >= ``large_bytes``) against
    small requests, one row each (a class with no request has no row).

    A strict pool grants a request only when its whole size is free, so while small requests
    keep the pool busy a large one can wait for ever; a non-strict pool lets it through as soon
    as anything is available. Columns: see LARGE_STARVATION.
    """
    sql.require_columns(requests_df.columns, REQUESTS_INPUT, "requests")
    check_number("large_bytes", large_bytes, 0, strict=True)
    query = _LARGE.format(requests="{requests}", large_bytes=int(large_bytes))
    return sql.run_sql(requests_df, query, requests=requests_df)


@dataclass(frozen=True)
class BrokerCurves:
    """The curves of one broker scenario, collected to pandas and sorted, ready to plot.

    Tables follow this module's POOL_MEMORY (by window), REQUEST_WAITS (by connection),
    WAIT_SUMMARY (one row) and LARGE_STARVATION (small, then large) schemas; wait_jain_index is
    :func:`wait_fairness` with unread requests waiting until the end of the run. The settings
    and bounds come from ``trace.meta``, in bytes: outstanding_bound_bytes is None without a
    pool, per_connection_bound_bytes (one largest request per connection) always holds.
    """

    memory: pd.DataFrame
    waits: pd.DataFrame
    wait_summary: pd.DataFrame
    large_vs_small: pd.DataFrame
    wait_jain_index: float
    large_bytes: int
    queued_max_request_bytes: int
    socket_request_max_bytes: int
    outstanding_bound_bytes: int | None
    per_connection_bound_bytes: int

    @property
    def has_pool(self) -> bool:
        """False when ``queued.max.request.bytes`` <= 0 (no pool, Kafka's default)."""
        return self.queued_max_request_bytes > 0

    @property
    def nonstrict_bound_bytes(self) -> int | None:
        """queued.max.request.bytes + socket.request.max.bytes - 1: what a (non-strict) pool
        can really hand out; None without a pool."""
        if not self.has_pool:
            return None
        return self.queued_max_request_bytes + self.socket_request_max_bytes - 1

    def wait_p99_ms(self, large: bool) -> float:
        """The p99 wait of large (or small) requests in ms; NaN when none of them was made."""
        waits = self.large_vs_small.set_index("large")["wait_p99_ms"]
        return float(waits.get(large, float("nan")))

    @property
    def depleted_share(self) -> float:
        """Share of all ticks (0.0 to 1.0) in which the pool was out of memory (NaN if none)."""
        ticks = int(self.memory["ticks"].sum())
        return float(self.memory["depleted_ticks"].sum()) / ticks if ticks else float("nan")


def broker_curves(spark: SparkSession, trace: Any, *, windows: int = 200,
                  large_bytes: int | None = None) -> BrokerCurves:
    """Pool memory, wait and fairness curves of a broker trace, computed by Spark in one job.

    ``trace`` has pandas tables ``.ticks`` and ``.requests`` and a ``.meta`` dict as in
    ``docs/traces.md`` (a ``BrokerTrace``). Memory is summarised over ``windows`` windows of
    ``ceil(ticks / windows) * tick_ms``; requests of at least ``large_bytes`` (default
    ``meta["large_request_bytes"]`` if present, else 1 MiB) are large. The five results are one
    SQL text (a UNION ALL, analysed and planned once) collected once through Arrow; small inputs
    stay in one Spark task per result, so the job has one stage and no shuffle (grouping sets
    would read the requests once but cost a shuffle: their Expand loses the single partition).
    """
    meta = trace.meta
    sql.require_meta(meta, META_KEYS, windows)
    frames = sql.trace_tables(spark, trace, {"ticks": TICKS_INPUT, "requests": REQUESTS_INPUT},
                          spread=() if len(trace.requests) <= SMALL_ROWS else ("requests",))
    tick_ms, n_ticks = int(meta["tick_ms"]), int(meta["ticks"])
    window_ms = math.ceil(n_ticks / windows) * tick_ms
    large = int(large_bytes if large_bytes is not None
                else meta.get("large_request_bytes") or LARGE_BYTES)
    memory, per_connection, all_waits, large_vs_small, fair_row = sql.collect_parts(spark, [
        (_POOL_MEMORY.format(**sql.window_args(window_ms, tick_ms)), POOL_MEMORY),
        (_REQUEST_WAITS, REQUEST_WAITS),
        (_ALL_WAITS, _WAIT_STATS),
        (_LARGE.format(requests="{requests}", large_bytes=large), LARGE_STARVATION),
        (_fairness_query(tick_ms, n_ticks * tick_ms), WAIT_FAIRNESS),
    ], **frames)
    # count(DISTINCT connection) would need a second pass: the per-connection rows count them
    wait_summary = all_waits.assign(connections=len(per_connection)).astype(WAIT_SUMMARY)
    outstanding = meta["outstanding_bound_bytes"]
    return BrokerCurves(
        memory=memory,
        waits=per_connection,
        wait_summary=wait_summary[list(WAIT_SUMMARY)],
        large_vs_small=large_vs_small,
        wait_jain_index=float(fair_row["jain_index"].iloc[0]) if len(fair_row) else float("nan"),
        large_bytes=large,
        queued_max_request_bytes=int(meta["queued_max_request_bytes"]),
        socket_request_max_bytes=int(meta["socket_request_max_bytes"]),
        outstanding_bound_bytes=None if outstanding is None else int(outstanding),
        per_connection_bound_bytes=int(meta["per_connection_bound_bytes"]),
    )
