"""The KIP-770 Streams scenario written as a SimPy program: the benchmark's reference.

The same model as :mod:`kipviz.scenarios.streams`, written the way a user of SimPy (a general
discrete-event library) would write it: a ``simpy.Environment``; a cluster process that applies
thread count changes (the rebalance) and lets the producers append to every partition; one
process per stream thread (``StreamThread.runOnce``: poll, pause, process, resume); and a
recorder that writes the partitions' rows. The pause and resume decisions call
:mod:`kipviz.kafka.streams.input_buffer`'s rules (``partitions_to_pause``,
``biggest_partitions_to_pause``, ``record_queue_pauses`` and so on, which run the same plain
functions the kernel runs compiled) on the objects' state.

Order of events. The kernel runs each tick as: thread changes, production, then each alive thread
in id order, then the partition rows. Here one tick is ``max threads + 2`` integer time steps
(cluster, thread 0, thread 1, ..., recorder), so SimPy's clock gives the same order.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
import simpy

from kipviz.kafka.streams import input_buffer as streams_buffer
from kipviz.kafka.streams.input_buffer import partition_over_share, pause_over_share, resume_emptied
from kipviz.scenarios.streams.scenario import (
    PARTITIONS,
    THREADS,
    StreamsScenario,
    partition_value_bytes,
)

__all__ = ["simulate_simpy"]


class Partition:
    """One input partition: ``RecordQueue`` (fetched - consumed records) and the broker's log."""

    __slots__ = ("consumed", "end", "fetch_records", "fetched", "index", "paused", "polled",
                 "processed", "size")

    def __init__(self, index: int, size: int, fetch_records: int, lag0: int) -> None:
        self.index, self.size, self.fetch_records = index, size, fetch_records
        self.end, self.fetched, self.consumed = lag0, 0, 0
        self.paused = False
        self.polled = self.processed = 0

    @property
    def queued(self) -> int:
        return self.fetched - self.consumed

    @property
    def buffered_bytes(self) -> int:
        return self.queued * self.size


class StreamsModel:
    """State and processes of one run; :meth:`run` returns the threads and partitions tables."""

    def __init__(self, scenario: StreamsScenario, values: Sequence[int]) -> None:
        s = self.s = scenario
        self.env = simpy.Environment()
        self.steps = s.max_threads + 2
        self.parts = []
        for p, v in enumerate(values):
            size = streams_buffer.record_size_bytes(s.key_bytes, int(v), s.topic_name(p % s.topics))
            fetch = streams_buffer.fetch_bytes(size, s.max_partition_fetch_bytes) // size
            self.parts.append(Partition(p, size, fetch, s.initial_lag_records))
        self.threads = s.threads
        self.owner = [k % s.threads for k in range(s.tasks)]
        self.rr = [0] * s.max_threads
        self.carry = [0.0] * s.max_threads
        self.rows: list[list[int]] = []
        self.part_rows: dict[str, list[Any]] = {k: [] for k in PARTITIONS}

    def tasks_of(self, i: int) -> list[int]:
        return [k for k in range(self.s.tasks) if self.owner[k] == i]

    def task_parts(self, k: int) -> list[Partition]:
        return self.parts[k * self.s.topics:(k + 1) * self.s.topics]

    def until(self, tick: int, step: int) -> simpy.Timeout:
        return self.env.timeout(tick * self.steps + step - self.env.now)

    def cluster(self):
        """Thread count changes (a rebalance moves tasks, dropping their buffers), production."""
        s = self.s
        changes = [(-(-ms // s.tick_ms), n) for ms, n in s.thread_changes]
        rate_per_ms = s.produce_records_per_s / 1000.0
        for t in range(s.ticks):
            yield self.until(t, 0)
            while changes and changes[0][0] == t:
                self.threads = changes.pop(0)[1]
                for k in range(s.tasks):
                    if self.owner[k] != k % self.threads:
                        self.owner[k] = k % self.threads
                        for q in self.task_parts(k):
                            q.fetched, q.paused = q.consumed, False
                self.rr = [0] * s.max_threads
            for q in self.parts:
                q.end = s.initial_lag_records + math.floor(rate_per_ms * (t * s.tick_ms))
                q.polled = q.processed = 0

    def next_partition(self, k: int) -> Partition | None:
        """``PartitionGroup.nextRecord``; None while the task waits on an empty partition."""
        best = None
        for q in self.task_parts(k):
            if q.queued == 0:
                if q.end > q.fetched:
                    return None
            elif best is None or q.consumed < best.consumed:
                best = q
        return best

    def instance_bytes(self) -> int:
        return sum(q.buffered_bytes for q in self.parts)

    def stream_thread(self, i: int):
        """``StreamThread.runOnce`` once a tick while the thread is alive."""
        s = self.s
        policy, n_max = s.policy, s.buffered_records_per_partition
        per_tick = s.process_records_per_s * s.tick_ms / 1000.0
        for t in range(s.ticks):
            yield self.until(t, 1 + i)
            if i >= self.threads:
                continue
            share = streams_buffer.thread_share_bytes(s.input_buffer_max_bytes, self.threads,
                                       bool(s.global_thread))
            tasks = self.tasks_of(i)
            own = [q for k in tasks for q in self.task_parts(k)]
            polled = 0
            for q in own:  # poll
                if not q.paused and q.end > q.fetched:
                    q.polled = min(q.end - q.fetched, q.fetch_records)
                    q.fetched += q.polled
                    polled += q.polled * q.size
            sizes = [q.buffered_bytes for q in own]
            held = sum(sizes)
            if policy == "records_per_partition":
                chosen = [j for j, q in enumerate(own)
                          if streams_buffer.record_queue_pauses(q.queued, n_max)]
            elif policy == "partition_bytes":  # a thread without tasks has nothing to split
                limit = streams_buffer.partition_share_bytes(share, len(own)) if own else share
                chosen = [j for j, b in enumerate(sizes) if partition_over_share(b, limit)]
            elif policy == "biggest_partitions":
                chosen = streams_buffer.biggest_partitions_to_pause(sizes, share)
            elif policy == "instance_bytes":
                over = self.instance_bytes() > s.input_buffer_max_bytes
                chosen = [j for j, q in enumerate(own) if pause_over_share(over, q.queued)]
            else:
                chosen = streams_buffer.partitions_to_pause(sizes, share)
            for j in chosen:
                own[j].paused = True
            after_poll = [held, sum(q.paused for q in own), sum(q.queued > 0 for q in own)]
            self.carry[i] += per_tick
            budget = int(self.carry[i])
            self.carry[i] -= budget
            demand = min(budget, sum(q.end - q.consumed for q in own))
            processed = processed_bytes = 0
            while processed < budget and tasks:  # one record per task in turn
                q = None
                for j in range(len(tasks)):
                    pos = (self.rr[i] + j) % len(tasks)
                    q = self.next_partition(tasks[pos])
                    if q is not None:
                        self.rr[i] = (pos + 1) % len(tasks)
                        break
                if q is None:
                    break
                q.consumed += 1
                q.processed += 1
                processed += 1
                processed_bytes += q.size
                if policy == "records_per_partition" and q.paused \
                        and streams_buffer.record_queue_resumes(q.queued, n_max):
                    q.paused = False
            held = sum(q.buffered_bytes for q in own)
            if policy == "instance_bytes":
                resume_all = streams_buffer.resume_all_after_round(self.instance_bytes(),
                                                    s.input_buffer_max_bytes, processed)
            else:
                resume_all = streams_buffer.resume_all_after_round(held, share, processed)
            for q in own:
                if policy == "partition_bytes":
                    own_share = streams_buffer.partition_share_bytes(share, len(own))
                    if not partition_over_share(q.buffered_bytes, own_share):
                        q.paused = False  # (own is not empty in this loop)
                elif policy != "records_per_partition" and (resume_all or (
                        policy != "thread_bytes_as_merged" and resume_emptied(q.queued))):
                    q.paused = False
            self.rows.append([
                t * s.tick_ms, i, self.threads, share, polled, after_poll[0], held,
                sum(q.queued for q in own), processed, processed_bytes, demand, len(own),
                sum(q.paused for q in own), after_poll[1], after_poll[2],
                sum(q.end - q.fetched for q in own)])

    def recorder(self):
        """Each partition's state at the end of the tick."""
        s, rows = self.s, self.part_rows
        for t in range(s.ticks):
            yield self.until(t, self.steps - 1)
            for q in self.parts:
                k = q.index // s.topics
                for name, value in (
                        ("time_ms", t * s.tick_ms), ("partition", q.index), ("task", k),
                        ("topic", q.index % s.topics), ("thread", self.owner[k]),
                        ("buffered_records", q.queued), ("buffered_bytes", q.buffered_bytes),
                        ("lag_records", q.end - q.fetched), ("paused", q.paused),
                        ("polled_records", q.polled), ("processed_records", q.processed)):
                    rows[name].append(value)

    def run(self) -> tuple[pd.DataFrame, pd.DataFrame]:
        env = self.env
        env.process(self.cluster())
        for i in range(self.s.max_threads):
            env.process(self.stream_thread(i))
        env.process(self.recorder())
        env.run()
        threads = pd.DataFrame(self.rows, columns=list(THREADS)).astype(THREADS)
        partitions = pd.DataFrame(self.part_rows).astype(PARTITIONS)
        return threads, partitions


def simulate_simpy(scenario: StreamsScenario, *, seed: int = 0,
                   value_bytes: Sequence[int] | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Run the Streams scenario in SimPy: the ``threads`` and ``partitions`` tables of
    :func:`kipviz.scenarios.streams.scenario.simulate`, value for value."""
    if value_bytes is None:
        value_bytes = partition_value_bytes(scenario, np.random.default_rng(seed)).tolist()
    return StreamsModel(scenario, value_bytes).run()
