"""How a stream thread processes its tasks' buffered records in one round, a task at a time.

``StreamThread.runOnce`` hands ``TaskManager.process`` a record budget; the thread takes one
record per task in turn (``TaskExecutor.processTask``) and each task takes the head of its
``PartitionGroup`` with the smallest timestamp. A task's queues change only by its own
processing, so the round's outcome is found per task instead of per record:
:func:`task_capacity` counts the records a task processes before it waits, :func:`round_robin`
splits the budget between the tasks in turn, and :func:`take_records` consumes a task's share in
(offset, partition) order. :mod:`kipviz.scenarios.streams.kernel` calls them (compiled with it);
the SimPy reference (``tools/oracles/simpy_streams.py``) still takes one record at a time.
"""

from __future__ import annotations

from kipviz.kafka.streams.input_buffer import resume_at_records

__all__ = ["FUNCTIONS", "records_at", "records_below", "round_robin", "take_records",
           "task_capacity"]

# compiled by the kernel's _compile, callers after callees
FUNCTIONS = ("records_below", "records_at", "task_capacity", "take_records", "round_robin")


def records_below(x, k, topics, fetched, consumed):
    """Records buffered for task k at offsets below ``x``."""
    n = 0
    for p in range(k * topics, (k + 1) * topics):
        n += min(max(x - consumed[p], 0), fetched[p] - consumed[p])
    return n


def records_at(x, last, k, topics, fetched, consumed):
    """Task k's partitions up to ``last`` that buffer the record at offset ``x``."""
    n = 0
    for p in range(k * topics, last + 1):
        n += consumed[p] <= x < fetched[p]
    return n


def task_capacity(k, topics, fetched, consumed, end):
    """How many records task k processes in a row before it waits.

    ``PartitionGroup.nextRecord``: the head with the smallest timestamp (here the lowest offset:
    the k-th record of every partition has the same timestamp; ties go to the lower partition),
    so a task processes its records in (offset, partition) order. A task with an empty
    partition that still has records on the broker waits for them (``max.task.idle.ms`` 0,
    KIP-695), whether that partition is paused or not: it stops after the first record that
    empties such a partition. Only its own processing changes a task's queues, so a task that
    waits waits for the rest of the round.
    """
    last = -1  # the lagging partition whose last buffered record comes first
    for p in range(k * topics, (k + 1) * topics):
        if end[p] > fetched[p]:
            if fetched[p] == consumed[p]:
                return 0
            if last < 0 or fetched[p] < fetched[last]:
                last = p
    if last < 0:  # nothing left on the broker: every buffered record
        n = 0
        for p in range(k * topics, (k + 1) * topics):
            n += fetched[p] - consumed[p]
        return n
    x = fetched[last] - 1
    return records_below(x, k, topics, fetched, consumed) + records_at(
        x, last, k, topics, fetched, consumed)


def take_records(k, m, topics, fetched, consumed, size, paused, records_per_partition,
                 records_policy):
    """Task k processes its next ``m`` records (at most :func:`task_capacity`), in
    (offset, partition) order; returns their bytes. Under ``buffered.records.per.partition``
    (``records_policy``) a paused partition whose queue passes N resumes (``StreamTask.process``).
    """
    lo, hi = consumed[k * topics], fetched[k * topics]
    for p in range(k * topics + 1, (k + 1) * topics):
        lo, hi = min(lo, consumed[p]), max(hi, fetched[p])
    while lo < hi:  # the last offset x with at most m records below it
        mid = (lo + hi + 1) // 2
        if records_below(mid, k, topics, fetched, consumed) <= m:
            lo = mid
        else:
            hi = mid - 1
    left = m - records_below(lo, k, topics, fetched, consumed)  # taken at offset lo itself
    taken_bytes = 0
    for p in range(k * topics, (k + 1) * topics):
        queued = fetched[p] - consumed[p]
        n = min(max(lo - consumed[p], 0), queued)
        if left > 0 and consumed[p] <= lo < fetched[p]:
            n += 1
            left -= 1
        if n > 0:
            # the queue went from queued - 1 down to queued - n: the length nearest N
            passed = min(max(records_per_partition, queued - n), queued - 1)
            if records_policy and paused[p] and resume_at_records(passed, records_per_partition):
                paused[p] = False  # StreamTask.process: back to N, resume
            consumed[p] += n
            taken_bytes += n * size[p]
    return taken_bytes


def round_robin(budget, capacity, give, nt, pos):
    """A thread's processing: one record per task in turn from task ``pos``, skipping tasks
    that wait, until ``budget`` records or every task's ``capacity`` is used; ``give`` gets each
    task's records. Returns the task next in turn (after the last one that processed)."""
    give[:nt] = 0
    left = budget
    while left > 0:
        active = least = 0
        for j in range(nt):
            if capacity[j] > give[j]:
                active += 1
                least = capacity[j] - give[j] if active == 1 else min(
                    least, capacity[j] - give[j])
        if active == 0:
            break
        rounds = min(least, left // active)
        if rounds == 0:  # a last round that the budget cuts short
            j = pos
            while left > 0:
                if capacity[j] > give[j]:
                    give[j] += 1
                    left -= 1
                    pos = j + 1 if j + 1 < nt else 0
                j = j + 1 if j + 1 < nt else 0
            break
        for back in range(nt):  # whole rounds end after the last task in turn that processes
            j = (pos + nt - 1 - back) % nt
            if capacity[j] > give[j]:
                pos = j + 1 if j + 1 < nt else 0
                break
        for j in range(nt):
            if capacity[j] > give[j]:
                give[j] += rounds
        left -= rounds * active
    return pos
