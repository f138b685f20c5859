"""What a fetch does to the cluster kernel's state: the leader's answer, ISR joins, completed moves.

Plain functions on :mod:`kipviz.scenarios.reassignment.columns`' blocks, called by both sharing
paths of :mod:`kipviz.scenarios.reassignment.kernel` (Kafka's gate and the pinned max-min fair
share of :mod:`kipviz.scenarios.reassignment.share`) and compiled with them.
"""

from __future__ import annotations

__all__ = ["answer", "complete", "insert_sorted", "join_isr", "remove_sorted"]


def insert_sorted(values, n, x):
    """Insert ``x`` into the ascending ``values[:n]`` (``values`` has room for one more)."""
    at = n
    while at > 0 and values[at - 1] > x:
        values[at] = values[at - 1]
        at -= 1
    values[at] = x


def remove_sorted(values, n, x):
    """Remove ``x`` from the ascending ``values[:n]``."""
    at = 0
    while values[at] != x:
        at += 1
    for i in range(at, n - 1):
        values[i] = values[i + 1]


def answer(inp, st, f, start, only_in_sync, fetch_max, budget):
    """Fetcher ``f``'s request, rotated to begin at slot ``start``, answered by its leader: up to
    ``fetch_max`` per lagging partition within ``budget`` (``only_in_sync``: the out-of-sync ones
    are left out or returned empty). Fills the response; returns its throttled and unthrottled
    bytes and those of the partitions the leader lists."""
    off = inp.fetcher_start[f]
    m = inp.fetcher_start[f + 1] - off
    n = m
    first = 0
    if only_in_sync:  # walk the in-sync slots alone, in the same rotated order
        n = st.n_synced[f]
        hi = n  # the first in-sync slot at or after start (a binary search, no array view)
        while first < hi:
            mid = (first + hi) // 2
            if st.synced[off + mid] < start:
                first = mid + 1
            else:
                hi = mid
    resp_n = 0
    throttled = 0
    unthrottled = 0
    listed = 0
    for j in range(n):
        if budget == 0:
            break
        if only_in_sync:
            q = first + j if first + j < n else first + j - n
            s = off + st.synced[off + q]
        else:
            s = off + (start + j if start + j < m else start + j - m)
            if not st.active[s]:
                continue
        r = inp.slot_replica[s]
        p = inp.replica_partition[r]
        b = min(inp.sizes[p] + st.grown[p] - st.fetched[r], fetch_max, budget)
        if b > 0:
            budget -= b
            st.resp_slot[off + resp_n] = s
            st.resp_bytes[off + resp_n] = b
            resp_n += 1
            if st.in_sync[r]:
                unthrottled += b
            else:
                throttled += b
            if inp.slot_listed[s]:
                listed += b
    st.resp_n[f] = resp_n
    return throttled, unthrottled, listed


def join_isr(inp, st, res, s, now):
    """Slot ``s``'s replica joins the ISR at ``now``; whether its partition's move completes."""
    r = inp.slot_replica[s]
    f = inp.slot_fetcher[s]
    p = inp.replica_partition[r]
    off = inp.fetcher_start[f]
    st.in_sync[r] = True
    res.caught_up_ms[r] = now
    st.n_out[f] -= 1
    if inp.sizes[p] > 0:
        st.out_sized[f] -= 1
    insert_sorted(st.synced[off:], st.n_synced[f], s - off)
    st.n_synced[f] += 1
    st.left[p] -= 1
    return st.left[p] == 0


def complete(inp, st, res, p, now):
    """Partition ``p``'s move completes at ``now``: its removed replicas stop fetching (its
    leader's quota counts its new followers), a removed leader hands over, and each new replica
    moves to the fetcher of the new leader (none if it leads)."""
    res.completed_ms[p] = now
    st.keep_count[st.current_leader[p]] -= st.current_followers[p]
    st.current_leader[p] = inp.leader_after[p]
    st.current_followers[p] = inp.followers_after[p]
    st.keep_count[inp.leader_after[p]] += inp.followers_after[p]
    for r in range(inp.partition_start[p], inp.partition_start[p + 1]):
        old = st.slot_of[r]
        new = inp.replica_slot_after[r]
        if new == old:
            continue
        f = inp.slot_fetcher[old]
        st.active[old] = False
        st.n_active[f] -= 1
        off = inp.fetcher_start[f]
        remove_sorted(st.synced[off:], st.n_synced[f], old - off)
        st.n_synced[f] -= 1
        if new >= 0:
            f = inp.slot_fetcher[new]
            off = inp.fetcher_start[f]
            st.active[new] = True
            st.n_active[f] += 1
            insert_sorted(st.synced[off:], st.n_synced[f], new - off)
            st.n_synced[f] += 1
        else:  # it leads: it has the log, it lags no more
            d = inp.replica_dest[r]
            st.due[d] -= inp.sizes[p] + st.grown[p]
            st.got[d] -= st.fetched[r]
        st.slot_of[r] = new
