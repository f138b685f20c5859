"""KIP-73's planning arithmetic with the replicas ``--throttle`` really counts (one move-time rule).

``kafka-reassign-partitions --execute --throttle T`` (``ReassignPartitionsCommand.
calculateLeaderThrottles``) lists every *current* replica of a moving partition in
``leader.replication.throttled.replicas`` and only the added ones in
``follower.replication.throttled.replicas``. The leader records the bytes of every throttled
partition it sends (``KafkaApis``: ``quotas.leader.record(sizeOfThrottledPartitions(...))``),
so the keep-up fetches of the partition's F in-sync followers are counted against its quota,
though never throttled (``ReplicaManager.shouldLeaderThrottle``: in-sync replicas are exempt,
KAFKA-4313). Producers write IN into the moving partitions, so the followers use F x IN of the
leader's T, the new replica copies IN just to keep up, and the move *nets*

    T - (F + 1) x IN        (the follower's own quota counts the new replica alone: T - IN)

It finishes only when that is above 0. KIP-73's Q&A 1 (``(T - IN)``) is the special case F = 0.
These plain functions are that rule, called by the planner, the scenario's ``meta``, the numba
kernel and the SimPy reference alike; the Q&A 4 and 5 bounds follow. So do the verdicts the
planner, the scenario's ``meta`` and the reference loop print, once: :func:`never_finishes_reason`
(Q&A 1), :func:`clients_lose_reason` (Q&A 4's upper end) and :func:`throttle_verdict` (both, and
an empty workable range, for ``--throttle T``).
"""

from __future__ import annotations

import math

from kipviz.kafka.config.checks import check_int as _check_int
from kipviz.kafka.config.checks import check_number as _check_number

__all__ = [
    "THROTTLED_RATE",
    "catch_up_bytes_per_s",
    "clients_keep_bytes_per_s",
    "clients_lose_reason",
    "in_sync_follower_bytes",
    "max_replica_fetch_response_bytes",
    "move_time_s",
    "never_finishes_reason",
    "resolve_in_sync_followers",
    "scheduled_move_time_s",
    "throttle_bounds",
    "throttle_verdict",
]

THROTTLED_RATE = "leader.replication.throttled.rate / follower.replication.throttled.rate"


def catch_up_bytes_per_s(throttle_bytes_per_s, bytes_in_per_s, in_sync_followers):
    """What the new replica nets under a quota of T that also counts F in-sync followers:
    ``T - (F + 1) x IN`` (<= 0: the lag never shrinks). Plain arithmetic, numba-ready.

    >>> catch_up_bytes_per_s(40e6, 10e6, 2)
    10000000.0
    """
    return throttle_bytes_per_s - (in_sync_followers + 1) * bytes_in_per_s


def clients_keep_bytes_per_s(network_bytes_per_s, bytes_in_per_s, replication_factor,
                             throttle_bytes_per_s=0.0):
    """The bandwidth a broker leaves its clients, ``N - IN/R - T`` (KIP-73 Q&A 4: "the throttle
    must be low enough to allow inbound user traffic (which will not be throttled) assuming all
    leaders have rebalanced ... Here IN/R is the proportion of inbound traffic for these
    leaders"; Kafka has no class for it, it is the admin's sizing rule behind
    ``IN < T < N - IN/R``). ``throttle_bytes_per_s=0`` gives the workable range's upper end
    ``N - IN/R``; T may be a planned throttle or the bytes/s really sent (a number or a numpy
    array). Plain arithmetic, evaluated left to right as every caller did, numba-ready.

    >>> clients_keep_bytes_per_s(125e6, 30e6, 3, 40e6)
    75000000.0
    """
    return network_bytes_per_s - bytes_in_per_s / replication_factor - throttle_bytes_per_s


def in_sync_follower_bytes(in_sync_followers, produced_bytes):
    """Bytes the leader's quota records for F in-sync followers copying ``produced_bytes``
    (each fetches everything produced; counted, never throttled). Numba-ready."""
    return in_sync_followers * produced_bytes


def resolve_in_sync_followers(in_sync_followers: int | None, replication_factor: int) -> int:
    """``None`` -> ``replication_factor - 1`` (what ``--throttle`` sets up: every current
    follower of a moving partition is counted); else checked ``0 <= F <= R - 1``."""
    r = _check_int("replication_factor", replication_factor, 1)
    if in_sync_followers is None:
        return r - 1
    f = _check_int("in_sync_followers", in_sync_followers, 0)
    if f > r - 1:
        raise ValueError(f"in_sync_followers must be <= replication_factor - 1 ({r - 1}; a "
                         f"partition of R replicas has R - 1 followers): {f}")
    return f


def move_time_s(move_ratio: float, log_size_per_broker_bytes: float, brokers: int,
                throttle_bytes_per_s: float, max_bytes_in_per_s: float, *,
                in_sync_followers: int = 0) -> float:
    """``MoveRatio x TotalLogSizePerBroker x #Brokers / (T - (F + 1) x max(BytesIn))``.

    With ``in_sync_followers=0`` this is KIP-73 Q&A 1 as written; pass F = R - 1 for what
    ``--throttle`` really does. ``math.inf`` when the denominator is not above 0 (the move never
    finishes); 0 when there is nothing to move.
    """
    moved = (_check_number("move_ratio", move_ratio, 0)
             * _check_number("log_size_per_broker_bytes", log_size_per_broker_bytes, 0)
             * _check_int("brokers", brokers, 1))
    headroom = catch_up_bytes_per_s(
        _check_number(f"throttle_bytes_per_s ({THROTTLED_RATE})", throttle_bytes_per_s, 0),
        _check_number("max_bytes_in_per_s", max_bytes_in_per_s, 0),
        _check_int("in_sync_followers", in_sync_followers, 0))
    if moved == 0:
        return 0.0
    return moved / headroom if headroom > 0 else math.inf


def scheduled_move_time_s(bytes_to_move: float, schedule: tuple[tuple[float, float], ...]
                          ) -> float:
    """When a lag of ``bytes_to_move`` reaches 0 under net rates changing over time.

    ``schedule``: ``(from_s, net bytes/s)`` pairs, ascending, the first from 0; each net rate
    (from :func:`catch_up_bytes_per_s`; ``inf`` for no limit) holds until the next. A net rate
    <= 0 lets the lag stand or grow. ``math.inf`` if the last rate never brings it to 0.

    >>> scheduled_move_time_s(1e9, ((0, 5e6), (100, 10e6)))  # 0.5 GB in 100 s, then 50 s
    150.0
    """
    lag = float(bytes_to_move)
    if lag <= 0:
        return 0.0
    for i, (start, rate) in enumerate(schedule):
        end = schedule[i + 1][0] if i + 1 < len(schedule) else math.inf
        if rate > 0 and lag <= rate * (end - start):
            return start + (lag / rate if rate < math.inf else 0.0)
        if end < math.inf:
            lag -= rate * (end - start)
    return math.inf


def throttle_bounds(bytes_in_per_s: float, network_bytes_per_s: float,
                    replication_factor: int, *, in_sync_followers: int = 0
                    ) -> tuple[float, float]:
    """The workable throttles ``(F + 1) x IN < T < N - IN/R``; returns both ends.

    ``in_sync_followers=0`` is KIP-73 Q&A 4 as written (``IN < T < N - IN/R``). The lower end
    counts the F in-sync followers the leader's quota records; the upper end is the same with
    or without them (it leaves a broker leading everything room for the unthrottled produce
    traffic IN/R; the followers' keep-up bytes are inside T). ValueError when the range is empty.
    """
    inbound = _check_number("bytes_in_per_s", bytes_in_per_s, 0)
    network = _check_number("network_bytes_per_s", network_bytes_per_s, 0, strict=True)
    r = _check_int("replication_factor", replication_factor, 1)
    f = _check_int("in_sync_followers", in_sync_followers, 0)
    empty = _no_workable_throttle(inbound, network, r, f)
    if empty:
        raise ValueError(empty)
    return (f + 1) * inbound, clients_keep_bytes_per_s(network, inbound, r)


def _no_workable_throttle(inbound: float, network: float, r: int, f: int) -> str:
    """Why ``(F + 1) x IN < T < N - IN/R`` holds for no T (empty when some T is workable)."""
    lower, upper = (f + 1) * inbound, clients_keep_bytes_per_s(network, inbound, r)
    if lower < upper:
        return ""
    low = "IN" if f == 0 else "(F + 1) x IN"
    got = f"IN = {inbound}" if f == 0 else f"(F + 1) x IN = ({f} + 1) x {inbound:g} = {lower:g}"
    return (f"no workable throttle: {low} < T < N - IN/R needs {low} < N - IN/R, "
            f"but {got} and N - IN/R = {network} - {inbound}/{r} = {upper}")


def never_finishes_reason(rate_bytes_per_s: float, bytes_in_per_s: float,
                          in_sync_followers: int = 0) -> str:
    """Why no move ever finishes under a quota of this rate (whole bytes/s, as Kafka's long
    config) counting ``in_sync_followers`` besides the new replica (a leader's quota under
    ``--throttle`` counts R - 1, a follower's none): the new replica nets
    :func:`catch_up_bytes_per_s` <= 0 (Q&A 1). Empty when it nets something.

    >>> never_finishes_reason(40e6, 10e6, 2)
    ''
    >>> never_finishes_reason(30e6, 10e6, 2)  # doctest: +NORMALIZE_WHITESPACE
    'leader.replication.throttled.rate / follower.replication.throttled.rate = 30000000 B/s
     must be above (in_sync_followers + 1) x bytes_in_per_s = (2 + 1) x IN = 3e+07: no move
     ever finishes'
    """
    t, f = math.floor(rate_bytes_per_s), in_sync_followers
    if catch_up_bytes_per_s(t, bytes_in_per_s, f) > 0:
        return ""
    what = ("bytes_in_per_s (IN)" if f == 0
            else f"(in_sync_followers + 1) x bytes_in_per_s = ({f} + 1) x IN")
    return (f"{THROTTLED_RATE} = {t} B/s must be above {what} = {(f + 1) * bytes_in_per_s:g}: "
            "no move ever finishes")


def clients_lose_reason(rate_bytes_per_s: float, bytes_in_per_s: float,
                        network_bytes_per_s: float, replication_factor: int) -> str:
    """Why a throttle (whole bytes/s) starves clients: it is not below ``N - IN/R``, Q&A 4's upper
    end (a broker leading every moving partition has no room left for the produce traffic).
    Empty when it is below."""
    t = math.floor(rate_bytes_per_s)
    upper = clients_keep_bytes_per_s(network_bytes_per_s, bytes_in_per_s, replication_factor)
    if t < upper:
        return ""
    return f"{THROTTLED_RATE} = {t} B/s is not below N - IN/R = {upper:g}: clients lose bandwidth"


def throttle_verdict(throttle_bytes_per_s: float, bytes_in_per_s: float,
                     network_bytes_per_s: float, replication_factor: int, *,
                     in_sync_followers: int = 0) -> str:
    """KIP-73's verdict on ``--throttle T`` (the leader and follower rates alike, the leader's
    quota counting ``in_sync_followers``): empty when T is workable, else the first reason: no
    move ever finishes (:func:`never_finishes_reason`), no throttle is workable at all
    (:func:`throttle_bounds`' empty range), clients lose bandwidth (:func:`clients_lose_reason`).

    >>> throttle_verdict(40e6, 10e6, 125e6, 3, in_sync_followers=2)
    ''
    >>> throttle_verdict(124e6, 10e6, 125e6, 3)  # doctest: +NORMALIZE_WHITESPACE
    'leader.replication.throttled.rate / follower.replication.throttled.rate = 124000000 B/s
     is not below N - IN/R = 1.21667e+08: clients lose bandwidth'
    """
    return (never_finishes_reason(throttle_bytes_per_s, bytes_in_per_s, in_sync_followers)
            or _no_workable_throttle(bytes_in_per_s, network_bytes_per_s, replication_factor,
                                     in_sync_followers)
            or clients_lose_reason(throttle_bytes_per_s, bytes_in_per_s, network_bytes_per_s,
                                   replication_factor))


def max_replica_fetch_response_bytes(leader_quota_bytes_per_s: float, window_total_s: float,
                                     network_bytes_per_s: float, brokers: int) -> float:
    """KIP-73 Q&A 5: ``replica.fetch.response.max.bytes`` should stay below this.

    ``window_total_s * min(leader quota, N / #brokers)``: the first throttled responses from all
    brokers must fit in the quota window, at the leader's quota or the follower's network share.
    """
    quota = _check_number(f"leader_quota_bytes_per_s ({THROTTLED_RATE})",
                          leader_quota_bytes_per_s, 0)
    window = _check_number("window_total_s", window_total_s, 0, strict=True)
    network = _check_number("network_bytes_per_s", network_bytes_per_s, 0, strict=True)
    return window * min(quota, network / _check_int("brokers", brokers, 1))
