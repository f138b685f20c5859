"""The plan a reassignment's trace carries in ``meta``: KIP-73's rule with the followers counted.

The scenario does not call the planner; it applies the same rule of
:mod:`kipviz.kafka.replication.planning` to its own settings: the new replica nets ``min(T_leader -
(F + 1) x IN, T_follower - IN)`` (the leader quota counts the F in-sync followers, the follower
quota the new replica alone), capped by what one fetch per tick can carry, piecewise over the
throttle schedule. A move that did not finish within the run is "not within this run" with the
projected time from that rule, or "never" when the rule says so.

The trace's ``meta`` is typed: :class:`MovePlan` (known before the run) and :class:`MoveOutcome`
make :class:`ReassignmentMeta`. It reads the scenario through :class:`MoveSettings` (what a
``ReassignmentScenario`` has), so it imports nothing from :mod:`kipviz.scenarios.reassignment`,
which imports it: no import cycle.
"""

from __future__ import annotations

import math
from typing import Protocol, TypedDict

from kipviz.kafka.replication.planning import (
    catch_up_bytes_per_s,
    clients_lose_reason,
    max_replica_fetch_response_bytes,
    move_time_s,
    never_finishes_reason,
    scheduled_move_time_s,
)
from kipviz.scenarios.limits import check_trace_bytes

__all__ = ["MoveOutcome", "MovePlan", "MoveSettings", "ReassignmentMeta", "check_schedule",
           "move_meta", "move_outcome", "trace_size_check"]

_TRACE_ROW_BYTES = 64  # eight 8-byte columns per tick
_PARTITION_BYTES = 80  # the partitions table and the kernel's per-partition arrays
_RATE_SLOT_BYTES = 24  # kipviz.kafka.quotas.rate: FIELDS float64 values a window


class MovePlan(TypedDict):
    """A reassignment's settings and plan, known before it runs."""

    mode: str
    seed: int
    tick_ms: int
    ticks: int
    brokers: int
    network_bytes_per_s: float
    bytes_in_per_s: float
    replication_factor: int
    leader_throttle_bytes_per_s: float | None
    follower_throttle_bytes_per_s: float | None
    throttle_bytes_per_s: float
    bytes_to_move: int
    in_sync_followers: int
    throttle_schedule: list[tuple[float, float | None]]
    replica_fetch_max_bytes: int
    replica_fetch_response_max_bytes: int
    window_total_s: float
    window_size_s: float
    catch_up_bytes_per_s: float
    catch_up_schedule: list[tuple[float, float]]
    planned_move_time_s: float
    kip_move_time_s: float
    safe_response_max_bytes: float | None
    finishes: bool
    reason: str


class MoveOutcome(TypedDict):
    """How a reassignment's run ended."""

    completed_ms: int | None
    move_status: str
    projected_move_time_s: float


class ReassignmentMeta(MovePlan, MoveOutcome):
    """``kipviz.scenarios.reassignment.scenario.simulate`` (KIP-73)."""

    first_window_throttled_bytes: int


class MoveSettings(Protocol):
    """The settings of a reassignment the plan reads (a ``ReassignmentScenario`` has them)."""

    @property
    def mode(self) -> str: ...
    @property
    def tick_ms(self) -> int: ...
    @property
    def ticks(self) -> int: ...
    @property
    def brokers(self) -> int: ...
    @property
    def network_bytes_per_s(self) -> float: ...
    @property
    def bytes_in_per_s(self) -> float: ...
    @property
    def replication_factor(self) -> int: ...
    @property
    def leader_throttle_bytes_per_s(self) -> float | None: ...
    @property
    def follower_throttle_bytes_per_s(self) -> float | None: ...
    @property
    def throttle_schedule(self) -> tuple[tuple[float, float | None], ...]: ...
    @property
    def replica_fetch_max_bytes(self) -> int: ...
    @property
    def replica_fetch_response_max_bytes(self) -> int: ...
    @property
    def replication_quota_window_num(self) -> int: ...
    @property
    def replication_quota_window_size_seconds(self) -> float: ...
    @property
    def followers(self) -> int: ...
    @property
    def partition_sizes(self) -> tuple[int, ...]: ...
    @property
    def throttle_bytes_per_s(self) -> float: ...


def check_schedule(schedule: tuple[tuple[float, float | None], ...]) -> None:
    """A throttle schedule's ``from_s`` ascend strictly (ValueError naming the first that does
    not)."""
    last = -1.0
    for i, (at, _) in enumerate(schedule):
        if not at > last:
            raise ValueError(f"throttle_schedule[{i}] from_s must be above the one before "
                             f"({last}): {at}")
        last = at


def trace_size_check(ticks: int, partitions: int, window_num: int = 0) -> None:
    """:func:`kipviz.scenarios.limits.check_trace_bytes` for a reassignment of ``partitions`` over
    ``ticks`` (its per-tick columns, its partitions table and the kernel's per-partition arrays)
    and the samples of its quotas' rates (``window_num`` = ``replication.quota.window.num``: a
    leader and a follower rate, each made in Python and in the kernel, of ``window_num + 1``
    slots; Kafka allows 2**31 - 1), before anything is allocated: above the limit the error
    names what sized it."""
    named: dict[str, object] = {"ticks": ticks, "partitions": partitions}
    if window_num > 1000:
        named["replication_quota_window_num"] = window_num
    check_trace_bytes(ticks * _TRACE_ROW_BYTES + partitions * _PARTITION_BYTES
                      + 4 * (window_num + 1) * _RATE_SLOT_BYTES, named,
                      f"A reassignment of {partitions} partitions x {ticks} ticks")


def _net(s: MoveSettings, leader: float | None, follower: float | None) -> float:
    """What the new replica nets at these rates (None: no throttle), within one fetch a tick."""
    f, inbound = s.followers, s.bytes_in_per_s
    per_tick = min(len(s.partition_sizes) * s.replica_fetch_max_bytes,
                   s.replica_fetch_response_max_bytes,
                   math.floor(s.network_bytes_per_s * s.tick_ms / 1000.0))
    nets = [per_tick * 1000.0 / s.tick_ms - inbound]
    if leader is not None:
        nets.append(catch_up_bytes_per_s(leader, inbound, f))
    if follower is not None:
        nets.append(catch_up_bytes_per_s(follower, inbound, 0))
    return min(nets)


def move_meta(s: MoveSettings, seed: int) -> MovePlan:
    """The settings and the plan of a run (``docs/traces.md``), before it runs."""
    sizes, t = s.partition_sizes, s.throttle_bytes_per_s
    window_total_s = s.replication_quota_window_num * s.replication_quota_window_size_seconds
    moved = sum(sizes)
    steps = [(0.0, _net(s, s.leader_throttle_bytes_per_s, s.follower_throttle_bytes_per_s))]
    steps += [(float(at), _net(s, rate, rate)) for at, rate in s.throttle_schedule]
    if len(steps) > 1 and steps[1][0] == 0.0:
        steps = steps[1:]
    planned = scheduled_move_time_s(moved, tuple(steps))
    meta: MovePlan = {
        "mode": s.mode, "seed": seed, "tick_ms": s.tick_ms, "ticks": s.ticks,
        "brokers": s.brokers, "network_bytes_per_s": s.network_bytes_per_s,
        "bytes_in_per_s": s.bytes_in_per_s, "replication_factor": s.replication_factor,
        "leader_throttle_bytes_per_s": s.leader_throttle_bytes_per_s,
        "follower_throttle_bytes_per_s": s.follower_throttle_bytes_per_s,
        "throttle_bytes_per_s": t, "bytes_to_move": moved,
        "in_sync_followers": s.followers,
        "throttle_schedule": [(float(at), rate) for at, rate in s.throttle_schedule],
        "replica_fetch_max_bytes": s.replica_fetch_max_bytes,
        "replica_fetch_response_max_bytes": s.replica_fetch_response_max_bytes,
        "window_total_s": window_total_s,
        "window_size_s": s.replication_quota_window_size_seconds,
        "catch_up_bytes_per_s": steps[-1][1],
        "catch_up_schedule": steps,
        "planned_move_time_s": planned,
        "kip_move_time_s": (move_time_s(1.0, moved, 1, t, s.bytes_in_per_s)
                            if t < math.inf else 0.0),
        "safe_response_max_bytes": (max_replica_fetch_response_bytes(
            t, window_total_s, s.network_bytes_per_s, s.brokers) if t < math.inf else None),
        "finishes": planned < math.inf,
        "reason": "",
    }
    if planned == math.inf:
        # the quotas in force at the end, each with the followers it counts: the schedule's last
        # rate (both quotas), else the leader's (F in-sync followers) and the follower's (none)
        final = s.throttle_schedule[-1][1] if s.throttle_schedule else None
        quotas = ([(final, s.followers)] if s.throttle_schedule else
                  [(s.leader_throttle_bytes_per_s, s.followers),
                   (s.follower_throttle_bytes_per_s, 0)])
        reasons = [never_finishes_reason(rate, s.bytes_in_per_s, f) for rate, f in quotas
                   if rate is not None and rate < math.inf]
        meta["reason"] = next((r for r in reasons if r), "the network or the fetch sizes leave "
                              "no room above IN: no move ever finishes")
    elif t < math.inf:
        meta["reason"] = clients_lose_reason(t, s.bytes_in_per_s, s.network_bytes_per_s,
                                             s.replication_factor)
    return meta


def move_outcome(meta: MovePlan, completed_ms: int | None) -> MoveOutcome:
    """``completed_ms`` (None: not within the run), ``move_status`` ("finished", "not within
    this run" or "never") and ``projected_move_time_s`` (the simulated time if it finished, else
    the planned one: ``inf`` for never)."""
    if completed_ms is not None:
        status, projected = "finished", completed_ms / 1000.0
    elif meta["planned_move_time_s"] < math.inf:
        status, projected = "not within this run", meta["planned_move_time_s"]
    else:
        status, projected = "never", math.inf
    return {"completed_ms": completed_ms, "move_status": status,
            "projected_move_time_s": projected}
