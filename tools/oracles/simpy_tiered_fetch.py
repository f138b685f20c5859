"""The tiered-fetch scenario as a SimPy program: the ``kip405_tiered`` benchmark's reference.

The same model as :mod:`kipviz.scenarios.tiered_fetch`, written as a SimPy user would: one
process per consumer (send, wait for the answer, receive it ``rtt_ms`` later, send again); the
``remote.log.reader.threads`` pool as a ``simpy.Resource``; one process per remote read, which
asks the pool for a thread (refused when ``remote.log.reader.max.pending.tasks`` requests
already wait in the resource's queue), gives up if none is free before the
``DelayedRemoteFetch`` expires (``onExpiration`` cancels reads not started; the request stays
queued until granted, then is released at once), reads, and records its bytes in the fetch quota
(``RemoteLogReader``). A fetch with nothing to return waits (``DelayedFetch``) until a local
partition's next batch lands or ``fetch.max.wait.ms`` passes, and then reads its local logs
again. The quota is :class:`kipviz.kafka.tiered.quota.RemoteLogQuota` over
:class:`kipviz.kafka.quotas.rate.SimpleRate` (on lists, the :mod:`kipviz.kafka.quotas.rate`
functions the kernel compiles); the broker's rules are the plain functions of
:mod:`kipviz.kafka.tiered.fetch`. Consumers due at one instant wait for their turn and go lowest id
first, as the kernel takes them. The test suite checks the tables equal the kernel's.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

import numpy as np
import pandas as pd
import simpy

from kipviz.kafka.tiered.fetch import (
    LogRead,
    ReadLimits,
    RequestPartitions,
    charges_remote_fetch_up_front,
    read_from_log,
    reads_several_remote_partitions,
    remote_read_bytes,
)
from kipviz.kafka.tiered.quota import RemoteLogQuota
from kipviz.scenarios.tiered_fetch.scenario import TieredFetchScenario, layout

__all__ = ["simulate_simpy"]


def simulate_simpy(s: TieredFetchScenario) -> dict[str, pd.DataFrame]:
    """Run the scenario; the ``fetches``, ``reads`` and ``deliveries`` tables (the kernel's
    columns, before :mod:`kipviz.scenarios.tiered_fetch` adds its derived ones)."""
    env = simpy.Environment()
    pool = simpy.Resource(env, capacity=s.remote_log_reader_threads)
    quota = None if s.remote_fetch_max_bytes_per_s is None \
        else RemoteLogQuota(s.remote_fetch_max_bytes_per_s)
    order, n_parts, parts = layout(s)
    behind = np.where(parts.remote_at_start, s.backlog_bytes, 0).astype(np.int64)
    avail = np.zeros(len(parts))
    avail_at = np.zeros(len(parts))
    rate_ms = s.produce_bytes_per_s / 1000.0
    wait_ms = float(s.delayed_remote_fetch_wait_ms())
    several = reads_several_remote_partitions(s.kafka_version)
    charge = charges_remote_fetch_up_front(s.kafka_version)
    fetches: list[dict[str, float]] = []  # rows by column name
    reads: list[dict[str, float]] = []
    deliveries: list[dict[str, float]] = []

    def reader(row: dict[str, float], size: int, expiry: float,
               finished: simpy.Event) -> Generator[Any, Any, None]:
        req = pool.request()
        if len(pool.queue) > s.remote_log_reader_max_pending_tasks:  # this one makes one too many
            req.cancel()  # RejectedExecutionException: answered at once with the error
            row["done_ms"] = env.now
            finished.succeed()
            return
        yield req | env.timeout(max(0.0, expiry - env.now))
        if not req.triggered or env.now >= expiry:  # cancelled by the expiry: never started
            if not req.triggered:
                yield req  # a cancelled task stays queued until a thread takes it
            pool.release(req)
            return
        row["started_ms"] = env.now
        row["done_ms"] = env.now + s.remote_read_latency_ms + size / (
            s.remote_read_bytes_per_s / 1000)
        yield env.timeout(row["done_ms"] - env.now)
        if quota is not None:
            quota.record(size, env.now)  # RemoteLogReader, after the read
        pool.release(req)
        finished.succeed()

    due: list[tuple[int, simpy.Event]] = []

    def dispatch() -> Generator[Any, Any, None]:
        yield env.timeout(0)  # after every wake-up already due now
        batch = sorted(due, key=lambda entry: entry[0])
        due.clear()
        for _, gate in batch:
            gate.succeed()

    def turn(c: int) -> simpy.Event:
        """Consumers due at one instant send lowest id first, as the kernel picks them."""
        if not due:
            env.process(dispatch())
        gate = env.event()
        due.append((c, gate))
        return gate

    def consumer(c: int) -> Generator[Any, Any, None]:
        mine = list(order[c, :n_parts[c]])
        while env.now < s.duration_ms:
            yield turn(c)
            t = env.now
            for p in mine:  # produced since the partition was last looked at
                avail[p] += rate_ms * (t - avail_at[p])
                avail_at[p] = t
            throttled = quota is not None and quota.throttle_time_ms(t) > 0
            n = len(mine)
            remote = np.array([behind[p] > 0 for p in mine], dtype=np.bool_)
            log = np.array([(behind[p] % s.segment_bytes or s.segment_bytes) if behind[p] > 0
                            else int(avail[p] // s.batch_bytes) * s.batch_bytes
                            for p in mine], dtype=np.int64)
            raw, rmax = np.zeros(n, np.int64), np.zeros(n, np.int64)
            min_one = np.zeros(n, np.bool_)

            request = RequestPartitions(
                first_batch_bytes=np.full(n, s.batch_bytes, np.int64), log_bytes=log,
                remote=remote, throttled=np.full(n, throttled),
                partition_max_bytes=np.full(n, s.max_partition_fetch_bytes, np.int64))
            limits = ReadLimits(response_max_bytes=s.fetch_max_bytes, several_remote=several,
                                charge_remote=charge)
            read = LogRead(raw_bytes=raw, remote_max_bytes=rmax, remote_min_one=min_one)
            local = read_from_log(request, limits, read)
            fetch_id = len(fetches)
            row_f = {"consumer": c, "sent_ms": t, "answered_ms": 0.0, "local_bytes": local,
                     "remote_bytes": 0, "reads_scheduled": 0, "reads_served": 0,
                     "quota_throttled": float(throttled and remote.any())}
            fetches.append(row_f)
            mine_reads = {}
            for i, p in enumerate(mine):
                avail[p] -= (raw[i] // s.batch_bytes) * s.batch_bytes
                if rmax[i] > 0:
                    size = remote_read_bytes(s.batch_bytes, int(log[i]), int(rmax[i]),
                                             bool(min_one[i]))
                    row = {"fetch": fetch_id, "partition": p, "submitted_ms": t,
                           "started_ms": -1.0, "done_ms": np.inf, "bytes": size,
                           "served": 0.0}
                    reads.append(row)
                    done = env.event()
                    env.process(reader(row, size, t + wait_ms, done))
                    mine_reads[i] = (row, done)
            if mine_reads:
                yield env.all_of([d for _, d in mine_reads.values()]) | env.timeout(wait_ms)
            elif local == 0:  # DelayedFetch: until a local batch lands or fetch.max.wait.ms
                lands = {i: (s.batch_bytes - avail[p] % s.batch_bytes) / rate_ms
                         for i, p in enumerate(mine) if behind[p] <= 0 and rate_ms > 0}
                yield env.timeout(min([float(s.fetch_max_wait_ms), *lands.values()]))
                for i, p in enumerate(mine):  # onComplete reads the local logs again
                    if behind[p] <= 0:
                        whole = (avail[p] // s.batch_bytes + 1) * s.batch_bytes
                        avail[p] += rate_ms * (env.now - avail_at[p])
                        avail_at[p] = env.now
                        if i in lands and t + lands[i] <= env.now:  # landed, whole
                            avail[p] = max(avail[p], whole)
                        log[i] = int(avail[p] // s.batch_bytes) * s.batch_bytes
                local = read_from_log(request, limits, read)  # log holds the new bytes
                row_f["local_bytes"] = local
                for i, p in enumerate(mine):
                    avail[p] -= (raw[i] // s.batch_bytes) * s.batch_bytes
            lag_avail = [avail[p] for p in mine]
            answer = env.now
            got = [int(raw[i]) for i in range(n)]
            for i, (row, _) in mine_reads.items():
                if row["done_ms"] <= answer and row["started_ms"] >= 0:  # not refused
                    row["served"] = 1.0
                    got[i] = int(row["bytes"])
                    row_f["remote_bytes"] += row["bytes"]
                    row_f["reads_served"] += 1
                    p = mine[i]
                    behind[p] = max(0, behind[p]
                                    - (int(row["bytes"]) // s.batch_bytes) * s.batch_bytes)
            row_f["reads_scheduled"] = len(mine_reads)
            for i, p in enumerate(mine):
                if got[i] > 0:  # a row per partition that returned data
                    deliveries.append({"fetch": fetch_id, "partition": p,
                                       "remote": float(remote[i]), "bytes": got[i],
                                       "lag_bytes": int(behind[p] + lag_avail[i])})  # whole
            row_f["answered_ms"] = answer + s.rtt_ms
            yield env.timeout(s.rtt_ms)
            mine = [p for i, p in enumerate(mine) if got[i] == 0] + \
                [p for i, p in enumerate(mine) if got[i] > 0]

    for c in range(s.consumers):
        env.process(consumer(c))
    env.run()
    from kipviz.scenarios.tiered_fetch.columns import DELIVERY_COLUMNS, FETCH_COLUMNS, READ_COLUMNS
    return {"fetches": pd.DataFrame(fetches, columns=list(FETCH_COLUMNS), dtype=np.float64),
            "reads": pd.DataFrame(reads, columns=list(READ_COLUMNS), dtype=np.float64),
            # answered out of send order: the kernel writes them by fetch
            "deliveries": pd.DataFrame(deliveries, columns=list(DELIVERY_COLUMNS),
                                       dtype=np.float64).sort_values(
                "fetch", kind="stable").reset_index(drop=True)}
