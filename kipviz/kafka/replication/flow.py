"""When a throttled reassignment finishes: the fluid flow schedule with the pinned sharing rule.

Kafka's replication quota is a gate, not a scheduler: while a broker's measured rate is above its
quota, *all* its out-of-sync throttled replicas wait (``ReplicaManager.shouldLeaderThrottle``,
``RemoteLeaderEndPoint.shouldFollowerThrottle``); otherwise every fetch gets what
``replica.fetch.max.bytes`` and ``replica.fetch.response.max.bytes`` allow. How a binding
broker's quota ends up split between its replicas is then left to fetch timing (replicas with the
same limits get very different rates; which partition happens to finish first, freeing the
keep-up its leader recorded; a leader and a destination both binding, each gate shut while the
other is open). The binding broker moves T whatever the split, so the move time is T's; which
replicas, partitions and non-bottleneck brokers finish when is the split's. The model pins the
split, here and in the cluster simulation (:mod:`kipviz.scenarios.reassignment.share` calls
:func:`fill_into` every tick on what each quota's window still allows), so the two agree within
5% on random plans (``tests/kafka/replication/test_reassignment_cluster.py``):

**max-min fair** (progressive filling) over the out-of-sync new replicas: all rise together
until a limit binds, whose replicas then stop rising; the limits are each broker's leader quota
(minus what it records for in-sync fetches), each destination's follower quota (minus its
caught-up replicas' IN), each broker's network N out and in, ``replica.fetch.response.max.bytes``
per (destination, source) fetcher and ``replica.fetch.max.bytes`` per replica, both per fetch
round. An out-of-sync replica's lag shrinks at its rate minus IN_p. The schedule is a sequence
of phases of constant rates, each ended by a replica catching up (it then fetches IN_p, still
recorded by both quotas while the lists stand), a partition completing (removed replicas stop
fetching; a removed leader hands over, :func:`kipviz.kafka.replication.cluster.leader_after_move`)
or a throttle change. The in-sync followers' keep-up is recorded by the leader's quota but, as
in the simulation, not charged to the network (Q&A 4 counts produce traffic apart: N - IN/R).

:func:`max_min_fair` is the sharing rule; :func:`flow_schedule` the phases, giving the move
time, each partition's and each broker's finish, the broker whose limit held the last replica
longest (the bottleneck), and, when a replica never catches up, which broker stops it and why.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from kipviz.kafka.replication import _phases
from kipviz.kafka.replication.cluster import PartitionMove

__all__ = ["LIMITS", "FlowSchedule", "fill_into", "fill_work", "flow_schedule", "max_min_fair"]

LIMITS = ("leader quota", "follower quota", "network out", "network in", "fetcher response",
          "replica fetch")
"""The limits of the sharing rule, in the order :func:`max_min_fair` takes their groups."""
_EPS = 1e-9


def max_min_fair(groups: np.ndarray, capacities: Sequence[np.ndarray], cap: float
                 ) -> tuple[np.ndarray, np.ndarray]:
    """Progressive filling: rates for n replicas, each a member of one group per limit.

    ``groups``: (limits, n) group ids; ``capacities[k][g]``: what group g of limit k has left
    (``inf``: no limit; <= 0: its members get 0); ``cap``: the per-replica limit. All rates rise
    together; when a group's sum reaches its capacity its members stop rising. Returns the rates
    and, per replica, the limit (index into ``groups``, or ``len(groups)`` for ``cap``) that
    stopped it. The filling runs in :func:`fill_into`, compiled by numba (a 2,000-partition
    plan has thousands of phases, each a filling of a few hundred levels); the cluster kernel
    calls the same function every tick on its own buffers.

    >>> rates, why = max_min_fair(np.array([[0, 0, 1]]), [np.array([30.0, 100.0])], 20.0)
    >>> rates.tolist(), why.tolist()
    ([15.0, 15.0, 20.0], [0, 0, 1])
    """
    offsets = np.cumsum([0] + [len(c) for c in capacities[:-1]])
    gid = np.ascontiguousarray(groups + offsets[:, None], np.int64)  # one numbering for all
    capacity = np.concatenate([np.asarray(c, float) for c in capacities])
    limits, n = gid.shape
    x, why = np.zeros(n), np.zeros(n, np.int64)
    _filler()(gid, n, capacity, capacity.size, float(cap), _EPS, x, why,
              *fill_work(limits, n, capacity.size), True)
    return x, why


def fill_work(limits: int, n: int, size: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`fill_into`'s work buffers for up to ``n`` replicas in ``limits`` limits and
    ``size`` groups (allocated once by a caller that fills every tick)."""
    return (np.zeros(4 * size), np.zeros(3 * size + 1 + limits * n, np.int64),
            np.zeros(2 * size, np.bool_))


def fill_into(gid, n, capacity, size, cap, eps, x, why, work_f, work_i, work_b, fresh):
    """:func:`max_min_fair` on flat group ids, into ``x`` and ``why`` (the first ``n`` of
    them; ``gid[:, :n]``, ``capacity[:size]``; the work buffers of :func:`fill_work`): the free
    replicas share one level, raised each round to the next group (or ``cap``) that fills; a
    filled group's free members stop there, ``why`` the first of their limits that is full.
    Only the groups that can fill before their members reach ``cap`` are watched, a group is
    dropped from the watch once its members all stopped, and each round visits the members of
    the groups it filled alone (a group's members are listed once, by group), not every free
    replica. ``fresh``: list the groups' members; else the caller passes the groups (``gid``,
    ``n``, ``size``) of its last call on the same buffers, whose lists stand (a caller that
    fills every tick with the same replicas; the capacities may change). Plain loops, no
    allocation: numba compiles it."""
    limits = gid.shape[0]
    room, count, used = work_f[:size], work_f[size:2 * size], work_f[2 * size:3 * size]
    members_of = work_f[3 * size:4 * size]  # each group's member count, kept for the next call
    start, filled = work_i[:size + 1], work_i[size + 1:2 * size + 1]
    members, by_group = work_i[2 * size + 1:3 * size + 1], work_i[3 * size + 1:]
    full, seen = work_b[:size], work_b[size:2 * size]  # seen: full groups whose members stopped
    if fresh:
        for g in range(size):
            members_of[g] = 0.0
        for i in range(n):
            for k in range(limits):
                members_of[gid[k, i]] += 1.0
        start[0] = 0  # each group's replicas: by_group[start[g]:start[g + 1]]
        for g in range(size):
            start[g + 1] = start[g] + int(members_of[g])
            filled[g] = start[g]
        for i in range(n):
            for k in range(limits):
                by_group[filled[gid[k, i]]] = i
                filled[gid[k, i]] += 1
    for i in range(n):
        x[i] = 0.0
        why[i] = -1
    watched = 0  # the groups that can fill before their members reach cap: the only ones to watch
    newly = 0  # the groups whose members stop this round: first those full from the start
    for g in range(size):
        c = capacity[g]
        room[g] = eps * max(1.0, c) if c < math.inf else 0.0
        count[g] = members_of[g]
        used[g] = 0.0
        full[g] = c <= eps
        seen[g] = False
        if count[g] > 0.0 and (full[g] or c - cap * count[g] <= room[g]):
            members[watched] = g
            watched += 1
            if full[g]:
                seen[g] = True
                filled[newly] = g
                newly += 1
    level = 0.0
    left = n
    at_cap = False
    while True:
        for j in range(newly):
            g = filled[j]
            for q in range(start[g], start[g + 1]):
                i = by_group[q]
                if why[i] >= 0:
                    continue
                x[i] = level
                for k in range(limits):
                    if full[gid[k, i]]:
                        why[i] = k
                        break
                for k in range(limits):
                    count[gid[k, i]] -= 1.0
                left -= 1
        if at_cap:
            for i in range(n):
                if why[i] < 0:
                    x[i] = level
                    why[i] = limits
                    left -= 1
        if left <= 0:
            break
        step = cap - level
        kept = 0  # a group whose members all stopped matters no more: dropped from the watch
        for j in range(watched):
            g = members[j]
            if count[g] > 0.0:
                members[kept] = g
                kept += 1
                step = min(step, (capacity[g] - used[g]) / count[g])
        watched = kept
        step = max(step, 0.0)
        level += step
        newly = 0
        for j in range(watched):
            g = members[j]
            used[g] += step * count[g]
            full[g] = capacity[g] - used[g] <= room[g]
            if full[g] and not seen[g]:
                seen[g] = True
                filled[newly] = g
                newly += 1
        at_cap = level >= cap * (1 - eps)


@functools.cache
def _filler() -> Callable[..., None]:
    """:func:`fill_into` compiled by numba (cached on disk), once per process."""
    import numba

    return numba.njit(cache=True)(fill_into)


@dataclass(frozen=True)
class FlowSchedule:
    """The planned move: ``move_time_s`` (``inf``: some replica never catches up, ``reason``
    names it, its broker and the limit), ``partition_move_time_s`` per ``"topic-partition"``
    with new replicas, ``replica_catch_up_s`` per (``"topic-partition"``, broker),
    ``broker_move_time_s`` per broker that sends or receives a new replica (when its last such
    partition completes), ``bottleneck_broker`` and ``bottleneck`` (the limit that held the
    last replica longest, in words; None / "" with nothing to move)."""

    move_time_s: float
    partition_move_time_s: dict[str, float]
    replica_catch_up_s: dict[tuple[str, int], float]
    broker_move_time_s: dict[int, float]
    bottleneck_broker: int | None
    bottleneck: str
    reason: str


def _rates_at(t: float, base: Mapping[int, float | None],
              schedule: Sequence[tuple[float, float | None]], brokers: Sequence[int]
              ) -> np.ndarray:
    """Each broker's rate at ``t`` (``inf`` for none): the schedule's last change, else base."""
    changed = [rate for at, rate in schedule if at <= t]
    if changed:
        r = changed[-1]
        return np.full(len(brokers), math.inf if r is None else float(r))
    return np.array([math.inf if base.get(b) is None else float(base[b])  # type: ignore[arg-type]
                     for b in brokers])


def _limit_text(k: int, broker: int, source: int, rate: float) -> str:
    """Limit ``k`` of ``broker`` in words (its rate in MB/s where it has one)."""
    if k == 4:
        return f"broker {broker}'s fetcher from broker {source} (replica.fetch.response.max.bytes)"
    if k == 5:
        return f"replica.fetch.max.bytes per fetch round on broker {broker}"
    return f"broker {broker}'s {LIMITS[k]} ({rate / 1e6:g} MB/s)"


def flow_schedule(moves: Sequence[PartitionMove], *, leader_rates: Mapping[int, float | None],
                  follower_rates: Mapping[int, float | None],
                  network_bytes_per_s: float = 125e6, replica_fetch_max_bytes: int = 1048576,
                  replica_fetch_response_max_bytes: int = 10485760, fetch_round_ms: float = 10,
                  throttle_schedule: Sequence[tuple[float, float | None]] = ()
                  ) -> FlowSchedule:
    """The fluid schedule of ``moves`` (see the module) under per-broker quotas (None:
    unlimited); ``throttle_schedule``: ``(from_s, rate)`` pairs setting both rates on every
    broker from then on; ``fetch_round_ms``: one fetch round trip, over which a replica gets at
    most ``replica.fetch.max.bytes`` and a fetcher ``replica.fetch.response.max.bytes``."""
    brokers = sorted({b for m in moves for b in (*m.sources, *m.targets)})
    at = {b: i for i, b in enumerate(brokers)}
    nb = len(brokers)
    reps = [(p, d) for p, m in enumerate(moves) for d in m.added]
    n = len(reps)
    part = np.array([p for p, _ in reps], np.int64)
    dest = np.array([at[d] for _, d in reps], np.int64)
    inbound = np.array([m.bytes_in_per_s for m in moves], float)
    listed_after = np.array([m.leader_after in m.sources for m in moves], bool)
    lead_idx = np.array([[at[m.leader], at[m.leader_after]] for m in moves], np.int64
                        ).reshape(len(moves), 2)
    keep = np.array([[m.followers, m.followers_after] for m in moves], float
                    ).reshape(len(moves), 2)
    lag = np.array([float(moves[p].size_bytes) for p, _ in reps])
    caught = np.full(n, math.nan)
    done = np.array([not m.added for m in moves], bool)
    finished = np.where(done, 0.0, math.nan)
    left = np.bincount(part, minlength=len(moves))
    held = np.zeros((n, len(LIMITS), nb))  # seconds each limit (of each broker) held a replica
    round_s = fetch_round_ms / 1000.0
    cap = replica_fetch_max_bytes / round_s
    response = replica_fetch_response_max_bytes / round_s
    changes = sorted({float(a) for a, _ in throttle_schedule})
    t, reason, stuck = 0.0, "", None
    _catch_up(lag, caught, t, part, left, finished, done)
    passed = -1  # schedule entries in force when the rates were last built
    phase = _phases.compiled()
    leader = np.zeros(len(moves), np.int64)
    gid = np.zeros((len(LIMITS) - 1, n), np.int64)
    size = 4 * nb + nb * nb
    capacity = np.zeros(size)
    active_at, x, why = np.zeros(n, np.int64), np.zeros(n), np.zeros(n, np.int64)
    owner, net_at, need_at = np.zeros(n, np.int64), np.zeros(n), np.zeros(n)
    work = fill_work(len(LIMITS) - 1, n, size)
    while np.isnan(caught).any():
        if passed != sum(at <= t for at, _ in throttle_schedule):
            passed = sum(at <= t for at, _ in throttle_schedule)
            lead_t = _rates_at(t, leader_rates, throttle_schedule, brokers)
            foll_t = _rates_at(t, follower_rates, throttle_schedule, brokers)
        k = phase["phase_inputs"](done, lead_idx, keep, inbound, caught, part, dest,
                                  listed_after, lead_t, foll_t, float(network_bytes_per_s),
                                  float(response), leader, gid, capacity, active_at)
        _filler()(gid, k, capacity, size, float(cap), _EPS, x, why, *work, True)
        least = phase["phase_needs"](k, x, why, active_at, part, dest, leader, inbound, lag,
                                     _EPS, owner, net_at, need_at)
        step = min(least, *(c - t for c in changes if c > t), math.inf)
        if step == math.inf:
            active, src, dst = active_at[:k], leader[part[active_at[:k]]], dest[active_at[:k]]
            i = int(np.argmin(need_at[:k] < math.inf))
            k, r = int(why[i]), active[i]
            rate = [lead_t, foll_t][k][owner[i]] if k < 2 else (
                network_bytes_per_s if k < 4 else (response if k == 4 else cap))
            m = moves[part[r]]
            stuck = (brokers[owner[i]], k)
            reason = (f"{m.tp} never reaches broker {brokers[dst[i]]}: "
                      f"{_limit_text(k, brokers[owner[i]], brokers[src[i]], rate)} leaves its "
                      f"new replica {x[i] / 1e6:.3g} MB/s, not above its IN of "
                      f"{inbound[part[r]] / 1e6:.3g} MB/s: the move never finishes")
            break
        phase["phase_advance"](k, step, active_at, why, owner, net_at, need_at, lag, held)
        t += step
        _catch_up(lag, caught, t, part, left, finished, done)
    return _result(moves, reps, brokers, caught, finished, held, reason, stuck)


def _catch_up(lag: np.ndarray, caught: np.ndarray, t: float, part: np.ndarray,
              left: np.ndarray, finished: np.ndarray, done: np.ndarray) -> None:
    """Replicas whose lag is 0 join the ISR at ``t``; partitions whose last one did complete."""
    for r in np.flatnonzero(np.isnan(caught) & (lag <= 0)):
        caught[r] = t
        p = part[r]
        left[p] -= 1
        if left[p] == 0:
            finished[p], done[p] = t, True


def _result(moves: Sequence[PartitionMove], reps: list[tuple[int, int]], brokers: list[int],
            caught: np.ndarray, finished: np.ndarray, held: np.ndarray, reason: str,
            stuck: tuple[int, int] | None) -> FlowSchedule:
    moving = [p for p, m in enumerate(moves) if m.added]
    per_partition = {str(moves[p].tp): math.inf if math.isnan(finished[p]) else float(finished[p])
                     for p in moving}
    replicas = {(str(moves[p].tp), d): math.inf if math.isnan(c) else float(c)
                for (p, d), c in zip(reps, caught, strict=True)}
    per_broker: dict[int, float] = {}
    for p in moving:
        m = moves[p]
        for b in (m.leader, *m.added):
            per_broker[b] = max(per_broker.get(b, 0.0), per_partition[str(m.tp)])
    move_time = max(per_partition.values(), default=0.0)
    bottleneck_broker, bottleneck = None, ""
    if stuck is not None:
        bottleneck_broker, bottleneck = stuck[0], f"broker {stuck[0]}'s {LIMITS[stuck[1]]}"
    elif reps:
        last = max(range(len(reps)), key=lambda r: (math.inf if math.isnan(caught[r])
                                                   else caught[r], r))
        k, owner = np.unravel_index(int(np.argmax(held[last])), held[last].shape)
        if held[last].max() > 0:
            bottleneck_broker = brokers[owner]
            bottleneck = f"broker {bottleneck_broker}'s {LIMITS[k]}"
    return FlowSchedule(move_time, per_partition, replicas, dict(sorted(per_broker.items())),
                        bottleneck_broker, bottleneck, reason)
