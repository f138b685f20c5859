"""Spark curves of a KIP-73 throttled reassignment: the quota at work, lag, clients, move time.

From a ``ReassignmentTrace`` (``docs/traces.md``: tables ``ticks`` and ``partitions``, and
``meta``), Spark computes what KIP-73 promises and where the mechanism bends it:

* per quota window (``replication.quota.window.size.seconds``, or several for long runs), the
  rates the leader and follower ``ReplicationQuotaManager`` measured (a ``SimpleRate``) against
  ``leader.``/``follower.replication.throttled.rate``, and the throttled bytes/s actually sent
  ("The Throttle Mechanism": at most the quota in the long run, plus what one response lets
  through before the rate is measured again);
* the replica lag summed over the moving partitions (the KIP proposed it as ``SumReplicaLag``,
  which Kafka never shipped; Kafka has ``ReassignmentBytesInPerSec`` /
  ``ReassignmentBytesOutPerSec``, ``UnderReplicatedPartitions``, ``ReassigningPartitions`` and
  the fetchers' ``ConsumerLag`` / ``MaxLag``) and the client bandwidth left, N - IN/R -
  replication sent (Q&A 4's sizing of a broker's network);
* the move completion time against the planned one, ``bytes / (T - (F + 1) x IN)`` with the F
  in-sync followers the leader's quota counts (:mod:`kipviz.kafka.replication.planning`), and
  against Q&A 1's ``MoveTime = MoveRatio x TotalLogSizePerBroker x #Brokers / (quota -
  max(BytesInPerSec))`` (F = 0), as a whole and partition by partition; a move not done within the
  run is "not within this run" (with its projected time) or "never", as the trace's ``meta`` says;
* the overshoot of the first quota window: nothing is measured before the first responses, so
  "a large cluster could exceed the quota with the first request" (the mechanism is optimistic;
  ``replica.fetch.response.max.bytes`` bounds it).

``reassignment_curves`` is the slider path: one SQL text, one Spark job, small sorted pandas
tables out. The other functions take and return Spark DataFrames (unordered).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pandas as pd

from kipviz.curves import sql
from kipviz.curves.reassignment.sql import (
    CATCH_UP,
    META_KEYS,
    MOVE,
    MOVE_SQL,
    PARTITIONS_INPUT,
    PARTITIONS_MOVE,
    THROTTLE,
    THROTTLE_SQL,
    TICKS_INPUT,
    TICKS_MOVE,
    catch_up_query,
    check_rates,
    partitions_summary_query,
    quota_window_to_ms,
    ticks_summary_query,
)
from kipviz.kafka.replication.planning import clients_keep_bytes_per_s, scheduled_move_time_s
from kipviz.kafka.replication.quota import REPLICATION_QUOTA_WINDOW_SIZE_SECONDS

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

__all__ = [
    "CATCH_UP",
    "MOVE",
    "THROTTLE",
    "ReassignmentCurves",
    "catch_up_curve",
    "move_summary",
    "reassignment_curves",
    "throttle_curve",
]


def throttle_curve(ticks_df: DataFrame, window_ms: int, *, tick_ms: int | None = None) -> DataFrame:
    """The quota at work per window of ``window_ms`` (window = time_ms // window_ms).

    leader/follower_rate_mean and _max: the rate each ``ReplicationQuotaManager`` measured
    (``SimpleRate`` over ``replication.quota.window.num`` windows) at the ticks of the window,
    to read against ``leader.``/``follower.replication.throttled.rate``; throttled_bytes and
    unthrottled_bytes (in-sync moving replicas, KAFKA-4313) sent in the window, and
    throttled_bytes_per_s / sent_bytes_per_s, the rates achieved, over ``ticks * tick_ms`` when
    ``tick_ms`` is given (exact for a partial last window), else over ``window_ms``;
    replica_lag_end_bytes: ``SumReplicaLag`` at the window's last tick (its max beside it);
    moved_end_bytes: bytes appended by then; client_left_min / _mean: the client bandwidth left
    (N - IN/R - bytes sent per second of each tick). Columns: see THROTTLE.
    """
    sql.require_columns(ticks_df.columns, TICKS_INPUT, "ticks")
    return sql.run_sql(ticks_df, THROTTLE_SQL.format(**sql.window_args(window_ms, tick_ms)),
                       ticks=ticks_df)


def catch_up_curve(partitions_df: DataFrame, *, throttle_bytes_per_s: float,
                   bytes_in_per_s: float = 0.0, in_sync_followers: int = 0) -> DataFrame:
    """Per moving partition, when its new replica caught up against when Q&A 1 says it should.

    caught_up_ms as in the trace (-1: never in the run) and caught_up_s (NaN: never);
    caught_up_bytes: bytes of all partitions caught up no later than this one; kip_move_time_s:
    Q&A 1's time to move those bytes at ``throttle_bytes_per_s`` (T, ``math.inf`` if unlimited)
    with ``bytes_in_per_s`` (IN) arriving, caught_up_bytes / (T - IN): infinite when T <= IN;
    planned_move_time_s: the same with the ``in_sync_followers`` F the leader's quota counts,
    caught_up_bytes / (T - (F + 1) x IN). The last partition to catch up has the move time of
    the whole move. Columns: see CATCH_UP.
    """
    sql.require_columns(partitions_df.columns, PARTITIONS_INPUT, "partitions")
    check_rates(throttle_bytes_per_s, bytes_in_per_s)
    query = catch_up_query(throttle_bytes_per_s, bytes_in_per_s, in_sync_followers)
    return sql.run_sql(partitions_df, query, partitions=partitions_df)


def move_summary(ticks_df: DataFrame, partitions_df: DataFrame, *, throttle_bytes_per_s: float,
                 bytes_in_per_s: float = 0.0,
                 quota_window_s: float = REPLICATION_QUOTA_WINDOW_SIZE_SECONDS) -> DataFrame:
    """One row: the move's completion against Q&A 1, and the first window's overshoot.

    partitions, caught_up_partitions, bytes_to_move; completed_s: when the last new replica
    caught up (NaN if one never did in the run); kip_move_time_s: bytes_to_move / (T - IN), as
    :func:`kipviz.kafka.replication.planning.move_time_s` (infinite when T <= IN); moved_bytes and
    replica_lag_end_bytes at the last tick; first_window_throttled_bytes: throttled bytes sent
    in the first quota window of ``quota_window_s`` against first_window_quota_bytes = T x
    window, their ratio first_window_overshoot (> 1: the optimistic first responses went over
    the quota); client_left_moving_mean / _min: client bandwidth left over the ticks that ended
    with SumReplicaLag > 0 (NaN if none). Columns: see MOVE.
    """
    sql.require_columns(ticks_df.columns, TICKS_INPUT, "ticks")
    sql.require_columns(partitions_df.columns, PARTITIONS_INPUT, "partitions")
    check_rates(throttle_bytes_per_s, bytes_in_per_s)
    query = MOVE_SQL.format(
        columns=", ".join(MOVE),
        partitions_summary=partitions_summary_query(throttle_bytes_per_s, bytes_in_per_s),
        ticks_summary=ticks_summary_query(quota_window_to_ms(quota_window_s),
                                           throttle_bytes_per_s),
    )
    return sql.run_sql(ticks_df, query, ticks=ticks_df, partitions=partitions_df)


@dataclass(frozen=True)
class ReassignmentCurves:
    """The curves of one reassignment, collected to pandas and sorted, ready to plot.

    Tables follow this module's THROTTLE (by window of ``window_ms``, a whole number of quota
    windows of ``quota_window_ms``), CATCH_UP (by partition) and MOVE (one row) schemas. The
    settings come from ``trace.meta``: the leader and follower quotas (None = unlimited), the
    binding throttle T (``inf`` if both are unlimited), IN, and ``planned_client_bytes_per_s``
    = N - IN/R - T, the client bandwidth Q&A 4 leaves when replication runs at T (None if T is
    unlimited); from the trace's plan: ``in_sync_followers`` counted, ``planned_move_time_s``
    (``bytes / (T - (F + 1) x IN)``, over the throttle schedule if any), ``move_status``
    ("finished", "not within this run" or "never") and ``projected_move_time_s``.
    """

    windows: pd.DataFrame
    catch_up: pd.DataFrame
    move: pd.DataFrame
    window_ms: int
    quota_window_ms: int
    leader_quota_bytes_per_s: float | None
    follower_quota_bytes_per_s: float | None
    throttle_bytes_per_s: float
    bytes_in_per_s: float
    planned_client_bytes_per_s: float | None
    in_sync_followers: int = 0
    planned_move_time_s: float = math.nan
    move_status: str = ""
    projected_move_time_s: float = math.nan

    def _move(self, column: str) -> float:
        return float(self.move[column].iloc[0]) if len(self.move) else math.nan

    @property
    def completed_s(self) -> float:
        """When the simulated move completed, in s (NaN if it did not within the run)."""
        return self._move("completed_s")

    @property
    def kip_move_time_s(self) -> float:
        """KIP-73 Q&A 1's move time as written (no follower counted), in s (``inf`` when
        T <= IN)."""
        return self._move("kip_move_time_s")

    @property
    def move_text(self) -> str:
        """The outcome in words: "finished in 96.7 s", "not within this run (projected 210 s)",
        "never (T <= (F + 1) x IN)" while the lag does not fall, or, at the edge where the rule
        says never but the quota's optimism lets the lag creep down, what the run showed."""
        if self.finished:
            return f"finished in {self.completed_s:.1f} s"
        if self.move_status == "never":
            rule = f"T <= {self.in_sync_followers + 1} x IN"
            lag = self.windows["replica_lag_end_bytes"].to_numpy()
            if len(lag) > 1 and lag[-1] < lag[0]:
                return f"not within this run ({rule}: the lag only creeps down)"
            return f"never ({rule})"
        return f"not within this run (projected {self.projected_move_time_s:.0f} s)"

    @property
    def finished(self) -> bool:
        """Every moving partition caught up within the run."""
        return not math.isnan(self.completed_s)

    @property
    def first_window_overshoot(self) -> float:
        """Throttled bytes of the first quota window over T x window (> 1: over the quota)."""
        return self._move("first_window_overshoot")


def reassignment_curves(spark: SparkSession, trace: Any, *, windows: int = 200,
                        quota_window_s: float | None = None) -> ReassignmentCurves:
    """Throttle, lag, client bandwidth and move-time curves of a reassignment, in one Spark job.

    ``trace`` has pandas tables ``.ticks`` and ``.partitions`` and a ``.meta`` dict as in
    ``docs/traces.md`` (a ``ReassignmentTrace``); only the documented columns are read. Windows
    are quota windows of ``quota_window_s`` (``replication.quota.window.size.seconds``; by
    default ``meta["window_size_s"]`` if the trace records it, else Kafka's default 1 s),
    grouped by the fewest whole quota windows that keep the run within ``windows`` windows.
    The four results are one SQL text (a UNION ALL) collected once through Arrow; each input
    stays in one Spark task, so there is no shuffle.
    """
    meta = trace.meta
    sql.require_meta(meta, META_KEYS, windows)
    if quota_window_s is None:
        quota_window_s = meta.get("window_size_s") or REPLICATION_QUOTA_WINDOW_SIZE_SECONDS
    quota_window_ms = quota_window_to_ms(quota_window_s)
    frames = sql.trace_tables(spark, trace, {"ticks": TICKS_INPUT, "partitions": PARTITIONS_INPUT})
    tick_ms, n_ticks = int(meta["tick_ms"]), int(meta["ticks"])
    window_ms = quota_window_ms * max(1, math.ceil(n_ticks * tick_ms / (windows * quota_window_ms)))
    t, inbound = float(meta["throttle_bytes_per_s"]), float(meta["bytes_in_per_s"])
    check_rates(t, inbound)
    throttle, catch_up, partitions_move, ticks_move = sql.collect_parts(spark, [
        (THROTTLE_SQL.format(**sql.window_args(window_ms, tick_ms)), THROTTLE),
        (catch_up_query(t, inbound, int(meta.get("in_sync_followers", 0))), CATCH_UP),
        (partitions_summary_query(t, inbound), PARTITIONS_MOVE),
        (ticks_summary_query(quota_window_ms, t), TICKS_MOVE),
    ], **frames)
    move = pd.concat([partitions_move, ticks_move], axis=1)

    def rate(key: str) -> float | None:
        return None if meta[key] is None else float(meta[key])

    network, r = float(meta["network_bytes_per_s"]), int(meta["replication_factor"])
    if meta.get("throttle_schedule"):  # the planned line follows the schedule's net rates
        steps = tuple(tuple(step) for step in meta["catch_up_schedule"])
        catch_up["planned_move_time_s"] = [
            scheduled_move_time_s(b, steps) if b == b else math.nan  # NaN: never caught up
            for b in catch_up["caught_up_bytes"]]
    return ReassignmentCurves(
        windows=throttle,
        catch_up=catch_up,
        move=move[list(MOVE)],
        window_ms=window_ms,
        quota_window_ms=quota_window_ms,
        leader_quota_bytes_per_s=rate("leader_throttle_bytes_per_s"),
        follower_quota_bytes_per_s=rate("follower_throttle_bytes_per_s"),
        throttle_bytes_per_s=t,
        bytes_in_per_s=inbound,
        planned_client_bytes_per_s=None if t == math.inf
        else clients_keep_bytes_per_s(network, inbound, r, t),
        in_sync_followers=int(meta.get("in_sync_followers", 0)),
        planned_move_time_s=float(meta.get("planned_move_time_s", math.nan)),
        move_status=str(meta.get("move_status", "")),
        projected_move_time_s=float(meta.get("projected_move_time_s", math.nan)),
    )
