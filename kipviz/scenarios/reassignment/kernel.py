"""The loop of :mod:`kipviz.scenarios.reassignment`: a reassignment across a cluster, tick by tick.

numba compiles these functions for the dashboards (:func:`compiled_kernel`); run as they are,
they are the plain-Python path (``simulate(..., compiled=False)``) the benchmark compares
against. The blocks are :mod:`kipviz.scenarios.reassignment.columns`'s.

Each broker has a leader and a follower quota: a rate's state arrays run by
:mod:`kipviz.kafka.quotas.rate`'s functions, the ones
:class:`kipviz.kafka.replication.quota.ReplicationQuotaManager` runs, measured exactly where it
would be (``should_throttle`` short-circuits; measuring twice at one instant with nothing recorded
between changes nothing, so each quota is measured once per fetch, when the first throttled
out-of-sync partition would measure it). A tick:

1. the throttle schedule's changes that are due set every broker's two rates;
2. producers extend each partition by IN_p; each leader's quota records its in-sync followers'
   keep-up (``in_sync_follower_bytes``: counted, never throttled, KAFKA-4313) when it counts any;
3. the fetches, by one of two sharing paths. ``fair_share`` (the cluster scenario in
   ``mode="quota"``): binding quotas are shared max-min fair, the pinned rule of the planner
   (Kafka's gate leaves that split to fetch timing; a binding broker moves T whatever the split, so
   the move time stays T's) (:func:`kipviz.scenarios.reassignment.share.share_tick`: in-sync
   replicas first, then each quota's windowed allowance split by
   :func:`kipviz.kafka.replication.flow.fill_into`). Else Kafka's gate as it is (:func:`gate_tick`;
   the one-pair ``ReassignmentScenario``, whose results it keeps, and ``mode="delay"``): the
   fetchers, one per (destination, source) pair, take turns starting from a seeded pseudo-random
   one each tick (:func:`next_order`: Kafka's fetcher threads race; a fixed rotation would alias
   with a quota's on/off period and starve one fetcher), each within its broker's network left this
   tick (out at the source, in at the destination): the follower leaves its throttled out-of-sync
   partitions out while *its* quota is exceeded (``RemoteLeaderEndPoint.buildFetch``); the leader
   walks the request, rotated by one each tick, and returns them empty while *its* quota is
   exceeded (``ReplicaManager.readFromLog`` / ``shouldLeaderThrottle``), else up to
   ``replica.fetch.max.bytes`` each within ``replica.fetch.response.max.bytes``; it records the
   listed partitions' bytes (``KafkaApis``), the follower appends and records them
   (``ReplicaFetcherThread``); a replica whose log reaches the leader's end joins the ISR
   (``Partition.maybeExpandIsr``), and when a partition's last new replica does, its move completes
   (removed replicas leave; a removed leader hands over);
4. a monitor measures every broker's two rates (one row per ``sample_ticks``).

``mode="delay"`` (KIP-73's rejected design): nothing is left out; the leader holds a response for
its quota's throttle time and the follower waits out its own before fetching again.
"""

from __future__ import annotations

import math
from typing import Any

from kipviz.kafka.quotas.rate import (
    UNLIMITED,
    new_rate,
    quota_exceeded,
    quota_throttle_time_ms,
    rate_measure,
    rate_record,
)
from kipviz.kafka.replication.flow import fill_into
from kipviz.kafka.replication.planning import in_sync_follower_bytes
from kipviz.scenarios.jit import compiled_functions, jit_functions
from kipviz.scenarios.reassignment import isr, share
from kipviz.scenarios.reassignment.isr import answer, complete, join_isr
from kipviz.scenarios.reassignment.share import share_tick

__all__ = ["FOLLOWER_QUOTA_ZERO", "LEADER_QUOTA_ZERO", "OK", "UNLIMITED", "compiled_kernel",
           "gate_tick", "next_order", "order_start", "run", "set_up"]

OK, LEADER_QUOTA_ZERO, FOLLOWER_QUOTA_ZERO = range(3)  # kernel status


def next_order(state):
    """The fetchers' order generator: a 31-bit linear congruential step (the same in Python,
    numba and the SimPy reference)."""
    return (state * 1103515245 + 12345) % 2147483648


def order_start(state, n):
    """The fetcher that goes first this tick, of ``n`` (0 with none)."""
    return (state >> 16) % n if n > 0 else 0


def set_up(cfg, inp, st, res):
    """The state at t = 0: empty rates, every move started; replicas of empty idle partitions
    join the ISR at once and partitions with no new replica complete. Returns the moves done."""
    for b in range(inp.leader_bounds.shape[0]):
        slots, pos = new_rate(cfg.samples, False)
        st.leader_slots[b, :] = slots
        st.leader_pos[b, :] = pos
        st.follower_slots[b, :] = slots
        st.follower_pos[b, :] = pos
        st.leader_bound[b] = inp.leader_bounds[b]
        st.follower_bound[b] = inp.follower_bounds[b]
    for p in range(inp.sizes.shape[0]):
        st.current_leader[p] = inp.leader[p]
        st.current_followers[p] = inp.followers[p]
        st.keep_count[inp.leader[p]] += inp.followers[p]
        st.left[p] = inp.partition_start[p + 1] - inp.partition_start[p]
        res.completed_ms[p] = -1
    for r in range(inp.replica_partition.shape[0]):
        s = inp.replica_slot[r]
        f = inp.slot_fetcher[s]
        p = inp.replica_partition[r]
        res.caught_up_ms[r] = -1
        st.slot_of[r] = s
        st.active[s] = True
        st.n_active[f] += 1
        st.n_out[f] += 1
        if inp.sizes[p] > 0:
            st.out_sized[f] += 1
        st.due[inp.replica_dest[r]] += inp.sizes[p]
    done = 0
    for r in range(inp.replica_partition.shape[0]):
        if inp.start_in_sync[r] and join_isr(inp, st, res, inp.replica_slot[r], 0):
            complete(inp, st, res, inp.replica_partition[r], 0)
            done += 1
    for p in range(inp.sizes.shape[0]):
        if inp.partition_start[p + 1] == inp.partition_start[p]:
            complete(inp, st, res, p, 0)
            done += 1
    return done


def gate_tick(cfg, inp, st, cols, res, k, now, row, first, end_ms):
    """Tick ``k``'s fetches by Kafka's gate (see the module), fetchers from ``first``: the moves
    it completed, or ``-1 - status`` when a delay would divide by a zero quota."""
    tick_ms, window_ms, delay_mode = cfg.tick_ms, cfg.window_ms, cfg.delay_mode
    n_fetchers = inp.fetcher_dest.shape[0]
    ls, lp, fs, fp = st.leader_slots, st.leader_pos, st.follower_slots, st.follower_pos
    done = 0
    for j in range(n_fetchers):
        f = first + j if first + j < n_fetchers else first + j - n_fetchers
        src = inp.fetcher_source[f]
        dst = inp.fetcher_dest[f]
        if not st.pending[f] and now >= st.next_request_ms[f] and st.n_active[f] > 0:
            out_lagging = st.out_sized[f] > 0
            if not out_lagging and st.n_out[f] > 0:
                # an out-of-sync replica lags unless it never got bytes and its log is empty
                for s in range(inp.fetcher_start[f], inp.fetcher_start[f + 1]):
                    r = inp.slot_replica[s]
                    if st.active[s] and not st.in_sync[r] \
                            and st.grown[inp.replica_partition[r]] > 0:
                        out_lagging = True
                        break
            skip_out = out_lagging and quota_exceeded(fs[dst], fp[dst], window_ms,
                                                      st.follower_bound[dst], now)
            if (not delay_mode and out_lagging and not skip_out
                    and quota_exceeded(ls[src], lp[src], window_ms, st.leader_bound[src],
                                       now)):
                skip_out = True  # the leader returns out-of-sync partitions empty
            budget = min(cfg.response_max, st.egress_left[src], st.ingress_left[dst])
            m = inp.fetcher_start[f + 1] - inp.fetcher_start[f]
            throttled, unthrottled, listed = answer(inp, st, f, k % m, skip_out,
                                                    cfg.fetch_max, budget)
            st.egress_left[src] -= throttled + unthrottled
            st.ingress_left[dst] -= throttled + unthrottled
            cols.throttled_bytes[row, src] += throttled
            cols.unthrottled_bytes[row, src] += unthrottled
            rate_record(ls[src], lp[src], window_ms, listed, now)
            delay = 0
            if delay_mode and quota_exceeded(ls[src], lp[src], window_ms,
                                             st.leader_bound[src], now):
                if st.leader_bound[src] <= 0.0:
                    return -1 - LEADER_QUOTA_ZERO
                delay = min(quota_throttle_time_ms(ls[src], lp[src], window_ms,
                                                   st.leader_bound[src], now, True), end_ms)
            st.pending[f] = True
            st.deliver_ms[f] = now + delay
        if st.pending[f] and st.deliver_ms[f] <= now:
            appended = 0
            off = inp.fetcher_start[f]
            for q in range(st.resp_n[f]):
                s = st.resp_slot[off + q]
                b = st.resp_bytes[off + q]
                r = inp.slot_replica[s]
                p = inp.replica_partition[r]
                st.fetched[r] += b
                appended += b
                if st.slot_of[r] >= 0:
                    st.got[dst] += b
                if (not st.in_sync[r] and st.fetched[r] >= inp.sizes[p] + st.grown[p]
                        and join_isr(inp, st, res, s, now)):
                    complete(inp, st, res, p, now)
                    done += 1
            rate_record(fs[dst], fp[dst], window_ms, appended, now)
            cols.received_bytes[row, dst] += appended
            st.moved[dst] += appended
            st.next_request_ms[f] = now + tick_ms
            if delay_mode and quota_exceeded(fs[dst], fp[dst], window_ms,
                                             st.follower_bound[dst], now):
                if st.follower_bound[dst] <= 0.0:
                    return -1 - FOLLOWER_QUOTA_ZERO
                st.next_request_ms[f] += min(quota_throttle_time_ms(
                    fs[dst], fp[dst], window_ms, st.follower_bound[dst], now, True), end_ms)
            st.pending[f] = False
    return done


def run(cfg, inp, st, cols, res):
    """The tick loop of ``simulate`` (see the module): fills ``cols`` and ``res``; a status."""
    tick_ms, window_ms = cfg.tick_ms, cfg.window_ms
    n_brokers = inp.leader_bounds.shape[0]
    n_partitions = inp.sizes.shape[0]
    n_fetchers = inp.fetcher_dest.shape[0]
    ls, lp, fs, fp = st.leader_slots, st.leader_pos, st.follower_slots, st.follower_pos
    done = set_up(cfg, inp, st, res)
    end_ms = cfg.ticks * tick_ms  # delays reaching past the run are cut to it
    step = 0
    order = cfg.order_seed
    res.ticks_run[0] = cfg.ticks
    for k in range(cfg.ticks):
        now = k * tick_ms
        row = k // cfg.sample_ticks
        while step < inp.sched_ms.shape[0] and inp.sched_ms[step] <= now:
            for b in range(n_brokers):
                st.leader_bound[b] = inp.sched_bounds[step]
                st.follower_bound[b] = inp.sched_bounds[step]
            step += 1
        for p in range(n_partitions):
            grown = math.floor(inp.in_per_ms[p] * now)
            d = grown - st.grown[p]
            if d != 0:
                st.grown[p] = grown
                st.keep_bytes[st.current_leader[p]] += in_sync_follower_bytes(
                    st.current_followers[p], d)
                for r in range(inp.partition_start[p], inp.partition_start[p + 1]):
                    if st.slot_of[r] >= 0:
                        st.due[inp.replica_dest[r]] += d
        for b in range(n_brokers):
            if st.keep_count[b] > 0:  # existing ISR followers fetch the new bytes: counted
                rate_record(ls[b], lp[b], window_ms, st.keep_bytes[b], now)
            st.keep_bytes[b] = 0
            st.egress_left[b] = cfg.network_per_tick
            st.ingress_left[b] = cfg.network_per_tick
        order = next_order(order)  # Kafka's fetcher threads race: a seeded first each tick
        first = order_start(order, n_fetchers)
        if cfg.fair_share:  # the pinned split of binding quotas (share.py)
            done += share_tick(cfg, inp, st, cols, res, k, now, row, first)
        else:
            got = gate_tick(cfg, inp, st, cols, res, k, now, row, first, end_ms)
            if got < 0:
                return -1 - got
            done += got
        for b in range(n_brokers):
            cols.leader_rate_bytes_per_s[row, b] = rate_measure(ls[b], lp[b], window_ms, now,
                                                                True)
            cols.follower_rate_bytes_per_s[row, b] = rate_measure(fs[b], fp[b], window_ms, now,
                                                                  True)
            cols.lag_bytes[row, b] = st.due[b] - st.got[b]
            cols.moved_bytes[row, b] = st.moved[b]
        if cfg.stop_when_done and done == n_partitions:
            res.ticks_run[0] = k + 1
            break
    return OK


_INLINED = ("next_order", "order_start", "answer", "join_isr", "complete", "insert_sorted",
            "remove_sorted")
_SHARED = ("insert_sorted", "remove_sorted", "answer", "join_isr", "complete", "share_tick")
_INLINED_RATES = ("rate_reset_slot", "rate_record", "rate_purge", "rate_purged_window_size_ms",
                  "rate_measure", "quota_exceeded")
_FUNCTIONS = ("next_order", "order_start", *_SHARED, "set_up", "gate_tick", "run")


def _compile() -> dict[str, Any]:
    from kipviz.kafka.quotas import rate

    # the per-fetcher helpers take the state blocks, and Kafka's windowed rate is measured and
    # recorded twice per fetcher: inlined, a call passes no arrays and so costs no atomic
    # reference counts (thousands of fetchers a tick on a big plan)
    return jit_functions((*rate.RATE_FUNCTIONS, *_FUNCTIONS),
                         {**vars(rate), **vars(isr), **vars(share), **globals()},
                         foreign={"in_sync_follower_bytes": in_sync_follower_bytes,
                                  "fill_into": fill_into},
                         inline_foreign=True, inline=(*_INLINED, *_INLINED_RATES))


def compiled_kernel(name: str = "run") -> Any:
    """``run`` (or a function it calls, :mod:`kipviz.kafka.quotas.rate`'s included, by name)
    compiled by numba, once per process (:func:`kipviz.scenarios.jit.compiled_functions`: the
    plain functions stay plain)."""
    return compiled_functions(__name__, _compile)[name]
