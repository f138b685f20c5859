"""The share-group scenario written as a SimPy program: the reference for its kernel.

The same model as :mod:`kipviz.scenarios.share_group`, as a SimPy user would write it: a
``simpy.Environment``; a producer process per partition; a lock-timer process per partition
(``AcquisitionLockTimerTask``); a process per share consumer holding its acquired records in a
``deque`` and sending share fetches when it has none left; a process per classic consumer; a
recorder. Kafka's rules are the mechanisms' own functions (:mod:`kipviz.kafka.share.partition`,
:func:`kipviz.kafka.share.fetch.uniform_split_into`,
:func:`kipviz.kafka.fetch.response.fill_raw_bytes`), called on each partition's arrays.

Order of events: one tick is five integer time steps (produce, expire locks, share consumers in
member order, classic consumers, record), so SimPy's clock gives the kernel's order; the random
draws for ``PartitionMaxBytesStrategy`` are taken in the same order. The test suite checks that
the tables come out identical to the kernel's, on every release's rules (``kafka_version``: 4.0's
``PartitionMaxBytes`` without ``MaxRecords``; from 4.2 a ``record_limit`` consumer's one node per
poll, here a ``deque`` of its partitions rotated as ``SubscriptionState.movePartitionToEnd``).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Generator
from typing import Any

import numpy as np
import simpy

from kipviz.kafka.fetch.response import fill_raw_bytes
from kipviz.kafka.share import acquire as sa
from kipviz.kafka.share import partition as spf
from kipviz.kafka.share.fetch import uniform_split_into
from kipviz.scenarios.share_group.scenario import (
    ShareGroupScenario,
    acquire_settings,
    fetch_out_len,
    kernel_inputs,
    max_fetch_records,
    tables,
)
from kipviz.scenarios.share_group.tables import ShareGroupTrace, delivery_rows

__all__ = ["simulate_simpy"]

STEPS = 5
PRODUCE, EXPIRE, SHARE, CLASSIC, RECORD = range(STEPS)


class _Partition:
    """One partition: its log end and its share-partition arrays (``part``)."""

    def __init__(self, capacity: int, batch_last: np.ndarray, log_end: int) -> None:
        self.part = spf.new_share_partition(capacity)
        self.batch_last = batch_last
        self.log_end = log_end
        self.produced = 0.0
        self.classic_pos = 0


def simulate_simpy(s: ShareGroupScenario, *, seed: int = 0) -> ShareGroupTrace:
    """Run the scenario as a SimPy program; the same tables as ``simulate``."""
    env = simpy.Environment()
    inp = kernel_inputs(s, seed)
    assign, stalled = inp["assign"], inp["stalled"]
    draws: Any = iter(inp["draws"].tolist())  # type: ignore[attr-defined]
    c, p, t = s.share_consumers, s.partitions, s.ticks
    parts = [_Partition(s.capacity_records, inp["batch_last"],  # type: ignore[arg-type]
                        s.initial_lag_records) for _ in range(p)]
    acquired, redelivered, acknowledged = (np.zeros((t, c, p), np.int64) for _ in range(3))
    held, processed = np.zeros((t, c), np.int64), np.zeros((t, c), np.int64)
    classic = np.zeros((t, s.classic_consumers), np.int64)
    part = {name: np.zeros((t, p), np.int64) for name in
            ("log_end_offset", "start_offset", "in_flight_records", "archived_records")}
    queues: list[deque[tuple[int, int]]] = [deque() for _ in range(c)]
    batch_bytes = s.batch_records * s.record_bytes
    limit = int(inp["response_max_bytes"])  # type: ignore[call-overload]
    settings = acquire_settings(s)
    most = max_fetch_records(s)
    own = [deque(i for i in range(p) if assign[m, i]) for m in range(c)]  # type: ignore[index]

    def tick() -> int:
        return int(env.now) // STEPS

    def producer(x: _Partition) -> Generator[Any, Any, None]:
        while True:
            x.produced += inp["produce_batches_per_tick"]  # type: ignore[operator]
            while x.produced >= 1.0:
                x.produced -= 1.0
                x.log_end += s.batch_records
            yield env.timeout(STEPS)

    def lock_timer(x: _Partition) -> Generator[Any, Any, None]:
        yield env.timeout(EXPIRE)
        while True:
            spf.expire_locks(x.part, s.delivery_count_limit, tick() * s.tick_ms)
            yield env.timeout(STEPS)

    def fetch(m: int, broker: int, now: int) -> None:
        ready = []
        for i, x in enumerate(parts):
            if assign[m, i] and i % s.brokers == broker:  # type: ignore[index]
                nxt = spf.next_fetch_offset(x.part.sp, x.part.record_state)
                can = nxt != x.part.sp[1] + 1 or \
                    spf.in_flight_records(x.part.sp) < s.record_locks
                if nxt < x.log_end and can:
                    ready.append(i)
        if not ready:
            return
        n = len(ready)
        split = np.full(n, s.partition_max_bytes, np.int64)  # 4.0: PartitionMaxBytes
        if not s.partition_max_bytes:
            rand = next(draws) % n if limit < n or limit % n else 0
            uniform_split_into(limit, n, n, rand, split)
        offsets = [spf.next_fetch_offset(parts[i].part.sp, parts[i].part.record_state)
                   for i in ready]
        bases = [o - o % s.batch_records for o in offsets]
        raw = np.zeros(n, np.int64)
        fill_raw_bytes(np.full(n, batch_bytes, np.int64),
                       np.array([(parts[i].log_end - b) * s.record_bytes
                                 for i, b in zip(ready, bases, strict=True)], np.int64),
                       split, limit, 3, raw)
        got = 0
        out = np.zeros(fetch_out_len(s), np.int64)
        for j, i in enumerate(ready):
            whole = int(raw[j]) // batch_bytes
            if whole == 0:
                continue
            x = parts[i]
            k = sa.acquire(x.part, settings, x.batch_last, m, offsets[j],
                           bases[j] + whole * s.batch_records - 1, most - got,
                           now, out)
            got += k
            for o in out[:k].tolist():
                queues[m].append((i, o))
                acquired[tick(), m, i] += 1
                redelivered[tick(), m, i] += x.part.delivery_count[o] > 1

    def share_consumer(m: int) -> Generator[Any, Any, None]:
        yield env.timeout(SHARE)
        budget = 0.0
        while True:
            queue = queues[m]
            if stalled[m]:  # type: ignore[index]
                kept = [(i, o) for i, o in queue if parts[i].part.owner[o] == m
                        and parts[i].part.record_state[o] == spf.ACQUIRED]
                queue.clear()
                queue.extend(kept)
            else:
                budget += inp["process_per_tick"]  # type: ignore[operator]
                while budget >= 1.0 and queue:
                    i, o = queue.popleft()
                    budget -= 1.0
                    processed[tick(), m] += 1
                    x = parts[i]
                    if spf.acknowledge(x.part, m, o, o, spf.ACCEPT, s.delivery_count_limit) > 0:
                        acknowledged[tick(), m, i] += 1
            if not queue:
                budget = 0.0
                if s.one_node_per_poll and own[m]:  # the first partition's leader; it moves last
                    own[m].rotate(-1)
                    fetch(m, own[m][-1] % s.brokers, tick() * s.tick_ms)
                elif not s.one_node_per_poll:
                    for broker in range(s.brokers):
                        fetch(m, broker, tick() * s.tick_ms)
            held[tick(), m] = len(queue)
            yield env.timeout(STEPS)

    def classic_consumer(k: int) -> Generator[Any, Any, None]:
        yield env.timeout(CLASSIC)
        budget = 0.0
        mine = [x for i, x in enumerate(parts) if inp["classic_owner"][i] == k]  # type: ignore[index]
        while True:
            budget += inp["process_per_tick"]  # type: ignore[operator]
            for x in mine:
                take = min(int(budget), x.log_end - x.classic_pos)
                x.classic_pos += take
                budget -= take
                classic[tick(), k] += take
            if budget >= 1.0:
                budget = 0.0
            yield env.timeout(STEPS)

    def recorder() -> Generator[Any, Any, None]:
        yield env.timeout(RECORD)
        while True:
            for i, x in enumerate(parts):
                part["in_flight_records"][tick(), i] = spf.in_flight_records(x.part.sp)
                part["start_offset"][tick(), i] = x.part.sp[0]
                part["log_end_offset"][tick(), i] = x.log_end
                part["archived_records"][tick(), i] = int(
                    np.sum(x.part.record_state[: x.log_end] == spf.ARCHIVED))
            yield env.timeout(STEPS)

    for x in parts:
        env.process(producer(x))
    for x in parts:
        env.process(lock_timer(x))
    for m in range(c):
        env.process(share_consumer(m))
    for k in range(s.classic_consumers):
        env.process(classic_consumer(k))
    env.process(recorder())
    env.run(until=t * STEPS)
    return tables(s, delivery_rows(acquired, redelivered, acknowledged), held, processed,
                  classic, part, seed=seed)
