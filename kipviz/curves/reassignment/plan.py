"""Spark curves of a real plan's cluster run: one lane per broker, and when each broker finishes.

From a ``ClusterReassignmentTrace`` (``docs/traces.md``: the ``brokers`` table, a row per broker
and sample, and ``meta``), Spark computes each broker's lane per window: its fetching new
replicas' lag at the window's end, the rates its leader and follower quotas measured (Kafka's
``SimpleRate``, to read against T) and the bytes per second it sent and received. The move time
per broker comes with the trace: simulated (``meta["broker_move_time_s"]``) and planned by the
flow schedule (``meta["planned_broker_move_time_s"]``, the pinned sharing rule). One SQL text,
one Spark job, one sorted pandas table out.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pandas as pd

from kipviz.curves import sql
from kipviz.kafka.config.checks import check_number

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

__all__ = ["BROKERS_INPUT", "LANES", "PlanCurves", "plan_curves"]

BROKERS_INPUT = ("time_ms", "broker", "leader_rate_bytes_per_s", "follower_rate_bytes_per_s",
                 "throttled_bytes", "unthrottled_bytes", "received_bytes", "lag_bytes")
LANES = {
    "window": "int32", "broker": "int32", "window_end_ms": "int64", "lag_end_bytes": "int64",
    "leader_rate_mean_bytes_per_s": "float64", "follower_rate_mean_bytes_per_s": "float64",
    "sent_bytes_per_s": "float64", "received_bytes_per_s": "float64",
}
_LANES_SQL = """SELECT window, CAST(broker AS INT) AS broker,
  CAST(max(time_ms) AS BIGINT) AS window_end_ms,
  CAST(max_by(lag_bytes, time_ms) AS BIGINT) AS lag_end_bytes,
  CAST(avg(leader_rate_bytes_per_s) AS DOUBLE) AS leader_rate_mean_bytes_per_s,
  CAST(avg(follower_rate_bytes_per_s) AS DOUBLE) AS follower_rate_mean_bytes_per_s,
  sum(throttled_bytes + unthrottled_bytes) * 1000.0D / (count(1) * {sample_ms})
    AS sent_bytes_per_s,
  sum(received_bytes) * 1000.0D / (count(1) * {sample_ms}) AS received_bytes_per_s
FROM (SELECT *, CAST(time_ms div {window_ms} AS INT) AS window FROM {{brokers}})
GROUP BY window, broker"""


@dataclass(frozen=True)
class PlanCurves:
    """A plan's run, ready to plot: ``lanes`` (the ``LANES`` schema, sorted by broker and
    window of ``window_ms``); ``throttle_bytes_per_s`` (T on every broker, None: unlimited);
    per broker that sends or receives a new replica, ``simulated_s`` (None: not within the run)
    and ``planned_s`` (``inf``: never); the move time simulated (None: not within the run) and
    planned, the run's length, the bottleneck and why a move never finishes ("" if it does)."""

    lanes: pd.DataFrame
    window_ms: int
    throttle_bytes_per_s: float | None
    simulated_s: dict[int, float | None]
    planned_s: dict[int, float]
    move_time_s: float | None
    planned_move_time_s: float
    run_s: float
    bottleneck: str
    never_reason: str

    def lane(self, broker: int) -> pd.DataFrame:
        """The windows of one broker's lane, in time order."""
        return self.lanes[self.lanes["broker"] == broker]


def plan_curves(spark: SparkSession, trace: Any, *, sample_ms: int,
                throttle_bytes_per_s: float | None, windows: int = 150) -> PlanCurves:
    """Each broker's lane per window (at most ``windows`` of them, whole samples of
    ``sample_ms``: ``sample_ticks x tick_ms``) in one Spark job, and the per-broker move times of
    ``trace.meta`` (simulated and planned)."""
    meta = trace.meta
    sql.require_meta(meta, ("broker_move_time_s", "planned_broker_move_time_s", "run_s"),
                     windows)
    check_number("sample_ms", sample_ms, 0, strict=True)
    frames = sql.trace_tables(spark, trace, {"brokers": BROKERS_INPUT})
    run_ms = float(meta["run_s"]) * 1000.0
    window_ms = sample_ms * max(1, math.ceil(run_ms / (windows * sample_ms)))
    (lanes,) = sql.collect_parts(spark, [
        (_LANES_SQL.format(window_ms=window_ms, sample_ms=int(sample_ms)), LANES)], **frames)
    planned = meta["planned_broker_move_time_s"] or {}
    simulated = meta["broker_move_time_s"]
    planned_move = meta["planned_move_time_s"]
    return PlanCurves(
        lanes=lanes.sort_values(["broker", "window"], ignore_index=True),
        window_ms=window_ms, throttle_bytes_per_s=throttle_bytes_per_s,
        simulated_s={int(b): t for b, t in simulated.items()},
        planned_s={int(b): float(t) for b, t in planned.items()},
        move_time_s=meta["move_time_s"],
        planned_move_time_s=math.nan if planned_move is None else float(planned_move),
        run_s=float(meta["run_s"]), bottleneck=meta["bottleneck"],
        never_reason=meta["never_reason"])
