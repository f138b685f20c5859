"""The KIP-770 Streams scenario's kernel: plain loops over numpy arrays that numba compiles.

:func:`streams_kernel` runs :mod:`kipviz.scenarios.streams`'s model tick by tick; run as it is,
it is the plain-Python reference, and :func:`compiled_kernel` is the same function compiled by
numba (imported only then). The pause and resume rules are
:mod:`kipviz.kafka.streams.input_buffer`'s own plain functions, called here (compiled with the
kernel) as the mechanism's functions and the SimPy reference call them; the policy codes are the
positions of :data:`kipviz.kafka.streams.input_buffer.STREAMS_POLICIES`.

A partition's queue is a span of offsets: ``consumed <= fetched <= end`` (``RecordQueue`` holds
``fetched - consumed`` records, the broker ``end - fetched`` more). Every record of a partition
costs the same ``size`` bytes (:func:`kipviz.kafka.streams.input_buffer.record_size_bytes`).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from kipviz.kafka.streams.input_buffer import (
    STREAMS_POLICIES,
    partition_over_share,
    pause_above_records,
    pause_over_share,
    pick_biggest_partitions,
    resume_all_within_share,
    resume_emptied,
    share_per_partition,
)
from kipviz.scenarios.jit import compiled_functions, jit_functions
from kipviz.scenarios.streams import processing
from kipviz.scenarios.streams.processing import round_robin, take_records, task_capacity

__all__ = ["POLICY_CODES", "compiled_kernel", "streams_kernel"]

POLICY_CODES = {name: i for i, name in enumerate(STREAMS_POLICIES)}
# THREAD: KIP-770 + apache/kafka#13283's resume rule; AS_MERGED: KIP-770's text, as merged
RECORDS, THREAD, AS_MERGED, INSTANCE, PARTITION, BIGGEST = (POLICY_CODES[name] for name in (
    "records_per_partition", "thread_bytes", "thread_bytes_as_merged", "instance_bytes",
    "partition_bytes", "biggest_partitions"))


def assign_tasks(n_tasks, threads, owner, thread_tasks, n_thread_tasks):
    """Task k goes to thread k % threads (tasks in id order within a thread)."""
    n_thread_tasks[:] = 0
    for k in range(n_tasks):
        i = k % threads
        owner[k] = i
        thread_tasks[i, n_thread_tasks[i]] = k
        n_thread_tasks[i] += 1


def thread_bytes(i, topics, size, fetched, consumed, thread_tasks, n_thread_tasks):
    """Bytes buffered by thread i (``TaskManager.getInputBufferSizeInBytes``)."""
    total = 0
    for j in range(n_thread_tasks[i]):
        k = thread_tasks[i, j]
        for p in range(k * topics, (k + 1) * topics):
            total += (fetched[p] - consumed[p]) * size[p]
    return total


def thread_counts(i, topics, paused, fetched, consumed, end, thread_tasks, n_thread_tasks):
    """Over thread i's partitions: how many are paused, how many hold buffered records, and
    the records buffered, not yet processed (end - consumed) and not yet fetched."""
    n_paused = n_nonempty = buffered = unprocessed = unfetched = 0
    for j in range(n_thread_tasks[i]):
        k = thread_tasks[i, j]
        for p in range(k * topics, (k + 1) * topics):
            n_paused += paused[p]
            n_nonempty += fetched[p] > consumed[p]
            buffered += fetched[p] - consumed[p]
            unprocessed += end[p] - consumed[p]
            unfetched += end[p] - fetched[p]
    return n_paused, n_nonempty, buffered, unprocessed, unfetched


def instance_bytes(size, fetched, consumed):
    """Bytes buffered by the whole instance (the rejected one-bound-per-instance alternative)."""
    total = 0
    for p in range(size.shape[0]):
        total += (fetched[p] - consumed[p]) * size[p]
    return total


def streams_kernel(
    partitions, changes, settings,
    # outputs
    out_threads, out_partitions,
):  # pragma: no cover - exercised compiled and uncompiled through simulate()
    """Run the model on the ``StreamsPartitions``, ``ThreadChanges`` and ``StreamsSettings`` of
    :mod:`kipviz.scenarios.streams.columns`; fills ``ThreadTicks`` (ticks x max threads) and
    ``PartitionTicks``. Returns the number of task moves made by thread count changes."""
    # the blocks' fields as locals, read by name once
    size, fetch_records, lag0 = partitions.size, partitions.fetch_records, partitions.lag0
    change_tick, change_threads = changes.tick, changes.threads
    rate_per_ms, topics, n_tasks = settings.rate_per_ms, settings.topics, settings.n_tasks
    threads0, total_bytes = settings.threads0, settings.total_bytes
    global_thread, policy = settings.global_thread, settings.policy
    records_per_partition = settings.records_per_partition
    records_per_tick, tick_ms, ticks = settings.records_per_tick, settings.tick_ms, settings.ticks
    p_buffered, p_lag, p_paused = out_partitions.buffered, out_partitions.lag, \
        out_partitions.paused
    p_polled, p_processed, p_thread = out_partitions.polled, out_partitions.processed, \
        out_partitions.thread
    t_alive, t_share, t_polled = out_threads.alive, out_threads.share_bytes, \
        out_threads.polled_bytes
    t_after_poll, t_bytes = out_threads.buffered_bytes_after_poll, out_threads.buffered_bytes
    t_records, t_processed = out_threads.buffered_records, out_threads.processed_records
    t_processed_bytes, t_demand = out_threads.processed_bytes, out_threads.demand_records
    t_partitions, t_paused = out_threads.partitions, out_threads.paused_partitions
    t_paused_after_poll = out_threads.paused_after_poll
    t_nonempty_after_poll, t_lag = out_threads.nonempty_after_poll, out_threads.lag_records
    n_parts = size.shape[0]
    max_threads = t_alive.shape[1]
    end = lag0.copy()
    fetched = np.zeros(n_parts, np.int64)
    consumed = np.zeros(n_parts, np.int64)
    paused = np.zeros(n_parts, np.bool_)
    owner = np.zeros(n_tasks, np.int64)
    thread_tasks = np.zeros((max_threads, n_tasks), np.int64)
    n_thread_tasks = np.zeros(max_threads, np.int64)
    rr = np.zeros(max_threads, np.int64)  # round-robin position in each thread's task list
    carry = np.zeros(max_threads, np.float64)  # fraction of a record of processing budget
    order = np.zeros(n_parts, np.int64)
    queued_bytes = np.zeros(n_parts, np.int64)
    chosen = np.zeros(n_parts, np.int64)
    consumed_before = np.zeros(n_parts, np.int64)
    capacity = np.zeros(n_tasks, np.int64)  # records each task of a thread can process
    give = np.zeros(n_tasks, np.int64)  # records each task of a thread processes
    threads = threads0
    assign_tasks(n_tasks, threads, owner, thread_tasks, n_thread_tasks)
    moves = 0
    change = 0
    for t in range(ticks):
        now = t * tick_ms
        while change < change_tick.shape[0] and change_tick[change] == t:
            # KafkaStreams.addStreamThread / removeStreamThread: a rebalance moves tasks; a
            # moved task's buffered records go back to the broker side (re-fetched from the
            # committed offset by the new owner), its partitions start unpaused
            old = owner.copy()
            threads = change_threads[change]
            assign_tasks(n_tasks, threads, owner, thread_tasks, n_thread_tasks)
            for k in range(n_tasks):
                if owner[k] != old[k]:
                    moves += 1
                    for p in range(k * topics, (k + 1) * topics):
                        fetched[p] = consumed[p]
                        paused[p] = False
            rr[:] = 0
            change += 1
        for p in range(n_parts):
            end[p] = lag0[p] + math.floor(rate_per_ms * now)
        share = total_bytes // (threads + global_thread)
        consumed_before[:] = consumed
        for i in range(threads):
            nt = n_thread_tasks[i]
            n_own = nt * topics
            # --- poll: every unpaused partition with records on the broker gets one fetch
            polled = 0
            for j in range(nt):
                k = thread_tasks[i, j]
                for p in range(k * topics, (k + 1) * topics):
                    p_thread[t, p] = i
                    n = 0
                    if not paused[p] and end[p] > fetched[p]:
                        n = min(end[p] - fetched[p], fetch_records[p])
                        fetched[p] += n
                        polled += n * size[p]
                    p_polled[t, p] = n
            held = thread_bytes(i, topics, size, fetched, consumed, thread_tasks, n_thread_tasks)
            t_after_poll[t, i] = held
            t_polled[t, i] = polled
            # --- pause after the poll (kipviz.kafka.streams.input_buffer's rules)
            over = held > share
            if policy == INSTANCE:
                over = instance_bytes(size, fetched, consumed) > total_bytes
            limit = share_per_partition(share, max(n_own, 1))
            n_order = 0
            for j in range(nt):
                k = thread_tasks[i, j]
                for p in range(k * topics, (k + 1) * topics):
                    queued = fetched[p] - consumed[p]
                    if policy == RECORDS:
                        if pause_above_records(queued, records_per_partition):
                            paused[p] = True
                    elif policy == PARTITION:
                        if partition_over_share(queued * size[p], limit):
                            paused[p] = True
                    elif policy == BIGGEST:
                        order[n_order] = p
                        queued_bytes[n_order] = queued * size[p]
                        n_order += 1
                    elif pause_over_share(over, queued):
                        paused[p] = True
            if policy == BIGGEST and over:
                n_chosen = pick_biggest_partitions(queued_bytes[:n_order], held - share, chosen)
                for c in range(n_chosen):
                    paused[order[chosen[c]]] = True
            n_paused, n_nonempty, _, demand, _ = thread_counts(
                i, topics, paused, fetched, consumed, end, thread_tasks, n_thread_tasks)
            t_paused_after_poll[t, i] = n_paused
            t_nonempty_after_poll[t, i] = n_nonempty
            # --- process: one record per task in turn, within the thread's budget
            carry[i] += records_per_tick
            budget = int(carry[i])
            carry[i] -= budget
            t_demand[t, i] = min(budget, demand)
            for j in range(nt):
                capacity[j] = task_capacity(thread_tasks[i, j], topics, fetched, consumed, end)
            pos = round_robin(budget, capacity, give, nt, rr[i])
            processed = 0
            processed_bytes = 0
            for j in range(nt):
                if give[j] > 0:
                    processed += give[j]
                    processed_bytes += take_records(
                        thread_tasks[i, j], give[j], topics, fetched, consumed, size, paused,
                        records_per_partition, policy == RECORDS)
            rr[i] = pos
            # --- resume after the round
            held = thread_bytes(i, topics, size, fetched, consumed, thread_tasks, n_thread_tasks)
            total, bound = held, share
            if policy == INSTANCE:
                total, bound = instance_bytes(size, fetched, consumed), total_bytes
            resume_all = resume_all_within_share(processed, total, bound)
            for j in range(nt):
                k = thread_tasks[i, j]
                for p in range(k * topics, (k + 1) * topics):
                    queued = fetched[p] - consumed[p]
                    if policy == PARTITION:
                        if not partition_over_share(queued * size[p], limit):
                            paused[p] = False
                    elif policy != RECORDS:
                        if resume_all:
                            paused[p] = False  # KIP-770's text (and the merged code): all
                        elif policy != AS_MERGED and resume_emptied(queued):
                            paused[p] = False  # beyond the KIP, #13283: resume emptied ones
            n_paused, _, records, _, lag = thread_counts(
                i, topics, paused, fetched, consumed, end, thread_tasks, n_thread_tasks)
            t_alive[t, i] = 1
            t_share[t, i] = share
            t_bytes[t, i] = held
            t_records[t, i] = records
            t_processed[t, i] = processed
            t_processed_bytes[t, i] = processed_bytes
            t_partitions[t, i] = n_own
            t_paused[t, i] = n_paused
            t_lag[t, i] = lag
        for p in range(n_parts):
            p_buffered[t, p] = fetched[p] - consumed[p]
            p_lag[t, p] = end[p] - fetched[p]
            p_paused[t, p] = paused[p]
            p_processed[t, p] = consumed[p] - consumed_before[p]
    return moves


_RULES = ("partition_over_share", "pause_over_share", "resume_all_within_share", "resume_emptied",
          "pause_above_records", "share_per_partition", "pick_biggest_partitions")
_FUNCTIONS = ("assign_tasks", "thread_bytes", "thread_counts", "instance_bytes",
              "streams_kernel")


def _compile() -> dict[str, Any]:
    processes = jit_functions(processing.FUNCTIONS, vars(processing),
                              foreign={"resume_at_records": processing.resume_at_records},
                              inline_foreign=True)
    return jit_functions(_FUNCTIONS, {**globals(), **processes},
                         foreign={name: globals()[name] for name in _RULES}, inline_foreign=True)


def compiled_kernel(name: str = "streams_kernel") -> Any:
    """``streams_kernel`` (or one of its helpers, by name) compiled by numba, once per process
    (:func:`kipviz.scenarios.jit.compiled_functions`: the plain functions stay plain)."""
    return compiled_functions(__name__, _compile)[name]
