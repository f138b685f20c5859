"""A stream thread's processing round found task by task equals taking one record at a time."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings

from kipviz.kafka.streams.input_buffer import resume_at_records
from kipviz.scenarios.streams.processing import round_robin, take_records, task_capacity
from tests.strategies import examples, round_robin_turns, streams_task_queues


def next_record(k, topics, fetched, consumed, end):
    """``PartitionGroup.nextRecord`` one record at a time: the lowest offset (then partition)
    of task k, or -1 while an empty partition has records on the broker."""
    best = -1
    for p in range(k * topics, (k + 1) * topics):
        if fetched[p] == consumed[p]:
            if end[p] > fetched[p]:
                return -1
        elif best < 0 or consumed[p] < consumed[best]:
            best = p
    return best


@settings(max_examples=examples(2.0))
@given(streams_task_queues())
def test_a_task_takes_its_records_in_offset_order_until_it_waits(case):
    """task_capacity counts the records next_record gives before it waits, and take_records
    consumes the first ones in that order, resuming a paused queue that passes N."""
    topics, fetched, consumed, end, paused, n_records, take = case
    capacity = task_capacity(1, topics, fetched, consumed, end)
    size = np.arange(1, 2 * topics + 1, dtype=np.int64) * 10
    want_consumed, want_paused, want_bytes, count = consumed.copy(), paused.copy(), 0, 0
    queues = consumed.copy()  # every record the task processes before it waits
    while (p := next_record(1, topics, fetched, queues, end)) >= 0:
        queues[p] += 1
        if count < take:
            want_consumed[p] += 1
            want_bytes += size[p]
            if want_paused[p] and resume_at_records(fetched[p] - want_consumed[p], n_records):
                want_paused[p] = False
        count += 1
    assert capacity == count
    m = min(take, capacity)
    got_consumed, got_paused = consumed.copy(), paused.copy()
    got_bytes = take_records(1, m, topics, fetched, got_consumed, size, got_paused, n_records,
                             True) if m else 0
    assert (got_bytes, got_consumed.tolist(), got_paused.tolist()) == (
        want_bytes, want_consumed.tolist(), want_paused.tolist())


@settings(max_examples=examples(2.0))
@given(round_robin_turns())
def test_the_budget_goes_one_record_per_task_in_turn_skipping_tasks_that_wait(turn):
    """round_robin gives each task what one record per task in turn from pos gives, and
    returns the task after the last one served."""
    caps, budget, pos = turn
    nt = len(caps)
    want, left, at, next_pos = [0] * nt, budget, pos, pos
    while left > 0 and any(c > w for c, w in zip(caps, want, strict=True)):
        if caps[at] > want[at]:
            want[at] += 1
            left -= 1
            next_pos = (at + 1) % nt
        at = (at + 1) % nt
    give = np.zeros(nt, np.int64)
    assert round_robin(budget, np.array(caps, np.int64), give, nt, pos) == next_pos
    assert give.tolist() == want
