"""The per-phase arithmetic of :func:`kipviz.kafka.replication.flow.flow_schedule`, as loops numba
compiles: a 2,000-partition plan has 2,000 phases, and as numpy expressions each phase cost some
forty array calls. The same sums in the same order as those expressions (``np.bincount`` adds
its weights in input order), so the schedule is the same to the last bit.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = ["compiled", "phase_advance", "phase_inputs", "phase_needs"]


def phase_inputs(done, lead_idx, keep, inbound, caught, part, dest, listed_after, lead_t,
                 foll_t, network, response, leader, gid, capacity, active):
    """The filling's input for this phase: each partition's ``leader`` now; per out-of-sync
    replica (``active``, ascending) its groups ``gid`` (leader quota, follower quota, network
    out, network in, fetcher: one numbering); ``capacity`` what each group has left once the
    in-sync followers' keep-up and the caught-up replicas' IN_p are taken. Returns how many are
    active."""
    nb = lead_t.shape[0]
    kept = np.zeros(nb)  # the leader quota: keep-up of the in-sync followers, then the rest
    fixed = np.zeros((5, nb))
    fetcher = np.zeros(nb * nb)
    for m in range(done.shape[0]):
        after = 1 if done[m] else 0
        leader[m] = lead_idx[m, after]
        kept[leader[m]] += keep[m, after] * inbound[m]
    n = 0
    for r in range(caught.shape[0]):
        p = part[r]
        if math.isnan(caught[r]):
            active[n] = r
            n += 1
            continue
        s, d = leader[p], dest[r]
        if s == d:  # it leads now: it fetches nothing
            continue
        flow = inbound[p]
        if not done[p] or listed_after[p]:
            fixed[0, s] += flow
        fixed[1, d] += flow
        fixed[2, s] += flow
        fixed[3, d] += flow
        fetcher[d * nb + s] += flow
    for b in range(nb):
        capacity[b] = lead_t[b] - (kept[b] + fixed[0, b])
        capacity[nb + b] = foll_t[b] - fixed[1, b]
        capacity[2 * nb + b] = network - fixed[2, b]
        capacity[3 * nb + b] = network - fixed[3, b]
    for g in range(nb * nb):
        capacity[4 * nb + g] = response - fetcher[g]
    for i in range(n):
        src, dst = leader[part[active[i]]], dest[active[i]]
        gid[0, i] = src
        gid[1, i] = nb + dst
        gid[2, i] = 2 * nb + src
        gid[3, i] = 3 * nb + dst
        gid[4, i] = 4 * nb + dst * nb + src
    return n


def phase_needs(n, x, why, active, part, dest, leader, inbound, lag, eps, owner, net, need):
    """Per active replica: the broker whose limit stopped it (``owner``), its net gain
    ``x - IN_p`` and the seconds it needs to catch up (``inf`` when not gaining); returns the
    least of those."""
    least = math.inf
    for i in range(n):
        a = active[i]
        src, dst = leader[part[a]], dest[a]
        owner[i] = src if why[i] == 0 or why[i] == 2 else dst
        net[i] = x[i] - inbound[part[a]]
        need[i] = lag[a] / net[i] if net[i] > eps * max(1.0, x[i]) else math.inf
        least = min(least, need[i])
    return least


def phase_advance(n, step, active, why, owner, net, need, lag, held):
    """Run the phase for ``step`` seconds: the limits' held time, the lags (0 for those due)."""
    for i in range(n):
        held[active[i], why[i], owner[i]] += step
    for i in range(n):
        lag[active[i]] -= net[i] * step
    for i in range(n):
        if need[i] <= step * (1 + 1e-12):
            lag[active[i]] = 0.0


@functools.cache
def compiled() -> dict[str, Callable[..., Any]]:
    """The three compiled by numba (cached on disk), once per process."""
    import numba

    return {f.__name__: numba.njit(cache=True)(f)
            for f in (phase_inputs, phase_needs, phase_advance)}
