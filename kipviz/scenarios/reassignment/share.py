"""One tick of the cluster kernel's fetches with the pinned sharing rule: max-min fair.

Kafka's replication quota is a gate: while a broker's ``SimpleRate`` is above its quota, *all*
its throttled out-of-sync replicas wait (``ReplicaManager.shouldLeaderThrottle``,
``RemoteLeaderEndPoint.shouldFollowerThrottle``); while it is not, every fetch takes what
``replica.fetch.max.bytes`` and ``replica.fetch.response.max.bytes`` allow. Which replicas get a
binding broker's bytes is then left to fetch timing (which fetcher comes first while the gate is
open, which partition happens to finish first), and with a leader and a destination both binding
each gate can shut while the other is open. The model pins the split instead (issue 26), with the
planner's rule (:func:`kipviz.kafka.replication.flow.fill_into`, one implementation): each tick

1. the fetchers (one per destination and source, from the seeded first,
   :func:`kipviz.scenarios.reassignment.kernel.next_order`) take their in-sync replicas' bytes
   first, never throttled (KAFKA-4313), each within ``replica.fetch.max.bytes``, the response's
   ``replica.fetch.response.max.bytes`` and both brokers' network; both quotas record them
   (the leader those it lists, the follower every appended byte);
2. each broker's two quotas give an *allowance*: what the rate can still record now and stay
   acceptable (:func:`kipviz.kafka.quotas.rate.quota_allowance`: T x the window's span
   (``replication.quota.window.num`` x ``window.size``) less what its samples hold; 0 while it is
   exceeded, where Kafka's gate is shut);
3. the out-of-sync replicas that lag share those allowances max-min fair (progressive filling:
   equal shares at each binding broker), each also within ``replica.fetch.max.bytes`` and its
   lag, each fetcher within what is left of its response, each broker within its network left;
   the leader records the bytes it sends, the follower what it appends;
4. replicas that reach the log end join the ISR; a partition whose last new replica did completes
   (removed replicas stop fetching, a removed leader hands over).

The move time at a binding broker is its quota's whatever the split (the broker moves T); what
the pin decides is which replicas, and so which partitions and non-bottleneck brokers, finish
when: Kafka leaves that to fetch timing, the model makes it the planner's.
"""

from __future__ import annotations

import math

from kipviz.kafka.quotas.rate import quota_allowance, rate_record
from kipviz.kafka.replication.flow import fill_into
from kipviz.scenarios.reassignment.isr import answer, complete, join_isr

__all__ = ["EPS", "LIMITS", "share_tick"]

LIMITS = 6  # leader and follower allowance, network out and in, the response, the replica
EPS = 1e-9  # the filling's relative tolerance (kipviz.kafka.replication.flow's)


def share_tick(cfg, inp, st, cols, res, k, now, row, first):
    """Tick ``k``'s fetches (see the module), fetchers from ``first``; the moves it completed."""
    n_brokers = inp.leader_bounds.shape[0]
    n_fetchers = inp.fetcher_dest.shape[0]
    window_ms = cfg.window_ms
    lead, follow = st.lead_bytes, st.follow_bytes
    for b in range(n_brokers):
        lead[b] = 0
        follow[b] = 0
    for j in range(n_fetchers):  # 1. in-sync replicas first, never throttled
        f = first + j if first + j < n_fetchers else first + j - n_fetchers
        src = inp.fetcher_source[f]
        dst = inp.fetcher_dest[f]
        st.resp_left[f] = 0
        if st.n_active[f] == 0:
            continue
        st.resp_left[f] = cfg.response_max  # the network is the filling's own limit
        if st.n_synced[f] == 0:
            continue
        budget = min(cfg.response_max, st.egress_left[src], st.ingress_left[dst])
        m = inp.fetcher_start[f + 1] - inp.fetcher_start[f]
        _, sent, listed = answer(inp, st, f, k % m, True, cfg.fetch_max, budget)
        st.resp_left[f] = cfg.response_max - sent
        st.egress_left[src] -= sent
        st.ingress_left[dst] -= sent
        lead[src] += listed
        follow[dst] += sent
        cols.unthrottled_bytes[row, src] += sent
        cols.received_bytes[row, dst] += sent
        st.moved[dst] += sent
        st.got[dst] += sent
        off = inp.fetcher_start[f]
        for q in range(st.resp_n[f]):
            st.fetched[inp.slot_replica[st.resp_slot[off + q]]] += st.resp_bytes[off + q]
    ls, lp, fs, fp = st.leader_slots, st.leader_pos, st.follower_slots, st.follower_pos
    gid, capacity = st.fill_gid, st.fill_capacity
    for b in range(n_brokers):  # 2. what each quota can still record now
        if lead[b] > 0:
            rate_record(ls[b], lp[b], window_ms, lead[b], now)
        if follow[b] > 0:
            rate_record(fs[b], fp[b], window_ms, follow[b], now)
        lead[b] = 0
        follow[b] = 0
        capacity[b] = quota_allowance(ls[b], lp[b], window_ms, st.leader_bound[b], now)
        capacity[n_brokers + b] = quota_allowance(fs[b], fp[b], window_ms, st.follower_bound[b],
                                                  now)
        capacity[2 * n_brokers + b] = st.egress_left[b]
        capacity[3 * n_brokers + b] = st.ingress_left[b]
    base = 4 * n_brokers
    for f in range(n_fetchers):
        capacity[base + f] = st.resp_left[f]
    own = base + n_fetchers
    n = 0  # 3. the lagging out-of-sync replicas, slot by slot
    fresh = False  # the same replicas as the last filling: its groups' member lists stand
    for f in range(n_fetchers):
        if st.n_out[f] == 0 or st.resp_left[f] <= 0:
            continue
        src = inp.fetcher_source[f]
        dst = inp.fetcher_dest[f]
        for s in range(inp.fetcher_start[f], inp.fetcher_start[f + 1]):
            r = inp.slot_replica[s]
            if not st.active[s] or st.in_sync[r]:
                continue
            p = inp.replica_partition[r]
            lag = inp.sizes[p] + st.grown[p] - st.fetched[r]
            if lag <= 0:
                continue
            if n >= st.fill_n[0] or st.fill_slot[n] != s:  # else its groups are set
                fresh = True
                st.fill_slot[n] = s
                gid[0, n] = src
                gid[1, n] = n_brokers + dst
                gid[2, n] = 2 * n_brokers + src
                gid[3, n] = 3 * n_brokers + dst
                gid[4, n] = base + f
                gid[5, n] = own + n
            # its lag, when below replica.fetch.max.bytes (the filling's cap; a group at the
            # cap would only be watched for nothing: inf)
            capacity[own + n] = lag if lag < cfg.fetch_max else math.inf
            n += 1
    fresh = fresh or n != st.fill_n[0]
    st.fill_n[0] = n
    done = 0
    if n == 0:
        return done
    x, why = st.fill_x, st.fill_why
    fill_into(gid, n, capacity, own + n, float(cfg.fetch_max), EPS, x, why, st.fill_work_f,
              st.fill_work_i, st.fill_work_b, fresh)
    for i in range(n):
        s = st.fill_slot[i]
        r = inp.slot_replica[s]
        p = inp.replica_partition[r]
        lag = inp.sizes[p] + st.grown[p] - st.fetched[r]
        b = min(int(x[i] + 0.5), lag)  # x >= 0 and <= replica.fetch.max.bytes: to a byte
        if b <= 0:
            continue
        f = inp.slot_fetcher[s]
        src = inp.fetcher_source[f]
        dst = inp.fetcher_dest[f]
        st.fetched[r] += b
        if inp.slot_listed[s]:
            lead[src] += b
        follow[dst] += b
        cols.throttled_bytes[row, src] += b
        cols.received_bytes[row, dst] += b
        st.moved[dst] += b
        st.got[dst] += b
    for b in range(n_brokers):
        if lead[b] > 0:
            rate_record(ls[b], lp[b], window_ms, lead[b], now)
        if follow[b] > 0:
            rate_record(fs[b], fp[b], window_ms, follow[b], now)
    for i in range(n):  # 4. ISR joins, completed moves
        s = st.fill_slot[i]
        r = inp.slot_replica[s]
        p = inp.replica_partition[r]
        if st.fetched[r] >= inp.sizes[p] + st.grown[p] and join_isr(inp, st, res, s, now):
            complete(inp, st, res, p, now)
            done += 1
    return done
